/*
 * coll/rdma window layout: the geometry of a communicator's window, the same
 * on every rank, computed from the agreed configuration and the
 * communicator size alone (coll_rdma_layout.c: pure, no UCX, no component
 * globals, no allocation, so the plan simulator lays out simulated windows
 * with the very code the component uses).  Below the window, which holds a
 * layout (coll_rdma_window.h); a slot is a 64-byte line of header (the
 * sequence word first) followed by its payload.
 *
 * Regions (offsets from the window base):
 *   barrier flags    rounds * n slots of one line, slot (round, j) written by one fixed peer
 *   bcast ring       bcast_slots slots of min(bcast_segment_bytes, bcast_max_bytes) payload,
 *                    slot (seq - seq_start) % bcast_slots; credits below.  On one node
 *                    (cfg->one_node, unless auto_emulated) only as much as a rule or
 *                    the forced algorithm reaches with k-nomial or hier, rounded up to
 *                    a line (auto's table takes them only where windows are reached
 *                    by puts: it hands on where a ring is cut, bcast_*_cut);
 *                    bcast_segment is what the plans cut a message into:
 *                    bcast_segment_bytes, or the cut slot's payload
 *   bcast consumed   one line: last bcast instance this rank consumed (senders read it)
 *   bcast read ring  bcast_slots slots, slot (seq - first) % bcast_slots, written only by this
 *                    rank as the root of a read bcast and read by every other rank;
 *                    rewritten at instance s once every peer consumed s - bcast_slots.
 *                    Sized as the bcast ring, but on one node as far as auto's table
 *                    (COLL_RDMA_AUTO_BCAST_*), a rule or the forced algorithm reaches
 *                    with read or hier; its segment: bcast_read_segment
 *   bcast small ring bcast_small_slots one-line slots (none if 0): the word, then up to
 *                    COLL_RDMA_BCAST_SMALL_BYTES of payload in the same line; a read
 *                    bcast of at most that many bytes takes slot (seq - first) %
 *                    bcast_small_slots instead of the read ring, with the same
 *                    writer and readers, and rewrites it at instance s once every peer
 *                    consumed s - bcast_small_slots (the bcast consumed line: every
 *                    rank publishes every bcast instance, of any algorithm, in order)
 *   read barrier     one line: this rank's last barrier instance (every peer polls it;
 *                    words only grow, so one line serves every instance)
 *   read allreduce   two slots (instance parity) of min(allreduce_read_max_bytes,
 *                    allreduce_max_bytes): this rank's contribution, read by every
 *                    peer.  A rank writes instance s + 2 only after it read every rank's
 *                    s + 1 contribution, i.e. after every rank finished reading instance s
 *   rsag             two slots (instance parity) of one segment each (the region's
 *                    `segment`, below): this rank's input of the instance, whose share
 *                    [lo_r, hi_r) every rank r reads; this rank reduces its own share
 *                    into it in place
 *   rsag done        two lines (instance parity): this rank's share of the instance
 *                    is reduced.  Reuse of both as for read allreduce: a rank writes
 *                    instance s + 2 only after it read every rank's done line of
 *                    s + 1, which each rank writes only after it finished instance s
 *                    (its programs run in order) and read every input of s + 1.
 *                    Reduce has two slots and lines of its own (its instances are
 *                    counted apart) and, since it does not synchronize and may
 *                    alternate with the k-nomial reduce, credits: every rank
 *                    publishes its reduce consumed line after its last read of an
 *                    instance, and writes instance s only after every peer's line
 *                    says s - 2 (COLL_RDMA_REDUCE_DEPTH)
 *   read allgather   two slots (instance parity) of one segment: segment g of this
 *                    rank's block, read by every peer (its two done lines are
 *                    unused).  Reuse as for read
 *                    allreduce: a rank writes instance g + 2 only after it read every
 *                    peer's g + 1, which each peer posts only after it copied every
 *                    segment g out (its program runs in order)
 *   read alltoall    the same per destination: two slots (instance parity) for each
 *                    destination d, holding segment g of this rank's block for d, read
 *                    by d only; reuse as for the read allgather
 *     The segment of these four regions (coll_rdma_rsag_region_t.segment,
 *     one slot's payload; the plans cut messages into segments of it):
 *     min(the configured segment, what a tuning or default rule reaches with
 *     the algorithm at this communicator size rounded up to a cache line),
 *     the configured one where the algorithm is forced, none where nothing
 *     names it (the built-in table takes none of them).  Configured:
 *     allreduce_rsag_segment_bytes, the read alltoall's
 *     coll_rdma_window_a2a_read_segment() per destination.  The reach is in
 *     the units of the segment: rsag's message bytes, the read allgather's
 *     and alltoall's block bytes (the alltoall's per destination); a line
 *     holds one element of any type.  A larger message (a rescued reduction,
 *     coll_rdma_decision.h) goes through several segments.  A function of
 *     the agreed configuration and the communicator size, so the same on
 *     every rank.  At 2 ranks the default rules reach 8 KiB with reduce
 *     rsag, the read allgather and the read alltoall: segments of 8 KiB
 *     instead of 256, 256 and 128 KiB (window 3.56 -> 2.05 MB)
 *   allreduce up     max_children slots, one per child of the (k+1)-nomial tree
 *   allreduce down   one slot: the result from the parent
 *   pairwise         fold slot, result-back slot, then two slots (instance
 *                    parity) per exchange step
 *
 * Regions of allgather, alltoall, reduce and the pairwise barrier.  The
 * payload of the first three is bounded by COLL_RDMA_REGION_BUDGET each:
 * coll_rdma_window_block_cap() gives the block served, which is
 * min(*_max_bytes, budget / blocks of the region, what may ask for it: the
 * built-in table's 4 KiB or more where forced or named by a rule);
 * everything larger falls back.  Regions holding many blocks are "packed": slot s (one per transfer)
 * starts at s * COLL_RDMA_LINE + (blocks of the slots before s) * stride,
 * stride = the block cap rounded up to 8, so its header never overlaps the
 * payload of slot s-1.
 *   allgather bruck  two halves (instance parity), each the packed slots of
 *                    Bruck's transfers (round, j), positions 1..P-1
 *   allgather ring   two halves, each P-1 slots, one per step
 *   alltoall direct  two halves, each P slots, one per source rank
 *   alltoall bruck   two halves, each the packed slots of the index
 *                    algorithm's transfers (round, j)
 *     Reuse of the four above (DESIGN.md rule 3): within one instance every
 *     slot has one writer and is written once.  A peer writes the half of
 *     the same parity again two instances of the same collective later; to
 *     start instance i+2 it must have finished instance i+1, whose result
 *     needs this rank's input of i+1 (every allgather or alltoall output
 *     block depends on every rank's input), which this rank sends only
 *     after it finished reading instance i.  Whatever algorithm instance i+1
 *     used: the sequence counter is per collective, the halves per region.
 *   reduce           COLL_RDMA_REDUCE_DEPTH rings of max_children slots
 *                    (k-nomial tree, one per child slot index), ring
 *                    (seq - seq_start) % depth; reduce is rooted and does not
 *                    synchronize, so a child writes that ring at its parent only after
 *                    the parent published, in its reduce consumed line,
 *                    that it consumed instance seq - depth (credits as for
 *                    bcast; the parent of a slot may differ per instance, the
 *                    credit is per instance)
 *   reduce consumed  one line: the last reduce instance this rank consumed
 *   barrier pairwise fold flag, back flag, one flag per exchange step; flags
 *                    only grow (as the n-way barrier's)
 *   dissemination    allreduce by n-way dissemination or Bruck: one slot per
 *                    (round, message) of the larger of the two schedules,
 *                    rounds * min(n, P-1), twice (instance parity).  The slot
 *                    (round, j) is written by one fixed peer per instance.
 *                    Reuse: the writer of instance i+2 has finished instance
 *                    i+1, whose result depends on this rank's input to i+1,
 *                    which this rank gives only after it finished reading
 *                    every slot of instance i.  nway and bruck calls may
 *                    alternate in the region: the argument holds for any mix
 *                    of algorithms in which every output depends on every
 *                    input.
 *   ring slots       allreduce_ring_slots slots of one segment, written only by
 *                    the left neighbour; ring message m (counted over every
 *                    ring call on this communicator, from 1) goes to slot
 *                    m % slots with sequence word m.  Reuse by credits: the
 *                    sender writes m only after the ack line says message
 *                    m - slots was consumed.
 *   ring ack         one line, written only by the right neighbour: how many
 *                    ring messages from us it has consumed.
 *   two-level        (coll_rdma_hier.c) two words, the leaders' barrier flags (as
 *                    the barrier flags above), then two slots of ar_slot_size:
 *                    the arrival word (this rank reached the barrier; read by its
 *                    node's leader) and the release word (a leader's: its node may
 *                    leave; read by the node's ranks), which only grow; the input slot
 *                    (a non-leader's allreduce input, read by its leader; nport:
 *                    every rank's, read by the node's carriers) and the result slot
 *                    (a leader's node result, read by its node's ranks; nport: a
 *                    carrier's share);
 *                    then the reduce input ring (COLL_RDMA_REDUCE_DEPTH slots of
 *                    reduce_slot_size by instance, written by its own rank, read by
 *                    the instance's carrier; rewritten once every rank of the node
 *                    published the instance depth before consumed).
 *                    Each is written only by its own rank, into its own window.  One
 *                    slot each, no parity, because the leader's progress gates the
 *                    node's: a non-leader writes its input of instance s + 1 only
 *                    after it finished s, which needed the leader's result of s,
 *                    posted after the leader read every input of s; a leader writes
 *                    its result of s + 1 only after it read every input of s + 1,
 *                    posted after each rank copied the result of s out.  nport
 *                    alike, each carrier for its share (a carrier whose share is
 *                    empty writes and reads nothing; a rank copied every non-empty
 *                    share of s before it posts s + 1).  Any
 *                    allreduce in between keeps this (every output depends on every
 *                    input).  The plan simulator agrees (a slot per parity is not
 *                    needed; removing a wait fails)
 *   retire           comm_size words, packed (in whole lines), word i written by
 *                    rank i alone, once, nonzero, when it frees its window of this
 *                    communicator (after its last access to any peer's window);
 *                    the owner reuses its window for another communicator only
 *                    once every other rank's word says so (coll_rdma_window.h,
 *                    "the pool").  Not a region of sequence words: the window
 *                    zeroes it when it is allocated or taken again
 *   ssp ring         only where the communicator asked for staleness S >= 1
 *                    (the last region, so the others lie alike on every rank
 *                    even when ranks asked differently): 2S + 2 slots of
 *                    allreduce_ssp_max_bytes, written only by this rank,
 *                    instance t (the stale-synchronous clock, counted apart)
 *                    in slot (t - seq_start) % (2S + 2), read by every rank.
 *                    Reuse without credits: a reader at instance t reads
 *                    instances >= t - S; a writer at instance u finished u - 1,
 *                    which needed every rank's contribution of u - 1 - S or
 *                    later, so every reader is at t >= u - 1 - S and reads
 *                    instances >= u - 1 - 2S > u - (2S + 2), the one slot u
 *                    overwrites (docs/design.md, "Bounded staleness").
 *
 * Not in the registered region: `scratch`, two local buffers of one
 * allreduce payload each (the n-way removal "tail"; Bruck's S0 and the copy
 * of an in-place input).
 */
