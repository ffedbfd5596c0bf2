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
 * at the next start or free (never from inside opal_progress()).
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

/* Early requests whose previous component's request runs, polled here. */
static coll_rdma_request_t *inner_head = NULL;

static int setup_progress_locked(mca_coll_rdma_module_t *m);
static int poll_inner(void);

static int progress_callback(void)
{
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
        if (OPAL_UNLIKELY(COLL_RDMA_WINDOW_SETUP
                          == __atomic_load_n(&m->window_state, __ATOMIC_ACQUIRE))) {
            (void) setup_progress_locked(m);
        }
        events += coll_rdma_module_progress(m);
    }
    if (OPAL_UNLIKELY(NULL != inner_head)) {
        events += poll_inner();
    }
    if (ompi_mpi_thread_multiple) {
        opal_mutex_unlock(&request_lock);
    }
    return events;
}

static void lock(void)
{
    if (ompi_mpi_thread_multiple) {
        opal_mutex_lock(&request_lock);
    }
}

static void unlock(void)
{
    if (ompi_mpi_thread_multiple) {
        opal_mutex_unlock(&request_lock);
    }
}

/* From the application's context only (start, free): never from inside
 * opal_progress(), whose callback array unregistering rewrites. */
static void callback_update(void)
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

static int module_watch(mca_coll_rdma_module_t *m)
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
    lock();
    /* the single-threaded list under our lock: the lock-free one needs a
     * 16-byte compare-and-swap that not every process can resolve (a
     * python3 loading Open MPI through mpi4py could not) */
    opal_free_list_return_st(&request_pool, (opal_free_list_item_t *) req);
    unlock();
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
    lock();
    for (int i = 0; i < nprogress_modules; ++i) {
        if (progress_modules[i] == m) {
            progress_modules[i] = progress_modules[--nprogress_modules];
            break;
        }
    }
    m->progress_listed = false;
    unlock();
}

/* ---- early requests ---------------------------------------------------------- */

static void activate(coll_rdma_request_t *req)
{
    req->super.super.req_state = OMPI_REQUEST_ACTIVE;
    req->super.super.req_complete = REQUEST_PENDING;
    req->super.super.req_status.MPI_ERROR = OMPI_SUCCESS;
    req->super.super.req_status._cancelled = 0;
    __atomic_fetch_add(&active_requests, 1, __ATOMIC_RELAXED);
}

static void retain_call(coll_rdma_call_t *c, bool retain)
{
    ompi_datatype_t *types[2] = {c->sdtype, c->rdtype};

    for (int i = 0; i < (c->sdtype == c->rdtype ? 1 : 2); ++i) {
        if (NULL != types[i]) {
            if (retain) {
                OBJ_RETAIN(types[i]);
            } else {
                OBJ_RELEASE(types[i]);
            }
        }
    }
    if (NULL != c->op) {
        if (retain) {
            OBJ_RETAIN(c->op);
        } else {
            OBJ_RELEASE(c->op);
        }
    }
}

/* What an early request holds beyond a request: its call's handles (until
 * decided) and the previous component's request. */
static void early_release(coll_rdma_request_t *req)
{
    if (!req->decided) {
        retain_call(&req->call, false);
        req->decided = true;
    }
    if (MPI_REQUEST_NULL != req->inner) {
        ompi_request_free(&req->inner);
        req->inner = MPI_REQUEST_NULL;
    }
    req->early = false;
}

/* Run this start by the previous component's request: started now, its
 * completion polled by the callback (inner_head, under the lock). */
static void run_inner(coll_rdma_request_t *req)
{
    int rc = req->inner->req_start(1, &req->inner);

    req->mode = COLL_RDMA_REQ_INNER;
    if (OMPI_SUCCESS != rc) {
        req->op.status = rc;
        coll_rdma_request_complete(req);
        return;
    }
    req->next = inner_head;
    inner_head = req;
}

/* Decide an early request once its module's window is ready (or failed):
 * the call's algorithm, its program, what it counts; fallback: its inner
 * request runs every start from now on. */
static void early_decide(coll_rdma_request_t *req)
{
    mca_coll_rdma_module_t *m = req->op.module;
    struct ompi_communicator_t *comm = req->super.super.req_mpi_object.comm;
    coll_rdma_call_t c = req->call;
    coll_rdma_stats_t stats;
    int why = COLL_RDMA_WHY_WINDOW, alg = COLL_RDMA_ALG_FALLBACK;

    if (COLL_RDMA_WINDOW_READY == m->window_state) {
        alg = coll_rdma_call_decide(m, comm, &c, &why);
    }
    if (COLL_RDMA_ALG_FALLBACK == alg) {
        coll_rdma_stats_fallback(req->kind, c.coll, why);
    } else {
        coll_rdma_stats_served(&stats, &c, req->kind, alg, coll_rdma_call_moved(&c, comm));
        coll_rdma_stats_apply(&stats);
        coll_rdma_op_init(&req->op, m, m->cfg, c.coll, alg);
        req->op.status = coll_rdma_call_prepare(&req->op, &c, comm);
        if (OMPI_SUCCESS != req->op.status) {
            alg = COLL_RDMA_ALG_FALLBACK; /* out of memory: its previous one still can */
            coll_rdma_op_fini(&req->op);
        }
    }
    req->op.alg = alg;
    retain_call(&req->call, false);
    req->decided = true;
}

