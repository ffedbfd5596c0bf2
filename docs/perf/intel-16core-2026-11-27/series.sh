#!/bin/bash
# One device call: build main and h-bcast from their tarballs, then measure at 16 ranks (most important first).
set -u
T0=$(date +%s); TOP=$PWD; BUDGET=${BUDGET:-530}; R=/tmp/res; mkdir -p $R
exec > >(tee $OUT/log.txt) 2>&1
left() { echo $((BUDGET - ($(date +%s) - T0))); }
guard() { [ "$(left)" -gt "$1" ] || { echo "SKIP $2 (left $(left) s)"; return 1; }; }
pack() { (cd /tmp && tar czf $OUT/res.tar.gz res 2>/dev/null); }
trap pack EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "== machine"; head -2 /etc/os-release; nproc; lscpu | grep -E "Model name|Socket|L2|L3|NUMA node"
ompi_info --version 2>/dev/null | head -1
UCP=$(ls /usr/lib/x86_64-linux-gnu/libucp.so.0 2>/dev/null || find / -name 'libucp.so.0' 2>/dev/null | head -1)
echo "libucp: $UCP"; command -v mpicc >/dev/null || { echo "NO MPICC"; exit 3; }; [ -n "$UCP" ] || { echo "NO UCX"; exit 4; }
U=/tmp/ucx; mkdir -p $U/lib; cp -r $TOP/.dev/ucx/include $U/
for l in ucp uct ucs ucm; do ln -sf "$(dirname $UCP)/lib$l.so.0" $U/lib/lib$l.so.0; ln -sf "$(dirname $UCP)/lib$l.so.0" $U/lib/lib$l.so; done
build() { mkdir -p /tmp/$1 && cd /tmp/$1 && tar xzf $TOP/.dev/$1.tar.gz && cd ompi-coll-rdma-* && ./configure --quiet --with-ucx=$U >/tmp/$1.cfg 2>&1 && make -j8 >/tmp/$1.make 2>&1 && echo "built $1"; }
[ -f /tmp/main/ompi-coll-rdma-0.1.0/ompi-coll-rdma/.libs/mca_coll_rdma.so ] || { build main & p1=$!; build hbcast & p2=$!; wait $p1 $p2; }
M=$(ls -d /tmp/main/ompi-coll-rdma-*); H=$(ls -d /tmp/hbcast/ompi-coll-rdma-*)
ls $M/ompi-coll-rdma/.libs/mca_coll_rdma.so $H/ompi-coll-rdma/.libs/mca_coll_rdma.so || { tail -20 /tmp/*.make /tmp/*.cfg; exit 7; }
SYS=$(ompi_info --path pkglibdir --parsable | sed 's/^path:pkglibdir://')
echo "built at $(( $(date +%s) - T0 )) s"
use() { export BUILDDIR=$1 OMPI_MCA_mca_base_component_path=$SYS:$1/ompi-coll-rdma/.libs; cd $1; }
q() { grep -v "compare.sh: done"; }
export CFG_ring0="--mca coll_rdma_bcast_small_slots 0"
# S. small messages at 16 ranks, h-bcast build: ring (default 64 slots) against ring0 (main's bcast), OSU method
use $H
guard 100 small && bash bench/compare.sh -n 16 -r 5 -C rdma,ring0,tuned -c bcast,barrier,allreduce -m 8:8 -i 20000 -x 1000 -V -o $R/small 2>&1 | q
# X. the same, xhc's method (point-to-point barrier before each call, data new every call, validated)
guard 70 xhc && bash bench/compare.sh -n 16 -r 3 -C rdma,ring0 -c bcast -m 8:64 -i 20000 -x 1000 -a "-B -v" -o $R/xhc 2>&1 | q
# N. nonblocking forms at 16 ranks (MPI_I* + MPI_Wait) against blocking, and libnbc
guard 50 nb && bash bench/compare.sh -n 16 -r 3 -C rdma,tuned -c barrier,bcast,allreduce -m 8:8 -i 20000 -x 1000 -a "-k nonblocking" -V -o $R/nb 2>&1 | q
# C. every size at 16 ranks, main build: auto (default rules) against tuned and sm
use $M
guard 120 sizes-a && bash bench/compare.sh -n 16 -r 2 -C rdma,tuned,sm -c bcast,allreduce,reduce -m 8:4194304 -V -T 120 -o $R/sizes-a 2>&1 | q
guard 60 sizes-b && bash bench/compare.sh -n 16 -r 2 -C rdma,tuned,sm -c allgather,alltoall -m 8:1048576 -V -T 120 -o $R/sizes-b 2>&1 | q
# D. 8-bit sums
guard 30 int8 && bash bench/compare.sh -n 16 -r 2 -C rdma,tuned -c allreduce -m 8:4194304 -a "-t int8" -V -T 120 -o $R/int8 2>&1 | q
echo "== done at $(( $(date +%s) - T0 )) s"