#ifndef COLL_RDMA_LAYOUT_H
#define COLL_RDMA_LAYOUT_H

#include "coll_rdma_config.h"

#define COLL_RDMA_LINE 64
#define COLL_RDMA_SLOT_HEADER 16
/* A one-line slot's header: the word alone, the payload in the rest of its line. */
#define COLL_RDMA_LINE_HEADER 8
/* The largest read bcast in the small ring: one line with its word. */
#define COLL_RDMA_BCAST_SMALL_BYTES (COLL_RDMA_LINE - COLL_RDMA_LINE_HEADER)

#define COLL_RDMA_MAX_REGIONS 40

/*
 * `nslots` slots from `off`, each starting with a sequence word: slot s at
 * off + s * stride, or, for a packed Bruck region (packed = 1: allgather, 2:
 * alltoall), at off + s * COLL_RDMA_LINE + (blocks of the slots before s) *
 * stride (coll_rdma_packed_slot()).  `empty` is the value the words start
 * with: the instance before the first, or 0 for words that count messages.
 * `line`: one-line slots, the payload right after the word
 * (COLL_RDMA_LINE_HEADER; else COLL_RDMA_SLOT_HEADER).
 */
typedef struct coll_rdma_region {
    size_t off;
    size_t stride;
    int nslots;
    int packed;
    uint64_t empty;
    int line;
} coll_rdma_region_t;

