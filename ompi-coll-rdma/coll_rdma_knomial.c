/*
 * coll/rdma k-nomial tree family: broadcast top-down, Gupta's degree-k tree
 * allreduce (reduce bottom-up, then the result top-down), and the rooted
 * reduce (bottom-up only).  Plans (see coll_rdma_prog.h); regions and reuse
 * in coll_rdma_layout.h.
 */
#include "ompi_config.h"

#include "coll_rdma_plans.h"
#include "coll_rdma_sched.h"

/*
 * The slot of tree node `vrank` among its parent's child slots: `base` (the
 * region's slot 0, any ring) moved by its child slot index times `stride`.
 */
static coll_rdma_slot_t child_slot(coll_rdma_slot_t base, int vrank, int size, int radix,
                                   size_t stride)
{
    base.off += (size_t) coll_rdma_knomial_child_slot(vrank, size, radix) * stride;
    return base;
}

/*
 * Send `bytes` of `src` into `slot` of every child (vranks relative to
 * member `root` of g), largest subtree first.  With `credits` (of that
 * kind, >= 0), each post waits until its child consumed what the slot held
 * before.
 */
static void tree_fanout(coll_rdma_prog_t *p, const coll_rdma_group_t *g, const int *children,
                        int nchildren, int root, coll_rdma_slot_t slot, coll_rdma_buf_t src,
                        size_t bytes, int credits)
{
    for (int c = 0; c < nchildren; ++c) {
        int peer = coll_rdma_group_peer(g, (children[c] + root) % g->size);
        if (credits >= 0) {
            coll_rdma_prog_credit(p, COLL_RDMA_ACT_CREDIT, 0, credits, peer);
        }
        coll_rdma_prog_post(p, 0, peer, slot, src, bytes);
    }
}

/*
 * Combine the contributions of every child into `acc` (count elements) in a
 * tree of `size` members: child vrank v's slot is child_slot(base, v, ...,
 * stride).  A fixed order, whatever the arrival order: from the last child
 * listed (the smallest subtree, which arrives first) to the first, acc =
 * child op acc, so the bits are the same run to run.
 */
static void tree_combine(coll_rdma_prog_t *p, int size, const int *children, int nchildren,
                         int radix, coll_rdma_slot_t base, size_t stride, coll_rdma_buf_t acc,
                         size_t count)
{
    for (int c = nchildren - 1; c >= 0; --c) {
        coll_rdma_slot_t slot = child_slot(base, children[c], size, radix, stride);
        coll_rdma_prog_wait(p, 0, slot);
        coll_rdma_prog_reduce(p, coll_rdma_buf_slot(slot, -1, 0), acc, count, 0);
    }
}

void coll_rdma_bcast_knomial_group(coll_rdma_op_t *op, const coll_rdma_group_t *g, int root)
{
    coll_rdma_window_t *win = op->win;
    coll_rdma_prog_t *p = &op->prog;
    int radix = op->cfg->bcast_radix;
    int vrank = (g->rank - root + g->size) % g->size;
    int children[coll_rdma_knomial_max_children(g->size, radix) + 1];
    int nchildren = coll_rdma_knomial_children(vrank, g->size, radix, children);
    coll_rdma_slot_t slot = coll_rdma_slot(win->off_bcast, win->bcast_slot_size,
                                           (uint32_t) win->bcast_slots);
    coll_rdma_buf_t rbuf = coll_rdma_buf(COLL_RDMA_BUF_RBUF, 0);
    coll_rdma_buf_t src = 0 == vrank ? rbuf : coll_rdma_buf_slot(slot, -1, 0);

    if (0 != vrank) {
        coll_rdma_prog_wait(p, 0, slot);
    }
    /* children first: they wait on us, our own copy does not */
    tree_fanout(p, g, children, nchildren, root, slot, src, op->bytes, COLL_RDMA_CREDIT_BCAST);
    if (0 != vrank) {
        coll_rdma_prog_copy(p, src, rbuf, op->bytes, 0);
    }
}

int coll_rdma_bcast_knomial_plan(coll_rdma_op_t *op)
{
    coll_rdma_prog_t *p = &op->prog;
    coll_rdma_group_t all = coll_rdma_group_all(op->win);

    coll_rdma_bcast_knomial_group(op, &all, op->root);
    coll_rdma_prog_flush(p);
    /* The slot may be rewritten once every put out of it completed.  The
     * root publishes too: the credit a later parent checks is per instance,
     * whoever was root then. */
    coll_rdma_prog_credit(p, COLL_RDMA_ACT_PUBLISH, 0, COLL_RDMA_CREDIT_BCAST, 0);
    return p->failed ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}

