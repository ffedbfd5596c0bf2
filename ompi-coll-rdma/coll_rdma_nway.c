/*
 * coll/rdma n-way dissemination family.
 */
#include "ompi_config.h"

#include "coll_rdma.h"
#include "coll_rdma_sched.h"
#include "coll_rdma_window.h"

int coll_rdma_barrier_nway(mca_coll_rdma_module_t *module, struct ompi_communicator_t *comm)
{
    coll_rdma_window_t *win = module->window;
    int n = mca_coll_rdma_component.config.barrier_nway_n;
    int size = win->comm_size, rank = win->rank;
    int rounds = coll_rdma_sched_rounds(size, n + 1);
    uint64_t seq = coll_rdma_next_seq(module, COLL_RDMA_BARRIER);
    int to[n];
    size_t offs[n];
    (void) comm;

    for (int r = 0; r < rounds; ++r) {
        int count = coll_rdma_nway_peers(rank, size, n, r, to, NULL);
        /* Flags only ever grow, so a peer already in the next barrier may
         * overwrite a flag we have not read: >= seq still holds. */
        for (int j = 1; j <= count; ++j) {
            int rc;
            offs[j - 1] = coll_rdma_barrier_slot(win, coll_rdma_nway_slot(n, r, j));
            rc = coll_rdma_window_post(win, to[j - 1], offs[j - 1], NULL, 0, seq);
            if (OMPI_SUCCESS != rc) {
                return rc;
            }
        }
        coll_rdma_window_wait_many(win, offs, count, seq);
    }
    return coll_rdma_window_complete(win);
}
