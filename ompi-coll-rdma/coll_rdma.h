/*
 * coll/rdma: one-sided collectives over pre-registered RDMA windows.
 *
 * Layers (each calls only downward):
 *   component (coll_rdma_component.c)  MCA parameters, comm_query
 *   module    (coll_rdma_module.c)     per communicator: fallbacks, lazy window, statistics, entry points
 *             (coll_rdma_dtype.c)      a reduction's element type
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
 *             coll_rdma_ssp.c      allreduce with bounded staleness (opt-in per communicator)
 *   schedules (coll_rdma_sched.c)      pure arithmetic
 *   reduction (coll_rdma_op.c)         ompi_op_reduce with a start-up self-test
 *   window    (coll_rdma_window.c)     slots, sequence words, credits
 *             (coll_rdma_layout.c)     its geometry: a pure function of config and size
 *   transport (coll_rdma_ucx.c)        UCP context, worker, endpoints, mem_map, rkeys
 */
#ifndef MCA_COLL_RDMA_H
#define MCA_COLL_RDMA_H

#include "coll_rdma_compat.h"
#include "coll_rdma_config.h"
#include "coll_rdma_dtype.h"

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
    COLL_RDMA_ALG_RSAG = 10,    /* allreduce: reduce-scatter then allgather by reading (one node) */
    COLL_RDMA_ALG_SSP = 11,     /* allreduce with bounded staleness: never a parameter value, only
                                 * where a communicator asked for it (coll_rdma_ssp.c) */
    COLL_RDMA_ALG_HIER = 12,    /* two levels: by reading inside a node, among the nodes' leaders
                                 * across nodes (coll_rdma_hier.c) */
    COLL_RDMA_ALG_NPORT = 13,   /* allreduce in two levels, the first ranks of every node each
                                 * carrying a share across nodes (coll_rdma_hier.c) */
    COLL_RDMA_NALGS
};

/* How a collective was called: statistics are kept per kind. */
enum coll_rdma_kind {
    COLL_RDMA_KIND_BLOCKING = 0,
    COLL_RDMA_KIND_NONBLOCKING, /* MPI_I<coll> */
    COLL_RDMA_KIND_PERSISTENT,  /* MPI_<coll>_init (counted at init) */
    COLL_RDMA_NKINDS
};

enum coll_rdma_reason {
    COLL_RDMA_WHY_FORCED = 0,   /* *_algorithm = fallback */
    COLL_RDMA_WHY_TOO_LARGE,    /* above *_max_bytes */
    COLL_RDMA_WHY_DATATYPE,     /* reductions: the signature is not n contiguous
                                 * elements of one predefined type */
    COLL_RDMA_WHY_OP,           /* user-defined or non-commutative op */
    COLL_RDMA_WHY_WINDOW,       /* no window on this communicator, or the forced
                                 * algorithm needs every peer's window mapped */
    COLL_RDMA_WHY_WARMUP,       /* one of the communicator's first window_setup_calls calls */
    COLL_RDMA_WHY_RULE,         /* a rule of coll_rdma_tuning_file names fallback */
    COLL_RDMA_NREASONS
};

/* ---- component ----------------------------------------------------------- */

/* The communicator info key of the stale-synchronous allreduce (coll_rdma_ssp.c)
 * and the largest staleness it accepts. */
#define COLL_RDMA_STALENESS_KEY "coll_rdma_allreduce_staleness"
#define COLL_RDMA_STALENESS_MAX 64

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
    size_t allreduce_rsag_segment_bytes; /* rsag: bytes of each rank's input per instance */
    size_t allreduce_ssp_max_bytes; /* largest allreduce served with bounded staleness */
    int allreduce_staleness;    /* S of the stale-synchronous allreduce, 0: exact.  Not a
                                 * parameter: a communicator's info key, agreed at its set-up */
    size_t allgather_max_bytes; /* per rank's block */
    size_t alltoall_max_bytes;  /* per destination block */
    int reduce_radix;           /* k of the k-nomial reduce tree */
    size_t reduce_max_bytes;
    uint64_t debug_seq_start;   /* first sequence number of every collective (tests the wrap) */
    int auto_emulated;          /* auto serves where UCX emulates puts (TCP), 0: hands on */
    int debug_node_ranks;       /* > 0: nodes of this many consecutive ranks at most; < 0: -N
                                 * nodes, rank i on node i mod N; 0: the windows mapped */
    /* auto's rules from coll_rdma_tuning_file (NULL: the built-in table) and
     * their hash (0: none), which every rank must share */
    const struct coll_rdma_rules *rules;
    uint64_t rules_hash;
} coll_rdma_config_t;

