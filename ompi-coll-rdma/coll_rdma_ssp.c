/*
 * coll/rdma stale-synchronous allreduce (Iakymchuk et al., "Efficient and
 * Eventually Consistent Collective Operations", seed 004 section III-A):
 * on a communicator that asked for staleness S >= 1 (the info key
 * coll_rdma_allreduce_staleness, agreed at set-up by coll_rdma_module.c), an
 * allreduce waits only for ranks whose newest contribution is more than S
 * calls older than the caller's.  One node, by reading: every rank keeps its
 * last 2S + 2 contributions in its own window (coll_rdma_layout.h, "ssp
 * ring") and folds the others' newest fresh enough ones (the executor's
 * FOLD_FRESH).  Semantics and the argument for the bound: docs/design.md,
 * "Bounded staleness".
 */
#include "ompi_config.h"

#include "coll_rdma_plans.h"

/*
 * The call's shape: contributions of another shape (an earlier call with
 * another count, type or op) are never folded.  Never 0 (bytes >= 1), the
 * value a module starts with.
 */
static uint64_t ssp_shape(const coll_rdma_op_t *op)
{
    return (uint64_t) op->bytes ^ ((uint64_t) op->dtype->id << 40)
           ^ ((uint64_t) op->op->o_f_to_c_index << 52);
}

int coll_rdma_allreduce_ssp_plan(coll_rdma_op_t *op)
{
    coll_rdma_window_t *win = op->win;
    coll_rdma_slot_t ring = coll_rdma_slot(win->off_ssp, win->ssp_slot_size,
                                           (uint32_t) win->ssp_slots);

    if (win->ssp_slots < 2 * op->cfg->allreduce_staleness + 2
        || op->bytes > win->ssp_slot_size - COLL_RDMA_SLOT_HEADER) {
        return OMPI_ERR_NOT_SUPPORTED; /* the decision layer never asks for this */
    }
    op->ssp_shape = ssp_shape(op);
    /* the own contribution of this instance, before rbuf is written (in place) */
    coll_rdma_prog_post(&op->prog, 0, win->rank, ring, coll_rdma_buf(COLL_RDMA_BUF_SBUF, 0),
                        op->bytes);
    coll_rdma_prog_fold(&op->prog, COLL_RDMA_ACT_FOLD_FRESH, ring,
                        coll_rdma_buf(COLL_RDMA_BUF_RBUF, 0), op->count);
    return op->prog.failed ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}
