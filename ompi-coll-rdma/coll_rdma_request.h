/*
 * coll/rdma requests: nonblocking and persistent collectives over
 * operations (coll_rdma_exec.h); coll_rdma_request.c says how they progress.
 */
#ifndef COLL_RDMA_REQUEST_H
#define COLL_RDMA_REQUEST_H

#include "coll_rdma_call.h"

#include "ompi/mca/coll/base/coll_base_util.h"

/*
 * The base is Open MPI's ompi_coll_base_nbc_request_t, not a bare
 * ompi_request_t: after a component returns a nonblocking or persistent
 * request, MPI_Ibcast, MPI_Bcast_init and the others of Open MPI 4.1 and
 * 5.0 call ompi_coll_base_retain_datatypes / _retain_op on it, which write
 * the handles and a completion or free callback into that type's fields
 * (for a datatype or op that is not predefined).
 */
/* Where a request's collective runs. */
enum coll_rdma_request_mode {
    COLL_RDMA_REQ_WINDOW = 0, /* its operation, on the window (the executor's queue) */
    COLL_RDMA_REQ_DEFERRED,   /* waits for the window's set-up, in the module's list */
    COLL_RDMA_REQ_INNER       /* the previous component's request `inner` runs it */
};

typedef struct coll_rdma_request {
    ompi_coll_base_nbc_request_t super;
    mca_coll_rdma_module_t *module;
    coll_rdma_op_t op;
    bool persistent;
    /* nonblocking: kept with its program once freed (coll_rdma_request_keep) */
    bool keep;
    coll_rdma_call_t key;    /* the call it was made for, without buffers */
    coll_rdma_stats_t stats; /* what each of its calls counts */
    /* Made before the window existed ("early": a nonblocking call while the
     * set-up runs, a persistent request made before the window): decided
     * once the window exists, by the set-up's end or at a start after it */
    bool early;
    bool decided;            /* early: decided (op.alg; COLL_RDMA_ALG_FALLBACK: inner) */
    int mode;                /* enum coll_rdma_request_mode of the current start */
    int kind;                /* COLL_RDMA_KIND_NONBLOCKING or _PERSISTENT */
    coll_rdma_call_t call;   /* early, until decided: the call with its buffers; its
                              * datatypes and op retained */
    ompi_request_t *inner;   /* early: the previous component's persistent request for the
                              * call, made with it (its tag taken in call order) */
    struct coll_rdma_request *next; /* the module's deferred list, or the inner list */
} coll_rdma_request_t;

OBJ_CLASS_DECLARATION(coll_rdma_request_t);

/**
 * A request of `module` on `comm` from the pool, inactive, holding a
 * reference on `comm` until it is freed (MPI_Request_free, or the end of
 * MPI_Wait / a successful MPI_Test): the communicator and its module stay
 * while it is pending, whatever MPI_Comm_free does meanwhile.  The caller
 * prepares req->op (coll_rdma_op_init, arguments, plan).  NULL when out of
 * memory.
 */
coll_rdma_request_t *coll_rdma_request_alloc(mca_coll_rdma_module_t *module,
                                             struct ompi_communicator_t *comm, bool persistent);

/**
 * Let nonblocking request `req`, prepared for call `c` whose calls count
 * `stats`, be kept with its program once MPI frees it, for the next call of
 * its collective on its module with the same arguments but for the buffers
 * (coll_rdma_request_reuse): MPI_I* in a loop then costs what MPI_Start of
 * a persistent request costs, no decision and no plan.  Only where the
 * call's handles cannot be freed (predefined datatypes, intrinsic op) and
 * nothing is packed.
 */
void coll_rdma_request_keep(coll_rdma_request_t *req, const coll_rdma_call_t *c,
                            const coll_rdma_stats_t *stats);

/**
 * The request of `m` kept for c->coll if call `c` matches it, inactive,
 * with c's buffers bound and c->elem, c->nelem, c->rescued filled in; the
 * caller starts it.  NULL otherwise (a kept request that does not match is
 * dropped).
 */
