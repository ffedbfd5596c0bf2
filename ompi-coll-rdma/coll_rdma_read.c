/*
 * coll/rdma notified-read family: where every rank maps every peer's window
 * (one node), readers copy straight out of the root's window.
 */
#include "ompi_config.h"

#include "coll_rdma.h"
#include "coll_rdma_window.h"

#include <string.h>

int coll_rdma_bcast_read(void *buf, size_t bytes, int root, mca_coll_rdma_module_t *module,
                         struct ompi_communicator_t *comm)
{
    coll_rdma_window_t *win = module->window;
    size_t segment = mca_coll_rdma_component.config.bcast_segment_bytes;
    int rc = OMPI_SUCCESS;
    (void) comm;

    for (size_t done = 0; done < bytes && OMPI_SUCCESS == rc; done += segment) {
        size_t n = bytes - done < segment ? bytes - done : segment;
        uint64_t seq = coll_rdma_next_seq(module, COLL_RDMA_BCAST);
        size_t off = coll_rdma_bcast_read_slot(win, seq);

        if (win->rank == root) {
            /*
             * The slot last held instance seq - bcast_slots or earlier, and
             * every rank publishes "consumed" only after copying out, with a
             * release store, in instance order: once each peer consumed
             * seq - bcast_slots no one reads the slot any more.
             */
            for (int peer = 0; peer < win->comm_size && OMPI_SUCCESS == rc; ++peer) {
                if (peer != root) {
                    rc = coll_rdma_window_credit(win, peer, seq);
                }
            }
            if (OMPI_SUCCESS == rc) {
                rc = coll_rdma_window_post(win, root, off, (char *) buf + done, n, seq);
            }
        } else {
            memcpy((char *) buf + done, coll_rdma_window_wait_peer(win, root, off, seq), n);
        }
        coll_rdma_window_consumed(win, seq);
    }
    return rc;
}