/* A segment region (rsag, the read allgather and alltoall): two input slots
 * (instance parity; the alltoall's per destination) of slot_size bytes from
 * `off`, each holding one segment of `segment` payload bytes (0: the region
 * holds none), and two done lines from `off_done`.  The plans cut their
 * messages into segments of `segment` bytes (coll_rdma_layout.c,
 * layout_segments()). */
typedef struct coll_rdma_rsag_region {
    size_t off;
    size_t slot_size;
    size_t segment;
    size_t off_done;
} coll_rdma_rsag_region_t;

/* Payload bytes of one allgather, alltoall or reduce region at most (all halves or rings). */
#define COLL_RDMA_REGION_BUDGET (512 * 1024)

/* The largest bcast auto's built-in table serves by reading (one node): on
 * 2 ranks, and on more (coll_rdma_decision.c; the layout sizes the read ring
 * for them) */
#define COLL_RDMA_AUTO_BCAST_TWO_RANKS_MAX_BYTES (16 * 1024)
#define COLL_RDMA_AUTO_BCAST_MAX_BYTES (1024 * 1024)

/** The largest bcast auto's built-in table reads on `comm_size` ranks of one node, bytes. */
static inline size_t coll_rdma_auto_bcast_read_max(int comm_size)
{
    return 2 == comm_size ? COLL_RDMA_AUTO_BCAST_TWO_RANKS_MAX_BYTES
                          : COLL_RDMA_AUTO_BCAST_MAX_BYTES;
}
/* Radix of Bruck's allgather and alltoall (classic: 2). */
#define COLL_RDMA_BRUCK_RADIX 2
/* Rings of reduce slots: how far a child may run ahead of its parent. */
#define COLL_RDMA_REDUCE_DEPTH 2

