/*
 * coll/rdma window: one UCX-allocated region per communicator and rank, with
 * the same slot geometry on every rank, so a peer's slot is remote_base +
 * offset.  A slot is a 64-byte aligned header line, whose first 8 bytes are
 * the sequence word, followed by the payload:
 *
 *     offset 0        8          16                       16 + bytes
 *            | seq    | reserved | payload ...            |
 *
 * or, in a ring of one-line slots (the read bcast's small ring; the slot's
 * `line`, coll_rdma_slot_head()), the word and up to 56 bytes in one line:
 *
 *     offset 0        8                      64
 *            | seq    | payload ...          |
 *
 * Arrival protocol (DESIGN.md section 4, rules 1-3): the writer stores the
 * payload, then the sequence word ordered after it (store-release on the
 * direct path, ucp_worker_fence between two puts elsewhere); the reader polls
 * the word with acquire loads until it reaches the expected sequence number
 * (wrap-safe compare), then reads the payload.  The word sits at a fixed
 * place in front of the payload, never after a variable-length payload, so
 * stale payload bytes can never be taken for a sequence word, and a payload
 * of up to 48 bytes (one-line slots: 56) shares the cache line of its
 * sequence word: one transfer brings both, though correctness never rests on
 * that (the word is a separate store, released after the payload's).  Every
 * sequence word starts "empty": the instance before the first
 * (debug_seq_start - 1, 0 by default), in every line of the window.
 *
 * "Instance parity" and ring positions: plans name slots by geometry
 * (coll_rdma_slot_t), and coll_rdma_slot_off() counts from the first
 * instance, (seq - seq_start) % ring, for every region alike; that is
 * consistent across the 2^64 wrap for any ring length (the difference is
 * taken modulo 2^64 first).
 *
 * The regions and the reuse argument of each: coll_rdma_layout.h.
 */
#ifndef COLL_RDMA_WINDOW_H
#define COLL_RDMA_WINDOW_H

#include "coll_rdma_config.h"
#include "coll_rdma_layout.h"
#include "coll_rdma_prog.h"
#include "coll_rdma_ucx.h"

#include <string.h>

typedef struct coll_rdma_peer {
    coll_rdma_ucx_remote_t remote; /* the peer's window by RMA (none for this rank) */
    char *direct;                  /* the peer's window mapped here, or NULL */
    bool pending;                  /* not attached yet: at its first put or get */
} coll_rdma_peer_t;

typedef struct coll_rdma_window {
    coll_rdma_ucx_mem_t mem;  /* the memory's registration with the transport */
    char *base;
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
    bool poolable;           /* all_direct and agreed: at free, retire every peer's window
                              * and keep this one for reuse (the pool, below) */
    int window_pool;        /* the pool's size (coll_rdma_window_limits_t) */
    bool reused;             /* its memory came from the pool */
    bool exposed;            /* its address went out (the set-up's exchange began): a
                              * peer may hold it; until then it may go back to the pool
                              * as it is */
    /* the node map (coll_rdma_topo_set_nodes): ranks that map each other's
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
    const uint64_t *fetch_for; /* the credit cache (kind and peer) the get in flight is for */
    uint64_t seq_src;        /* source of sequence-word puts; stable until the flush */
    uint64_t *credit;        /* last bcast "consumed" value read from each peer */
    uint64_t *reduce_credit; /* last reduce "consumed" value read from each peer */
    uint64_t ring_sent;      /* ring messages sent to the right neighbour, all calls */
    uint64_t ring_received;  /* ring messages consumed from the left neighbour */
    char *scratch;           /* local only (never written by peers): the largest need of
                              * allgather/alltoall/reduce, and of allreduce (2 * (ar_slot_size
                              * - header): n-way tail, Bruck's S0) */
    /* its layout (coll_rdma_layout.h), by name as win->layout and field by
     * field as win->off_bcast, ...: the same members in both (a union's
     * common initial sequence, C11 6.5.2.3) */
    union {
        coll_rdma_layout_t layout;
        struct {
            COLL_RDMA_LAYOUT_FIELDS
        };
    };
} coll_rdma_window_t;

/** Lay `win` out (coll_rdma_layout()): its layout for `comm_size` ranks, as `rank`. */
static inline int coll_rdma_window_layout(coll_rdma_window_t *win, const coll_rdma_config_t *cfg,
                                          int comm_size, int rank)
{
    return coll_rdma_layout(&win->layout, cfg, comm_size, rank);
}

/** Offset of slot `s` of region `r` of `win` (coll_rdma_layout_region_slot()). */
static inline size_t coll_rdma_window_region_slot(const coll_rdma_window_t *win,
                                                  const coll_rdma_region_t *r, int s)
{
    return coll_rdma_layout_region_slot(&win->layout, r, s);
}

