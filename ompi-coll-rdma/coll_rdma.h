/*
 * coll/rdma: one-sided collectives over pre-registered RDMA windows.
 *
 * Layers (each calls only downward):
 *   component (coll_rdma_component.c)  MCA parameters, comm_query
 *   module    (coll_rdma_module.c)     per communicator: fallbacks, lazy window, statistics, entry points
 *   decision  (coll_rdma_decision.c)   per call: algorithm or fallback
 *   algorithms(coll_rdma_nway.c, coll_rdma_knomial.c)  written against the window API
 *   schedules (coll_rdma_sched.c)      pure arithmetic
 *   reduction (coll_rdma_op.c)         ompi_op_reduce with a start-up self-test
 *   window    (coll_rdma_window.c)     slots, sequence words, credits
 *   transport (coll_rdma_ucx.c)        UCP context, worker, endpoints, mem_map, rkeys
 */
#ifndef MCA_COLL_RDMA_H
#define MCA_COLL_RDMA_H

#include "coll_rdma_compat.h"

#include <stdint.h>

#include "mpi.h"
#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/op/op.h"

BEGIN_C_DECLS

/* ---- algorithms and fallback reasons ---------------------------------- */

enum coll_rdma_coll {
    COLL_RDMA_BARRIER = 0,
    COLL_RDMA_BCAST,
    COLL_RDMA_ALLREDUCE,
    COLL_RDMA_NCOLLS
};

/* Values of the *_algorithm parameters and results of the decision layer. */
enum coll_rdma_alg {
    COLL_RDMA_ALG_AUTO = 0,     /* parameter only: let the decision layer pick */
    COLL_RDMA_ALG_FALLBACK = 1, /* the saved previous module */
    COLL_RDMA_ALG_NWAY = 2,     /* n-way dissemination barrier */
    COLL_RDMA_ALG_KNOMIAL = 3,  /* k-nomial tree bcast */
    COLL_RDMA_ALG_KTREE = 4,    /* Gupta's degree-k tree allreduce */
    COLL_RDMA_ALG_PAIRWISE = 5, /* pairwise-exchange allreduce, canonical operand order */
    COLL_RDMA_NALGS
};

enum coll_rdma_reason {
    COLL_RDMA_WHY_FORCED = 0,   /* *_algorithm = fallback */
    COLL_RDMA_WHY_TOO_LARGE,    /* above *_max_bytes */
    COLL_RDMA_WHY_DATATYPE,     /* not a contiguous predefined datatype */
    COLL_RDMA_WHY_OP,           /* user-defined or non-commutative op */
    COLL_RDMA_WHY_WINDOW,       /* no window on this communicator */
    COLL_RDMA_NREASONS
};

/* ---- component ----------------------------------------------------------- */

/** Configuration that every rank of a communicator must agree on. */
typedef struct coll_rdma_config {
    int min_comm_size;          /* smaller communicators keep no window: every call falls back */
    int alg[COLL_RDMA_NCOLLS];  /* forced algorithm per collective (enum coll_rdma_alg) */
    int barrier_nway_n;         /* n of n-way dissemination, >= 1 */
    int bcast_radix;            /* k of the k-nomial bcast tree, >= 2 */
    int bcast_slots;            /* depth of the bcast slot ring (credits) */
    size_t bcast_max_bytes;
    int allreduce_ktree_degree; /* Gupta's degree k: a (k+1)-nomial tree */
    size_t allreduce_max_bytes;
    uint64_t debug_seq_start;   /* first sequence number of every collective (tests the wrap) */
} coll_rdma_config_t;

typedef struct mca_coll_rdma_component_t {
    mca_coll_base_component_t super;
    int priority;
    int verbose;
    int poll_spins;             /* polls of a sequence word between two opal_progress() calls */
    size_t window_max_bytes;    /* cap on this rank's window (0: none); need not agree */
    coll_rdma_config_t config;
    /* process-wide statistics, printed at close when verbose >= 1 */
    uint64_t served_calls[COLL_RDMA_NCOLLS][COLL_RDMA_NALGS];
    uint64_t served_bytes[COLL_RDMA_NCOLLS][COLL_RDMA_NALGS];
    uint64_t fallback_calls[COLL_RDMA_NCOLLS][COLL_RDMA_NREASONS];
} mca_coll_rdma_component_t;

OMPI_MODULE_DECLSPEC extern mca_coll_rdma_component_t mca_coll_rdma_component;

/** Print one line on stderr, prefixed with the component and world rank. */
void mca_coll_rdma_output(const char *fmt, ...) __opal_attribute_format__(__printf__, 1, 2);

/* ---- module ---------------------------------------------------------------- */

struct coll_rdma_window;

enum coll_rdma_window_state {
    COLL_RDMA_WINDOW_NONE = 0,  /* not set up yet: at the first collective */
    COLL_RDMA_WINDOW_SETUP,     /* being set up: the exchange's own nested collectives fall back */
    COLL_RDMA_WINDOW_READY,
    COLL_RDMA_WINDOW_FAILED     /* every call falls back on this communicator */
};

