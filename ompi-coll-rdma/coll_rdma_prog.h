/*
 * coll/rdma action programs.
 *
 * Every algorithm is written once, as a plan: a short program of actions
 * (post a payload and its sequence word into a peer's slot, wait for a
 * word, reduce, copy, take or give a credit, flush) that an algorithm's
 * plan function builds locally, without communication, from the call's
 * arguments and the window's geometry.  One executor (coll_rdma_exec.c) runs
 * programs and is the only code that waits: it returns "would block" at an
 * action whose word has not arrived and resumes there later.  A blocking
 * call drives its program to the end; a nonblocking call leaves it to
 * MPI_Test/MPI_Wait and opal_progress; a persistent call builds the program
 * once and replays it at every MPI_Start.
 *
 * Programs do not hold addresses of window slots or sequence numbers: a slot
 * is named by its region geometry (coll_rdma_slot_t), which the executor
 * turns into an offset for the instance being run, so a persistent program
 * replays unchanged.  This header is pure data (no UCX, no MPI calls), so
 * unit tests can run the programs of P ranks against a simulated window.
 */
#ifndef COLL_RDMA_PROG_H
#define COLL_RDMA_PROG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum coll_rdma_act_kind {
    COLL_RDMA_ACT_POST = 0, /* src[len bytes] into peer's slot, then its word = instance */
    COLL_RDMA_ACT_WAIT,     /* the local slot's word reached the instance */
    COLL_RDMA_ACT_WAIT_PEER, /* peer's slot word reached the instance (mapped window) */
    COLL_RDMA_ACT_WAIT_ALL, /* every other rank's slot word reached the instance (mapped) */
    COLL_RDMA_ACT_FOLD_ALL, /* WAIT_ALL, folding each rank's payload into dst in rank order:
                             * dst = c[P-1] op (... op (c[1] op c[0])), len elements */
    COLL_RDMA_ACT_COPY,     /* dst = src, len bytes */
    COLL_RDMA_ACT_REDUCE,   /* dst = src op dst, len elements */
    COLL_RDMA_ACT_CREDIT,   /* peer consumed instance - depth of `credit` (slot reuse) */
    COLL_RDMA_ACT_PUBLISH,  /* this rank consumed the instance of `credit` */
    COLL_RDMA_ACT_FLUSH,    /* every put issued so far completed at its target */
    COLL_RDMA_ACT_RING_SEND, /* the next ring message, src[len bytes], to peer */
    COLL_RDMA_ACT_RING_RECV, /* the next ring message from the left arrived */
    COLL_RDMA_ACT_RING_ACK, /* the ring message received is consumed: ack it to peer */
    COLL_RDMA_ACT_PACK,     /* dst = the user's send side (peer 0) or receive side (peer 1),
                             * packed by Open MPI's datatype engine, len bytes */
    COLL_RDMA_ACT_UNPACK,   /* the user's receive side = src unpacked, len bytes */
    COLL_RDMA_ACT_FOLD_FRESH, /* as FOLD_ALL (every rank, this one included), taking from each
                               * the newest slot of `slot`'s ring whose word is an instance
                               * no older than the staleness allows (stale-synchronous
                               * allreduce, coll_rdma_ssp.c) */
    COLL_RDMA_NACTS
};

/* The credit kinds (DESIGN rule 3: unsynchronized collectives reuse slots
 * only once the reader said it consumed them). */
enum coll_rdma_credit {
    COLL_RDMA_CREDIT_BCAST = 0, /* bcast rings: depth bcast_slots */
    COLL_RDMA_CREDIT_REDUCE,    /* reduce rings: depth COLL_RDMA_REDUCE_DEPTH */
    COLL_RDMA_CREDIT_BCAST_SMALL, /* the read bcast's small ring: depth bcast_small_slots;
                                   * the bcast consumed word, as COLL_RDMA_CREDIT_BCAST */
    COLL_RDMA_NCREDITS
};

/*
 * A slot named by geometry: for instance s its offset in the window is
 * off + ((s - seq_start) % ring) * stride, ring 1 for a fixed slot, 2 for
 * instance parity, n for a ring of n slots counted from the first instance.
 * Its payload follows the word's header (COLL_RDMA_SLOT_HEADER bytes), or,
 * in a one-line slot (line, coll_rdma_slot_line()), the word alone
 * (COLL_RDMA_LINE_HEADER): coll_rdma_slot_head().
 */