coll_rdma_request_t *coll_rdma_request_reuse(mca_coll_rdma_module_t *m, coll_rdma_call_t *c,
                                             struct ompi_communicator_t *comm);

/** Activate the request and start its operation (MPI_I* return, MPI_Start). */
void coll_rdma_request_start(coll_rdma_request_t *req);

/**
 * Call `c` of `kind` (COLL_RDMA_KIND_NONBLOCKING: while m's window is set
 * up; COLL_RDMA_KIND_PERSISTENT: before the window exists) as an early
 * request in *request: its fallback made now as a persistent request of the
 * previous component (with `info`; coll_rdma_call_hand_on_init), its
 * decision taken once the window exists.  A nonblocking one is started:
 * deferred until the set-up ends, then run on the window or by its
 * fallback, in call order; a persistent one is inactive, and each MPI_Start
 * counts as a call of the communicator (coll_rdma_module_admit) and runs on
 * the window once it exists.  Nothing here waits for another rank.  Returns
 * OMPI_SUCCESS or an error of the previous component or of memory.
 */
int coll_rdma_request_early(mca_coll_rdma_module_t *m, struct ompi_communicator_t *comm,
                            const coll_rdma_call_t *c, int kind, struct ompi_info_t *info,
                            ompi_request_t **request);

/**
 * m's window set-up started: progress it from opal_progress (the callback
 * stays registered while it runs), so that it goes on whatever the
 * application waits in.  Idempotent.
 */
void coll_rdma_request_watch_setup(mca_coll_rdma_module_t *m);

/**
 * Advance m's set-up without waiting; once it ended, decide and start the
 * requests deferred while it ran, in call order.  Returns the window state
 * (enum coll_rdma_window_state).  From the application's context (a blocking
 * call waiting for the set-up loops on it and opal_progress).
 */
int coll_rdma_request_setup_progress(mca_coll_rdma_module_t *m);

/**
 * m's set-up ended inside the progress callback (lock held): its reference
 * on the communicator (m->setup_comm) is dropped once the callback's pass is
 * over, where no frame of coll/rdma is below.
 */
void coll_rdma_request_setup_ended(mca_coll_rdma_module_t *m);

/** Drop the reference m's set-up held on its communicator (m->setup_comm),
 * if any; may destroy m.  From where no frame of coll/rdma uses m after. */
void coll_rdma_request_setup_release(mca_coll_rdma_module_t *m);

/** The module is being destroyed (nothing of it pending: every request and
 * the set-up hold its communicator): stop progressing it, drop its kept
 * requests. */
void coll_rdma_request_module_gone(mca_coll_rdma_module_t *module);

/** Mark a nonblocking or persistent request complete (its operation ended). */
void coll_rdma_request_complete(coll_rdma_request_t *req);

/** Component close: unregister the progress callback, release the pool. */
void coll_rdma_request_fini(void);

/* ---- for the early requests (coll_rdma_request_early.c), above the objects ---- */

/* The request layer's lock (under MPI_THREAD_MULTIPLE; nothing otherwise):
 * the progress list, the early requests' lists, the callback's registration. */
void coll_rdma_request_lock(void);
void coll_rdma_request_unlock(void);

/** Register or unregister the progress callback as requests are active or not
 * (from the application's context only, lock held). */
void coll_rdma_request_callback_update(void);

/** Put m in the callback's list of modules (lock held). */
int coll_rdma_request_watch_module(mca_coll_rdma_module_t *m);

/** n more (or fewer) requests and set-ups active. */
void coll_rdma_request_active(int n);

/** Mark req active and pending (and count it). */
void coll_rdma_request_activate(coll_rdma_request_t *req);

/** The executor's completion callback of a request's operation. */
void coll_rdma_request_op_done(coll_rdma_op_t *op);

/** Free a request (its req_free; an early one's drops what it holds first). */
int coll_rdma_request_free(ompi_request_t **ompi_req);

#endif /* COLL_RDMA_REQUEST_H */