/*
 * The layout's members, one list for coll_rdma_layout_t and for the window
 * that holds one (coll_rdma_window.h): this rank, the communicator size,
 * the first sequence number, the window's bytes, and the geometry, identical
 * on every rank.
 */
#define COLL_RDMA_LAYOUT_FIELDS                                                                       \
    size_t size;                                                                                      \
    int comm_size;                                                                                    \
    int rank;                                                                                         \
    uint64_t seq_start;      /* first sequence number (debug_seq_start) */                            \
    /* geometry, identical on every rank (derived from the agreed config) */                          \
    size_t off_barrier;                                                                               \
    size_t off_bcast;        /* bcast ring (k-nomial, hier) */                                        \
    size_t bcast_slot_size;                                                                           \
    size_t bcast_segment;    /* the plans' segment through it, bytes */                               \
    int bcast_slots;                                                                                  \
    size_t off_consumed;                                                                              \
    size_t off_bcast_read;   /* bcast read ring, bcast_read_slot_size each */                         \
    size_t bcast_read_slot_size;                                                                      \
    size_t bcast_read_segment; /* the plans' segment through it, bytes */                             \
    bool bcast_tree_cut;     /* the bcast ring holds less than a configured segment */                \
    bool bcast_read_cut;     /* the bcast read ring holds less than a configured segment */           \
    size_t off_bcast_small;  /* bcast small ring: bcast_small_slots lines */                          \
    int bcast_small_slots;                                                                            \
    size_t off_ar_up;                                                                                 \
    size_t ar_slot_size;                                                                              \
    size_t off_ar_down;                                                                               \
    size_t off_pw;           /* pairwise slots, ar_slot_size each */                                  \
    size_t off_read_barrier; /* read barrier word */                                                  \
    size_t off_read_ar;      /* read allreduce slots (parity), read_ar_slot_size each */              \
    size_t read_ar_slot_size;                                                                         \
    coll_rdma_rsag_region_t rsag_allreduce; /* rsag slots and done lines of allreduce */              \
    coll_rdma_rsag_region_t rsag_reduce;    /* the same for reduce (its own instances) */             \
    coll_rdma_rsag_region_t read_allgather; /* the read allgather's slots (done lines unused) */      \
    coll_rdma_rsag_region_t read_alltoall;  /* the read alltoall's slots (done lines unused) */       \
    size_t off_hier_words;   /* two-level: arrival and release words */                               \
    size_t off_hier_ar;      /* two-level: the input slot, then the result slot */                    \
    size_t off_hier_reduce;  /* two-level reduce: the input ring, REDUCE_DEPTH slots */               \
    size_t off_retire;       /* retire words: comm_size, rank i's at off + 8 i */                    \
    size_t off_ssp;          /* ssp ring: ssp_slots slots of ssp_slot_size (none: 0 slots) */         \
    size_t ssp_slot_size;                                                                             \
    int ssp_slots;                                                                                    \
    /* allgather, alltoall, reduce, pairwise barrier (layout above);                                  \
     * *_block: the largest block served, bytes */                                                    \
    size_t ag_block;         /* allgather, per rank's block (bruck and ring) */                       \
    size_t ag_stride;        /* ag_block rounded up to 8: packed bruck stride */                      \
    size_t off_ag_bruck;                                                                              \
    size_t ag_bruck_half;                                                                             \
    size_t off_ag_ring;                                                                               \
    size_t ag_ring_slot;                                                                              \
    size_t a2a_direct_block; /* alltoall direct, per destination's block */                           \
    size_t off_a2a_direct;                                                                            \
    size_t a2a_direct_slot;                                                                           \
    size_t a2a_bruck_block;  /* alltoall bruck, per destination's block */                            \
    size_t a2a_bruck_stride;                                                                          \
    size_t off_a2a_bruck;                                                                             \
    size_t a2a_bruck_half;                                                                            \
    size_t reduce_bytes;     /* reduce, whole message */                                              \
    int reduce_children;     /* slots per reduce ring: max children of the tree */                    \
    size_t off_reduce;                                                                                \
    size_t reduce_slot_size;                                                                          \
    size_t off_reduce_consumed;                                                                       \
    size_t off_bar_pw;                                                                                \
    size_t off_ar_diss;      /* dissemination slots, ar_slot_size each */                             \
    size_t off_ring;         /* ring slots, ring_slot_size each */                                    \
    size_t ring_slot_size;                                                                            \
    size_t ring_segment_bytes; /* payload of a ring slot */                                           \
    int ring_slots;                                                                                   \
    size_t off_ring_ack;                                                                              \
    size_t scratch_size;                                                                              \
    coll_rdma_region_t regions[COLL_RDMA_MAX_REGIONS]; /* every sequence-word region, for zeroing */  \
    int nregions;                                                                                     \
    bool overflow;           /* some offset or size did not fit in size_t: the layout failed */

