/*
 * coll/rdma window: one UCX-allocated region per communicator and rank, with
 * the same slot geometry on every rank, so a peer's slot is remote_base +
 * offset.  A slot is a 64-byte aligned header line, whose first 8 bytes are
 * the sequence word, followed by the payload:
 *
 *     offset 0        8          16                       16 + bytes
 *            | seq    | reserved | payload ...            |
 *
 * Arrival protocol (DESIGN.md section 4, rules 1-3): the writer stores the
 * payload, then the sequence word ordered after it (store-release on the
 * direct path, ucp_worker_fence between two puts elsewhere); the reader polls
 * the word with acquire loads until it reaches the expected sequence number
 * (wrap-safe compare), then reads the payload.  The word sits at a fixed
 * place in front of the payload, never after a variable-length payload, so
 * stale payload bytes can never be taken for a sequence word, and a payload
 * of up to 48 bytes shares the cache line of its sequence word.  Every
 * sequence word starts "empty": the instance before the first
 * (debug_seq_start - 1, 0 by default), in every line of the window.
 *
 * "Instance parity" and ring positions: plans name slots by geometry
 * (coll_rdma_slot_t), and coll_rdma_slot_off() counts from the first
 * instance, (seq - seq_start) % ring; the offset helpers below that take
 * `seq` use seq & 1.  Both are consistent across the 2^64 wrap (2 divides
 * 2^64); what matters is that every user of a region uses the same one.
 *
 * Regions (offsets from the window base):
 *   barrier flags    rounds * n slots of one line, slot (round, j) written by one fixed peer
 *   bcast ring       bcast_slots slots, slot (seq - seq_start) % bcast_slots; credits below
 *   bcast consumed   one line: last bcast instance this rank consumed (senders read it)
 *   bcast read ring  bcast_slots slots, slot (seq - first) % bcast_slots, written only by this
 *                    rank as the root of a read bcast and read by every other rank;
 *                    rewritten at instance s once every peer consumed s - bcast_slots
 *   read barrier     one line: this rank's last barrier instance (every peer polls it;
 *                    words only grow, so one line serves every instance)
 *   read allreduce   two slots (instance parity): this rank's contribution, read by every
 *                    peer.  A rank writes instance s + 2 only after it read every rank's
 *                    s + 1 contribution, i.e. after every rank finished reading instance s
 *   rsag             two slots (instance parity) of one allreduce_rsag_segment_bytes
 *                    segment each (of no payload unless rsag is the forced allreduce
 *                    algorithm): this rank's input of the instance, whose share
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
 *   read allgather   two slots (instance parity) of one allreduce_rsag_segment_bytes
 *                    segment (no payload unless read is the forced allgather algorithm
 *                    or a tuning rule names it): segment g of this rank's block, read
 *                    by every peer (its two done lines are unused).  Reuse as for read
 *                    allreduce: a rank writes instance g + 2 only after it read every
 *                    peer's g + 1, which each peer posts only after it copied every
 *                    segment g out (its program runs in order)
 *   read alltoall    the same per destination: two slots (instance parity) for each
 *                    destination d, holding segment g (coll_rdma_window_a2a_read_segment()
 *                    bytes) of this rank's block for d, read by d only; reuse as for
 *                    the read allgather
 *   allreduce up     max_children slots, one per child of the (k+1)-nomial tree
 *   allreduce down   one slot: the result from the parent
 *   pairwise         fold slot, result-back slot, then two slots (instance
 *                    parity) per exchange step
 *
 * Regions of allgather, alltoall, reduce and the pairwise barrier.  The
 * payload of the first three is bounded by COLL_RDMA_REGION_BUDGET each:
 * coll_rdma_window_block_cap() gives the block served, which is
 * min(*_max_bytes, budget / blocks of the region); everything larger falls
 * back.  Regions holding many blocks are "packed": slot s (one per transfer)
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
#ifndef COLL_RDMA_WINDOW_H
#define COLL_RDMA_WINDOW_H

#include "coll_rdma.h"
#include "coll_rdma_prog.h"
#include "coll_rdma_ucx.h"

#include <string.h>

#define COLL_RDMA_LINE 64
#define COLL_RDMA_SLOT_HEADER 16

typedef struct coll_rdma_peer {
    coll_rdma_ucx_remote_t remote; /* the peer's window by RMA (none for this rank) */
    char *direct;                  /* the peer's window mapped here, or NULL */
    bool pending;                  /* not attached yet: at its first put or get */
} coll_rdma_peer_t;

