/*
 * coll/rdma topology (coll_rdma_topo.c): the node map of a communicator's
 * window, which ranks map each other's windows and so form a node, each
 * led by its lowest rank; the nodes' order; the hashes ranks agree on.
 * The set-up makes the map (coll_rdma_setup.c), the two-level and the
 * node-ordered algorithms read it.  Pure: no UCX, no MPI.
 */
#ifndef COLL_RDMA_TOPO_H
#define COLL_RDMA_TOPO_H

#include "coll_rdma_window.h"

/**
 * Set the node map of `win` from leader_of[i], the leader (lowest rank of
 * its node) each of the win->comm_size ranks reported, and map_hash[i], a
 * hash of the set of ranks rank i maps (itself included): nodes, nnodes,
 * leaders, node, nlocal, local, local_rank, node_of, node_order and
 * node_pos, into win->leaders, win->local, win->node_of, win->node_order and
 * win->node_pos (comm_size entries each).  win->nodes is true when every
 * rank maps every rank of its node: the ranks of a node all report the map
 * hash of their leader, who leads itself (any rank, e.g. a leader of -1, can
 * veto the map for every rank).  Every rank computes the same from the same
 * leader_of and map_hash.
 * Precondition: the five arrays exist.  coll_rdma_window_alloc() allocates
 * them with the window or gives no window at all (so every rank agrees on
 * none); a NULL one here would leave this rank alone without a map while
 * its peers have one, so that the two-level decision differs between
 * ranks (a hang): the function then sets no map rather than crash, but that
 * is a caller's defect, not a failure to handle.  Pure (no UCX, no MPI).
 */
void coll_rdma_topo_set_nodes(coll_rdma_window_t *win, const int64_t *leader_of,
                                const uint64_t *map_hash);

/**
 * A hash of the set of ranks whose flags are set in mapped[0 .. size-1]
 * (64-bit FNV-1a over the ascending ranks): equal sets give equal hashes.
 */
uint64_t coll_rdma_topo_map_hash(const bool *mapped, int size);

#endif /* COLL_RDMA_TOPO_H */
