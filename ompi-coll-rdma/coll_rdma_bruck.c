/*
 * coll/rdma Bruck family: Bruck's concatenation allgather and Bruck's index
 * alltoall, radix COLL_RDMA_BRUCK_RADIX, for small blocks.  Plans (see
 * coll_rdma_prog.h); the schedules (positions, distances, packed slots) are
 * coll_rdma_sched.h's; the regions and why their reuse is safe are in
 * coll_rdma_layout.h.  Blocks at "position" r of a rank live in the scratch
 * at r * block.
 */
#include "ompi_config.h"

#include "coll_rdma_plans.h"
#include "coll_rdma_sched.h"

#include <stdbool.h>

/* dst block (r + shift) % size = src block r, for every r (0 <= shift < size) */
static void rotate_blocks(coll_rdma_prog_t *p, coll_rdma_buf_t dst, coll_rdma_buf_t src, int size,
                          int shift, size_t block)
{
    coll_rdma_buf_t d = dst, s = src;

    d.off += (size_t) shift * block;
    coll_rdma_prog_copy(p, src, d, (size_t) (size - shift) * block, 0);
    if (shift > 0) {
        s.off += (size_t) (size - shift) * block;
        coll_rdma_prog_copy(p, s, dst, (size_t) shift * block, 0);
    }
}

/*
 * Move `count` blocks between `packed` (block x at packed + x * block) and
 * the scratch positions positions[x]: gather into `packed` when `gather`,
 * else scatter out of it.  One COPY per run of consecutive positions.
 */
static void move_positions(coll_rdma_prog_t *p, const int *positions, int count, size_t block,
                           coll_rdma_buf_t packed, bool gather)
{
    for (int x = 0, run; x < count; x += run) {
        coll_rdma_buf_t pos = coll_rdma_buf(COLL_RDMA_BUF_SCRATCH, (size_t) positions[x] * block);
        coll_rdma_buf_t pk = packed;

        for (run = 1; x + run < count && positions[x + run] == positions[x] + run; ++run) {
        }
        pk.off += (size_t) x * block;
        coll_rdma_prog_copy(p, gather ? pos : pk, gather ? pk : pos, (size_t) run * block, 0);
    }
}

/*
 * Packed slot `slot` of a Bruck region at `region` with halves of `half`
 * bytes (instance parity), after `before` blocks of `stride` bytes.
 */
static coll_rdma_slot_t bruck_slot(size_t region, size_t half, int slot, long before,
                                   size_t stride)
{
    return coll_rdma_slot(coll_rdma_packed_slot(region, slot, before, stride), half, 2);
}

int coll_rdma_allgather_bruck_plan(coll_rdma_op_t *op)
{
    coll_rdma_window_t *win = op->win;
    coll_rdma_prog_t *p = &op->prog;
    const int radix = COLL_RDMA_BRUCK_RADIX;
    int size = win->comm_size, rank = win->rank;
    int rounds = coll_rdma_sched_rounds(size, radix);
    size_t block = op->bytes;
    coll_rdma_buf_t tmp = coll_rdma_buf(COLL_RDMA_BUF_SCRATCH, 0);

    coll_rdma_prog_copy(p, coll_rdma_buf(COLL_RDMA_BUF_SBUF, 0), tmp, block, 0);
    for (int t = 0; t < rounds; ++t) {
        /* Sends read positions [0, radix^t), receives write beyond: no overlap. */
        for (int j = 1; j < radix; ++j) {
            int count, dist = coll_rdma_bruck_allgather_step(size, radix, t, j, &count);

            if (0 == dist) {
                break;
            }
            coll_rdma_prog_post(p, 0, (rank - dist + size) % size,
                                bruck_slot(win->off_ag_bruck, win->ag_bruck_half,
                                           t * (radix - 1) + j - 1, dist - 1, win->ag_stride),
                                tmp, (size_t) count * block);
        }
        for (int j = 1; j < radix; ++j) {
            int count, dist = coll_rdma_bruck_allgather_step(size, radix, t, j, &count);
            coll_rdma_slot_t slot;

            if (0 == dist) {
                break;
            }
            slot = bruck_slot(win->off_ag_bruck, win->ag_bruck_half, t * (radix - 1) + j - 1,
                              dist - 1, win->ag_stride);
            coll_rdma_prog_wait(p, 0, slot);
            coll_rdma_prog_copy(p, coll_rdma_buf_slot(slot, -1, 0),
                                coll_rdma_buf(COLL_RDMA_BUF_SCRATCH, (size_t) dist * block),
                                (size_t) count * block, 0);
        }
    }
    /* the final rotation: position r is the block of rank (rank + r) % size */
    rotate_blocks(p, coll_rdma_buf(COLL_RDMA_BUF_RBUF, 0), tmp, size, rank, block);
    /* tmp is the next call's scratch: the puts out of it must be done */
    coll_rdma_prog_flush(p);
    return p->failed ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}