#define COLL_RDMA_MAX_REGIONS 40

/*
 * `nslots` slots from `off`, each starting with a sequence word: slot s at
 * off + s * stride, or, for a packed Bruck region (packed = 1: allgather, 2:
 * alltoall), at off + s * COLL_RDMA_LINE + (blocks of the slots before s) *
 * stride (coll_rdma_packed_slot()).  `empty` is the value the words start
 * with: the instance before the first, or 0 for words that count messages.
 */
typedef struct coll_rdma_region {
    size_t off;
    size_t stride;
    int nslots;
    int packed;
    uint64_t empty;
} coll_rdma_region_t;

/* An rsag region: two input slots (instance parity) of slot_size bytes from
 * `off`, and two done lines from `off_done`. */
typedef struct coll_rdma_rsag_region {
    size_t off;
    size_t slot_size;
    size_t off_done;
} coll_rdma_rsag_region_t;

typedef struct coll_rdma_window {
    coll_rdma_ucx_mem_t mem;  /* the memory's registration with the transport */
    char *base;
    size_t size;
    int comm_size;
    int rank;
    coll_rdma_peer_t *peers; /* comm_size entries */
    int nremote;             /* peers reached by RMA puts rather than stores */
    int nattached;           /* peers attached so far (endpoint and rkey) */
    int npending;            /* peers to attach at their first put or get */
    struct ompi_communicator_t *comm; /* whose ranks the peers are (for those pending) */
    char *blobs;             /* every rank's address, kept while some peer is pending */
    int *blob_displs;        /* rank i's address at blobs + blob_displs[i] */
    int nemulated;           /* of them, peers whose puts UCX emulates (no RMA lane) */
    bool emulated;           /* some rank has such a peer (agreed at set-up) */
    bool progress_wanted;    /* UCX progress asked of opal_progress() (first put or wait) */
    bool all_direct;         /* every rank maps every peer's window (agreed at set-up) */
    /* the node map (coll_rdma_window_set_nodes): ranks that map each other's
     * windows form a node, led by its lowest rank; agreed at set-up */
    bool nodes;              /* the map holds: every rank maps the windows of its node */
    int nnodes;
    int *leaders;            /* nnodes (of comm_size) entries: each node's leader, ascending */
    int node;                /* this rank's node: an index into leaders */
    int nlocal;
    int *local;              /* nlocal (of comm_size) entries: this rank's node, ascending */
    int local_rank;          /* this rank's index in local (0: the leader) */
    int *node_order;         /* comm_size entries: the ranks node by node, each node's in
                              * rank order (the rings' node-aware order) */
    int *node_pos;           /* comm_size entries: each rank's index in node_order */
    int *node_of;            /* comm_size entries: each rank's node, an index into leaders */
    bool dirty;              /* puts whose sources UCX still reads, issued since the last flush */
    bool unordered;          /* puts issued since the last flush or fence */
    int poll_spins;          /* polls between two opal_progress() calls (set by the module) */
    uint64_t fetched;        /* put path: a peer's word being read (credit_test) */
    bool fetching;
    void *fetch_request;
    uint64_t seq_src;        /* source of sequence-word puts; stable until the flush */
    uint64_t *credit;        /* last bcast "consumed" value read from each peer */
    uint64_t seq_start;      /* first sequence number (debug_seq_start) */

    /* geometry, identical on every rank (derived from the agreed config) */
    size_t off_barrier;
    size_t off_bcast;
    size_t bcast_slot_size;
    int bcast_slots;
    size_t off_consumed;
    size_t off_bcast_read;   /* bcast read ring, bcast_slot_size each */
    size_t off_ar_up;
    size_t ar_slot_size;
    size_t off_ar_down;
    size_t off_pw;           /* pairwise slots, ar_slot_size each */
    size_t off_read_barrier; /* read barrier word */
    size_t off_read_ar;      /* read allreduce slots (parity), read_ar_slot_size each */
    size_t read_ar_slot_size;
    coll_rdma_rsag_region_t rsag_allreduce; /* rsag slots and done lines of allreduce */
    coll_rdma_rsag_region_t rsag_reduce;    /* the same for reduce (its own instances) */
    coll_rdma_rsag_region_t read_allgather; /* the read allgather's slots (done lines unused) */
    coll_rdma_rsag_region_t read_alltoall;  /* the read alltoall's slots (done lines unused) */
    size_t off_hier_words;   /* two-level: arrival and release words */
    size_t off_hier_ar;      /* two-level: the input slot, then the result slot */
    size_t off_hier_reduce;  /* two-level reduce: the input ring, REDUCE_DEPTH slots */
    size_t off_ssp;          /* ssp ring: ssp_slots slots of ssp_slot_size (none: 0 slots) */
    size_t ssp_slot_size;
    int ssp_slots;

    /* allgather, alltoall, reduce, pairwise barrier (layout above);
     * *_block: the largest block served, bytes */
    size_t ag_block;         /* allgather, per rank's block (bruck and ring) */
    size_t ag_stride;        /* ag_block rounded up to 8: packed bruck stride */
    size_t off_ag_bruck;
    size_t ag_bruck_half;
    size_t off_ag_ring;
    size_t ag_ring_slot;
    size_t a2a_direct_block; /* alltoall direct, per destination's block */
    size_t off_a2a_direct;
    size_t a2a_direct_slot;
    size_t a2a_bruck_block;  /* alltoall bruck, per destination's block */
    size_t a2a_bruck_stride;
    size_t off_a2a_bruck;
    size_t a2a_bruck_half;
    size_t reduce_bytes;     /* reduce, whole message */
    int reduce_children;     /* slots per reduce ring: max children of the tree */
    size_t off_reduce;
    size_t reduce_slot_size;
    size_t off_reduce_consumed;
    uint64_t *reduce_credit; /* last reduce "consumed" value read from each peer */
    size_t off_bar_pw;
    size_t off_ar_diss;      /* dissemination slots, ar_slot_size each */
    size_t off_ring;         /* ring slots, ring_slot_size each */
    size_t ring_slot_size;
    size_t ring_segment_bytes; /* payload of a ring slot */
    int ring_slots;
    size_t off_ring_ack;
    uint64_t ring_sent;      /* ring messages sent to the right neighbour, all calls */
    uint64_t ring_received;  /* ring messages consumed from the left neighbour */
    char *scratch;           /* local only (never written by peers): the largest need of
                              * allgather/alltoall/reduce, and of allreduce (2 * (ar_slot_size
                              * - header): n-way tail, Bruck's S0) */
    size_t scratch_size;
    coll_rdma_region_t regions[COLL_RDMA_MAX_REGIONS]; /* every sequence-word region, for zeroing */
    int nregions;
} coll_rdma_window_t;