/* Run one start of a decided early request. */
static void early_run(coll_rdma_request_t *req)
{
    if (COLL_RDMA_ALG_FALLBACK == req->op.alg) {
        run_inner(req);
        return;
    }
    req->mode = COLL_RDMA_REQ_WINDOW;
    req->op.req = req;
    coll_rdma_op_start(&req->op);
}

/* Resolve m's deferred requests, in call order (lock held). */
static void resolve_deferred(mca_coll_rdma_module_t *m)
{
    coll_rdma_request_t *req = m->deferred_head;

    m->deferred_head = m->deferred_tail = NULL;
    while (NULL != req) {
        coll_rdma_request_t *next = req->next;
        req->next = NULL;
        if (!req->decided) {
            early_decide(req);
        }
        early_run(req);
        req = next;
    }
}

static int setup_progress_locked(mca_coll_rdma_module_t *m)
{
    int state;

    if (m->setup_busy) {
        return COLL_RDMA_WINDOW_SETUP; /* re-entered from the exchange's own progress */
    }
    m->setup_busy = true;
    state = coll_rdma_module_setup_test(m);
    if (COLL_RDMA_WINDOW_SETUP != state) {
        resolve_deferred(m);
        if (m->setup_watched) {
            m->setup_watched = false;
            __atomic_fetch_sub(&active_requests, 1, __ATOMIC_RELAXED);
        }
        (void) coll_rdma_module_progress(m);
    }
    m->setup_busy = false;
    return state;
}

int coll_rdma_request_setup_progress(mca_coll_rdma_module_t *m)
{
    int state;

    lock();
    state = setup_progress_locked(m);
    unlock();
    return state;
}

void coll_rdma_request_watch_setup(mca_coll_rdma_module_t *m)
{
    lock();
    if (!m->setup_watched && COLL_RDMA_WINDOW_SETUP == m->window_state
        && OMPI_SUCCESS == module_watch(m)) {
        m->setup_watched = true;
        __atomic_fetch_add(&active_requests, 1, __ATOMIC_RELAXED);
    }
    callback_update();
    unlock();
}

/* One start of an early request (its creation, for a nonblocking one;
 * `counts`: this start is a call of the communicator, MPI_Start). */
static void early_start(coll_rdma_request_t *req, bool counts)
{
    mca_coll_rdma_module_t *m = req->op.module;
    struct ompi_communicator_t *comm = req->super.super.req_mpi_object.comm;
    int why;

    activate(req);
    if (!req->decided && counts
        && COLL_RDMA_ADMIT_SETUP == coll_rdma_module_admit(m, comm,
                                                           coll_rdma_call_suspect(&req->call),
                                                           &why)) {
        coll_rdma_request_watch_setup(m);
    }
    lock();
    if (!req->decided && COLL_RDMA_WINDOW_SETUP == m->window_state) {
        /* the set-up's end decides and starts it, after those before it */
        req->mode = COLL_RDMA_REQ_DEFERRED;
        req->next = NULL;
        if (NULL == m->deferred_tail) {
            m->deferred_head = req;
        } else {
            m->deferred_tail->next = req;
        }
        m->deferred_tail = req;
    } else if (!req->decided && COLL_RDMA_WINDOW_NONE == m->window_state) {
        run_inner(req); /* a warm-up call */
    } else {
        if (!req->decided) {
            early_decide(req);
        }
        early_run(req);
    }
    callback_update();
    unlock();
    if (COLL_RDMA_REQ_WINDOW == req->mode) {
        (void) coll_rdma_module_progress(m);
    }
}

int coll_rdma_request_early(mca_coll_rdma_module_t *m, struct ompi_communicator_t *comm,
                            const coll_rdma_call_t *c, int kind, struct ompi_info_t *info,
                            ompi_request_t **request)
{
    coll_rdma_request_t *req = coll_rdma_request_alloc(m, comm, COLL_RDMA_KIND_PERSISTENT == kind);
    int rc;

    if (NULL == req) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    req->kind = kind;
    req->early = true;
    req->call = *c;
    if (MPI_IN_PLACE == c->sbuf) {
        req->call.sdtype = NULL; /* MPI ignores it: it may be anything */
    }
    coll_rdma_op_init(&req->op, m, m->cfg, c->coll, COLL_RDMA_ALG_FALLBACK);
    req->op.status = OMPI_SUCCESS;
    rc = coll_rdma_call_hand_on_init(m, comm, c,
                                     NULL != info ? info : (struct ompi_info_t *) MPI_INFO_NULL,
                                     &req->inner);
    if (OMPI_SUCCESS != rc) {
        ompi_request_t *r = &req->super.super;
        req->inner = MPI_REQUEST_NULL;
        req->decided = true;
        req->super.super.req_complete = REQUEST_COMPLETED;
        (void) req->super.super.req_free(&r);
        return rc;
    }
    retain_call(&req->call, true);
    *request = &req->super.super;
    if (!req->persistent) {
        early_start(req, false); /* the entry counted this call */
    }
    return OMPI_SUCCESS;
}

