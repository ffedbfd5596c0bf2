/*
 * coll/rdma module: one per communicator.  Saves the previous component's
 * functions (the fallback of every call), sets the window up at the first
 * collective, asks the decision layer per call and counts what it served.
 */
#include "ompi_config.h"

#include "coll_rdma.h"
#include "coll_rdma_call.h"
#include "coll_rdma_request.h"
#include "coll_rdma_window.h"

#include <stdlib.h>
#include <string.h>

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/base.h"
#include "ompi/runtime/mpiruntime.h"

/* ---- configuration agreement ------------------------------------------- */

/* Parameters whose values every rank must share, with their MCA names. */
#define CONFIG_FIELDS(X)                                     \
    X(min_comm_size, min_comm_size)                          \
    X(barrier_algorithm, alg[COLL_RDMA_BARRIER])             \
    X(bcast_algorithm, alg[COLL_RDMA_BCAST])                 \
    X(allreduce_algorithm, alg[COLL_RDMA_ALLREDUCE])         \
    X(barrier_nway_n, barrier_nway_n)                        \
    X(bcast_radix, bcast_radix)                              \
    X(bcast_slots, bcast_slots)                              \
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
    X(tuning_file, rules_hash)

#define X_COUNT(name, field) +1
enum { NCONFIG = 0 CONFIG_FIELDS(X_COUNT) };

typedef struct setup_header {
    int64_t ok;           /* window allocated and UCX up on this rank */
    int64_t staleness;    /* this rank's coll_rdma_allreduce_staleness (-1: not a valid one) */
    int64_t blob_bytes;   /* size of this rank's exchange blob */
    int64_t config[NCONFIG];
    /* this process's op self-test: where Open MPI's own reduction is wrong
     * (coll_rdma_op_fallback_wrong), ORed over the ranks */
    uint64_t wrong[OMPI_OP_BASE_FORTRAN_OP_MAX];
} setup_header_t;

static void config_pack(const coll_rdma_config_t *cfg, int64_t *out)
{
    int i = 0;
#define X_PACK(name, field) out[i++] = (int64_t) cfg->field;
    CONFIG_FIELDS(X_PACK)
#undef X_PACK
}

static const char *const config_names[NCONFIG] = {
#define X_NAME(name, field) "coll_rdma_" #name,
    CONFIG_FIELDS(X_NAME)
#undef X_NAME
};

/* ---- bounded staleness: the communicator's info key ------------------------- */

/*
 * The staleness this rank's communicator asks for: the info key's value, an
 * integer in [0, COLL_RDMA_STALENESS_MAX]; -1 for any other value.  Read at
 * set-up, from MPI_Comm_dup_with_info or an MPI_Comm_set_info before it; a
 * later MPI_Comm_set_info cannot change a laid-out window (the MPI_T variable
 * coll_rdma_allreduce_staleness says what is in force).  Not subscribed to:
 * Open MPI 4.1 truncates the keys of its subscribers to 27 characters.
 */
static int64_t staleness_asked(struct ompi_communicator_t *comm)
{
    char value[32], *end;
    long s;

    if (!coll_rdma_info_get(comm->super.s_info, COLL_RDMA_STALENESS_KEY, value, sizeof(value))) {
        return 0;
    }
    s = strtol(value, &end, 10);
    return end == value || '\0' != *end || s < 0 || s > COLL_RDMA_STALENESS_MAX ? -1 : s;
}

/*
 * The staleness every rank uses: what they all asked for, or 0 (exact), with
 * a warning by rank 0 where one asked for an invalid value or ranks differ.
 */
static int staleness_agree(const setup_header_t *headers, int size, int rank)
{
    for (int i = 0; i < size; ++i) {
        if (headers[i].staleness < 0 || headers[i].staleness != headers[0].staleness) {
            if (0 == rank && headers[i].staleness < 0) {
                coll_rdma_output("warning: %s at rank %d is not an integer from 0 to %d; "
                                 "MPI_Allreduce stays exact on this communicator",
                                 COLL_RDMA_STALENESS_KEY, i, COLL_RDMA_STALENESS_MAX);
            } else if (0 == rank) {
                coll_rdma_output("warning: %s differs between ranks (%lld at rank 0, %lld at "
                                 "rank %d); MPI_Allreduce stays exact on this communicator",
                                 COLL_RDMA_STALENESS_KEY, (long long) headers[0].staleness,
                                 (long long) headers[i].staleness, i);
            }
            return 0;
        }
    }
    return (int) headers[0].staleness;
}