typedef struct coll_rdma_layout {
    COLL_RDMA_LAYOUT_FIELDS
} coll_rdma_layout_t;

/**
 * Offset of packed slot `slot` of the half at `region`, after `before`
 * blocks of `stride` bytes (see the layout above); plans name it with
 * instance parity as coll_rdma_slot(that offset, half, 2).
 */
static inline size_t coll_rdma_packed_slot(size_t region, int slot, long before, size_t stride)
{
    return region + (size_t) slot * COLL_RDMA_LINE + (size_t) before * stride;
}

/** Slots per parity of the dissemination region: rounds * min(n, P-1). */
int coll_rdma_window_diss_slots(int comm_size, int n);

/**
 * Largest block (bytes) that collective `coll` (COLL_RDMA_ALLGATHER: one
 * rank's block; COLL_RDMA_ALLTOALL: one destination's block;
 * COLL_RDMA_REDUCE: the whole message) served by `alg` may have on a
 * communicator of `comm_size` ranks:
 *     min(cfg's *_max_bytes, COLL_RDMA_REGION_BUDGET / blocks of its region,
 *         max(4 KiB, the largest bytes any rule reaches with the region's
 *                    algorithms; unbounded where one of them is forced))
 * (4 KiB: what the built-in table serves; the region is laid out for larger
 * blocks only where they may come); the read allgather and alltoall: their
 * *_max_bytes alone (window memory per segment).  Allgather's bruck and
 * ring share one cap, and so do reduce's knomial and hier; alltoall's
 * direct and bruck regions each have theirs.  A pure function
 * of the agreed configuration, so the decision layer of every rank and the
 * window geometry agree.  0 for other collectives.
 */
