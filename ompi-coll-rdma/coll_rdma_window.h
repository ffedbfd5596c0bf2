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
 * Regions (offsets from the window base):
 *   barrier flags    rounds * n slots of one line, slot (round, j) written by one fixed peer
 *   bcast ring       bcast_slots slots, slot (seq - seq_start) % bcast_slots; credits below
 *   bcast consumed   one line: last bcast instance this rank consumed (senders read it)
 *   allreduce up     max_children slots, one per child of the (k+1)-nomial tree
 *   allreduce down   one slot: the result from the parent
 *   pairwise         fold slot, result-back slot, then two slots (instance
 *                    parity) per exchange step
 */
#ifndef COLL_RDMA_WINDOW_H
#define COLL_RDMA_WINDOW_H

#include "coll_rdma.h"
#include "coll_rdma_ucx.h"

#define COLL_RDMA_LINE 64
#define COLL_RDMA_SLOT_HEADER 16

typedef struct coll_rdma_peer {
    ucp_ep_h ep;       /* NULL for this rank itself */
    ucp_rkey_h rkey;
    uint64_t base;     /* remote address of the peer's window */
    char *direct;      /* the peer's window mapped here (ucp_rkey_ptr), or NULL */
} coll_rdma_peer_t;

typedef struct coll_rdma_window {
    ucp_mem_h memh;
    char *base;
    size_t size;
    void *rkey_buf;    /* packed rkey, kept until the exchange is done */
    size_t rkey_len;
    int comm_size;
    int rank;
    coll_rdma_peer_t *peers; /* comm_size entries */
    int nremote;             /* peers reached by ucp_put rather than stores */
    bool dirty;              /* puts issued since the last flush */
    uint64_t seq_src;        /* source of sequence-word puts; stable until the flush */
    uint64_t *credit;        /* last bcast "consumed" value read from each peer */
    uint64_t seq_start;      /* first sequence number (debug_seq_start) */

    /* geometry, identical on every rank (derived from the agreed config) */
    size_t off_barrier;
    size_t off_bcast;
    size_t bcast_slot_size;
    int bcast_slots;
    size_t off_consumed;
    size_t off_ar_up;
    size_t ar_slot_size;
    size_t off_ar_down;
    size_t off_pw;           /* pairwise slots, ar_slot_size each */
} coll_rdma_window_t;

/**
 * Allocate this rank's window for a communicator of `comm_size` ranks with the
 * geometry implied by `cfg`, every sequence word empty.  Returns NULL on failure, or when the
 * geometry needs more than coll_rdma_window_max_bytes, or when the process is
 * close to its file-descriptor limit (message at verbose >= 1).  The UCX transport must be initialized.  Takes the UCX lock
 * itself, as do attach and free.
 */
coll_rdma_window_t *coll_rdma_window_alloc(const coll_rdma_config_t *cfg, int comm_size, int rank);

/**
 * Bytes of this rank's exchange blob: window base, packed rkey and worker
 * address.  coll_rdma_window_pack() writes exactly that many bytes.
 */
size_t coll_rdma_window_blob_size(const coll_rdma_window_t *win);
void coll_rdma_window_pack(const coll_rdma_window_t *win, void *blob);

/**
 * Connect to every peer from the gathered blobs (blobs + displs[i] is rank
 * i's).  Returns OMPI_SUCCESS or an error; on error the window stays safe to
 * free.
 */
int coll_rdma_window_attach(coll_rdma_window_t *win, struct ompi_communicator_t *comm,
                            const char *blobs, const int *displs);

/** Release the window, its rkeys and its memory. */
void coll_rdma_window_free(coll_rdma_window_t *win);

/** Payload address of the local slot at `off`. */
static inline void *coll_rdma_slot_payload(coll_rdma_window_t *win, size_t off)
{
    return win->base + off + COLL_RDMA_SLOT_HEADER;
}

/**
 * Offset of bcast ring slot for instance `seq`.  Counted from the first
 * instance, so that instance seq - bcast_slots (whose consumption the credit
 * checks) used the same slot even where the counter wraps through 0 and
 * bcast_slots does not divide 2^64.
 */
static inline size_t coll_rdma_bcast_slot(const coll_rdma_window_t *win, uint64_t seq)
{
    return win->off_bcast
           + (size_t) ((seq - win->seq_start) % (uint64_t) win->bcast_slots) * win->bcast_slot_size;
}

/** Offset of barrier flag slot index `i`. */
static inline size_t coll_rdma_barrier_slot(const coll_rdma_window_t *win, int i)
{
    return win->off_barrier + (size_t) i * COLL_RDMA_LINE;
}

/** Offset of allreduce up slot index `i` (a child's slot at its parent). */
static inline size_t coll_rdma_ar_up_slot(const coll_rdma_window_t *win, int i)
{
    return win->off_ar_up + (size_t) i * win->ar_slot_size;
}

/* Pairwise slots: fold, back, then (step, parity). */
#define COLL_RDMA_PW_FOLD 0
#define COLL_RDMA_PW_BACK 1
static inline size_t coll_rdma_pw_slot(const coll_rdma_window_t *win, int i)
{
    return win->off_pw + (size_t) i * win->ar_slot_size;
}

static inline size_t coll_rdma_pw_step_slot(const coll_rdma_window_t *win, int step, uint64_t seq)
{
    return coll_rdma_pw_slot(win, 2 + 2 * step + (int) (seq & 1));
}

/**
 * Write `bytes` from `src` into `peer`'s slot at `off`, then its sequence
 * word = seq, ordered after the payload.  bytes may be 0 (a pure flag).
 * `src` must stay valid until coll_rdma_window_complete().  Returns
 * OMPI_SUCCESS or OMPI_ERROR.
 */
int coll_rdma_window_post(coll_rdma_window_t *win, int peer, size_t off, const void *src,
                          size_t bytes, uint64_t seq);

/**
 * Wait until the local slot at `off` holds sequence number `seq` or later
 * (wrap-safe), polling with acquire loads and calling opal_progress() every
 * coll_rdma_poll_spins polls.
 */
void coll_rdma_window_wait(coll_rdma_window_t *win, size_t off, uint64_t seq);

/**
 * Wait until `peer` has consumed bcast instance `seq` - bcast_slots, so that
 * ring slot seq % bcast_slots may be overwritten at `peer` (credits, DESIGN.md
 * rule 3).  Reads the peer's consumed word (a load, or a get), caching it.
 * Returns OMPI_SUCCESS or OMPI_ERROR.
 */
int coll_rdma_window_credit(coll_rdma_window_t *win, int peer, uint64_t seq);

/** Publish that this rank consumed bcast instance `seq` (store-release). */
void coll_rdma_window_consumed(coll_rdma_window_t *win, uint64_t seq);

/**
 * Complete every put of the current call (remote completion): after it the
 * sources may be reused.  No-op when all peers are reached by stores.
 */
int coll_rdma_window_complete(coll_rdma_window_t *win);

#endif /* COLL_RDMA_WINDOW_H */
