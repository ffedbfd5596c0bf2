/*
 * coll/rdma notified-read family (End's thesis, chapter 6, on shared
 * memory): where every rank maps every peer's window (one node), a rank
 * writes only its own window and the others read it: bcast from the root's
 * slots, barrier and small allreduce from everyone's.  Plans (see
 * coll_rdma_prog.h); regions and reuse in coll_rdma_window.h.
 */
#include "ompi_config.h"

#include "coll_rdma_exec.h"

int coll_rdma_bcast_read_plan(coll_rdma_op_t *op)
{
    coll_rdma_window_t *win = op->win;
    coll_rdma_prog_t *p = &op->prog;
    size_t segment = op->cfg->bcast_segment_bytes;
    coll_rdma_slot_t slot = coll_rdma_slot(win->off_bcast_read, win->bcast_slot_size,
                                           (uint32_t) win->bcast_slots);
    uint32_t g = 0;

    /* one instance per segment: the read ring holds bcast_slots of them */
    for (size_t done = 0; done < op->bytes; done += segment, ++g) {
        size_t n = op->bytes - done < segment ? op->bytes - done : segment;

        if (win->rank == op->root) {
            /*
             * The slot last held instance g - bcast_slots or earlier, and
             * every rank publishes "consumed" only after copying out, with a
             * release store, in instance order: once each peer consumed
             * that instance no one reads the slot any more.
             */
            for (int peer = 0; peer < win->comm_size; ++peer) {
                if (peer != op->root) {
                    coll_rdma_prog_credit(p, COLL_RDMA_ACT_CREDIT, g, COLL_RDMA_CREDIT_BCAST, peer);
                }
            }
            coll_rdma_prog_post(p, g, op->root, slot, coll_rdma_buf(COLL_RDMA_BUF_RBUF, done), n);
        } else {
            coll_rdma_prog_wait_peer(p, g, op->root, slot);
            coll_rdma_prog_copy(p, coll_rdma_buf_slot(slot, op->root, 0),
                                coll_rdma_buf(COLL_RDMA_BUF_RBUF, done), n, g);
        }
        coll_rdma_prog_credit(p, COLL_RDMA_ACT_PUBLISH, g, COLL_RDMA_CREDIT_BCAST, 0);
    }
    p->nseq = g > 0 ? g : 1;
    return p->failed ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}

int coll_rdma_barrier_read_plan(coll_rdma_op_t *op)
{
    coll_rdma_slot_t word = coll_rdma_slot_fixed(op->win->off_read_barrier);

    /* words only grow: a rank already in the next barrier still reads >= seq */
    coll_rdma_prog_post(&op->prog, 0, op->win->rank, word, coll_rdma_buf(COLL_RDMA_BUF_NONE, 0), 0);
    coll_rdma_prog_add(&op->prog, COLL_RDMA_ACT_WAIT_ALL, 0)->slot = word;
    return op->prog.failed ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}

int coll_rdma_allreduce_read_plan(coll_rdma_op_t *op)
{
    coll_rdma_window_t *win = op->win;
    coll_rdma_slot_t slot = coll_rdma_slot(win->off_read_ar, win->read_ar_slot_size, 2);
    coll_rdma_act_t *fold;

    /* the own contribution goes into the window before rbuf is written */
    coll_rdma_prog_post(&op->prog, 0, win->rank, slot, coll_rdma_buf(COLL_RDMA_BUF_SBUF, 0),
                        op->bytes);
    /* rbuf = c[P-1] op (... op (c[1] op c[0])): the same expression on every
     * rank, folded while later ranks arrive */
    fold = coll_rdma_prog_add(&op->prog, COLL_RDMA_ACT_FOLD_ALL, 0);
    fold->slot = slot;
    fold->dst = coll_rdma_buf(COLL_RDMA_BUF_RBUF, 0);
    fold->len = op->count;
    return op->prog.failed ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}
