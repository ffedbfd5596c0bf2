/*
 * coll/rdma: every algorithm's plan, by collective and algorithm, and the
 * program of an op (the entry points and the plan simulator of tests/unit
 * build programs here).
 */
#include "ompi_config.h"

#include "coll_rdma_plans.h"

#include "ompi/datatype/ompi_datatype.h"

const coll_rdma_plan_fn_t coll_rdma_plans[COLL_RDMA_NCOLLS][COLL_RDMA_NALGS] = {
    [COLL_RDMA_BARRIER] = {[COLL_RDMA_ALG_READ] = coll_rdma_barrier_read_plan,
                           [COLL_RDMA_ALG_NWAY] = coll_rdma_barrier_nway_plan,
                           [COLL_RDMA_ALG_PAIRWISE] = coll_rdma_barrier_pairwise_plan,
                           [COLL_RDMA_ALG_HIER] = coll_rdma_barrier_hier_plan},
    [COLL_RDMA_BCAST] = {[COLL_RDMA_ALG_READ] = coll_rdma_bcast_read_plan,
                         [COLL_RDMA_ALG_KNOMIAL] = coll_rdma_bcast_knomial_plan,
                         [COLL_RDMA_ALG_HIER] = coll_rdma_bcast_hier_plan},
    [COLL_RDMA_ALLREDUCE] = {[COLL_RDMA_ALG_READ] = coll_rdma_allreduce_read_plan,
                             [COLL_RDMA_ALG_PAIRWISE] = coll_rdma_allreduce_pairwise_plan,
                             [COLL_RDMA_ALG_KTREE] = coll_rdma_allreduce_ktree_plan,
                             [COLL_RDMA_ALG_NWAY] = coll_rdma_allreduce_nway_plan,
                             [COLL_RDMA_ALG_BRUCK] = coll_rdma_allreduce_bruck_plan,
                             [COLL_RDMA_ALG_RING] = coll_rdma_allreduce_ring_plan,
                             [COLL_RDMA_ALG_RSAG] = coll_rdma_allreduce_rsag_plan,
                             [COLL_RDMA_ALG_SSP] = coll_rdma_allreduce_ssp_plan,
                             [COLL_RDMA_ALG_HIER] = coll_rdma_allreduce_hier_plan,
                             [COLL_RDMA_ALG_NPORT] = coll_rdma_allreduce_nport_plan},
    [COLL_RDMA_ALLGATHER] = {[COLL_RDMA_ALG_BRUCK] = coll_rdma_allgather_bruck_plan,
                             [COLL_RDMA_ALG_RING] = coll_rdma_allgather_ring_plan,
                             [COLL_RDMA_ALG_READ] = coll_rdma_allgather_read_plan},
    [COLL_RDMA_ALLTOALL] = {[COLL_RDMA_ALG_BRUCK] = coll_rdma_alltoall_bruck_plan,
                            [COLL_RDMA_ALG_DIRECT] = coll_rdma_alltoall_direct_plan,
                            [COLL_RDMA_ALG_READ] = coll_rdma_alltoall_read_plan},
    [COLL_RDMA_REDUCE] = {[COLL_RDMA_ALG_KNOMIAL] = coll_rdma_reduce_knomial_plan,
                          [COLL_RDMA_ALG_RSAG] = coll_rdma_reduce_rsag_plan,
                          [COLL_RDMA_ALG_HIER] = coll_rdma_reduce_hier_plan},
};

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* The payload a slot of `slot_size` bytes holds after its header. */
static size_t room(size_t slot_size)
{
    return slot_size > COLL_RDMA_SLOT_HEADER ? slot_size - COLL_RDMA_SLOT_HEADER : 0;
}

/* Whether a message of `need` bytes in elements of `unit` bytes goes
 * through segment region `r`: its segment holds one element (so the plans'
 * segments advance) and its slots hold a segment. */
static bool segments_fit(const coll_rdma_rsag_region_t *r, size_t need, size_t unit)
{
    return (0 == need || unit <= r->segment) && min_size(need, r->segment) <= room(r->slot_size);
}

/* The chunk of a k-nomial or hier bcast: the window's segment of its ring
 * (hier: of both rings, the carriers' and the node's) */
static size_t bcast_chunk(const coll_rdma_op_t *op)
{
    const coll_rdma_window_t *w = op->win;

    return COLL_RDMA_ALG_HIER == op->alg ? min_size(w->bcast_segment, w->bcast_read_segment)
                                         : w->bcast_segment;
}

/*
 * Whether one instance of op (op->bytes: the whole call, or one chunk of
 * plan_chunks()) fits the slots of op's window: the most it writes into
 * one slot (the message, a block, or a segment: the configuration's ring
 * segment, or the window's for the segment regions and the bcast rings) is
 * at most the slot's payload,
 * and a segment of a reduction holds one element.
 * The layout sizes every slot for what the decision may serve
 * (coll_rdma_layout()); this is the plans' own guard, so that a decision or
 * a configuration that disagrees with the window fails the call instead of
 * writing past a slot into the next region.
 */
