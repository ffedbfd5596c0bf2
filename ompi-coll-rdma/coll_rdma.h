/*
 * coll/rdma: one-sided collectives over pre-registered RDMA windows.
 *
 * Layers (each calls only downward):
 *   component (coll_rdma_component.c)  MCA parameters, comm_query
 *   module    (coll_rdma_module.c)     per communicator: fallbacks, lazy window, statistics, entry points
 *   decision  (coll_rdma_decision.c)   per call: algorithm or fallback
 *   algorithms (one file per family, written against the window API):
 *             coll_rdma_nway.c     dissemination: n-way barrier, adapted n-way
 *                                  allreduce, Bruck's n-port allreduce
 *             coll_rdma_knomial.c  k-nomial trees: bcast, Gupta's tree allreduce, reduce
 *             coll_rdma_pairwise.c pairwise exchange: allreduce, barrier
 *             coll_rdma_bruck.c    Bruck's concatenation allgather and index alltoall
 *             coll_rdma_ring.c     ring allgather, segmented pipelined ring allreduce
 *             coll_rdma_direct.c   write-based direct alltoall
 *             coll_rdma_read.c     notified read: bcast from the root's own slots
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
    COLL_RDMA_ALLGATHER,
    COLL_RDMA_ALLTOALL,
    COLL_RDMA_REDUCE,
    COLL_RDMA_NCOLLS
};

/* Values of the *_algorithm parameters and results of the decision layer. */
enum coll_rdma_alg {
    COLL_RDMA_ALG_AUTO = 0,     /* parameter only: let the decision layer pick */
    COLL_RDMA_ALG_FALLBACK = 1, /* the saved previous module */
    COLL_RDMA_ALG_NWAY = 2,     /* n-way dissemination barrier; End's adapted n-way allreduce */
    COLL_RDMA_ALG_KNOMIAL = 3,  /* k-nomial tree bcast */
    COLL_RDMA_ALG_KTREE = 4,    /* Gupta's degree-k tree allreduce */
    COLL_RDMA_ALG_PAIRWISE = 5, /* pairwise exchange (allreduce, barrier) */
    COLL_RDMA_ALG_BRUCK = 6,    /* Bruck: n-port allreduce, allgather, index alltoall */
    COLL_RDMA_ALG_RING = 7,     /* ring allgather, segmented ring allreduce */
    COLL_RDMA_ALG_DIRECT = 8,   /* write-based direct alltoall */
    COLL_RDMA_ALG_READ = 9,     /* every rank reads the others' slots (one node) */
    COLL_RDMA_NALGS
};

enum coll_rdma_reason {
    COLL_RDMA_WHY_FORCED = 0,   /* *_algorithm = fallback */
    COLL_RDMA_WHY_TOO_LARGE,    /* above *_max_bytes */
    COLL_RDMA_WHY_DATATYPE,     /* not a contiguous predefined datatype */
    COLL_RDMA_WHY_OP,           /* user-defined or non-commutative op */
    COLL_RDMA_WHY_WINDOW,       /* no window on this communicator, or the forced
                                 * algorithm needs every peer's window mapped */
    COLL_RDMA_WHY_WARMUP,       /* one of the communicator's first window_setup_calls calls */
    COLL_RDMA_NREASONS
};

/* ---- component ----------------------------------------------------------- */

/** Configuration that every rank of a communicator must agree on. */
typedef struct coll_rdma_config {
    int min_comm_size;          /* smaller communicators keep no window: every call falls back */
    int alg[COLL_RDMA_NCOLLS];  /* forced algorithm per collective (enum coll_rdma_alg) */
    int barrier_nway_n;         /* n of n-way dissemination, >= 1 */
    int bcast_radix;            /* k of the k-nomial bcast tree, >= 2 */
    int bcast_slots;            /* depth of the bcast slot rings (credits) */
    size_t bcast_segment_bytes; /* payload of one bcast slot */
    size_t bcast_max_bytes;
    int allreduce_ktree_degree; /* Gupta's degree k: a (k+1)-nomial tree */
    int allreduce_nway_n;       /* n of the adapted n-way dissemination allreduce */
    int allreduce_bruck_n;      /* ports of Bruck's n-port allreduce */
    size_t allreduce_max_bytes;
    size_t allreduce_read_max_bytes; /* largest allreduce by read (one node) */
    size_t allreduce_short_max_bytes;   /* slot algorithms up to this; above it the ring */
    size_t allreduce_ring_segment_bytes; /* bytes per ring message (slot payload) */
    int allreduce_ring_slots;           /* ring slots per rank: segments in flight */
    int allreduce_ring_max_ranks;       /* auto takes the ring on at most this many ranks */
    size_t allgather_max_bytes; /* per rank's block */
    size_t alltoall_max_bytes;  /* per destination block */
    int reduce_radix;           /* k of the k-nomial reduce tree */
    size_t reduce_max_bytes;
    uint64_t debug_seq_start;   /* first sequence number of every collective (tests the wrap) */
} coll_rdma_config_t;

