#!/bin/bash
# mpi4py (Debian's python3-mpi4py + python3-numpy, unmodified) over coll/rdma:
# tests/real/mpi4py_test.py with /usr/bin/python3 at np 3 and 4.
#
# Environment: BUILDDIR, PLAIN, TIMEOUT, KEEP_LOGS, ONLY, COLL_RDMA_TEST_TIER
# as in tests/mpi/common.sh (series: the runs at np 4, op/avx loaded and
# MPI_THREAD_MULTIPLE; np 3 on the host).  Prints the test's own PASS/FAIL lines (prefixed with
# the run), then PASS/FAIL per run and per statistics check, and finally
# "N passed, M failed"; exits non-zero when M > 0.
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../mpi/common.sh"
rdma_series_cases <<<'mpi4py-np4-avx mpi4py-np4-thread-multiple'

# Debian's interpreter: the python3 first on PATH may not see python3-mpi4py.
PY=/usr/bin/python3
if ! $PY -c 'import mpi4py, numpy' 2>/dev/null; then
    echo "FAIL mpi4py-import ($PY cannot import mpi4py and numpy)"
    echo "0 passed, 1 failed"
    exit 1
fi
echo "# mode: $RDMA_MODE; logs in $RDMA_LOGDIR" >&2

# run NAME NP AVX LEVEL CHECKS: AVX=avx-off adds $OP_AVX_WORKAROUND (see
# common.sh); LEVEL: thread level mpi4py requests; CHECKS: statistics checks
# (rdma_check_stats).  In component mode every numpy Allreduce of the test is
# within allreduce_max_bytes and served by coll/rdma, so one run keeps op/avx
# loaded (avx-on) to exercise 8/16-bit SUM through a real program.
run() {
    local name=$1 np=$2 avx=$3 level=$4 checks=$5 out err rc reason= avxargs= extra=
    rdma_selected "$name" || return 0
    out=$RDMA_LOGDIR/$name.out
    err=$RDMA_LOGDIR/$name.err
    [ "$avx" = avx-off ] && avxargs=$OP_AVX_WORKAROUND
    # plain Open MPI 4.1.4 gets MIN/MAX of MPI_UNSIGNED_LONG wrong
    # (ompi#10525): skip them where coll/rdma does not serve the calls
    if [ "$RDMA_MODE" = plain ]; then
        extra=--skip-ulong-minmax
    fi
    # shellcheck disable=SC2086
    rdma_run "$name" "$out" "$err" \
        mpirun --oversubscribe -np "$np" $avxargs $(rdma_verbose_args) "$PY" "$HERE/mpi4py_test.py" \
        --thread-level="$level" $extra
    rc=$?
    sed -n -e "s/^\(PASS\|FAIL\) /  \1 /p" "$out"
    reason=$(rdma_outcome $rc "$out" "$err" '^[0-9]+ passed, 0 failed$' "'0 failed' summary from mpi4py_test.py")
    if [ -z "$reason" ]; then
        rdma_pass "$name" "${RDMA_RUN_SECS}s${RDMA_RUN_NOTE:+, $RDMA_RUN_NOTE}"
    else
        rdma_fail "$name" "$reason${RDMA_RUN_NOTE:+; $RDMA_RUN_NOTE}; np=$np"
    fi
    # shellcheck disable=SC2086
    reason=$(rdma_check_stats "$err" "$np" $checks)
    if [ "$RDMA_MODE" = component ]; then
        if [ -z "$reason" ]; then
            rdma_pass "$name-statistics" "$checks"
        else
            rdma_fail "$name-statistics" "$reason"
        fi
    fi
}

# auto picks the algorithms by communicator size, message size and (op, type) (docs/design.md)
SERVED="served:barrier:read served:bcast:read served:allreduce:(read|ktree|pairwise|nway|bruck|ring) served:ibarrier:read served:ibcast:read served:iallreduce:(read|ktree|pairwise|nway|bruck|ring)"
run mpi4py-np3 3 avx-off funneled "$SERVED"
if [ "$RDMA_MODE" = component ]; then
    run mpi4py-np4-avx 4 avx-on funneled "$SERVED"
else
    run mpi4py-np4 4 avx-off funneled "$SERVED"
fi
# mpi4py's default thread level, MPI_THREAD_MULTIPLE: served all the same
run mpi4py-np4-thread-multiple 4 avx-off multiple "$SERVED"

rdma_finish
