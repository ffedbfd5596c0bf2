/*
 * coll/rdma requests: nonblocking (MPI_I*) and persistent (MPI_*_init,
 * MPI_Start) collectives as Open MPI requests over operations
 * (coll_rdma_exec.h).  A request embeds its operation; a persistent one
 * keeps its program from init to free and replays it at every start; a
 * nonblocking one is kept with its program once freed, for the next call of
 * its collective with the same arguments (coll_rdma_request_keep).
 *
 * Early requests, made before a communicator's window exists (a
 * nonblocking call while it is set up, a persistent request made before
 * it), wait for the set-up or run by the previous component's request made
 * with them, and are decided once the window exists (docs/design.md,
 * "Set-up of a communicator").
 *
 * Progress: MPI_Test and MPI_Wait call opal_progress(), where a callback
 * advances the modules' set-ups, runs the queues of the modules with
 * operations under way and completes the requests whose previous
 * component's request completed.  The callback is registered while
 * requests are active or a set-up runs and, once neither is, unregistered
 * at the next start or free (from the application's calls: inside
 * opal_progress only where Open MPI itself frees or starts a request of
 * ours from a progress callback, or under MPI_THREAD_MULTIPLE from another
 * thread, where Open MPI's callback array may skip a callback once, which
 * costs nothing).
 *
 * Lifetime (MPI-4.0 section 7.4.3: pending operations on a freed
 * communicator complete normally): every request holds a reference on its
 * communicator from its allocation (or reuse) to its MPI_Request_free or the
 * end of its MPI_Wait, as Open MPI's own requests do, and the module holds
 * one while its set-up runs; so neither the communicator nor the module
 * (its window, queue and lists) can go while something of coll/rdma is
 * pending on it.  A set-up that ends inside the progress callback drops its
 * reference after the callback's loop, where no frame of coll/rdma is below
 * (dropping the last one destroys the module).
 */
#include "ompi_config.h"

#include "coll_rdma_exec.h"
#include "coll_rdma_request.h"
#include "coll_rdma_stats.h"

#include <string.h>

#include "opal/class/opal_free_list.h"
#include "opal/runtime/opal_progress.h"
#include "ompi/runtime/mpiruntime.h"

static opal_free_list_t request_pool;
static bool request_pool_ready = false;
static opal_mutex_t request_lock = OPAL_MUTEX_STATIC_INIT;

/* Modules that have run a request (progressed by the callback), and how
 * many requests are active. */
static mca_coll_rdma_module_t **progress_modules = NULL;
static int nprogress_modules = 0, progress_modules_size = 0;
static int active_requests = 0;
static bool callback_registered = false;
/* modules whose set-up ended in this pass of the callback: their references
 * on their communicators are dropped once the pass is over (lock held) */
static mca_coll_rdma_module_t *setups_ended = NULL;


static int progress_callback(void)
{
    mca_coll_rdma_module_t *ended;
    int events = 0;

    if (0 == __atomic_load_n(&active_requests, __ATOMIC_RELAXED)) {
        return 0;
    }
    if (ompi_mpi_thread_multiple) {
        /* a module being freed leaves the list under this lock */
        if (0 != opal_mutex_trylock(&request_lock)) {
            return 0;
        }
    }
    for (int i = 0; i < nprogress_modules; ++i) {
        mca_coll_rdma_module_t *m = progress_modules[i];
        /* the early requests' work (coll_rdma_request_early.c): a set-up
         * under way, requests run by the previous component */
        if (OPAL_UNLIKELY(NULL != m->tick)) {
            events += m->tick(m);
        }
        events += coll_rdma_queue_progress(&m->queue);
    }
    ended = setups_ended;
    setups_ended = NULL;
    if (ompi_mpi_thread_multiple) {
        opal_mutex_unlock(&request_lock);
    }
    while (OPAL_UNLIKELY(NULL != ended)) {
        mca_coll_rdma_module_t *m = ended;
        ended = m->setup_ended_next;
        coll_rdma_request_setup_release(m);
    }
    return events;
}

void coll_rdma_request_setup_ended(mca_coll_rdma_module_t *m)
{
    m->setup_ended_next = setups_ended;
    setups_ended = m;
}

void coll_rdma_request_setup_release(mca_coll_rdma_module_t *m)
{
    struct ompi_communicator_t *comm = m->setup_comm;

    if (NULL != comm) {
        m->setup_comm = NULL;
        OBJ_RELEASE(comm); /* may destroy m */
    }
}

void coll_rdma_request_lock(void)
{
    if (ompi_mpi_thread_multiple) {
        opal_mutex_lock(&request_lock);
    }
}

void coll_rdma_request_unlock(void)
{
    if (ompi_mpi_thread_multiple) {
        opal_mutex_unlock(&request_lock);
    }
}

/* From the application's calls (start, free); where Open MPI makes one
 * from inside opal_progress or from another thread, its callback array may
 * skip a callback once (opal_progress_register/unregister), which costs a
 * pass and nothing else. */
