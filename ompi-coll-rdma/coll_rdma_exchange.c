/*
 * coll/rdma set-up exchange: an allgather of records of bounded size over
 * the PML on coll/rdma's own tags (coll_rdma_exchange.h says why not
 * libnbc's).  Flat (every rank sends its record to every other rank): once
 * per communicator, P - 1 messages per rank (the set-up's records: about
 * 0.5 KiB, a worker address more to a peer that lacks it), the bytes a ring
 * or Bruck's allgather would move too, in one round instead of P - 1 or
 * log2 P.
 */
#include "ompi_config.h"

#include "coll_rdma_exchange.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/pml/pml.h"

int coll_rdma_exchange_init(coll_rdma_exchange_t *x, struct ompi_communicator_t *comm)
{
    int size = ompi_comm_size(comm);

    x->comm = comm;
    x->size = size;
    x->nreqs = x->nrecvs = 0;
    x->truncate_ok = false;
    x->reqs = calloc(2 * (size_t) (size > 1 ? size - 1 : 1), sizeof(*x->reqs));
    return NULL == x->reqs ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}

int coll_rdma_exchange_start_pairs(coll_rdma_exchange_t *x, int tag,
                                   coll_rdma_exchange_recv_fn recv_for,
                                   coll_rdma_exchange_send_fn send_for, void *ctx)
{
    int rank = ompi_comm_rank(x->comm);
    int rc = OMPI_SUCCESS;

    x->nreqs = 0;
    /* receives first: most messages then land in a posted buffer */
    for (int i = 1; i < x->size && OMPI_SUCCESS == rc; ++i) {
        int peer = (rank + x->size - i) % x->size;
        size_t len = 0;
        void *buf = recv_for(ctx, peer, &len);
        if (len > 0) {
            rc = MCA_PML_CALL(irecv(buf, len, MPI_BYTE, peer, tag, x->comm, &x->reqs[x->nreqs]));
            x->nreqs += OMPI_SUCCESS == rc;
        }
    }
    x->nrecvs = x->nreqs;
    for (int i = 1; i < x->size && OMPI_SUCCESS == rc; ++i) {
        int peer = (rank + i) % x->size;
        size_t len = 0;
        const void *buf = send_for(ctx, peer, &len);
        if (len > 0) {
            rc = MCA_PML_CALL(isend(buf, len, MPI_BYTE, peer, tag, MCA_PML_BASE_SEND_STANDARD,
                                    x->comm, &x->reqs[x->nreqs]));
            x->nreqs += OMPI_SUCCESS == rc;
        }
    }
    return rc;
}

/* The allgather's sides (coll_rdma_exchange_start_each()): every peer's
 * place in `all`, and one record for all where no send_for was given. */
typedef struct gather {
    coll_rdma_exchange_send_fn send_for;
    void *ctx;
    const void *mine;
    char *all;
    size_t bytes;
} gather_t;

static void *gather_recv(void *ctx, int peer, size_t *len)
{
    gather_t *g = ctx;

    *len = g->bytes;
    return g->all + (size_t) peer * g->bytes;
}

static const void *gather_send(void *ctx, int peer, size_t *len)
{
    gather_t *g = ctx;
    const void *buf = g->mine;

    *len = g->bytes;
    if (NULL != g->send_for) {
        buf = g->send_for(g->ctx, peer, len);
        assert(*len <= g->bytes); /* never more than the receive's room */
    }
    return buf;
}

int coll_rdma_exchange_start_each(coll_rdma_exchange_t *x, int tag, const void *mine, void *all,
                                  size_t bytes, coll_rdma_exchange_send_fn send_for, void *ctx)
{
    gather_t g = {.send_for = send_for, .ctx = ctx, .mine = mine, .all = all, .bytes = bytes};

    memcpy((char *) all + (size_t) ompi_comm_rank(x->comm) * bytes, mine, bytes);
    return coll_rdma_exchange_start_pairs(x, tag, gather_recv, gather_send, &g);
}

int coll_rdma_exchange_start(coll_rdma_exchange_t *x, int tag, const void *mine, void *all,
                             size_t bytes)
{
    return coll_rdma_exchange_start_each(x, tag, mine, all, bytes, NULL, NULL);
}

int coll_rdma_exchange_test(coll_rdma_exchange_t *x)
{
    int rc = OMPI_SUCCESS;

    /* from the end: the array shrinks as requests complete */
    while (x->nreqs > 0) {
        ompi_request_t **req = &x->reqs[x->nreqs - 1];
        /* only the flag: ompi_request_test would call opal_progress */
        if (!REQUEST_COMPLETE(*req)) {
            return OMPI_ERR_WOULD_BLOCK;
        }
        if (OMPI_SUCCESS != (*req)->req_status.MPI_ERROR
            && !(x->truncate_ok && MPI_ERR_TRUNCATE == (*req)->req_status.MPI_ERROR)) {
            rc = (*req)->req_status.MPI_ERROR;
        }
        ompi_request_free(req);
        --x->nreqs;
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    return OMPI_SUCCESS;
}

void coll_rdma_exchange_fini(coll_rdma_exchange_t *x)
{
    while (x->nreqs > 0) {
        ompi_request_t **req = &x->reqs[--x->nreqs];
        if (x->nreqs < x->nrecvs && !REQUEST_COMPLETE(*req)) {
            (void) ompi_request_cancel(*req);
        }
        ompi_request_free(req);
    }
    free(x->reqs);
    x->reqs = NULL;
}
