#!/usr/bin/env bash
# sweep.sh: every algorithm of each collective forced in turn through its
# coll_rdma_<coll>_algorithm parameter, each a bench/compare.sh run of the
# rdma configuration; the data behind docs/tuning.md.  See bench/README.md.
#
# usage: bench/sweep.sh [-n NP] [-r REPS] [-o OUTDIR] [-s "SPEC ..."] [-a "ENV ..."]
#   SPEC  COLL:MIN:MAX:ALG,ALG,...   (default: every collective and algorithm)
#   ENV   extra VAR=value settings for every run, e.g. raised size caps:
#         "OMPI_MCA_coll_rdma_allreduce_max_bytes=1048576"
# Results: OUTDIR/COLL-ALG/{table.md,meta.txt,raw/}; tabulate them with
#   bench/summarize.py algs COLL OUTDIR/COLL-* [a compare.sh result with tuned, sm, han]
# env: BUILDDIR, BENCH as for compare.sh.
set -u
SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
NP=4
REPS=3
OUTDIR=
SPECS="allreduce:8:1048576:read,pairwise,ktree,nway,bruck,ring allgather:8:65536:bruck,ring alltoall:8:65536:bruck,direct reduce:8:1048576:knomial barrier:0:0:read,nway,pairwise bcast:8:1048576:read,knomial"
EXTRA=
while getopts "n:r:o:s:a:h" opt; do
    case $opt in
    n) NP=$OPTARG ;;
    r) REPS=$OPTARG ;;
    o) OUTDIR=$OPTARG ;;
    s) SPECS=$OPTARG ;;
    a) EXTRA=$OPTARG ;;
    *) sed -n '2,16p' "$0"; exit 2 ;;
    esac
done
[ -n "$OUTDIR" ] || OUTDIR=$SRCDIR/results/sweep-np$NP-$(date +%Y%m%d-%H%M%S)
mkdir -p "$OUTDIR" || exit 1
failed=0
for spec in $SPECS; do
    IFS=: read -r coll lo hi algs <<<"$spec"
    for alg in ${algs//,/ }; do
        # shellcheck disable=SC2086
        env "OMPI_MCA_coll_rdma_${coll}_algorithm=$alg" $EXTRA \
            bash "$SRCDIR/compare.sh" -n "$NP" -r "$REPS" -C rdma -c "$coll" -m "$lo:$hi" \
            -o "$OUTDIR/$coll-$alg" >/dev/null 2>&1
        rc=$?
        echo "sweep.sh: $coll $alg: $([ $rc -eq 0 ] && echo ok || echo "FAILED (rc $rc)")" >&2
        [ $rc -eq 0 ] || failed=1
    done
done
echo "sweep.sh: results in $OUTDIR" >&2
exit $failed
