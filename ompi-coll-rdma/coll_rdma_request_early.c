/*
 * coll/rdma requests, early ones: made before a communicator's window exists
 * (a nonblocking call while it is set up, a persistent request made before
 * it), they wait for the set-up or run by the previous component's request
 * made with them, and are decided once the window exists (docs/design.md,
 * "Set-up of a communicator").  The request objects and their progress are
 * coll_rdma_request.c.
 */
#include "ompi_config.h"

#include "coll_rdma_request.h"
#include "coll_rdma_stats.h"

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
        coll_rdma_stats_fallback_request(false);
    }
    req->early = false;
}

static int early_tick(mca_coll_rdma_module_t *m);

/* Run this start by the previous component's request: started now, its
 * completion polled by the callback (m->inner_head, under the lock). */
static void run_inner(coll_rdma_request_t *req)
{
    mca_coll_rdma_module_t *m = req->module;
    int rc = req->inner->req_start(1, &req->inner);

    req->mode = COLL_RDMA_REQ_INNER;
    if (OMPI_SUCCESS != rc) {
        req->op.status = rc;
        coll_rdma_request_complete(req);
        return;
    }
    req->next = m->inner_head;
    m->inner_head = req;
    m->tick = early_tick;
}

/* Decide an early request once its module's window is ready (or failed):
 * the call's algorithm, its program, what it counts; fallback: its inner
 * request runs every start from now on. */
static void early_decide(coll_rdma_request_t *req)
{
    mca_coll_rdma_module_t *m = req->module;
    struct ompi_communicator_t *comm = req->super.super.req_mpi_object.comm;
    coll_rdma_call_t c = req->call;
    coll_rdma_stats_t stats;
    int why = COLL_RDMA_WHY_WINDOW, alg = COLL_RDMA_ALG_FALLBACK;

    if (NULL != m->window) { /* ready, or being published (setup_progress_locked) */
        alg = coll_rdma_call_decide(m, comm, &c, &why);
    }
    if (COLL_RDMA_ALG_FALLBACK == alg) {
        coll_rdma_stats_fallback(req->kind, c.coll, why);
    } else {
        coll_rdma_stats_served(&stats, req->kind, c.coll, alg, coll_rdma_call_moved(&c, comm),
                               c.rescued, m->cfg->alg[c.coll]);
        coll_rdma_stats_apply(&stats);
        coll_rdma_op_init(&req->op, &m->queue, m->window, m->cfg, c.coll, alg);
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
    req->op.done_cb = coll_rdma_request_op_done;
    req->op.owner = req;
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

/*
 * Advance m's set-up (lock held).  Once it ended: start the requests that
 * waited for it, in call order, and only then publish the window's state,
 * so that no call reading it (another thread's blocking call) starts before
 * them.  Returns the window state; *ended: it ended in this call (the
 * caller drops the set-up's reference on the communicator, m->setup_comm).
 */
static int setup_progress_locked(mca_coll_rdma_module_t *m, bool *ended)
{
    int state;

    *ended = false;
    if (m->setup_busy) {
        return COLL_RDMA_WINDOW_SETUP; /* re-entered from the exchange's own progress */
    }
    m->setup_busy = true;
    state = coll_rdma_module_setup_test(m);
    if (COLL_RDMA_WINDOW_SETUP == m->window_state && COLL_RDMA_WINDOW_SETUP != state) {
        resolve_deferred(m);
        coll_rdma_module_publish(m, state);
        if (m->setup_watched) {
            m->setup_watched = false;
            coll_rdma_request_active(-1);
        }
        *ended = true;
        (void) coll_rdma_queue_progress(&m->queue);
    }
    m->setup_busy = false;
    return state;
}

int coll_rdma_request_setup_progress(mca_coll_rdma_module_t *m)
{
    bool ended;
    int state;

    coll_rdma_request_lock();
    state = setup_progress_locked(m, &ended);
    coll_rdma_request_unlock();
    if (ended) {
        /* the application's call on m's communicator holds it too */
        coll_rdma_request_setup_release(m);
    }
    return state;
}

void coll_rdma_request_watch_setup(mca_coll_rdma_module_t *m)
{
    coll_rdma_request_lock();
    if (!m->setup_watched && COLL_RDMA_WINDOW_SETUP == m->window_state
        && OMPI_SUCCESS == coll_rdma_request_watch_module(m)) {
        m->setup_watched = true;
        m->tick = early_tick;
        coll_rdma_request_active(1);
    }
    coll_rdma_request_callback_update();
    coll_rdma_request_unlock();
}

/* One start of an early request (its creation, for a nonblocking one;
 * `counts`: this start is a call of the communicator, MPI_Start). */
static void early_start(coll_rdma_request_t *req, bool counts)
{
    mca_coll_rdma_module_t *m = req->module;
    struct ompi_communicator_t *comm = req->super.super.req_mpi_object.comm;
    int why;

    coll_rdma_request_activate(req);
    if (!req->decided && counts
        && COLL_RDMA_ADMIT_SETUP == coll_rdma_module_admit(m, comm,
                                                           coll_rdma_call_suspect(&req->call),
                                                           &why)) {
        coll_rdma_request_watch_setup(m);
    }
    coll_rdma_request_lock();
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
    coll_rdma_request_callback_update();
    coll_rdma_request_unlock();
    if (COLL_RDMA_REQ_WINDOW == req->mode) {
        (void) coll_rdma_queue_progress(&m->queue);
    }
}

/* MPI_Request_free / the end of MPI_Wait of an early request. */
static int early_free(ompi_request_t **ompi_req)
{
    coll_rdma_request_t *req = (coll_rdma_request_t *) *ompi_req;

    if (!REQUEST_COMPLETE(&req->super.super)) {
        return MPI_ERR_REQUEST; /* an active persistent request */
    }
    early_release(req);
    return coll_rdma_request_free(ompi_req);
}

/* MPI_Start / MPI_Startall of early (persistent) requests: each start counts. */
static int early_start_all(size_t count, ompi_request_t **requests)
{
    for (size_t i = 0; i < count; ++i) {
        early_start((coll_rdma_request_t *) requests[i], true);
    }
    return OMPI_SUCCESS;
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
    coll_rdma_op_init(&req->op, &m->queue, m->window, m->cfg, c->coll, COLL_RDMA_ALG_FALLBACK);
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
    coll_rdma_stats_fallback_request(true);
    retain_call(&req->call, true);
    req->super.super.req_free = early_free;
    req->super.super.req_start = early_start_all;
    *request = &req->super.super;
    if (!req->persistent) {
        early_start(req, false); /* the entry counted this call */
    }
    return OMPI_SUCCESS;
}

/* Complete m's early requests whose previous component's request completed
 * (lock held). */
static int poll_inner(mca_coll_rdma_module_t *m)
{
    coll_rdma_request_t **link = &m->inner_head;
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

/*
 * The progress callback's turn at m (lock held): its set-up under way, its
 * early requests run by the previous component; the hook goes once neither
 * is left.
 */
static int early_tick(mca_coll_rdma_module_t *m)
{
    int events = 0;
    bool ended;

    if (COLL_RDMA_WINDOW_SETUP == __atomic_load_n(&m->window_state, __ATOMIC_ACQUIRE)) {
        (void) setup_progress_locked(m, &ended);
        if (ended) {
            coll_rdma_request_setup_ended(m); /* released after the callback's pass */
        }
    }
    if (NULL != m->inner_head) {
        events += poll_inner(m);
    }
    if (COLL_RDMA_WINDOW_SETUP != m->window_state && NULL == m->inner_head) {
        m->tick = NULL;
    }
    return events;
}