/* What limits this process's windows: its own, never agreed (a rank over a
 * limit reports no window in the set-up's exchange, and every rank goes
 * without on that communicator). */
typedef struct coll_rdma_window_limits {
    size_t max_bytes;    /* one window (coll_rdma_window_max_bytes; 0: none) */
    size_t budget_bytes; /* every window of the process at once
                          * (coll_rdma_window_budget_bytes, its 0 resolved
                          * to the default by the component; 0: none) */
    int local_ranks;     /* ranks of the communicator on this node, each mapping one now */
    int window_pool;    /* freed windows kept for reuse (coll_rdma_window_pool; 0: none) */
} coll_rdma_window_limits_t;

/* Why coll_rdma_window_alloc() gave no window (and what it would have taken). */
typedef struct coll_rdma_nowin_info {
    int why;      /* enum coll_rdma_nowin */
    size_t bytes; /* the window's size (0: no geometry) */
} coll_rdma_nowin_info_t;

enum coll_rdma_nowin {
    COLL_RDMA_NOWIN_LAYOUT = 0, /* no geometry: size parameters beyond their ranges */
    COLL_RDMA_NOWIN_FDS,        /* the process is near its file-descriptor limit */
    COLL_RDMA_NOWIN_CAP,        /* more than limits.max_bytes */
    COLL_RDMA_NOWIN_BUDGET,     /* the process's windows would pass limits.budget_bytes */
    COLL_RDMA_NOWIN_SHM,        /* the shared-memory directory has too little room */
    COLL_RDMA_NOWIN_MEMORY,     /* an allocation failed */
    COLL_RDMA_NOWIN_MAP,        /* UCX could not map the memory */
    COLL_RDMA_NOWIN_N
};

/**
 * Allocate this rank's window for a communicator of `comm_size` ranks with the
 * geometry implied by `cfg` (coll_rdma_layout()), every sequence word empty,
 * with every per-peer array (peers, credit caches, the node map's five
 * arrays) and the scratch.  Returns NULL, having freed whatever it took and
 * said why in *nowin, when the geometry fails (a size that
 * would overflow: parameters beyond their ranges), when the window needs
 * more than limits->max_bytes, when the process's windows would then pass
 * limits->budget_bytes, when the shared-memory directory UCX maps windows
 * from (UCX_POSIX_DIR, /dev/shm by default) has not room for
 * limits->local_ranks such windows and a margin (so that UCX never fails a
 * write into a full directory, which it reports as an error on the
 * console), when the process is close to its file-descriptor limit (a new
 * window; one from the pool holds its descriptor already), when
 * any allocation fails, or when UCX cannot map the memory (each said at
 * verbose >= 1).  NULL is this rank's alone: the caller must report it in
 * the set-up's first exchange (ok = 0) so that every rank agrees on no
 * window; nothing is left half-made for another rank to rely on.  The UCX
 * transport must be initialized.  Takes the UCX lock itself, as do attach
 * and free.  The memory comes from the pool (below) where a window there
 * fits, else is mapped anew; a window freed counts against the budget until
 * it leaves the pool, which it does first where a new one needs its room.
 */
coll_rdma_window_t *coll_rdma_window_alloc(const coll_rdma_config_t *cfg,
                                           const coll_rdma_window_limits_t *limits,
                                           int comm_size, int rank, coll_rdma_nowin_info_t *nowin);

/**
 * coll_rdma_window_budget_of() for the directory UCX maps windows from
 * (UCX_POSIX_DIR from the environment, else /dev/shm; a value set in UCX's
 * configuration file is not seen): its size by statvfs, unknown where that
 * fails or says 0 blocks (an unlimited tmpfs).
 */
size_t coll_rdma_window_default_budget(int local_procs);

/**
 * Bytes of this rank's exchange blob: window base, packed rkey and worker
 * address.  coll_rdma_window_pack() writes exactly that many bytes.
 */
size_t coll_rdma_window_blob_size(const coll_rdma_window_t *win);

/**
 * Write this rank's exchange blob into `blob`, which holds
 * coll_rdma_window_blob_size(win) bytes: the window's base address, its
 * packed rkey and the worker's address (coll_rdma_ucx_address_pack()), as
 * coll_rdma_window_attach() on every peer unpacks them.  Before the
 * attach: the packed rkey is released by it (coll_rdma_ucx_address_done()).
 * Cannot fail.
 */
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
 * Attach pending peer i of `win` (coll_rdma_window_attach, lazily) at its
 * first put or get.  Returns OMPI_SUCCESS, or an error (said at verbose 1):
 * the call that needed the peer fails.
 */
