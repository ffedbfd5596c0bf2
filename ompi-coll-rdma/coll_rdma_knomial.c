/*
 * coll/rdma k-nomial tree family: broadcast top-down, Gupta's degree-k tree
 * allreduce (reduce bottom-up, then the result top-down), and the rooted
 * reduce (bottom-up only).
 */
#include "ompi_config.h"

#include "coll_rdma.h"
#include "coll_rdma_sched.h"
#include "coll_rdma_window.h"

#include <string.h>

/*
 * Send `bytes` at `src` to the slot at `off` of every child (vranks relative
 * to `root`), largest subtree first.  With `credits`, first wait until each
 * child consumed what the slot held before (bcast ring).
 */
static int tree_fanout(coll_rdma_window_t *win, const int *children, int nchildren, int root,
                       size_t off, const void *src, size_t bytes, uint64_t seq, bool credits)
{
    for (int c = 0; c < nchildren; ++c) {
        int peer = (children[c] + root) % win->comm_size;
        int rc = credits ? coll_rdma_window_credit(win, peer, seq) : OMPI_SUCCESS;
        if (OMPI_SUCCESS == rc) {
            rc = coll_rdma_window_post(win, peer, off, src, bytes, seq);
        }
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    return OMPI_SUCCESS;
}

/*
 * Combine the contributions of every child into `acc` (count elements):
 * child vrank v's slot is at base + child_slot(v) * stride.  A fixed order,
 * whatever the arrival order: from the last child listed (the smallest
 * subtree, which arrives first) to the first, acc = child op acc, so the
 * bits are the same run to run.
 */
static void tree_combine(coll_rdma_window_t *win, const int *children, int nchildren, int radix,
                         size_t base, size_t stride, uint64_t seq, void *acc, size_t count,
                         ompi_datatype_t *dtype, ompi_op_t *op)
{
    for (int c = nchildren - 1; c >= 0; --c) {
        size_t off = base
                     + (size_t) coll_rdma_knomial_child_slot(children[c], win->comm_size, radix)
                           * stride;
        coll_rdma_window_wait(win, off, seq);
        coll_rdma_op_reduce(op, coll_rdma_slot_payload(win, off), acc, count, dtype);
    }
}

int coll_rdma_bcast_knomial(void *buf, size_t bytes, int root, mca_coll_rdma_module_t *module,
                            struct ompi_communicator_t *comm)
{
    coll_rdma_window_t *win = module->window;
    int radix = mca_coll_rdma_component.config.bcast_radix;
    int size = win->comm_size;
    int vrank = (win->rank - root + size) % size;
    int children[coll_rdma_knomial_max_children(size, radix) + 1];
    int nchildren = coll_rdma_knomial_children(vrank, size, radix, children);
    uint64_t seq = coll_rdma_next_seq(module, COLL_RDMA_BCAST);
    size_t off = coll_rdma_bcast_slot(win, seq);
    const void *src = buf;
    int rc;
    (void) comm;

    if (0 != vrank) {
        coll_rdma_window_wait(win, off, seq);
        src = coll_rdma_slot_payload(win, off);
    }
    /* children first: they wait on us, our own copy does not */
    rc = tree_fanout(win, children, nchildren, root, off, src, bytes, seq, true);
    if (0 != vrank && bytes > 0) {
        memcpy(buf, src, bytes);
    }
    if (OMPI_SUCCESS == rc) {
        rc = coll_rdma_window_complete(win);
    }
    /* The slot may be rewritten once every put out of it completed.  The
     * root publishes too: the credit a later parent checks is per instance,
     * whoever was root then. */
    coll_rdma_window_consumed(win, seq);
    return rc;
}

int coll_rdma_allreduce_ktree(const void *sbuf, void *rbuf, size_t count, ompi_datatype_t *dtype,
                              ompi_op_t *op, mca_coll_rdma_module_t *module,
                              struct ompi_communicator_t *comm)
{
    coll_rdma_window_t *win = module->window;
    int radix = mca_coll_rdma_component.config.allreduce_ktree_degree + 1;
    int size = win->comm_size, rank = win->rank;
    int children[coll_rdma_knomial_max_children(size, radix) + 1];
    int nchildren = coll_rdma_knomial_children(rank, size, radix, children);
    size_t bytes = count * dtype->super.size;
    uint64_t seq = coll_rdma_next_seq(module, COLL_RDMA_ALLREDUCE);
    const void *result = rbuf;
    int rc = OMPI_SUCCESS;
    (void) comm;

    if (MPI_IN_PLACE != sbuf && bytes > 0) {
        memcpy(rbuf, sbuf, bytes);
    }
    /*
     * Up.  One slot per child is enough: a child writes its next contribution
     * only after it got this call's result from us, which we send after
     * reading every slot.
     */
    tree_combine(win, children, nchildren, radix, win->off_ar_up, win->ar_slot_size, seq, rbuf,
                 count, dtype, op);
    if (0 != rank) {
        int parent = coll_rdma_knomial_parent(rank, size, radix);
        size_t up = coll_rdma_ar_up_slot(win, coll_rdma_knomial_child_slot(rank, size, radix));
        rc = coll_rdma_window_post(win, parent, up, rbuf, bytes, seq);
        if (OMPI_SUCCESS == rc) {
            /* rbuf is overwritten below: the put out of it must be done */
            rc = coll_rdma_window_complete(win);
        }
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        /* Down: the root's combination, identical bits on every rank. */
        coll_rdma_window_wait(win, win->off_ar_down, seq);
        result = coll_rdma_slot_payload(win, win->off_ar_down);
    }
    rc = tree_fanout(win, children, nchildren, 0, win->off_ar_down, result, bytes, seq, false);
    if (0 != rank && bytes > 0) {
        memcpy(rbuf, result, bytes);
    }
    if (OMPI_SUCCESS == rc) {
        rc = coll_rdma_window_complete(win);
    }
    return rc;
}

int coll_rdma_reduce_knomial(const void *sbuf, void *rbuf, size_t count, ompi_datatype_t *dtype,
                             ompi_op_t *op, int root, mca_coll_rdma_module_t *module,
                             struct ompi_communicator_t *comm)
{
    coll_rdma_window_t *win = module->window;
    int radix = mca_coll_rdma_component.config.reduce_radix;
    int size = win->comm_size;
    int vrank = (win->rank - root + size) % size;
    int children[coll_rdma_knomial_max_children(size, radix) + 1];
    int nchildren = coll_rdma_knomial_children(vrank, size, radix, children);
    size_t bytes = count * dtype->super.size;
    uint64_t seq = coll_rdma_next_seq(module, COLL_RDMA_REDUCE);
    void *acc = (void *) sbuf; /* a leaf sends its input as it is */
    int rc = OMPI_SUCCESS;
    (void) comm;

    if (0 == vrank) {
        acc = rbuf;
        if (MPI_IN_PLACE != sbuf) {
            memcpy(rbuf, sbuf, bytes);
        }
    } else if (nchildren > 0) {
        acc = win->scratch;
        memcpy(acc, sbuf, bytes);
    }
    tree_combine(win, children, nchildren, radix, coll_rdma_reduce_slot(win, seq, 0),
                 win->reduce_slot_size, seq, acc, count, dtype, op);
    /* every child slot of this instance is read: its ring may be rewritten */
    coll_rdma_window_reduce_consumed(win, seq);
    if (0 != vrank) {
        int parent = (coll_rdma_knomial_parent(vrank, size, radix) + root) % size;
        rc = coll_rdma_window_reduce_credit(win, parent, seq);
        if (OMPI_SUCCESS == rc) {
            rc = coll_rdma_window_post(
                win, parent,
                coll_rdma_reduce_slot(win, seq, coll_rdma_knomial_child_slot(vrank, size, radix)),
                acc, bytes, seq);
        }
    }
    if (OMPI_SUCCESS == rc) {
        /* acc (user data or the scratch) must be free when we return */
        rc = coll_rdma_window_complete(win);
    }
    return rc;
}
