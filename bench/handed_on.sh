#!/usr/bin/env bash
# handed_on.sh: are the calls coll/rdma hands on (to coll/tuned) and
# point-to-point any slower with coll/rdma loaded than without it?
# See bench/README.md ("handed_on.sh").
#
#  1. probe: for every size of -m, one compare.sh run of the rdma
#     configuration with coll/rdma's statistics (-V); a size is "handed on"
#     for a collective when every rank counted at least as many calls of it
#     handed to the fallback for a reason other than warmup as the run timed
#     (so the bench's own small reductions never decide);
#  2. series: compare.sh -C rdma,tuned -V, REPS interleaved repetitions, each
#     collective at its handed-on sizes and pingpong at -p sizes;
#  3. spread-avg.md and spread-median.md (compare.sh's spread.md for both
#     statistics) and the statistics of the measured rdma runs.
#
# usage: bench/handed_on.sh [-n NP] [-r REPS] [-c LIST] [-m MIN:MAX] [-p MIN:MAX]
#                           [-o OUTDIR] [-a "ARGS"] [-s SIZES_FILE]
#   -n NP       ranks (default 2)
#   -r REPS     interleaved repetitions (default 15)
#   -c LIST     collectives probed (default bcast,allreduce,reduce,allgather,alltoall)
#   -m MIN:MAX  sizes probed (default 8:4194304)
#   -p MIN:MAX  pingpong sizes (default 8:1048576; -p none: no pingpong)
#   -o OUTDIR   (default bench/results/handed-on-np<NP>-<date>)
#   -a "ARGS"   more coll_bench arguments for the series (e.g. "-i 200")
#   -s FILE     skip the probe: FILE holds "COLL MIN MAX" lines (e.g. an earlier
#               OUTDIR/handed-on.txt)
# env: BUILDDIR, BENCH as for compare.sh.
set -u
SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
NP=2
REPS=15
COLLS=bcast,allreduce,reduce,allgather,alltoall
MSIZES=8:4194304
PSIZES=8:1048576
OUTDIR=
EXTRA=
SIZES_FILE=
PROBE_ITERS=20
while getopts "n:r:c:m:p:o:a:s:h" opt; do
    case $opt in
    n) NP=$OPTARG ;;
    r) REPS=$OPTARG ;;
    c) COLLS=$OPTARG ;;
    m) MSIZES=$OPTARG ;;
    p) PSIZES=$OPTARG ;;
    o) OUTDIR=$OPTARG ;;
    a) EXTRA=$OPTARG ;;
    s) SIZES_FILE=$OPTARG ;;
    *) sed -n '2,29p' "$0"; exit 2 ;;
    esac
done
die() { echo "handed_on.sh: error: $*" >&2; exit 1; }
[ -n "$OUTDIR" ] || OUTDIR=$SRCDIR/results/handed-on-np$NP-$(date +%Y%m%d-%H%M%S)
mkdir -p "$OUTDIR" || die "cannot create $OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
LO=${MSIZES%%:*}
HI=${MSIZES##*:}

# stats ERRFILE COLL: per rank "rank served handed reasons", from lines
#   [coll/rdma] rank R: COLL ALG: calls=N ...
#   [coll/rdma] rank R: COLL fallback: calls=N forced=.. too_large=.. ... warmup=W
stats() {
    awk -v coll="$2" '
    $1 == "[coll/rdma]" && $2 == "rank" && $4 == coll {
        r = $3; sub(":", "", r); alg = $5; sub(":", "", alg)
        n = $6; sub("calls=", "", n)
        if (alg == "fallback") {
            w = 0; why = ""
            for (i = 7; i <= NF; i++) {
                split($i, kv, "=")
                if (kv[1] == "warmup") w = kv[2]
                else if (kv[2] > 0) why = why (why == "" ? "" : ",") $i
            }
            handed[r] += n - w; reasons[r] = why
        } else served[r] += n
        ranks[r] = 1
    }
    END { for (r in ranks) print r, served[r] + 0, handed[r] + 0, (reasons[r] == "" ? "-" : reasons[r]) }' "$1"
}

# ---- 1. probe ----
IFS=, read -r -a CL <<<"$COLLS"
if [ -z "$SIZES_FILE" ]; then
    PROBE=$OUTDIR/probe
    mkdir -p "$PROBE"
    : >"$OUTDIR/probe.txt"
    s=$LO
    while [ "$s" -le "$HI" ]; do
        spec=$(for c in "${CL[@]}"; do printf '%s:%s:%s,' "$c" "$s" "$s"; done)
        bash "$SRCDIR/compare.sh" -n "$NP" -r 1 -C rdma -V -i "$PROBE_ITERS" -x 0 -c "${spec%,}" \
            -o "$PROBE/$s" >/dev/null 2>"$PROBE/$s.log" || die "probe at $s B failed; see $PROBE/$s.log"
        for c in "${CL[@]}"; do
            st=$(stats "$PROBE/$s/raw/$c.rdma.r1.err" "$c")
            nr=$(echo "$st" | grep -c .)
            nh=$(echo "$st" | awk -v k="$PROBE_ITERS" '$3 >= k' | grep -c .)
            ns=$(echo "$st" | awk -v k="$PROBE_ITERS" '$2 >= k' | grep -c .)
            if [ "$nr" -ne "$NP" ]; then v="?"
            elif [ "$nh" -eq "$NP" ]; then v="handed-on($(echo "$st" | awk 'NR == 1 {print $4}'))"
            elif [ "$ns" -eq "$NP" ]; then v="served"
            else v="mixed"; fi
            echo "$c $s $v" >>"$OUTDIR/probe.txt"
        done
        echo "handed_on.sh: probed $s B" >&2
        s=$((s * 2))
    done
    # handed-on sizes per collective: one contiguous range (the first one;
    # others are named)
    : >"$OUTDIR/handed-on.txt"
    for c in "${CL[@]}"; do
        awk -v c="$c" '$1 == c { h = ($3 ~ /^handed-on/)
            if (h && !inr && !done) { lo = $2; inr = 1 }
            if (h && inr) hi = $2
            if (!h && inr) { inr = 0; done = 1 }
            if (h && done && !inr) extra = extra " " $2 }
            END { if (lo != "") print c, lo, hi; if (extra != "") print "handed_on.sh: " c ": also handed on at" extra " B (not measured)" > "/dev/stderr" }' \
            "$OUTDIR/probe.txt" >>"$OUTDIR/handed-on.txt"
    done
    SIZES_FILE=$OUTDIR/handed-on.txt
