/*
 * coll/rdma direct family: the write-based alltoall of seed 004 (Iakymchuk
 * et al., "Efficient and Eventually Consistent Collective Operations",
 * section IV-B): every rank writes its block for each peer straight into
 * that peer's window, one slot and sequence word per source rank, and waits
 * for the P-1 words of its own slots.  A plan (see coll_rdma_prog.h); the
 * region and why its reuse is safe are in coll_rdma_layout.h.
 */
#include "ompi_config.h"

#include "coll_rdma_plans.h"

/* The slot of source rank `source`: two halves (instance parity) of P slots. */
static coll_rdma_slot_t source_slot(const coll_rdma_window_t *win, int source)
{
    return coll_rdma_slot(win->off_a2a_direct + (size_t) source * win->a2a_direct_slot,
                          (size_t) win->comm_size * win->a2a_direct_slot, 2);
}

int coll_rdma_alltoall_direct_plan(coll_rdma_op_t *op)
{
    coll_rdma_window_t *win = op->win;
    coll_rdma_prog_t *p = &op->prog;
    int size = win->comm_size, rank = win->rank;
    size_t block = op->bytes;

    /* rotated order (seed 000 B.4): not every rank writes to rank 0 first */
    for (int i = 1; i < size; ++i) {
        int peer = (rank + i) % size;
        coll_rdma_prog_post(p, 0, peer, source_slot(win, rank),
                            coll_rdma_buf(COLL_RDMA_BUF_SBUF, (size_t) peer * block), block);
    }
    /* in place (sbuf == rbuf), the puts read what is overwritten below */
    coll_rdma_prog_flush(p);
    if (op->sbuf != op->rbuf) {
        coll_rdma_prog_copy(p, coll_rdma_buf(COLL_RDMA_BUF_SBUF, (size_t) rank * block),
                            coll_rdma_buf(COLL_RDMA_BUF_RBUF, (size_t) rank * block), block, 0);
    }
    for (int i = 1; i < size; ++i) {
        int source = (rank - i + size) % size;
        coll_rdma_slot_t slot = source_slot(win, source);

        coll_rdma_prog_wait(p, 0, slot);
        coll_rdma_prog_copy(p, coll_rdma_buf_slot(slot, -1, 0),
                            coll_rdma_buf(COLL_RDMA_BUF_RBUF, (size_t) source * block), block, 0);
    }
    return p->failed ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}
