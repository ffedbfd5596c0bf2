/*
 * coll/rdma window geometry: offsets, slot sizes, regions, block caps and the
 * scratch size of a window, computed from the agreed configuration and the
 * communicator size alone (the layout and every reuse argument are in
 * coll_rdma_layout.h).  Pure: no UCX, no component globals, no allocation,
 * so the unit tests (tests/unit/test_plans.c) lay out simulated windows with
 * the very code the component uses.
 */
#include "ompi_config.h"

#include "coll_rdma_layout.h"

#include "ompi/constants.h"
#include "coll_rdma_rules.h"
#include "coll_rdma_sched.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * Checked size arithmetic: a sum or product that does not fit in size_t
 * marks the layout failed (l->overflow; coll_rdma_layout() then returns an
 * error and the set-up agrees on no window) instead of wrapping to a small
 * slot that the decision would still fill with the parameter's bytes.
 */
static size_t add_sz(coll_rdma_layout_t *l, size_t a, size_t b)
{
    size_t r;

    if (__builtin_add_overflow(a, b, &r)) {
        l->overflow = true;
        return SIZE_MAX;
    }
    return r;
}

static size_t mul_sz(coll_rdma_layout_t *l, size_t a, size_t b)
{
    size_t r;

    if (__builtin_mul_overflow(a, b, &r)) {
        l->overflow = true;
        return SIZE_MAX;
    }
    return r;
}

static size_t line_round(coll_rdma_layout_t *l, size_t bytes)
{
    return add_sz(l, bytes, COLL_RDMA_LINE - 1) & ~((size_t) COLL_RDMA_LINE - 1);
}

/* A slot of a header line and `payload` bytes, in whole lines. */
static size_t slot_bytes(coll_rdma_layout_t *l, size_t payload)
{
    return line_round(l, add_sz(l, COLL_RDMA_SLOT_HEADER, payload));
}

/*
 * Remember `nslots` slots of `stride` bytes at `off` (packing as in
 * coll_rdma_region_t), each starting with a word that must hold `empty`
 * before the address exchange.
 */
static void note_region(coll_rdma_layout_t *l, size_t off, int nslots, size_t stride,
                        int packed, uint64_t empty)
{
    if (l->nregions < COLL_RDMA_MAX_REGIONS) {
        l->regions[l->nregions].off = off;
        l->regions[l->nregions].nslots = nslots;
        l->regions[l->nregions].stride = stride;
        l->regions[l->nregions].packed = packed;
        l->regions[l->nregions].empty = empty;
        l->regions[l->nregions].line = 0;
    }
    ++l->nregions; /* more than COLL_RDMA_MAX_REGIONS: the layout fails */
}

/* Packed Bruck slots of sequence words (packed: 1 allgather, 2 alltoall). */
static void note_packed_region(coll_rdma_layout_t *l, size_t off, int nslots, size_t stride,
                               int packed)
{
    note_region(l, off, nslots, stride, packed, l->seq_start - 1);
}

size_t coll_rdma_layout_region_slot(const coll_rdma_layout_t *l, const coll_rdma_region_t *r,
                                    int s)
{
    if (0 == r->packed) {
        return r->off + (size_t) s * r->stride;
    }
    return coll_rdma_packed_slot(r->off, s,
                                 coll_rdma_bruck_blocks_before(l->comm_size,
                                                               COLL_RDMA_BRUCK_RADIX, s,
                                                               2 == r->packed),
                                 r->stride);
}

/* Reserve `nslots` slots of `stride` bytes at *off (advanced past them), each
 * starting with a word that holds `empty` at first; returns their offset. */
static size_t reserve_region(coll_rdma_layout_t *l, size_t *off, int nslots, size_t stride,
                             uint64_t empty)
{
    size_t start = *off;

    note_region(l, start, nslots, stride, 0, empty);
    *off = add_sz(l, *off, mul_sz(l, (size_t) nslots, stride));
    return start;
}

/* Slots whose words are sequence numbers: they start at the instance before the first. */
static size_t add_region(coll_rdma_layout_t *l, size_t *off, int nslots, size_t stride)
{
    return reserve_region(l, off, nslots, stride, l->seq_start - 1);
}

