/*
 * coll/rdma component: MCA parameters, open/close, the statistics at close,
 * and the per-communicator query (which communicators coll/rdma declines).
 */
#include "ompi_config.h"

#include "coll_rdma.h"
#include "coll_rdma_entry.h"
#include "coll_rdma_layout.h"
#include "coll_rdma_module.h"
#include "coll_rdma_names.h"
#include "coll_rdma_request.h"
#include "coll_rdma_rules.h"
#include "coll_rdma_stats.h"
#include "coll_rdma_records.h"
#include "coll_rdma_ucx.h"
#include "coll_rdma_window.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "opal/mca/base/mca_base_pvar.h"
#include "opal/mca/base/mca_base_var.h"
#include "opal/util/proc.h"

static int rdma_register(void);

static int rdma_open(void);
static int rdma_close(void);
static int rdma_init_query(bool enable_progress_threads, bool enable_mpi_threads);
static mca_coll_base_module_t *rdma_comm_query(struct ompi_communicator_t *comm, int *priority);

mca_coll_rdma_component_t mca_coll_rdma_component = {
    .super = {
        .collm_version = {
            COLL_RDMA_COMPONENT_VERSION,
            .mca_component_name = "rdma",
            MCA_BASE_MAKE_VERSION(component, OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION,
                                  OMPI_RELEASE_VERSION),
            .mca_open_component = rdma_open,
            .mca_close_component = rdma_close,
            .mca_register_component_params = rdma_register,
        },
        .collm_data = {MCA_BASE_METADATA_PARAM_CHECKPOINT},
        .collm_init_query = rdma_init_query,
        .collm_comm_query = rdma_comm_query,
    },
    .priority = 90,
    .verbose = 0,
    .poll_spins = 256,
    .window_setup_calls = 16,
    .window_pool = 2,
    .lazy_connect = 1,
    .debug_address_inline = ADDRESS_INLINE,
    .default_rules = 1,
    .config = COLL_RDMA_CONFIG_DEFAULTS,
};
COLL_RDMA_COMPONENT_INIT

/* A read-only component parameter of `type` at info `level`. */
static void reg_var(const char *name, const char *help, mca_base_var_type_t type, int level,
                    void *storage)
{
    (void) mca_base_component_var_register(&mca_coll_rdma_component.super.collm_version, name, help,
                                           type, NULL, 0, 0, level, MCA_BASE_VAR_SCOPE_READONLY,
                                           storage);
}

static void reg_int(const char *name, const char *help, int level, int *storage)
{
    reg_var(name, help, MCA_BASE_VAR_TYPE_INT, level, storage);
}

static void reg_size(const char *name, const char *help, size_t *storage)
{
    reg_var(name, help, MCA_BASE_VAR_TYPE_SIZE_T, OPAL_INFO_LVL_5, storage);
}

/* An *_algorithm enum parameter: auto, fallback, then the algorithms in
 * `algs` (terminated by COLL_RDMA_ALG_AUTO). */
static void reg_alg(int coll, const int *algs, const char *help)
{
    mca_base_var_enum_value_t values[COLL_RDMA_NALGS + 1] = {{COLL_RDMA_ALG_AUTO, "auto"},
                                                             {COLL_RDMA_ALG_FALLBACK, "fallback"}};
    mca_base_var_enum_t *enumerator = NULL;
    char name[64], enum_name[80];
    int n = 2;

    for (; COLL_RDMA_ALG_AUTO != *algs; ++algs, ++n) {
        values[n].value = *algs;
        values[n].string = coll_rdma_alg_names[*algs];
    }
    values[n].value = 0;
    values[n].string = NULL;
    snprintf(name, sizeof(name), "%s_algorithm", coll_rdma_coll_names[coll]);
    snprintf(enum_name, sizeof(enum_name), "coll_rdma_%s_algorithms", coll_rdma_coll_names[coll]);
    (void) mca_base_var_enum_create(enum_name, values, &enumerator);
    (void) mca_base_component_var_register(&mca_coll_rdma_component.super.collm_version, name, help,
                                           MCA_BASE_VAR_TYPE_INT, enumerator, 0, 0,
                                           OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
                                           &mca_coll_rdma_component.config.alg[coll]);
    OBJ_RELEASE(enumerator);
}

/*
 * MPI_T performance variables bound to a communicator: the staleness in force
 * (agreed at set-up), what its last stale-synchronous allreduce returned (age:
 * the caller's iteration minus its oldest contribution's, 0 when all were
 * current), and how many of its calls returned a stale reduction.  0 on a
 * communicator coll/rdma does not serve.  And per collective, bound to no
 * object: the calls this process served (blocking, nonblocking, persistent
 * starts; any algorithm), which tells a benchmark what it timed.
 */
