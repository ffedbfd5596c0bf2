/*
 * coll/rdma notified-read family (End's thesis, chapter 6, on shared
 * memory): where every rank maps every peer's window (one node), a rank
 * writes only its own window and the others read it: bcast from the root's
 * slots, barrier and small allreduce from everyone's, large allreduce as a
 * reduce-scatter and allgather by reading, allgather from everyone's.  Plans (see
 * coll_rdma_prog.h); regions and reuse in coll_rdma_layout.h.
 */
#include "ompi_config.h"

#include "coll_rdma_plans.h"

int coll_rdma_bcast_read_plan(coll_rdma_op_t *op)
{
    coll_rdma_window_t *win = op->win;
    coll_rdma_prog_t *p = &op->prog;
    size_t segment = win->bcast_read_segment;
    /*
     * A message that fits in one line with its word takes the small ring:
     * one transfer per reader, and a ring deep enough that the root reads
     * the credits once per bcast_small_slots such calls.  Its slots have the
     * same writer and readers as the read ring's, and the same consumed
     * word guards them with their own depth.  Every rank decides alike (the
     * message's bytes and the agreed configuration).
     */
    bool small = win->bcast_small_slots > 0 && op->bytes <= COLL_RDMA_BCAST_SMALL_BYTES;
    coll_rdma_slot_t slot = small ? coll_rdma_slot_line(win->off_bcast_small, COLL_RDMA_LINE,
                                                        (uint32_t) win->bcast_small_slots)
                                  : coll_rdma_slot(win->off_bcast_read, win->bcast_read_slot_size,
                                                   (uint32_t) win->bcast_slots);
    int credit = small ? COLL_RDMA_CREDIT_BCAST_SMALL : COLL_RDMA_CREDIT_BCAST;
    uint32_t g = 0;

    /* one instance per segment: the read ring holds bcast_slots of them */
    for (size_t done = 0; done < op->bytes; done += segment, ++g) {
        size_t n = op->bytes - done < segment ? op->bytes - done : segment;

        if (win->rank == op->root) {
            /*
             * The slot last held instance g - depth or earlier (depth: its
             * ring's slots), and every rank publishes "consumed" only after
             * copying out, with a release store, in instance order: once
             * each peer consumed that instance no one reads the slot any
             * more.
             */
            for (int peer = 0; peer < win->comm_size; ++peer) {
                if (peer != op->root) {
                    coll_rdma_prog_credit(p, COLL_RDMA_ACT_CREDIT, g, credit, peer);
                }
            }
            coll_rdma_prog_post(p, g, op->root, slot, coll_rdma_buf(COLL_RDMA_BUF_RBUF, done), n);
        } else {
            coll_rdma_prog_wait_peer(p, g, op->root, slot);
            coll_rdma_prog_copy(p, coll_rdma_buf_slot(slot, op->root, 0),
                                coll_rdma_buf(COLL_RDMA_BUF_RBUF, done), n, g);
        }
        coll_rdma_prog_credit(p, COLL_RDMA_ACT_PUBLISH, g, COLL_RDMA_CREDIT_BCAST, 0);
    }
    p->nseq = g > 0 ? g : 1;
    return p->failed ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}

int coll_rdma_barrier_read_plan(coll_rdma_op_t *op)
{
    coll_rdma_slot_t word = coll_rdma_slot_fixed(op->win->off_read_barrier);

    /* words only grow: a rank already in the next barrier still reads >= seq */
    coll_rdma_prog_post(&op->prog, 0, op->win->rank, word, coll_rdma_buf(COLL_RDMA_BUF_NONE, 0), 0);
    coll_rdma_prog_add(&op->prog, COLL_RDMA_ACT_WAIT_ALL, 0)->slot = word;
    return op->prog.failed ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}

int coll_rdma_allreduce_read_plan(coll_rdma_op_t *op)
{
    coll_rdma_window_t *win = op->win;
    coll_rdma_slot_t slot = coll_rdma_slot(win->off_read_ar, win->read_ar_slot_size, 2);

    /* the own contribution goes into the window before rbuf is written */
    coll_rdma_prog_post(&op->prog, 0, win->rank, slot, coll_rdma_buf(COLL_RDMA_BUF_SBUF, 0),
                        op->bytes);
    /* rbuf = c[P-1] op (... op (c[1] op c[0])): the same expression on every
     * rank, folded while later ranks arrive */
    coll_rdma_prog_fold(&op->prog, COLL_RDMA_ACT_FOLD_ALL, slot, coll_rdma_buf(COLL_RDMA_BUF_RBUF, 0),
                        op->count);
    return op->prog.failed ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}