void coll_rdma_request_callback_update(void)
{
    bool want = __atomic_load_n(&active_requests, __ATOMIC_RELAXED) > 0;

    if (want != callback_registered) {
        if (want) {
            opal_progress_register(progress_callback);
        } else {
            opal_progress_unregister(progress_callback);
        }
        callback_registered = want;
    }
}

int coll_rdma_request_watch_module(mca_coll_rdma_module_t *m)
{
    if (m->progress_listed) {
        return OMPI_SUCCESS;
    }
    if (nprogress_modules == progress_modules_size) {
        int size = progress_modules_size > 0 ? 2 * progress_modules_size : 8;
        void *p = realloc(progress_modules, (size_t) size * sizeof(*progress_modules));
        if (NULL == p) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        progress_modules = p;
        progress_modules_size = size;
    }
    progress_modules[nprogress_modules++] = m;
    m->progress_listed = true;
    return OMPI_SUCCESS;
}

/* Back to the pool, with its program freed. */
static void request_return(coll_rdma_request_t *req)
{
    coll_rdma_op_fini(&req->op);
    coll_rdma_request_lock();
    /* the single-threaded list under our lock: the lock-free one needs a
     * 16-byte compare-and-swap that not every process can resolve (a
     * python3 loading Open MPI through mpi4py could not) */
    opal_free_list_return_st(&request_pool, (opal_free_list_item_t *) req);
    coll_rdma_request_unlock();
}

void coll_rdma_request_module_gone(mca_coll_rdma_module_t *m)
{
    for (int coll = 0; coll < COLL_RDMA_NCOLLS; ++coll) {
        if (NULL != m->parked[coll]) {
            request_return(m->parked[coll]);
            m->parked[coll] = NULL;
        }
    }
    if (!m->progress_listed) {
        return;
    }
    coll_rdma_request_lock();
    for (int i = 0; i < nprogress_modules; ++i) {
        if (progress_modules[i] == m) {
            progress_modules[i] = progress_modules[--nprogress_modules];
            break;
        }
    }
    m->progress_listed = false;
    coll_rdma_request_unlock();
}

void coll_rdma_request_active(int n)
{
    __atomic_fetch_add(&active_requests, n, __ATOMIC_RELAXED);
}

void coll_rdma_request_activate(coll_rdma_request_t *req)
{
    req->super.super.req_state = OMPI_REQUEST_ACTIVE;
    req->super.super.req_complete = REQUEST_PENDING;
    req->super.super.req_status.MPI_ERROR = OMPI_SUCCESS;
    req->super.super.req_status._cancelled = 0;
    __atomic_fetch_add(&active_requests, 1, __ATOMIC_RELAXED);
}

/* The executor ended a request's operation. */
void coll_rdma_request_op_done(coll_rdma_op_t *op)
{
    coll_rdma_request_complete((coll_rdma_request_t *) op->owner);
}

/* ---- the request object ------------------------------------------------------- */

