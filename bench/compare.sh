#!/usr/bin/env bash
# compare.sh: run coll_bench under several coll configurations, interleaved,
# and tabulate the median over repetitions.  See bench/README.md.
set -u

SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)          # .../bench
BUILDDIR=${BUILDDIR:-$(cd "$SRCDIR/.." && pwd)}

NP=2
COLLS=barrier,bcast,allreduce
MSIZES=8:65536
ITERS=
WARMUP=
REPS=3
OUTDIR=
PLOT=0
CONFIGS=rdma,tuned
TMO=300
EXTRA=
KEY=avg
REPLOT=
VERBOSE=
HOSTARGS=

usage() {
    cat <<EOF
usage: $0 [options]
  -n NP        ranks (default $NP)
  -c LIST      collectives, comma separated (default $COLLS); an entry
               COLL:MIN:MAX gives that collective its own sizes instead of -m;
               also commdup and pingpong (point-to-point, ranks 0 and 1)
  -m MIN:MAX   sizes in bytes (default $MSIZES; barrier always size 0)
  -i ITERS     timed iterations per size (default: coll_bench's)
  -x WARMUP    warmup iterations per size (default: coll_bench's)
  -r REPS      repetitions of every configuration (default $REPS)
  -C LIST      configurations among rdma,tuned,sm,han (default $CONFIGS); any other
               NAME runs with the mpirun arguments in \$CFG_NAME, e.g.
               CFG_rdmabfb="--mca coll_rdma_barrier_algorithm fallback"
  -o OUTDIR    output directory (default bench/results/<date>)
  -p           PNG plots with gnuplot
  -k avg|median  statistic tabulated (default $KEY: slowest rank's mean)
  -a "ARGS"    extra coll_bench arguments (e.g. "-F" or "-v")
  -T SECONDS   timeout of each mpirun (default $TMO)
  -M "ARGS"    more mpirun arguments for every configuration (e.g. hosts and
               their launcher: bench/cluster.sh)
  -V           coll/rdma's statistics in raw/*.err: --mca coll_rdma_verbose 1 in
               every configuration (coll/rdma counts every call anyway; only
               configurations that load it print)
  -R DIR       run nothing: tabulate (and plot with -p) the raw results already
               in DIR (e.g. copied from another machine); give the same -n -c -C -r
env: BUILDDIR (default repository root), BENCH (coll_bench binary)
EOF
}

while getopts "n:c:m:i:x:r:C:o:pk:a:T:R:M:Vh" opt; do
    case $opt in
    n) NP=$OPTARG ;;
    c) COLLS=$OPTARG ;;
    m) MSIZES=$OPTARG ;;
    i) ITERS=$OPTARG ;;
    x) WARMUP=$OPTARG ;;
    r) REPS=$OPTARG ;;
    C) CONFIGS=$OPTARG ;;
    o) OUTDIR=$OPTARG ;;
    p) PLOT=1 ;;
    k) KEY=$OPTARG ;;
    a) EXTRA=$OPTARG ;;
    T) TMO=$OPTARG ;;
    R) REPLOT=$OPTARG; OUTDIR=$OPTARG ;;
    V) VERBOSE="--mca coll_rdma_verbose 1" ;;
    M) HOSTARGS=$OPTARG ;;
    h) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || { usage >&2; exit 2; }

die() { echo "compare.sh: error: $*" >&2; exit 1; }

case $KEY in avg) KCOL=2 ;; median) KCOL=5 ;; *) die "-k must be avg or median" ;; esac
[[ $NP =~ ^[0-9]+$ && $NP -ge 1 ]] || die "bad -n $NP"
[[ $REPS =~ ^[0-9]+$ && $REPS -ge 1 ]] || die "bad -r $REPS"
IFS=, read -r -a COLL_LIST <<<"$COLLS"
# COLL or COLL:MIN:MAX -> names (COLL_NAMES, NAMES) and sizes (coll_sizes)
COLL_NAMES=()
for e in "${COLL_LIST[@]}"; do COLL_NAMES+=("${e%%:*}"); done
NAMES=$(IFS=,; echo "${COLL_NAMES[*]}")
coll_sizes() { case $1 in *:*:*) echo "${1#*:}" ;; *) echo "$MSIZES" ;; esac; }
IFS=, read -r -a CFG_LIST <<<"$CONFIGS"
for c in "${CFG_LIST[@]}"; do
    case $c in
    rdma|tuned|sm|han) ;;
    *) [[ $c =~ ^[A-Za-z0-9_]+$ ]] && v=CFG_$c && [ -n "${!v+set}" ] ||
           die "unknown configuration '$c' (rdma,tuned,sm,han, or NAME with its mpirun arguments in \$CFG_NAME)" ;;
    esac
