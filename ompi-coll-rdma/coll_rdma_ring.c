/*
 * coll/rdma ring family.
 */
#include "ompi_config.h"

#include "coll_rdma.h"
#include "coll_rdma_sched.h"
#include "coll_rdma_window.h"

#include <string.h>

/*
 * ---- ring allgather ----
 *
 * size-1 steps to the right neighbour; each step forwards, straight out of
 * this rank's window slot, the block that arrived in the previous step.  The
 * region (one slot per step, two halves by instance parity) and why its
 * reuse is safe are in coll_rdma_window.h.
 */
int coll_rdma_allgather_ring(const void *sblock, void *rbuf, size_t block,
                             mca_coll_rdma_module_t *module, struct ompi_communicator_t *comm)
{
    coll_rdma_window_t *win = module->window;
    int size = win->comm_size, rank = win->rank;
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    uint64_t seq = coll_rdma_next_seq(module, COLL_RDMA_ALLGATHER);
    const void *src = sblock;
    char *out = rbuf;
    (void) comm;

    for (int step = 0; step < size - 1; ++step) {
        size_t off = coll_rdma_ag_ring_slot(win, seq, step);
        int rc = coll_rdma_window_post(win, right, off, src, block, seq);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        /* the slot is written once per instance: it may be forwarded from */
        coll_rdma_window_wait(win, off, seq);
        src = coll_rdma_slot_payload(win, off);
        memcpy(out + (size_t) coll_rdma_ring_allgather_block(left, size, step) * block, src, block);
    }
    if (out + (size_t) rank * block != (const char *) sblock) {
        memcpy(out + (size_t) rank * block, sblock, block);
    }
    return coll_rdma_window_complete(win);
}
