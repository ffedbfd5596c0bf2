/*
 * coll/rdma ring family: the ring allgather, and the segmented pipelined
 * ring allreduce (reduce-scatter, then allgather) for large messages.
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

/*
 * ---- segmented pipelined ring allreduce (seed 004 section IV-A) ----------
 *
 * Reduce-scatter: in step s = 0 .. P-2 rank i sends block i-s to i+1 and
 * receives block i-s-1 from i-1, which it reduces into its own copy; after
 * it, rank i holds block i+1 complete.  Allgather: in step s rank i sends
 * block i-s+1 and receives block i-s, which overwrites its copy
 * (verify/ring.py checks these indices).  Every block goes out in segments
 * of at most ring_segment_bytes, and segment g of a step is sent as soon as
 * segment g of the previous step is in, so the steps pipeline.
 *
 * Identical bits on every rank: every element of block c is combined once,
 * along the ring from rank c to rank c-1, always as
 * ((x_c o x_{c+1}) o x_{c+2}) o ... o x_{c-1}; the allgather then copies
 * those bits.  The partition into blocks depends only on count and P, which
 * all ranks share.
 *
 * Flow control: ring messages from rank i to i+1 are numbered m = 1, 2, ...
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

/* Send the next ring message to the right neighbour. */
static int ring_send(coll_rdma_window_t *win, int right, const void *src, size_t bytes)
{
    uint64_t m = ++win->ring_sent;
    int rc;

    /* slot m % slots held message m - slots: wait until it was consumed
     * (wrap-safe: true at once for m <= slots) */
    coll_rdma_window_wait(win, win->off_ring_ack, m - (uint64_t) win->ring_slots);
    rc = coll_rdma_window_post(win, right, coll_rdma_ring_slot(win, m), src, bytes, m);
    if (OMPI_SUCCESS == rc) {
        /* the next post changes the sequence word's source (a no-op where
         * the peer is mapped) */
        rc = coll_rdma_window_complete(win);
    }
    return rc;
}

/* Wait for the next ring message from the left neighbour; its payload. */
static const void *ring_recv(coll_rdma_window_t *win)
{
    uint64_t m = win->ring_received + 1;

    coll_rdma_window_wait(win, coll_rdma_ring_slot(win, m), m);
    return coll_rdma_slot_payload(win, coll_rdma_ring_slot(win, m));
}

/* The message ring_recv() returned is consumed: ack it to the left. */
static int ring_consumed(coll_rdma_window_t *win, int left)
{
    int rc = coll_rdma_window_post(win, left, win->off_ring_ack, NULL, 0, ++win->ring_received);
    return OMPI_SUCCESS == rc ? coll_rdma_window_complete(win) : rc;
}

int coll_rdma_allreduce_ring(const void *sbuf, void *rbuf, size_t count, ompi_datatype_t *dtype,
                             ompi_op_t *op, mca_coll_rdma_module_t *module,
                             struct ompi_communicator_t *comm)
{
    coll_rdma_window_t *win = module->window;
    int size = win->comm_size, rank = win->rank;
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    size_t extent = dtype->super.size;
    size_t seg = win->ring_segment_bytes / extent; /* elements per segment, >= 1 */
    char *buf = rbuf;
    (void) comm;
    (void) coll_rdma_next_seq(module, COLL_RDMA_ALLREDUCE); /* one more instance */

    if (MPI_IN_PLACE != sbuf) {
        memcpy(rbuf, sbuf, count * extent);
    }
    for (int phase = 0; phase < 2; ++phase) {
        for (int s = 0; s < size - 1; ++s) {
            /* phase 0 reduce-scatter, phase 1 allgather: one block later */
            int send_block = ((rank - s + phase) % size + size) % size;
            int recv_block = ((rank - s - 1 + phase) % size + size) % size;
            size_t send_first, send_len, recv_first, recv_len;

            ring_block(count, size, send_block, &send_first, &send_len);
            ring_block(count, size, recv_block, &recv_first, &recv_len);
            for (size_t g = 0; g < send_len || g < recv_len; g += seg) {
                int rc = OMPI_SUCCESS;
                if (g < send_len) {
                    size_t n = send_len - g < seg ? send_len - g : seg;
                    rc = ring_send(win, right, buf + (send_first + g) * extent, n * extent);
                }
                if (OMPI_SUCCESS == rc && g < recv_len) {
                    size_t n = recv_len - g < seg ? recv_len - g : seg;
                    char *target = buf + (recv_first + g) * extent;
                    const void *msg = ring_recv(win);
                    if (0 == phase) {
                        coll_rdma_op_reduce(op, msg, target, n, dtype);
                    } else {
                        memcpy(target, msg, n * extent);
                    }
                    rc = ring_consumed(win, left);
                }
                if (OMPI_SUCCESS != rc) {
                    return rc;
                }
            }
        }
    }
    return OMPI_SUCCESS;
}
