/*
 * coll/rdma Bruck family: Bruck's concatenation allgather and Bruck's index
 * alltoall, radix COLL_RDMA_BRUCK_RADIX, for small blocks.  The schedules
 * (positions, distances, packed slots) are coll_rdma_sched.h's; the regions
 * and why their reuse is safe are in coll_rdma_window.h.
 */
#include "ompi_config.h"

#include "coll_rdma.h"
#include "coll_rdma_sched.h"
#include "coll_rdma_window.h"

#include <string.h>

/* dst block (r + shift) % size = src block r, for every r (0 <= shift < size) */
static void rotate_blocks(char *dst, const char *src, int size, int shift, size_t block)
{
    memcpy(dst + (size_t) shift * block, src, (size_t) (size - shift) * block);
    memcpy(dst, src + (size_t) (size - shift) * block, (size_t) shift * block);
}

int coll_rdma_allgather_bruck(const void *sblock, void *rbuf, size_t block,
                              mca_coll_rdma_module_t *module, struct ompi_communicator_t *comm)
{
    coll_rdma_window_t *win = module->window;
    const int radix = COLL_RDMA_BRUCK_RADIX;
    int size = win->comm_size, rank = win->rank;
    int rounds = coll_rdma_sched_rounds(size, radix);
    uint64_t seq = coll_rdma_next_seq(module, COLL_RDMA_ALLGATHER);
    char *tmp = win->scratch; /* position r at tmp + r * block */
    char *out = rbuf;
    (void) comm;

    memcpy(tmp, sblock, block);
    for (int t = 0; t < rounds; ++t) {
        /* Sends read positions [0, radix^t), receives write beyond: no overlap. */
        for (int j = 1; j < radix; ++j) {
            int count, dist = coll_rdma_bruck_allgather_step(size, radix, t, j, &count);
            size_t off;
            int rc;

            if (0 == dist) {
                break;
            }
            off = coll_rdma_packed_slot(win->off_ag_bruck, win->ag_bruck_half, seq,
                                        t * (radix - 1) + j - 1, dist - 1, win->ag_stride);
            rc = coll_rdma_window_post(win, (rank - dist + size) % size, off, tmp,
                                       (size_t) count * block, seq);
            if (OMPI_SUCCESS != rc) {
                return rc;
            }
        }
        for (int j = 1; j < radix; ++j) {
            int count, dist = coll_rdma_bruck_allgather_step(size, radix, t, j, &count);
            size_t off;

            if (0 == dist) {
                break;
            }
            off = coll_rdma_packed_slot(win->off_ag_bruck, win->ag_bruck_half, seq,
                                        t * (radix - 1) + j - 1, dist - 1, win->ag_stride);
            coll_rdma_window_wait(win, off, seq);
            memcpy(tmp + (size_t) dist * block, coll_rdma_slot_payload(win, off),
                   (size_t) count * block);
        }
    }
    /* the final rotation: position r is the block of rank (rank + r) % size */
    rotate_blocks(out, tmp, size, rank, block);
    /* tmp is the next call's scratch: the puts out of it must be done */
    return coll_rdma_window_complete(win);
}

int coll_rdma_alltoall_bruck(const void *sbuf, void *rbuf, size_t block,
                             mca_coll_rdma_module_t *module, struct ompi_communicator_t *comm)
{
    coll_rdma_window_t *win = module->window;
    const int radix = COLL_RDMA_BRUCK_RADIX;
    int size = win->comm_size, rank = win->rank;
    int rounds = coll_rdma_sched_rounds(size, radix);
    uint64_t seq = coll_rdma_next_seq(module, COLL_RDMA_ALLTOALL);
    char *tmp = win->scratch;                          /* position r at tmp + r * block */
    char *pack = tmp + (size_t) size * win->a2a_bruck_stride; /* one round's messages */
    const char *in = sbuf;
    char *out = rbuf;
    int positions[size];
    long before = 0;
    (void) comm;

    /* local rotation: position r holds the block for rank (rank + r) % size */
    rotate_blocks(tmp, in, size, (size - rank) % size, block);
    for (int t = 0; t < rounds; ++t) {
        long first = before;
        char *p = pack;
        int rc;

        /* the previous round's puts read the pack area */
        rc = coll_rdma_window_complete(win);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        for (int j = 1; j < radix; ++j) {
            int count, dist = coll_rdma_bruck_alltoall_step(size, radix, t, j, positions, &count);
            size_t off;

            if (0 == dist) {
                break;
            }
            for (int x = 0; x < count; ++x) {
                memcpy(p + (size_t) x * block, tmp + (size_t) positions[x] * block, block);
            }
            off = coll_rdma_packed_slot(win->off_a2a_bruck, win->a2a_bruck_half, seq,
                                        t * (radix - 1) + j - 1, before, win->a2a_bruck_stride);
            rc = coll_rdma_window_post(win, (rank + dist) % size, off, p, (size_t) count * block,
                                       seq);
            if (OMPI_SUCCESS != rc) {
                return rc;
            }
            p += (size_t) count * block;
            before += count;
        }
        before = first;
        for (int j = 1; j < radix; ++j) {
            int count, dist = coll_rdma_bruck_alltoall_step(size, radix, t, j, positions, &count);
            const char *payload;
            size_t off;

            if (0 == dist) {
                break;
            }
            off = coll_rdma_packed_slot(win->off_a2a_bruck, win->a2a_bruck_half, seq,
                                        t * (radix - 1) + j - 1, before, win->a2a_bruck_stride);
            coll_rdma_window_wait(win, off, seq);
            payload = coll_rdma_slot_payload(win, off);
            for (int x = 0; x < count; ++x) {
                memcpy(tmp + (size_t) positions[x] * block, payload + (size_t) x * block, block);
            }
            before += count;
        }
    }
    /* position r holds the block from rank (rank - r) % size */
    for (int r = 0; r < size; ++r) {
        memcpy(out + (size_t) ((rank - r + size) % size) * block, tmp + (size_t) r * block, block);
    }
    return coll_rdma_window_complete(win);
}
