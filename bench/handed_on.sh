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
#  2. series: compare.sh -C rdma,tuned,tuned2 -V, REPS interleaved
#     repetitions, each collective at its handed-on sizes and pingpong at -p
#     sizes; tuned2 is tuned again (--mca coll ^rdma), the A/A control: its
#     ratios to tuned are what noise alone gives;
#  3. report.md: the statistics of the measured rdma runs, per collective
#     the paired ratios pooled over sizes and repetitions (rdma/tuned next to
#     tuned2/tuned), and spread-avg.md and spread-median.md (compare.sh's
#     spread.md for both statistics).
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
#   -Z          no tuned2 (A/A control) configuration
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
CONFIGS=rdma,tuned,tuned2
export CFG_tuned2="--mca coll ^rdma"
while getopts "n:r:c:m:p:o:a:s:Zh" opt; do
    case $opt in
    n) NP=$OPTARG ;;
    r) REPS=$OPTARG ;;
    c) COLLS=$OPTARG ;;
    m) MSIZES=$OPTARG ;;
    p) PSIZES=$OPTARG ;;
    o) OUTDIR=$OPTARG ;;
    a) EXTRA=$OPTARG ;;
    s) SIZES_FILE=$OPTARG ;;
    Z) CONFIGS=rdma,tuned ;;
    *) sed -n '2,35p' "$0"; exit 2 ;;
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
bash "$SRCDIR/compare.sh" -n "$NP" -r "$REPS" -C "$CONFIGS" -V -c "$SPEC" ${EXTRA:+-a "$EXTRA"} \
    -o "$SERIES" >"$OUTDIR/series.log" 2>&1
rc=$?
cp "$SERIES/spread.md" "$OUTDIR/spread-avg.md"
bash "$SRCDIR/compare.sh" -n "$NP" -r "$REPS" -C "$CONFIGS" -c "$SPEC" -k median -R "$SERIES" >/dev/null 2>&1
cp "$SERIES/spread.md" "$OUTDIR/spread-median.md"

# ---- 3. report ----
# pooled COL: per collective and configuration X, the ratios X/tuned of the
# runs of one repetition, over every size and repetition
pooled() {
    awk -v col="$1" -v cfgs="$CONFIGS" '
    function sort(a, n,   i, j, t) {
        for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    }
    function q(a, n, f,   x, i) { x = 1 + f * (n - 1); i = int(x); return i >= n ? a[n] : a[i] + (x - i) * (a[i + 1] - a[i]) }
    FNR == 1 { n = split(FILENAME, p, "/"); split(p[n], b, "."); coll = b[1]; cfg = b[2]; r = b[3]; if (!(coll in seen)) { seen[coll] = 1; order[++nc] = coll } }
    /^#/ || NF < col { next }
    { v[coll SUBSEP cfg SUBSEP $1 SUBSEP r] = $col + 0; keys[coll SUBSEP $1 SUBSEP r] = 1 }
    END {
        ng = split(cfgs, G, ",")
        printf "| collective |"; for (g = 1; g <= ng; g++) if (G[g] != "tuned") printf " %s/tuned: median [25th-75th] (5th-95th) | slower | reps slower |", G[g]; print ""
        printf "|---|"; for (g = 1; g <= ng; g++) if (G[g] != "tuned") printf "---:|---:|---:|"; print ""
        for (c = 1; c <= nc; c++) {
            printf "| %s |", order[c]
            for (g = 1; g <= ng; g++) if (G[g] != "tuned") {
                n = 0; slow = 0; delete a; delete lr; delete nr
                for (k in keys) {
                    split(k, kk, SUBSEP); if (kk[1] != order[c]) continue
                    x = order[c] SUBSEP G[g] SUBSEP kk[2] SUBSEP kk[3]; t = order[c] SUBSEP "tuned" SUBSEP kk[2] SUBSEP kk[3]
                    if ((x in v) && (t in v) && v[t] > 0 && v[x] > 0) {
                        a[++n] = v[x] / v[t]; if (v[x] > v[t]) slow++
                        lr[kk[3]] += log(v[x] / v[t]); nr[kk[3]]++
                    }
                }
                sort(a, n)
                # per repetition the geometric mean over sizes: its sizes share one pair of runs
                m = 0; rs = 0; for (r in nr) { m++; if (lr[r] > 0) rs++ }
                if (n) printf " %.3f [%.3f-%.3f] (%.2f-%.2f) | %d/%d | %d/%d |", q(a, n, .5), q(a, n, .25), q(a, n, .75), q(a, n, .05), q(a, n, .95), slow, n, rs, m
                else printf " - | - | - |"
            }
            print ""
        }
    }' "$SERIES"/raw/*.txt
}
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
    echo "## Pooled over sizes and repetitions"
    echo
    echo "Ratios of the runs of one repetition (adjacent in time), every size of the collective; slower: pairs"
    echo "in which X took longer; reps slower: repetitions whose geometric mean ratio over the sizes is above 1"
    echo "(the sizes of one repetition share one pair of runs, so this is the count to judge)."
    [ "$CONFIGS" = rdma,tuned ] || echo "tuned2 is tuned again: what noise alone gives."
    echo
    echo "Median statistic:"
    echo
    pooled 5
    echo
    echo "Avg statistic:"
    echo
    pooled 2
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