done

if [ -z "$REPLOT" ]; then
command -v mpirun >/dev/null || die "mpirun not found"
command -v ompi_info >/dev/null || die "ompi_info not found"
SYSDIR=$(ompi_info --path pkglibdir --parsable | sed 's/^path:pkglibdir://')
RDMADIR=$BUILDDIR/ompi-coll-rdma/.libs
export OMPI_MCA_mca_base_component_path=$SYSDIR:$RDMADIR
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# The rdma configuration must really load the component.
for c in "${CFG_LIST[@]}"; do
    [ "$c" = rdma ] || continue
    [ -f "$RDMADIR/mca_coll_rdma.so" ] ||
        die "configuration rdma: $RDMADIR/mca_coll_rdma.so not found (build the component, set BUILDDIR, or use e.g. -C tuned,sm,han)"
    ompi_info --parsable 2>&1 | grep -q '^mca:coll:rdma:' ||
        die "configuration rdma: $RDMADIR/mca_coll_rdma.so exists but Open MPI does not load it; 'ompi_info' says:
$(ompi_info 2>&1 | grep -i -B2 -A4 rdma | head -20)"
done

fi # REPLOT
[ -n "$OUTDIR" ] || OUTDIR=$SRCDIR/results/$(date +%Y%m%d-%H%M%S)
mkdir -p "$OUTDIR/raw" || die "cannot create $OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)

if [ -z "$REPLOT" ]; then
# ---- the benchmark binary ----
if [ -z "${BENCH:-}" ]; then
    BENCH=$BUILDDIR/bench/coll_bench
    for f in coll_bench.c bench_opts.c bench_opts.h bench_check.c bench_check.h bench_mpit.c bench_mpit.h; do
        [ -x "$BENCH" ] && [ ! "$BENCH" -ot "$SRCDIR/$f" ] || BENCH=
    done
    if [ -z "$BENCH" ]; then
        BENCH=$OUTDIR/coll_bench
        mpicc -O2 -Wall -Wextra "$SRCDIR/coll_bench.c" "$SRCDIR/bench_opts.c" "$SRCDIR/bench_check.c" "$SRCDIR/bench_mpit.c" \
            -o "$BENCH" || die "cannot build $BENCH"
    fi
fi
[ -x "$BENCH" ] || die "BENCH=$BENCH is not executable"

