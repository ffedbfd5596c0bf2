/*
 * coll/rdma n-way dissemination family: the n-way barrier, End's adapted
 * n-way allreduce and Bruck's n-port global combine (allreduce).  Plans
 * (see coll_rdma_prog.h); regions and reuse in coll_rdma_layout.h.
 */
#include "ompi_config.h"

#include "coll_rdma_plans.h"
#include "coll_rdma_sched.h"
#include "coll_rdma_window.h"

int coll_rdma_barrier_nway_group(coll_rdma_op_t *op, const coll_rdma_group_t *g, size_t flags)
{
    int n = op->cfg->barrier_nway_n;
    int rounds = coll_rdma_sched_rounds(g->size, n + 1);
    int to[n];

    for (int r = 0; r < rounds; ++r) {
        int count = coll_rdma_nway_peers(g->rank, g->size, n, r, to, NULL);
        /* Flags only ever grow, so a peer already in the next barrier may
         * overwrite a flag we have not read: >= seq still holds. */
        for (int j = 1; j <= count; ++j) {
            coll_rdma_prog_post(&op->prog, 0, coll_rdma_group_peer(g, to[j - 1]),
                                coll_rdma_slot_fixed(flags + (size_t) coll_rdma_nway_slot(n, r, j)
                                                                 * COLL_RDMA_LINE),
                                coll_rdma_buf(COLL_RDMA_BUF_NONE, 0), 0);
        }
        for (int j = 1; j <= count; ++j) {
            coll_rdma_prog_wait(&op->prog, 0,
                                coll_rdma_slot_fixed(flags + (size_t) coll_rdma_nway_slot(n, r, j)
                                                                 * COLL_RDMA_LINE));
        }
    }
    coll_rdma_prog_flush(&op->prog);
    return op->prog.failed ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}

int coll_rdma_barrier_nway_plan(coll_rdma_op_t *op)
{
    coll_rdma_group_t all = coll_rdma_group_all(op->win);

    return coll_rdma_barrier_nway_group(op, &all, op->win->off_barrier);
}

/* Slot (round, j) of the dissemination region, double-buffered by instance parity. */
static coll_rdma_slot_t diss_slot(const coll_rdma_window_t *win, int n, int round, int j)
{
    return coll_rdma_slot(win->off_ar_diss
                              + (size_t) (2 * coll_rdma_nway_slot(n, round, j)) * win->ar_slot_size,
                          win->ar_slot_size, 2);
}

/* Post `bytes` at `src` to every member of g in to[0 .. count-1], message i into
 * the dissemination slot (round, first + i), then complete the puts (the
 * caller changes `src` next). */
static void diss_send(coll_rdma_op_t *op, const coll_rdma_group_t *g, int n, int round, int first,
                      const int *to, int count, coll_rdma_buf_t src)
{
    for (int i = 0; i < count; ++i) {
        coll_rdma_prog_post(&op->prog, 0, coll_rdma_group_peer(g, to[i]),
                            diss_slot(op->win, n, round, first + i), src, op->bytes);
    }
    if (count > 0) {
        coll_rdma_prog_flush(&op->prog);
    }
}

/* Wait for dissemination message (round, j); its payload. */
static coll_rdma_buf_t diss_recv(coll_rdma_op_t *op, int n, int round, int j)
{
    coll_rdma_slot_t slot = diss_slot(op->win, n, round, j);

    coll_rdma_prog_wait(&op->prog, 0, slot);
    return coll_rdma_buf_slot(slot, -1, 0);
}

/* target = msg o target, or target = msg when *empty (then no longer):
 * whether it is empty is known while planning. */
static void accumulate(coll_rdma_op_t *op, coll_rdma_buf_t msg, coll_rdma_buf_t target,
                       bool *empty)
{
    if (*empty) {
        coll_rdma_prog_copy(&op->prog, msg, target, op->bytes, 0);
        *empty = false;
    } else {
        coll_rdma_prog_reduce(&op->prog, msg, target, op->count, 0);
    }
}