int coll_rdma_alltoall_bruck_plan(coll_rdma_op_t *op)
{
    coll_rdma_window_t *win = op->win;
    coll_rdma_prog_t *p = &op->prog;
    const int radix = COLL_RDMA_BRUCK_RADIX;
    int size = win->comm_size, rank = win->rank;
    int rounds = coll_rdma_sched_rounds(size, radix);
    size_t block = op->bytes;
    /* one round's messages, after the positions */
    size_t pack = (size_t) size * win->a2a_bruck_stride;
    int positions[size];
    long before = 0;

    /* local rotation: position r holds the block for rank (rank + r) % size */
    rotate_blocks(p, coll_rdma_buf(COLL_RDMA_BUF_SCRATCH, 0), coll_rdma_buf(COLL_RDMA_BUF_SBUF, 0),
                  size, (size - rank) % size, block);
    for (int t = 0; t < rounds; ++t) {
        long first = before;
        size_t at = pack;

        /* the previous round's puts read the pack area */
        coll_rdma_prog_flush(p);
        for (int j = 1; j < radix; ++j) {
            int count, dist = coll_rdma_bruck_alltoall_step(size, radix, t, j, positions, &count);
            coll_rdma_buf_t msg = coll_rdma_buf(COLL_RDMA_BUF_SCRATCH, at);

            if (0 == dist) {
                break;
            }
            move_positions(p, positions, count, block, msg, true);
            coll_rdma_prog_post(p, 0, (rank + dist) % size,
                                bruck_slot(win->off_a2a_bruck, win->a2a_bruck_half,
                                           t * (radix - 1) + j - 1, before,
                                           win->a2a_bruck_stride),
                                msg, (size_t) count * block);
            at += (size_t) count * block;
            before += count;
        }
        before = first;
        for (int j = 1; j < radix; ++j) {
            int count, dist = coll_rdma_bruck_alltoall_step(size, radix, t, j, positions, &count);
            coll_rdma_slot_t slot;

            if (0 == dist) {
                break;
            }
            slot = bruck_slot(win->off_a2a_bruck, win->a2a_bruck_half, t * (radix - 1) + j - 1,
                              before, win->a2a_bruck_stride);
            coll_rdma_prog_wait(p, 0, slot);
            move_positions(p, positions, count, block, coll_rdma_buf_slot(slot, -1, 0), false);
            before += count;
        }
    }
    /* position r holds the block from rank (rank - r) % size */
    for (int r = 0; r < size; ++r) {
        coll_rdma_prog_copy(p, coll_rdma_buf(COLL_RDMA_BUF_SCRATCH, (size_t) r * block),
                            coll_rdma_buf(COLL_RDMA_BUF_RBUF,
                                          (size_t) ((rank - r + size) % size) * block),
                            block, 0);
    }
    coll_rdma_prog_flush(p);
    return p->failed ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}