/* ---- window setup -------------------------------------------------------- */

static int exchange(mca_coll_rdma_module_t *m, struct ompi_communicator_t *comm, const void *mine,
                    void *all, size_t bytes)
{
    return m->previous_allgather(mine, (int) bytes, MPI_BYTE, all, (int) bytes, MPI_BYTE, comm,
                                 m->previous_allgather_module);
}

/* Whether every rank reported the same configuration and ok; warns once
 * about a configuration that differs (whatever the oks). */
static bool headers_agree(const setup_header_t *headers, int size, int rank)
{
    for (int i = 0; i < size; ++i) {
        for (int f = 0; f < NCONFIG; ++f) {
            if (headers[i].config[f] != headers[0].config[f]) {
                if (0 == rank && 0 == strcmp(config_names[f], "coll_rdma_tuning_file")) {
                    coll_rdma_output("warning: the rules of coll_rdma_tuning_file differ between "
                                     "ranks (hash %016llx at rank 0, %016llx at rank %d; 0: no "
                                     "rules, the file unnamed, unreadable or malformed); coll/rdma "
                                     "falls back on this communicator",
                                     (unsigned long long) headers[0].config[f],
                                     (unsigned long long) headers[i].config[f], i);
                } else if (0 == rank) {
                    coll_rdma_output("warning: %s differs between ranks (%lld at rank 0, %lld "
                                     "at rank %d); coll/rdma falls back on this communicator",
                                     config_names[f], (long long) headers[0].config[f],
                                     (long long) headers[i].config[f], i);
                }
                return false;
            }
        }
    }
    for (int i = 0; i < size; ++i) {
        if (!headers[i].ok) {
            return false;
        }
    }
    return true;
}

/* What each rank says after attaching: ok (bit 0: connected; bit 1: maps
 * every peer's window; bit 2: UCX emulates its puts to some peer), and for
 * the node map its leader (the lowest rank whose window it maps, itself
 * included) and the hash of the ranks it maps. */
typedef struct attached {
    int64_t ok;
    int64_t leader;
    uint64_t map_hash;
} attached_t;

/* The node of rank i as coll_rdma_debug_node_ranks = k splits them (0: one). */
static int debug_node(int k, int i)
{
    return k > 0 ? i / k : k < 0 ? i % -k : 0;
}

static void attached(const coll_rdma_window_t *win, int debug_node_ranks, bool connected,
                     attached_t *a)
{
    bool *mapped = calloc(win->comm_size, sizeof(bool));
    int node = debug_node(debug_node_ranks, win->rank);

    a->ok = connected ? 1 : 0;
    a->ok |= connected && 0 == win->nremote ? 2 : 0;
    a->ok |= connected && win->nemulated > 0 ? 4 : 0;
    a->leader = win->rank;
    a->map_hash = 0;
    if (NULL == mapped) {
        a->leader = -1; /* no node map anywhere */
        return;
    }
    for (int i = 0; connected && i < win->comm_size; ++i) {
        mapped[i] = i == win->rank
                    || (NULL != win->peers[i].direct && node == debug_node(debug_node_ranks, i));
        a->leader = mapped[i] && i < a->leader ? i : a->leader;
    }
    a->map_hash = coll_rdma_window_map_hash(mapped, win->comm_size);
    free(mapped);
}

/* The node map from what every rank said (the same on every rank); leader_of
 * and hash: comm_size entries to unpack it into. */
static void nodes(coll_rdma_window_t *win, const attached_t *all, int64_t *leader_of,
                  uint64_t *hash)
{
    for (int i = 0; i < win->comm_size; ++i) {
        leader_of[i] = all[i].leader;
        hash[i] = all[i].map_hash;
    }
    coll_rdma_window_set_nodes(win, leader_of, hash);
}

/*
 * Collective over comm: allocate this rank's window and connect to every
 * peer's.  Every step ends with an agreement, so all ranks leave with the
 * same state.  Uses only the saved previous allgather(v).
 */