fi
[ -s "$SIZES_FILE" ] || die "no handed-on size found (see $OUTDIR/probe.txt)"
[ "$SIZES_FILE" = "$OUTDIR/handed-on.txt" ] || cp "$SIZES_FILE" "$OUTDIR/handed-on.txt"

# ---- 2. series ----
SPEC=$(awk '{printf "%s%s:%s:%s", (NR > 1 ? "," : ""), $1, $2, $3}' "$SIZES_FILE")
[ "$PSIZES" = none ] || SPEC=$SPEC,pingpong:$PSIZES
echo "handed_on.sh: series -c $SPEC, $REPS repetitions" >&2
SERIES=$OUTDIR/series
bash "$SRCDIR/compare.sh" -n "$NP" -r "$REPS" -C rdma,tuned -V -c "$SPEC" ${EXTRA:+-a "$EXTRA"} \
    -o "$SERIES" >"$OUTDIR/series.log" 2>&1
rc=$?
cp "$SERIES/spread.md" "$OUTDIR/spread-avg.md"
bash "$SRCDIR/compare.sh" -n "$NP" -r "$REPS" -C rdma,tuned -c "$SPEC" -k median -R "$SERIES" >/dev/null 2>&1
cp "$SERIES/spread.md" "$OUTDIR/spread-median.md"

# ---- 3. report ----
{
    echo "# Handed-on sizes and point-to-point, with and without coll/rdma"
    echo
    echo '```'
    grep -v '^OMPI_MCA' "$SERIES/meta.txt"
    echo '```'
    echo
    echo "Handed on (probe: $PROBE_ITERS timed calls per size, coll/rdma statistics): COLL MIN MAX"
    echo
    sed 's/^/    /' "$SIZES_FILE"
    echo
    echo "Statistics of the measured rdma runs (all repetitions, all ranks; the bench's own barriers and"
    echo "small reductions included): served calls, calls handed on for a reason other than warmup."
    echo
    for c in $(awk '{print $1}' "$SIZES_FILE"); do
        cat "$SERIES"/raw/"$c".rdma.r*.err 2>/dev/null | stats /dev/stdin "$c" |
            awk -v c="$c" '{ s += $2; h += $3; w = $4 } END { printf "    %s: served %d, handed on %d (%s)\n", c, s, h, w }'
    done
    echo
    echo "## Avg statistic (slowest rank's mean)"
    echo
    cat "$OUTDIR/spread-avg.md"
    echo
    echo "## Median statistic (slowest rank's median)"
    echo
    cat "$OUTDIR/spread-median.md"
} >"$OUTDIR/report.md"
cat "$OUTDIR/report.md"
echo "handed_on.sh: results in $OUTDIR (report.md)" >&2
exit $rc