typedef struct mca_coll_rdma_module_t {
    mca_coll_base_module_t super;

    /* saved previous functions (retained), the fallback for every call */
    coll_rdma_barrier_fn_t previous_barrier;
    mca_coll_base_module_t *previous_barrier_module;
    coll_rdma_bcast_fn_t previous_bcast;
    mca_coll_base_module_t *previous_bcast_module;
    coll_rdma_allreduce_fn_t previous_allreduce;
    mca_coll_base_module_t *previous_allreduce_module;
    coll_rdma_allgather_fn_t previous_allgather;
    mca_coll_base_module_t *previous_allgather_module;
    coll_rdma_allgatherv_fn_t previous_allgatherv;
    mca_coll_base_module_t *previous_allgatherv_module;

    int window_state;
    struct coll_rdma_window *window;
    /* sequence number of the last call per collective; debug_seq_start - 1
     * (the value window words start with) until the first call */
    uint64_t seq[COLL_RDMA_NCOLLS];
} mca_coll_rdma_module_t;

OBJ_CLASS_DECLARATION(mca_coll_rdma_module_t);

mca_coll_base_module_t *mca_coll_rdma_comm_query(struct ompi_communicator_t *comm, int *priority);

/**
 * Next sequence number of collective `coll` on this module: a plain counter
 * modulo 2^64, starting at debug_seq_start (default 1).  It does not skip 0:
 * "empty" is the value every window word starts with, debug_seq_start - 1
 * (0 by default), and compares are wrap-safe, so 0 is an ordinary instance
 * after a wrap.  Skipping it would give two consecutive instances the same
 * parity (2^64 - 1 and 1), which the double-buffered slots of pairwise
 * exchange cannot tell apart.
 */
static inline uint64_t coll_rdma_next_seq(mca_coll_rdma_module_t *module, int coll)
{
    return ++module->seq[coll];
}

/* ---- decision -------------------------------------------------------------- */

/**
 * Per-call choice.  Pure functions of the agreed configuration and the call's
 * arguments, so every rank of the communicator decides the same.  Return an
 * enum coll_rdma_alg (never AUTO); on FALLBACK *why is set to an enum
 * coll_rdma_reason.
 */
int coll_rdma_decide_barrier(const coll_rdma_config_t *cfg, int comm_size, int *why);
int coll_rdma_decide_bcast(const coll_rdma_config_t *cfg, int comm_size, size_t bytes,
                           bool contiguous, int *why);
int coll_rdma_decide_allreduce(const coll_rdma_config_t *cfg, int comm_size, size_t bytes,
                               bool contiguous_predefined, bool reducible_op, int *why);

/* ---- reduction ------------------------------------------------------------ */

/**
 * target[i] = source[i] op target[i] for `count` elements of predefined
 * `dtype`, with Open MPI's op framework, except for (op, type) pairs whose
 * installed function failed the self-test of coll_rdma_op_selftest(): those
 * use Open MPI's base (non-vectorized) function.  DESIGN.md rule 7.
 */
void coll_rdma_op_reduce(ompi_op_t *op, const void *source, void *target, size_t count,
                         ompi_datatype_t *dtype);

/** Compare every installed intrinsic op function against the base one; run once. */
void coll_rdma_op_selftest(void);

/** Whether coll/rdma reduces `op` on `dtype` itself (predefined, commutative). */
bool coll_rdma_op_supported(ompi_op_t *op, ompi_datatype_t *dtype);

/* ---- algorithms ------------------------------------------------------------ */

/**
 * MPI_Barrier by n-way dissemination (Hoefler et al., "Fast barrier
 * synchronization for InfiniBand", 2006; End's thesis, seed 002 section 2.8):
 * ceil(log_{n+1} P) rounds, in each a rank signals n peers and waits for n.
 * Returns OMPI_SUCCESS or an OMPI error from the transport.
 */
int coll_rdma_barrier_nway(mca_coll_rdma_module_t *module, struct ompi_communicator_t *comm);

/**
 * MPI_Bcast of `bytes` contiguous bytes at `buf` from `root` over a k-nomial
 * tree of radix cfg->bcast_radix (seed 002 section 2.3.3; Gupta's binomial
 * bcast with RDMA-write slots and credits, seed 003 section 5.2).  bytes <=
 * cfg->bcast_max_bytes.  Returns OMPI_SUCCESS or a transport error.
 */
int coll_rdma_bcast_knomial(void *buf, size_t bytes, int root, mca_coll_rdma_module_t *module,
                            struct ompi_communicator_t *comm);

/**
 * MPI_Allreduce of `count` elements of predefined `dtype` (bytes = count *
 * size <= cfg->allreduce_max_bytes) with a commutative predefined `op`, by
 * Gupta's degree-k tree (seed 003 section 6.3): reduce to rank 0 over a
 * (k+1)-nomial tree, then send the result down the same tree.  One rank
 * combines, so every rank gets the same bits.  sbuf may be MPI_IN_PLACE.
 */
int coll_rdma_allreduce_ktree(const void *sbuf, void *rbuf, size_t count, ompi_datatype_t *dtype,
                              ompi_op_t *op, mca_coll_rdma_module_t *module,
                              struct ompi_communicator_t *comm);

/**
 * MPI_Allreduce by pairwise exchange (recursive doubling; End's thesis, seed
 * 002 section 2.3.3): ranks beyond the largest power of two p2 fold into
 * rank - p2, the p2 ranks exchange with rank XOR 2^step for log2(p2) steps,
 * the folded ranks get the result back.  Both partners of a step compute
 * (lower rank's partial) op (higher rank's partial) with the same function
 * and operands, so every rank ends with the same bits.  Same arguments and
 * limits as coll_rdma_allreduce_ktree().
 */
int coll_rdma_allreduce_pairwise(const void *sbuf, void *rbuf, size_t count, ompi_datatype_t *dtype,
                                 ompi_op_t *op, mca_coll_rdma_module_t *module,
                                 struct ompi_communicator_t *comm);

END_C_DECLS

#endif /* MCA_COLL_RDMA_H */
