/*
 * coll/rdma ring family: the ring allgather, and the segmented pipelined
 * ring allreduce (reduce-scatter, then allgather) for large messages.  Plans
 * (see coll_rdma_prog.h); regions and reuse in coll_rdma_layout.h.
 */
#include "ompi_config.h"

#include "coll_rdma_plans.h"
#include "coll_rdma_sched.h"
#include "coll_rdma_window.h"

/*
 * ---- ring allgather ----
 *
 * size-1 steps to the right neighbour (in node order where the window has a
 * node map, coll_rdma_group_by_node(): only one link per node crosses the
 * network, whatever the placement of ranks); each step forwards, straight
 * out of this rank's window slot, the block that arrived in the previous
 * step.  The region (one slot per step, two halves by instance parity) and
 * why its reuse is safe are in coll_rdma_layout.h.
 */
int coll_rdma_allgather_ring_plan(coll_rdma_op_t *op)
{
    coll_rdma_window_t *win = op->win;
    coll_rdma_prog_t *p = &op->prog;
    coll_rdma_group_t ring = coll_rdma_group_by_node(win);
    int size = ring.size, rank = win->rank, pos = ring.rank;
    int right = coll_rdma_group_peer(&ring, (pos + 1) % size);
    int left = (pos - 1 + size) % size; /* a position: the block of step s came from left - s */
    size_t block = op->bytes;
    coll_rdma_buf_t src = coll_rdma_buf(COLL_RDMA_BUF_SBUF, 0);

    for (int step = 0; step < size - 1; ++step) {
        coll_rdma_slot_t slot = coll_rdma_slot(win->off_ag_ring + (size_t) step * win->ag_ring_slot,
                                               (size_t) (size - 1) * win->ag_ring_slot, 2);

        coll_rdma_prog_post(p, 0, right, slot, src, block);
        /* the slot is written once per instance: it may be forwarded from */
        coll_rdma_prog_wait(p, 0, slot);
        src = coll_rdma_buf_slot(slot, -1, 0);
        coll_rdma_prog_copy(p, src,
                            coll_rdma_buf(COLL_RDMA_BUF_RBUF,
                                          (size_t) coll_rdma_group_peer(
                                              &ring, coll_rdma_ring_allgather_block(left, size, step))
                                              * block),
                            block, 0);
    }
    if ((const char *) op->rbuf + (size_t) rank * block != (const char *) op->sbuf) {
        coll_rdma_prog_copy(p, coll_rdma_buf(COLL_RDMA_BUF_SBUF, 0),
                            coll_rdma_buf(COLL_RDMA_BUF_RBUF, (size_t) rank * block), block, 0);
    }
    coll_rdma_prog_flush(p);
    return p->failed ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}

/*
 * ---- segmented pipelined ring allreduce (seed 004 section IV-A) ----------
 *
 * Positions on the ring: rank order, or node by node where the window has a
 * node map (coll_rdma_group_by_node()).  Reduce-scatter: in step s = 0 ..
 * P-2 position i sends block i-s to i+1 and receives block i-s-1 from i-1,
 * which it reduces into its own copy; after it, position i holds block i+1
 * complete.  Allgather: in step s position i sends block i-s+1 and receives
 * block i-s, which overwrites its copy (verify/ring.py checks these
 * indices).  Every block goes out in segments of at most
 * ring_segment_bytes, and segment g of a step is sent as soon as segment g
 * of the previous step is in, so the steps pipeline.
 *
 * Identical bits on every rank: every element of block c is combined once,
 * along the ring from position c to position c-1, always as
 * ((x_c o x_{c+1}) o x_{c+2}) o ... o x_{c-1}; the allgather then copies
 * those bits.  The partition into blocks depends only on count and P, which
 * all ranks share.
 *
 * Flow control: ring messages from position i to i+1 are numbered m = 1, 2, ...
 * over every ring call on the communicator (both sides count the same
 * stream: what i sends in step s is what i+1 receives in step s).  Message
 * m goes to slot m % slots, written only by the left neighbour; the sender
 * first waits for the ack line (written only by the right neighbour) to say
 * that m - slots was consumed.  No deadlock with slots >= 2: at any send, a
 * rank has sent at most one message more than it has received (block sizes
 * differ by at most one element, so their segment counts by at most one),
 * so if every rank were blocked in a send, the ring as a whole would hold
 * at most P unconsumed messages while each of the P links needed more than
 * slots - 1 >= 1 of them.
 */

