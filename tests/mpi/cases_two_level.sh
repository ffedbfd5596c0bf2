# shellcheck shell=bash
# 12. Two-level barrier, bcast, allreduce (hier and nport) and reduce
#     (coll_rdma_hier.c), sourced by
#     run_mpi_tests.sh.  On one machine every window is mapped, so the nodes
#     are made up with coll_rdma_debug_node_ranks: k > 0, nodes of k
#     consecutive ranks (the last one smaller: uneven); -N, N nodes in
#     round-robin (a node's ranks are not contiguous); 1, every rank its own
#     node (the leaders' schedule alone); 0, one node (the node's part
#     alone).  Results checked against the local reference at every size up
#     to allreduce_max_bytes and bcast_max_bytes (above them, fallback;
#     allreduces in chunks of allreduce_short_max_bytes, bcasts of several
#     segments pipelined), every root (the bcast's carrier on its node), every type and op
#     (integers: n-way or Bruck among the leaders; floats: pairwise, bitwise
#     alike on every rank), in place, split and duplicated communicators
#     (each its own node map), thousands of calls with random delays; over
#     the put path (UCX_TLS=tcp,self: no window mapped, every rank a node).
HIER="--mca coll_rdma_barrier_algorithm hier --mca coll_rdma_allreduce_algorithm hier --mca coll_rdma_bcast_algorithm hier --mca coll_rdma_reduce_algorithm hier"
NPORT="--mca coll_rdma_allreduce_algorithm nport"
ALLREDUCE_CHUNKED="--mca coll_rdma_allreduce_short_max_bytes 4096 --mca coll_rdma_allreduce_max_bytes 49152"
BCAST_SEGMENTED="--mca coll_rdma_bcast_segment_bytes 8192 --mca coll_rdma_bcast_max_bytes 196608"
nodes_of() { # np -> a debug_node_ranks value, cycling through the layouts
    case $(($1 % 4)) in
    0) echo 3 ;;
    1) echo -2 ;;
    2) echo 2 ;;
    *) echo -3 ;;
    esac
}
for np in $ALL_NP; do
    k=$(nodes_of "$np")
    case_ "barrier-hier-np$np" "$np" avx-off "$HIER --mca coll_rdma_debug_node_ranks $k" \
        "--only barrier --iters 3" "served:barrier:hier"
    # above allreduce_short_max_bytes in chunks of it (up to 12 here)
    case_ "allreduce-hier-np$np" "$np" avx-off "$HIER --mca coll_rdma_debug_node_ranks $k $ALLREDUCE_CHUNKED" \
        "--only allreduce --light --max-bytes 65536" "served:allreduce:hier fb:allreduce:too_large"
    # segments of 8 KiB in rings of 2 to 5 slots: larger bcasts pipeline
    # more segments than a ring holds through the tree
    case_ "bcast-hier-np$np" "$np" avx-off "$HIER --mca coll_rdma_debug_node_ranks $k $BCAST_SEGMENTED --mca coll_rdma_bcast_slots $((2 + np % 4))" \
        "--only bcast --light --max-bytes 262144" "served:bcast:hier fb:bcast:too_large"
    case_ "reduce-hier-np$np" "$np" avx-off \
        "$HIER --mca coll_rdma_debug_node_ranks $k --mca coll_rdma_reduce_max_bytes 8192" \
        "--only reduce --light --max-bytes 16384" "served:reduce:hier fb:reduce:too_large"
    # shares of chunks: counts below, at and across the ports (every node's
    # first ranks), chunks of 4 KiB cut in 1 to 4 shares
    case_ "allreduce-nport-np$np" "$np" avx-off "$NPORT --mca coll_rdma_debug_node_ranks $k $ALLREDUCE_CHUNKED" \
        "--only allreduce --light --max-bytes 65536" "served:allreduce:nport fb:allreduce:too_large"
done
# the rings node by node (with round-robin nodes their order is not rank
# order), the k-nomial trees beside them in rank order (every root)
for np in 5 8; do
    case_ "flat-nodes-np$np" "$np" avx-off "--mca coll_rdma_allreduce_algorithm ring --mca coll_rdma_allgather_algorithm ring --mca coll_rdma_bcast_algorithm knomial --mca coll_rdma_reduce_algorithm knomial --mca coll_rdma_allreduce_ring_segment_bytes 4096 --mca coll_rdma_debug_node_ranks -$((np / 2))" \
        "--only allreduce,allgather,bcast,reduce,mix --light --max-bytes 131072 --stress-calls 1000" "served:allreduce:ring served:allgather:ring served:bcast:knomial served:reduce:knomial"
done
for k in 0 1 -4; do
    case_ "allreduce-hier-nodes${k}-np7" 7 avx-off "$HIER --mca coll_rdma_debug_node_ranks $k" \
        "--only barrier,allreduce --iters 1 --light" "served:barrier:hier served:allreduce:hier"
    case_ "allreduce-nport-nodes${k}-np7" 7 avx-off "$NPORT --mca coll_rdma_debug_node_ranks $k" \
        "--only allreduce,mix --iters 1 --light --stress-calls 2000" "served:allreduce:nport"
done
case_ "hier-mix-np7" 7 avx-off "$HIER --mca coll_rdma_debug_node_ranks -3" \
    "--only mix,comm --stress-calls 8000 --dup-cycles 100" \
    "served:barrier:hier served:bcast:hier served:allreduce:hier"
case_ "hier-stress-np8" 8 avx-off "$HIER --mca coll_rdma_debug_node_ranks 3" \
    "--only stress --stress-calls 8000" "served:barrier:hier served:bcast:hier served:allreduce:hier"
# UCX emulates the puts (TCP): auto hands every call on unless
# coll_rdma_auto_emulated is 1; forced algorithms serve
case_ "auto-emulated-handed-on-np3" 3 avx-off "-x UCX_TLS=tcp,self" \
    "--only barrier,bcast,allreduce --iters 1 --light --max-bytes 4096" \
    "none fb:barrier:window fb:allreduce:window"
case_ "bcast-segmented-put-path-np3" 3 avx-off "-x UCX_TLS=tcp,self $BCAST_SEGMENTED --mca coll_rdma_bcast_slots 2 --mca coll_rdma_bcast_algorithm knomial" \
    "--only bcast --light --max-bytes 262144" "served:bcast:knomial fb:bcast:too_large"
case_ "nport-put-path-np4" 4 avx-off "-x UCX_TLS=tcp,self --mca coll_rdma_auto_emulated 1 $NPORT $ALLREDUCE_CHUNKED" \
    "--only allreduce --light --max-bytes 65536" "served:allreduce:nport fb:allreduce:too_large"
case_ "hier-put-path-np3" 3 avx-off "-x UCX_TLS=tcp,self --mca coll_rdma_auto_emulated 1 $HIER" \
    "--only barrier,bcast,allreduce,reduce,mix --iters 1 --light --max-bytes 8192 --stress-calls 2000" \
    "served:barrier:hier served:bcast:hier served:allreduce:hier served:reduce:hier"
