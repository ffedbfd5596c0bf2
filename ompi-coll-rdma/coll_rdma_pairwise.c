/*
 * coll/rdma pairwise-exchange family (End's thesis, section 2.3.3):
 * recursive-doubling allreduce with a fold for communicator sizes that are
 * not powers of two, and the barrier on the same schedule.  Plans (see
 * coll_rdma_prog.h); regions and reuse in coll_rdma_layout.h.
 */
#include "ompi_config.h"

#include "coll_rdma_plans.h"
#include "coll_rdma_sched.h"

int coll_rdma_allreduce_pairwise_group(coll_rdma_op_t *op, const coll_rdma_group_t *g,
                                       bool in_rbuf)
{
    coll_rdma_window_t *win = op->win;
    coll_rdma_prog_t *p = &op->prog;
    int size = g->size, rank = g->rank;
    int steps = coll_rdma_pairwise_steps(size);
    int fold = coll_rdma_pairwise_fold_partner(rank, size);
    size_t bytes = op->bytes;
    coll_rdma_buf_t rbuf = coll_rdma_buf(COLL_RDMA_BUF_RBUF, 0);
    coll_rdma_slot_t fold_slot = coll_rdma_slot_fixed(coll_rdma_pw_slot(win, COLL_RDMA_PW_FOLD));
    coll_rdma_slot_t back_slot = coll_rdma_slot_fixed(coll_rdma_pw_slot(win, COLL_RDMA_PW_BACK));

    if (!in_rbuf) {
        coll_rdma_prog_copy(p, coll_rdma_buf(COLL_RDMA_BUF_SBUF, 0), rbuf, bytes, 0);
    }
    if (fold >= 0 && fold < rank) {
        /* folded rank: hand the data in, take the result back */
        coll_rdma_prog_post(p, 0, coll_rdma_group_peer(g, fold), fold_slot, rbuf, bytes);
        coll_rdma_prog_flush(p);
        coll_rdma_prog_wait(p, 0, back_slot);
        coll_rdma_prog_copy(p, coll_rdma_buf_slot(back_slot, -1, 0), rbuf, bytes, 0);
        return p->failed ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
    }
    if (fold > rank) {
        coll_rdma_prog_wait(p, 0, fold_slot);
        coll_rdma_prog_reduce(p, coll_rdma_buf_slot(fold_slot, -1, 0), rbuf, op->count, 0);
    }
    for (int step = 0; step < steps; ++step) {
        int partner = coll_rdma_pairwise_partner(rank, step);
        /* parity: a partner one instance ahead writes the other slot */
        coll_rdma_slot_t slot = coll_rdma_slot(coll_rdma_pw_slot(win, 2 + 2 * step),
                                               win->ar_slot_size, 2);
        coll_rdma_buf_t theirs = coll_rdma_buf_slot(slot, -1, 0);

        coll_rdma_prog_post(p, 0, coll_rdma_group_peer(g, partner), slot, rbuf, bytes);
        coll_rdma_prog_flush(p); /* rbuf changes below */
        coll_rdma_prog_wait(p, 0, slot);
        /* both partners compute lower op higher with the same operands */
        if (rank < partner) {
            coll_rdma_prog_reduce(p, rbuf, theirs, op->count, 0);
            coll_rdma_prog_copy(p, theirs, rbuf, bytes, 0);
        } else {
            coll_rdma_prog_reduce(p, theirs, rbuf, op->count, 0);
        }
    }
    if (fold > rank) {
        coll_rdma_prog_post(p, 0, coll_rdma_group_peer(g, fold), back_slot, rbuf, bytes);
    }
    coll_rdma_prog_flush(p);
    return p->failed ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}

int coll_rdma_allreduce_pairwise_plan(coll_rdma_op_t *op)
{
    coll_rdma_group_t all = coll_rdma_group_all(op->win);

    return coll_rdma_allreduce_pairwise_group(op, &all, op->sbuf == op->rbuf);
}

int coll_rdma_barrier_pairwise_plan(coll_rdma_op_t *op)
{
    coll_rdma_window_t *win = op->win;
    coll_rdma_prog_t *p = &op->prog;
    int size = win->comm_size, rank = win->rank;
    int steps = coll_rdma_pairwise_steps(size);
    int fold = coll_rdma_pairwise_fold_partner(rank, size);
    coll_rdma_buf_t none = coll_rdma_buf(COLL_RDMA_BUF_NONE, 0);
    coll_rdma_slot_t fold_flag = coll_rdma_slot_fixed(coll_rdma_bar_pw_slot(win, COLL_RDMA_PW_FOLD));
    coll_rdma_slot_t back_flag = coll_rdma_slot_fixed(coll_rdma_bar_pw_slot(win, COLL_RDMA_PW_BACK));

    /* Flags only grow, so a partner already in the next barrier may
     * overwrite a flag we have not read: >= seq still holds. */
    if (fold >= 0 && fold < rank) {
        coll_rdma_prog_post(p, 0, fold, fold_flag, none, 0);
        coll_rdma_prog_wait(p, 0, back_flag);
    } else {
        if (fold > rank) {
            coll_rdma_prog_wait(p, 0, fold_flag);
        }
        for (int step = 0; step < steps; ++step) {
            coll_rdma_slot_t flag = coll_rdma_slot_fixed(coll_rdma_bar_pw_slot(win, 2 + step));
            coll_rdma_prog_post(p, 0, coll_rdma_pairwise_partner(rank, step), flag, none, 0);
            coll_rdma_prog_wait(p, 0, flag);
        }
        if (fold > rank) {
            coll_rdma_prog_post(p, 0, fold, back_flag, none, 0);
        }
    }
    coll_rdma_prog_flush(p);
    return p->failed ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}