static int window_setup(mca_coll_rdma_module_t *m, struct ompi_communicator_t *comm)
{
    int size = ompi_comm_size(comm), rank = ompi_comm_rank(comm);
    coll_rdma_config_t *cfg = &m->cfg_agreed;
    coll_rdma_window_t *win = NULL;
    setup_header_t mine, *headers = calloc(size, sizeof(*headers));
    int *counts = calloc(size, sizeof(int)), *displs = calloc(size, sizeof(int));
    attached_t ok, *oks = calloc(size, sizeof(attached_t));
    int64_t *leader_of = calloc(size, sizeof(int64_t));
    uint64_t *map_hash = calloc(size, sizeof(uint64_t));
    char *blobs = NULL, *blob = NULL;
    size_t total = 0;
    bool agreed = false;
    int rc;

    memset(&mine, 0, sizeof(mine));
    /* the window holds the ring this rank's communicator asked for (laid out
     * last: the other regions lie alike whatever ranks asked) */
    mine.staleness = staleness_asked(comm);
    cfg->allreduce_staleness = mine.staleness > 0 ? (int) mine.staleness : 0;
    if (NULL == headers || NULL == counts || NULL == displs || NULL == oks || NULL == leader_of
        || NULL == map_hash) {
        /* cannot even take part in the agreement: the job cannot go on */
        rc = OMPI_ERR_OUT_OF_RESOURCE;
        goto out;
    }
    /* Below min_comm_size this rank takes part in the agreement without a
     * window: deciding it in comm_query instead would hang the job when the
     * parameter differs between ranks (the others' set-up exchange would
     * meet this rank's plain collective). */
    if (size >= cfg->min_comm_size) {
        /* what the warm-up calls left of the process's start */
        coll_rdma_ucx_lock();
        rc = coll_rdma_ucx_init();
        coll_rdma_op_selftest();
        coll_rdma_ucx_unlock();
        coll_rdma_op_fallback_wrong(mine.wrong);
        if (OMPI_SUCCESS == rc) {
            win = coll_rdma_window_alloc(cfg, mca_coll_rdma_component.window_max_bytes, size, rank);
            if (NULL != win) {
                win->poll_spins = mca_coll_rdma_component.poll_spins;
            }
        }
    }
    if (NULL != win) {
        mine.ok = 1;
        mine.blob_bytes = (int64_t) coll_rdma_window_blob_size(win);
    }
    config_pack(cfg, mine.config);
    rc = exchange(m, comm, &mine, headers, sizeof(mine));
    if (OMPI_SUCCESS != rc) {
        goto out;
    }
    if (headers_agree(headers, size, rank)) {
        cfg->allreduce_staleness = staleness_agree(headers, size, rank);
        /* Where the fallback is wrong on any rank, its result is wrong: every
         * rank serves such calls, and decides alike from the same union. */
        for (int i = 0; i < size; ++i) {
            for (int f = 0; f < OMPI_OP_BASE_FORTRAN_OP_MAX; ++f) {
                m->fallback_wrong[f] |= headers[i].wrong[f];
            }
        }
        for (int i = 0; i < size; ++i) {
            counts[i] = (int) headers[i].blob_bytes;
            displs[i] = (int) total;
            total += (size_t) headers[i].blob_bytes;
        }
        blobs = malloc(total);
        blob = malloc(mine.blob_bytes);
        if (NULL == blobs || NULL == blob) {
            /* peers are already in the allgatherv: nothing sane is left */
            rc = OMPI_ERR_OUT_OF_RESOURCE;
            goto out;
        }
        coll_rdma_window_pack(win, blob);
        rc = m->previous_allgatherv(blob, counts[rank], MPI_BYTE, blobs, counts, displs, MPI_BYTE,
                                    comm, m->previous_allgatherv_module);
        if (OMPI_SUCCESS != rc) {
            goto out;
        }
        attached(win, cfg->debug_node_ranks,
                 OMPI_SUCCESS
                     == coll_rdma_window_attach(win, comm, &blobs, &displs,
                                                mca_coll_rdma_component.lazy_connect),
                 &ok);
        /* a peer that failed to connect must not be written to by others */
        rc = exchange(m, comm, &ok, oks, sizeof(ok));
        if (OMPI_SUCCESS != rc) {
            goto out;
        }
        agreed = true;
        /* Where Open MPI yields the core in its progress loop (oversubscribed,
         * or mpi_yield_when_idle), yield at every poll of a window whose
         * peers are reached by UCX puts: each such poll progresses UCX (a
         * system call over TCP), so poll_spins of them would hold the core
         * for up to a millisecond while the rank that must send runs on it. */
        if (opal_progress_yield_when_idle && win->nremote > 0) {
            win->poll_spins = 1;
        }
        win->all_direct = true;
        for (int i = 0; i < size; ++i) {
            agreed = agreed && (oks[i].ok & 1);
            win->all_direct = win->all_direct && (oks[i].ok & 2);
            win->emulated = win->emulated || (oks[i].ok & 4);
        }
        if (agreed) {
            nodes(win, oks, leader_of, map_hash);
        }
    }
out:
    if (agreed && win->emulated && !cfg->auto_emulated && 0 == rank && coll_rdma_verbose(1)) {
        coll_rdma_output("communicator %s (size %d): UCX emulates puts to some peer (no RMA "
                         "lane, e.g. TCP): auto hands its calls on (coll_rdma_auto_emulated=1 "
                         "serves them)", comm->c_name, size);
    }
    if (agreed && 0 == rank && coll_rdma_verbose(2)) {
        coll_rdma_output("communicator %s (size %d): window of %zu bytes; addresses %zu bytes in "
                         "all; rank 0 attached %d peers at set-up (%d mapped), %d left for their "
                         "first put or get", comm->c_name, size, win->size, total,
                         win->nattached, size - 1 - win->nremote, win->npending);
    }
    if (agreed) {
        m->window = win;
        m->window_state = COLL_RDMA_WINDOW_READY;
        /* the instance before the first: what every window word holds */
        for (int c = 0; c < COLL_RDMA_NCOLLS; ++c) {
            m->seq[c] = cfg->debug_seq_start - 1;
        }
        m->ssp_clock = cfg->debug_seq_start - 1;
    } else {
        cfg->allreduce_staleness = 0;
    }
    if (!agreed) {
        coll_rdma_window_free(win);
        m->window_state = COLL_RDMA_WINDOW_FAILED;
        if (coll_rdma_verbose(1) && 0 == rank) {
            coll_rdma_output("no window on communicator %s (size %d): every call falls back",
                             comm->c_name, size);
        }
    }
    free(headers);
    free(counts);
    free(displs);
    free(oks);
    free(leader_of);
    free(map_hash);
    free(blobs);
    free(blob);
    return rc;
}

