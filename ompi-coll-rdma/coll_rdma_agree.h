/*
 * coll/rdma agreement (coll_rdma_agree.c): what every rank of a
 * communicator says of itself at its window's set-up, and how all ranks
 * reach the same verdict from what all said (the configuration every rank
 * must share, the staleness asked, the op self-test's findings, how
 * attaching went, the node map).  The set-up (coll_rdma_setup.c) exchanges
 * these records; everything here is local and pure but for the warnings
 * rank 0 prints.
 */
#ifndef COLL_RDMA_AGREE_H
#define COLL_RDMA_AGREE_H

#include "coll_rdma_config.h"
#include "coll_rdma_window.h"

#include "ompi/communicator/communicator.h"
#include "ompi/mca/op/op.h"

/* Parameters whose values every rank must share, with their MCA names. */
#define COLL_RDMA_CONFIG_FIELDS(X)                                     \
    X(min_comm_size, min_comm_size)                          \
    X(barrier_algorithm, alg[COLL_RDMA_BARRIER])             \
    X(bcast_algorithm, alg[COLL_RDMA_BCAST])                 \
    X(allreduce_algorithm, alg[COLL_RDMA_ALLREDUCE])         \
    X(barrier_nway_n, barrier_nway_n)                        \
    X(bcast_radix, bcast_radix)                              \
    X(bcast_slots, bcast_slots)                              \
    X(bcast_small_slots, bcast_small_slots)                  \
    X(bcast_segment_bytes, bcast_segment_bytes)              \
    X(bcast_max_bytes, bcast_max_bytes)                      \
    X(allreduce_ktree_degree, allreduce_ktree_degree)        \
    X(allreduce_max_bytes, allreduce_max_bytes)              \
    X(allreduce_read_max_bytes, allreduce_read_max_bytes)    \
    X(allreduce_nway_n, allreduce_nway_n)                    \
    X(allreduce_bruck_n, allreduce_bruck_n)                  \
    X(allreduce_short_max_bytes, allreduce_short_max_bytes)  \
    X(allreduce_ring_max_ranks, allreduce_ring_max_ranks)    \
    X(allreduce_ring_segment_bytes, allreduce_ring_segment_bytes) \
    X(allreduce_ring_slots, allreduce_ring_slots)            \
    X(allreduce_rsag_segment_bytes, allreduce_rsag_segment_bytes) \
    X(allreduce_ssp_max_bytes, allreduce_ssp_max_bytes)     \
    X(allgather_algorithm, alg[COLL_RDMA_ALLGATHER])         \
    X(allgather_max_bytes, allgather_max_bytes)              \
    X(alltoall_algorithm, alg[COLL_RDMA_ALLTOALL])           \
    X(alltoall_max_bytes, alltoall_max_bytes)                \
    X(reduce_algorithm, alg[COLL_RDMA_REDUCE])               \
    X(reduce_radix, reduce_radix)                            \
    X(reduce_max_bytes, reduce_max_bytes)                    \
    X(debug_seq_start, debug_seq_start)                      \
    X(debug_node_ranks, debug_node_ranks)                    \
    X(auto_emulated, auto_emulated)                          \
    X(tuning_file, rules_hash)                               \
    X(default_rules, defaults_hash)

#define X_COUNT(name, field) +1
enum { COLL_RDMA_NCONFIG = 0 COLL_RDMA_CONFIG_FIELDS(X_COUNT) };
#undef X_COUNT

typedef struct coll_rdma_header {
    int64_t ok;           /* window allocated and UCX up on this rank */
    int64_t staleness;    /* this rank's coll_rdma_allreduce_staleness (-1: not a valid one) */
    int64_t blob_bytes;   /* size of this rank's exchange blob */
    int64_t one_node;     /* every rank of the communicator on this rank's node (Open MPI's
                           * locality; the bcast rings are laid out by it): compared where
                           * every rank is ok */
    int64_t config[COLL_RDMA_NCONFIG];
    /* this process's op self-test: where Open MPI's own reduction is wrong
     * (coll_rdma_op_fallback_wrong), ORed over the ranks */
    uint64_t wrong[OMPI_OP_BASE_FORTRAN_OP_MAX];
} coll_rdma_header_t;

/* What each rank says after attaching: ok (bit 0: connected; bit 1: maps
 * every peer's window; bit 2: UCX emulates its puts to some peer), and for
 * the node map its leader (the lowest rank whose window it maps, itself
 * included) and the hash of the ranks it maps. */
typedef struct coll_rdma_attached {
    int64_t ok;
    int64_t leader;
    uint64_t map_hash;
} coll_rdma_attached_t;

/** This rank's configuration as COLL_RDMA_NCONFIG values, for its header. */
void coll_rdma_agree_config(const coll_rdma_config_t *cfg, int64_t *out);

/**
 * The staleness comm asks for (its info key coll_rdma_allreduce_staleness):
 * an integer in [0, COLL_RDMA_STALENESS_MAX]; -1 for any other value.
 */
int64_t coll_rdma_agree_staleness_asked(struct ompi_communicator_t *comm);

/**
 * The staleness every rank of `comm` uses, from the `headers` of its
 * ompi_comm_size(comm) ranks: what all asked for, else 0 (exact).  Where one
 * asked for an invalid value or ranks differ, communicator rank 0 warns,
 * naming each rank as "communicator NAME rank r (world rank N)", once per
 * process and distinct cause (the key and the two values), not once per
 * communicator.
 */
int coll_rdma_agree_staleness_on(struct ompi_communicator_t *comm,
                                 const coll_rdma_header_t *headers);

/**
 * Whether every rank of `comm` is ok and said the same configuration, from
 * the `headers` of its ompi_comm_size(comm) ranks.  Where a parameter
 * differs, communicator rank 0 warns about the first one found, naming the
 * ranks as coll_rdma_agree_staleness_on() does, once per process and
 * distinct cause (the parameter and the two values): a program making
 * thousands of communicators gets one line, not thousands.
 */
bool coll_rdma_agree_headers_on(struct ompi_communicator_t *comm, const coll_rdma_header_t *headers);

/**
 * coll_rdma_agree_staleness_on() and coll_rdma_agree_headers_on() for a
 * communicator of `size` ranks whose rank this is `rank`, without the
 * communicator: the warnings then name communicator ranks only.  Kept for
 * callers that do not pass the communicator yet; prefer the _on forms.
 */
int coll_rdma_agree_staleness(const coll_rdma_header_t *headers, int size, int rank);
bool coll_rdma_agree_headers(const coll_rdma_header_t *headers, int size, int rank);

/** What this rank says after attaching `win` (connected or not). */
void coll_rdma_agree_attached(const coll_rdma_window_t *win, int debug_node_ranks, bool connected,
                              coll_rdma_attached_t *a);

/** The node map of `win` from what every rank said (the same on every rank);
 * leader_of and hash: comm_size entries to unpack it into. */
void coll_rdma_agree_nodes(coll_rdma_window_t *win, const coll_rdma_attached_t *all,
                           int64_t *leader_of, uint64_t *hash);

#endif /* COLL_RDMA_AGREE_H */
