#!/bin/sh
# Install what building, testing and benchmarking coll/rdma need on Debian 12
# (Open MPI 4.1); tests/run-chroot.sh also runs it inside its chroots: Debian
# 13 (Open MPI 5.0) and sid (Open MPI 6.0).  debootstrap makes them.
# Idempotent: skips apt when every package is already installed.
set -e
PKGS="libopenmpi-dev libpmix-dev openmpi-bin libucx-dev ucx-utils autoconf automake libtool pkg-config gcc make
      hpcc python3-mpi4py python3-numpy gnuplot-nox procps coreutils debootstrap
      build-essential dpkg-dev debhelper lintian"
# libpmix-dev: Open MPI 5.0's and 6.0's internal headers include <pmix.h>;
# Debian 12's and 13's libopenmpi-dev depend on it, sid's 6.0.0~rc2 does not
# (it depends on libprrte-dev, which does not either).
# build-essential ... lintian: the Debian package (tests/pkg/run_pkg_test.sh).
# tests/robust: the leak check (valgrind) and hosts as network namespaces (ip).
# Not inside the chroots (COLL_RDMA_IN_CHROOT=1), where those cases print
# SKIP: namespaces and valgrind are exercised on the host.
[ -n "${COLL_RDMA_IN_CHROOT:-}" ] || PKGS="$PKGS valgrind iproute2"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO=sudo
    echo "installing:$missing"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi
