/*
 * coll/rdma module: one per communicator.  Saves the previous component's
 * functions (the fallback of every call), counts the calls before the
 * window and starts its set-up (coll_rdma_setup.c), and holds what the
 * layers above keep per communicator.
 */
#include "ompi_config.h"

#include "coll_rdma_module.h"
#include "coll_rdma_op.h"
#include "coll_rdma_records.h"
#include "coll_rdma_setup.h"
#include "coll_rdma_stats.h"
#include "coll_rdma_ucx.h"
#include "coll_rdma_window.h"

#include <stdlib.h>
#include <string.h>

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/base.h"
#include "ompi/runtime/mpiruntime.h"

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

static coll_rdma_setup_args_t setup_args(mca_coll_rdma_module_t *m, struct ompi_communicator_t *comm)
{
    coll_rdma_setup_args_t a = {.comm = comm, .cfg = &m->cfg_agreed,
                                .fallback_wrong = m->fallback_wrong,
                                .window_max_bytes = m->params.window_max_bytes,
                                .window_budget_bytes = m->params.window_budget_bytes,
                                .window_pool = m->params.window_pool,
                                .poll_spins = m->params.poll_spins,
                                .lazy_connect = m->params.lazy_connect,
                                .address_inline = m->params.address_inline};
    return a;
}

/* The communicator's last warm-up call: this rank's part of the set-up. */
static void setup_prepare(mca_coll_rdma_module_t *m, struct ompi_communicator_t *comm)
{
    coll_rdma_setup_args_t a = setup_args(m, comm);

    if (NULL == m->setup) {
        m->setup = coll_rdma_setup_prepare(&a);
    }
}

/*
 * The set-up call: begin the exchanges.  The module holds a reference on
 * the communicator until the set-up ended, so that neither can go while its
 * exchanges are in flight (MPI_Comm_free with a set-up under way); the
 * request layer drops it where no frame of coll/rdma is below
 * (coll_rdma_request_early.c).  From this call to the first blocking one
 * after it, calls keep the previous component's tags in step on every rank
 * (tag_span: docs/design.md, "Tags").
 */
static void setup_start(mca_coll_rdma_module_t *m, struct ompi_communicator_t *comm)
{
    coll_rdma_setup_args_t a = setup_args(m, comm);

    m->tag_span = true;
    if (NULL == m->setup) {
        m->setup = coll_rdma_setup_prepare(&a);
    }
    if (NULL == m->setup) {
        /* out of memory: say "no window" in the exchange all ranks begin here */
        (void) coll_rdma_records_refuse(comm, &m->cfg_agreed);
        m->window_state = COLL_RDMA_WINDOW_FAILED;
        return;
    }
    if (OMPI_SUCCESS != coll_rdma_setup_begin(m->setup)) {
        /* the PML refused to post: nothing sane is left (the peers wait) */
        coll_rdma_setup_free(m->setup);
        m->setup = NULL;
        m->window_state = COLL_RDMA_WINDOW_FAILED;
        return;
    }
    OBJ_RETAIN(comm);
    m->setup_comm = comm;
    m->window_state = COLL_RDMA_WINDOW_SETUP;
}

/*
 * Every collective call of a communicator without a window counts, whatever
 * its kind (blocking, MPI_I*, MPI_*_init, MPI_Start of a persistent request
 * made before the window): all ranks make a communicator's collective calls
 * in the same order, so all count alike and start the set-up at the same
 * call, the one after the first window_setup_calls; `now` (a reduction Open
 * MPI itself may get wrong, coll_rdma_op_suspect(): the same on every rank)
 * starts it at once.  The last warm-up calls each take one step of the
 * process's start.  No call waits here: the set-up's exchanges are
 * nonblocking (coll_rdma_setup.h).
 */
int coll_rdma_module_admit(mca_coll_rdma_module_t *m, struct ompi_communicator_t *comm, bool now,
                           int *why)
{
    int setup_calls = m->params.window_setup_calls;

    *why = COLL_RDMA_WHY_WINDOW;
    switch (m->window_state) {
    case COLL_RDMA_WINDOW_READY:
        return COLL_RDMA_ADMIT_READY;
    case COLL_RDMA_WINDOW_SETUP:
        return COLL_RDMA_ADMIT_SETUP;
    case COLL_RDMA_WINDOW_FAILED:
        return COLL_RDMA_ADMIT_FALLBACK;
    default:
        break;
    }
    if (m->calls < (uint64_t) setup_calls && !now) {
        ++m->calls;
        if ((uint64_t) setup_calls - m->calls < COLL_RDMA_START_STEPS
            && ompi_comm_size(comm) >= m->cfg_agreed.min_comm_size) {
            start_step();
        }
        if (m->calls == (uint64_t) setup_calls) {
            /* the window now, the exchanges at the next call */
            setup_prepare(m, comm);
        }
        *why = COLL_RDMA_WHY_WARMUP;
        return COLL_RDMA_ADMIT_FALLBACK;
    }
    ++m->calls;
    setup_start(m, comm);
    return COLL_RDMA_WINDOW_SETUP == m->window_state ? COLL_RDMA_ADMIT_SETUP
                                                     : COLL_RDMA_ADMIT_FALLBACK;
}

