/*
 * coll/rdma window geometry: offsets, slot sizes, regions, block caps and the
 * scratch size of a window, computed from the agreed configuration and the
 * communicator size alone (the layout and every reuse argument are in
 * coll_rdma_window.h).  Pure: no UCX, no component globals, no allocation,
 * so the unit tests (tests/unit/test_plans.c) lay out simulated windows with
 * the very code the component uses.
 */
#include "ompi_config.h"

#include "coll_rdma_window.h"
#include "coll_rdma_rules.h"
#include "coll_rdma_sched.h"

static size_t line_round(size_t bytes)
{
    return (bytes + COLL_RDMA_LINE - 1) & ~((size_t) COLL_RDMA_LINE - 1);
}

/*
 * Remember `nslots` slots of `stride` bytes at `off` (packing as in
 * coll_rdma_region_t), each starting with a word that must hold `empty`
 * before the address exchange.
 */
static void note_region(coll_rdma_window_t *win, size_t off, int nslots, size_t stride,
                        int packed, uint64_t empty)
{
    if (win->nregions < COLL_RDMA_MAX_REGIONS) {
        win->regions[win->nregions].off = off;
        win->regions[win->nregions].nslots = nslots;
        win->regions[win->nregions].stride = stride;
        win->regions[win->nregions].packed = packed;
        win->regions[win->nregions].empty = empty;
    }
    ++win->nregions; /* more than COLL_RDMA_MAX_REGIONS: the layout fails */
}

/* Packed Bruck slots of sequence words (packed: 1 allgather, 2 alltoall). */
static void note_packed_region(coll_rdma_window_t *win, size_t off, int nslots, size_t stride,
                               int packed)
{
    note_region(win, off, nslots, stride, packed, win->seq_start - 1);
}

size_t coll_rdma_window_region_slot(const coll_rdma_window_t *win, const coll_rdma_region_t *r,
                                    int s)
{
    if (0 == r->packed) {
        return r->off + (size_t) s * r->stride;
    }
    return coll_rdma_packed_slot(r->off, s,
                                 coll_rdma_bruck_blocks_before(win->comm_size,
                                                               COLL_RDMA_BRUCK_RADIX, s,
                                                               2 == r->packed),
                                 r->stride);
}

/* Reserve `nslots` slots of `stride` bytes at *off (advanced past them), each
 * starting with a word that holds `empty` at first; returns their offset. */
static size_t reserve_region(coll_rdma_window_t *win, size_t *off, int nslots, size_t stride,
                             uint64_t empty)
{
    size_t start = *off;

    note_region(win, start, nslots, stride, 0, empty);
    *off += (size_t) nslots * stride;
    return start;
}

/* Slots whose words are sequence numbers: they start at the instance before the first. */
static size_t add_region(coll_rdma_window_t *win, size_t *off, int nslots, size_t stride)
{
    return reserve_region(win, off, nslots, stride, win->seq_start - 1);
}

static size_t round8(size_t bytes)
{
    return (bytes + 7) & ~(size_t) 7;
}

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* Blocks held by one half of a Bruck region. */
static long bruck_half_blocks(int comm_size, bool alltoall)
{
    int slots = coll_rdma_sched_rounds(comm_size, COLL_RDMA_BRUCK_RADIX)
                * (COLL_RDMA_BRUCK_RADIX - 1);
    return coll_rdma_bruck_blocks_before(comm_size, COLL_RDMA_BRUCK_RADIX, slots, alltoall);
}