# ---- private temporary space; /dev/shm cleanup ----
RUNTMP=$(mktemp -d /tmp/coll_bench.XXXXXX)
SHMDIR=/dev/shm/coll_bench.$$
mkdir -p "$SHMDIR"
in_use() {  # is the file open or mapped by any live process?
    local f=$1
    grep -qsF -- "$f" /proc/[0-9]*/maps 2>/dev/null && return 0
    find /proc/[0-9]*/fd -maxdepth 1 -lname "$f" -print -quit 2>/dev/null | grep -q . && return 0
    return 1
}
shm_snapshot() { find /dev/shm -mindepth 1 -maxdepth 1 -printf '%f\n' 2>/dev/null | sort; }
shm_cleanup() {  # remove /dev/shm entries created since snapshot $1 and not in use
    local f
    comm -13 "$1" <(shm_snapshot) | while IFS= read -r f; do
        [ -n "$f" ] || continue
        [ "/dev/shm/$f" = "$SHMDIR" ] && continue
        in_use "/dev/shm/$f" || rm -rf -- "/dev/shm/$f"
    done
    rm -rf -- "${SHMDIR:?}"/* "${RUNTMP:?}"/ompi.* 2>/dev/null
}
our_ranks() {  # processes started by our mpirun (they carry our private tmpdir)
    grep -lsaF "OMPI_MCA_orte_tmpdir_base=$RUNTMP" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3
}
reap_ranks() {  # after a failed/timed-out mpirun: wait for its ranks, then kill leftovers
    local pids
    for _ in $(seq 1 20); do
        pids=$(our_ranks)
        [ -n "$pids" ] || return 0
        sleep 0.5
    done
    echo "compare.sh: killing leftover ranks: $pids" >&2
    # shellcheck disable=SC2086
    kill -KILL $pids 2>/dev/null
    sleep 0.5
}
finish() { rm -rf -- "$SHMDIR" "$RUNTMP"; }
trap finish EXIT
trap 'echo "compare.sh: interrupted" >&2; exit 130' INT TERM

NCORES=$(nproc)
if [ "$NP" -le "$NCORES" ]; then
    BIND=(--bind-to core --map-by core)
else
    BIND=(--oversubscribe --bind-to none)
fi

cfg_args() {
    case $1 in
    rdma)  echo "" ;;
    tuned) echo "--mca coll ^rdma" ;;
    sm)    echo "--mca coll ^rdma --mca coll_sm_priority 95" ;;
    han)   echo "--mca coll ^rdma --mca coll_han_priority 95" ;;
    *)     v=CFG_$1; echo "${!v}" ;;
    esac
}

BARGS=(-f)
[ -n "$ITERS" ] && BARGS+=(-i "$ITERS")
[ -n "$WARMUP" ] && BARGS+=(-x "$WARMUP")
# shellcheck disable=SC2206
[ -n "$EXTRA" ] && BARGS+=($EXTRA)

{
    echo "date: $(date -Is)"
    echo "host: $(hostname) ($(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'))"
    echo "mpi: $(ompi_info --parsable | grep -m1 '^ompi:version:full:' | cut -d: -f4)"
    echo "tree: $BUILDDIR ($(git -C "$BUILDDIR" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$BUILDDIR" status --porcelain 2>/dev/null | grep -q . && echo ', modified'))"
    echo "bench: $BENCH ${BARGS[*]} -m $MSIZES"
    echo "np=$NP reps=$REPS configs=$CONFIGS colls=$COLLS binding=${BIND[*]} statistic=$KEY"
    [ -z "$HOSTARGS" ] || echo "mpirun arguments of every configuration: $HOSTARGS"
    echo "OMPI_MCA_mca_base_component_path=$OMPI_MCA_mca_base_component_path"
    echo "load before: $(cat /proc/loadavg)"
    for c in "${CFG_LIST[@]}"; do echo "config $c: mpirun $(cfg_args "$c")${VERBOSE:+ $VERBOSE}"; done
} >"$OUTDIR/meta.txt"

SNAP=$RUNTMP/shm.before
FAILED=0
T_START=$(date +%s)
for rep in $(seq 1 "$REPS"); do
    # configurations in a rotated order each repetition (rdma,tuned then
    # tuned,rdma, ...), so that neither always runs first
    NCFG=${#CFG_LIST[@]}
    ORDER=()
    for i in $(seq 0 $((NCFG - 1))); do ORDER+=("${CFG_LIST[$(((i + rep - 1) % NCFG))]}"); done
    for entry in "${COLL_LIST[@]}"; do
        coll=${entry%%:*}
        sizes=$(coll_sizes "$entry")
        for cfg in "${ORDER[@]}"; do
            out=$OUTDIR/raw/$coll.$cfg.r$rep.txt
            shm_snapshot >"$SNAP"
            load0=$(cut -d' ' -f1 /proc/loadavg)
            # shellcheck disable=SC2046
            timeout -k 10 "$TMO" mpirun -np "$NP" "${BIND[@]}" \
                --mca orte_tmpdir_base "$RUNTMP" --mca btl_vader_backing_directory "$SHMDIR" \
                $HOSTARGS $(cfg_args "$cfg") $VERBOSE "$BENCH" -c "$coll" -m "$sizes" "${BARGS[@]}" \
                >"$out" 2>"${out%.txt}.err"
            rc=$?
            echo "$rep $coll $cfg rc=$rc load1=$load0..$(cut -d' ' -f1 /proc/loadavg) end=$(date +%s)" >>"$OUTDIR/runs.log"
            [ $rc -eq 0 ] || reap_ranks
            shm_cleanup "$SNAP"
            if [ $rc -ne 0 ]; then
                FAILED=$((FAILED + 1))
                [ $rc -eq 124 ] && why="timed out after ${TMO}s" || why="exit status $rc"
                echo "compare.sh: FAILED: $coll $cfg rep $rep: $why; see ${out%.txt}.err" >&2
                tail -n 5 "${out%.txt}.err" | sed 's/^/    /' >&2
                mv "$out" "$out.failed"
            else
                echo "compare.sh: done $coll $cfg rep $rep" >&2
            fi
        done
    done
done
T_END=$(date +%s)
{ echo "load after: $(cat /proc/loadavg)"; echo "runs: $((T_END - T_START)) s, failed: $FAILED"; } >>"$OUTDIR/meta.txt"
fi # REPLOT

# ---- table: median over repetitions ----
TABLE=$OUTDIR/table.md
shopt -s nullglob
RAW=("$OUTDIR"/raw/*.txt)
shopt -u nullglob
awk -v kcol="$KCOL" -v colls="$NAMES" -v cfgs="$CONFIGS" -v key="$KEY" '
function median(s,   n, a, i, j, t) {
    n = split(s, a, " ")
    for (i = 2; i <= n; i++) { t = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
FNR == 1 { n = split(FILENAME, p, "/"); split(p[n], q, "."); coll = q[1]; cfg = q[2] }
/^#/ || NF < kcol { next }
{ k = coll SUBSEP cfg SUBSEP $1; v[k] = v[k] " " $kcol; nv[k]++; sizes[coll SUBSEP $1] = 1 }
END {
    nc = split(colls, C, ","); ng = split(cfgs, G, ",")
    base = 0; for (g = 1; g <= ng; g++) if (G[g] == "tuned") base = g
    hdr = "| collective | size (B) |"; sep = "|---|---:|"
    for (g = 1; g <= ng; g++) { hdr = hdr " " G[g] " (us) |"; sep = sep "---:|" }
    if (base) for (g = 1; g <= ng; g++) if (g != base) { hdr = hdr " " G[g] "/tuned |"; sep = sep "---:|" }
    print "Median over repetitions of the " (key == "avg" ? "Avg column (slowest rank'"'"'s mean latency)" : "Median column (max over ranks of the per-call median)") ", microseconds."
    print ""; print hdr; print sep
    for (c = 1; c <= nc; c++) {
        ns = 0
        for (k in sizes) { split(k, kk, SUBSEP); if (kk[1] == C[c]) S[++ns] = kk[2] + 0 }
        for (i = 2; i <= ns; i++) { t = S[i]; for (j = i - 1; j >= 1 && S[j] > t; j--) S[j + 1] = S[j]; S[j + 1] = t }
        for (i = 1; i <= ns; i++) {
            line = "| " C[c] " | " S[i] " |"
            for (g = 1; g <= ng; g++) {
                k = C[c] SUBSEP G[g] SUBSEP S[i]
                m[g] = (k in v) ? median(v[k]) : ""
                line = line " " (m[g] == "" ? "-" : sprintf("%.2f", m[g])) " |"
            }
            if (base) for (g = 1; g <= ng; g++) if (g != base)
                line = line " " ((m[g] == "" || m[base] == "" || m[base] + 0 == 0) ? "-" : sprintf("%.2f", m[g] / m[base])) " |"
            print line
        }
    }
}' /dev/null "${RAW[@]}" >"$TABLE"
{ echo; echo '```'; cat "$OUTDIR/meta.txt"; echo '```'; } >>"$TABLE"
cat "$TABLE"

# ---- spread over repetitions; ratios of the runs of one repetition ----
SPREAD=$OUTDIR/spread.md
awk -v kcol="$KCOL" -v colls="$NAMES" -v cfgs="$CONFIGS" -v key="$KEY" '
function sort(a, n,   i, j, t) {
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
}
function q(a, n, f,   x, i) {   # quantile f of sorted a[1..n], linear interpolation
    x = 1 + f * (n - 1); i = int(x)
    return i >= n ? a[n] : a[i] + (x - i) * (a[i + 1] - a[i])
}
FNR == 1 { n = split(FILENAME, p, "/"); split(p[n], b, "."); coll = b[1]; cfg = b[2]; r = substr(b[3], 2) + 0 }
/^#/ || NF < kcol { next }
{ v[coll SUBSEP cfg SUBSEP $1 SUBSEP r] = $kcol + 0; sizes[coll SUBSEP $1] = 1; if (r > maxr) maxr = r }
END {
    nc = split(colls, C, ","); ng = split(cfgs, G, ",")
    base = 0; for (g = 1; g <= ng; g++) if (G[g] == "tuned") base = g
    print "Spread over repetitions of the " (key == "avg" ? "Avg column (slowest rank'"'"'s mean)" : "Median column (slowest rank'"'"'s median)") ", microseconds: median [min, max]."
    if (base) {
        print "X/tuned: ratio of the medians; paired: the ratios of the runs of one repetition (adjacent in time),"
        print "median [25th-75th percentile] (min-max); slower: repetitions in which X took longer than tuned."
    }
    hdr = "| collective | size (B) |"; sep = "|---|---:|"
    for (g = 1; g <= ng; g++) { hdr = hdr " " G[g] " (us) |"; sep = sep "---:|" }
    if (base) for (g = 1; g <= ng; g++) if (g != base) {
        hdr = hdr " " G[g] "/tuned | paired | slower |"; sep = sep "---:|---:|---:|"
    }
    print ""; print hdr; print sep
    for (c = 1; c <= nc; c++) {
        ns = 0
        for (k in sizes) { split(k, kk, SUBSEP); if (kk[1] == C[c]) S[++ns] = kk[2] + 0 }
        sort(S, ns)
        for (i = 1; i <= ns; i++) {
            line = "| " C[c] " | " S[i] " |"
            for (g = 1; g <= ng; g++) {
                n = 0; delete a
                for (r = 1; r <= maxr; r++) { k = C[c] SUBSEP G[g] SUBSEP S[i] SUBSEP r; if (k in v) a[++n] = v[k] }
                sort(a, n); med[g] = n ? q(a, n, 0.5) : ""
                line = line " " (n ? sprintf("%.2f [%.2f, %.2f]", med[g], a[1], a[n]) : "-") " |"
            }
            if (base) for (g = 1; g <= ng; g++) if (g != base) {
                n = 0; slow = 0; delete a
                for (r = 1; r <= maxr; r++) {
                    k = C[c] SUBSEP G[g] SUBSEP S[i] SUBSEP r; kb = C[c] SUBSEP G[base] SUBSEP S[i] SUBSEP r
                    if ((k in v) && (kb in v) && v[kb] > 0) { a[++n] = v[k] / v[kb]; if (v[k] > v[kb]) slow++ }
                }
                sort(a, n)
                line = line " " ((med[g] != "" && med[base] != "" && med[base] > 0) ? sprintf("%.2f", med[g] / med[base]) : "-") " |"
                line = line " " (n ? sprintf("%.2f [%.2f-%.2f] (%.2f-%.2f)", q(a, n, 0.5), q(a, n, 0.25), q(a, n, 0.75), a[1], a[n]) : "-") " |"
                line = line " " (n ? slow "/" n : "-") " |"
            }
            print line
        }
    }
}' /dev/null "${RAW[@]}" >"$SPREAD"

# ---- plots ----
if [ "$PLOT" = 1 ]; then
    if ! command -v gnuplot >/dev/null; then
        echo "compare.sh: gnuplot not found, no plots" >&2
    else
        if gnuplot -e 'set terminal' 2>&1 | grep -qw pngcairo; then TERM_GP="pngcairo size 900,600"; else TERM_GP="png size 900,600"; fi
        ng=${#CFG_LIST[@]}
        for coll in "${COLL_NAMES[@]}"; do
            dat=$OUTDIR/plot_$coll.dat
            # rows of the table for this collective -> "size v1 v2 ..."
            { printf 'size'; printf ' %s' "${CFG_LIST[@]}"; echo
              awk -F'|' -v c="$coll" -v ng="$ng" '$2 ~ "^ *"c" *$" {
                  s = $3; gsub(/ /, "", s); printf "%s", s
                  for (g = 1; g <= ng; g++) { x = $(3 + g); gsub(/ /, "", x); printf " %s", (x == "-" ? "?" : x) }
                  print "" }' "$TABLE"; } >"$dat"
            [ "$(wc -l <"$dat")" -gt 1 ] || continue
            if [ "$coll" = barrier ] || [ "$coll" = commdup ]; then
                bdat=$OUTDIR/plot_${coll}_bars.dat
                awk 'NR == 1 { for (i = 2; i <= NF; i++) name[i] = $i; next }
                     { for (i = 2; i <= NF; i++) print name[i], $i }' "$dat" >"$bdat"
                gnuplot <<EOF || echo "compare.sh: gnuplot failed for $coll" >&2
set terminal $TERM_GP
set output "$OUTDIR/$coll.png"
set datafile missing "?"
set title "$coll latency, np=$NP (median of $REPS reps, $KEY)"
set ylabel "latency (us)"
set style fill solid 0.6
set boxwidth 0.6
set yrange [0:*]
set grid ytics
set key off
plot "$bdat" using 0:2:xtic(1) with boxes
EOF
            else
                gnuplot <<EOF || echo "compare.sh: gnuplot failed for $coll" >&2
set terminal $TERM_GP
set output "$OUTDIR/$coll.png"
set datafile missing "?"
set title "$coll latency, np=$NP (median of $REPS reps, $KEY)"
set xlabel "message size (bytes)"
set ylabel "latency (us)"
set logscale x 2
set format x "%.0b%B"
set logscale y 10
set grid
set key top left
plot for [i=2:$((ng + 1))] "$dat" using 1:i with linespoints title columnheader(i)
EOF
            fi
        done
    fi
fi

if [ -n "$REPLOT" ]; then
    echo "compare.sh: tabulated $OUTDIR" >&2
    exit 0
fi
echo "compare.sh: results in $OUTDIR ($((T_END - T_START)) s, $FAILED failed run(s)); spread over repetitions: $SPREAD" >&2
[ "$FAILED" -eq 0 ]