/*
 * The process's start, in steps: loading UCX (two), its context, its worker,
 * the op self-test, one per call at a communicator's last warm-up calls, so
 * that no application call pays for all of it (about 5 ms of CPU at 2 ranks,
 * 0.3-1.8 ms a step) and MPI_Init pays for none.  Where the process
 * has started already (a later communicator), nothing is left to do.
 */
#define COLL_RDMA_START_STEPS (COLL_RDMA_UCX_START_STEPS + 1) /* and the self-test */

static void start_step(void)
{
    coll_rdma_ucx_lock();
    if (!coll_rdma_ucx_start_step()) {
        coll_rdma_op_selftest(); /* once per process */
    }
    coll_rdma_ucx_unlock();
}

/*
 * Whether this communicator's window is ready; if not, *why says why the call
 * falls back.  Set up at the call after the first window_setup_calls ones:
 * every rank makes the same calls in the same order, so all count alike.
 * `now` (a reduction Open MPI itself may get wrong, coll_rdma_op_suspect())
 * ends the warm-up at this call: it is the same on every rank too.
 */
bool coll_rdma_module_window_ready(mca_coll_rdma_module_t *m, struct ompi_communicator_t *comm,
                                   bool may_setup, bool now, int *why)
{
    *why = COLL_RDMA_WHY_WINDOW;
    if (OPAL_UNLIKELY(COLL_RDMA_WINDOW_NONE == m->window_state)) {
        if (!may_setup) {
            /* nonblocking and persistent calls are local: the window is
             * set up by a later blocking call */
            *why = COLL_RDMA_WHY_WARMUP;
            return false;
        }
        if (m->warmup_calls < mca_coll_rdma_component.window_setup_calls && !now) {
            ++m->warmup_calls;
            if (mca_coll_rdma_component.window_setup_calls - m->warmup_calls < COLL_RDMA_START_STEPS
                && ompi_comm_size(comm) >= mca_coll_rdma_component.config.min_comm_size) {
                start_step();
            }
            *why = COLL_RDMA_WHY_WARMUP;
            return false;
        }
        /* The previous allgather(v) may call this communicator's bcast or
         * barrier, which is ours: those nested calls must fall back. */
        m->window_state = COLL_RDMA_WINDOW_SETUP;
        (void) window_setup(m, comm);
    }
    return COLL_RDMA_WINDOW_READY == m->window_state;
}

