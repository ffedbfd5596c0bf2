#!/usr/bin/env bash
# tune.sh: calibrate coll/rdma's auto on this machine.  For each number of
# ranks and each collective, times every algorithm of coll/rdma forced, auto
# as built in, and the built-in components (coll/rdma switched off: what it
# hands on to), interleaved over repetitions (bench/compare.sh); then writes
# a rules file for coll_rdma_tuning_file that names, at each measured size,
# the fastest algorithm where it beats the built-in components by the
# margin, and fallback where none does (bench/summarize.py rules).
# docs/tuning.md, "Calibration", explains the rules and the choices.
set -u

SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)          # .../bench
BUILDDIR=${BUILDDIR:-$(cd "$SRCDIR/.." && pwd)}

NPS=
COLLS=barrier,bcast,allreduce,reduce,allgather,alltoall
MSIZES=8:4194304
BSIZES=8:1048576
REPS=5
MARGIN=0.95
ITERS=
OUTDIR=

usage() {
    cat <<EOF
usage: $0 [options]
  -n LIST      numbers of ranks, comma separated (default: 2 and the number of
               cores, $(nproc)); the rules hold for these sizes of communicator
               only, every other size keeps the built-in table
  -c LIST      collectives (default $COLLS)
  -m MIN:MAX   sizes in bytes for bcast, allreduce, reduce (default $MSIZES)
  -b MIN:MAX   block sizes in bytes for allgather, alltoall (default $BSIZES)
  -r REPS      interleaved repetitions; the medians decide (default $REPS)
  -t MARGIN    an algorithm is named where its median is at most MARGIN times
               the built-in components' (default $MARGIN)
  -i ITERS     timed iterations per size (default: coll_bench's)
  -o OUTDIR    output (default bench/results/tune-<date>): OUTDIR/rules (the
               file for coll_rdma_tuning_file), OUTDIR/report.md (every
               measurement behind it), OUTDIR/npN/COLL (compare.sh's runs)
env: BUILDDIR (default repository root; the component in
     BUILDDIR/ompi-coll-rdma/.libs)
Use the rules: mpirun --mca coll_rdma_tuning_file OUTDIR/rules ...  (and the
*_max_bytes the script prints, where it names algorithms above them)
EOF
}

while getopts "n:c:m:b:r:t:i:o:h" opt; do
    case $opt in
    n) NPS=$OPTARG ;;
    c) COLLS=$OPTARG ;;
    m) MSIZES=$OPTARG ;;
    b) BSIZES=$OPTARG ;;
    r) REPS=$OPTARG ;;
    t) MARGIN=$OPTARG ;;
    i) ITERS=$OPTARG ;;
    o) OUTDIR=$OPTARG ;;
    h) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || { usage >&2; exit 2; }

die() { echo "tune.sh: error: $*" >&2; exit 1; }

if [ -z "$NPS" ]; then
    NPS=2
    [ "$(nproc)" -gt 2 ] && NPS="2,$(nproc)"
fi
[[ $NPS =~ ^[0-9]+(,[0-9]+)*$ ]] || die "bad -n $NPS"
[[ $MARGIN =~ ^[0-9]*\.?[0-9]+$ ]] || die "bad -t $MARGIN"
command -v python3 >/dev/null || die "python3 not found"
command -v ompi_info >/dev/null || die "ompi_info not found"
[ -n "$OUTDIR" ] || OUTDIR=$SRCDIR/results/tune-$(date +%Y%m%d-%H%M%S)
mkdir -p "$OUTDIR" || die "cannot create $OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)

SYSDIR=$(ompi_info --path pkglibdir --parsable | sed 's/^path:pkglibdir://')
export OMPI_MCA_mca_base_component_path=$SYSDIR:$BUILDDIR/ompi-coll-rdma/.libs
# a parameter's value as coll/rdma will see it (environment included)
param() {
    ompi_info --param coll rdma --level 9 --parsable 2>/dev/null |
        sed -n "s/^mca:coll:rdma:param:coll_rdma_$1:value:\(.*\)/\1/p"
}
ALGS_OF() {  # the values of COLL's *_algorithm parameter but auto and fallback
    ompi_info --param coll rdma --level 9 --parsable 2>/dev/null |
        sed -n "s/^mca:coll:rdma:param:coll_rdma_$1_algorithm:enumerator:value:[0-9]*:\(.*\)/\1/p" |
        grep -vx 'auto\|fallback' | tr '\n' ' '
}
[ -n "$(param priority)" ] || die "Open MPI does not load coll/rdma from $BUILDDIR/ompi-coll-rdma/.libs (build it, or set BUILDDIR)"
[ -z "$(param tuning_file)" ] || die "coll_rdma_tuning_file is set ($(param tuning_file)): unset it to measure the built-in table"

