/*
 * coll/rdma notified-read family: where every rank maps every peer's window
 * (one node), a rank writes only its own window and the others read it:
 * bcast from the root's slots, barrier and small allreduce from everyone's.
 */
#include "ompi_config.h"

#include "coll_rdma.h"
#include "coll_rdma_window.h"

#include <string.h>

int coll_rdma_bcast_read(void *buf, size_t bytes, int root, mca_coll_rdma_module_t *module,
                         struct ompi_communicator_t *comm)
{
    coll_rdma_window_t *win = module->window;
    size_t segment = mca_coll_rdma_component.config.bcast_segment_bytes;
    int rc = OMPI_SUCCESS;
    (void) comm;

    for (size_t done = 0; done < bytes && OMPI_SUCCESS == rc; done += segment) {
        size_t n = bytes - done < segment ? bytes - done : segment;
        uint64_t seq = coll_rdma_next_seq(module, COLL_RDMA_BCAST);
        size_t off = coll_rdma_bcast_read_slot(win, seq);

        if (win->rank == root) {
            /*
             * The slot last held instance seq - bcast_slots or earlier, and
             * every rank publishes "consumed" only after copying out, with a
             * release store, in instance order: once each peer consumed
             * seq - bcast_slots no one reads the slot any more.
             */
            for (int peer = 0; peer < win->comm_size && OMPI_SUCCESS == rc; ++peer) {
                if (peer != root) {
                    rc = coll_rdma_window_credit(win, peer, seq);
                }
            }
            if (OMPI_SUCCESS == rc) {
                rc = coll_rdma_window_post(win, root, off, (char *) buf + done, n, seq);
            }
        } else {
            memcpy((char *) buf + done, coll_rdma_window_wait_peer(win, root, off, seq), n);
        }
        coll_rdma_window_consumed(win, seq);
    }
    return rc;
}

int coll_rdma_barrier_read(mca_coll_rdma_module_t *module, struct ompi_communicator_t *comm)
{
    coll_rdma_window_t *win = module->window;
    uint64_t seq = coll_rdma_next_seq(module, COLL_RDMA_BARRIER);
    (void) comm;

    /* words only grow: a rank already in the next barrier still reads >= seq */
    (void) coll_rdma_window_post(win, win->rank, win->off_read_barrier, NULL, 0, seq);
    coll_rdma_window_wait_all_peers(win, win->off_read_barrier, seq, NULL, NULL);
    return OMPI_SUCCESS;
}

/* One read allreduce: fold each rank's contribution into the result. */
typedef struct read_fold {
    void *rbuf;
    size_t count;
    size_t bytes;
    ompi_datatype_t *dtype;
    ompi_op_t *op;
} read_fold_t;

/* rbuf = c[rank] op (... op (c[1] op c[0])), one rank at a time in rank order */
static void fold(void *ctx, int rank, const void *contribution)
{
    read_fold_t *f = ctx;

    if (0 == rank) {
        memcpy(f->rbuf, contribution, f->bytes);
    } else {
        coll_rdma_op_reduce(f->op, contribution, f->rbuf, f->count, f->dtype);
    }
}

int coll_rdma_allreduce_read(const void *sbuf, void *rbuf, size_t count, ompi_datatype_t *dtype,
                             ompi_op_t *op, mca_coll_rdma_module_t *module,
                             struct ompi_communicator_t *comm)
{
    coll_rdma_window_t *win = module->window;
    size_t bytes = count * dtype->super.size;
    uint64_t seq = coll_rdma_next_seq(module, COLL_RDMA_ALLREDUCE);
    size_t off = coll_rdma_read_ar_slot(win, seq);
    (void) comm;

    (void) coll_rdma_window_post(win, win->rank, off, MPI_IN_PLACE == sbuf ? rbuf : sbuf, bytes,
                                 seq);
    /* the same expression on every rank, folded while later ranks arrive;
     * rbuf is written only after the own contribution is in the window */
    coll_rdma_window_wait_all_peers(win, off, seq, fold,
                                    &(read_fold_t){rbuf, count, bytes, dtype, op});
    return OMPI_SUCCESS;
}
