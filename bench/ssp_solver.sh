#!/usr/bin/env bash
# ssp_solver.sh: time to solution of bench/ssp_solver (least squares by block
# descent, one MPI_Allreduce per iteration, random compute noise) for each
# staleness S, runs interleaved, and the medians; a PNG plot with gnuplot.
# See bench/README.md ("ssp_solver").
#
# Usage: bench/ssp_solver.sh [-n NP] [-r RUNS] [-S LIST] [-o DIR] [-a "SOLVER ARGS"]
#   -n NP      ranks (default 2; above the cores: --oversubscribe)
#   -r RUNS    solves per S (default 7), interleaved (rotated order)
#   -S LIST    staleness values (default 0,1,2,4; 0 = exact MPI_Allreduce)
#   -o DIR     keep raw.txt, table.md, ssp_solver.dat and ssp_solver.png there
#   -a ARGS    more ssp_solver arguments (e.g. "--slow-prob 0.5 -m 2048")
# Prints table.md: per S the median seconds, its ratio to S = 0, the median
# iterations, the median stale calls (rank 0) and the largest final loss.
# env: BUILDDIR (default repository root; mca_coll_rdma.so and bench/ssp_solver)
set -u
SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILDDIR=${BUILDDIR:-$(cd "$SRCDIR/.." && pwd)}
NP=2 RUNS=7 LIST=0,1,2,4 DIR= ARGS=
while getopts "n:r:S:o:a:h" opt; do
    case $opt in
    n) NP=$OPTARG ;;
    r) RUNS=$OPTARG ;;
    S) LIST=$OPTARG ;;
    o) DIR=$OPTARG ;;
    a) ARGS=$OPTARG ;;
    *) sed -n '2,16p' "$0" >&2; exit 2 ;;
    esac
done
BIN=$BUILDDIR/bench/ssp_solver
[ -x "$BIN" ] || { echo "ssp_solver.sh: $BIN not built (make in $BUILDDIR)" >&2; exit 1; }
if [ -f "$BUILDDIR/ompi-coll-rdma/.libs/mca_coll_rdma.so" ]; then
    SYSDIR=$(ompi_info --path pkglibdir --parsable | sed 's/^path:pkglibdir://')
    export OMPI_MCA_mca_base_component_path=$SYSDIR:$BUILDDIR/ompi-coll-rdma/.libs
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
BIND=--bind-to\ core
[ "$NP" -le "$(nproc)" ] || BIND="--oversubscribe --bind-to none"
[ -n "$DIR" ] || DIR=$(mktemp -d)
mkdir -p "$DIR"
# shellcheck disable=SC2086
if ! timeout 1800 mpirun -np "$NP" $BIND "$BIN" -r "$RUNS" -S "$LIST" $ARGS >"$DIR/raw.txt"; then
    echo "ssp_solver.sh: ssp_solver failed" >&2
    exit 1
fi
# S, median seconds, ratio to S=0, median iterations, median stale calls, max final loss
awk '
function median(s,   n, a, i, j, t) {
    n = split(s, a, " ")
    for (i = 2; i <= n; ++i) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; --j) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
/^#/ { print > "/dev/stderr"; next }
NF == 5 {
    if (!($1 in secs)) order[++ns] = $1
    secs[$1] = secs[$1] " " $3; iters[$1] = iters[$1] " " $2; stale[$1] = stale[$1] " " $5
    if ($4 + 0 > worst[$1] + 0) worst[$1] = $4
    runs[$1]++
}
END {
    base = ("0" in secs) ? median(secs["0"]) : 0
    for (k = 1; k <= ns; ++k) { s = order[k]; key[k] = s + 0; idx[k] = s }
    for (i = 2; i <= ns; ++i) for (j = i; j > 1 && key[j - 1] > key[j]; --j) { t = key[j]; key[j] = key[j - 1]; key[j - 1] = t; t = idx[j]; idx[j] = idx[j - 1]; idx[j - 1] = t }
    for (k = 1; k <= ns; ++k) {
        s = idx[k]; m = median(secs[s])
        printf "%s %.4f %.3f %d %d %.2e %d\n", s, m, (base > 0 ? m / base : 0), median(iters[s]), median(stale[s]), worst[s], runs[s]
    }
}' "$DIR/raw.txt" >"$DIR/ssp_solver.dat" 2>"$DIR/header.txt" || exit 1
{
    sed 's/^# /> /' "$DIR/header.txt"
    echo
    echo "| S | runs | median s | vs S=0 | median iterations | median stale calls (rank 0) | worst final loss |"
    echo "|---|---|---|---|---|---|---|"
    awk '{ printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, $7, $2, $3, $4, $5, $6 }' "$DIR/ssp_solver.dat"
} >"$DIR/table.md"
cat "$DIR/table.md"
if command -v gnuplot >/dev/null; then
    if gnuplot -e 'set terminal' 2>&1 | grep -qw pngcairo; then TERM_GP="pngcairo size 900,500"; else TERM_GP="png size 900,500"; fi
    gnuplot <<GP || echo "ssp_solver.sh: gnuplot failed" >&2
set terminal $TERM_GP noenhanced
set output "$DIR/ssp_solver.png"
set multiplot layout 1,2 title "ssp_solver, $NP ranks: time to solution and iterations by staleness S (medians of $RUNS)"
set xlabel "staleness S"
set ylabel "seconds to solution"
set grid
set yrange [0:*]
plot "$DIR/ssp_solver.dat" using 1:2 with linespoints lw 2 pt 7 title "time"
set ylabel "iterations"
set yrange [*:*]
plot "$DIR/ssp_solver.dat" using 1:4 with linespoints lw 2 pt 5 title "iterations"
unset multiplot
GP
    [ -f "$DIR/ssp_solver.png" ] && echo "plot: $DIR/ssp_solver.png"
else
    echo "ssp_solver.sh: gnuplot not found, no plot" >&2
fi
echo "files: $DIR"
