/*
 * coll/rdma requests: nonblocking and persistent collectives as Open MPI
 * requests over operations (coll_rdma_exec.h).
 */
#include "ompi_config.h"

#include "coll_rdma_exec.h"

void coll_rdma_request_complete(struct coll_rdma_request *req)
{
    (void) req;
}
