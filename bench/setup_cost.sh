#!/usr/bin/env bash
# setup_cost.sh: run bench/setup_cost with and without coll/rdma, interleaved,
# and print the median (and min, max) over runs of MPI_Init, of each of the
# first calls on a dup'ed communicator, of the steady state, of a second
# communicator's set-up call and of MPI_Finalize.  See bench/README.md.
#
# Usage: bench/setup_cost.sh [-n NP] [-r RUNS] [-c CALLS] [-m COMMS] [-k KIND] [-a "MCA ARGS"]
#                            [-A "MCA ARGS"] [-x "NAME=MPIRUN ARGS"]...
#   -n NP      ranks (default 2)
#   -r RUNS    runs of each configuration (default 9), interleaved
#   -c CALLS   timed calls (default 40)
#   -m COMMS   also COMMS communicators one after the other, each freed, then
#              all kept: time per communicator, /dev/shm's growth (setup_cost -m)
#   -k KIND    blocking (default), nonblocking (MPI_Iallreduce + MPI_Wait) or
#              persistent (MPI_Allreduce_init once, MPI_Start + MPI_Wait)
#   -a ARGS    more mpirun arguments for the rdma configuration
#   -A ARGS    more mpirun arguments for every configuration
#   -x N=ARGS  one more configuration NAME: coll/rdma with these mpirun
#              arguments (e.g. -x "at-once=--mca coll_rdma_window_setup_calls 0")
#   -o FILE    also keep the raw lines (config, then setup_cost's line)
# Configurations: rdma (coll/rdma as configured), tuned (--mca coll ^rdma),
# and each -x; the delta column is the first minus tuned.
# env: BUILDDIR (default repository root; mca_coll_rdma.so and bench/setup_cost)
set -u
SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILDDIR=${BUILDDIR:-$(cd "$SRCDIR/.." && pwd)}
NP=2 RUNS=9 CALLS=40 COMMS=0 KIND=blocking RDMA_ARGS= BOTH_ARGS= RAW=
EXTRA_NAMES=() EXTRA_ARGS=()
while getopts "n:r:c:m:k:a:A:o:x:h" opt; do
    case $opt in
    n) NP=$OPTARG ;;
    r) RUNS=$OPTARG ;;
    c) CALLS=$OPTARG ;;
    m) COMMS=$OPTARG ;;
    k) KIND=$OPTARG ;;
    a) RDMA_ARGS=$OPTARG ;;
    A) BOTH_ARGS=$OPTARG ;;
    o) RAW=$OPTARG ;;
    x) EXTRA_NAMES+=("${OPTARG%%=*}"); EXTRA_ARGS+=("${OPTARG#*=}") ;;
    *) sed -n '2,25p' "$0" >&2; exit 2 ;;
    esac
done
BIN=$BUILDDIR/bench/setup_cost
[ -x "$BIN" ] || { echo "setup_cost.sh: $BIN not built (make in $BUILDDIR)" >&2; exit 1; }
[ -f "$BUILDDIR/ompi-coll-rdma/.libs/mca_coll_rdma.so" ] || { echo "setup_cost.sh: no component in $BUILDDIR" >&2; exit 1; }
SYSDIR=$(ompi_info --path pkglibdir --parsable | sed 's/^path:pkglibdir://')
export OMPI_MCA_mca_base_component_path=$SYSDIR:$BUILDDIR/ompi-coll-rdma/.libs
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
BIND=--bind-to\ core
[ "$NP" -le "$(nproc)" ] || BIND="--oversubscribe --bind-to none"
TMP=$(mktemp)
trap 'rm -f "$TMP"' EXIT
NAMES=(rdma tuned "${EXTRA_NAMES[@]}")
ARGS=("$RDMA_ARGS" "--mca coll ^rdma" "${EXTRA_ARGS[@]}")
for ((r = 1; r <= RUNS; ++r)); do
    for ((k = 0; k < ${#NAMES[@]}; ++k)); do
        cfg=${NAMES[$k]} extra=${ARGS[$k]}
        # shellcheck disable=SC2086
        line=$(timeout 120 mpirun -np "$NP" $BIND $BOTH_ARGS $extra "$BIN" -n "$CALLS" -m "$COMMS" -k "$KIND" 2>/dev/null | grep '^init_us=')
        if [ -z "$line" ]; then
            echo "setup_cost.sh: run $r ($cfg) failed" >&2
            continue
        fi
        echo "$cfg $line" >>"$TMP"
    done
done
[ -n "$RAW" ] && cp "$TMP" "$RAW"
python3 - "$TMP" "$RUNS" <<'EOF'
import sys, statistics
rows = {}
keys = []
for line in open(sys.argv[1]):
    cfg, *fields = line.split()
    d = rows.setdefault(cfg, {})
    for f in fields:
        k, v = f.split('=')
        k = k[:-3] if k.endswith('_us') else k  # drop _us (shmkept_kib stays)
        if k not in keys:
            keys.append(k)
        d.setdefault(k, []).append(float(v))
cfgs = list(rows)
print("us, median [min max] over runs: " + ", ".join("%s %d" % (c, len(rows[c]['init'])) for c in cfgs))
print("%-8s" % "" + "".join("%28s" % c for c in cfgs) + "%12s" % "rdma-tuned")
for k in keys:
    cells, med = [], []
    for c in cfgs:
        v = rows[c].get(k, [])
        if not v:
            cells.append("%28s" % "-"); med.append(None); continue
        m = statistics.median(v)
        med.append(m)
        cells.append("%28s" % ("%.1f [%.1f %.1f]" % (m, min(v), max(v))))
    delta = "%12.1f" % (med[0] - med[1]) if len(med) >= 2 and None not in med[:2] else ""
    print("%-8s" % k + "".join(cells) + delta)
EOF