typedef struct coll_rdma_slot {
    size_t off;
    size_t stride;
    uint32_t ring;
    uint32_t line;
} coll_rdma_slot_t;

enum coll_rdma_buf_base {
    COLL_RDMA_BUF_NONE = 0,  /* no data: a pure flag */
    COLL_RDMA_BUF_SBUF,      /* the call's send buffer (never MPI_IN_PLACE: plans resolve it) */
    COLL_RDMA_BUF_RBUF,      /* the call's receive buffer */
    COLL_RDMA_BUF_SCRATCH,   /* the window's local scratch */
    COLL_RDMA_BUF_SLOT,      /* the payload of a local slot */
    COLL_RDMA_BUF_PEER_SLOT, /* the payload of peer's slot, through its mapping */
    COLL_RDMA_BUF_RING,      /* the payload of the ring message last received */
    COLL_RDMA_BUF_TMP,       /* the op's own buffer for packed data */
};

/* A buffer: base + off bytes; slot and peer for the slot bases. */
typedef struct coll_rdma_buf {
    uint8_t base;
    int peer;
    coll_rdma_slot_t slot;
    size_t off;
} coll_rdma_buf_t;

typedef struct coll_rdma_act {
    uint8_t kind;
    uint8_t credit;        /* CREDIT, PUBLISH: enum coll_rdma_credit */
    uint32_t dseq;         /* the instance: the op's first + dseq */
    int peer;              /* POST, WAIT_PEER, CREDIT, RING_SEND, RING_ACK */
    coll_rdma_slot_t slot; /* POST (at peer), WAIT, WAIT_PEER, WAIT_ALL, FOLD_ALL */
    coll_rdma_buf_t src;
    coll_rdma_buf_t dst;
    size_t len;            /* bytes (POST, COPY, RING_SEND) or elements (REDUCE, FOLD_ALL) */
} coll_rdma_act_t;

#define COLL_RDMA_PROG_INLINE 24

/*
 * A program: acts[0 .. n-1], in `inline_acts` while they fit (blocking calls
 * build on the stack), else on the heap.  nseq: the instances of its
 * collective it uses (most use one; a segmented bcast one per segment).
 */
typedef struct coll_rdma_prog {
    coll_rdma_act_t *acts;
    int n;
    int cap;
    uint32_t nseq;
    bool failed; /* an allocation failed while building: the plan is unusable */
    coll_rdma_act_t inline_acts[COLL_RDMA_PROG_INLINE];
} coll_rdma_prog_t;

static inline void coll_rdma_prog_init(coll_rdma_prog_t *p)
{
    p->acts = p->inline_acts;
    p->n = 0;
    p->cap = COLL_RDMA_PROG_INLINE;
    p->nseq = 1;
    p->failed = false;
}

static inline void coll_rdma_prog_fini(coll_rdma_prog_t *p)
{
    if (p->acts != p->inline_acts) {
        free(p->acts);
    }
    coll_rdma_prog_init(p);
}

/*
 * Append an action of `kind` at instance dseq, every other field zero
 * (buffers NONE).  Returns it, or a dummy after an allocation failure
 * (p->failed is then set and the plan must not run).
 */
static inline coll_rdma_act_t *coll_rdma_prog_add(coll_rdma_prog_t *p, int kind, uint32_t dseq)
{
    static coll_rdma_act_t sink;
    coll_rdma_act_t *a;

    if (p->n == p->cap) {
        int cap = 2 * p->cap;
        coll_rdma_act_t *acts = p->acts == p->inline_acts ? malloc(cap * sizeof(*acts))
                                                          : realloc(p->acts, cap * sizeof(*acts));
        if (NULL == acts) {
            p->failed = true;
            return &sink;
        }
        if (p->acts == p->inline_acts) {
            memcpy(acts, p->inline_acts, sizeof(p->inline_acts));
        }
        p->acts = acts;
        p->cap = cap;
    }
    a = &p->acts[p->n++];
    memset(a, 0, sizeof(*a));
    a->kind = (uint8_t) kind;
    a->dseq = dseq;
    return a;
}

static inline coll_rdma_slot_t coll_rdma_slot(size_t off, size_t stride, uint32_t ring)
{
    return (coll_rdma_slot_t){off, stride, ring, 0};
}