static bool fits(const coll_rdma_op_t *op)
{
    const coll_rdma_window_t *w = op->win;
    size_t need = op->bytes, unit = NULL != op->dtype ? op->dtype->super.size : 1;

    switch (op->coll) {
    case COLL_RDMA_BARRIER:
        return true;
    case COLL_RDMA_BCAST: /* read: in segments; knomial and hier: one chunk of one */
        if (COLL_RDMA_ALG_READ == op->alg) {
            return min_size(need, w->bcast_read_segment) <= room(w->bcast_read_slot_size)
                   || (w->bcast_small_slots > 0 && need <= COLL_RDMA_BCAST_SMALL_BYTES);
        }
        need = min_size(need, bcast_chunk(op));
        return need <= room(w->bcast_slot_size)
               && (COLL_RDMA_ALG_HIER != op->alg || need <= room(w->bcast_read_slot_size));
    case COLL_RDMA_ALLGATHER:
        return COLL_RDMA_ALG_READ == op->alg ? segments_fit(&w->read_allgather, need, 1)
                                             : need <= w->ag_block;
    case COLL_RDMA_ALLTOALL:
        if (COLL_RDMA_ALG_READ == op->alg) {
            return segments_fit(&w->read_alltoall, need, 1);
        }
        return need <= (COLL_RDMA_ALG_BRUCK == op->alg ? w->a2a_bruck_block : w->a2a_direct_block);
    case COLL_RDMA_REDUCE: /* knomial and hier: one chunk */
        return COLL_RDMA_ALG_RSAG == op->alg
                   ? segments_fit(&w->rsag_reduce, need, unit)
                   : need <= w->reduce_bytes && need <= room(w->reduce_slot_size);
    default: /* allreduce */
        switch (op->alg) {
        case COLL_RDMA_ALG_READ:
            return need <= room(w->read_ar_slot_size);
        case COLL_RDMA_ALG_RING:
            return unit <= w->ring_segment_bytes && w->ring_segment_bytes <= room(w->ring_slot_size);
        case COLL_RDMA_ALG_RSAG:
            return segments_fit(&w->rsag_allreduce, need, unit);
        case COLL_RDMA_ALG_SSP:
            return w->ssp_slots > 0 && need <= room(w->ssp_slot_size);
        default: /* the slot algorithms; hier and nport: one chunk */
            return need <= room(w->ar_slot_size);
        }
    }
}

/* One instance's plan, or OMPI_ERR_NOT_SUPPORTED where it would not fit its slots. */
static int plan_one(coll_rdma_op_t *op)
{
    return fits(op) ? coll_rdma_plans[op->coll][op->alg](op) : OMPI_ERR_NOT_SUPPORTED;
}

/*
 * An op of an algorithm whose instance carries one slot, larger than the
 * slot: one instance per chunk of at most `chunk` bytes (whole elements of
 * `unit` bytes), in order, in one program.  Every rank cuts the same chunks
 * (count and type match); chunk g's actions take instance first + g and the
 * chunk's part of the user's buffers, so the slot and credit arguments hold
 * as for separate calls, and a rank may run up to a ring of slots ahead of
 * the ranks it feeds (the credits): the chunks pipeline down a tree.  A
 * chunk smaller than one element is refused (OMPI_ERR_NOT_SUPPORTED; it
 * would never advance), as every rank refuses alike.
 */
static int plan_chunks(coll_rdma_op_t *op, size_t unit, size_t chunk)
{
    size_t count = op->count, bytes = op->bytes;
    uint32_t g = 0;
    int rc = OMPI_SUCCESS;

    chunk -= chunk % unit;
    if (0 == chunk) {
        return OMPI_ERR_NOT_SUPPORTED;
    }
    for (size_t done = 0; OMPI_SUCCESS == rc && done < bytes; done += chunk, ++g) {
        int first = op->prog.n;

        op->bytes = bytes - done < chunk ? bytes - done : chunk;
        op->count = op->bytes / unit; /* elements, where the plan reduces */
        rc = plan_one(op);
        for (int i = first; i < op->prog.n; ++i) {
            coll_rdma_act_t *a = &op->prog.acts[i];
            coll_rdma_buf_t *bufs[2] = {&a->src, &a->dst};

            a->dseq += g;
            for (int b = 0; b < 2; ++b) {
                if (COLL_RDMA_BUF_SBUF == bufs[b]->base || COLL_RDMA_BUF_RBUF == bufs[b]->base) {
                    bufs[b]->off += done;
                }
            }
        }
    }
    op->count = count;
    op->bytes = bytes;
    op->prog.nseq = g;
    return rc;
}

int coll_rdma_plan(coll_rdma_op_t *op)
{
    if (COLL_RDMA_REDUCE == op->coll
        && (COLL_RDMA_ALG_KNOMIAL == op->alg || COLL_RDMA_ALG_HIER == op->alg)
        && op->bytes > op->win->reduce_bytes) {
        return plan_chunks(op, op->dtype->super.size, op->win->reduce_bytes);
    }
    if (COLL_RDMA_ALLREDUCE == op->coll
        && (COLL_RDMA_ALG_HIER == op->alg || COLL_RDMA_ALG_NPORT == op->alg)
        && op->bytes > op->cfg->allreduce_short_max_bytes) {
        return plan_chunks(op, op->dtype->super.size, op->cfg->allreduce_short_max_bytes);
    }
    if (COLL_RDMA_BCAST == op->coll
        && (COLL_RDMA_ALG_KNOMIAL == op->alg || COLL_RDMA_ALG_HIER == op->alg)
        && op->bytes > bcast_chunk(op)) {
        return plan_chunks(op, 1, bcast_chunk(op));
    }
    return plan_one(op);
}