/*
 * Share r of a segment of n elements of `extent` bytes among `size` ranks:
 * elements [*lo, *hi), boundaries on cache lines where the element size
 * divides a line, so no two ranks write one line of the segment.
 */
static void rsag_share(size_t n, size_t extent, int size, int r, size_t *lo, size_t *hi)
{
    size_t unit = 0 == COLL_RDMA_LINE % extent ? COLL_RDMA_LINE / extent : 1;
    size_t units = (n + unit - 1) / unit;
    size_t a = units * (size_t) r / (size_t) size * unit;
    size_t b = units * (size_t) (r + 1) / (size_t) size * unit;

    *lo = a < n ? a : n;
    *hi = b < n ? b : n;
}

/*
 * The rsag program over region `r`, in segments of the region's: every rank
 * copies every share out (root < 0: allreduce), or only `root` does
 * (reduce).  Every input of an instance is awaited by every rank, even with
 * an empty share: the reuse of the slots rests on it (coll_rdma_layout.h).
 */
static int rsag_plan(coll_rdma_op_t *op, const coll_rdma_rsag_region_t *r, int root)
{
    coll_rdma_window_t *win = op->win;
    coll_rdma_prog_t *p = &op->prog;
    int size = win->comm_size, rank = win->rank;
    size_t extent = op->dtype->super.size;
    size_t seg = r->segment / extent; /* elements, >= 1 (fits() in coll_rdma_plans.c) */
    coll_rdma_slot_t in = coll_rdma_slot(r->off, r->slot_size, 2);
    coll_rdma_slot_t done = coll_rdma_slot(r->off_done, COLL_RDMA_LINE, 2);
    uint32_t g = 0;

    if (0 == seg) { /* fits() refuses it first; never loop without advancing */
        return OMPI_ERR_NOT_SUPPORTED;
    }
    for (size_t first = 0; first < op->count; first += seg, ++g) {
        size_t n = op->count - first < seg ? op->count - first : seg;
        size_t lo, hi;

        /* reduce does not synchronize: the slots of instance g - 2 are rewritten
         * once every rank said it consumed it (credits, as the k-nomial reduce's,
         * so the two may alternate) */
        for (int i = 1; root >= 0 && i < size; ++i) {
            coll_rdma_prog_credit(p, COLL_RDMA_ACT_CREDIT, g, COLL_RDMA_CREDIT_REDUCE,
                                  (rank + i) % size);
        }
        /* the input into this rank's own window: its word says "input in" */
        coll_rdma_prog_post(p, g, rank, in, coll_rdma_buf(COLL_RDMA_BUF_SBUF, first * extent),
                            n * extent);
        /* this rank's share, reduced in place over its own input: every other
         * rank's share in rotated order (readers of one window spread out) */
        rsag_share(n, extent, size, rank, &lo, &hi);
        for (int i = 1; i < size; ++i) {
            int peer = (rank + i) % size;
            coll_rdma_prog_wait_peer(p, g, peer, in);
            if (hi > lo) {
                coll_rdma_prog_reduce(p, coll_rdma_buf_slot(in, peer, lo * extent),
                                      coll_rdma_buf_slot(in, -1, lo * extent), hi - lo, g);
            }
        }
        coll_rdma_prog_post(p, g, rank, done, coll_rdma_buf(COLL_RDMA_BUF_NONE, 0), 0);
        if (root >= 0 && root != rank) {
            coll_rdma_prog_credit(p, COLL_RDMA_ACT_PUBLISH, g, COLL_RDMA_CREDIT_REDUCE, 0);
            continue;
        }
        /* every share from its owner, this rank's own included */
        for (int i = 0; i < size; ++i) {
            int owner = (rank + i) % size;

            rsag_share(n, extent, size, owner, &lo, &hi);
            if (owner != rank) {
                coll_rdma_prog_wait_peer(p, g, owner, done);
            }
            if (hi > lo) {
                coll_rdma_prog_copy(p, coll_rdma_buf_slot(in, owner == rank ? -1 : owner,
                                                          lo * extent),
                                    coll_rdma_buf(COLL_RDMA_BUF_RBUF, (first + lo) * extent),
                                    (hi - lo) * extent, g);
            }
        }
        if (root >= 0) {
            coll_rdma_prog_credit(p, COLL_RDMA_ACT_PUBLISH, g, COLL_RDMA_CREDIT_REDUCE, 0);
        }
    }
    p->nseq = g > 0 ? g : 1;
    return p->failed ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}

