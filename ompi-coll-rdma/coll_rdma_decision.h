/*
 * coll/rdma decision layer (coll_rdma_decision.c): per-call choice.  Pure functions of the agreed configuration and of what
 * MPI requires to be equal on every rank of a call (the bytes of the type
 * signature, the op, the element type of a reduction's signature, the
 * communicator), never of a rank's local layout or of MPI_IN_PLACE, so every
 * rank of the communicator decides the same (docs/design.md, "Datatypes").
 * Return an enum coll_rdma_alg (never AUTO); on FALLBACK *why is set to an
 * enum coll_rdma_reason.
 */
#ifndef COLL_RDMA_DECISION_H
#define COLL_RDMA_DECISION_H

#include "coll_rdma_config.h"

/** What a communicator's window set-up found (agreed, the same on every rank). */
typedef struct coll_rdma_reach {
    bool all_direct; /* every rank maps every peer's window (one node) */
    bool emulated;   /* some rank reaches a peer by puts UCX emulates (no RMA lane: TCP) */
    int nnodes;      /* nodes of the window's node map, 0 where there is none */
    /* payload bytes of the window's rsag segment for allreduce / reduce
     * (coll_rdma_layout.h): the configured allreduce_rsag_segment_bytes where
     * rsag is the collective's forced algorithm or a tuning or default rule
     * reaches it at least as far, what the rules reach (in whole lines, at
     * most the configured one) where less, 0
     * where nothing names it; a function of the agreed configuration and the
     * communicator size */
    size_t rsag_allreduce, rsag_reduce;
    /* the window's bcast ring (k-nomial, hier) and read ring hold less than
     * a configured segment (one node: coll_rdma_layout.h), so auto's trees
     * hand on where they would take them */
    bool bcast_tree_cut, bcast_read_cut;
} coll_rdma_reach_t;

/*
 * reach: as above.  Where UCX emulates some rank's puts and
 * cfg->auto_emulated is 0, auto hands every call on (reason window); a
 * forced algorithm or a tuning rule still serves.
 */
int coll_rdma_decide_barrier(const coll_rdma_config_t *cfg, int comm_size,
                             const coll_rdma_reach_t *reach, int *why);
/*
 * bytes: count x the type size (the signature's bytes; packed where the
 * layout is not contiguous); all_direct: every rank maps every peer's window
 * (agreed at set-up)
 */
int coll_rdma_decide_bcast(const coll_rdma_config_t *cfg, int comm_size, size_t bytes,
                           const coll_rdma_reach_t *reach, int *why);
/*
 * reducible_type: coll_rdma_reduce_elem() found the signature's element
 * type; reducible_op: coll_rdma_op_supported(op, that type);
 * order_independent: coll_rdma_op_order_independent(op, that type);
 * reach: all_direct (every rank maps every peer's window, agreed at set-up),
 * nnodes (the nodes of the window's node map, 0 where there is none: the
 * two-level algorithms need one, coll_rdma_topo_set_nodes(); auto takes
 * them, for barrier too, where windows are reached by puts and fewer nodes
 * than ranks), emulated;
 * fallback_wrong: Open MPI's own reduction of (op, type) is wrong on some
 * rank (agreed at set-up): then a call that the algorithm asked for hands on
 * for its size or the window is served all the same and *rescued is set
 * (unless *_algorithm = fallback): by what auto takes for a correct pair of
 * that size, and where auto would hand it on too, by an algorithm that
 * serves any size: rsag where every window is mapped and the window holds
 * the configured rsag segment whole (reach->rsag_allreduce), else the
 * segmented ring.
 * cfg->allreduce_staleness > 0 (the communicator asked for bounded
 * staleness): SSP for a reducible call of 1 to allreduce_ssp_max_bytes bytes
 * where every window is mapped (unless allreduce_algorithm = fallback); any
 * other call is decided as on an exact communicator.
 */
int coll_rdma_decide_allreduce(const coll_rdma_config_t *cfg, int comm_size, size_t bytes,
                               bool reducible_type, bool reducible_op, bool order_independent,
                               const coll_rdma_reach_t *reach, bool fallback_wrong, bool *rescued,
                               int *why);
/*
 * block_bytes: one rank's block (allgather) or one destination's block
 * (alltoall), from the receive arguments, which MPI requires to have the
 * same type signature everywhere.  On bytes only: the module packs
 * non-contiguous layouts, so ranks whose datatypes differ in layout but not
 * in signature still decide alike.  all_direct: every window mapped (the
 * read allgather and alltoall need it).
 */
int coll_rdma_decide_allgather(const coll_rdma_config_t *cfg, int comm_size, size_t block_bytes,
                               const coll_rdma_reach_t *reach, int *why);
int coll_rdma_decide_alltoall(const coll_rdma_config_t *cfg, int comm_size, size_t block_bytes,
                              const coll_rdma_reach_t *reach, int *why);
/*
 * reducible_type, reducible_op, all_direct, fallback_wrong: as
 * coll_rdma_decide_allreduce(); a call whose fallback is wrong and that the
 * algorithm asked for hands on for its size or the window takes what auto
 * takes for a correct pair of its size, else (above the window's reduce
 * slots) rsag where every window is mapped and the window holds the
 * configured rsag segment whole (reach->rsag_reduce), else the asked hier or
 * the k-nomial tree in chunks of at most coll_rdma_window_block_cap(REDUCE)
 * bytes, one instance each (where such a chunk holds no element: rsag in the
 * window's smaller segments, if it has any); *rescued is set.  A forced rsag
 * serves up to reduce_max_bytes where every window is mapped.
 */
int coll_rdma_decide_reduce(const coll_rdma_config_t *cfg, int comm_size, size_t bytes,
                            bool reducible_type, bool reducible_op, const coll_rdma_reach_t *reach,
                            bool fallback_wrong, bool *rescued, int *why);

#endif /* COLL_RDMA_DECISION_H */