size_t coll_rdma_window_block_cap(const coll_rdma_config_t *cfg, int comm_size, int coll, int alg)
{
    size_t blocks;

    switch (coll) {
    case COLL_RDMA_ALLGATHER:
        if (COLL_RDMA_ALG_READ == alg) {
            return cfg->allgather_max_bytes; /* window memory is per segment */
        }
        /* one cap for bruck and ring: two halves of at most P blocks each */
        return min_size(cfg->allgather_max_bytes,
                        COLL_RDMA_REGION_BUDGET / (2 * (size_t) comm_size));
    case COLL_RDMA_ALLTOALL:
        if (COLL_RDMA_ALG_READ == alg) {
            return cfg->alltoall_max_bytes; /* window memory is per segment */
        }
        blocks = COLL_RDMA_ALG_BRUCK == alg ? (size_t) bruck_half_blocks(comm_size, true)
                                            : (size_t) comm_size;
        return min_size(cfg->alltoall_max_bytes,
                        COLL_RDMA_REGION_BUDGET / (2 * (blocks > 0 ? blocks : 1)));
    case COLL_RDMA_REDUCE:
        blocks = (size_t) COLL_RDMA_REDUCE_DEPTH
                 * (size_t) coll_rdma_knomial_max_children(comm_size, cfg->reduce_radix);
        return min_size(cfg->reduce_max_bytes, COLL_RDMA_REGION_BUDGET / (blocks > 0 ? blocks : 1));
    default:
        return 0;
    }
}

/* Lay out the allgather, alltoall, reduce and pairwise barrier regions from
 * `off`; returns the end. */
static size_t layout_block_regions(coll_rdma_window_t *win, const coll_rdma_config_t *cfg,
                                   size_t off)
{
    int size = win->comm_size;
    int bruck_slots = coll_rdma_sched_rounds(size, COLL_RDMA_BRUCK_RADIX)
                      * (COLL_RDMA_BRUCK_RADIX - 1);
    size_t scratch;

    win->ag_block = coll_rdma_window_block_cap(cfg, size, COLL_RDMA_ALLGATHER, COLL_RDMA_ALG_BRUCK);
    win->ag_stride = round8(win->ag_block);
    win->ag_bruck_half = line_round((size_t) bruck_slots * COLL_RDMA_LINE
                                    + (size_t) bruck_half_blocks(size, false) * win->ag_stride);
    win->off_ag_bruck = off;
    note_packed_region(win, off, bruck_slots, win->ag_stride, 1);
    note_packed_region(win, off + win->ag_bruck_half, bruck_slots, win->ag_stride, 1);
    off += 2 * win->ag_bruck_half;
    win->ag_ring_slot = line_round(COLL_RDMA_SLOT_HEADER + win->ag_block);
    win->off_ag_ring = add_region(win, &off, 2 * (size - 1), win->ag_ring_slot);

    win->a2a_direct_block = coll_rdma_window_block_cap(cfg, size, COLL_RDMA_ALLTOALL,
                                                       COLL_RDMA_ALG_DIRECT);
    win->a2a_direct_slot = line_round(COLL_RDMA_SLOT_HEADER + win->a2a_direct_block);
    win->off_a2a_direct = add_region(win, &off, 2 * size, win->a2a_direct_slot);
    win->a2a_bruck_block = coll_rdma_window_block_cap(cfg, size, COLL_RDMA_ALLTOALL,
                                                      COLL_RDMA_ALG_BRUCK);
    win->a2a_bruck_stride = round8(win->a2a_bruck_block);
    win->a2a_bruck_half = line_round((size_t) bruck_slots * COLL_RDMA_LINE
                                     + (size_t) bruck_half_blocks(size, true)
                                           * win->a2a_bruck_stride);
    win->off_a2a_bruck = off;
    note_packed_region(win, off, bruck_slots, win->a2a_bruck_stride, 2);
    note_packed_region(win, off + win->a2a_bruck_half, bruck_slots, win->a2a_bruck_stride, 2);
    off += 2 * win->a2a_bruck_half;

    win->reduce_bytes = coll_rdma_window_block_cap(cfg, size, COLL_RDMA_REDUCE,
                                                   COLL_RDMA_ALG_KNOMIAL);
    win->reduce_children = coll_rdma_knomial_max_children(size, cfg->reduce_radix);
    win->reduce_slot_size = line_round(COLL_RDMA_SLOT_HEADER + win->reduce_bytes);
    win->off_reduce = add_region(win, &off, COLL_RDMA_REDUCE_DEPTH * win->reduce_children,
                                 win->reduce_slot_size);
    win->off_reduce_consumed = add_region(win, &off, 1, COLL_RDMA_LINE);

    win->off_bar_pw = add_region(win, &off, 2 + coll_rdma_pairwise_steps(size), COLL_RDMA_LINE);

    /* Bruck's position arrays (alltoall: and one round's messages); an inner
     * reduce tree node's partial result */
    scratch = (size_t) size * win->ag_stride;
    scratch = scratch > 2 * (size_t) size * win->a2a_bruck_stride
                  ? scratch
                  : 2 * (size_t) size * win->a2a_bruck_stride;
    win->scratch_size = scratch > win->reduce_bytes ? scratch : win->reduce_bytes;
    return off;
}