# The caps in force, and each forced algorithm measured with them raised to
# the largest size measured (the window budget still limits the block
# collectives: above it a forced algorithm falls back and measures as the
# built-in components do, which the margin does not name)
MMAX=${MSIZES##*:}
BMAX=${BSIZES##*:}
CAPS=""
CAPARGS=""
for c in bcast allreduce reduce allgather alltoall; do
    v=$(param "${c}_max_bytes")
    CAPS="$CAPS${CAPS:+,}$c=$v"
    case $c in allgather | alltoall) m=$BMAX ;; *) m=$MMAX ;; esac
    [ "$m" -gt "$v" ] 2>/dev/null && CAPARGS="$CAPARGS --mca coll_rdma_${c}_max_bytes $m"
done

{
    echo "date: $(date -Is)"
    echo "host: $(hostname) ($(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'))"
    echo "mpi: $(ompi_info --parsable | grep -m1 '^ompi:version:full:' | cut -d: -f4)"
    echo "command: $0 -n $NPS -c $COLLS -m $MSIZES -b $BSIZES -r $REPS -t $MARGIN${ITERS:+ -i $ITERS}"
    echo "caps in force: $CAPS; forced algorithms measured with:$CAPARGS"
} >"$OUTDIR/meta.txt"

T0=$(date +%s)
IFS=, read -r -a NP_LIST <<<"$NPS"
IFS=, read -r -a COLL_LIST <<<"$COLLS"
DIRS=()
for np in "${NP_LIST[@]}"; do
    for coll in "${COLL_LIST[@]}"; do
        cfgs=tuned,rdma
        for alg in $(ALGS_OF "$coll"); do
            export "CFG_a_$alg=--mca coll_rdma_${coll}_algorithm $alg$CAPARGS"
            cfgs="$cfgs,a_$alg"
        done
        case $coll in
        allgather | alltoall) sizes=$BSIZES ;;
        *) sizes=$MSIZES ;;
        esac
        dir=$OUTDIR/np$np/$coll
        mkdir -p "$OUTDIR/np$np"
        echo "tune.sh: $coll at $np ranks: $cfgs" >&2
        BUILDDIR=$BUILDDIR bash "$SRCDIR/compare.sh" -n "$np" -c "$coll" -m "$sizes" -r "$REPS" \
            -C "$cfgs" ${ITERS:+-i "$ITERS"} -o "$dir" >"$dir.log" 2>&1 ||
            die "compare.sh failed for $coll at $np ranks; see $dir.log"
        grep -q 'failed: 0$' "$dir/meta.txt" || die "runs failed for $coll at $np ranks; see $dir.log"
        DIRS+=("$dir")
    done
done

{
    echo "# coll/rdma tuning rules (coll_rdma_tuning_file), written by bench/tune.sh"
    sed 's/^/# /' "$OUTDIR/meta.txt"
    echo "# collective ranks bytes algorithm (docs/tuning.md, \"Calibration\"); first match wins"
    python3 "$SRCDIR/summarize.py" rules "$MARGIN" "$CAPS" "$OUTDIR/report.md" "${DIRS[@]}" \
        2>"$OUTDIR/advice.txt" || die "summarize.py rules failed"
} >"$OUTDIR/rules"
{ echo; echo '```'; cat "$OUTDIR/meta.txt"; echo "runs: $(($(date +%s) - T0)) s"; echo '```'; } >>"$OUTDIR/report.md"

echo "tune.sh: $(grep -cv '^#' "$OUTDIR/rules") rules in $OUTDIR/rules (report: $OUTDIR/report.md, $(($(date +%s) - T0)) s)"
cat "$OUTDIR/advice.txt"
echo "use them: mpirun --mca coll_rdma_tuning_file $OUTDIR/rules$(sed -n 's/^# to serve these rules, set \(coll_rdma_[a-z_]*\)=\([0-9]*\)/ --mca \1 \2/p' "$OUTDIR/advice.txt" | tr -d '\n') ..."
