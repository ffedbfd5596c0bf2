cd /work/main
R=${R:-docs/perf/tune/np2/rules}
export CFG_rules="--mca coll_rdma_tuning_file $R --mca coll_rdma_allgather_max_bytes 16384 --mca coll_rdma_allreduce_max_bytes 4194304 --mca coll_rdma_alltoall_max_bytes 32768 --mca coll_rdma_reduce_max_bytes 4194304"
BUILDDIR=${BUILDDIR:-build} bash bench/compare.sh -n 2 -r 7 -C tuned,rdma,rules -c barrier,bcast:8:4194304,allreduce:8:4194304,reduce:8:4194304,allgather:8:1048576,alltoall:8:1048576 -o ${OUT:-/tmp/verify-np2}
