/*
 * coll/rdma direct family: the write-based alltoall of seed 004 (Iakymchuk
 * et al., "Efficient and Eventually Consistent Collective Operations",
 * section IV-B): every rank writes its block for each peer straight into
 * that peer's window, one slot and sequence word per source rank, and waits
 * for the P-1 words of its own slots.  The region and why its reuse is safe
 * are in coll_rdma_window.h.
 */
#include "ompi_config.h"

#include "coll_rdma.h"
#include "coll_rdma_window.h"

#include <string.h>

int coll_rdma_alltoall_direct(const void *sbuf, void *rbuf, size_t block,
                              mca_coll_rdma_module_t *module, struct ompi_communicator_t *comm)
{
    coll_rdma_window_t *win = module->window;
    int size = win->comm_size, rank = win->rank;
    uint64_t seq = coll_rdma_next_seq(module, COLL_RDMA_ALLTOALL);
    const char *in = sbuf;
    char *out = rbuf;
    int rc;
    (void) comm;

    /* rotated order (seed 000 B.4): not every rank writes to rank 0 first */
    for (int i = 1; i < size; ++i) {
        int peer = (rank + i) % size;
        rc = coll_rdma_window_post(win, peer, coll_rdma_a2a_direct_slot(win, seq, rank),
                                   in + (size_t) peer * block, block, seq);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    /* in place (in == out), the puts read what is overwritten below */
    rc = coll_rdma_window_complete(win);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (in != out) {
        memcpy(out + (size_t) rank * block, in + (size_t) rank * block, block);
    }
    for (int i = 1; i < size; ++i) {
        int source = (rank - i + size) % size;
        size_t off = coll_rdma_a2a_direct_slot(win, seq, source);
        coll_rdma_window_wait(win, off, seq);
        memcpy(out + (size_t) source * block, coll_rdma_slot_payload(win, off), block);
    }
    return OMPI_SUCCESS;
}