enum { PVAR_STALENESS, PVAR_STALE_AGE, PVAR_STALE_CALLS, PVAR_SERVED };

/* The calls of collective coll this process served. */
static unsigned long long served_calls(int coll)
{
    unsigned long long v = 0;

    for (int kind = 0; kind < COLL_RDMA_NKINDS; ++kind) {
        for (int alg = COLL_RDMA_ALG_NWAY; alg < COLL_RDMA_NALGS; ++alg) {
            v += coll_rdma_stats_counters()->served_calls[kind][coll][alg];
        }
    }
    return v;
}

/* The value of the variable its ctx (one of the above; PVAR_SERVED + coll)
 * names, for communicator obj. */
static int pvar_get(const struct mca_base_pvar_t *pvar, void *value, void *obj)
{
    int what = (int) (intptr_t) pvar->ctx;
    mca_coll_rdma_module_t *m = what < PVAR_SERVED ? coll_rdma_entry_module(obj) : NULL;
    unsigned long long v = what >= PVAR_SERVED ? served_calls(what - PVAR_SERVED) : 0;

    if (NULL != m) {
        switch (what) {
        case PVAR_STALENESS:
            v = (unsigned long long) m->cfg->allreduce_staleness;
            break;
        case PVAR_STALE_AGE:
            v = m->queue.ssp_last_age;
            break;
        default: /* calls with an age above 0 */
            for (int age = 1; age <= COLL_RDMA_STALENESS_MAX; ++age) {
                v += m->queue.ssp_ages[age];
            }
        }
    }
    *(unsigned long long *) value = v;
    return OMPI_SUCCESS;
}

static void reg_pvar(const char *name, const char *help, int var_class, int what)
{
    (void) mca_base_component_pvar_register(&mca_coll_rdma_component.super.collm_version, name,
                                            help, OPAL_INFO_LVL_4, var_class,
                                            MCA_BASE_VAR_TYPE_UNSIGNED_LONG_LONG, NULL,
                                            what < PVAR_SERVED ? MCA_BASE_VAR_BIND_MPI_COMM
                                                               : MCA_BASE_VAR_BIND_NO_OBJECT,
                                            MCA_BASE_PVAR_FLAG_READONLY
                                                | MCA_BASE_PVAR_FLAG_CONTINUOUS,
                                            pvar_get, NULL, NULL, (void *) (intptr_t) what);
}