/* Payload bytes of one allgather, alltoall or reduce region at most (all halves or rings). */
#define COLL_RDMA_REGION_BUDGET (512 * 1024)
/* Radix of Bruck's allgather and alltoall (classic: 2). */
#define COLL_RDMA_BRUCK_RADIX 2
/* Rings of reduce slots: how far a child may run ahead of its parent. */
#define COLL_RDMA_REDUCE_DEPTH 2

/**
 * Largest block (bytes) that collective `coll` (COLL_RDMA_ALLGATHER: one
 * rank's block; COLL_RDMA_ALLTOALL: one destination's block;
 * COLL_RDMA_REDUCE: the whole message) served by `alg` may have on a
 * communicator of `comm_size` ranks: min(cfg's *_max_bytes, budget / blocks
 * of its region).  A pure function of the agreed configuration, so the
 * decision layer of every rank and the window geometry agree.  0 for other
 * collectives.
 */
size_t coll_rdma_window_block_cap(const coll_rdma_config_t *cfg, int comm_size, int coll, int alg);

/**
 * The read alltoall's segment per destination (bytes): the segment of the
 * algorithms by reading (cfg->allreduce_rsag_segment_bytes) shared among the
 * comm_size destinations, in whole cache lines, at least one line (each
 * destination has slots of its own).
 */
