/*
 * coll/rdma requests: nonblocking and persistent collectives over
 * operations (coll_rdma_exec.h); coll_rdma_request.c says how they progress.
 */
#ifndef COLL_RDMA_REQUEST_H
#define COLL_RDMA_REQUEST_H

#include "coll_rdma_exec.h"

typedef struct coll_rdma_request {
    ompi_request_t super;
    coll_rdma_op_t op;
    bool persistent;
} coll_rdma_request_t;

OBJ_CLASS_DECLARATION(coll_rdma_request_t);

/**
 * A request of `module` on `comm` from the pool, inactive; the caller
 * prepares req->op (coll_rdma_op_init, arguments, plan).  NULL when out of
 * memory.
 */
coll_rdma_request_t *coll_rdma_request_alloc(mca_coll_rdma_module_t *module,
                                             struct ompi_communicator_t *comm, bool persistent);

/** Activate the request and start its operation (MPI_I* return, MPI_Start). */
void coll_rdma_request_start(coll_rdma_request_t *req);

/** The module is being destroyed: stop progressing it. */
void coll_rdma_request_module_gone(mca_coll_rdma_module_t *module);

/** Component close: unregister the progress callback, release the pool. */
void coll_rdma_request_fini(void);

#endif /* COLL_RDMA_REQUEST_H */