static int rdma_register(void)
{
    mca_coll_rdma_component_t *c = &mca_coll_rdma_component;
    coll_rdma_config_t *cfg = &c->config;

    reg_int("priority",
            "Priority of coll/rdma (0-100; negative disables it). Functions it does not provide, "
            "and every call it does not serve, go to the component of next lower priority",
            OPAL_INFO_LVL_6, &c->priority);
    reg_int("verbose",
            "0: warnings only; 1: also per-process statistics at MPI_Finalize (calls served and "
            "fallbacks by reason), why coll/rdma stepped aside (UCX unavailable, no window on a "
            "communicator and why, a peer unreachable at its first use), calls served beyond the "
            "thresholds as Open MPI's own reduction is wrong, the tuning file loaded; 2: also the "
            "op self-test's findings, each communicator's window bytes and peers attached",
            OPAL_INFO_LVL_5, &c->verbose);
    reg_int("min_comm_size",
            "Smallest communicator (in ranks) that coll/rdma serves; it never serves fewer than 2",
            OPAL_INFO_LVL_6, &cfg->min_comm_size);
    reg_int("window_setup_calls",
            "Collective calls a communicator leaves to the previous component before coll/rdma "
            "sets its windows up (at the next call). Set-up costs milliseconds (measured: 2.7 ms "
            "at 2 ranks with the default rules, 1.5 ms without; 4.7 ms at 16 ranks; mapping and "
            "unmapping shared memory; docs/performance.md), so short-lived communicators are "
            "better left alone; 0: set up at the first call. The last five of these calls start "
            "UCX in steps, once per process (at most about 2 ms each). Must be the same on every "
            "rank, like coll_rdma_priority",
            OPAL_INFO_LVL_6, &c->window_setup_calls);
    reg_int("poll_spins",
            "Polls of a sequence word between two calls of opal_progress() in a wait (which "
            "yields the core when ranks outnumber cores); 1 to 2^30",
            OPAL_INFO_LVL_5, &c->poll_spins);
    /* A local resource limit, not agreed: a rank whose window would exceed it
     * reports failure in the set-up exchange and the communicator falls back. */
    reg_var("window_max_bytes",
            "Largest window (bytes, at most 2^40) this process registers for one communicator; "
            "0: no limit. A communicator whose window geometry needs more falls back on every "
            "rank (with a message at verbose >= 1). The guard against size parameters set so "
            "large that windows would not fit in memory. May differ between ranks",
            MCA_BASE_VAR_TYPE_SIZE_T, OPAL_INFO_LVL_4, &c->window_max_bytes);
    reg_var("window_budget_bytes",
            "Most bytes of windows this process keeps mapped at once, over all its communicators "
            "(memory of freed ones comes back); a communicator whose window would pass it goes "
            "without one on every rank, said once per job by world rank 0 (where it is a "
            "member). 0 (default): a quarter of the size of the directory UCX maps windows from "
            "(UCX_POSIX_DIR from the environment, else /dev/shm) shared among the node's "
            "processes, raised to 4 MiB (one window of a communicator of up to 8 ranks) as far "
            "as half of it shared among them allows, at most 24 MiB; 24 MiB where the directory's "
            "size is unknown (unreadable, or an unlimited tmpfs). No value switches it off; a "
            "large one leaves only the directory's room as limit. May differ between ranks",
            MCA_BASE_VAR_TYPE_SIZE_T, OPAL_INFO_LVL_4, &c->window_budget_bytes);
    reg_int("window_pool",
            "Windows of freed communicators this process keeps mapped (within the budget) for the "
            "next communicator's window of about their size, which then costs no new shared "
            "memory; one is reused only once every peer freed its communicator too, and only "
            "where every rank mapped every window (one node). 0 to 16; 0: none. May differ "
            "between ranks", OPAL_INFO_LVL_4, &c->window_pool);
    /* Local, not agreed: which peers a rank attaches at set-up changes
     * nothing that another rank sees. */
    reg_int("lazy_connect",
            "1: a communicator's set-up connects (UCX endpoint, rkey) only the peers on this "
            "rank's node and one other, and every other peer at its first put or get, so that "
            "dissemination algorithms connect O(log P) peers instead of all; a peer that cannot "
            "be reached then fails that call (MPI_ERR_OTHER). 0: every peer at set-up, where a "
            "failure on any rank hands the communicator's calls on. May differ between ranks",
            OPAL_INFO_LVL_6, &c->lazy_connect);
    reg_var("tuning_file",
            "Rules file that auto follows before its default rules and built-in table "
            "(docs/tuning.md, \"Calibration\"; bench/tune.sh writes one for this machine): lines "
            "of collective, ranks, bytes and algorithm, the first matching rule decides; calls no "
            "rule matches take the default rules, then the built-in table. A file that cannot be "
            "read or parsed is reported (once per job, with its line) and is not used: auto "
            "follows the default rules and the built-in table as without it. Every rank must "
            "load the same rules (agreed at window set-up like the other parameters); where they "
            "differ, coll/rdma falls back on that communicator with a warning. A *_algorithm "
            "other than auto overrides the "
            "file for its collective",
            MCA_BASE_VAR_TYPE_STRING, OPAL_INFO_LVL_5, &c->tuning_file);
    reg_int("default_rules",
            "1 (default): on one node (every window mapped) auto follows the default rules "
            "measured for this release (the collective, ranks and bytes at which the large "
            "algorithms win; docs/tuning.md, \"The default rules\"), after the tuning file's "
            "rules and before its built-in table; 0: the built-in table alone. Must be the same "
            "on every rank",
            OPAL_INFO_LVL_5, &mca_coll_rdma_component.default_rules);
    reg_alg(COLL_RDMA_BARRIER, coll_rdma_coll_algs[COLL_RDMA_BARRIER],
            "MPI_Barrier algorithm: auto (read where every rank maps every window, i.e. one "
            "node; hier across nodes where some node has several ranks; else nway), fallback "
            "(previous component), nway (n-way dissemination), pairwise (pairwise exchange), read "
            "(each rank writes its own word and reads everyone's; one node only), hier (two "
            "levels: each node's lowest rank reads its node's arrivals, the n-way barrier among "
            "those leaders, the node reads its leader's release)");
    reg_int("barrier_nway_n",
            "n of the n-way dissemination barrier: signals per rank and round; ceil(log_{n+1} P) "
            "rounds",
            OPAL_INFO_LVL_5, &cfg->barrier_nway_n);
    reg_alg(COLL_RDMA_BCAST, coll_rdma_coll_algs[COLL_RDMA_BCAST],
            "MPI_Bcast algorithm: auto (read where every rank maps every window, i.e. one node; "
            "across nodes, up to one segment, hier where some node has several ranks, else "
            "knomial), fallback (previous component), knomial (k-nomial tree of puts, segments "
            "pipelined), read (every rank copies from the root's slots, segmented; one node "
            "only), hier (two levels: the k-nomial tree among the root and the other nodes' "
            "leaders, then each node's ranks copy from that rank's slot; segments pipelined)");
    reg_int("bcast_radix", "Radix k of the k-nomial bcast tree (>= 2)", OPAL_INFO_LVL_5,
            &cfg->bcast_radix);
    reg_int("bcast_slots",
            "Bcast slots per rank and communicator (>= 2): a root may run this many bcasts ahead "
            "of the slowest receiver before it waits for credit",
            OPAL_INFO_LVL_6, &cfg->bcast_slots);
    reg_int("bcast_small_slots",
            "One-line slots of the read bcast's small ring (0 to 4096; 0: none): a bcast of at "
            "most 56 bytes travels in one cache line with its sequence word, and its root reads "
            "the receivers' credits once per this many such bcasts. Window memory: 64 bytes "
            "per slot",
            OPAL_INFO_LVL_6, &cfg->bcast_small_slots);
    reg_size("bcast_segment_bytes",
             "Payload bytes of one bcast slot (64 to 2^30): the segment of every bcast (read, "
             "knomial, hier), one instance each; up to bcast_slots of them in flight. Window "
             "memory for bcast: 2 * bcast_slots * min(this, bcast_max_bytes)",
             &cfg->bcast_segment_bytes);
    reg_size("bcast_max_bytes",
             "Largest MPI_Bcast (bytes, at most 2^31 - 1) that forced algorithms and tuning or "
             "default rules serve; larger ones fall back. auto's built-in table stops below "
             "it: at 1 MiB, at 16 KiB on 2 ranks of one node, at one segment across nodes (and "
             "on one node the default rules decide first: on 2 ranks they hand on above 4 KiB)",
             &cfg->bcast_max_bytes);
    reg_alg(COLL_RDMA_ALLREDUCE, coll_rdma_coll_algs[COLL_RDMA_ALLREDUCE],
            "MPI_Allreduce algorithm: auto, fallback (previous component), ktree (Gupta's "
            "degree-k tree: reduce to rank 0, then the result down the same tree), pairwise "
            "(recursive doubling with a fold, one canonical operand order), nway (End's adapted "
            "n-way dissemination; Bruck where (n, P) is not adaptable), bruck (Bruck's n-port "
            "global combine), ring (segmented pipelined ring: reduce-scatter then allgather), "
            "read (each rank reads every contribution and combines them in rank order; one node "
            "only, up to allreduce_read_max_bytes), rsag (one node: in segments, each rank "
            "reduces its 1/P share by reading it from every rank's window, then copies every "
            "rank's reduced share; any size up to allreduce_max_bytes), hier (two levels: each "
            "node's lowest rank folds its node's inputs by reading, in rank order, the leaders "
            "run pairwise among themselves, or nway/bruck for integer, logical and byte types, "
            "and the node copies the result from its leader; auto up to "
            "allreduce_short_max_bytes, forced any size up to allreduce_max_bytes, in chunks of "
            "allreduce_short_max_bytes), nport (forced only: two levels, the vector cut in "
            "L shares, L the ranks of the smallest node; each node's i-th rank, i < L, folds "
            "share i of its node's inputs by reading, runs hier's leaders' algorithm on it with "
            "the i-th ranks of the other nodes, and its node copies the share from it; any size "
            "up to allreduce_max_bytes, in chunks of allreduce_short_max_bytes). nway and bruck "
            "combine in "
            "rank-dependent orders: auto uses them only for integer, logical and byte types; "
            "forced on floating-point SUM or PROD they may give results that differ in the last "
            "bits between ranks");
    reg_int("allreduce_ktree_degree",
            "Degree k of the allreduce tree (>= 1): a (k+1)-nomial tree, k children per node "
            "and round",
            OPAL_INFO_LVL_5, &cfg->allreduce_ktree_degree);
    reg_int("allreduce_nway_n",
            "n of the adapted n-way dissemination allreduce (>= 1): peers per rank and round. "
            "Some (n, P) are not adaptable (n = 1: P = 13, 21, 25, ...; n = 2: P = 40, 41, "
            "64, ...): there Bruck's algorithm with allreduce_bruck_n serves forced nway calls",
            OPAL_INFO_LVL_5, &cfg->allreduce_nway_n);
    reg_int("allreduce_bruck_n", "Ports n of Bruck's n-port allreduce (>= 1)", OPAL_INFO_LVL_5,
            &cfg->allreduce_bruck_n);
    reg_size("allreduce_max_bytes",
             "Largest MPI_Allreduce (bytes, at most 2^31 - 1) that forced algorithms and tuning "
             "or default rules serve; larger ones fall back (but for the (op, type) pairs Open "
             "MPI reduces wrong, served at every size). auto's built-in table stops below it, at "
             "1 MiB (the ring: one node, at most allreduce_ring_max_ranks ranks, 512 KiB on 2); "
             "on one node the default rules decide first (rsag from a few KiB; on 2 ranks they "
             "hand on above 512 KiB). Caps the slots of the slot algorithms and of read too",
             &cfg->allreduce_max_bytes);
    reg_size("allreduce_short_max_bytes",
             "Largest MPI_Allreduce (bytes, 64 to 2^30: at least one element of every type) "
             "served by ktree, pairwise, nway, bruck, and by hier under auto; each of their "
             "window slots holds min(this, allreduce_max_bytes). A forced slot algorithm falls "
             "back above it; forced hier and nport serve larger ones in chunks of it. Above it "
             "auto takes the segmented ring only on one node, on at most "
             "allreduce_ring_max_ranks ranks and up to 1 MiB (512 KiB on 2 ranks), and there "
             "the default rules give most sizes to rsag; elsewhere it falls back",
             &cfg->allreduce_short_max_bytes);
    reg_size("allreduce_ring_segment_bytes",
             "Bytes per message of the segmented ring allreduce (64 to 2^30): each ring slot "
             "holds one segment",
             &cfg->allreduce_ring_segment_bytes);
    reg_int("allreduce_ring_max_ranks",
            "auto takes the ring above allreduce_short_max_bytes only on communicators of at "
            "most this many ranks on one node; larger ones and those across nodes fall back "
            "there (on one node the ring beat the built-in components at 4 and 8 ranks, not at "
            "16)",
            OPAL_INFO_LVL_6, &cfg->allreduce_ring_max_ranks);
    reg_int("allreduce_ring_slots",
            "Ring allreduce slots per rank and communicator (>= 2): segments a rank may have "
            "in flight to its right neighbour; the ring region is slots * segment bytes",
            OPAL_INFO_LVL_6, &cfg->allreduce_ring_slots);
    reg_size("allreduce_read_max_bytes",
             "Largest MPI_Allreduce (bytes, 0 to 2^30) served by read. auto picks read up to "
             "here (and allreduce_short_max_bytes) only on one node and on more than 4 ranks (on "
             "2 and 4, pairwise is as fast); forced read serves up to here on one node. Each "
             "rank's window holds two slots of min(this, allreduce_max_bytes)",
             &cfg->allreduce_read_max_bytes);
    reg_size("allreduce_rsag_segment_bytes",
             "Segment of the four algorithms by reading (64 to 2^30; despite the name, not "
             "allreduce's alone): bytes of each rank's input per round of the pipeline of the "
             "rsag allreduce and of the rsag reduce, of each rank's block per round of the read "
             "allgather, and, shared among the destinations (whole cache lines), of its blocks "
             "per round of the read alltoall. Each rank's window holds two segments for each of "
             "the four that is forced or named by a tuning or default rule, none for the others; "
             "the default rules name all four (at 2 ranks about 2.1 MB of a 3.6 MB window)",
             &cfg->allreduce_rsag_segment_bytes);
    reg_size("allreduce_ssp_max_bytes",
             "Largest MPI_Allreduce (bytes, 8 to 2^30) served with bounded staleness on a "
             "communicator that asked for it (info key coll_rdma_allreduce_staleness = S >= 1; "
             "larger ones are exact): each rank's window on such a communicator holds 2S + 2 "
             "slots of this size",
             &cfg->allreduce_ssp_max_bytes);
    reg_pvar("allreduce_staleness",
             "Staleness S in force for MPI_Allreduce on this communicator: the value of its info "
             "key coll_rdma_allreduce_staleness agreed by every rank when its window was set up "
             "(0: exact)",
             MCA_BASE_PVAR_CLASS_LEVEL, PVAR_STALENESS);
    reg_pvar("allreduce_stale_age",
             "Age of the oldest contribution in this communicator's last MPI_Allreduce with "
             "bounded staleness: the caller's iteration minus that contribution's (0: every "
             "contribution was of the caller's iteration; at most the staleness)",
             MCA_BASE_PVAR_CLASS_LEVEL, PVAR_STALE_AGE);
    reg_pvar("allreduce_stale_calls",
             "MPI_Allreduce calls with bounded staleness on this communicator that returned a "
             "reduction with some contribution older than the caller's iteration",
             MCA_BASE_PVAR_CLASS_COUNTER, PVAR_STALE_CALLS);
    for (int coll = 0; coll < COLL_RDMA_NCOLLS; ++coll) {
        char name[64], help[160];
        snprintf(name, sizeof(name), "%s_served_calls", coll_rdma_coll_names[coll]);
        snprintf(help, sizeof(help),
                 "%s calls (blocking, nonblocking and persistent starts) that coll/rdma served "
                 "in this process, on any communicator",
                 coll_rdma_coll_names[coll]);
        reg_pvar(name, help, MCA_BASE_PVAR_CLASS_COUNTER, PVAR_SERVED + coll);
    }
    reg_alg(COLL_RDMA_ALLGATHER, coll_rdma_coll_algs[COLL_RDMA_ALLGATHER],
            "MPI_Allgather algorithm: auto, fallback (previous component), bruck (Bruck's "
            "concatenation), ring, read (one node: in segments of allreduce_rsag_segment_bytes, "
            "each rank copies its block into its window and every rank copies every block out; "
            "any block size up to allgather_max_bytes)");
    reg_size("allgather_max_bytes",
             "Largest MPI_Allgather block (bytes contributed per rank, at most 2^31 - 1) that "
             "forced algorithms and rules serve; larger ones fall back. bruck and ring also "
             "within 512 KiB / 2P, auto's built-in table to 4 KiB",
             &cfg->allgather_max_bytes);
    reg_alg(COLL_RDMA_ALLTOALL, coll_rdma_coll_algs[COLL_RDMA_ALLTOALL],
            "MPI_Alltoall algorithm: auto, fallback (previous component), bruck (Bruck's index "
            "algorithm), direct (every rank writes each block into its destination's window), "
            "read (one node: in segments, each rank copies its blocks into its window and every "
            "rank copies out the ones meant for it; any block size up to alltoall_max_bytes)");
    reg_size("alltoall_max_bytes",
             "Largest MPI_Alltoall block (bytes per destination, at most 2^31 - 1) that forced "
             "algorithms and rules serve; larger ones fall back. direct also within 512 KiB / "
             "2P, bruck within 512 KiB / (2 x its blocks per half), auto's built-in table to "
             "4 KiB",
             &cfg->alltoall_max_bytes);
    reg_alg(COLL_RDMA_REDUCE, coll_rdma_coll_algs[COLL_RDMA_REDUCE],
            "MPI_Reduce algorithm: auto (knomial), fallback (previous component), knomial "
            "(k-nomial tree to the root), "
            "rsag (one node: the rsag allreduce's reduce-scatter, then the root reads the "
            "shares; segments of allreduce_rsag_segment_bytes, up to reduce_max_bytes), hier "
            "(two levels: each node's carrier, the root on its node, else the leader, folds its "
            "node's inputs by reading, then the k-nomial tree among the carriers to the root)");
    reg_int("reduce_radix", "Radix k of the k-nomial reduce tree (>= 2)", OPAL_INFO_LVL_5,
            &cfg->reduce_radix);
    reg_size("reduce_max_bytes",
             "Largest MPI_Reduce (bytes, at most 2^31 - 1) that forced algorithms and rules "
             "serve; larger ones fall back (but for the (op, type) pairs Open MPI reduces "
             "wrong). knomial and hier also within 512 KiB / (2 * the tree's most children), "
             "auto's built-in table to 4 KiB",
             &cfg->reduce_max_bytes);
    reg_var("debug_seq_start",
            "Debugging: first sequence number of every collective on a new communicator (default "
            "1). A value near 2^64 (e.g. 18446744073709551000) makes the counters wrap after a "
            "few hundred calls, to test the wrap-safe protocol. Must be the same on every rank",
            MCA_BASE_VAR_TYPE_UINT64_T, OPAL_INFO_LVL_9, &cfg->debug_seq_start);
    reg_int("auto_emulated",
            "Whether auto serves communicators on which UCX emulates some rank's puts with "
            "active messages (no RMA lane: TCP between nodes): 0 (default) hands every call there "
            "to the previous component (reason window), where Open MPI's point-to-point "
            "collectives are faster; 1 serves them as over RDMA. Forced *_algorithm parameters "
            "and tuning rules serve either way. Must be the same on every rank",
            OPAL_INFO_LVL_5, &cfg->auto_emulated);
    reg_int("debug_node_ranks",
            "Debugging: split the nodes the two-level algorithms see (ranks that map each "
            "other's windows) further: k > 0, into nodes of k consecutive ranks of the "
            "communicator (the last one smaller); -N, into N nodes, rank i on node i mod N "
            "(round-robin). Tests the two-level algorithms on one machine. 0 (default): the "
            "nodes as found. Must be the same on every rank",
            OPAL_INFO_LVL_9, &cfg->debug_node_ranks);
    reg_int("debug_address_inline",
            "Debugging: bytes of a rank's address (its window's base and rkey, and its UCX worker "
            "address to a peer that lacks it) that its set-up record carries itself, 0 to 1024 "
            "(default); a longer address follows in a message of its own. Smaller values test "
            "that path. May differ between ranks",
            OPAL_INFO_LVL_9, &mca_coll_rdma_component.debug_address_inline);
    return OMPI_SUCCESS;
}

