#!/bin/bash
# The README's main command: install dependencies, build coll/rdma, then
#  1. run an unmodified real program (HPC Challenge, Debian's hpcc) with the
#     component and show what coll/rdma served (its statistics),
#  2. run the side-by-side benchmark: coll/rdma against coll/tuned in one
#     invocation, interleaved, with medians and ratios.
# Environment: NP (default 2), BUILDDIR (default <repo>/build).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILDDIR:-$top/build}
np=${NP:-2}
BUILDDIR=$build "$top/config/build.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd "$build"

sysdir=$(ompi_info --path pkglibdir --parsable | sed 's/^path:pkglibdir://')
export OMPI_MCA_mca_base_component_path="$sysdir:$build/ompi-coll-rdma/.libs"
bind="--bind-to core"
[ "$np" -le "$(nproc)" ] || bind="--oversubscribe --bind-to none"

echo
echo "== coll/rdma as Open MPI sees it"
ompi_info --param coll rdma --level 9 | head -3

echo
echo "== 1. hpcc (HPC Challenge) at np $np, unmodified, with coll/rdma (statistics at MPI_Finalize)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
zcat -f /usr/share/doc/hpcc/examples/_hpccinf.txt* > "$work/hpccinf.txt"
# the example input uses a 2x2 grid; at np 2 use 1x2
if [ "$np" -ne 4 ]; then
    sed -i "s/^2 *Ps$/1            Ps/; s/^2 *Qs$/$np            Qs/" "$work/hpccinf.txt"
fi
for cfg in rdma tuned; do
    extra=""
    [ $cfg = tuned ] && extra="--mca coll ^rdma"
    start=$(date +%s.%N)
    (cd "$work" && rm -f hpccoutf.txt &&
        timeout 600 mpirun -np "$np" $bind $extra --mca coll_rdma_verbose 1 hpcc 2> "$work/$cfg.err")
    end=$(date +%s.%N)
    failed=$(grep -c "FAILED" "$work/hpccoutf.txt" || true)
    passed=$(grep -c "PASSED" "$work/hpccoutf.txt" || true)
    printf '%-6s hpcc wall %.2f s, checks passed %s, failed %s\n' "$cfg" "$(awk -v a="$start" -v b="$end" 'BEGIN{print b-a}')" "$passed" "$failed"
    [ $cfg = rdma ] && grep '^\[coll/rdma\] rank 0:' "$work/$cfg.err" | sed 's/^/    /'
done

echo
echo "== 2. latency, coll/rdma against coll/tuned in one run (median of 5 interleaved repetitions, us)"
BUILDDIR=$build BENCH=$build/bench/coll_bench "$top/bench/compare.sh" -n "$np" -r 5 \
    -c barrier,bcast,allreduce,reduce,allgather,alltoall -m 8:65536 -p -o "$build/bench-results"
