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
#include "coll_rdma_params.h"
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
    .debug_address_inline = COLL_RDMA_ADDRESS_INLINE,
    .default_rules = 1,
    .config = COLL_RDMA_CONFIG_DEFAULTS,
};
COLL_RDMA_COMPONENT_INIT

/* A read-only component parameter (coll_rdma_params.h). */
static void reg_var(const char *name, const char *help, mca_base_var_type_t type, int level,
                    void *storage)
{
    coll_rdma_param(&mca_coll_rdma_component.super.collm_version, name, help, type, level,
                    storage);
}

static void reg_int(const char *name, const char *help, int level, int *storage)
{
    reg_var(name, help, MCA_BASE_VAR_TYPE_INT, level, storage);
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
    coll_rdma_params_register(&c->super.collm_version, cfg);
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
          COLL_RDMA_ADDRESS_INLINE);
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