/* Clamp a parameter to its valid range, saying so once per job (world rank 0: a value set
 * on some ranks only is named by the set-up agreement, which finds it differing). */
static void clamp(const char *name, int *value, int lo, int hi)
{
    int v = *value < lo ? lo : (*value > hi ? hi : *value);
    if (v != *value) {
        if (coll_rdma_job_speaker()) {
            coll_rdma_output("warning: coll_rdma_%s = %d is out of range [%d, %d]; using %d",
                             name, *value, lo, hi, v);
        }
        *value = v;
    }
}

/* A size parameter out of its range (coll_rdma_config_bound_sizes()): said
 * as clamp() says it.  An MCA size_t takes -1 as 2^64 - 1 without a word. */
static void size_said(const coll_rdma_size_param_t *p, size_t was, size_t now, void *ctx)
{
    (void) ctx;
    if (coll_rdma_job_speaker()) {
        coll_rdma_output("warning: coll_rdma_%s = %zu is out of range [%zu, %zu]; using %zu",
                         p->name, was, p->lo, p->hi, now);
    }
}

/*
 * auto's rules from the tuning file, if one is named: parsed once per process.  What is
 * wrong with it is said once per job, by world rank 0 (every process at verbose >= 1), and
 * auto follows the default rules (`defaults`, on one node) and the built-in table, as without
 * a file.  A file readable on some nodes only leaves processes with different rules: the
 * set-up agreement finds that and falls back with a warning.
 */