int coll_rdma_allreduce_nway_group(coll_rdma_op_t *op, const coll_rdma_group_t *g, bool in_rbuf)
{
    coll_rdma_prog_t *p = &op->prog;
    int n = op->cfg->allreduce_nway_n;
    int size = g->size, rank = g->rank;
    coll_rdma_buf_t rbuf = coll_rdma_buf(COLL_RDMA_BUF_RBUF, 0);
    coll_rdma_buf_t tail = coll_rdma_buf(COLL_RDMA_BUF_SCRATCH, 0);
    coll_rdma_nway_plan_t plan;
    int to[n], from[n], last_to[n], nlast, partial_at, tail_from;
    bool tail_on, tail_empty = true;

    if (0 != coll_rdma_nway_plan(size, n, &plan)) {
        return OMPI_ERR_NOT_SUPPORTED; /* the decision layer runs Bruck instead */
    }
    nlast = coll_rdma_nway_last_peers(&plan, rank, size, last_to, NULL);
    /* messages combined (rounds 0 .. k-2) when the prefixes a and b are reached */
    partial_at = plan.partial > 0 ? coll_rdma_nway_prefix_messages(n, plan.partial) : -1;
    tail_from = plan.removal > 0 ? coll_rdma_nway_prefix_messages(n, plan.removal) : -1;
    tail_on = 0 == tail_from;
    if (!in_rbuf) {
        coll_rdma_prog_copy(p, coll_rdma_buf(COLL_RDMA_BUF_SBUF, 0), rbuf, op->bytes, 0);
    }
    /*
     * The partial message goes out as soon as its prefix exists, into the
     * last round's slot f+1 of its receiver: that slot belongs to this
     * instance already (parity), so early is safe.
     */
    if (0 == partial_at) {
        diss_send(op, g, n, plan.rounds - 1, plan.full + 1, &last_to[plan.full], 1, rbuf);
    }
    for (int r = 0; r < plan.rounds - 1; ++r) {
        int npeers = coll_rdma_nway_peers(rank, size, n, r, to, from);
        diss_send(op, g, n, r, 1, to, npeers, rbuf);
        /* in the order j = 1 .. n: the prefixes are defined by it */
        for (int j = 1; j <= npeers; ++j) {
            coll_rdma_buf_t msg = diss_recv(op, n, r, j);
            coll_rdma_prog_reduce(p, msg, rbuf, op->count, 0);
            if (tail_on) {
                /* past our removed prefix: the second running reduction */
                accumulate(op, msg, tail, &tail_empty);
            }
            if (r * n + j == partial_at) {
                diss_send(op, g, n, plan.rounds - 1, plan.full + 1, &last_to[plan.full], 1, rbuf);
            }
            tail_on = tail_on || r * n + j == tail_from;
        }
    }
    /* last round: f full windows out; in, f windows and the partial one */
    diss_send(op, g, n, plan.rounds - 1, 1, last_to, plan.full, rbuf);
    if (plan.removal > 0) {
        /* result = (window without our first b ranks) o received */
        for (int i = 1; i <= nlast; ++i) {
            accumulate(op, diss_recv(op, n, plan.rounds - 1, i), tail, &tail_empty);
        }
        coll_rdma_prog_copy(p, tail, rbuf, op->bytes, 0);
    } else {
        for (int i = 1; i <= nlast; ++i) {
            coll_rdma_prog_reduce(p, diss_recv(op, n, plan.rounds - 1, i), rbuf, op->count, 0);
        }
    }
    return p->failed ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}

int coll_rdma_allreduce_nway_plan(coll_rdma_op_t *op)
{
    coll_rdma_group_t all = coll_rdma_group_all(op->win);

    return coll_rdma_allreduce_nway_group(op, &all, op->sbuf == op->rbuf);
}

int coll_rdma_allreduce_bruck_group(coll_rdma_op_t *op, const coll_rdma_group_t *g, bool in_rbuf)
{
    coll_rdma_window_t *win = op->win;
    coll_rdma_prog_t *p = &op->prog;
    int n = op->cfg->allreduce_bruck_n;
    int size = g->size, rank = g->rank;
    int rounds = coll_rdma_sched_rounds(size, n + 1);
    /* S1 lives in rbuf, S0 in the scratch; x_p stays in sbuf or a copy */
    coll_rdma_buf_t rbuf = coll_rdma_buf(COLL_RDMA_BUF_RBUF, 0);
    coll_rdma_buf_t s0 = coll_rdma_buf(COLL_RDMA_BUF_SCRATCH, 0);
    coll_rdma_buf_t own = coll_rdma_buf(COLL_RDMA_BUF_SBUF, 0);
    bool s0_empty = true;
    int to[n], from[n], nfull, nmsg;

    if (in_rbuf) {
        own = coll_rdma_buf(COLL_RDMA_BUF_SCRATCH, win->ar_slot_size - COLL_RDMA_SLOT_HEADER);
        coll_rdma_prog_copy(p, rbuf, own, op->bytes, 0);
    } else {
        coll_rdma_prog_copy(p, own, rbuf, op->bytes, 0);
    }
    for (int r = 0; r < rounds; ++r) {
        nmsg = coll_rdma_bruck_round(rank, size, n, r, to, from, &nfull);
        /* S1 to the first nfull peers, S0 to the rest */
        diss_send(op, g, n, r, 1, to, nfull, rbuf);
        diss_send(op, g, n, r, nfull + 1, &to[nfull], nmsg - nfull, s0);
        for (int i = 1; i <= nmsg; ++i) {
            accumulate(op, diss_recv(op, n, r, i), s0, &s0_empty);
        }
        /* S1 = x_p o S0 */
        coll_rdma_prog_copy(p, s0_empty ? own : s0, rbuf, op->bytes, 0);
        if (!s0_empty) {
            coll_rdma_prog_reduce(p, own, rbuf, op->count, 0);
        }
    }
    return p->failed ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}

int coll_rdma_allreduce_bruck_plan(coll_rdma_op_t *op)
{
    coll_rdma_group_t all = coll_rdma_group_all(op->win);

    return coll_rdma_allreduce_bruck_group(op, &all, op->sbuf == op->rbuf);
}