/* The parameters' defaults (the component's initial configuration; the unit
 * test lays windows out with it). */
#define COLL_RDMA_CONFIG_DEFAULTS                                                              \
    {                                                                                          \
        .min_comm_size = 2,                                                                \
        .alg = {COLL_RDMA_ALG_AUTO}, /* every collective (AUTO is 0) */                    \
        .barrier_nway_n = 3,                                                               \
        .bcast_radix = 4,                                                                  \
        .bcast_slots = 8,                                                                  \
        .bcast_segment_bytes = 65536,                                                      \
        .bcast_max_bytes = 1 << 20,                                                        \
        .allreduce_ktree_degree = 3,                                                       \
        .allreduce_nway_n = 2,                                                             \
        .allreduce_bruck_n = 2,                                                            \
        .allreduce_max_bytes = 1 << 20,                                                    \
        .allreduce_short_max_bytes = 16384,                                                \
        .allreduce_ring_segment_bytes = 32768,                                             \
        .allreduce_ring_slots = 4,                                                         \
        .allreduce_ring_max_ranks = 8,                                                     \
        .allreduce_read_max_bytes = 32,                                                    \
        .allreduce_rsag_segment_bytes = 262144,                                            \
        .allreduce_ssp_max_bytes = 262144,                                                 \
        .allgather_max_bytes = 4096, /* per block; window_block_cap caps it too */        \
        .alltoall_max_bytes = 4096,                                                        \
        .reduce_radix = 4,                                                                 \
        .reduce_max_bytes = 4096,                                                          \
        .debug_seq_start = 1,                                                              \
    }

typedef struct mca_coll_rdma_component_t {
    mca_coll_base_component_t super;
    int priority;
    int verbose;
    int poll_spins;             /* polls of a sequence word between two opal_progress() calls */
    int window_setup_calls;     /* calls a communicator leaves to the fallback before set-up */
    size_t window_max_bytes;    /* cap on this rank's window (0: none); need not agree */
    int lazy_connect;           /* 1: attach off-node peers at their first use; need not agree */
    char *tuning_file;          /* coll_rdma_tuning_file: the rules file's path, or NULL */
    coll_rdma_config_t config;
    /* process-wide statistics, printed at close when verbose >= 1 */
    uint64_t served_calls[COLL_RDMA_NKINDS][COLL_RDMA_NCOLLS][COLL_RDMA_NALGS];
    uint64_t served_bytes[COLL_RDMA_NKINDS][COLL_RDMA_NCOLLS][COLL_RDMA_NALGS];
    uint64_t fallback_calls[COLL_RDMA_NKINDS][COLL_RDMA_NCOLLS][COLL_RDMA_NREASONS];
    /* allreduce calls with nway forced that Bruck served: (n, P) not adaptable */
    uint64_t allreduce_nway_not_adaptable;
    /* calls served beyond the thresholds because Open MPI's own reduction of
     * their (op, type) is wrong (also counted under their algorithm) */
    uint64_t wrong_fallback_calls[COLL_RDMA_NCOLLS];
    /* stale-synchronous allreduce calls by age (the caller's iteration minus
     * the oldest contribution's), added by each module when it goes */
    uint64_t ssp_ages[COLL_RDMA_STALENESS_MAX + 1];
} mca_coll_rdma_component_t;

OMPI_MODULE_DECLSPEC extern mca_coll_rdma_component_t mca_coll_rdma_component;


/* ---- module ---------------------------------------------------------------- */

struct coll_rdma_window;

enum coll_rdma_window_state {
    COLL_RDMA_WINDOW_NONE = 0,  /* not set up yet: at the first collective */
    COLL_RDMA_WINDOW_SETUP,     /* being set up: the exchange's own nested collectives fall back */
    COLL_RDMA_WINDOW_READY,
    COLL_RDMA_WINDOW_FAILED     /* every call falls back on this communicator */
};

