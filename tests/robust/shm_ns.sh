#!/bin/sh
# shm_ns.sh SIZE COMMAND...: run COMMAND in a mount namespace of its own whose
# /dev/shm is a fresh tmpfs of SIZE (e.g. 64M, Docker's default), so that a
# test can fill it without touching the machine's.  Needs root (outside a
# chroot); what COMMAND leaves there goes with the namespace.
size=$1
shift
exec unshare -m sh -c 'mount -t tmpfs -o "size=$0" tmpfs /dev/shm && exec "$@"' "$size" "$@"
