/*
 * coll/rdma n-way dissemination family: the n-way barrier, End's adapted
 * n-way allreduce and Bruck's n-port global combine (allreduce).
 */
#include "ompi_config.h"

#include "coll_rdma_exec.h"
#include "coll_rdma_sched.h"
#include "coll_rdma_window.h"

#include <string.h>

int coll_rdma_barrier_nway_plan(coll_rdma_op_t *op)
{
    coll_rdma_window_t *win = op->win;
    int n = op->cfg->barrier_nway_n;
    int size = win->comm_size, rank = win->rank;
    int rounds = coll_rdma_sched_rounds(size, n + 1);
    int to[n];

    for (int r = 0; r < rounds; ++r) {
        int count = coll_rdma_nway_peers(rank, size, n, r, to, NULL);
        /* Flags only ever grow, so a peer already in the next barrier may
         * overwrite a flag we have not read: >= seq still holds. */
        for (int j = 1; j <= count; ++j) {
            coll_rdma_prog_post(&op->prog, 0, to[j - 1],
                                coll_rdma_slot_fixed(
                                    coll_rdma_barrier_slot(win, coll_rdma_nway_slot(n, r, j))),
                                coll_rdma_buf(COLL_RDMA_BUF_NONE, 0), 0);
        }
        for (int j = 1; j <= count; ++j) {
            coll_rdma_prog_wait(&op->prog, 0,
                                coll_rdma_slot_fixed(
                                    coll_rdma_barrier_slot(win, coll_rdma_nway_slot(n, r, j))));
        }
    }
    coll_rdma_prog_flush(&op->prog);
    return op->prog.failed ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}

/* target = msg o target, or target = msg when *empty (then no longer). */
static void accumulate(ompi_op_t *op, const void *msg, void *target, bool *empty, size_t count,
                       ompi_datatype_t *dtype)
{
    if (*empty) {
        memcpy(target, msg, count * dtype->super.size);
        *empty = false;
    } else {
        coll_rdma_op_reduce(op, msg, target, count, dtype);
    }
}

/* Post `bytes` at `src` to every peer in to[0 .. count-1], message i into
 * the dissemination slot (round, first + i), then complete the puts (the
 * caller changes `src` next). */
