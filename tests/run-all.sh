#!/bin/bash
# The README's test command: install dependencies, build coll/rdma in a
# build directory, and run every test (make check) against the host's Open
# MPI (4.1 on Debian 12) and the Debian package (tests/pkg/run_pkg_test.sh);
# then the same against Open MPI 5.0 in a Debian 13 chroot (tests/run-chroot.sh
# with CHROOT_SUITE=trixie; RUN_OMPI5=0 skips it, RUN_PKG_TEST=0 skips every
# package test); then Open MPI 6.0 in a Debian sid chroot (CHROOT_SUITE=sid;
# RUN_OMPI6=0 skips it).  Exit status: the first failing suite's.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILDDIR:-$top/build}
BUILDDIR=$build "$top/config/build.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd "$build"
status=0
make -j1 --no-print-directory check || status=$?
# make check's own summary is in test-suite.log; show each test's result line
for log in tests/unit/*.log tests/mpi/*.log tests/bench/*.log tests/real/*.log; do
    [ -f "$log" ] && [ "$log" != test-suite.log ] && { echo "== $log"; grep -E '^(PASS|FAIL|[0-9]+ passed)' "$log" | tail -40; }
done
# The Debian package (after make check: it installs into the system's Open
# MPI for a minute and removes it again); RUN_PKG_TEST=0 skips it here and in
# the chroot.
if [ "${RUN_PKG_TEST:-1}" != 0 ]; then
    echo "== Debian package: tests/pkg/run_pkg_test.sh (make distcheck, dpkg-buildpackage, lintian, install, mpirun, remove)"
    DISTCHECK=1 BUILDDIR=$build bash "$top/tests/pkg/run_pkg_test.sh" || { rcp=$?; [ "$status" -ne 0 ] || status=$rcp; }
fi
if [ "${RUN_OMPI5:-1}" != 0 ]; then
    echo "== Open MPI 5.0: tests/run-chroot.sh (Debian 13 chroot)"
    CHROOT_SUITE=trixie CHROOT_PKG_TEST=${RUN_PKG_TEST:-1} bash "$top/tests/run-chroot.sh" ||
        { rc5=$?; [ "$status" -ne 0 ] || status=$rc5; }
fi
if [ "${RUN_OMPI6:-1}" != 0 ]; then
    echo "== Open MPI 6.0: tests/run-chroot.sh (Debian sid chroot)"
    CHROOT_SUITE=sid CHROOT_PKG_TEST=${RUN_PKG_TEST:-1} bash "$top/tests/run-chroot.sh" ||
        { rc6=$?; [ "$status" -ne 0 ] || status=$rc6; }
fi
exit $status
