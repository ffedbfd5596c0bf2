#!/bin/bash
# Build coll/rdma against the Open MPI of another Debian release and run its
# whole test suite (make check), on a Debian 12 host: in a chroot of that
# release's suite (CHROOT_SUITE): trixie (Debian 13: Open MPI 5.0.7, UCX
# 1.18; the default, what tests/run-all.sh runs) or sid (unstable: Open MPI
# 6.0.0~rc2, UCX 1.23.0~rc1 in 2026-10).  Each Open MPI series accepts only a
# coll component of its own coll API version, so each needs a build of its
# own.  Needs root (chroot, mount) and debootstrap
# (config/install-debian-deps.sh installs it).
#
# The chroot is made once per suite with `debootstrap --variant=minbase` and
# kept in build-<name>/rootfs (ignored by git; re-created when missing or
# incomplete), <name> being ompi5 for trixie, ompi6 for sid, chroot-<suite>
# for any other suite.  Every run copies the source tree (tracked and
# untracked files that git does not ignore) into the chroot, installs the
# packages of config/install-debian-deps.sh there, then autogen, configure,
# make and `make check` in a fresh build directory, like tests/run-all.sh
# does on the host (but in the tier series by default: COLL_RDMA_TEST_TIER
# below).  It knows nothing about the tests themselves.  /proc,
# /dev, /dev/shm (a private tmpfs) and /sys (read-only) are mounted for the
# run and always unmounted, whatever happens.
#
# Environment:
#   CHROOT_SUITE    Debian suite of the chroot (default: trixie)
#   CHROOT_NAME     names the work directory build-<name> (default: by suite, above)
#   CHROOT_ROOT     the chroot (default: build-<name>/rootfs in the repository)
#   DEBIAN_MIRROR   archive for debootstrap and apt (default: http://deb.debian.org/debian)
#   CHROOT_RECREATE=1  make the chroot again from scratch
#   CHROOT_IGNORE_VALID_UNTIL=0|1  let apt in the chroot accept a Release file
#                   past its Valid-Until date (default: 1 for sid, 0 otherwise;
#                   see below)
#   CHROOT_NO_BUILD=1  install the packages, then stop (or run the arguments in
#                   /build/src) without autogen, configure or make: for a
#                   release coll/rdma does not build against yet
#   JOBS            parallel make jobs (default: number of cores)
#   CHROOT_PKG_TEST=1  after make check, also build, install, use and remove the
#                   Debian package in the chroot (tests/pkg/run_pkg_test.sh)
#   CHROOT_REUSE_BUILD=1  no copy and no build where an earlier run built
#                   these same sources (tests/run-all.sh: in the background)
#   CHROOT_NO_OFI=0 keep Open MPI's libfabric components where the package
#                   does not exclude them (sid; below)
#   COLL_RDMA_TEST_TIER  the tier of make check in the chroot (default series:
#                   the tests and cases that depend on the Open MPI series,
#                   the host runs the rest; full: every one, as on the host;
#                   Makefile.am, tests/mpi/common.sh)
# tests/run-ompi5.sh is this script for trixie (and takes the OMPI5_* names
# of these variables).
# Logs: build-<name>/logs (config.log, test-suite.log and every test's log).
# Exit status: make check's, else the package test's (or 1 when the chroot or
# the build failed).
#
# With arguments, runs them in the chroot's build directory (/build/obj; the
# sources are in /build/src) instead of make check, for example the benchmark:
#   tests/run-chroot.sh env BUILDDIR=/build/obj bash /build/src/bench/compare.sh -n 2
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
suite=${CHROOT_SUITE:-trixie}
case $suite in
trixie) name=ompi5 ;;
sid | unstable) name=ompi6 ;;
*) name=chroot-$suite ;;
esac
name=${CHROOT_NAME:-$name}
work=$top/build-$name
root=${CHROOT_ROOT:-$work/rootfs}
# sid's Release file names a Valid-Until date a week after it was made; an
# archive that serves a snapshot of it (as the one this project is tested
# with does) serves it past that date, and apt then ignores it ("Release file
# ... is expired ... Updates for this repository will not be applied"): a new
# chroot has no package lists and installs nothing.  The date guards against
# being served stale metadata on purpose; the signature is still checked.
# Stable suites (trixie) carry no Valid-Until and need nothing.
case $suite in
sid | unstable) ignore_valid_until=${CHROOT_IGNORE_VALID_UNTIL:-1} ;;
*) ignore_valid_until=${CHROOT_IGNORE_VALID_UNTIL:-0} ;;
esac
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
jobs=${JOBS:-$(nproc)}
tier=${COLL_RDMA_TEST_TIER:-series}
stamp=$root/.coll-rdma-rootfs-complete
logs=$work/logs
t0=$(date +%s)

