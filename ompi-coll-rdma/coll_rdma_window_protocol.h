/*
 * coll/rdma window, its arrival protocol (coll_rdma_window_protocol.c):
 * where a slot lies for an instance, how a sequence word is posted after
 * its payload and tested with an acquire load, the credit reads and
 * publishes of bcast and reduce, flushes, and the waits between tests.
 * DESIGN.md section 4, rules 1-3; docs/design.md, "Arrival protocol".
 * Above the window's memory and peers (coll_rdma_window.h).
 */
#ifndef COLL_RDMA_WINDOW_PROTOCOL_H
#define COLL_RDMA_WINDOW_PROTOCOL_H

#include "coll_rdma_window.h"

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

/** Bytes from `slot`'s word to its payload. */
static inline size_t coll_rdma_slot_head(const coll_rdma_slot_t *slot)
{
    return slot->line ? COLL_RDMA_LINE_HEADER : COLL_RDMA_SLOT_HEADER;
}

/** Offset of the consumed word that credits of `kind` read (enum coll_rdma_credit). */
static inline size_t coll_rdma_credit_off(const coll_rdma_window_t *win, int kind)
{
    return COLL_RDMA_CREDIT_REDUCE == kind ? win->off_reduce_consumed : win->off_consumed;
}

/** How many instances a writer of credit `kind` may run ahead of a reader: its ring's depth. */
static inline uint64_t coll_rdma_credit_depth(const coll_rdma_window_t *win, int kind)
{
    return COLL_RDMA_CREDIT_REDUCE == kind        ? (uint64_t) COLL_RDMA_REDUCE_DEPTH
           : COLL_RDMA_CREDIT_BCAST_SMALL == kind ? (uint64_t) win->bcast_small_slots
                                                  : (uint64_t) win->bcast_slots;
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
 * coll_rdma_credit; coll_rdma_credit_depth()), so that a slot of instance
 * `seq` may be written: *granted.  Reads the peer's consumed word (a load
 * where mapped; else a get whose completion a later call tests, so it never
 * waits) only where the value cached from the last read does not grant it,
 * and caches it (one cache per consumed word: the two bcast kinds share
 * theirs).  Over the put path one get is in flight per window: the caller
 * must test again, for the same (kind, peer), until granted, before it
 * tests another (the executor resumes at the same CREDIT action, so it
 * does); a get left in flight for another (kind, peer), by an operation that
 * ended with an error, is completed and discarded first, so a test may take
 * a few calls longer but never grants on another peer's word.  Returns
 * OMPI_SUCCESS or OMPI_ERROR.
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


/* Copies from this size on may use non-temporal stores, which a release
 * store does not order on x86: fence them explicitly. */
#define COLL_RDMA_FENCE_BYTES (64 * 1024)

/** coll_rdma_window_post() to a peer not mapped here: UCX puts
 * (coll_rdma_window_protocol.c); the same preconditions. */
int coll_rdma_window_put(coll_rdma_window_t *win, int peer, size_t off, size_t head,
                         const void *src, size_t bytes, uint64_t seq);

/**
 * Write `bytes` from `src` into `peer`'s slot at `off`, `head` bytes after
 * its word (coll_rdma_slot_head()), then its sequence word = seq, ordered
 * after the payload.  bytes may be 0 (a pure flag); head + bytes must lie
 * within the slot (coll_rdma_plan() refuses a program that would not).
 * `src` must stay valid until a flush completed
 * (coll_rdma_window_flush_test()).  Over the put path the word's source is
 * the window's one win->seq_src, read by UCX until the put completes: posts
 * of different instances (different words) must be separated by a
 * completed flush, as every plan does (the plan simulator checks it).
 * Returns OMPI_SUCCESS or OMPI_ERROR.  Inline: a mapped peer's post is a
 * copy and a release store on every call's path.
 */
static inline int coll_rdma_window_post(coll_rdma_window_t *win, int peer, size_t off,
                                        size_t head, const void *src, size_t bytes, uint64_t seq)
{
    char *slot = win->peers[peer].direct;

    if (OPAL_UNLIKELY(NULL == slot)) {
        return coll_rdma_window_put(win, peer, off, head, src, bytes, seq);
    }
    slot += off;
    if (bytes > 0) {
        memcpy(slot + head, src, bytes);
        if (bytes >= COLL_RDMA_FENCE_BYTES) {
            __atomic_thread_fence(__ATOMIC_SEQ_CST);
        }
    }
    __atomic_store_n((uint64_t *) slot, seq, __ATOMIC_RELEASE);
    return OMPI_SUCCESS;
}

#endif /* COLL_RDMA_WINDOW_PROTOCOL_H */