size_t coll_rdma_window_a2a_read_segment(const coll_rdma_config_t *cfg, int comm_size);

/**
 * The geometry of a window of rank `rank` in a communicator of `comm_size`
 * ranks under the agreed `cfg`: comm_size, rank, seq_start, every offset and
 * slot size, the block caps, `size`, `scratch_size` and `regions`; nothing
 * else of *win is touched.  Pure (coll_rdma_layout.c: no UCX, no component
 * globals), so every rank computes the same and the unit tests lay out
 * simulated windows with it.  Returns OMPI_SUCCESS, or OMPI_ERROR when the
 * layout needs more than COLL_RDMA_MAX_REGIONS regions.
 */
int coll_rdma_window_layout(coll_rdma_window_t *win, const coll_rdma_config_t *cfg, int comm_size,
                            int rank);

/** Offset of the word of slot `s` of region `r` (see coll_rdma_region_t). */
size_t coll_rdma_window_region_slot(const coll_rdma_window_t *win, const coll_rdma_region_t *r,
                                    int s);

/**
 * Allocate this rank's window for a communicator of `comm_size` ranks with the
 * geometry implied by `cfg`, every sequence word empty.  Returns NULL on
 * failure, when the geometry needs more than `max_bytes` bytes (0: no cap;
 * coll_rdma_window_max_bytes), or when the process is close to its
 * file-descriptor limit (message at verbose >= 1).  The UCX transport must be
 * initialized.  Takes the UCX lock itself, as do attach and free.
 */
coll_rdma_window_t *coll_rdma_window_alloc(const coll_rdma_config_t *cfg, size_t max_bytes,
                                           int comm_size, int rank);

/**
 * Bytes of this rank's exchange blob: window base, packed rkey and worker
 * address.  coll_rdma_window_pack() writes exactly that many bytes.
 */
size_t coll_rdma_window_blob_size(const coll_rdma_window_t *win);
void coll_rdma_window_pack(const coll_rdma_window_t *win, void *blob);

/**
 * Connect to the peers from the gathered addresses (*blobs + (*displs)[i] is
 * rank i's).  Eager (lazy false): every peer now.  Lazy: now only the peers
 * on this rank's node (Open MPI's locality: the ones UCX may map, which the
 * node map and the read algorithms need at once) and one peer off the node
 * (the first after this rank), so that whether UCX emulates puts across
 * nodes is known at set-up; every other peer at its first put or get
 * (coll_rdma_window_put(), the credit reads), and reached by puts even where
 * UCX could map it.  Set-up then makes endpoints and rkeys for the node and
 * one peer instead of comm_size - 1; a dissemination schedule adds O(log P).
 * Where a peer is left pending the window keeps *blobs and *displs (set
 * to NULL here; freed with the window or once every peer is attached).
 * Returns OMPI_SUCCESS or an error; on error the window stays safe to free.
 */
int coll_rdma_window_attach(coll_rdma_window_t *win, struct ompi_communicator_t *comm,
                            char **blobs, int **displs, bool lazy);

/**
 * Set the node map of `win` from leader_of[i], the leader (lowest rank of
 * its node) each of the win->comm_size ranks reported, and map_hash[i], a
 * hash of the set of ranks rank i maps (itself included): nodes, nnodes,
 * leaders, node, nlocal, local, local_rank, node_of, node_order and
 * node_pos, into win->leaders, win->local, win->node_of, win->node_order and
 * win->node_pos (comm_size entries each, allocated with the window; a NULL
 * one leaves no map).  win->nodes is true
 * when every rank maps every rank of its node: the ranks of a node all report
 * the map hash of their leader, who leads itself (any rank, e.g. a leader of
 * -1, can veto the map).  Every rank computes the same from the same arrays;
 * nothing can fail.  Pure (no UCX, no MPI: coll_rdma_hier.c).
 */
