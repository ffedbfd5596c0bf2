/*
 * coll/rdma pairwise-exchange family: recursive-doubling allreduce with a
 * fold for communicator sizes that are not powers of two, and the barrier
 * on the same schedule.
 */
#include "ompi_config.h"

#include "coll_rdma.h"
#include "coll_rdma_sched.h"
#include "coll_rdma_window.h"

#include <string.h>

int coll_rdma_allreduce_pairwise(const void *sbuf, void *rbuf, size_t count, ompi_datatype_t *dtype,
                                 ompi_op_t *op, mca_coll_rdma_module_t *module,
                                 struct ompi_communicator_t *comm)
{
    coll_rdma_window_t *win = module->window;
    int size = win->comm_size, rank = win->rank;
    int steps = coll_rdma_pairwise_steps(size);
    int fold = coll_rdma_pairwise_fold_partner(rank, size);
    size_t bytes = count * dtype->super.size;
    uint64_t seq = coll_rdma_next_seq(module, COLL_RDMA_ALLREDUCE);
    int rc;
    (void) comm;

    if (MPI_IN_PLACE != sbuf) {
        memcpy(rbuf, sbuf, bytes);
    }
    if (fold >= 0 && fold < rank) {
        /* folded rank: hand the data in, take the result back */
        rc = coll_rdma_window_post(win, fold, coll_rdma_pw_slot(win, COLL_RDMA_PW_FOLD), rbuf,
                                   bytes, seq);
        if (OMPI_SUCCESS == rc) {
            rc = coll_rdma_window_complete(win);
        }
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        coll_rdma_window_wait(win, coll_rdma_pw_slot(win, COLL_RDMA_PW_BACK), seq);
        memcpy(rbuf, coll_rdma_slot_payload(win, coll_rdma_pw_slot(win, COLL_RDMA_PW_BACK)), bytes);
        return OMPI_SUCCESS;
    }
    if (fold > rank) {
        size_t off = coll_rdma_pw_slot(win, COLL_RDMA_PW_FOLD);
        coll_rdma_window_wait(win, off, seq);
        coll_rdma_op_reduce(op, coll_rdma_slot_payload(win, off), rbuf, count, dtype);
    }
    for (int step = 0; step < steps; ++step) {
        int partner = coll_rdma_pairwise_partner(rank, step);
        /* parity: a partner one instance ahead writes the other slot */
        size_t off = coll_rdma_pw_step_slot(win, step, seq);
        void *theirs = coll_rdma_slot_payload(win, off);

        rc = coll_rdma_window_post(win, partner, off, rbuf, bytes, seq);
        if (OMPI_SUCCESS == rc) {
            rc = coll_rdma_window_complete(win); /* rbuf changes below */
        }
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        coll_rdma_window_wait(win, off, seq);
        /* both partners compute lower op higher with the same operands */
        if (rank < partner) {
            coll_rdma_op_reduce(op, rbuf, theirs, count, dtype);
            memcpy(rbuf, theirs, bytes);
        } else {
            coll_rdma_op_reduce(op, theirs, rbuf, count, dtype);
        }
    }
    if (fold > rank) {
        rc = coll_rdma_window_post(win, fold, coll_rdma_pw_slot(win, COLL_RDMA_PW_BACK), rbuf,
                                   bytes, seq);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    return coll_rdma_window_complete(win);
}

int coll_rdma_barrier_pairwise(mca_coll_rdma_module_t *module, struct ompi_communicator_t *comm)
{
    coll_rdma_window_t *win = module->window;
    int size = win->comm_size, rank = win->rank;
    int steps = coll_rdma_pairwise_steps(size);
    int fold = coll_rdma_pairwise_fold_partner(rank, size);
    uint64_t seq = coll_rdma_next_seq(module, COLL_RDMA_BARRIER);
    int rc = OMPI_SUCCESS;
    (void) comm;

    /* Flags only grow, so a partner already in the next barrier may
     * overwrite a flag we have not read: >= seq still holds. */
    if (fold >= 0 && fold < rank) {
        rc = coll_rdma_window_post(win, fold, coll_rdma_bar_pw_slot(win, COLL_RDMA_PW_FOLD), NULL,
                                   0, seq);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        coll_rdma_window_wait(win, coll_rdma_bar_pw_slot(win, COLL_RDMA_PW_BACK), seq);
        return coll_rdma_window_complete(win);
    }
    if (fold > rank) {
        coll_rdma_window_wait(win, coll_rdma_bar_pw_slot(win, COLL_RDMA_PW_FOLD), seq);
    }
    for (int step = 0; step < steps && OMPI_SUCCESS == rc; ++step) {
        size_t off = coll_rdma_bar_pw_slot(win, 2 + step);
        rc = coll_rdma_window_post(win, coll_rdma_pairwise_partner(rank, step), off, NULL, 0, seq);
        if (OMPI_SUCCESS == rc) {
            coll_rdma_window_wait(win, off, seq);
        }
    }
    if (OMPI_SUCCESS == rc && fold > rank) {
        rc = coll_rdma_window_post(win, fold, coll_rdma_bar_pw_slot(win, COLL_RDMA_PW_BACK), NULL,
                                   0, seq);
    }
    if (OMPI_SUCCESS == rc) {
        rc = coll_rdma_window_complete(win);
    }
    return rc;
}