int coll_rdma_request_free(ompi_request_t **ompi_req)
{
    coll_rdma_request_t *req = (coll_rdma_request_t *) *ompi_req, *none = NULL;
    struct ompi_communicator_t *comm = req->super.super.req_mpi_object.comm;

    if (!REQUEST_COMPLETE(&req->super.super)) {
        return MPI_ERR_REQUEST; /* an active persistent request */
    }
    OMPI_REQUEST_FINI(&req->super.super);
    *ompi_req = MPI_REQUEST_NULL;
    /* kept where its collective has none kept (another thread may be
     * freeing or reusing one: the slot changes by atomic operations only) */
    if (!req->keep || OMPI_SUCCESS != req->op.status
        || !__atomic_compare_exchange_n(&req->module->parked[req->op.coll], &none, req, false,
                                        __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
        request_return(req);
    }
    coll_rdma_request_lock();
    coll_rdma_request_callback_update();
    coll_rdma_request_unlock();
    OBJ_RELEASE(comm); /* last: may destroy the communicator and the module */
    return OMPI_SUCCESS;
}

static int request_cancel(ompi_request_t *request, int complete)
{
    (void) request;
    (void) complete;
    return MPI_ERR_REQUEST; /* collectives cannot be cancelled */
}

static int request_start_all(size_t count, ompi_request_t **requests)
{
    for (size_t i = 0; i < count; ++i) {
        coll_rdma_request_t *req = (coll_rdma_request_t *) requests[i];
        if (NULL != req && OMPI_REQUEST_COLL == req->super.super.req_type) {
            coll_rdma_request_start(req);
        }
    }
    return OMPI_SUCCESS;
}

static void request_construct(coll_rdma_request_t *req)
{
    req->super.super.req_type = OMPI_REQUEST_COLL;
    req->super.super.req_free = coll_rdma_request_free;
    req->super.super.req_cancel = request_cancel;
    req->super.super.req_start = request_start_all;
}

OBJ_CLASS_INSTANCE(coll_rdma_request_t, ompi_coll_base_nbc_request_t, request_construct, NULL);

coll_rdma_request_t *coll_rdma_request_alloc(mca_coll_rdma_module_t *module,
                                             struct ompi_communicator_t *comm, bool persistent)
{
    coll_rdma_request_t *req;

    coll_rdma_request_lock();
    if (!request_pool_ready) {
        OBJ_CONSTRUCT(&request_pool, opal_free_list_t);
        if (OPAL_SUCCESS
            != opal_free_list_init(&request_pool, sizeof(coll_rdma_request_t), opal_cache_line_size,
                                   OBJ_CLASS(coll_rdma_request_t), 0, 0, 8, -1, 8, NULL, 0, NULL,
                                   NULL, NULL)) {
            coll_rdma_request_unlock();
            return NULL;
        }
        request_pool_ready = true;
    }
    if (OMPI_SUCCESS != coll_rdma_request_watch_module(module)) {
        coll_rdma_request_unlock();
        return NULL;
    }
    req = (coll_rdma_request_t *) opal_free_list_get_st(&request_pool);
    coll_rdma_request_unlock();
    if (NULL == req) {
        return NULL;
    }
    OMPI_REQUEST_INIT(&req->super.super, persistent);
    OBJ_RETAIN(comm); /* released by coll_rdma_request_free */
    req->super.super.req_mpi_object.comm = comm;
    /* what Open MPI's handle retention may have left in a request of the pool
     * (a persistent one's free callback, the handles): the base type's own
     * fields as its constructor leaves them (their layout differs between
     * 4.1 and 5.0) */
    req->super.super.req_free = coll_rdma_request_free;
    req->super.super.req_start = request_start_all; /* an early one had its own */
    memset((char *) &req->super + sizeof(ompi_request_t), 0,
           sizeof(ompi_coll_base_nbc_request_t) - sizeof(ompi_request_t));
    req->module = module;
    req->persistent = persistent;
    req->keep = false;
    req->early = false;
    req->decided = false;
    req->mode = COLL_RDMA_REQ_WINDOW;
    req->inner = MPI_REQUEST_NULL;
    req->next = NULL;
    return req;
}

void coll_rdma_request_keep(coll_rdma_request_t *req, const coll_rdma_call_t *c,
                            const coll_rdma_stats_t *stats)
{
    req->keep = !req->persistent && NULL == req->op.tmp
                && (NULL == c->sdtype || ompi_datatype_is_predefined(c->sdtype))
                && (NULL == c->rdtype || ompi_datatype_is_predefined(c->rdtype))
                && (NULL == c->op || ompi_op_is_intrinsic(c->op));
    if (req->keep) {
        coll_rdma_call_key(&req->key, c);
        req->stats = *stats;
    }
}

coll_rdma_request_t *coll_rdma_request_reuse(mca_coll_rdma_module_t *m, coll_rdma_call_t *c,
                                             struct ompi_communicator_t *comm)
{
    coll_rdma_request_t *req = __atomic_exchange_n(&m->parked[c->coll], NULL, __ATOMIC_ACQ_REL);

    if (NULL == req) {
        return NULL;
    }
    if (!coll_rdma_call_matches(&req->key, c)
        || OMPI_SUCCESS != coll_rdma_call_bind(&req->op, c, comm)) {
        request_return(req);
        return NULL;
    }
    OMPI_REQUEST_INIT(&req->super.super, false);
    OBJ_RETAIN(comm); /* released by coll_rdma_request_free */
    req->super.super.req_mpi_object.comm = comm;
    return req;
}

void coll_rdma_request_start(coll_rdma_request_t *req)
{
    req->super.super.req_state = OMPI_REQUEST_ACTIVE;
    req->super.super.req_complete = REQUEST_PENDING;
    req->super.super.req_status.MPI_ERROR = OMPI_SUCCESS;
    req->super.super.req_status._cancelled = 0;
    req->op.done_cb = coll_rdma_request_op_done;
    req->op.owner = req;
    __atomic_fetch_add(&active_requests, 1, __ATOMIC_RELAXED);
    coll_rdma_op_start(&req->op);
    /* what can be done at once is done now: the own contribution goes out
     * before the application computes; an op that completes here needs no
     * callback at all */
    (void) coll_rdma_queue_progress(req->op.queue);
    coll_rdma_request_lock();
    coll_rdma_request_callback_update();
    coll_rdma_request_unlock();
}

void coll_rdma_request_complete(coll_rdma_request_t *req)
{
    req->super.super.req_status.MPI_ERROR = req->op.status;
    if (!req->persistent && !req->keep) {
        coll_rdma_op_fini(&req->op); /* a heap program is not needed any more */
    }
    __atomic_fetch_sub(&active_requests, 1, __ATOMIC_RELAXED);
    ompi_request_complete(&req->super.super, true);
}

void coll_rdma_request_fini(void)
{
    if (callback_registered) {
        opal_progress_unregister(progress_callback);
        callback_registered = false;
    }
    if (request_pool_ready) {
        OBJ_DESTRUCT(&request_pool);
        request_pool_ready = false;
    }
    free(progress_modules);
    progress_modules = NULL;
    nprogress_modules = progress_modules_size = 0;
}