static void load_rules(coll_rdma_config_t *cfg, const char *path, bool defaults)
{
    coll_rdma_rules_t *rules;
    char err[512];

    cfg->rules = NULL;
    cfg->rules_hash = 0;
    if (NULL == path || '\0' == path[0]) {
        return;
    }
    rules = coll_rdma_rules_parse(path, coll_rdma_names_vocab(), err, sizeof(err));
    if (NULL == rules) {
        if (coll_rdma_job_speaker() || coll_rdma_verbose(1)) {
            coll_rdma_output("error: coll_rdma_tuning_file %s: %s; the file is not used: auto "
                             "follows %s",
                             path, err,
                             defaults ? "the default rules (on one node), then its built-in table"
                                      : "its built-in table (coll_rdma_default_rules is 0)");
        }
        return;
    }
    cfg->rules = rules;
    cfg->rules_hash = rules->hash;
    if (coll_rdma_verbose(1) && 0 == opal_process_info.my_local_rank) {
        coll_rdma_output("tuning file %s: %d rules (hash %016llx)", path, rules->n,
                         (unsigned long long) rules->hash);
    }
}

/*
 * auto's default rules, compiled in (coll_rdma_defaults.rules), unless
 * coll_rdma_default_rules is 0.  The unit test parses the same text; a
 * failure here is a defect of the build, said by every process.
 */