/* The collectives whose previous functions a module saves: those it serves
 * (blocking, nonblocking, persistent) and allgatherv (window set-up). */
#define COLL_RDMA_SAVED(X)                                                                     \
    X(barrier) X(bcast) X(allreduce) X(allgather) X(allgatherv) X(alltoall) X(reduce)          \
    X(ibarrier) X(ibcast) X(iallreduce) X(iallgather) X(ialltoall) X(ireduce)                  \
    X(barrier_init) X(bcast_init) X(allreduce_init) X(allgather_init) X(alltoall_init)         \
    X(reduce_init)

typedef struct mca_coll_rdma_module_t {
    mca_coll_base_module_t super;

    /* saved previous functions (retained), the fallback for every call:
     * previous_<name> and previous_<name>_module for each name below */
#define X_PREVIOUS(name)                                                                      \
    mca_coll_base_module_##name##_fn_t previous_##name;                                      \
    mca_coll_base_module_t *previous_##name##_module;
    COLL_RDMA_SAVED(X_PREVIOUS)
#undef X_PREVIOUS

    const coll_rdma_config_t *cfg; /* the configuration its ranks agree on: cfg_agreed */
    int window_state;
    int warmup_calls;           /* collective calls seen before the window set-up */
    struct coll_rdma_window *window;
    /* sequence number of the last call per collective; debug_seq_start - 1
     * (the value window words start with) until the first call */
    uint64_t seq[COLL_RDMA_NCOLLS];
    /* operations started and not finished, in start order (coll_rdma_exec.h);
     * busy: someone is running the queue */
    struct coll_rdma_op *queue_head;
    struct coll_rdma_op *queue_tail;
    int busy;
    bool progress_listed;       /* in the request layer's progress list */
    /* per collective, the last blocking call's operation, run again by the
     * next call with the same arguments but buffers (coll_rdma_call.h) */
    struct coll_rdma_standing *standing[COLL_RDMA_NCOLLS];
    /* per collective, the nonblocking request freed last, kept with its
     * program for the next call with the same arguments (coll_rdma_request.c) */
    struct coll_rdma_request *parked[COLL_RDMA_NCOLLS];
    /* (op, type) pairs whose fallback is wrong on some rank: the union of
     * every rank's op self-test, agreed at window set-up (bit t of entry f,
     * as coll_rdma_op_fallback_wrong()) */
    uint64_t fallback_wrong[OMPI_OP_BASE_FORTRAN_OP_MAX];
    /* stale-synchronous allreduce (coll_rdma_ssp.c): its clock (the last instance
     * numbered), the shape (bytes, type, op) of the last call numbered and the
     * instance where calls of that shape began; the age of the oldest
     * contribution of the last call completed, and calls by age */
    uint64_t ssp_clock;
    uint64_t ssp_shape;
    uint64_t ssp_first;
    uint64_t ssp_last_age;
    uint64_t ssp_ages[COLL_RDMA_STALENESS_MAX + 1];
    /* last, so the fields every call reads keep their cache lines: the
     * component's configuration, checked at set-up, with this communicator's
     * allreduce_staleness */
    coll_rdma_config_t cfg_agreed;
} mca_coll_rdma_module_t;

OBJ_CLASS_DECLARATION(mca_coll_rdma_module_t);

mca_coll_base_module_t *mca_coll_rdma_comm_query(struct ompi_communicator_t *comm, int *priority);

/**
 * Whether the module's window is ready for a call; if not, *why is the
 * fallback reason.  With may_setup (blocking calls), the call after the
 * first window_setup_calls ones sets the window up (collective over comm:
 * every rank makes the same blocking calls in the same order); without it
 * (nonblocking and persistent calls, which are local) nothing is set up.
 * `now` (a blocking reduction Open MPI may get wrong) skips the rest of the
 * warm-up.
 */
bool coll_rdma_module_window_ready(mca_coll_rdma_module_t *m, struct ompi_communicator_t *comm,
                                   bool may_setup, bool now, int *why);