/* Elements [*first, *first + *len) of block b of count elements over size. */
static void ring_block(size_t count, int size, int b, size_t *first, size_t *len)
{
    size_t q = count / (size_t) size, r = count % (size_t) size;

    *first = (size_t) b * q + ((size_t) b < r ? (size_t) b : r);
    *len = q + ((size_t) b < r ? 1 : 0);
}

/*
 * The next ring message, src[bytes], to the right neighbour (once the ack
 * line allows it), then a flush: the next post changes the sequence word's
 * source (at once where the peer is mapped).
 */
static void ring_send(coll_rdma_prog_t *p, int right, coll_rdma_buf_t src, size_t bytes)
{
    coll_rdma_act_t *a = coll_rdma_prog_add(p, COLL_RDMA_ACT_RING_SEND, 0);

    a->peer = right;
    a->src = src;
    a->len = bytes;
    coll_rdma_prog_flush(p);
}

/* The message received last is consumed: ack it to the left, then a flush as above. */
static void ring_consumed(coll_rdma_prog_t *p, int left)
{
    coll_rdma_prog_add(p, COLL_RDMA_ACT_RING_ACK, 0)->peer = left;
    coll_rdma_prog_flush(p);
}

int coll_rdma_allreduce_ring_plan(coll_rdma_op_t *op)
{
    coll_rdma_window_t *win = op->win;
    coll_rdma_prog_t *p = &op->prog;
    coll_rdma_group_t ring = coll_rdma_group_by_node(win);
    int size = ring.size, pos = ring.rank;
    /* blocks are numbered by position on the ring */
    int right = coll_rdma_group_peer(&ring, (pos + 1) % size);
    int left = coll_rdma_group_peer(&ring, (pos - 1 + size) % size);
    size_t count = op->count;
    size_t extent = op->dtype->super.size;
    size_t seg = win->ring_segment_bytes / extent; /* elements per segment, >= 1 */
    coll_rdma_buf_t msg = coll_rdma_buf(COLL_RDMA_BUF_RING, 0);

    /* one instance (the program's default), though ring messages count their own stream */
    if (op->sbuf != op->rbuf) {
        coll_rdma_prog_copy(p, coll_rdma_buf(COLL_RDMA_BUF_SBUF, 0),
                            coll_rdma_buf(COLL_RDMA_BUF_RBUF, 0), count * extent, 0);
    }
    for (int phase = 0; phase < 2; ++phase) {
        for (int s = 0; s < size - 1; ++s) {
            /* phase 0 reduce-scatter, phase 1 allgather: one block later */
            int send_block = ((pos - s + phase) % size + size) % size;
            int recv_block = ((pos - s - 1 + phase) % size + size) % size;
            size_t send_first, send_len, recv_first, recv_len;

            ring_block(count, size, send_block, &send_first, &send_len);
            ring_block(count, size, recv_block, &recv_first, &recv_len);
            for (size_t g = 0; g < send_len || g < recv_len; g += seg) {
                if (g < send_len) {
                    size_t n = send_len - g < seg ? send_len - g : seg;
                    ring_send(p, right, coll_rdma_buf(COLL_RDMA_BUF_RBUF, (send_first + g) * extent),
                              n * extent);
                }
                if (g < recv_len) {
                    size_t n = recv_len - g < seg ? recv_len - g : seg;
                    coll_rdma_buf_t target = coll_rdma_buf(COLL_RDMA_BUF_RBUF,
                                                           (recv_first + g) * extent);
                    coll_rdma_prog_add(p, COLL_RDMA_ACT_RING_RECV, 0);
                    if (0 == phase) {
                        coll_rdma_prog_reduce(p, msg, target, n, 0);
                    } else {
                        coll_rdma_prog_copy(p, msg, target, n * extent, 0);
                    }
                    ring_consumed(p, left);
                }
            }
        }
    }
    return p->failed ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}