static void load_defaults(coll_rdma_config_t *cfg, int enabled)
{
    coll_rdma_rules_t *rules;
    char err[512];

    cfg->defaults = NULL;
    cfg->defaults_hash = 0;
    if (!enabled) {
        return;
    }
    rules = coll_rdma_rules_parse_text(coll_rdma_defaults_text, coll_rdma_names_vocab(), err,
                                       sizeof(err));
    if (NULL == rules) {
        coll_rdma_output("error: the default rules: %s; auto uses its built-in table", err);
        return;
    }
    cfg->defaults = rules;
    cfg->defaults_hash = rules->hash;
}

static int rdma_open(void)
{
    coll_rdma_config_t *cfg = &mca_coll_rdma_component.config;

    coll_rdma_config_set_verbosity(mca_coll_rdma_component.verbose);
    clamp("barrier_nway_n", &cfg->barrier_nway_n, 1, 64);
    clamp("bcast_radix", &cfg->bcast_radix, 2, 64);
    clamp("bcast_slots", &cfg->bcast_slots, 2, 1024);
    clamp("bcast_small_slots", &cfg->bcast_small_slots, 0, 4096);
    clamp("allreduce_ktree_degree", &cfg->allreduce_ktree_degree, 1, 63);
    clamp("allreduce_nway_n", &cfg->allreduce_nway_n, 1, 64);
    clamp("allreduce_bruck_n", &cfg->allreduce_bruck_n, 1, 64);
    clamp("allreduce_ring_slots", &cfg->allreduce_ring_slots, 2, 1024);
    (void) coll_rdma_config_bound_sizes(cfg, size_said, NULL);
    if (mca_coll_rdma_component.window_max_bytes > COLL_RDMA_WINDOW_BYTES_MAX) { /* a module's */
        size_said(&(coll_rdma_size_param_t){"window_max_bytes", 0, 0, COLL_RDMA_WINDOW_BYTES_MAX},
                  mca_coll_rdma_component.window_max_bytes, COLL_RDMA_WINDOW_BYTES_MAX, NULL);
        mca_coll_rdma_component.window_max_bytes = COLL_RDMA_WINDOW_BYTES_MAX;
    }
    if (0 == mca_coll_rdma_component.window_budget_bytes) {
        mca_coll_rdma_component.window_budget_bytes = coll_rdma_window_default_budget(
            (int) opal_process_info.num_local_peers + 1);
    }
    clamp("reduce_radix", &cfg->reduce_radix, 2, 64);
    clamp("debug_node_ranks", &cfg->debug_node_ranks, -(1 << 30), 1 << 30);
    clamp("auto_emulated", &cfg->auto_emulated, 0, 1);
    clamp("poll_spins", &mca_coll_rdma_component.poll_spins, 1, 1 << 30);
    clamp("window_setup_calls", &mca_coll_rdma_component.window_setup_calls, 0, 1 << 30);
    clamp("lazy_connect", &mca_coll_rdma_component.lazy_connect, 0, 1);
    clamp("debug_address_inline", &mca_coll_rdma_component.debug_address_inline, 0,
          ADDRESS_INLINE);
    clamp("window_pool", &mca_coll_rdma_component.window_pool, 0, COLL_RDMA_WINDOW_POOL_MAX);
    clamp("default_rules", &mca_coll_rdma_component.default_rules, 0, 1);
    load_rules(cfg, mca_coll_rdma_component.tuning_file,
               0 != mca_coll_rdma_component.default_rules);
    load_defaults(cfg, mca_coll_rdma_component.default_rules);
    return OMPI_SUCCESS;
}