size_t coll_rdma_window_block_cap(const coll_rdma_config_t *cfg, int comm_size, int coll, int alg);

/**
 * The read alltoall's configured segment per destination (bytes): the
 * segment of the algorithms by reading (cfg->allreduce_rsag_segment_bytes)
 * shared among the comm_size destinations, in whole cache lines, at least
 * one line (each destination has slots of its own).  The window's segment
 * (read_alltoall.segment) is this or less, where the rules reach less.
 */
size_t coll_rdma_window_a2a_read_segment(const coll_rdma_config_t *cfg, int comm_size);

/**
 * The geometry of a window of rank `rank` in a communicator of `comm_size`
 * ranks under the agreed `cfg`: comm_size, rank, seq_start, every offset and
 * slot size (bytes), the block caps, `size`, `scratch_size` and `regions`,
 * into *l.  Every slot holds what the decision may serve of its algorithm
 * under cfg (one instance: a segment, a chunk, or the whole message; the
 * unit test tests/unit/test_bounds.c asserts it for extreme values), so no
 * plan writes past its slot.  Every sum and product is checked: a geometry
 * that does not fit in size_t is no geometry.  Pure (coll_rdma_layout.c: no
 * UCX, no component globals, no allocation), so every rank computes the
 * same and the unit tests lay out simulated windows with it.  Returns
 * OMPI_SUCCESS; OMPI_ERR_VALUE_OUT_OF_BOUNDS when some offset or size would
 * exceed SIZE_MAX (parameters beyond coll_rdma_size_params' ranges: the
 * window's allocation then fails, and the set-up agrees on no window);
 * OMPI_ERROR when the layout needs more than COLL_RDMA_MAX_REGIONS regions.
 * *l is then unusable.
 */
int coll_rdma_layout(coll_rdma_layout_t *l, const coll_rdma_config_t *cfg, int comm_size,
                     int rank);

/*
 * The ranges of the size_t parameters (coll_rdma_config_t fields, bytes).
 * Slot and segment sizes: at most COLL_RDMA_SLOT_BYTES_MAX (1 GiB), so that
 * a window's geometry stays far from SIZE_MAX for any communicator and slot
 * count; the limits of what a call may carry (*_max_bytes): at most
 * COLL_RDMA_MESSAGE_BYTES_MAX (2^31 - 1, the most Open MPI's datatype engine
 * packs in its int byte counts, and the decision's own limit).  The
 * smallest allreduce_short_max_bytes holds one element of every predefined
 * type (a two-level allreduce cuts chunks of it: coll_rdma_plan()).
 */