/* ---- module life ------------------------------------------------------------- */

/* Required: the blocking ones; the nonblocking and persistent ones may be
 * missing (their calls then return OMPI_ERR_NOT_SUPPORTED when not served). */
#define X_SAVE(name)                                                                        \
    m->previous_##name = COLL_RDMA_COMM_TABLE(comm)->coll_##name;                          \
    m->previous_##name##_module = COLL_RDMA_COMM_TABLE(comm)->coll_##name##_module;        \
    if (NULL == m->previous_##name || NULL == m->previous_##name##_module) {               \
        m->previous_##name = NULL;                                                          \
        m->previous_##name##_module = NULL;                                                 \
    } else {                                                                                \
        OBJ_RETAIN(m->previous_##name##_module);                                            \
    }

/* Modules are enabled lowest priority first: the table now holds what the
 * components below us chose, which is our fallback. */
static int rdma_module_enable(mca_coll_base_module_t *module, struct ompi_communicator_t *comm)
{
    mca_coll_rdma_module_t *m = (mca_coll_rdma_module_t *) module;

    COLL_RDMA_SAVED(X_SAVE)
    if (NULL == m->previous_barrier || NULL == m->previous_bcast || NULL == m->previous_allreduce
        || NULL == m->previous_allgather || NULL == m->previous_allgatherv
        || NULL == m->previous_alltoall || NULL == m->previous_reduce) {
        return OMPI_ERROR;
    }
    return OMPI_SUCCESS;
}

static void rdma_module_construct(mca_coll_rdma_module_t *m)
{
    memset((char *) m + sizeof(m->super), 0, sizeof(*m) - sizeof(m->super));
}

static void rdma_module_destruct(mca_coll_rdma_module_t *m)
{
    /* the process-wide statistics: this communicator's stale-synchronous calls by age */
    for (int age = 0; age <= COLL_RDMA_STALENESS_MAX; ++age) {
        if (m->ssp_ages[age] > 0) {
            __atomic_fetch_add(&mca_coll_rdma_component.ssp_ages[age], m->ssp_ages[age],
                               __ATOMIC_RELAXED);
        }
    }
    coll_rdma_request_module_gone(m);
    coll_rdma_call_release(m);
    coll_rdma_window_free(m->window);
    m->window = NULL;
#define X_RELEASE(name)                                                                     \
    if (NULL != m->previous_##name##_module) {                                              \
        OBJ_RELEASE(m->previous_##name##_module);                                           \
    }
    COLL_RDMA_SAVED(X_RELEASE)
#undef X_RELEASE
}

OBJ_CLASS_INSTANCE(mca_coll_rdma_module_t, mca_coll_base_module_t, rdma_module_construct,
                   rdma_module_destruct);

mca_coll_base_module_t *mca_coll_rdma_comm_query(struct ompi_communicator_t *comm, int *priority)
{
    mca_coll_rdma_component_t *c = &mca_coll_rdma_component;
    mca_coll_rdma_module_t *m;

    if (OMPI_COMM_IS_INTER(comm) || ompi_comm_size(comm) < 2 || c->priority < 0) {
        return NULL;
    }
    m = OBJ_NEW(mca_coll_rdma_module_t);
    if (NULL == m) {
        return NULL;
    }
    m->super.coll_module_enable = rdma_module_enable;
    m->cfg_agreed = mca_coll_rdma_component.config;
    m->cfg = &m->cfg_agreed;
    coll_rdma_entry_install(m);
    *priority = c->priority;
    return &m->super;
}