static int rdma_close(void)
{
    if (coll_rdma_verbose(1)) {
        uint64_t taken, kept;
        coll_rdma_stats_print(coll_rdma_coll_names, coll_rdma_alg_names, coll_rdma_reason_names);
        coll_rdma_window_pool_counts(&taken, &kept);
        coll_rdma_output("windows: kept=%llu reused=%llu (of freed communicators, for reuse)",
                         (unsigned long long) kept, (unsigned long long) taken);
        coll_rdma_ucx_lock();
        coll_rdma_records_counts(&taken, &kept);
        coll_rdma_ucx_unlock();
        coll_rdma_output("worker addresses: sent=%llu received=%llu (to and from peer processes, "
                         "in every set-up)", (unsigned long long) taken, (unsigned long long) kept);
    }
    coll_rdma_module_fini_all(); /* windows of communicators MPI_Finalize left alive */
    coll_rdma_ucx_lock();
    coll_rdma_window_pool_drain();
    coll_rdma_ucx_unlock();
    coll_rdma_request_fini();
    coll_rdma_ucx_fini();
    coll_rdma_rules_free((coll_rdma_rules_t *) mca_coll_rdma_component.config.rules);
    mca_coll_rdma_component.config.rules = NULL;
    coll_rdma_rules_free((coll_rdma_rules_t *) mca_coll_rdma_component.config.defaults);
    mca_coll_rdma_component.config.defaults = NULL;
    return OMPI_SUCCESS;
}

