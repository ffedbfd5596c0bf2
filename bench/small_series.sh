#!/bin/bash
# Before/after series of the smallest calls (bench/small_probe.c): one
# interleaved series, each configuration once per repetition in rotated
# order, np 2 (or -n) bound to cores.  A configuration is a directory that
# holds mca_coll_rdma.so (a build's ompi-coll-rdma/.libs), or "off" for
# --mca coll ^rdma (coll/tuned blocking, coll/libnbc nonblocking and
# persistent).  Prints per mode and configuration the median over
# repetitions and the median of the per-repetition ratios to the first
# configuration (robust to a machine whose speed changes between runs).
#
#   bench/small_series.sh [-r RUNS] [-n NP] [-i ITERS] CONFIG...
#   bench/small_series.sh -r 11 /tmp/base/build/ompi-coll-rdma/.libs \
#       build/ompi-coll-rdma/.libs off
set -eu
runs=11 np=2 iters=20000
while getopts r:n:i: o; do
    case $o in
    r) runs=$OPTARG ;;
    n) np=$OPTARG ;;
    i) iters=$OPTARG ;;
    *) sed -n 2,14p "$0"; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { sed -n 2,14p "$0"; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
sysdir=$(ompi_info --path pkglibdir --parsable | sed 's/^path:pkglibdir://')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mpicc -O2 -o "$tmp/small_probe" "$(dirname "$0")/small_probe.c"
cfgs=("$@")
n=${#cfgs[@]}
for r in $(seq "$runs"); do
    for i in $(seq 0 $((n - 1))); do
        k=$(((i + r) % n))
        c=${cfgs[$k]}
        if [ "$c" = off ]; then
            args=(--mca coll ^rdma) path=$sysdir
        else
            args=() path=$sysdir:$(cd "$c" && pwd)
        fi
        OMPI_MCA_mca_base_component_path=$path timeout 120 \
            mpirun -np "$np" --bind-to core --oversubscribe "${args[@]}" "$tmp/small_probe" "$iters" \
            | sed "s|^|$r $k |" >> "$tmp/raw" || echo "run $r of $c failed" >&2
    done
done
python3 - "$tmp/raw" "${cfgs[@]}" <<'PY'
import collections, statistics, sys
raw, cfgs = sys.argv[1], sys.argv[2:]
d = collections.defaultdict(dict)
for line in open(raw):
    r, i, mode, t = line.split()
    d[(mode, r)][int(i)] = float(t)
print("configurations: " + ", ".join("%d = %s" % (i, c) for i, c in enumerate(cfgs)))
print("%-15s" % "mode" + "".join("%22s" % ("%d: us (x cfg 0)" % i) for i in range(len(cfgs))))
for mode in dict.fromkeys(k[0] for k in d):
    reps = [v for k, v in d.items() if k[0] == mode]
    row = "%-15s" % mode
    for i in range(len(cfgs)):
        vals = [x[i] for x in reps if i in x]
        ratios = [x[i] / x[0] for x in reps if i in x and 0 in x]
        row += "%22s" % ("%.3f (%.2f)" % (statistics.median(vals), statistics.median(ratios))
                         if vals and ratios else "-")
    print(row)
PY