void coll_rdma_window_set_nodes(coll_rdma_window_t *win, const int64_t *leader_of,
                                const uint64_t *map_hash);

/**
 * A hash of the set of ranks whose flags are set in mapped[0 .. size-1]
 * (64-bit FNV-1a over the ascending ranks): equal sets give equal hashes.
 */
uint64_t coll_rdma_window_map_hash(const bool *mapped, int size);

/** Release the window, its rkeys and its memory. */
void coll_rdma_window_free(coll_rdma_window_t *win);

/** Offset of barrier flag slot index `i`. */
static inline size_t coll_rdma_barrier_slot(const coll_rdma_window_t *win, int i)
{
    return win->off_barrier + (size_t) i * COLL_RDMA_LINE;
}

/* Pairwise slots: fold, back, then (step, parity). */
#define COLL_RDMA_PW_FOLD 0
#define COLL_RDMA_PW_BACK 1
static inline size_t coll_rdma_pw_slot(const coll_rdma_window_t *win, int i)
{
    return win->off_pw + (size_t) i * win->ar_slot_size;
}


/**
 * Offset of packed slot `slot` of the half at `region`, after `before`
 * blocks of `stride` bytes (see the layout above); plans name it with
 * instance parity as coll_rdma_slot(that offset, half, 2).
 */
static inline size_t coll_rdma_packed_slot(size_t region, int slot, long before, size_t stride)
{
    return region + (size_t) slot * COLL_RDMA_LINE + (size_t) before * stride;
}

/** Offset of pairwise barrier flag `i`: COLL_RDMA_PW_FOLD, COLL_RDMA_PW_BACK, 2 + step. */
static inline size_t coll_rdma_bar_pw_slot(const coll_rdma_window_t *win, int i)
{
    return win->off_bar_pw + (size_t) i * COLL_RDMA_LINE;
}

/** Offset of the ring slot of ring message `m`. */
static inline size_t coll_rdma_ring_slot(const coll_rdma_window_t *win, uint64_t m)
{
    return win->off_ring + (size_t) (m % (uint64_t) win->ring_slots) * win->ring_slot_size;
}

/* Wrap-safe "a is at or after b" for 64-bit sequence numbers. */
static inline bool coll_rdma_seq_reached(uint64_t a, uint64_t b)
{
    return (int64_t) (a - b) >= 0;
}

/* A sequence word, with acquire semantics: the payload read after it is the writer's. */
static inline uint64_t coll_rdma_load_word(const char *addr)
{
    return __atomic_load_n((const uint64_t *) addr, __ATOMIC_ACQUIRE);
}

/** Offset of `slot` for instance `seq` (coll_rdma_prog.h). */
static inline size_t coll_rdma_slot_off(const coll_rdma_window_t *win, const coll_rdma_slot_t *slot,
                                        uint64_t seq)
{
    if (1 == slot->ring) {
        return slot->off;
    }
    if (2 == slot->ring) {
        return slot->off + (size_t) ((seq - win->seq_start) & 1) * slot->stride;
    }
    return slot->off + (size_t) ((seq - win->seq_start) % slot->ring) * slot->stride;
}

/**
 * Whether the local slot at `off` holds instance `seq` or later.  Never
 * blocks: the executor's waits are loops over tests.
 */
static inline bool coll_rdma_window_arrived(const coll_rdma_window_t *win, size_t off, uint64_t seq)
{
    return coll_rdma_seq_reached(coll_rdma_load_word(win->base + off), seq);
}

/**
 * Whether `peer` consumed instance seq - depth of credit `kind` (enum
 * coll_rdma_credit; depth bcast_slots or COLL_RDMA_REDUCE_DEPTH), so that a
 * slot of instance `seq` may be written: *granted.  Reads the peer's consumed
 * word (a load where mapped; else a get whose completion a later call
 * tests, so it never waits) and caches it.  Returns OMPI_SUCCESS or
 * OMPI_ERROR.
 */