int coll_rdma_allreduce_ktree_plan(coll_rdma_op_t *op)
{
    coll_rdma_window_t *win = op->win;
    coll_rdma_prog_t *p = &op->prog;
    int radix = op->cfg->allreduce_ktree_degree + 1;
    int size = win->comm_size, rank = win->rank;
    coll_rdma_group_t all = coll_rdma_group_all(win);
    int children[coll_rdma_knomial_max_children(size, radix) + 1];
    int nchildren = coll_rdma_knomial_children(rank, size, radix, children);
    coll_rdma_slot_t up = coll_rdma_slot_fixed(win->off_ar_up);
    coll_rdma_slot_t down = coll_rdma_slot_fixed(win->off_ar_down);
    coll_rdma_buf_t rbuf = coll_rdma_buf(COLL_RDMA_BUF_RBUF, 0);
    coll_rdma_buf_t result = rbuf;

    if (op->sbuf != op->rbuf) {
        coll_rdma_prog_copy(p, coll_rdma_buf(COLL_RDMA_BUF_SBUF, 0), rbuf, op->bytes, 0);
    }
    /*
     * Up.  One slot per child is enough: a child writes its next contribution
     * only after it got this call's result from us, which we send after
     * reading every slot.
     */
    tree_combine(p, size, children, nchildren, radix, up, win->ar_slot_size, rbuf, op->count);
    if (0 != rank) {
        int parent = coll_rdma_knomial_parent(rank, size, radix);
        coll_rdma_prog_post(p, 0, parent, child_slot(up, rank, size, radix, win->ar_slot_size),
                            rbuf, op->bytes);
        /* rbuf is overwritten below: the put out of it must be done */
        coll_rdma_prog_flush(p);
        /* Down: the root's combination, identical bits on every rank. */
        coll_rdma_prog_wait(p, 0, down);
        result = coll_rdma_buf_slot(down, -1, 0);
    }
    tree_fanout(p, &all, children, nchildren, 0, down, result, op->bytes, -1);
    if (0 != rank) {
        coll_rdma_prog_copy(p, result, rbuf, op->bytes, 0);
    }
    coll_rdma_prog_flush(p);
    return p->failed ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}

void coll_rdma_reduce_knomial_group(coll_rdma_op_t *op, const coll_rdma_group_t *g, int root,
                                    coll_rdma_buf_t acc)
{
    coll_rdma_window_t *win = op->win;
    coll_rdma_prog_t *p = &op->prog;
    int radix = op->cfg->reduce_radix;
    int vrank = (g->rank - root + g->size) % g->size;
    int children[coll_rdma_knomial_max_children(g->size, radix) + 1];
    int nchildren = coll_rdma_knomial_children(vrank, g->size, radix, children);
    /* COLL_RDMA_REDUCE_DEPTH rings of reduce_children slots, by instance */
    coll_rdma_slot_t ring = coll_rdma_slot(win->off_reduce,
                                           (size_t) win->reduce_children * win->reduce_slot_size,
                                           COLL_RDMA_REDUCE_DEPTH);

    tree_combine(p, g->size, children, nchildren, radix, ring, win->reduce_slot_size, acc,
                 op->count);
    /* every child slot of this instance is read: its ring may be rewritten */
    coll_rdma_prog_credit(p, COLL_RDMA_ACT_PUBLISH, 0, COLL_RDMA_CREDIT_REDUCE, 0);
    if (0 != vrank) {
        int up = (coll_rdma_knomial_parent(vrank, g->size, radix) + root) % g->size;
        int parent = coll_rdma_group_peer(g, up);
        coll_rdma_prog_credit(p, COLL_RDMA_ACT_CREDIT, 0, COLL_RDMA_CREDIT_REDUCE, parent);
        coll_rdma_prog_post(p, 0, parent,
                            child_slot(ring, vrank, g->size, radix, win->reduce_slot_size), acc,
                            op->bytes);
    }
    /* acc (user data or the scratch) must be free when the op completes */
    coll_rdma_prog_flush(p);
}

int coll_rdma_reduce_knomial_plan(coll_rdma_op_t *op)
{
    coll_rdma_window_t *win = op->win;
    coll_rdma_prog_t *p = &op->prog;
    coll_rdma_group_t all = coll_rdma_group_all(win);
    int size = win->comm_size, radix = op->cfg->reduce_radix;
    int vrank = (win->rank - op->root + size) % size;
    int children[coll_rdma_knomial_max_children(size, radix) + 1];
    coll_rdma_buf_t sbuf = coll_rdma_buf(COLL_RDMA_BUF_SBUF, 0);
    coll_rdma_buf_t acc = sbuf; /* a leaf sends its input as it is */

    if (0 == vrank) {
        acc = coll_rdma_buf(COLL_RDMA_BUF_RBUF, 0);
        if (op->sbuf != op->rbuf) {
            coll_rdma_prog_copy(p, sbuf, acc, op->bytes, 0);
        }
    } else if (coll_rdma_knomial_children(vrank, size, radix, children) > 0) {
        acc = coll_rdma_buf(COLL_RDMA_BUF_SCRATCH, 0);
        coll_rdma_prog_copy(p, sbuf, acc, op->bytes, 0);
    }
    coll_rdma_reduce_knomial_group(op, &all, op->root, acc);
    return p->failed ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}