static int diss_send(coll_rdma_window_t *win, int n, int round, int first, const int *to,
                     int count, const void *src, size_t bytes, uint64_t seq)
{
    for (int i = 0; i < count; ++i) {
        int rc = coll_rdma_window_post(
            win, to[i], coll_rdma_ar_diss_slot(win, coll_rdma_nway_slot(n, round, first + i), seq),
            src, bytes, seq);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    return coll_rdma_window_complete(win);
}

/* Wait for dissemination message (round, j) of instance seq; its payload. */
static const void *diss_recv(coll_rdma_window_t *win, int n, int round, int j, uint64_t seq)
{
    size_t off = coll_rdma_ar_diss_slot(win, coll_rdma_nway_slot(n, round, j), seq);

    coll_rdma_window_wait(win, off, seq);
    return coll_rdma_slot_payload(win, off);
}

int coll_rdma_allreduce_nway(const void *sbuf, void *rbuf, size_t count, ompi_datatype_t *dtype,
                             ompi_op_t *op, mca_coll_rdma_module_t *module,
                             struct ompi_communicator_t *comm)
{
    coll_rdma_window_t *win = module->window;
    int n = mca_coll_rdma_component.config.allreduce_nway_n;
    int size = win->comm_size, rank = win->rank;
    size_t bytes = count * dtype->super.size;
    coll_rdma_nway_plan_t plan;
    int to[n], from[n], last_to[n], nlast, partial_at, tail_from, rc;
    char *tail = win->scratch;
    bool tail_on, tail_empty = true;
    uint64_t seq;
    (void) comm;

    if (0 != coll_rdma_nway_plan(size, n, &plan)) {
        return OMPI_ERR_NOT_SUPPORTED; /* the decision layer runs Bruck instead */
    }
    seq = coll_rdma_next_seq(module, COLL_RDMA_ALLREDUCE);
    nlast = coll_rdma_nway_last_peers(&plan, rank, size, last_to, NULL);
    /* messages combined (rounds 0 .. k-2) when the prefixes a and b are reached */
    partial_at = plan.partial > 0 ? coll_rdma_nway_prefix_messages(n, plan.partial) : -1;
    tail_from = plan.removal > 0 ? coll_rdma_nway_prefix_messages(n, plan.removal) : -1;
    tail_on = 0 == tail_from;
    if (MPI_IN_PLACE != sbuf) {
        memcpy(rbuf, sbuf, bytes);
    }
    /*
     * The partial message goes out as soon as its prefix exists, into the
     * last round's slot f+1 of its receiver: that slot belongs to this
     * instance already (parity), so early is safe.
     */
    if (0 == partial_at) {
        rc = diss_send(win, n, plan.rounds - 1, plan.full + 1, &last_to[plan.full], 1, rbuf, bytes,
                       seq);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    for (int r = 0; r < plan.rounds - 1; ++r) {
        int npeers = coll_rdma_nway_peers(rank, size, n, r, to, from);
        rc = diss_send(win, n, r, 1, to, npeers, rbuf, bytes, seq);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        /* in the order j = 1 .. n: the prefixes are defined by it */
        for (int j = 1; j <= npeers; ++j) {
            const void *msg = diss_recv(win, n, r, j, seq);
            coll_rdma_op_reduce(op, msg, rbuf, count, dtype);
            if (tail_on) {
                /* past our removed prefix: the second running reduction */
                accumulate(op, msg, tail, &tail_empty, count, dtype);
            }
            if (r * n + j == partial_at) {
                rc = diss_send(win, n, plan.rounds - 1, plan.full + 1, &last_to[plan.full], 1,
                               rbuf, bytes, seq);
                if (OMPI_SUCCESS != rc) {
                    return rc;
                }
            }
            tail_on = tail_on || r * n + j == tail_from;
        }
    }
    /* last round: f full windows out; in, f windows and the partial one */
    rc = diss_send(win, n, plan.rounds - 1, 1, last_to, plan.full, rbuf, bytes, seq);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (plan.removal > 0) {
        /* result = (window without our first b ranks) o received */
        for (int i = 1; i <= nlast; ++i) {
            accumulate(op, diss_recv(win, n, plan.rounds - 1, i, seq), tail, &tail_empty, count,
                       dtype);
        }
        memcpy(rbuf, tail, bytes);
    } else {
        for (int i = 1; i <= nlast; ++i) {
            coll_rdma_op_reduce(op, diss_recv(win, n, plan.rounds - 1, i, seq), rbuf, count, dtype);
        }
    }
    return OMPI_SUCCESS;
}

int coll_rdma_allreduce_bruck(const void *sbuf, void *rbuf, size_t count, ompi_datatype_t *dtype,
                              ompi_op_t *op, mca_coll_rdma_module_t *module,
                              struct ompi_communicator_t *comm)
{
    coll_rdma_window_t *win = module->window;
    int n = mca_coll_rdma_component.config.allreduce_bruck_n;
    int size = win->comm_size, rank = win->rank;
    int rounds = coll_rdma_sched_rounds(size, n + 1);
    size_t bytes = count * dtype->super.size;
    uint64_t seq = coll_rdma_next_seq(module, COLL_RDMA_ALLREDUCE);
    /* S1 lives in rbuf, S0 in the scratch; x_p stays in sbuf or a copy */
    char *s0 = win->scratch;
    const void *own = sbuf;
    bool s0_empty = true;
    int to[n], from[n], nfull, nmsg, rc;
    (void) comm;

    if (MPI_IN_PLACE == sbuf) {
        char *copy = win->scratch + (win->ar_slot_size - COLL_RDMA_SLOT_HEADER);
        memcpy(copy, rbuf, bytes);
        own = copy;
    } else {
        memcpy(rbuf, sbuf, bytes);
    }
    for (int r = 0; r < rounds; ++r) {
        nmsg = coll_rdma_bruck_round(rank, size, n, r, to, from, &nfull);
        /* S1 to the first nfull peers, S0 to the rest */
        rc = diss_send(win, n, r, 1, to, nfull, rbuf, bytes, seq);
        if (OMPI_SUCCESS == rc) {
            rc = diss_send(win, n, r, nfull + 1, &to[nfull], nmsg - nfull, s0, bytes, seq);
        }
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        for (int i = 1; i <= nmsg; ++i) {
            accumulate(op, diss_recv(win, n, r, i, seq), s0, &s0_empty, count, dtype);
        }
        /* S1 = x_p o S0 */
        memcpy(rbuf, s0_empty ? own : s0, bytes);
        if (!s0_empty) {
            coll_rdma_op_reduce(op, own, rbuf, count, dtype);
        }
    }
    return OMPI_SUCCESS;
}