/* The segment region of algorithm `alg` of collective `coll` (rsag, the read
 * allgather and alltoall) from *off (advanced past it): two slots (instance
 * parity), for alltoall two per destination (parity q, destination d: slot
 * q * P + d); segments only where every rank forced that algorithm or a
 * tuning rule names it (the built-in table takes none of them yet), so no
 * window memory for a segment nobody uses. */
static void layout_segments(coll_rdma_window_t *win, const coll_rdma_config_t *cfg, int coll,
                            int alg, size_t *off, coll_rdma_rsag_region_t *r)
{
    bool used = alg == cfg->alg[coll]
                || (COLL_RDMA_ALG_AUTO == cfg->alg[coll]
                    && coll_rdma_rules_name(cfg->rules, coll, alg));
    bool a2a = COLL_RDMA_ALLTOALL == coll;
    size_t payload = a2a ? coll_rdma_window_a2a_read_segment(cfg, win->comm_size)
                         : cfg->allreduce_rsag_segment_bytes;

    r->slot_size = line_round(COLL_RDMA_SLOT_HEADER + (used ? payload : 0));
    r->off = add_region(win, off, 2 * (a2a ? win->comm_size : 1), r->slot_size);
    r->off_done = add_region(win, off, 2, COLL_RDMA_LINE);
}

size_t coll_rdma_window_a2a_read_segment(const coll_rdma_config_t *cfg, int comm_size)
{
    size_t lines = cfg->allreduce_rsag_segment_bytes / COLL_RDMA_LINE / (size_t) comm_size;

    return (lines > 0 ? lines : 1) * COLL_RDMA_LINE;
}

int coll_rdma_window_diss_slots(int comm_size, int n)
{
    return coll_rdma_sched_rounds(comm_size, n + 1) * (n < comm_size - 1 ? n : comm_size - 1);
}