static inline coll_rdma_slot_t coll_rdma_slot_fixed(size_t off)
{
    return (coll_rdma_slot_t){off, 0, 1, 0};
}

/* A ring of one-line slots (`stride`: a cache line): the payload right after the word. */
static inline coll_rdma_slot_t coll_rdma_slot_line(size_t off, size_t stride, uint32_t ring)
{
    return (coll_rdma_slot_t){off, stride, ring, 1};
}

/* A user or scratch buffer at `off` bytes. */
static inline coll_rdma_buf_t coll_rdma_buf(int base, size_t off)
{
    coll_rdma_buf_t b;

    memset(&b, 0, sizeof(b));
    b.base = (uint8_t) base;
    b.off = off;
    return b;
}

/* The payload of a local slot (peer < 0) or of peer's slot, from `off` bytes. */
static inline coll_rdma_buf_t coll_rdma_buf_slot(coll_rdma_slot_t slot, int peer, size_t off)
{
    coll_rdma_buf_t b = coll_rdma_buf(peer < 0 ? COLL_RDMA_BUF_SLOT : COLL_RDMA_BUF_PEER_SLOT, off);

    b.slot = slot;
    b.peer = peer;
    return b;
}

/* ---- builders: one line per action in the plans ---------------------- */

static inline void coll_rdma_prog_post(coll_rdma_prog_t *p, uint32_t dseq, int peer,
                                       coll_rdma_slot_t slot, coll_rdma_buf_t src, size_t bytes)
{
    coll_rdma_act_t *a = coll_rdma_prog_add(p, COLL_RDMA_ACT_POST, dseq);
    a->peer = peer;
    a->slot = slot;
    a->src = src;
    a->len = bytes;
}

/* FOLD_ALL or FOLD_FRESH (kind): every rank's payload at `slot` folded into dst, count elements */
static inline void coll_rdma_prog_fold(coll_rdma_prog_t *p, int kind, coll_rdma_slot_t slot,
                                       coll_rdma_buf_t dst, size_t count)
{
    coll_rdma_act_t *a = coll_rdma_prog_add(p, kind, 0);
    a->slot = slot;
    a->dst = dst;
    a->len = count;
}

static inline void coll_rdma_prog_wait(coll_rdma_prog_t *p, uint32_t dseq, coll_rdma_slot_t slot)
{
    coll_rdma_prog_add(p, COLL_RDMA_ACT_WAIT, dseq)->slot = slot;
}

static inline void coll_rdma_prog_wait_peer(coll_rdma_prog_t *p, uint32_t dseq, int peer,
                                            coll_rdma_slot_t slot)
{
    coll_rdma_act_t *a = coll_rdma_prog_add(p, COLL_RDMA_ACT_WAIT_PEER, dseq);
    a->peer = peer;
    a->slot = slot;
}

/* Take (CREDIT) or give (PUBLISH) a credit of `credit` kind. */
static inline void coll_rdma_prog_credit(coll_rdma_prog_t *p, int kind, uint32_t dseq, int credit,
                                         int peer)
{
    coll_rdma_act_t *a = coll_rdma_prog_add(p, kind, dseq);
    a->credit = (uint8_t) credit;
    a->peer = peer;
}

static inline void coll_rdma_prog_copy(coll_rdma_prog_t *p, coll_rdma_buf_t src,
                                       coll_rdma_buf_t dst, size_t bytes, uint32_t dseq)
{
    coll_rdma_act_t *a = coll_rdma_prog_add(p, COLL_RDMA_ACT_COPY, dseq);
    a->src = src;
    a->dst = dst;
    a->len = bytes;
}

/* dst = src op dst, `count` elements */
static inline void coll_rdma_prog_reduce(coll_rdma_prog_t *p, coll_rdma_buf_t src,
                                         coll_rdma_buf_t dst, size_t count, uint32_t dseq)
{
    coll_rdma_act_t *a = coll_rdma_prog_add(p, COLL_RDMA_ACT_REDUCE, dseq);
    a->src = src;
    a->dst = dst;
    a->len = count;
}

static inline void coll_rdma_prog_flush(coll_rdma_prog_t *p)
{
    (void) coll_rdma_prog_add(p, COLL_RDMA_ACT_FLUSH, 0);
}

#endif /* COLL_RDMA_PROG_H */