#define COLL_RDMA_SLOT_BYTES_MAX ((size_t) 1 << 30)
#define COLL_RDMA_MESSAGE_BYTES_MAX ((size_t) INT32_MAX)
#define COLL_RDMA_ELEMENT_BYTES_MAX 64
/* coll_rdma_window_max_bytes (a module parameter, not in the configuration):
 * at most 1 TiB; 0 is no cap */
#define COLL_RDMA_WINDOW_BYTES_MAX ((size_t) 1 << 40)

typedef struct coll_rdma_size_param {
    const char *name; /* the MCA name without "coll_rdma_" */
    size_t offset;    /* of its field in coll_rdma_config_t */
    size_t lo, hi;    /* its range, bytes */
} coll_rdma_size_param_t;

/** Every size_t parameter of coll_rdma_config_t and its range. */
extern const coll_rdma_size_param_t coll_rdma_size_params[];
extern const int coll_rdma_nsize_params;

/** Told of a parameter that was out of its range: its value `was`, now `now`. */
typedef void (*coll_rdma_size_said_fn)(const coll_rdma_size_param_t *p, size_t was, size_t now,
                                       void *ctx);

/**
 * Clamp every size_t parameter of *cfg into its range
 * (coll_rdma_size_params), calling said(p, was, now, ctx) for each one that
 * was outside (said may be NULL).  Returns how many were.  Pure: the
 * component clamps its parameters with it (and says so once per job), the
 * unit tests their configurations.
 */
int coll_rdma_config_bound_sizes(coll_rdma_config_t *cfg, coll_rdma_size_said_fn said, void *ctx);

/** Offset of the word of slot `s` of region `r` (see coll_rdma_region_t). */
size_t coll_rdma_layout_region_slot(const coll_rdma_layout_t *l, const coll_rdma_region_t *r,
                                    int s);

/* 24 MiB: at 2 ranks 12 windows of the defaults' 2.05 MB per process, so
 * that 2 processes keep at most about 50 MB of /dev/shm with Open MPI's own
 * (issue 36's 64 MB for 200 communicators at 2 ranks); at 16 ranks 5 */
/**
 * Write every word of the window at `base` (laid out as `l`) as a new
 * window holds it: each region's words `empty` (the instance before the
 * first, or 0 for counters) and every retire word 0, whatever the memory
 * held before (new memory, or a window taken from the pool with the old
 * communicator's bytes); payloads are left as they are.  `zeroed`: the
 * memory is known to be all zero (calloc's), so only the words whose empty
 * value is not 0 are written, and pages no word needs stay untouched.  The
 * component and the plan simulator both start their windows with it.
 */
void coll_rdma_layout_reset_words(const coll_rdma_layout_t *l, char *base, bool zeroed);

#define COLL_RDMA_WINDOW_BUDGET_MAX ((size_t) 24 << 20)
#define COLL_RDMA_WINDOW_BUDGET_FLOOR ((size_t) 4 << 20)

/**
 * The default of coll_rdma_window_budget_bytes (bytes) for a process
 * sharing its node with `local_procs` processes (itself included; < 1 reads
 * as 1) and a shared-memory directory of `dir_bytes` bytes (0: unknown):
 * a quarter of the directory divided among the processes, raised to
 * COLL_RDMA_WINDOW_BUDGET_FLOOR (one small communicator's window) as far as
 * half of the directory divided among them allows, at most
 * COLL_RDMA_WINDOW_BUDGET_MAX; COLL_RDMA_WINDOW_BUDGET_MAX where the size
 * is unknown.  Docker's default 64 MiB /dev/shm: 16 MiB at 1 process, 8 at
 * 2, 4 at 4 to 8 (one window of a communicator of up to 8 ranks at the
 * defaults), 2 at 16 (none); a 24 GiB one: 24 MiB.
 */
size_t coll_rdma_window_budget_of(size_t dir_bytes, int local_procs);

#endif /* COLL_RDMA_LAYOUT_H */