int coll_rdma_window_attach_late(coll_rdma_window_t *win, int i);

/** Peer i reachable: attached now if it was left for its first use. */
static inline int coll_rdma_window_reach(coll_rdma_window_t *win, int i)
{
    return OPAL_UNLIKELY(win->peers[i].pending) ? coll_rdma_window_attach_late(win, i)
                                                : OMPI_SUCCESS;
}

/**
 * Release the window and its rkeys; where it is `poolable`, first store this
 * rank's retire word into every peer's window, and keep its memory in the pool
 * (below), else unmap it.
 */
void coll_rdma_window_free(coll_rdma_window_t *win);

/*
 * The pool: the memory of freed communicators' windows, kept mapped for the
 * next window of about the same size, so that a program that
 * makes and frees communicators pays UCX's mapping of new shared memory
 * (the file written through, page faults, munmap at free: most of a
 * window's set-up, docs/performance.md) once, not per communicator.
 *
 * Quiescence.  A window freed here may still be read or written by a peer of
 * its communicator: a rank's free is local (MPI_Comm_free does not
 * synchronize), and a slow peer may still be in a collective of that
 * communicator, reading this rank's slot (the read bcast's readers copy from
 * the root's window after the root returned).  So every rank, when it frees
 * its window of a communicator whose ranks all map each other's windows
 * (`all_direct`, agreed at set-up), stores a nonzero word into its own place
 * of every peer's retire words (coll_rdma_layout.h, "retire"), after its
 * last access to any of them (its window is freed only when its
 * communicator's last request is); and a pooled window is taken again only
 * once every other rank's word in it is nonzero.  Windows reached by RMA
 * (puts over a network, or not mapped by every rank) never enter the pool:
 * a peer could not store its retire word without a flush and an endpoint at
 * free, and they are unmapped as before.  A window whose address never went
 * out (`exposed` false: its set-up never began, or its allocation failed
 * after the take) is kept as it is, quiescent (no peer can hold it).  Once
 * MPI_Finalize has begun nothing is stored or kept.  A kept window whose
 * communicator some peer never frees is never taken; it leaves when newer
 * ones push it out or a new window needs its room.
 *
 * The pool holds at most `max_windows` (a parameter, coll_rdma_window_pool)
 * and counts against the window budget like any mapped window: a window
 * that would pass the budget, the directory's room or the descriptor limit
 * first unmaps kept ones, the oldest first (coll_rdma_window_pool_evict()),
 * where unmapping them all would suffice.  Everything here runs with the
 * UCX lock held.
 */
/* The most windows the pool may hold, whatever the parameter says. */
#define COLL_RDMA_WINDOW_POOL_MAX 16

/**
 * Take a pooled window of at least `bytes` bytes and at most a quarter more
 * (the smallest such; at most `max_bytes` where that is not 0, the cap on
 * one window) whose every peer retired it, its rkey packed again.
 * Its bytes are the old communicator's: the caller writes every sequence
 * word empty as on new memory, and payloads are never read before their
 * word arrives (the arrival protocol, above), so old payload is never seen.
 * Returns false (and changes nothing) where none qualifies.
 */
bool coll_rdma_window_pool_take(size_t bytes, size_t max_bytes, coll_rdma_ucx_mem_t *mem,
                                char **base);

/** Bytes of the windows the pool holds (counted in coll_rdma_ucx_mapped()). */
size_t coll_rdma_window_pool_bytes(void);

/** Windows the pool holds (each keeps its descriptor open). */
int coll_rdma_window_pool_count(void);

/**
 * Keep `mem` (mapped at `base`; its communicator's retire words at
 * `retire_off`, one per rank of `comm_size`, this process `rank`) for a
 * later window, evicting the oldest pooled windows down to `max_windows`
 * (at most COLL_RDMA_WINDOW_POOL_MAX); max_windows <= 0 unmaps it at once.
 * *mem is emptied either way.
 */
void coll_rdma_window_pool_put(coll_rdma_ucx_mem_t *mem, char *base, size_t retire_off,
                               int comm_size, int rank, int max_windows);

/** Unmap the oldest pooled window; false where the pool was empty. */
bool coll_rdma_window_pool_evict(void);

/** Unmap every pooled window (MPI_Finalize, before UCX is torn down). */
void coll_rdma_window_pool_drain(void);

/** Windows of communicators (not those no peer ever saw) taken from the pool
 * and put into it so far, for the statistics. */
void coll_rdma_window_pool_counts(uint64_t *taken, uint64_t *kept);

#endif /* COLL_RDMA_WINDOW_H */