/* Complete the early requests whose previous component's request completed
 * (lock held). */
static int poll_inner(void)
{
    coll_rdma_request_t **link = &inner_head;
    int events = 0;

    while (NULL != *link) {
        coll_rdma_request_t *req = *link;
        /* only the flag: ompi_request_test would call opal_progress */
        if (!REQUEST_COMPLETE(req->inner)) {
            link = &req->next;
            continue;
        }
        *link = req->next;
        req->next = NULL;
        req->op.status = req->inner->req_status.MPI_ERROR;
        coll_rdma_request_complete(req);
        ++events;
    }
    return events;
}

/* ---- the request object ------------------------------------------------------- */

static int request_free(ompi_request_t **ompi_req)
{
    coll_rdma_request_t *req = (coll_rdma_request_t *) *ompi_req, *none = NULL;

    if (!REQUEST_COMPLETE(&req->super.super)) {
        return MPI_ERR_REQUEST; /* an active persistent request */
    }
    OMPI_REQUEST_FINI(&req->super.super);
    *ompi_req = MPI_REQUEST_NULL;
    if (req->early) {
        early_release(req);
    }
    /* kept where its collective has none kept (another thread may be
     * freeing or reusing one: the slot changes by atomic operations only) */
    if (!req->keep || OMPI_SUCCESS != req->op.status
        || !__atomic_compare_exchange_n(&req->op.module->parked[req->op.coll], &none, req, false,
                                        __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
        request_return(req);
    }
    lock();
    callback_update();
    unlock();
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
        if (NULL == req || OMPI_REQUEST_COLL != req->super.super.req_type) {
            continue;
        }
        if (OPAL_UNLIKELY(req->early)) {
            early_start(req, true);
        } else {
            coll_rdma_request_start(req);
        }
    }
    return OMPI_SUCCESS;
}

static void request_construct(coll_rdma_request_t *req)
{
    req->super.super.req_type = OMPI_REQUEST_COLL;
    req->super.super.req_free = request_free;
    req->super.super.req_cancel = request_cancel;
    req->super.super.req_start = request_start_all;
}

OBJ_CLASS_INSTANCE(coll_rdma_request_t, ompi_coll_base_nbc_request_t, request_construct, NULL);

coll_rdma_request_t *coll_rdma_request_alloc(mca_coll_rdma_module_t *module,
                                             struct ompi_communicator_t *comm, bool persistent)
{
    coll_rdma_request_t *req;

    lock();
    if (!request_pool_ready) {
        OBJ_CONSTRUCT(&request_pool, opal_free_list_t);
        if (OPAL_SUCCESS
            != opal_free_list_init(&request_pool, sizeof(coll_rdma_request_t), opal_cache_line_size,
                                   OBJ_CLASS(coll_rdma_request_t), 0, 0, 8, -1, 8, NULL, 0, NULL,
                                   NULL, NULL)) {
            unlock();
            return NULL;
        }
        request_pool_ready = true;
    }
    if (OMPI_SUCCESS != module_watch(module)) {
        unlock();
        return NULL;
    }
    req = (coll_rdma_request_t *) opal_free_list_get_st(&request_pool);
    unlock();
    if (NULL == req) {
        return NULL;
    }
    OMPI_REQUEST_INIT(&req->super.super, persistent);
    req->super.super.req_mpi_object.comm = comm;
    /* what Open MPI's handle retention may have left in a request of the pool
     * (a persistent one's free callback, the handles): the base type's own
     * fields as its constructor leaves them (their layout differs between
     * 4.1 and 5.0) */
    req->super.super.req_free = request_free;
    memset((char *) &req->super + sizeof(ompi_request_t), 0,
           sizeof(ompi_coll_base_nbc_request_t) - sizeof(ompi_request_t));
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
    req->super.super.req_mpi_object.comm = comm;
    return req;
}

void coll_rdma_request_start(coll_rdma_request_t *req)
{
    req->super.super.req_state = OMPI_REQUEST_ACTIVE;
    req->super.super.req_complete = REQUEST_PENDING;
    req->super.super.req_status.MPI_ERROR = OMPI_SUCCESS;
    req->super.super.req_status._cancelled = 0;
    req->op.req = req;
    __atomic_fetch_add(&active_requests, 1, __ATOMIC_RELAXED);
    coll_rdma_op_start(&req->op);
    /* what can be done at once is done now: the own contribution goes out
     * before the application computes; an op that completes here needs no
     * callback at all */
    (void) coll_rdma_module_progress(req->op.module);
    lock();
    callback_update();
    unlock();
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
