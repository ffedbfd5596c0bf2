/*
 * coll/rdma's configuration, ground floor: what every layer may know of the
 * component's parameters without reading the component's global.  The names
 * of collectives, algorithms, call kinds and fallback reasons, and the
 * configuration every rank of a communicator agrees on (coll_rdma_config_t),
 * which reaches the layers below the component as arguments (the module's
 * cfg, the window's allocation); what remains global is how much they say,
 * and the one function they say it with.
 */
#ifndef COLL_RDMA_CONFIG_H
#define COLL_RDMA_CONFIG_H

#include "ompi_config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
    COLL_RDMA_WHY_CID,          /* MPI_Iallreduce of the shape of Open MPI's communicator-ID
                                 * agreement (coll_rdma_call_internal) */
    COLL_RDMA_NREASONS
};

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
    int bcast_small_slots;      /* one-line slots of the read bcast's small ring (0: none) */
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
    int one_node;               /* every rank of the communicator on this node (Open MPI's
                                 * locality).  Not a parameter: found at set-up, agreed; the
                                 * layout sizes the bcast rings by it (coll_rdma_layout.h) */
    size_t allgather_max_bytes; /* per rank's block */
    size_t alltoall_max_bytes;  /* per destination block */
    int reduce_radix;           /* k of the k-nomial reduce tree */
    size_t reduce_max_bytes;
    uint64_t debug_seq_start;   /* first sequence number of every collective (tests the wrap) */
    int auto_emulated;          /* auto serves where UCX emulates puts (TCP), 0: hands on */
    int debug_node_ranks;       /* > 0: nodes of this many consecutive ranks at most; < 0: -N
                                 * nodes, rank i on node i mod N; 0: the windows mapped */
    /* auto's rules from coll_rdma_tuning_file (NULL: none) and their hash
     * (0: none), which every rank must share; then, on one node (every window
     * mapped), the default rules measured and compiled in
     * (coll_rdma_defaults.rules; NULL where coll_rdma_default_rules is 0);
     * then the built-in table (coll_rdma_decision.c) */
    const struct coll_rdma_rules *rules;
    uint64_t rules_hash;
    const struct coll_rdma_rules *defaults;
    uint64_t defaults_hash;
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
        .bcast_small_slots = 64,                                                           \
        .bcast_segment_bytes = 65536,                                                      \
        .bcast_max_bytes = 4 << 20,                                                        \
        .allreduce_ktree_degree = 3,                                                       \
        .allreduce_nway_n = 2,                                                             \
        .allreduce_bruck_n = 2,                                                            \
        .allreduce_max_bytes = 4 << 20,                                                    \
        .allreduce_short_max_bytes = 16384,                                                \
        .allreduce_ring_segment_bytes = 32768,                                             \
        .allreduce_ring_slots = 4,                                                         \
        .allreduce_ring_max_ranks = 8,                                                     \
        .allreduce_read_max_bytes = 32,                                                    \
        .allreduce_rsag_segment_bytes = 262144,                                            \
        .allreduce_ssp_max_bytes = 262144,                                                 \
        .allgather_max_bytes = 1 << 20, /* per block; window_block_cap caps it too */     \
        .alltoall_max_bytes = 1 << 20,                                                     \
        .reduce_radix = 4,                                                                 \
        .reduce_max_bytes = 4 << 20,                                                       \
        .debug_seq_start = 1,                                                              \
    }

/** Set the verbosity (coll_rdma_verbose) once its MCA parameter is read. */
void coll_rdma_config_set_verbosity(int level);

/** Whether messages of `level` are printed (coll_rdma_verbose >= level). */
bool coll_rdma_verbose(int level);

/** Print one line on stderr, prefixed with the component and world rank
 * ("[coll/rdma] rank N: "). */
void coll_rdma_output(const char *fmt, ...) __opal_attribute_format__(__printf__, 1, 2);

/**
 * Whether this process says what holds for the whole job: world rank 0.
 * Every process reads the same parameters and files, so a message about
 * them is printed once per job, not once per process; a value set on some
 * ranks only shows where a communicator's set-up agreement finds it
 * differing, and is named there (coll_rdma_agree.c).
 */
bool coll_rdma_job_speaker(void);

struct ompi_communicator_t;

/**
 * How a message names rank `r` of communicator `comm`: "communicator NAME
 * rank r (world rank N)", into buf (len bytes); returns buf.  The output
 * prefix is this process's world rank, which on a sub-communicator is not
 * the communicator rank the message speaks of.
 */
const char *coll_rdma_comm_rank(char *buf, size_t len, struct ompi_communicator_t *comm, int r);

#endif /* COLL_RDMA_CONFIG_H */