int coll_rdma_allgather_read_plan(coll_rdma_op_t *op)
{
    coll_rdma_window_t *win = op->win;
    coll_rdma_prog_t *p = &op->prog;
    const coll_rdma_rsag_region_t *r = &win->read_allgather;
    int size = win->comm_size, rank = win->rank;
    size_t block = op->bytes, seg = r->segment;
    coll_rdma_slot_t in = coll_rdma_slot(r->off, r->slot_size, 2);
    uint32_t g = 0;

    if (0 == seg) { /* as rsag_plan() */
        return OMPI_ERR_NOT_SUPPORTED;
    }
    for (size_t first = 0; first < block; first += seg, ++g) {
        size_t n = block - first < seg ? block - first : seg;

        /* slot g mod 2 last held instance g - 2, which every peer copied out
         * before it posted g - 1, which this rank awaited */
        coll_rdma_prog_post(p, g, rank, in, coll_rdma_buf(COLL_RDMA_BUF_SBUF, first), n);
        /* in rotated order: the readers of one window spread out */
        for (int i = 1; i < size; ++i) {
            int peer = (rank + i) % size;
            coll_rdma_prog_wait_peer(p, g, peer, in);
            coll_rdma_prog_copy(p, coll_rdma_buf_slot(in, peer, 0),
                                coll_rdma_buf(COLL_RDMA_BUF_RBUF, (size_t) peer * block + first),
                                n, g);
        }
    }
    if ((const char *) op->rbuf + (size_t) rank * block != (const char *) op->sbuf) {
        coll_rdma_prog_copy(p, coll_rdma_buf(COLL_RDMA_BUF_SBUF, 0),
                            coll_rdma_buf(COLL_RDMA_BUF_RBUF, (size_t) rank * block), block, 0);
    }
    p->nseq = g > 0 ? g : 1;
    return p->failed ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}

/* The read alltoall's slots for destination d (both parities): slots d and
 * P + d of its region. */
static coll_rdma_slot_t a2a_slot(const coll_rdma_rsag_region_t *r, int size, int d)
{
    return coll_rdma_slot(r->off + (size_t) d * r->slot_size, (size_t) size * r->slot_size, 2);
}

int coll_rdma_alltoall_read_plan(coll_rdma_op_t *op)
{
    coll_rdma_window_t *win = op->win;
    coll_rdma_prog_t *p = &op->prog;
    int size = win->comm_size, rank = win->rank;
    const coll_rdma_rsag_region_t *r = &win->read_alltoall;
    size_t block = op->bytes, seg = r->segment;
    coll_rdma_slot_t mine = a2a_slot(r, size, rank);
    uint32_t g = 0;

    if (0 == seg) { /* as rsag_plan() */
        return OMPI_ERR_NOT_SUPPORTED;
    }
    for (size_t first = 0; first < block; first += seg, ++g) {
        size_t n = block - first < seg ? block - first : seg;

        /* slots g mod 2: free as the read allgather's (every peer posted g - 1) */
        for (int i = 1; i < size; ++i) {
            int d = (rank + i) % size;
            coll_rdma_prog_post(p, g, rank, a2a_slot(r, size, d),
                                coll_rdma_buf(COLL_RDMA_BUF_SBUF, (size_t) d * block + first), n);
        }
        for (int i = 1; i < size; ++i) {
            int peer = (rank - i + size) % size;
            coll_rdma_prog_wait_peer(p, g, peer, mine);
            coll_rdma_prog_copy(p, coll_rdma_buf_slot(mine, peer, 0),
                                coll_rdma_buf(COLL_RDMA_BUF_RBUF, (size_t) peer * block + first),
                                n, g);
        }
    }
    if (op->sbuf != op->rbuf) {
        coll_rdma_prog_copy(p, coll_rdma_buf(COLL_RDMA_BUF_SBUF, (size_t) rank * block),
                            coll_rdma_buf(COLL_RDMA_BUF_RBUF, (size_t) rank * block), block, 0);
    }
    p->nseq = g > 0 ? g : 1;
    return p->failed ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}

int coll_rdma_allreduce_rsag_plan(coll_rdma_op_t *op)
{
    return rsag_plan(op, &op->win->rsag_allreduce, -1);
}

int coll_rdma_reduce_rsag_plan(coll_rdma_op_t *op)
{
    return rsag_plan(op, &op->win->rsag_reduce, op->root);
}
