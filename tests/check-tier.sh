#!/bin/sh
# make check's runner of every test (Makefile.am: LOG_COMPILER): runs it,
# unless COLL_RDMA_TEST_TIER=series and it is one of the tests that do not
# depend on the Open MPI series (Makefile.am's TESTS_ONCE, the first
# argument: the unit tests, plan simulators and model checks, built without
# MPI), which then SKIP (exit 77): they run in the full tier, the default,
# on the host (tests/run-all.sh), not again in the Open MPI 5.0 and 6.0
# chroots (tests/run-chroot.sh, which sets series).  The test scripts
# select their cases by the same variable (tests/mpi/common.sh).
#
# Usage: check-tier.sh "TESTS_ONCE" TEST [ARGS...]
once=$1
shift
if [ "${COLL_RDMA_TEST_TIER:-full}" = series ]; then
    for t in $once; do
        case $1 in
        "$t" | */"$t")
            echo "SKIP: $t does not depend on the Open MPI series: it runs in the full tier (COLL_RDMA_TEST_TIER=full, the host's make check)"
            exit 77
            ;;
        esac
    done
fi
exec "$@"
