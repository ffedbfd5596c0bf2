#!/bin/bash
# Open MPI 5.0 in a Debian 13 (trixie) chroot: tests/run-chroot.sh with
# CHROOT_SUITE=trixie, kept under its old name for whoever types it.  The
# variables of its first version still work (OMPI5_ROOT, OMPI5_SUITE,
# OMPI5_RECREATE, OMPI5_PKG_TEST); the CHROOT_* ones win when both are set.
# Arguments as tests/run-chroot.sh's.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
export CHROOT_SUITE=${CHROOT_SUITE:-${OMPI5_SUITE:-trixie}}
# the work directory of its first version, whatever the suite
export CHROOT_NAME=${CHROOT_NAME:-ompi5}
# only the variables that are set: run-chroot.sh's defaults for the rest
[ -z "${OMPI5_ROOT:-}" ] || export CHROOT_ROOT=${CHROOT_ROOT:-$OMPI5_ROOT}
[ -z "${OMPI5_RECREATE:-}" ] || export CHROOT_RECREATE=${CHROOT_RECREATE:-$OMPI5_RECREATE}
[ -z "${OMPI5_PKG_TEST:-}" ] || export CHROOT_PKG_TEST=${CHROOT_PKG_TEST:-$OMPI5_PKG_TEST}
exec bash "$here/run-chroot.sh" "$@"
