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
typedef struct coll_rdma_request {
    ompi_coll_base_nbc_request_t super;
    coll_rdma_op_t op;
    bool persistent;
    /* nonblocking: kept with its program once freed (coll_rdma_request_keep) */
    bool keep;
    coll_rdma_call_t key;    /* the call it was made for, without buffers */
    coll_rdma_stats_t stats; /* what each of its calls counts */
} coll_rdma_request_t;

OBJ_CLASS_DECLARATION(coll_rdma_request_t);

/**
 * A request of `module` on `comm` from the pool, inactive; the caller
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

/** The module is being destroyed: stop progressing it, drop its kept requests. */
void coll_rdma_request_module_gone(mca_coll_rdma_module_t *module);

/** Component close: unregister the progress callback, release the pool. */
void coll_rdma_request_fini(void);

#endif /* COLL_RDMA_REQUEST_H */