static size_t round8(coll_rdma_layout_t *l, size_t bytes)
{
    return add_sz(l, bytes, 7) & ~(size_t) 7;
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

/* One half of a packed Bruck region: a header line per slot and `blocks`
 * blocks of `stride` bytes, in whole lines. */
static size_t bruck_half(coll_rdma_layout_t *l, int slots, long blocks, size_t stride)
{
    return line_round(l, add_sz(l, mul_sz(l, (size_t) slots, COLL_RDMA_LINE),
                                mul_sz(l, (size_t) blocks, stride)));
}

/* The largest bytes `alg` may serve of `coll` at comm_size ranks other than
 * as auto's built-in table: all where forced, else as far as a tuning or a
 * default rule names it (0: nowhere).  A function of the agreed
 * configuration, so every rank lays out and decides alike. */
static size_t named(const coll_rdma_config_t *cfg, int coll, int alg, int comm_size)
{
    size_t a, b;

    if (alg == cfg->alg[coll]) {
        return SIZE_MAX;
    }
    if (COLL_RDMA_ALG_AUTO != cfg->alg[coll]) {
        return 0;
    }
    a = coll_rdma_rules_reach(cfg->rules, coll, alg, comm_size);
    b = coll_rdma_rules_reach(cfg->defaults, coll, alg, comm_size);
    return a > b ? a : b;
}

/* What the built-in table serves of the slot algorithms' blocks (allgather
 * and alltoall: per block; reduce: the message), measured (docs/tuning.md);
 * their *_max_bytes cap what forced algorithms and rules serve, and a
 * region is laid out for larger blocks only as far as they may come. */
#define AUTO_BLOCK_BYTES 4096

static size_t reach_cap(size_t cap, size_t named_a, size_t named_b)
{
    size_t reach = named_a > named_b ? named_a : named_b;

    return min_size(cap, reach > AUTO_BLOCK_BYTES ? reach : AUTO_BLOCK_BYTES);
}

size_t coll_rdma_window_block_cap(const coll_rdma_config_t *cfg, int comm_size, int coll, int alg)
{
    size_t blocks, cap;

    switch (coll) {
    case COLL_RDMA_ALLGATHER:
        if (COLL_RDMA_ALG_READ == alg) {
            return cfg->allgather_max_bytes; /* window memory is per segment */
        }
        /* one cap for bruck and ring: two halves of at most P blocks each */
        cap = min_size(cfg->allgather_max_bytes, COLL_RDMA_REGION_BUDGET / (2 * (size_t) comm_size));
        return reach_cap(cap, named(cfg, coll, COLL_RDMA_ALG_BRUCK, comm_size),
                         named(cfg, coll, COLL_RDMA_ALG_RING, comm_size));
    case COLL_RDMA_ALLTOALL:
        if (COLL_RDMA_ALG_READ == alg) {
            return cfg->alltoall_max_bytes; /* window memory is per segment */
        }
        blocks = COLL_RDMA_ALG_BRUCK == alg ? (size_t) bruck_half_blocks(comm_size, true)
                                            : (size_t) comm_size;
        cap = min_size(cfg->alltoall_max_bytes,
                       COLL_RDMA_REGION_BUDGET / (2 * (blocks > 0 ? blocks : 1)));
        return reach_cap(cap,
                         named(cfg, coll, COLL_RDMA_ALG_AUTO == alg ? COLL_RDMA_ALG_DIRECT : alg,
                               comm_size),
                         0);
    case COLL_RDMA_REDUCE:
        blocks = (size_t) COLL_RDMA_REDUCE_DEPTH
                 * (size_t) coll_rdma_knomial_max_children(comm_size, cfg->reduce_radix);
        cap = min_size(cfg->reduce_max_bytes, COLL_RDMA_REGION_BUDGET / (blocks > 0 ? blocks : 1));
        return reach_cap(cap, named(cfg, coll, COLL_RDMA_ALG_KNOMIAL, comm_size),
                         named(cfg, coll, COLL_RDMA_ALG_HIER, comm_size));
    default:
        return 0;
    }
}

/* Lay out the allgather, alltoall, reduce and pairwise barrier regions from
 * `off`; returns the end. */
static size_t layout_block_regions(coll_rdma_layout_t *l, const coll_rdma_config_t *cfg,
                                   size_t off)
{
    int size = l->comm_size;
    int bruck_slots = coll_rdma_sched_rounds(size, COLL_RDMA_BRUCK_RADIX)
                      * (COLL_RDMA_BRUCK_RADIX - 1);
    size_t scratch, a2a_scratch;

    l->ag_block = coll_rdma_window_block_cap(cfg, size, COLL_RDMA_ALLGATHER, COLL_RDMA_ALG_BRUCK);
    l->ag_stride = round8(l, l->ag_block);
    l->ag_bruck_half = bruck_half(l, bruck_slots, bruck_half_blocks(size, false), l->ag_stride);
    l->off_ag_bruck = off;
    note_packed_region(l, off, bruck_slots, l->ag_stride, 1);
    note_packed_region(l, add_sz(l, off, l->ag_bruck_half), bruck_slots, l->ag_stride, 1);
    off = add_sz(l, off, mul_sz(l, 2, l->ag_bruck_half));
    l->ag_ring_slot = slot_bytes(l, l->ag_block);
    l->off_ag_ring = add_region(l, &off, 2 * (size - 1), l->ag_ring_slot);

    l->a2a_direct_block = coll_rdma_window_block_cap(cfg, size, COLL_RDMA_ALLTOALL,
                                                       COLL_RDMA_ALG_DIRECT);
    l->a2a_direct_slot = slot_bytes(l, l->a2a_direct_block);
    l->off_a2a_direct = add_region(l, &off, 2 * size, l->a2a_direct_slot);
    l->a2a_bruck_block = coll_rdma_window_block_cap(cfg, size, COLL_RDMA_ALLTOALL,
                                                      COLL_RDMA_ALG_BRUCK);
    l->a2a_bruck_stride = round8(l, l->a2a_bruck_block);
    l->a2a_bruck_half = bruck_half(l, bruck_slots, bruck_half_blocks(size, true),
                                   l->a2a_bruck_stride);
    l->off_a2a_bruck = off;
    note_packed_region(l, off, bruck_slots, l->a2a_bruck_stride, 2);
    note_packed_region(l, add_sz(l, off, l->a2a_bruck_half), bruck_slots, l->a2a_bruck_stride,
                       2);
    off = add_sz(l, off, mul_sz(l, 2, l->a2a_bruck_half));

    l->reduce_bytes = coll_rdma_window_block_cap(cfg, size, COLL_RDMA_REDUCE,
                                                   COLL_RDMA_ALG_KNOMIAL);
    l->reduce_children = coll_rdma_knomial_max_children(size, cfg->reduce_radix);
    l->reduce_slot_size = slot_bytes(l, l->reduce_bytes);
    l->off_reduce = add_region(l, &off, COLL_RDMA_REDUCE_DEPTH * l->reduce_children,
                                 l->reduce_slot_size);
    l->off_reduce_consumed = add_region(l, &off, 1, COLL_RDMA_LINE);

    l->off_bar_pw = add_region(l, &off, 2 + coll_rdma_pairwise_steps(size), COLL_RDMA_LINE);

    /* Bruck's position arrays (alltoall: and one round's messages); an inner
     * reduce tree node's partial result */
    scratch = mul_sz(l, (size_t) size, l->ag_stride);
    a2a_scratch = mul_sz(l, 2 * (size_t) size, l->a2a_bruck_stride);
    scratch = scratch > a2a_scratch ? scratch : a2a_scratch;
    l->scratch_size = scratch > l->reduce_bytes ? scratch : l->reduce_bytes;
    return off;
}

/* The segment region of algorithm `alg` of collective `coll` (rsag, the read
 * allgather and alltoall) from *off (advanced past it): two slots (instance
 * parity), for alltoall two per destination (parity q, destination d: slot
 * q * P + d), of one segment each: the configured one where that algorithm
 * is forced or a rule reaches at least as far, else what the rules reach with it
 * (rsag: message bytes; allgather and alltoall: a block, the alltoall's per
 * destination, as its segment) rounded up to a line, which holds one
 * element of any type; none where nothing names it (the built-in table
 * takes none of them).  No window memory for segments no call may fill. */
static void layout_segments(coll_rdma_layout_t *l, const coll_rdma_config_t *cfg, int coll,
                            int alg, size_t *off, coll_rdma_rsag_region_t *r)
{
    size_t reach = named(cfg, coll, alg, l->comm_size);
    bool a2a = COLL_RDMA_ALLTOALL == coll;
    size_t full = a2a ? coll_rdma_window_a2a_read_segment(cfg, l->comm_size)
                      : cfg->allreduce_rsag_segment_bytes;

    r->segment = reach >= full ? full : min_size(full, line_round(l, reach));
    r->slot_size = slot_bytes(l, r->segment);
    r->off = add_region(l, off, 2 * (a2a ? l->comm_size : 1), r->slot_size);
    r->off_done = add_region(l, off, 2, COLL_RDMA_LINE);
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

/* A bcast ring's segment where `reach` bytes may come through it: the
 * configured segment where its slot then holds all a bcast may carry of one
 * (min(bcast_segment_bytes, bcast_max_bytes)), else `reach` rounded up to a
 * line (a line where nothing names the ring), and *cut. */
static size_t bcast_segment(coll_rdma_layout_t *l, const coll_rdma_config_t *cfg, size_t reach,
                            bool *cut)
{
    size_t full = min_size(cfg->bcast_segment_bytes, cfg->bcast_max_bytes), segment;

    *cut = false;
    if (reach >= full) {
        return cfg->bcast_segment_bytes;
    }
    segment = reach > COLL_RDMA_LINE ? line_round(l, reach) : COLL_RDMA_LINE;
    if (segment >= full) {
        return cfg->bcast_segment_bytes;
    }
    *cut = true;
    return segment;
}

/*
 * The two bcast rings' slots.  Across nodes both hold the configured
 * segment, as before issue 36: auto's table takes k-nomial and hier there,
 * and so it does on one node where coll_rdma_auto_emulated asks it to serve
 * windows reached by puts UCX emulates (the tests' put path: UCX_TLS=tcp on
 * one node).  Else, on one node every window is mapped (where UCX maps
 * them; where not, auto's trees hand on: bcast_*_cut), so the
 * k-nomial ring holds what a rule or the forced algorithm sends through it
 * and the read ring what auto's table, a rule or the forced algorithm reads
 * (with read, and both with hier): at 2 ranks 16 KiB instead of 64 KiB, the
 * k-nomial ring a line where no rule names it (the default rules do from 18
 * ranks, at some sizes).  A forced algorithm's ring is whole; the plans cut
 * any message into the window's segments all the same (their own guard).
 */
static void layout_bcast_rings(coll_rdma_layout_t *l, const coll_rdma_config_t *cfg)
{
    int size = l->comm_size;
    size_t tree = SIZE_MAX, read = SIZE_MAX, hier;

    if (cfg->one_node && !cfg->auto_emulated) {
        hier = named(cfg, COLL_RDMA_BCAST, COLL_RDMA_ALG_HIER, size);
        tree = named(cfg, COLL_RDMA_BCAST, COLL_RDMA_ALG_KNOMIAL, size);
        tree = tree > hier ? tree : hier;
        read = named(cfg, COLL_RDMA_BCAST, COLL_RDMA_ALG_READ, size);
        read = read > hier ? read : hier;
        if (COLL_RDMA_ALG_AUTO == cfg->alg[COLL_RDMA_BCAST]) {
            size_t table = coll_rdma_auto_bcast_read_max(size);
            read = read > table ? read : table;
        }
    }
    /* a bcast's segment is at most bcast_max_bytes: the decision serves no more */
    l->bcast_segment = bcast_segment(l, cfg, tree, &l->bcast_tree_cut);
    l->bcast_slot_size = slot_bytes(l, min_size(l->bcast_segment, cfg->bcast_max_bytes));
    l->bcast_read_segment = bcast_segment(l, cfg, read, &l->bcast_read_cut);
    l->bcast_read_slot_size = slot_bytes(l, min_size(l->bcast_read_segment,
                                                     cfg->bcast_max_bytes));
}

int coll_rdma_layout(coll_rdma_layout_t *l, const coll_rdma_config_t *cfg, int comm_size,
                     int rank)
{
    int n = cfg->barrier_nway_n;
    int ar_radix = cfg->allreduce_ktree_degree + 1;
    int diss;
    size_t off = 0, ar_scratch;

    l->nregions = 0;
    l->overflow = false;
    l->comm_size = comm_size;
    l->rank = rank;
    l->seq_start = cfg->debug_seq_start;

    l->off_barrier = add_region(l, &off, coll_rdma_sched_rounds(comm_size, n + 1) * n,
                                  COLL_RDMA_LINE);
    l->bcast_slots = cfg->bcast_slots;
    layout_bcast_rings(l, cfg);
    l->off_bcast = add_region(l, &off, l->bcast_slots, l->bcast_slot_size);
    l->off_consumed = add_region(l, &off, 1, COLL_RDMA_LINE);
    l->off_bcast_read = add_region(l, &off, l->bcast_slots, l->bcast_read_slot_size);
    l->bcast_small_slots = cfg->bcast_small_slots;
    l->off_bcast_small = off;
    if (l->bcast_small_slots > 0) {
        add_region(l, &off, l->bcast_small_slots, COLL_RDMA_LINE);
        if (l->nregions <= COLL_RDMA_MAX_REGIONS) {
            l->regions[l->nregions - 1].line = 1;
        }
    }
    /* the slot algorithms serve up to the smaller of the two limits */
    l->ar_slot_size = slot_bytes(l, min_size(cfg->allreduce_short_max_bytes,
                                             cfg->allreduce_max_bytes));
    l->off_ar_up = add_region(l, &off, coll_rdma_knomial_max_children(comm_size, ar_radix),
                                l->ar_slot_size);
    l->off_ar_down = add_region(l, &off, 1, l->ar_slot_size);
    l->off_pw = add_region(l, &off, 2 + 2 * coll_rdma_pairwise_steps(comm_size),
                             l->ar_slot_size);
    diss = coll_rdma_window_diss_slots(comm_size, cfg->allreduce_nway_n);
    if (coll_rdma_window_diss_slots(comm_size, cfg->allreduce_bruck_n) > diss) {
        diss = coll_rdma_window_diss_slots(comm_size, cfg->allreduce_bruck_n);
    }
    l->off_ar_diss = add_region(l, &off, 2 * diss, l->ar_slot_size);
    l->ring_segment_bytes = cfg->allreduce_ring_segment_bytes;
    l->ring_slot_size = slot_bytes(l, l->ring_segment_bytes);
    l->ring_slots = cfg->allreduce_ring_slots;
    /* the ring's words count ring messages, from 0 */
    l->off_ring = reserve_region(l, &off, l->ring_slots, l->ring_slot_size, 0);
    l->off_ring_ack = reserve_region(l, &off, 1, COLL_RDMA_LINE, 0);
    l->off_read_barrier = add_region(l, &off, 1, COLL_RDMA_LINE);
    /* the read allreduce serves up to the smaller of its limit and allreduce_max_bytes */
    l->read_ar_slot_size = slot_bytes(l, min_size(cfg->allreduce_read_max_bytes,
                                                  cfg->allreduce_max_bytes));
    l->off_read_ar = add_region(l, &off, 2, l->read_ar_slot_size);
    l->off_hier_words = add_region(l, &off, 2 + coll_rdma_sched_rounds(comm_size, n + 1) * n,
                                     COLL_RDMA_LINE);
    l->off_hier_ar = add_region(l, &off, 2, l->ar_slot_size);
    layout_segments(l, cfg, COLL_RDMA_ALLREDUCE, COLL_RDMA_ALG_RSAG, &off, &l->rsag_allreduce);
    layout_segments(l, cfg, COLL_RDMA_REDUCE, COLL_RDMA_ALG_RSAG, &off, &l->rsag_reduce);
    layout_segments(l, cfg, COLL_RDMA_ALLGATHER, COLL_RDMA_ALG_READ, &off, &l->read_allgather);
    layout_segments(l, cfg, COLL_RDMA_ALLTOALL, COLL_RDMA_ALG_READ, &off, &l->read_alltoall);
    off = layout_block_regions(l, cfg, off);
    l->off_hier_reduce = add_region(l, &off, COLL_RDMA_REDUCE_DEPTH, l->reduce_slot_size);
    /* every rank's retire word, packed (the pool's quiescence): not a region
     * of sequence words; the window zeroes it */
    l->off_retire = off;
    off = add_sz(l, off, line_round(l, mul_sz(l, (size_t) comm_size, sizeof(uint64_t))));
    /* last: present only where this rank's communicator asked for staleness */
    l->ssp_slots = cfg->allreduce_staleness > 0 ? 2 * cfg->allreduce_staleness + 2 : 0;
    l->ssp_slot_size = slot_bytes(l, cfg->allreduce_ssp_max_bytes);
    l->off_ssp = l->ssp_slots > 0 ? add_region(l, &off, l->ssp_slots, l->ssp_slot_size)
                                      : off;
    l->size = off;
    /* allreduce (n-way tail, Bruck's S0): two slot payloads */
    ar_scratch = mul_sz(l, 2, l->ar_slot_size - COLL_RDMA_SLOT_HEADER);
    if (l->scratch_size < ar_scratch) {
        l->scratch_size = ar_scratch;
    }
    if (l->overflow) {
        return OMPI_ERR_VALUE_OUT_OF_BOUNDS;
    }
    return l->nregions <= COLL_RDMA_MAX_REGIONS ? OMPI_SUCCESS : OMPI_ERROR;
}

/* ---- the size parameters' ranges ------------------------------------------------------------ */

#define SIZE_PARAM(name, lo, hi) {#name, offsetof(coll_rdma_config_t, name), lo, hi}

const coll_rdma_size_param_t coll_rdma_size_params[] = {
    /* slot and segment sizes: the window holds slots of them */
    SIZE_PARAM(bcast_segment_bytes, 64, COLL_RDMA_SLOT_BYTES_MAX),
    SIZE_PARAM(allreduce_short_max_bytes, COLL_RDMA_ELEMENT_BYTES_MAX, COLL_RDMA_SLOT_BYTES_MAX),
    SIZE_PARAM(allreduce_ring_segment_bytes, 64, COLL_RDMA_SLOT_BYTES_MAX),
    SIZE_PARAM(allreduce_read_max_bytes, 0, COLL_RDMA_SLOT_BYTES_MAX),
    SIZE_PARAM(allreduce_rsag_segment_bytes, 64, COLL_RDMA_SLOT_BYTES_MAX),
    SIZE_PARAM(allreduce_ssp_max_bytes, 8, COLL_RDMA_SLOT_BYTES_MAX),
    /* what a call may carry: Open MPI's datatype engine counts bytes in an int */
    SIZE_PARAM(bcast_max_bytes, 0, COLL_RDMA_MESSAGE_BYTES_MAX),
    SIZE_PARAM(allreduce_max_bytes, 0, COLL_RDMA_MESSAGE_BYTES_MAX),
    SIZE_PARAM(allgather_max_bytes, 0, COLL_RDMA_MESSAGE_BYTES_MAX),
    SIZE_PARAM(alltoall_max_bytes, 0, COLL_RDMA_MESSAGE_BYTES_MAX),
    SIZE_PARAM(reduce_max_bytes, 0, COLL_RDMA_MESSAGE_BYTES_MAX),
};
const int coll_rdma_nsize_params = (int) (sizeof(coll_rdma_size_params)
                                          / sizeof(coll_rdma_size_params[0]));

int coll_rdma_config_bound_sizes(coll_rdma_config_t *cfg, coll_rdma_size_said_fn said, void *ctx)
{
    int changed = 0;

    for (int i = 0; i < coll_rdma_nsize_params; ++i) {
        const coll_rdma_size_param_t *p = &coll_rdma_size_params[i];
        size_t *v = (size_t *) ((char *) cfg + p->offset);
        size_t was = *v;

        *v = was < p->lo ? p->lo : was > p->hi ? p->hi : was;
        if (*v != was) {
            ++changed;
            if (NULL != said) {
                said(p, was, *v, ctx);
            }
        }
    }
    return changed;
}

size_t coll_rdma_window_budget_of(size_t dir_bytes, int local_procs)
{
    size_t procs = (size_t) (local_procs > 0 ? local_procs : 1), share, floor;

    if (0 == dir_bytes) {
        return COLL_RDMA_WINDOW_BUDGET_MAX;
    }
    share = dir_bytes / 4 / procs;
    /* one small communicator's window wherever half the share has room for it */
    floor = dir_bytes / 2 / procs;
    floor = floor < COLL_RDMA_WINDOW_BUDGET_FLOOR ? floor : COLL_RDMA_WINDOW_BUDGET_FLOOR;
    share = share > floor ? share : floor;
    return share < COLL_RDMA_WINDOW_BUDGET_MAX ? share : COLL_RDMA_WINDOW_BUDGET_MAX;
}

void coll_rdma_layout_reset_words(const coll_rdma_layout_t *l, char *base, bool zeroed)
{
    for (int r = 0; r < l->nregions; ++r) {
        for (int i = 0; i < l->regions[r].nslots && (!zeroed || 0 != l->regions[r].empty); ++i) {
            size_t off = coll_rdma_layout_region_slot(l, &l->regions[r], i);
            memcpy(base + off, &l->regions[r].empty, sizeof(uint64_t));
        }
    }
    if (!zeroed) {
        memset(base + l->off_retire, 0, (size_t) l->comm_size * sizeof(uint64_t));
    }
}