/* Nothing to do per process before a communicator is served: UCX starts at
 * a communicator's last warm-up calls (coll_rdma_module.c). */
static int rdma_init_query(bool enable_progress_threads, bool enable_mpi_threads)
{
    (void) enable_progress_threads;
    (void) enable_mpi_threads;
    return OMPI_SUCCESS;
}

static mca_coll_base_module_t *rdma_comm_query(struct ompi_communicator_t *comm, int *priority)
{
    mca_coll_rdma_component_t *c = &mca_coll_rdma_component;
    coll_rdma_module_params_t params = {.window_setup_calls = c->window_setup_calls,
                                        .window_max_bytes = c->window_max_bytes,
                                        .window_budget_bytes = c->window_budget_bytes,
                                        .window_pool = c->window_pool,
                                        .poll_spins = c->poll_spins,
                                        .lazy_connect = 0 != c->lazy_connect,
                                        .address_inline = (size_t) c->debug_address_inline};
    mca_coll_rdma_module_t *m;

    if (OMPI_COMM_IS_INTER(comm) || ompi_comm_size(comm) < 2 || c->priority < 0) {
        return NULL;
    }
    m = coll_rdma_module_new(&c->config, &params);
    if (NULL == m) {
        return NULL;
    }
    coll_rdma_entry_install(m);
    *priority = c->priority;
    return &m->super;
}