int coll_rdma_window_credit_test(coll_rdma_window_t *win, int kind, int peer, uint64_t seq,
                                 bool *granted);

/** Publish that this rank consumed instance `seq` of credit `kind` (store-release). */
void coll_rdma_window_publish(coll_rdma_window_t *win, int kind, uint64_t seq);

/**
 * Test that every put issued so far no longer reads its source, without
 * waiting, and order them before every later put.  Where UCX copied every
 * source at the put (local completion, win->dirty false): *done at once,
 * after a worker fence if puts were issued since the last fence or flush
 * (no round trip: the protocol's sequence words tell the targets, and no
 * plan needs more than its sources free and its puts ordered).  Otherwise
 * the first call starts a flush (*request, owned by the caller until
 * *done), later calls test it.  Returns OMPI_SUCCESS or OMPI_ERROR.
 */
int coll_rdma_window_flush_test(coll_rdma_window_t *win, void **request, bool *done);

/**
 * Between two tests of a wait loop: progress the UCP worker where a peer is
 * reached by emulated RMA, and call opal_progress() every win->poll_spins
 * calls (*spins counts down; Open MPI yields the core there when
 * oversubscribed).
 */
void coll_rdma_window_idle(coll_rdma_window_t *win, int *spins);

/**
 * An operation on `win` was queued, to be run from opal_progress: where
 * peers are reached by UCX puts, let opal_progress progress UCX from now on,
 * since emulated puts land only where their target progresses (a rank whose
 * first action is a wait would otherwise never progress its own worker).
 */
void coll_rdma_window_started(coll_rdma_window_t *win);

/**
 * A blocking wait's idle step: poll the mapped sequence word `word` (this
 * rank's or a peer's window; NULL: none known) until it reaches `seq`, at
 * most until *spins runs out, then coll_rdma_window_idle().  Where a peer is
 * reached by emulated RMA, idle only (the worker must progress between
 * polls).
 */
void coll_rdma_window_poll(coll_rdma_window_t *win, const char *word, uint64_t seq, int *spins);

/** Slots per parity of the dissemination region: rounds * min(n, P-1). */
int coll_rdma_window_diss_slots(int comm_size, int n);

/* Copies from this size on may use non-temporal stores, which a release
 * store does not order on x86: fence them explicitly. */
#define COLL_RDMA_FENCE_BYTES (64 * 1024)

/** coll_rdma_window_post() to a peer not mapped here: UCX puts (coll_rdma_window.c). */
int coll_rdma_window_put(coll_rdma_window_t *win, int peer, size_t off, const void *src,
                         size_t bytes, uint64_t seq);

/**
 * Write `bytes` from `src` into `peer`'s slot at `off`, then its sequence
 * word = seq, ordered after the payload.  bytes may be 0 (a pure flag).
 * `src` must stay valid until a flush completed (coll_rdma_window_flush_test()).
 * Returns OMPI_SUCCESS or OMPI_ERROR.  Inline: a mapped peer's post is a
 * copy and a release store on every call's path.
 */
static inline int coll_rdma_window_post(coll_rdma_window_t *win, int peer, size_t off,
                                        const void *src, size_t bytes, uint64_t seq)
{
    char *slot = win->peers[peer].direct;

    if (OPAL_UNLIKELY(NULL == slot)) {
        return coll_rdma_window_put(win, peer, off, src, bytes, seq);
    }
    slot += off;
    if (bytes > 0) {
        memcpy(slot + COLL_RDMA_SLOT_HEADER, src, bytes);
        if (bytes >= COLL_RDMA_FENCE_BYTES) {
            __atomic_thread_fence(__ATOMIC_SEQ_CST);
        }
    }
    __atomic_store_n((uint64_t *) slot, seq, __ATOMIC_RELEASE);
    return OMPI_SUCCESS;
}

#endif /* COLL_RDMA_WINDOW_H */
