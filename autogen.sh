#!/bin/sh
# Regenerate the autotools build system (needs autoconf, automake, libtool).
set -e
cd "$(dirname "$0")"
autoreconf -fi