/** Fill the module's collective slots with coll/rdma's entry points (coll_rdma_entry.c). */
void coll_rdma_entry_install(mca_coll_rdma_module_t *m);

/** The coll/rdma module serving comm's MPI_Allreduce, or NULL (another component's, or none yet). */
mca_coll_rdma_module_t *coll_rdma_entry_module(struct ompi_communicator_t *comm);

/* ---- decision -------------------------------------------------------------- */

/**
 * Per-call choice.  Pure functions of the agreed configuration and of what
 * MPI requires to be equal on every rank of a call (the bytes of the type
 * signature, the op, the element type of a reduction's signature, the
 * communicator), never of a rank's local layout or of MPI_IN_PLACE, so every
 * rank of the communicator decides the same (docs/design.md, "Datatypes").
 * Return an enum coll_rdma_alg (never AUTO); on FALLBACK *why is set to an
 * enum coll_rdma_reason.
 */
/** What a communicator's window set-up found (agreed, the same on every rank). */
typedef struct coll_rdma_reach {
    bool all_direct; /* every rank maps every peer's window (one node) */
    bool emulated;   /* some rank reaches a peer by puts UCX emulates (no RMA lane: TCP) */
    int nnodes;      /* nodes of the window's node map, 0 where there is none */
    /* the window holds segments for the rsag allreduce / reduce: laid out
     * only where rsag is the collective's forced algorithm or a tuning rule
     * names it (a function of the agreed configuration) */
    bool rsag_allreduce, rsag_reduce;
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
 * two-level algorithms need one, coll_rdma_window_set_nodes(); auto takes
 * them, for barrier too, where windows are reached by puts and fewer nodes
 * than ranks), emulated;
 * fallback_wrong: Open MPI's own reduction of (op, type) is wrong on some
 * rank (agreed at set-up): then a call that the algorithm asked for hands on
 * for its size or the window is served all the same and *rescued is set
 * (unless *_algorithm = fallback): by what auto takes for a correct pair of
 * that size, and where auto would hand it on too, by an algorithm that
 * serves any size: rsag where every window is mapped and the window holds
 * rsag segments (reach->rsag_allreduce), else the segmented ring.
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
 * slots) rsag where every window is mapped and the window holds rsag
 * segments (reach->rsag_reduce), else the asked hier or the k-nomial tree in
 * chunks of at most coll_rdma_window_block_cap(REDUCE) bytes, one instance
 * each; *rescued is set.  A forced rsag serves up to reduce_max_bytes where
 * every window is mapped.
 */
int coll_rdma_decide_reduce(const coll_rdma_config_t *cfg, int comm_size, size_t bytes,
                            bool reducible_type, bool reducible_op, const coll_rdma_reach_t *reach,
                            bool fallback_wrong, bool *rescued, int *why);

/* ---- reduction ------------------------------------------------------------ */

/**
 * target[i] = source[i] op target[i] for `count` elements of predefined
 * `dtype`, with Open MPI's op framework, except for (op, type) pairs whose
 * installed function failed the self-test of coll_rdma_op_selftest(): those
 * use coll/rdma's own kernel where it has one that passed the same test
 * (wrapping SUM of 8- and 16-bit integers, coll_rdma_kernels.h), else Open
 * MPI's base (non-vectorized) function.  DESIGN.md rule 7.
 */
void coll_rdma_op_reduce(ompi_op_t *op, const void *source, void *target, size_t count,
                         ompi_datatype_t *dtype);

/**
 * What coll_rdma_op_reduce() reduces `op` on predefined `dtype` with in this
 * process, for messages: "coll/rdma's own kernel" or "Open MPI's base
 * function" (the self-test found the installed function wrong), else "Open
 * MPI's installed function".
 */
const char *coll_rdma_op_reducer(ompi_op_t *op, ompi_datatype_t *dtype);

/**
 * Compare every installed intrinsic op function on integer types against
 * the base one (0.3 ms at 2 ranks here); the first call does it, later ones return at
 * once.  Not thread-safe: call it from one thread, before any reduction
 * (a warm-up step or the window set-up, under the UCX lock).
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

/* ---- algorithms: plans of operations, coll_rdma_exec.h ------------------- */

END_C_DECLS

#endif /* MCA_COLL_RDMA_H */
