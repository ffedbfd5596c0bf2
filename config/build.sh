#!/bin/bash
# First step of the README's two commands: install the Debian packages the
# project needs, then configure and build coll/rdma in BUILDDIR (default
# <repository>/build), leaving the source tree clean.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILDDIR:-$top/build}
"$top/config/install-debian-deps.sh"
cd "$top"
[ -x configure ] || ./autogen.sh
mkdir -p "$build"
cd "$build"
[ -f Makefile ] || "$top/configure" --quiet
make -j2 --no-print-directory