int coll_rdma_module_setup_test(mca_coll_rdma_module_t *m)
{
    coll_rdma_window_t *win = NULL;
    int rc;

    if (COLL_RDMA_WINDOW_SETUP != m->window_state || NULL == m->setup) {
        return m->window_state;
    }
    rc = coll_rdma_setup_test(m->setup, &win);
    if (OMPI_ERR_WOULD_BLOCK == rc) {
        return COLL_RDMA_WINDOW_SETUP;
    }
    coll_rdma_setup_free(m->setup);
    m->setup = NULL;
    if (NULL != win) {
        m->window = win;
        /* the instance before the first: what every window word holds */
        for (int c = 0; c < COLL_RDMA_NCOLLS; ++c) {
            m->queue.seq[c] = m->cfg_agreed.debug_seq_start - 1;
        }
        m->queue.ssp_clock = m->cfg_agreed.debug_seq_start - 1;
    }
    return NULL != win ? COLL_RDMA_WINDOW_READY : COLL_RDMA_WINDOW_FAILED;
}

void coll_rdma_module_publish(mca_coll_rdma_module_t *m, int state)
{
    __atomic_store_n(&m->steady, COLL_RDMA_WINDOW_READY == state && !m->tag_span,
                     __ATOMIC_RELAXED);
    __atomic_store_n(&m->window_state, state, __ATOMIC_RELEASE);
}

void coll_rdma_module_end_span(mca_coll_rdma_module_t *m)
{
    m->tag_span = false;
    __atomic_store_n(&m->steady, COLL_RDMA_WINDOW_READY == m->window_state, __ATOMIC_RELEASE);
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
 * components below us chose, which is our fallback.  Where the coll API
 * wants it (3.0.0), the module then puts its own functions in the table. */
static int rdma_module_enable(mca_coll_base_module_t *module, struct ompi_communicator_t *comm)
{
    mca_coll_rdma_module_t *m = (mca_coll_rdma_module_t *) module;

    COLL_RDMA_SAVED(X_SAVE)
    if (NULL == m->previous_barrier || NULL == m->previous_bcast || NULL == m->previous_allreduce
        || NULL == m->previous_allgather
        || NULL == m->previous_alltoall || NULL == m->previous_reduce) {
        return OMPI_ERROR;
    }
#define X_INSTALL(name) COLL_RDMA_INSTALL(comm, name, m->super.coll_##name, module);
    COLL_RDMA_SAVED(X_INSTALL)
#undef X_INSTALL
    return OMPI_SUCCESS;
}

#if COLL_RDMA_MODULE_INSTALLS
/* The communicator goes (coll API 3.0.0: modules disabled highest priority
 * first): the previous functions back where the table still holds ours. */
static int rdma_module_disable(mca_coll_base_module_t *module, struct ompi_communicator_t *comm)
{
    mca_coll_rdma_module_t *m = (mca_coll_rdma_module_t *) module;

#    define X_UNINSTALL(name)                                                                  \
        if (NULL != m->previous_##name) {                                                     \
            COLL_RDMA_UNINSTALL(comm, name, module, m->previous_##name,                       \
                                m->previous_##name##_module);                                 \
        }
    COLL_RDMA_SAVED(X_UNINSTALL)
#    undef X_UNINSTALL
    return OMPI_SUCCESS;
}
#endif

/* The process's live modules: communicators are made and freed by any thread. */
static mca_coll_rdma_module_t *live_head = NULL;
static opal_mutex_t live_lock = OPAL_MUTEX_STATIC_INIT;

static void rdma_module_construct(mca_coll_rdma_module_t *m)
{
    memset((char *) m + sizeof(m->super), 0, sizeof(*m) - sizeof(m->super));
    coll_rdma_stats_module(true);
    opal_mutex_lock(&live_lock);
    m->live_next = live_head;
    if (NULL != live_head) {
        live_head->live_prev = m;
    }
    live_head = m;
    opal_mutex_unlock(&live_lock);
}

void coll_rdma_module_fini_all(void)
{
    opal_mutex_lock(&live_lock);
    for (mca_coll_rdma_module_t *m = live_head; NULL != m; m = m->live_next) {
        coll_rdma_setup_abandon(m->setup);
        m->setup = NULL;
        coll_rdma_window_free(m->window);
        m->window = NULL;
        m->window_state = COLL_RDMA_WINDOW_FAILED;
    }
    opal_mutex_unlock(&live_lock);
}

static void rdma_module_destruct(mca_coll_rdma_module_t *m)
{
    opal_mutex_lock(&live_lock);
    if (NULL != m->live_prev) {
        m->live_prev->live_next = m->live_next;
    } else {
        live_head = m->live_next;
    }
    if (NULL != m->live_next) {
        m->live_next->live_prev = m->live_prev;
    }
    opal_mutex_unlock(&live_lock);
    coll_rdma_stats_module(false);
    /* the process-wide statistics: this communicator's stale-synchronous calls by age */
    coll_rdma_stats_ssp_ages(m->queue.ssp_ages);
    coll_rdma_setup_free(m->setup); /* prepared at the last warm-up call, never begun */
    m->setup = NULL;
    if (NULL != m->teardown) {
        m->teardown(m); /* what the layers above keep of it */
    }
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

mca_coll_rdma_module_t *coll_rdma_module_new(const coll_rdma_config_t *cfg,
                                             const coll_rdma_module_params_t *params)
{
    mca_coll_rdma_module_t *m = OBJ_NEW(mca_coll_rdma_module_t);

    if (NULL == m) {
        return NULL;
    }
    m->super.coll_module_enable = rdma_module_enable;
#if COLL_RDMA_MODULE_INSTALLS
    m->super.coll_module_disable = rdma_module_disable;
#endif
    m->params = *params;
    m->cfg_agreed = *cfg;
    m->cfg = &m->cfg_agreed;
    return m;
}