say() { echo "== [$suite $(($(date +%s) - t0))s] $*"; }
die() { echo "run-chroot ($suite): $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot, mount); run it as root or with sudo"
command -v debootstrap >/dev/null || die "debootstrap not found: apt-get install debootstrap (config/install-debian-deps.sh does)"
mkdir -p "$work"
root=$(realpath -m "$root")

# One run at a time per chroot: a second run would unmount under the first.
exec 9>"$root.lock"
flock -n 9 || die "another run-chroot.sh uses $root ($root.lock)"

# ---- mounts ------------------------------------------------------------------

mounted=()
mount_in() { # mount_in TARGET MOUNT-ARGS...: mount, keep it private, remember it
    local target=$1
    shift
    mountpoint -q "$target" && umount -l "$target" # left over from a killed run
    mount "$@" "$target"
    mount --make-private "$target" # nothing mounted below it reaches the host
    mounted+=("$target")
}

# Processes whose root directory is the chroot: started by this run (the lock
# keeps other runs out), e.g. ranks left behind by a killed mpirun.
chroot_pids() {
    local p r
    for p in /proc/[0-9]*; do
        r=$(readlink "$p/root" 2>/dev/null) || continue
        if [ "$r" = "$root" ]; then echo "${p#/proc/}"; fi
    done
    return 0
}

# Long steps run in the background and are waited for, so that a signal to
# this script is acted on at once (bash runs traps only between foreground
# commands); the trap stops the step.
bg=
run_bg() {
    local rc=0
    "$@" 9>&- &
    bg=$!
    wait "$bg" || rc=$?
    bg=
    return $rc
}

cleanup() {
    local rc=$? i pids
    set +e # a failing step must not stop the unmounting
    trap - EXIT INT TERM HUP
    if [ -n "$bg" ]; then # interrupted: stop the step (debootstrap cleans up after itself)
        kill -TERM "$bg" 2>/dev/null
        for i in 1 2 3 4 5 6 7 8 9 10; do
            kill -0 "$bg" 2>/dev/null || break
            sleep 1
        done
        kill -KILL "$bg" 2>/dev/null
    fi
    pids=$(chroot_pids)
    if [ -n "$pids" ]; then
        echo "run-chroot: killing processes left in the chroot:" $pids >&2
        kill -KILL $pids 2>/dev/null || true
        sleep 1
    fi
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
        umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}" ||
            echo "run-chroot: could not unmount ${mounted[i]}" >&2
    done
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# Delete the chroot, but only one this script made (marker file) or an empty
# directory, and never with something mounted in it.
marker=$root/.coll-rdma-rootfs
safe_rm_root() {
    if [ -d "$root" ] && [ ! -f "$marker" ] && [ -n "$(ls -A "$root")" ]; then
        die "$root is not empty and was not made by run-chroot.sh; remove it or set CHROOT_ROOT"
    fi
    if grep -qF " $root/" /proc/self/mounts; then
        die "something is still mounted below $root; unmount it first"
    fi
    rm -rf --one-file-system -- "$root"
}

# ---- the chroot ------------------------------------------------------------------

if [ "${CHROOT_RECREATE:-0}" = 1 ] || [ ! -f "$stamp" ]; then
    say "creating the $suite chroot in $root (debootstrap --variant=minbase)"
    safe_rm_root
    mkdir -p "$root"
    touch "$marker"
    if ! run_bg debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$work/debootstrap.log" 2>&1; then
        tail -20 "$work/debootstrap.log" >&2
        die "debootstrap failed (log: $work/debootstrap.log)"
    fi
    echo "deb $mirror $suite main" >"$root/etc/apt/sources.list"
    date -u +%FT%TZ >"$stamp"
fi

mount_in "$root/proc" -t proc proc
mount_in "$root/dev" --bind /dev
mount_in "$root/dev/shm" -t tmpfs -o mode=1777,size=4g shm
mount_in "$root/sys" -t sysfs -o ro sysfs # hwloc's topology, UCX's network interfaces
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
# apt's setting for every apt-get of the run (install-debian-deps.sh, the
# package test's install), written or removed at each run so that
# CHROOT_IGNORE_VALID_UNTIL takes effect on an existing chroot.  Why: above.
valid_conf=$root/etc/apt/apt.conf.d/80coll-rdma-no-valid-until
if [ "$ignore_valid_until" = 1 ]; then
    printf '%s\n' '// tests/run-chroot.sh: the archive serves this suite'"'"'s Release past its Valid-Until date' \
        'Acquire::Check-Valid-Until "false";' >"$valid_conf"
else
    rm -f -- "$valid_conf"
fi

# ---- the source tree --------------------------------------------------------------

# the source tree as a tar stream
src_tar() {
    if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        # tracked and untracked-but-not-ignored files: what the next commit would hold
        (cd "$top" && git ls-files -z --cached --others --exclude-standard |
            while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
            tar --null -T - -cf -)
    else
        (cd "$top" && tar --exclude='./build*' --exclude=./.git -cf - .)
    fi
}
# CHROOT_REUSE_BUILD=1: the build an earlier run made of these very sources
# (its stamp holds their checksum; tests/run-all.sh makes it in the
# background), used once: the stamp goes when it is used.
built_stamp=$root/build/.coll-rdma-built
src_sum=$(src_tar | sha256sum | cut -d' ' -f1)
reuse=0
if [ "${CHROOT_REUSE_BUILD:-0}" = 1 ] && [ "$(cat "$built_stamp" 2>/dev/null)" = "$src_sum" ]; then
    reuse=1
    rm -f -- "$built_stamp"
    say "using the build of these sources made before (CHROOT_REUSE_BUILD=1)"
else
    say "copying the source tree into the chroot"
    rm -rf --one-file-system -- "$root/build"
    mkdir -p "$root/build/src" "$root/build/obj"
    src_tar | tar -xf - -C "$root/build/src"
fi

# ---- inside: packages, build, make check ------------------------------------------

# Run a command in the chroot with a clean environment.
in_chroot() {
    run_bg chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        DEBIAN_FRONTEND=noninteractive \
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        COLL_RDMA_TEST_TIER="$tier" \
        "$@"
}

# Open MPI's libfabric components (btl/ofi, mtl/ofi) probe every libfabric
# provider as each process starts: 1.5 s per process in the sid chroot on
# the 2-core machine, in each of the suite's mpiruns, for a fabric no test
# uses.  Debian 12's and 13's packages exclude them in
# openmpi-mca-params.conf (with btl/uct, btl/openib, pml/ucx and osc/ucx);
# sid's 6.0.0~rc2 excludes nothing.  Where that file names no btl and no mtl,
# a block of two lines excludes the two ofi components, nothing else (pml/ucx
# and btl/uct stay as the package has them); removed before apt-get (a
# conffile) and written again after it, at every run; CHROOT_NO_OFI=0 leaves
# the file as the package has it.
params=$root/etc/openmpi/openmpi-mca-params.conf
no_ofi_begin='# tests/run-chroot.sh: begin (no libfabric probing; CHROOT_NO_OFI=0 removes this block)'
no_ofi_end='# tests/run-chroot.sh: end'
no_ofi() { # remove the block; with "add", write it again where the file allows
    [ -f "$params" ] || return 0
    sed -i "\|^$no_ofi_begin\$|,\|^$no_ofi_end\$|d" "$params"
    if [ "${1:-}" = add ] && [ "${CHROOT_NO_OFI:-1}" = 1 ] && ! grep -Eq '^[[:space:]]*(btl|mtl)[[:space:]]*=' "$params"; then
        printf '%s\n' "$no_ofi_begin" 'btl = ^ofi' 'mtl = ^ofi' "$no_ofi_end" >>"$params"
    fi
}

say "installing packages in the chroot (config/install-debian-deps.sh)"
no_ofi
in_chroot env COLL_RDMA_IN_CHROOT=1 sh /build/src/config/install-debian-deps.sh >"$work/apt.log" 2>&1 ||
    { tail -20 "$work/apt.log" >&2; die "package installation failed in the chroot (log: $work/apt.log)"; }
no_ofi add
ompi_version=$(in_chroot ompi_info --version | sed -n 's/^Open MPI v//p')
ompi="Open MPI $ompi_version"
in_chroot sh -c 'echo "Open MPI $(ompi_info --version | sed -n "s/^Open MPI v//p"), UCX $(ucx_info -v | sed -n "s/^# Library version: //p"), $(gcc --version | head -1)"'

if [ "${CHROOT_NO_BUILD:-0}" = 1 ]; then
    [ $# -gt 0 ] || { say "packages installed; not building (CHROOT_NO_BUILD=1)"; exit 0; }
    say "running in the chroot (no build): $*"
    status=0
    in_chroot bash -c 'cd /build/src && exec "$@"' run-chroot "$@" || status=$?
    exit $status
fi

if [ "$reuse" = 0 ]; then
    say "building against $ompi (autogen, configure, make -j$jobs)"
    in_chroot bash -c "set -e; cd /build/src; ./autogen.sh >/build/autogen.log 2>&1 || { cat /build/autogen.log; exit 1; }
        cd /build/obj; /build/src/configure --quiet; make -j$jobs --no-print-directory" ||
        { mkdir -p "$logs"; cp -f "$root/build/obj/config.log" "$logs/" 2>/dev/null || true; die "build failed against $ompi"; }
    echo "$src_sum" >"$built_stamp"
fi

if [ $# -gt 0 ]; then
    say "running in the chroot: $*"
    status=0
    in_chroot bash -c 'cd /build/obj && exec "$@"' run-chroot "$@" || status=$?
    exit $status
fi

rm -f -- "$built_stamp" # a tree that ran make check is not a fresh build
say "make check against $ompi (tier $tier)"
status=0
in_chroot bash -c "cd /build/obj && make -j1 --no-print-directory check" || status=$?

# ---- logs and summary -----------------------------------------------------------------

rm -rf -- "$logs"
mkdir -p "$logs"
(cd "$root/build/obj" && find . -name '*.log' -print0 | tar --null -T - -cf -) | tar -xf - -C "$logs"
# each test's result (automake's last line), its own "N passed, M failed" line
# if it prints one, and its FAIL lines
for log in $(cd "$logs" && find . -name '*.log' ! -name test-suite.log ! -name config.log | sort); do
    result=$(grep -E '^(PASS|FAIL|SKIP|XFAIL|XPASS|ERROR) .*\(exit status: [0-9]+\)$' "$logs/$log" | tail -1)
    [ -n "$result" ] || continue
    echo "== $result${result:+ }$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$logs/$log" | tail -1)"
    grep -E '^FAIL ' "$logs/$log" | grep -v '(exit status: ' | head -20
done
say "$ompi suite ($suite, tier $tier): make check exit status $status (logs: $logs)"

if [ "${CHROOT_PKG_TEST:-0}" = 1 ]; then
    say "the Debian package against $ompi (tests/pkg/run_pkg_test.sh)"
    pstatus=0
    in_chroot env BUILDDIR=/build/obj JOBS="$jobs" bash /build/src/tests/pkg/run_pkg_test.sh || pstatus=$?
    say "$ompi package test ($suite): exit status $pstatus"
    [ "$status" -ne 0 ] || status=$pstatus
fi
exit $status