typedef struct mca_coll_rdma_component_t {
    mca_coll_base_component_t super;
    int priority;
    int verbose;
    int poll_spins;             /* polls of a sequence word between two opal_progress() calls */
    int window_setup_calls;     /* calls a communicator leaves to the fallback before set-up */
    int ucx_prestart;           /* start UCX in a helper thread in MPI_Init */
    size_t window_max_bytes;    /* cap on this rank's window (0: none); need not agree */
    coll_rdma_config_t config;
    /* process-wide statistics, printed at close when verbose >= 1 */
    uint64_t served_calls[COLL_RDMA_NCOLLS][COLL_RDMA_NALGS];
    uint64_t served_bytes[COLL_RDMA_NCOLLS][COLL_RDMA_NALGS];
    uint64_t fallback_calls[COLL_RDMA_NCOLLS][COLL_RDMA_NREASONS];
    /* allreduce calls with nway forced that Bruck served: (n, P) not adaptable */
    uint64_t allreduce_nway_not_adaptable;
    /* calls served beyond the thresholds because Open MPI's own reduction of
     * their (op, type) is wrong (also counted under their algorithm) */
    uint64_t wrong_fallback_calls[COLL_RDMA_NCOLLS];
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
    coll_rdma_alltoall_fn_t previous_alltoall;
    mca_coll_base_module_t *previous_alltoall_module;
    coll_rdma_reduce_fn_t previous_reduce;
    mca_coll_base_module_t *previous_reduce_module;

    int window_state;
    int warmup_calls;           /* collective calls seen before the window set-up */
    struct coll_rdma_window *window;
    /* sequence number of the last call per collective; debug_seq_start - 1
     * (the value window words start with) until the first call */
    uint64_t seq[COLL_RDMA_NCOLLS];
    /* (op, type) pairs whose fallback is wrong on some rank: the union of
     * every rank's op self-test, agreed at window set-up (bit t of entry f,
     * as coll_rdma_op_fallback_wrong()) */
    uint64_t fallback_wrong[OMPI_OP_BASE_FORTRAN_OP_MAX];
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
int coll_rdma_decide_barrier(const coll_rdma_config_t *cfg, int comm_size, bool all_direct,
                             int *why);
/* all_direct: every rank maps every peer's window (agreed at set-up) */
int coll_rdma_decide_bcast(const coll_rdma_config_t *cfg, int comm_size, size_t bytes,
                           bool contiguous, bool all_direct, int *why);
/*
 * order_independent: coll_rdma_op_order_independent(op, dtype); all_direct:
 * every rank maps every peer's window (agreed at set-up); fallback_wrong:
 * Open MPI's own reduction of (op, dtype) is wrong on some rank (agreed at
 * set-up): then a call that no configured algorithm serves at its size, or
 * that a forced algorithm cannot serve, takes the segmented ring at any
 * size and *rescued is set (unless *_algorithm = fallback).
 */
int coll_rdma_decide_allreduce(const coll_rdma_config_t *cfg, int comm_size, size_t bytes,
                               bool contiguous_predefined, bool reducible_op,
                               bool order_independent, bool all_direct, bool fallback_wrong,
                               bool *rescued, int *why);
/*
 * block_bytes: one rank's block (allgather) or one destination's block
 * (alltoall), from the receive arguments, which MPI requires to have the
 * same type signature everywhere.  On bytes only: the module packs
 * non-contiguous layouts, so ranks whose datatypes differ in layout but not
 * in signature still decide alike.
 */
int coll_rdma_decide_allgather(const coll_rdma_config_t *cfg, int comm_size, size_t block_bytes,
                               int *why);
int coll_rdma_decide_alltoall(const coll_rdma_config_t *cfg, int comm_size, size_t block_bytes,
                              int *why);
/*
 * fallback_wrong as for allreduce: a call above the window's reduce slots is
 * then served (KNOMIAL, *rescued set), by the caller in chunks of at most
 * coll_rdma_window_block_cap(REDUCE) bytes.
 */
int coll_rdma_decide_reduce(const coll_rdma_config_t *cfg, int comm_size, size_t bytes,
                            bool contiguous_predefined, bool reducible_op, bool fallback_wrong,
                            bool *rescued, int *why);

/* ---- reduction ------------------------------------------------------------ */

/**
 * target[i] = source[i] op target[i] for `count` elements of predefined
 * `dtype`, with Open MPI's op framework, except for (op, type) pairs whose
 * installed function failed the self-test of coll_rdma_op_selftest(): those
 * use Open MPI's base (non-vectorized) function.  DESIGN.md rule 7.
 */
void coll_rdma_op_reduce(ompi_op_t *op, const void *source, void *target, size_t count,
                         ompi_datatype_t *dtype);

/**
 * Compare every installed intrinsic op function on integer types against
 * the base one (0.3 ms at 2 ranks here); the first call does it, later ones return at
 * once.  Not thread-safe: call it from one thread, before any reduction
 * (the start-up helper, or window set-up under the UCX lock).
 */
void coll_rdma_op_selftest(void);

/**
 * This process's findings of coll_rdma_op_selftest(), to be agreed between
 * ranks: masks[f] (f a Fortran op index, OMPI_OP_BASE_FORTRAN_OP_MAX
 * entries) has bit t set when Open MPI's own function for op type t, the
 * one every other component calls, computes wrong results.
 */
void coll_rdma_op_fallback_wrong(uint64_t *masks);

/**
 * Whether `masks` (as from coll_rdma_op_fallback_wrong(), possibly ORed over
 * ranks) marks Open MPI's own reduction of intrinsic `op` on predefined
 * `dtype` as wrong.  False for user-defined ops and derived datatypes.
 */
bool coll_rdma_op_is_fallback_wrong(const uint64_t *masks, ompi_op_t *op, ompi_datatype_t *dtype);

/**
 * Whether a reduction of `op` on `dtype` (any layout) is one that Open MPI
 * releases are known to get wrong on some installations: SUM on 8- and
 * 16-bit integers (4.1.x op/avx), MIN and MAX on 64-bit unsigned integers
 * (4.1.2-4.1.4, open-mpi/ompi#10525).  A static rule on what MPI requires
 * to match on every rank (the op and the type signature's basic types), so
 * that such a call may end a communicator's warm-up on every rank alike:
 * only a window lets coll/rdma serve it.  Whether the fallback is really
 * wrong is the self-test's finding, agreed at set-up.
 */
bool coll_rdma_op_suspect(ompi_op_t *op, ompi_datatype_t *dtype);

/** Whether coll/rdma reduces `op` on `dtype` itself (predefined, commutative). */
bool coll_rdma_op_supported(ompi_op_t *op, ompi_datatype_t *dtype);

/**
 * Whether the result of `op` on `dtype` is the same bits in every order of
 * combination: supported, and the type is an integer, logical or byte type
 * (or a MINLOC/MAXLOC pair of integers).  False for every floating-point
 * type, MIN and MAX included (signed zeros and NaNs).  Algorithms that
 * combine in rank-dependent orders (nway, bruck) are chosen by `auto` only
 * when this holds.
 */
bool coll_rdma_op_order_independent(ompi_op_t *op, ompi_datatype_t *dtype);

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
 * cfg->bcast_segment_bytes (one slot).  Returns OMPI_SUCCESS or a transport error.
 */
int coll_rdma_bcast_knomial(void *buf, size_t bytes, int root, mca_coll_rdma_module_t *module,
                            struct ompi_communicator_t *comm);

/**
 * MPI_Bcast of `bytes` contiguous bytes at `buf` from `root` by notified
 * read (End's thesis, seed 002 chapter 6, on shared memory): the root copies
 * each segment of cfg->bcast_segment_bytes into its own read-ring slot and
 * sets the slot's sequence word; every other rank polls that word through
 * its mapping of the root's window and copies the segment out.  One copy on
 * the root's critical path whatever P, and segments pipeline through
 * cfg->bcast_slots slots (the root reuses a slot once every rank consumed
 * what it held).  Needs win->all_direct.  bytes <= cfg->bcast_max_bytes.
 * Returns OMPI_SUCCESS or a transport error.
 */
int coll_rdma_bcast_read(void *buf, size_t bytes, int root, mca_coll_rdma_module_t *module,
                         struct ompi_communicator_t *comm);

/**
 * MPI_Barrier by reading (one node): each rank stores the instance number in
 * its own read-barrier word, then polls every other rank's word through its
 * mapping, all pending words in every pass, so the misses overlap.  One
 * round: the n-way dissemination barrier with n = P - 1 turned around, each
 * rank writing one line instead of P - 1 (seed 002 chapter 6, notified read).
 * Needs win->all_direct.  Returns OMPI_SUCCESS.
 */
int coll_rdma_barrier_read(mca_coll_rdma_module_t *module, struct ompi_communicator_t *comm);

/**
 * MPI_Allreduce by reading (one node): each rank stores its `count` elements
 * of predefined `dtype` in its own read slot (instance parity), then reads
 * every rank's slot and combines them in rank order 0, 1, ..., P-1, so every
 * rank computes the same expression and gets the same bits.  bytes <=
 * cfg->allreduce_read_max_bytes; sbuf may be MPI_IN_PLACE.  Needs
 * win->all_direct.  Returns OMPI_SUCCESS.
 */
int coll_rdma_allreduce_read(const void *sbuf, void *rbuf, size_t count, ompi_datatype_t *dtype,
                             ompi_op_t *op, mca_coll_rdma_module_t *module,
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

/**
 * MPI_Barrier by pairwise exchange (End's thesis, seed 002 section 2.3.3; the
 * schedule of coll_rdma_allreduce_pairwise() with flags instead of data):
 * ranks beyond the largest power of two p2 signal rank - p2 and wait for its
 * release, the p2 ranks signal rank XOR 2^step and wait for it, log2(p2)
 * steps.  Returns OMPI_SUCCESS or a transport error.
 */
int coll_rdma_barrier_pairwise(mca_coll_rdma_module_t *module, struct ompi_communicator_t *comm);

/**
 * MPI_Allgather of one `block`-byte block per rank, by Bruck's concatenation
 * algorithm, radix COLL_RDMA_BRUCK_RADIX (seed 000 B.3; schedule in
 * coll_rdma_sched.h): ceil(log2 P) rounds, in round t one message of
 * min(2^t, P - 2^t) blocks to rank - 2^t, then a local rotation.  sblock:
 * this rank's block (may lie inside rbuf: in place); rbuf: P contiguous
 * blocks.  0 < block <= the window's ag_block.  Returns OMPI_SUCCESS or a
 * transport error.
 */
int coll_rdma_allgather_bruck(const void *sblock, void *rbuf, size_t block,
                              mca_coll_rdma_module_t *module, struct ompi_communicator_t *comm);

/**
 * MPI_Allgather by the ring: P-1 steps, in each one block to the right
 * neighbour, forwarding what came from the left (seed 000 B.4).  Same
 * arguments and limits as coll_rdma_allgather_bruck().
 */
int coll_rdma_allgather_ring(const void *sblock, void *rbuf, size_t block,
                             mca_coll_rdma_module_t *module, struct ompi_communicator_t *comm);

/**
 * MPI_Alltoall of `block` bytes per (source, destination) pair by Bruck's
 * index algorithm, radix COLL_RDMA_BRUCK_RADIX (MPICH's small-message
 * alltoall, seed 000 B.4/B.7; schedule in coll_rdma_sched.h): a local
 * rotation, ceil(log2 P) rounds each sending the blocks whose position has
 * bit t set to rank + 2^t in one message, a final rotation.  sbuf and rbuf:
 * P contiguous blocks each; sbuf == rbuf is in place.  0 < block <= the
 * window's a2a_bruck_block.  Returns OMPI_SUCCESS or a transport error.
 */
int coll_rdma_alltoall_bruck(const void *sbuf, void *rbuf, size_t block,
                             mca_coll_rdma_module_t *module, struct ompi_communicator_t *comm);

/**
 * MPI_Alltoall by direct writes (seed 004 section IV-B): each rank puts its
 * block for every peer into that peer's slot of this source, in rotated
 * order, one sequence word per source, then waits for its P-1 slots.  Same
 * arguments as coll_rdma_alltoall_bruck(); block <= a2a_direct_block.
 */
int coll_rdma_alltoall_direct(const void *sbuf, void *rbuf, size_t block,
                              mca_coll_rdma_module_t *module, struct ompi_communicator_t *comm);

/**
 * MPI_Reduce of `count` elements of predefined `dtype` (bytes <= the
 * window's reduce_bytes) with a commutative predefined `op` to `root`, over
 * the k-nomial tree of radix cfg->reduce_radix rooted at root (vranks; seed
 * 002 section 2.3.3; the up phase of Gupta's tree, seed 003 section 6.3).
 * Each node combines its children in a fixed order, so the root's bits are
 * the same run to run.  sbuf may be MPI_IN_PLACE at the root; rbuf is used at
 * the root only.  Slots are reused under credits.  Returns OMPI_SUCCESS or a
 * transport error.
 */
int coll_rdma_reduce_knomial(const void *sbuf, void *rbuf, size_t count, ompi_datatype_t *dtype,
                             ompi_op_t *op, int root, mca_coll_rdma_module_t *module,
                             struct ompi_communicator_t *comm);

/**
 * MPI_Allreduce by End's adapted n-way dissemination (End's thesis, seed 002
 * section 2.9, Theorem 4.3 in the digest's (f, a, b) form; Hoefler et al.
 * 2006 for the dissemination pattern), n = cfg->allreduce_nway_n:
 * ceil(log_{n+1} P) rounds of at most n messages of the whole `bytes`.  In
 * the last round one sender may send only a prefix of its window and the
 * receiver may leave out a prefix of its own (recomputed by a second running
 * reduction, never by an inverse op, so exact for floats and PROD with
 * zeros).  Ranks combine in rank-dependent orders: results are identical on
 * every rank only for order-independent (op, type) pairs
 * (coll_rdma_op_order_independent()).  Same arguments and limits as
 * coll_rdma_allreduce_ktree().  Returns OMPI_ERR_NOT_SUPPORTED, before any
 * communication, when (n, P) is not adaptable (the decision layer picks
 * Bruck there), else OMPI_SUCCESS or a transport error.
 */
int coll_rdma_allreduce_nway(const void *sbuf, void *rbuf, size_t count, ompi_datatype_t *dtype,
                             ompi_op_t *op, mca_coll_rdma_module_t *module,
                             struct ompi_communicator_t *comm);

/**
 * MPI_Allreduce by Bruck's n-port global combine (Bruck and Ho 1993; End's
 * thesis, seed 002 section 2.10), n = cfg->allreduce_bruck_n: for every P,
 * ceil(log_{n+1} P) rounds of at most n messages; every rank keeps two
 * partial results (S0, and S1 = own input o S0).  Rank-dependent combining
 * order, as coll_rdma_allreduce_nway().  Same arguments and limits as
 * coll_rdma_allreduce_ktree(); returns OMPI_SUCCESS or a transport error.
 */
int coll_rdma_allreduce_bruck(const void *sbuf, void *rbuf, size_t count, ompi_datatype_t *dtype,
                              ompi_op_t *op, mca_coll_rdma_module_t *module,
                              struct ompi_communicator_t *comm);

/**
 * MPI_Allreduce by the segmented pipelined ring (Iakymchuk et al., seed 004
 * section IV-A, digest C.5): reduce-scatter then allgather, P-1 steps each,
 * step s moving one block of about count/P elements to the right neighbour
 * in segments of at most cfg->allreduce_ring_segment_bytes through
 * cfg->allreduce_ring_slots slots with credits, so window memory does not
 * grow with the message.  Block c is reduced once, along the ring from rank
 * c to rank c-1 in that fixed order, and its bits are then copied around:
 * identical results on every rank for every (op, type).  Same arguments as
 * coll_rdma_allreduce_ktree(), bytes <= cfg->allreduce_max_bytes; returns
 * OMPI_SUCCESS or a transport error.
 */
int coll_rdma_allreduce_ring(const void *sbuf, void *rbuf, size_t count, ompi_datatype_t *dtype,
                             ompi_op_t *op, mca_coll_rdma_module_t *module,
                             struct ompi_communicator_t *comm);

END_C_DECLS

#endif /* MCA_COLL_RDMA_H */
