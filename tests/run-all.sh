#!/bin/bash
# The README's test command: install dependencies, build coll/rdma in a
# build directory, and run every test and every case (make check, tier full)
# against the host's Open MPI (4.1 on Debian 12) and the Debian package
# (tests/pkg/run_pkg_test.sh); then against Open MPI 5.0 in a Debian 13
# chroot and 6.0 in a Debian sid chroot (tests/run-chroot.sh with
# CHROOT_SUITE=trixie and sid) make check's tier series, the tests and cases
# that depend on the Open MPI series (Makefile.am, tests/mpi/common.sh), and
# the package test.  The chroots are made (debootstrap), their packages
# installed and coll/rdma built there in the background while the host's make
# check runs (that needs the network and the disk more than the cores); the
# chroots' runs use those builds (CHROOT_REUSE_BUILD=1).
#
# Environment: RUN_OMPI5=0 skips the Debian 13 chroot, RUN_OMPI6=0 the sid
# one, RUN_PKG_TEST=0 every package test; COLL_RDMA_TEST_TIER=full runs every
# case in the chroots too, =series only the series' cases on the host too.
# Exit status: the first failing suite's.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILDDIR:-$top/build}
t0=$(date +%s)
times=()
# lap WHAT: the seconds since the last lap, for the summary at the end
lap_t=$t0
lap() {
    local now
    now=$(date +%s)
    times+=("$1 $((now - lap_t))s")
    lap_t=$now
}

suites=()
[ "${RUN_OMPI5:-1}" = 0 ] || suites+=(trixie)
[ "${RUN_OMPI6:-1}" = 0 ] || suites+=(sid)
prep=
prep_log=
stop_prep() {
    [ -z "$prep" ] || kill -TERM "$prep" 2>/dev/null || true
}
trap stop_prep EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

BUILDDIR=$build "$top/config/build.sh"
lap "host build"
# The chroots, one after the other, in the background: debootstrap,
# apt-get, the build and make check's programs (make check with no test in
# place of make check); the runs below find them made, installed and built.
# A failure here is only reported: the run below does what is missing again
# and fails there if it must.  At nice 19: the host's tests keep the cores
# (spinning ranks), the making waits on the archive and the disk meanwhile
# (unniced, it made the first 150 cases of the MPI matrix 3.5 times slower).
if [ ${#suites[@]} -gt 0 ]; then
    prep_log=$build/chroot-prepare.log
    (
        child=
        trap '[ -z "$child" ] || kill -TERM "$child" 2>/dev/null; wait; exit 143' TERM
        for suite in "${suites[@]}"; do
            CHROOT_SUITE=$suite nice -n 19 bash "$top/tests/run-chroot.sh" make -j"$(nproc)" --no-print-directory check TESTS= &
            child=$!
            rc=0
            wait "$child" || rc=$?
            child=
            [ "$rc" = 0 ] || echo "== the $suite chroot: exit status $rc (the run below tries again)"
        done
    ) >"$prep_log" 2>&1 </dev/null &
    prep=$!
    echo "== making the chroots (${suites[*]}) in the background: $prep_log"
fi

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd "$build"
status=0
make -j1 --no-print-directory check || status=$?
# make check's own summary is in test-suite.log; show each test's result line
for log in tests/unit/*.log tests/mpi/*.log tests/bench/*.log tests/real/*.log; do
    [ -f "$log" ] && [ "$log" != test-suite.log ] && { echo "== $log"; grep -E '^(PASS|FAIL|[0-9]+ passed)' "$log" | tail -40; }
done
lap "host make check (tier ${COLL_RDMA_TEST_TIER:-full})"
# The Debian package (after make check: it installs into the system's Open
# MPI for a minute and removes it again); RUN_PKG_TEST=0 skips it here and in
# the chroot.
if [ "${RUN_PKG_TEST:-1}" != 0 ]; then
    echo "== Debian package: tests/pkg/run_pkg_test.sh (make distcheck, dpkg-buildpackage, lintian, install, mpirun, remove)"
    DISTCHECK=1 BUILDDIR=$build bash "$top/tests/pkg/run_pkg_test.sh" || { rcp=$?; [ "$status" -ne 0 ] || status=$rcp; }
    lap "host package test"
fi
if [ -n "$prep" ]; then
    rc=0
    wait "$prep" || rc=$?
    prep=
    echo "== the chroots made and built in the background (exit status $rc; log: $prep_log):"
    if [ "$rc" = 0 ]; then grep -E '^(== \[|Open MPI)' "$prep_log" || true; else cat "$prep_log"; fi
    lap "waiting for the chroots"
fi
for suite in "${suites[@]}"; do
    case $suite in
    trixie) echo "== Open MPI 5.0: tests/run-chroot.sh (Debian 13 chroot)" ;;
    *) echo "== Open MPI 6.0: tests/run-chroot.sh (Debian sid chroot)" ;;
    esac
    CHROOT_SUITE=$suite CHROOT_PKG_TEST=${RUN_PKG_TEST:-1} CHROOT_REUSE_BUILD=1 bash "$top/tests/run-chroot.sh" ||
        { rcc=$?; [ "$status" -ne 0 ] || status=$rcc; }
    lap "$suite chroot"
done
echo "== times: ${times[*]/%/,} total $(($(date +%s) - t0))s" | sed 's/, total/; total/'
exit $status