int coll_rdma_window_layout(coll_rdma_window_t *win, const coll_rdma_config_t *cfg, int comm_size,
                            int rank)
{
    int n = cfg->barrier_nway_n;
    int ar_radix = cfg->allreduce_ktree_degree + 1;
    int diss;
    size_t off = 0;

    win->nregions = 0;
    win->comm_size = comm_size;
    win->rank = rank;
    win->seq_start = cfg->debug_seq_start;

    win->off_barrier = add_region(win, &off, coll_rdma_sched_rounds(comm_size, n + 1) * n,
                                  COLL_RDMA_LINE);
    win->bcast_slots = cfg->bcast_slots;
    win->bcast_slot_size = line_round(COLL_RDMA_SLOT_HEADER + cfg->bcast_segment_bytes);
    win->off_bcast = add_region(win, &off, win->bcast_slots, win->bcast_slot_size);
    win->off_consumed = add_region(win, &off, 1, COLL_RDMA_LINE);
    win->off_bcast_read = add_region(win, &off, win->bcast_slots, win->bcast_slot_size);
    /* the slot algorithms serve up to the smaller of the two limits */
    win->ar_slot_size = line_round(COLL_RDMA_SLOT_HEADER
                                   + (cfg->allreduce_short_max_bytes < cfg->allreduce_max_bytes
                                          ? cfg->allreduce_short_max_bytes
                                          : cfg->allreduce_max_bytes));
    win->off_ar_up = add_region(win, &off, coll_rdma_knomial_max_children(comm_size, ar_radix),
                                win->ar_slot_size);
    win->off_ar_down = add_region(win, &off, 1, win->ar_slot_size);
    win->off_pw = add_region(win, &off, 2 + 2 * coll_rdma_pairwise_steps(comm_size),
                             win->ar_slot_size);
    diss = coll_rdma_window_diss_slots(comm_size, cfg->allreduce_nway_n);
    if (coll_rdma_window_diss_slots(comm_size, cfg->allreduce_bruck_n) > diss) {
        diss = coll_rdma_window_diss_slots(comm_size, cfg->allreduce_bruck_n);
    }
    win->off_ar_diss = add_region(win, &off, 2 * diss, win->ar_slot_size);
    win->ring_segment_bytes = cfg->allreduce_ring_segment_bytes;
    win->ring_slot_size = line_round(COLL_RDMA_SLOT_HEADER + win->ring_segment_bytes);
    win->ring_slots = cfg->allreduce_ring_slots;
    /* the ring's words count ring messages, from 0 */
    win->off_ring = reserve_region(win, &off, win->ring_slots, win->ring_slot_size, 0);
    win->off_ring_ack = reserve_region(win, &off, 1, COLL_RDMA_LINE, 0);
    win->off_read_barrier = add_region(win, &off, 1, COLL_RDMA_LINE);
    win->read_ar_slot_size = line_round(COLL_RDMA_SLOT_HEADER + cfg->allreduce_read_max_bytes);
    win->off_read_ar = add_region(win, &off, 2, win->read_ar_slot_size);
    win->off_hier_words = add_region(win, &off, 2 + coll_rdma_sched_rounds(comm_size, n + 1) * n,
                                     COLL_RDMA_LINE);
    win->off_hier_ar = add_region(win, &off, 2, win->ar_slot_size);
    layout_segments(win, cfg, COLL_RDMA_ALLREDUCE, COLL_RDMA_ALG_RSAG, &off, &win->rsag_allreduce);
    layout_segments(win, cfg, COLL_RDMA_REDUCE, COLL_RDMA_ALG_RSAG, &off, &win->rsag_reduce);
    layout_segments(win, cfg, COLL_RDMA_ALLGATHER, COLL_RDMA_ALG_READ, &off, &win->read_allgather);
    layout_segments(win, cfg, COLL_RDMA_ALLTOALL, COLL_RDMA_ALG_READ, &off, &win->read_alltoall);
    off = layout_block_regions(win, cfg, off);
    win->off_hier_reduce = add_region(win, &off, COLL_RDMA_REDUCE_DEPTH, win->reduce_slot_size);
    /* last: present only where this rank's communicator asked for staleness */
    win->ssp_slots = cfg->allreduce_staleness > 0 ? 2 * cfg->allreduce_staleness + 2 : 0;
    win->ssp_slot_size = line_round(COLL_RDMA_SLOT_HEADER + cfg->allreduce_ssp_max_bytes);
    win->off_ssp = win->ssp_slots > 0 ? add_region(win, &off, win->ssp_slots, win->ssp_slot_size)
                                      : off;
    win->size = off;
    /* allreduce (n-way tail, Bruck's S0): two slot payloads */
    if (win->scratch_size < 2 * (win->ar_slot_size - COLL_RDMA_SLOT_HEADER)) {
        win->scratch_size = 2 * (win->ar_slot_size - COLL_RDMA_SLOT_HEADER);
    }
    return win->nregions <= COLL_RDMA_MAX_REGIONS ? OMPI_SUCCESS : OMPI_ERROR;
}
