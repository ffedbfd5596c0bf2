/*
 * The plan simulator: P ranks' programs in one process.
 *
 * World.  Every rank has a window laid out by the component's
 * coll_rdma_window_layout() in a plain byte array (sequence words set to
 * "empty" as coll_rdma_window_alloc() does), its scratch, and per call the
 * operation that the component's real plan function built from the call's
 * arguments (a persistent restart replays that program unchanged, with new
 * contents in the same buffers).  A rank runs its calls in order, as the
 * module's queue does.  The interpreter below mirrors coll_rdma_exec.c
 * action by action (a wait that has not arrived is "would block" and is
 * retried later); it does not link it.  A scheduler picks ranks at random,
 * weighted per rank (skew: some ranks run many calls ahead; now and then a
 * rank changes speed or stops where it stands for a while), for one action
 * or a burst until would-block.  Where the scenario maps every window
 * (all_direct) a post lands at once; otherwise each ordered pair of ranks
 * is mapped or not at random, and a post to an unmapped peer is a put in
 * flight, delivered at a random later moment or at the writer's FLUSH.
 *
 * Data.  Reductions run on elements of two 64-bit lanes: a wrapping sum,
 * which shows that a result holds every rank's contribution exactly once,
 * and a non-commutative, non-associative hash of the expression, which
 * shows which association and order produced it.  Bcast, allgather and
 * alltoall move bytes derived from (call, rank, position).
 *
 * Checks (the first failure ends the scenario, with rank, call and action):
 *  reuse   Before the run, every rank's programs are walked to find, per
 *          message (window, slot, word), which ranks read it and which of
 *          each rank's actions is its last access to it.  A post may write a
 *          slot only when every reader of the message it holds has executed
 *          that last access; only pure flags (no payload) may be overwritten
 *          earlier, by a later instance.  Every read finds exactly its
 *          message (not an older one: read before arrival; not a later one:
 *          overwritten) and stays within the payload written.  Words never
 *          go back, a slot holds one collective's messages, a message no
 *          rank reads is an error, and so is a slot written twice with one
 *          instance.  A PUBLISH or RING_ACK may not announce an instance
 *          consumed while its rank still reads it or a put out of it is in
 *          flight (checked when announced: no lucky schedule is needed).
 *  puts    A put's source must not change until the put completed; puts in
 *          flight must carry one sequence word (the window has one source
 *          for it, win->seq_src); an operation ends with none in flight.
 *  liveness Every unfinished rank would block and nothing is in flight:
 *          deadlock, reported with every rank's position.
 *  results Allreduce: every rank's sum lane is the sum of all inputs; the
 *          read algorithm's expression is c[P-1] op (... op c[0]); pairwise,
 *          tree and ring give the same bits on every rank.  Reduce: the
 *          root's sum.  Bcast: the root's bytes.  Allgather, alltoall: every
 *          block from the right rank.  Barrier: no rank leaves before every
 *          rank entered.  Send buffers unchanged, buffer and slot bounds,
 *          no overlapping copies, consumed words only grow, all ranks agree
 *          on the instances of every call.
 */
#include "plan_sim.h"

#include "coll_rdma_sched.h"
#include "coll_rdma_window.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct elem {
    uint64_t s, h;
} elem_t;

/* What a slot of a window holds. */
typedef struct meta {
    uint64_t word;  /* the message's word (mirrors the window) */
    size_t len;     /* its payload bytes */
    int coll, writer, call;
    int remaining;  /* readers whose last access to it is still to come */
    bool written, flag;
} meta_t;

/* A put in flight (writer q to an unmapped target). */
typedef struct put {
    int q, call, pc, target, slot, coll;
    size_t len;
    uint64_t word;
    const char *src;
    char *snap;     /* the source when posted */
    int src_owner, src_slot; /* a window slot as the source (src_owner >= 0) */
    uint64_t src_word;
} put_t;

/* One rank's operation of one call. */
typedef struct sop {
    coll_rdma_op_t op;
    size_t ssize, rsize; /* bytes at op.sbuf, op.rbuf */
    char *smem, *rmem;   /* allocations */
} sop_t;

typedef struct srank {
    coll_rdma_window_t win;
    uint64_t cseq[COLL_RDMA_NCOLLS]; /* the module's counters */
    int cur;                         /* call being run; ncalls: all done */
    bool started;
    uint64_t seq;                    /* its first instance */
    int pc;
    bool pending_set;                /* WAIT_ALL, FOLD_ALL (as the executor) */
    bool *pending;
    int next_rank;
    const char *ring_payload;
    uint64_t ring_m;
    unsigned weight;
    uint64_t blocked;                /* epoch of its last would-block */
    int inflight;
    bool *direct;                    /* direct[t]: t's window is mapped here */
} srank_t;

typedef struct hent {
    uint64_t a, b;
    int64_t v;
} hent_t;

/* An access to a message: owner's slot holding `word`, access `sub` of its action. */
typedef struct acc {
    int owner, slot, sub;
    uint64_t word;
} acc_t;

/* The ring stream as the executor sees it: messages acknowledged
 * (ring_received) and the one RING_RECV took last (ring_payload). */
typedef struct ringpos {
    uint64_t acked, last;
} ringpos_t;

typedef struct sim {
    const sim_scenario_t *sc;
    int P, ncalls;
    srank_t *r;
    sop_t *ops;                      /* [q * ncalls + i]; a replay uses its original's */
    uint64_t call_seq[SIM_MAX_CALLS];
    elem_t *ref[SIM_MAX_CALLS];      /* expression lane of the first rank done */
    size_t *words;                   /* every slot's word offset, ascending */
    int nwords;
    meta_t *meta;                    /* [owner * nwords + slot] */
    hent_t *map;                     /* last accesses and reader counts */
    size_t mapcap, mapn;
    put_t *puts;
    int nputs, capputs;
    uint64_t epoch, rng;
    unsigned deliver_odds;           /* a put in flight lands with odds 1 in this per turn */
    acc_t *acc;                      /* room for one action's accesses */
    sim_stats_t *st;
    jmp_buf fail;
    char *err;
    size_t errlen;
    int q, call, pc;                 /* the action being run, for messages (q < 0: none) */
} sim_t;

static ompi_datatype_t sim_dtype; /* only super.size is read (the ring plan) */

static const char *const kind_names[] = {"POST",     "WAIT",      "WAIT_PEER", "WAIT_ALL",
                                         "FOLD_ALL", "COPY",      "REDUCE",    "CREDIT",
                                         "PUBLISH",  "FLUSH",     "RING_SEND", "RING_RECV",
                                         "RING_ACK", "PACK",      "UNPACK"};
static const char *const coll_names[] = {"barrier",   "bcast",    "allreduce",
                                         "allgather", "alltoall", "reduce"};
static const char *const alg_names[] = {"auto", "fallback", "nway",   "knomial", "ktree",
                                        "pairwise", "bruck", "ring", "direct",  "read",
                                        "rsag"};

const char *sim_coll_name(int coll)
{
    return coll_names[coll];
}

const char *sim_alg_name(int alg)
{
    return alg_names[alg];
}

/* ---- small helpers ---------------------------------------------------------------- */

static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static uint64_t hash4(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    return mix64(mix64(mix64(mix64(a) ^ b) ^ c) ^ d);
}

static uint64_t rnd(sim_t *S)
{
    return S->rng = mix64(S->rng);
}

/* Inputs: element e of rank r in call i, byte k of rank r's data in call i. */
static elem_t in_elem(int i, int r, size_t e)
{
    return (elem_t){hash4(i, r, e, 1), hash4(i, r, e, 2)};
}

/* Bytes [from, from + n) of rank r's data in call i (tag 3), or of its garbage (tag 4). */
static void data_bytes(char *dst, int i, int r, size_t from, size_t n, int tag)
{
    uint64_t w = hash4(i, r, from / 8, tag);

    for (size_t k = from; k < from + n; ++k) {
        if (0 == k % 8) {
            w = hash4(i, r, k / 8, tag);
        }
        dst[k - from] = (char) (w >> (8 * (k % 8)));
    }
}


/* dst = src op dst: the sum, and a hash that tells the operands' order and association. */
static elem_t combine(elem_t src, elem_t dst)
{
    return (elem_t){src.s + dst.s, mix64(src.h ^ mix64(dst.h + 0x632be59bd9b4e019ULL))};
}

static elem_t load_elem(const char *p)
{
    elem_t e;
    memcpy(&e, p, sizeof(e));
    return e;
}

static void store_elem(char *p, elem_t e)
{
    memcpy(p, &e, sizeof(e));
}

static bool reached(uint64_t a, uint64_t b)
{
    return coll_rdma_seq_reached(a, b);
}

static sop_t *sop(sim_t *S, int q, int i)
{
    int j = S->sc->calls[i].replay_of;
    return &S->ops[(size_t) q * S->ncalls + (j >= 0 ? j : i)];
}

static meta_t *meta(sim_t *S, int owner, int slot)
{
    return &S->meta[(size_t) owner * S->nwords + slot];
}

static uint64_t word_at(sim_t *S, int owner, size_t off)
{
    uint64_t w;
    memcpy(&w, S->r[owner].win.base + off, sizeof(w));
    return w;
}

static void __attribute__((noreturn, format(printf, 2, 3))) fail(sim_t *S, const char *fmt, ...)
{
    size_t n = 0;
    va_list ap;

    if (S->q >= 0) {
        const sim_call_t *c = &S->sc->calls[S->call];
        const coll_rdma_prog_t *p = &sop(S, S->q, S->call)->op.prog;
        int len = snprintf(S->err, S->errlen, "rank %d, call %d (%s %s), action %d of %d %s: ",
                           S->q, S->call, coll_names[c->coll], alg_names[c->alg], S->pc, p->n,
                           S->pc < p->n ? kind_names[p->acts[S->pc].kind] : "(end)");
        n = len < 0 ? 0 : ((size_t) len < S->errlen ? (size_t) len : S->errlen - 1);
    }
    va_start(ap, fmt);
    vsnprintf(S->err + n, S->errlen - n, fmt, ap);
    va_end(ap);
    longjmp(S->fail, 1);
}

static void *xcalloc(sim_t *S, size_t n, size_t size)
{
    void *p = calloc(n > 0 ? n : 1, size > 0 ? size : 1);
    if (NULL == p) {
        fail(S, "out of memory");
    }
    return p;
}

/* ---- the map: (a, b) -> value, a != 0 ------------------------------------------------ */

static int64_t *map_find(sim_t *S, uint64_t a, uint64_t b, bool insert)
{
    size_t i;

    if (insert && 2 * (S->mapn + 1) > S->mapcap) {
        hent_t *old = S->map;
        size_t oldcap = S->mapcap;
        S->mapcap = oldcap ? 2 * oldcap : 1024;
        S->map = xcalloc(S, S->mapcap, sizeof(hent_t));
        S->mapn = 0;
        for (size_t k = 0; k < oldcap; ++k) {
            if (0 != old[k].a) {
                *map_find(S, old[k].a, old[k].b, true) = old[k].v;
            }
        }
        free(old);
    }
    if (0 == S->mapcap) {
        return NULL;
    }
    for (i = mix64(a ^ mix64(b)) & (S->mapcap - 1); 0 != S->map[i].a;
         i = (i + 1) & (S->mapcap - 1)) {
        if (S->map[i].a == a && S->map[i].b == b) {
            return &S->map[i].v;
        }
    }
    if (!insert) {
        return NULL;
    }
    S->map[i].a = a;
    S->map[i].b = b;
    S->map[i].v = 0;
    ++S->mapn;
    return &S->map[i].v;
}

/* Keys: rank q's last access of (owner, slot), or with q = -1 the reader count. */
static uint64_t key(int q, int owner, int slot)
{
    return ((uint64_t) (q + 2) << 48) | ((uint64_t) owner << 32) | (uint32_t) slot;
}

static int64_t pos(int call, int pc, int sub)
{
    return ((int64_t) call << 48) | ((int64_t) pc << 16) | sub;
}

/* ---- slots ----------------------------------------------------------------------------- */

static int slot_index(sim_t *S, size_t off)
{
    int lo = 0, hi = S->nwords - 1;

    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (S->words[mid] == off) {
            return mid;
        }
        if (S->words[mid] < off) {
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return -1;
}

/* Payload bytes before the next word (or the window's end). */
static size_t slot_room(sim_t *S, int slot)
{
    size_t end = slot + 1 < S->nwords ? S->words[slot + 1] : S->r[0].win.size;
    return end - S->words[slot] - COLL_RDMA_SLOT_HEADER;
}

static int slot_at(sim_t *S, size_t off)
{
    int slot = slot_index(S, off);
    if (slot < 0) {
        fail(S, "names window offset %zu, which is no slot", off);
    }
    return slot;
}

/* The slot a buffer names at instance seq (ring: message ring_m); false for other bases. */
static bool buf_slot(sim_t *S, int q, const coll_rdma_buf_t *b, uint64_t seq, uint64_t ring_m,
                     int *owner, int *slot, uint64_t *word)
{
    const coll_rdma_window_t *win = &S->r[q].win;

    switch (b->base) {
    case COLL_RDMA_BUF_SLOT:
        *owner = q;
        *slot = slot_at(S, coll_rdma_slot_off(win, &b->slot, seq));
        *word = seq;
        return true;
    case COLL_RDMA_BUF_PEER_SLOT:
        if (b->peer < 0 || b->peer >= S->P) {
            fail(S, "names the slot of rank %d", b->peer);
        }
        *owner = b->peer;
        *slot = slot_at(S, coll_rdma_slot_off(win, &b->slot, seq));
        *word = seq;
        return true;
    case COLL_RDMA_BUF_RING:
        *owner = q;
        *slot = slot_at(S, coll_rdma_ring_slot(win, ring_m));
        *word = ring_m;
        return true;
    default:
        return false;
    }
}

/* ---- the readers of every message, from the programs ------------------------------------ */

static int buf_acc(sim_t *S, int q, const coll_rdma_buf_t *b, uint64_t seq, uint64_t ring_m,
                   int sub, acc_t *out)
{
    if (!buf_slot(S, q, b, seq, ring_m, &out->owner, &out->slot, &out->word)) {
        return 0;
    }
    out->sub = sub;
    return 1;
}

static void slot_acc(sim_t *S, acc_t *out, int owner, int slot, uint64_t word, int sub)
{
    *out = (acc_t){owner, slot, sub, word};
}

/*
 * The slot accesses of action `a` of rank q at instance seq: what the
 * executor reads or writes in a window other than as a post's target.
 * *ring advances as the executor's counters do.  Returns how many (at most
 * P + 2), `sub` numbering them within the action.
 */
static int accesses(sim_t *S, int q, const coll_rdma_act_t *a, uint64_t seq, ringpos_t *ring,
                    acc_t *out)
{
    const coll_rdma_window_t *win = &S->r[q].win;
    int n = 0, slot;

    switch (a->kind) {
    case COLL_RDMA_ACT_POST:
    case COLL_RDMA_ACT_RING_SEND:
        return buf_acc(S, q, &a->src, seq, ring->last, 0, out);
    case COLL_RDMA_ACT_COPY:
    case COLL_RDMA_ACT_REDUCE:
        n = buf_acc(S, q, &a->src, seq, ring->last, 0, out);
        return n + buf_acc(S, q, &a->dst, seq, ring->last, 1, out + n);
    case COLL_RDMA_ACT_WAIT:
        slot_acc(S, out, q, slot_at(S, coll_rdma_slot_off(win, &a->slot, seq)), seq, 0);
        return 1;
    case COLL_RDMA_ACT_WAIT_PEER:
        slot_acc(S, out, a->peer, slot_at(S, coll_rdma_slot_off(win, &a->slot, seq)), seq, 0);
        return 1;
    case COLL_RDMA_ACT_WAIT_ALL:
    case COLL_RDMA_ACT_FOLD_ALL:
        slot = slot_at(S, coll_rdma_slot_off(win, &a->slot, seq));
        for (int r = 0; r < S->P; ++r) {
            if (r != q || COLL_RDMA_ACT_FOLD_ALL == a->kind) {
                slot_acc(S, &out[n++], r, slot, seq, r);
            }
        }
        return COLL_RDMA_ACT_FOLD_ALL == a->kind
                   ? n + buf_acc(S, q, &a->dst, seq, ring->last, S->P, out + n)
                   : n;
    case COLL_RDMA_ACT_RING_RECV:
        ring->last = ring->acked + 1;
        slot_acc(S, out, q, slot_at(S, coll_rdma_ring_slot(win, ring->last)), ring->last, 0);
        return 1;
    case COLL_RDMA_ACT_RING_ACK:
        ++ring->acked;
        return 0;
    default:
        return 0;
    }
}

/* For every rank, its last access to every message; per message, how many ranks read it. */
static void plan_readers(sim_t *S)
{
    size_t cap = 1024, n;
    struct {
        acc_t a;
        int64_t pos;
    } *v = xcalloc(S, cap, sizeof(*v));
    acc_t *acc = xcalloc(S, S->P + 2, sizeof(acc_t));

    for (int q = 0; q < S->P; ++q) {
        ringpos_t ring = {0, 0};

        S->q = q;
        n = 0;
        for (int i = 0; i < S->ncalls; ++i) {
            const coll_rdma_prog_t *p = &sop(S, q, i)->op.prog;
            S->call = i;
            for (int k = 0; k < p->n; ++k) {
                int m;
                S->pc = k;
                m = accesses(S, q, &p->acts[k], S->call_seq[i] + p->acts[k].dseq, &ring, acc);
                for (int j = 0; j < m; ++j) {
                    if (n == cap) {
                        void *w = realloc(v, 2 * cap * sizeof(*v));
                        if (NULL == w) {
                            free(v);
                            free(acc);
                            fail(S, "out of memory");
                        }
                        v = w;
                        cap *= 2;
                    }
                    v[n].a = acc[j];
                    v[n++].pos = pos(i, k, acc[j].sub);
                }
            }
        }
        while (n-- > 0) {
            int64_t *last = map_find(S, key(q, v[n].a.owner, v[n].a.slot), v[n].a.word, false);
            if (NULL == last) {
                *map_find(S, key(q, v[n].a.owner, v[n].a.slot), v[n].a.word, true) = v[n].pos;
                ++*map_find(S, key(-1, v[n].a.owner, v[n].a.slot), v[n].a.word, true);
            }
        }
    }
    S->q = -1;
    free(v);
    free(acc);
}

/* ---- window accesses during the run -------------------------------------------------------- */

enum { OBSERVE, WAITED, DATA };

/*
 * Rank q (access `sub` of its current action) looks at message `word` in
 * owner's slot: its word (OBSERVE, WAITED) or payload bytes [at, at + len)
 * (DATA).  It must find that very message; WAITED and DATA may be the last
 * access, which consumes the message for q.
 */
static void touch(sim_t *S, int q, int sub, int owner, int slot, uint64_t word, size_t at,
                  size_t len, int mode)
{
    meta_t *m = meta(S, owner, slot);
    uint64_t cur = word_at(S, owner, S->words[slot]);
    int64_t *last;

    if (cur != word) {
        if (!reached(cur, word)) {
            fail(S, "reads rank %d's slot at %zu for instance %llu before it arrived (it holds "
                 "%llu)", owner, S->words[slot], (unsigned long long) word,
                 (unsigned long long) cur);
        }
        if (DATA == mode || !m->flag) {
            fail(S, "rank %d's slot at %zu: instance %llu was overwritten by %llu (rank %d, "
                 "call %d) before this read", owner, S->words[slot], (unsigned long long) word,
                 (unsigned long long) cur, m->writer, m->call);
        }
        return; /* a flag already grown past word: >= still holds */
    }
    if (DATA == mode && at + len > m->len) {
        fail(S, "reads bytes [%zu, %zu) of a message of %zu bytes in rank %d's slot at %zu", at,
             at + len, m->len, owner, S->words[slot]);
    }
    if (OBSERVE == mode) {
        return;
    }
    last = map_find(S, key(q, owner, slot), word, false);
    if (NULL != last && *last == pos(S->call, S->pc, sub)) {
        if (m->remaining <= 0) {
            fail(S, "internal: message %llu in rank %d's slot at %zu consumed more often than read",
                 (unsigned long long) word, owner, S->words[slot]);
        }
        --m->remaining;
    }
}

/* Memory of buffer b, `len` bytes, checked (and, for slots, touched as access `sub`). */
static char *buf_mem(sim_t *S, int q, const coll_rdma_buf_t *b, uint64_t seq, size_t len,
                     bool write, int sub)
{
    srank_t *R = &S->r[q];
    sop_t *o = sop(S, q, S->call);
    int owner, slot;
    uint64_t word;

    switch (b->base) {
    case COLL_RDMA_BUF_NONE:
        if (len > 0) {
            fail(S, "moves %zu bytes of no buffer", len);
        }
        return NULL;
    case COLL_RDMA_BUF_SBUF:
        if (write) {
            fail(S, "writes the send buffer");
        }
        if (NULL == o->op.sbuf || b->off + len > o->ssize) {
            fail(S, "send buffer bytes [%zu, %zu) of %zu", b->off, b->off + len, o->ssize);
        }
        return (char *) o->op.sbuf + b->off;
    case COLL_RDMA_BUF_RBUF:
        if (NULL == o->op.rbuf || b->off + len > o->rsize) {
            fail(S, "receive buffer bytes [%zu, %zu) of %zu", b->off, b->off + len, o->rsize);
        }
        return (char *) o->op.rbuf + b->off;
    case COLL_RDMA_BUF_SCRATCH:
        if (b->off + len > R->win.scratch_size) {
            fail(S, "scratch bytes [%zu, %zu) of %zu", b->off, b->off + len, R->win.scratch_size);
        }
        return R->win.scratch + b->off;
    case COLL_RDMA_BUF_RING:
        if (NULL == R->ring_payload) {
            fail(S, "uses the ring message before receiving one");
        }
        break;
    case COLL_RDMA_BUF_SLOT:
    case COLL_RDMA_BUF_PEER_SLOT:
        break;
    default:
        fail(S, "buffer base %d, which no plan uses", b->base);
    }
    buf_slot(S, q, b, seq, R->ring_m, &owner, &slot, &word);
    if (!R->direct[owner]) {
        fail(S, "reads rank %d's window, which is not mapped here", owner);
    }
    if (b->off + len > slot_room(S, slot)) {
        fail(S, "payload bytes [%zu, %zu) of rank %d's slot at %zu overrun it (%zu bytes)", b->off,
             b->off + len, owner, S->words[slot], slot_room(S, slot));
    }
    touch(S, q, sub, owner, slot, word, b->off, len, DATA);
    return S->r[owner].win.base + S->words[slot] + COLL_RDMA_SLOT_HEADER + b->off;
}

/* Checks before `word` and `len` payload bytes of collective coll go into target's slot. */
static void write_check(sim_t *S, int target, int slot, size_t len, uint64_t word, int coll)
{
    meta_t *m = meta(S, target, slot);
    uint64_t cur = word_at(S, target, S->words[slot]);

    if (cur == word || !reached(word, cur)) {
        fail(S, "writes instance %llu into rank %d's slot at %zu, which holds %s %llu",
             (unsigned long long) word, target, S->words[slot],
             cur == word ? "it already:" : "the later", (unsigned long long) cur);
    }
    if (m->written && m->coll != coll) {
        fail(S, "writes a %s message into rank %d's slot at %zu, which held a %s message",
             coll_names[coll], target, S->words[slot], coll_names[m->coll]);
    }
    if (m->written && m->remaining > 0 && !(m->flag && 0 == len)) {
        fail(S, "overwrites instance %llu in rank %d's slot at %zu (written by rank %d in call %d) "
             "before %d reader(s) finished with it", (unsigned long long) m->word, target,
             S->words[slot], m->writer, m->call, m->remaining);
    }
}

static void write_slot(sim_t *S, int q, int call, int target, int slot, const char *src, size_t len,
                       uint64_t word, int coll)
{
    meta_t *m = meta(S, target, slot);
    int64_t *readers = map_find(S, key(-1, target, slot), word, false);
    char *at = S->r[target].win.base + S->words[slot];

    write_check(S, target, slot, len, word, coll);
    S->st->overwrites += m->written;
    if (len > 0) {
        memcpy(at + COLL_RDMA_SLOT_HEADER, src, len);
    }
    memcpy(at, &word, sizeof(word));
    *m = (meta_t){word, len, coll, q, call, NULL == readers ? 0 : (int) *readers, true, 0 == len};
    ++S->st->posts;
    ++S->epoch;
    if (len > 0 && 0 == m->remaining && target != q) {
        fail(S, "writes a message (instance %llu, rank %d's slot at %zu) that no rank reads",
             (unsigned long long) word, target, S->words[slot]);
    }
}

/* A post of rank q: at once where the target is mapped, else a put in flight.  srcb:
 * the source buffer (NULL: none), a window slot of instance src_seq (ring: message). */
static void post(sim_t *S, int q, int target, size_t off, const char *src, size_t len,
                 uint64_t word, int coll, const coll_rdma_buf_t *srcb, uint64_t src_seq)
{
    srank_t *R = &S->r[q];
    int slot;
    put_t *p;

    if (target < 0 || target >= S->P) {
        fail(S, "posts to rank %d", target);
    }
    slot = slot_at(S, off);
    if (len > slot_room(S, slot)) {
        fail(S, "posts %zu bytes into a slot of %zu at %zu", len, slot_room(S, slot), off);
    }
    if (R->direct[target]) {
        write_slot(S, q, S->call, target, slot, src, len, word, coll);
        return;
    }
    write_check(S, target, slot, len, word, coll); /* it may land at once */
    for (int k = 0; k < S->nputs; ++k) {
        if (S->puts[k].q == q && S->puts[k].word != word) {
            fail(S, "posts word %llu while a put with word %llu is in flight: the one source of "
                 "sequence words (win->seq_src) changes under it", (unsigned long long) word,
                 (unsigned long long) S->puts[k].word);
        }
    }
    if (S->nputs == S->capputs) {
        put_t *w = realloc(S->puts, (S->capputs ? 2 * S->capputs : 64) * sizeof(put_t));
        if (NULL == w) {
            fail(S, "out of memory");
        }
        S->puts = w;
        S->capputs = S->capputs ? 2 * S->capputs : 64;
    }
    p = &S->puts[S->nputs];
    *p = (put_t){q, S->call, S->pc, target, slot, coll, len, word, src, xcalloc(S, len, 1),
                 -1, -1, 0};
    ++S->nputs;
    if (NULL != srcb) {
        buf_slot(S, q, srcb, src_seq, R->ring_m, &p->src_owner, &p->src_slot, &p->src_word);
    }
    if (len > 0) {
        memcpy(p->snap, src, len);
    }
    ++R->inflight;
    ++S->st->deferred;
}

static void deliver(sim_t *S, int k)
{
    put_t p = S->puts[k];
    int q = S->q, call = S->call, pc = S->pc;

    S->puts[k] = S->puts[--S->nputs];
    S->q = p.q;
    S->call = p.call;
    S->pc = p.pc;
    if (p.len > 0 && 0 != memcmp(p.src, p.snap, p.len)) {
        free(p.snap);
        fail(S, "the source of this put changed before the put completed");
    }
    write_slot(S, p.q, p.call, p.target, p.slot, p.snap, p.len, p.word, p.coll);
    free(p.snap);
    --S->r[p.q].inflight;
    S->q = q;
    S->call = call;
    S->pc = pc;
}

/* FLUSH: every put of rank q completes, in a random order. */
static void flush(sim_t *S, int q)
{
    while (S->r[q].inflight > 0) {
        int k = (int) (rnd(S) % (uint64_t) S->nputs);
        while (S->puts[k].q != q) {
            k = (k + 1) % S->nputs;
        }
        deliver(S, k);
    }
}

/* ---- calls: inputs, results ------------------------------------------------------------------ */

/* Where `n` bytes at got differ from rank r's data [from, from + n) in call i: -1 if nowhere. */
static long data_differs(sim_t *S, const char *got, int i, int r, size_t from, size_t n)
{
    char *want = xcalloc(S, n, 1);
    long at = -1;

    data_bytes(want, i, r, from, n, 3);
    for (size_t k = 0; at < 0 && k < n; ++k) {
        at = got[k] != want[k] ? (long) k : -1;
    }
    free(want);
    return at;
}

/* The inputs of call i at rank q go into its buffers (a persistent restart: new contents). */
static void fill_inputs(sim_t *S, int q, int i)
{
    const sim_call_t *c = &S->sc->calls[i];
    sop_t *o = sop(S, q, i);
    char *s = (char *) o->op.sbuf;
    size_t b = c->bytes;

    if (NULL != o->op.rbuf && (char *) o->op.rbuf != s) {
        data_bytes(o->op.rbuf, i, q, 0, o->rsize, 4);
    }
    switch (c->coll) {
    case COLL_RDMA_BCAST:
        if (q == c->root) {
            data_bytes(s, i, q, 0, b, 3);
        }
        break;
    case COLL_RDMA_ALLREDUCE:
    case COLL_RDMA_REDUCE:
        for (size_t e = 0; e < c->count; ++e) {
            store_elem(s + e * SIM_ELEM, in_elem(i, q, e));
        }
        break;
    case COLL_RDMA_ALLGATHER:
    case COLL_RDMA_ALLTOALL:
        data_bytes(s, i, q, 0, o->ssize, 3);
        break;
    default:
        break;
    }
}

static void check_result(sim_t *S, int q, int i)
{
    const sim_call_t *c = &S->sc->calls[i];
    sop_t *o = sop(S, q, i);
    const char *rb = o->op.rbuf, *sb = o->op.sbuf;
    size_t b = c->bytes;
    int P = S->P;
    long at;

    switch (c->coll) {
    case COLL_RDMA_BARRIER:
        for (int r = 0; r < P; ++r) {
            if (S->r[r].cur < i || (S->r[r].cur == i && !S->r[r].started)) {
                fail(S, "leaves the barrier before rank %d entered it", r);
            }
        }
        return;
    case COLL_RDMA_BCAST:
        if ((at = data_differs(S, rb, i, c->root, 0, b)) >= 0) {
            fail(S, "byte %ld of %zu differs from the root's", at, b);
        }
        return;
    case COLL_RDMA_ALLREDUCE:
    case COLL_RDMA_REDUCE:
        if (COLL_RDMA_REDUCE == c->coll && q != c->root) {
            break;
        }
        for (size_t e = 0; e < c->count; ++e) {
            elem_t got = load_elem(rb + e * SIM_ELEM), want = in_elem(i, 0, e);
            for (int r = 1; r < P; ++r) {
                want = combine(in_elem(i, r, e), want);
            }
            if (got.s != want.s) {
                fail(S, "element %zu of %zu is not the sum of every rank's contribution", e,
                     c->count);
            }
            if (COLL_RDMA_ALG_READ == c->alg && got.h != want.h) {
                fail(S, "element %zu is not c[P-1] op (... op c[0])", e);
            }
            if (COLL_RDMA_ALLREDUCE == c->coll
                && (COLL_RDMA_ALG_PAIRWISE == c->alg || COLL_RDMA_ALG_KTREE == c->alg
                    || COLL_RDMA_ALG_RING == c->alg)) {
                if (NULL == S->ref[i]) {
                    S->ref[i] = xcalloc(S, c->count, sizeof(elem_t));
                    for (size_t x = 0; x < c->count; ++x) {
                        S->ref[i][x] = load_elem(rb + x * SIM_ELEM);
                    }
                } else if (S->ref[i][e].h != got.h) {
                    fail(S, "element %zu: other bits than an earlier rank's", e);
                }
            }
        }
        break;
    case COLL_RDMA_ALLGATHER:
    case COLL_RDMA_ALLTOALL:
        for (int r = 0; r < P; ++r) {
            size_t from = COLL_RDMA_ALLGATHER == c->coll ? 0 : (size_t) q * b;
            if ((at = data_differs(S, rb + (size_t) r * b, i, r, from, b)) >= 0) {
                fail(S, "byte %ld of the block from rank %d is wrong", at, r);
            }
        }
        break;
    default:
        break;
    }
    if (c->in_place && (COLL_RDMA_REDUCE != c->coll || q == c->root)) {
        return;
    }
    if (COLL_RDMA_ALLREDUCE == c->coll || COLL_RDMA_REDUCE == c->coll) {
        for (size_t e = 0; e < c->count; ++e) {
            elem_t want = in_elem(i, q, e);
            if (0 != memcmp(sb + e * SIM_ELEM, &want, SIM_ELEM)) {
                fail(S, "the send buffer changed (element %zu)", e);
            }
        }
    } else if (o->ssize > 0 && (at = data_differs(S, sb, i, q, 0, o->ssize)) >= 0) {
        fail(S, "the send buffer changed (byte %ld)", at);
    }
}

/* ---- the interpreter: one action of rank q --------------------------------------------------- */

static bool ring_slot(sim_t *S, int slot)
{
    const coll_rdma_window_t *w = &S->r[0].win;
    return S->words[slot] >= w->off_ring && S->words[slot] < w->off_ring_ack;
}

/*
 * Rank q announces that it is done with the messages of instance `upto` and
 * before (PUBLISH; ring: with ring message `upto`, RING_ACK), so that their
 * writers may reuse the slots: no read of such a message may follow in its
 * operation, and no put out of one may still be in flight.  Checked here
 * rather than when the writer comes back, which needs a lucky schedule.
 */
static void announce(sim_t *S, int q, uint64_t upto, bool ring)
{
    srank_t *R = &S->r[q];
    const coll_rdma_prog_t *p = &sop(S, q, S->call)->op.prog;
    ringpos_t rp = {R->win.ring_received, R->ring_m};

    for (int k = 0; k < S->nputs; ++k) {
        const put_t *x = &S->puts[k];
        if (x->q == q && x->src_owner >= 0 && ring_slot(S, x->src_slot) == ring
            && reached(upto, x->src_word)) {
            fail(S, "announces %llu consumed while a put out of %llu (rank %d's slot at %zu) is "
                 "in flight", (unsigned long long) upto, (unsigned long long) x->src_word,
                 x->src_owner, S->words[x->src_slot]);
        }
    }
    for (int k = S->pc + 1; k < p->n; ++k) {
        int n = accesses(S, q, &p->acts[k], R->seq + p->acts[k].dseq, &rp, S->acc);
        for (int j = 0; j < n; ++j) {
            if (ring_slot(S, S->acc[j].slot) == ring && reached(upto, S->acc[j].word)) {
                fail(S, "announces %llu consumed, but action %d still reads %llu in rank %d's slot "
                     "at %zu", (unsigned long long) upto, k, (unsigned long long) S->acc[j].word,
                     S->acc[j].owner, S->words[S->acc[j].slot]);
            }
        }
    }
}

enum { PROGRESS, BLOCK, DONE };

static bool wait_all(sim_t *S, int q, const coll_rdma_act_t *a, uint64_t seq)
{
    srank_t *R = &S->r[q];
    int slot = slot_at(S, coll_rdma_slot_off(&R->win, &a->slot, seq));
    bool fold = COLL_RDMA_ACT_FOLD_ALL == a->kind, all = true;
    size_t bytes = a->len * SIM_ELEM;
    char *dst = NULL;

    if (!R->pending_set) {
        for (int r = 0; r < S->P; ++r) {
            R->pending[r] = r != q;
        }
        R->next_rank = 0;
        R->pending_set = true;
    }
    for (int r = 0; r < S->P; ++r) {
        if (!R->pending[r]) {
            continue;
        }
        if (!R->direct[r]) {
            fail(S, "waits on rank %d's window, which is not mapped here", r);
        }
        if (reached(word_at(S, r, S->words[slot]), seq)) {
            R->pending[r] = false;
            touch(S, q, r, r, slot, seq, 0, 0, fold ? OBSERVE : WAITED);
        } else {
            all = false;
        }
    }
    if (fold) {
        dst = buf_mem(S, q, &a->dst, seq, bytes, true, S->P);
        if (bytes > slot_room(S, slot)) {
            fail(S, "folds %zu bytes out of slots of %zu", bytes, slot_room(S, slot));
        }
    }
    while (R->next_rank < S->P && !R->pending[R->next_rank]) {
        int r = R->next_rank++;
        const char *c = S->r[r].win.base + S->words[slot] + COLL_RDMA_SLOT_HEADER;
        if (!fold) {
            continue;
        }
        touch(S, q, r, r, slot, seq, 0, bytes, DATA);
        for (size_t e = 0; e < a->len; ++e) {
            elem_t x = load_elem(c + e * SIM_ELEM);
            store_elem(dst + e * SIM_ELEM, 0 == r ? x : combine(x, load_elem(dst + e * SIM_ELEM)));
        }
    }
    return all;
}

static bool overlap(const char *a, const char *b, size_t n)
{
    return n > 0 && a < b + n && b < a + n;
}

static int step(sim_t *S, int q)
{
    srank_t *R = &S->r[q];
    const sim_call_t *c;
    const coll_rdma_act_t *a;
    sop_t *o;
    uint64_t seq, m;
    bool ok = true;
    char *src, *dst;
    size_t off;

    if (R->cur == S->ncalls) {
        return DONE;
    }
    S->q = q;
    S->call = R->cur;
    c = &S->sc->calls[R->cur];
    o = sop(S, q, R->cur);
    if (!R->started) {
        R->seq = R->cseq[c->coll] + 1;
        R->cseq[c->coll] += o->op.prog.nseq;
        R->pc = 0;
        R->pending_set = false;
        R->ring_payload = NULL;
        R->started = true;
        fill_inputs(S, q, R->cur);
    }
    S->pc = R->pc;
    if (R->pc == o->op.prog.n) {
        if (R->inflight > 0) {
            fail(S, "the operation ends with %d put(s) in flight", R->inflight);
        }
        check_result(S, q, R->cur);
        ++R->cur;
        R->started = false;
        ++S->epoch;
        return PROGRESS;
    }
    a = &o->op.prog.acts[R->pc];
    seq = R->seq + a->dseq;
    switch (a->kind) {
    case COLL_RDMA_ACT_POST:
        src = buf_mem(S, q, &a->src, seq, a->len, false, 0);
        post(S, q, a->peer, coll_rdma_slot_off(&R->win, &a->slot, seq), src, a->len, seq, c->coll,
             &a->src, seq);
        break;
    case COLL_RDMA_ACT_WAIT:
    case COLL_RDMA_ACT_WAIT_PEER: {
        int owner = COLL_RDMA_ACT_WAIT == a->kind ? q : a->peer;
        int slot;
        if (owner < 0 || owner >= S->P || !R->direct[owner]) {
            fail(S, "waits on rank %d's window, which is not mapped here", owner);
        }
        slot = slot_at(S, coll_rdma_slot_off(&R->win, &a->slot, seq));
        ok = reached(word_at(S, owner, S->words[slot]), seq);
        if (ok) {
            touch(S, q, 0, owner, slot, seq, 0, 0, WAITED);
        }
        break;
    }
    case COLL_RDMA_ACT_WAIT_ALL:
    case COLL_RDMA_ACT_FOLD_ALL:
        ok = wait_all(S, q, a, seq);
        break;
    case COLL_RDMA_ACT_COPY:
    case COLL_RDMA_ACT_REDUCE: {
        size_t bytes = COLL_RDMA_ACT_COPY == a->kind ? a->len : a->len * SIM_ELEM;
        src = buf_mem(S, q, &a->src, seq, bytes, false, 0);
        dst = buf_mem(S, q, &a->dst, seq, bytes, true, 1);
        if (overlap(src, dst, bytes)) {
            fail(S, "source and destination overlap (%zu bytes)", bytes);
        }
        if (COLL_RDMA_ACT_COPY == a->kind) {
            memcpy(dst, src, bytes);
        }
        for (size_t e = 0; COLL_RDMA_ACT_REDUCE == a->kind && e < a->len; ++e) {
            store_elem(dst + e * SIM_ELEM,
                       combine(load_elem(src + e * SIM_ELEM), load_elem(dst + e * SIM_ELEM)));
        }
        break;
    }
    case COLL_RDMA_ACT_CREDIT:
        if (a->peer < 0 || a->peer >= S->P) {
            fail(S, "takes a credit of rank %d", a->peer);
        }
        off = COLL_RDMA_CREDIT_BCAST == a->credit ? R->win.off_consumed
                                                  : R->win.off_reduce_consumed;
        ok = reached(word_at(S, a->peer, off),
                     seq - (COLL_RDMA_CREDIT_BCAST == a->credit ? (uint64_t) R->win.bcast_slots
                                                                : COLL_RDMA_REDUCE_DEPTH));
        break;
    case COLL_RDMA_ACT_PUBLISH:
        off = COLL_RDMA_CREDIT_BCAST == a->credit ? R->win.off_consumed
                                                  : R->win.off_reduce_consumed;
        if (!reached(seq, word_at(S, q, off))) {
            fail(S, "publishes instance %llu after %llu: consumed words must grow",
                 (unsigned long long) seq, (unsigned long long) word_at(S, q, off));
        }
        announce(S, q, seq, false);
        memcpy(R->win.base + off, &seq, sizeof(seq));
        break;
    case COLL_RDMA_ACT_FLUSH:
        flush(S, q);
        break;
    case COLL_RDMA_ACT_RING_SEND:
        m = R->win.ring_sent + 1;
        ok = reached(word_at(S, q, R->win.off_ring_ack), m - (uint64_t) R->win.ring_slots);
        if (ok) {
            src = buf_mem(S, q, &a->src, seq, a->len, false, 0);
            post(S, q, a->peer, coll_rdma_ring_slot(&R->win, m), src, a->len, m, c->coll, &a->src,
                 seq);
            R->win.ring_sent = m;
        }
        break;
    case COLL_RDMA_ACT_RING_RECV: {
        int slot;
        m = R->win.ring_received + 1;
        slot = slot_at(S, coll_rdma_ring_slot(&R->win, m));
        ok = reached(word_at(S, q, S->words[slot]), m);
        if (ok) {
            touch(S, q, 0, q, slot, m, 0, 0, WAITED);
            R->ring_payload = R->win.base + S->words[slot] + COLL_RDMA_SLOT_HEADER;
            R->ring_m = m;
        }
        break;
    }
    case COLL_RDMA_ACT_RING_ACK:
        m = ++R->win.ring_received;
        announce(S, q, m, true);
        post(S, q, a->peer, R->win.off_ring_ack, NULL, 0, m, c->coll, NULL, 0);
        break;
    default:
        fail(S, "an action of kind %d, which plans do not use", a->kind);
    }
    if (!ok) {
        ++S->st->blocked;
        return BLOCK;
    }
    R->pending_set = false;
    ++R->pc;
    ++S->st->actions;
    ++S->epoch;
    return PROGRESS;
}

/* A rank's speed: how often the scheduler picks it, relative to the others. */
static unsigned weight(sim_t *S)
{
    static const unsigned weights[] = {1, 8, 30, 30, 100};
    return weights[rnd(S) % (sizeof(weights) / sizeof(weights[0]))];
}

/* ---- set-up ---------------------------------------------------------------------------------- */


/* Rank q's operation of call i, with buffers as coll_rdma_entry.c's views give them. */
static void build_op(sim_t *S, int q, int i)
{
    const sim_call_t *c = &S->sc->calls[i];
    sop_t *o = &S->ops[(size_t) q * S->ncalls + i];
    coll_rdma_op_t *op = &o->op;
    size_t all = (size_t) S->P * c->bytes;
    bool root = q == c->root;
    int rc;

    op->win = &S->r[q].win;
    op->cfg = &S->sc->cfg;
    op->coll = c->coll;
    op->alg = c->alg;
    op->count = c->count;
    op->bytes = c->bytes;
    op->root = c->root;
    op->pending = op->pending_inline;
    coll_rdma_prog_init(&op->prog);
    switch (c->coll) {
    case COLL_RDMA_BCAST:
        o->rsize = o->ssize = c->bytes;
        o->rmem = xcalloc(S, c->bytes, 1);
        break;
    case COLL_RDMA_ALLREDUCE:
    case COLL_RDMA_REDUCE:
        op->dtype = &sim_dtype;
        o->ssize = c->bytes;
        o->rsize = COLL_RDMA_ALLREDUCE == c->coll || root ? c->bytes : 0;
        o->rmem = o->rsize > 0 ? xcalloc(S, o->rsize, 1) : NULL;
        o->smem = c->in_place && o->rsize > 0 ? NULL : xcalloc(S, c->bytes, 1);
        break;
    case COLL_RDMA_ALLGATHER:
        o->rsize = all;
        o->rmem = xcalloc(S, all, 1);
        o->ssize = c->bytes;
        o->smem = c->in_place ? NULL : xcalloc(S, c->bytes, 1);
        break;
    case COLL_RDMA_ALLTOALL:
        o->rsize = o->ssize = all;
        o->rmem = xcalloc(S, all, 1);
        o->smem = c->in_place ? NULL : xcalloc(S, all, 1);
        break;
    default:
        break;
    }
    op->rbuf = o->rmem;
    op->sbuf = NULL != o->smem ? o->smem : o->rmem;
    if (COLL_RDMA_ALLGATHER == c->coll && c->in_place) {
        op->sbuf = o->rmem + (size_t) q * c->bytes;
    }
    rc = coll_rdma_plans[c->coll][c->alg](op);
    if (OMPI_SUCCESS != rc || op->prog.failed) {
        fail(S, "rank %d, call %d: the %s %s plan returned %d", q, i, coll_names[c->coll],
             alg_names[c->alg], rc);
    }
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *) a, y = *(const size_t *) b;
    return x < y ? -1 : x > y;
}

static void build(sim_t *S)
{
    const sim_scenario_t *sc = S->sc;
    int P = sc->P;
    uint64_t cseq[COLL_RDMA_NCOLLS];

    S->r = xcalloc(S, P, sizeof(srank_t));
    for (int q = 0; q < P; ++q) {
        srank_t *R = &S->r[q];
        coll_rdma_window_t *w = &R->win;

        if (OMPI_SUCCESS != coll_rdma_window_layout(w, &sc->cfg, P, q)) {
            fail(S, "no layout for rank %d", q);
        }
        if (w->size != S->r[0].win.size) {
            fail(S, "rank %d's window has %zu bytes, rank 0's %zu", q, w->size, S->r[0].win.size);
        }
        w->base = xcalloc(S, w->size, 1);
        w->scratch = xcalloc(S, w->scratch_size, 1);
        for (int g = 0; g < w->nregions; ++g) {
            for (int s = 0; s < w->regions[g].nslots; ++s) {
                memcpy(w->base + coll_rdma_window_region_slot(w, &w->regions[g], s),
                       &w->regions[g].empty, sizeof(uint64_t));
            }
        }
        for (int k = 0; k < COLL_RDMA_NCOLLS; ++k) {
            R->cseq[k] = sc->cfg.debug_seq_start - 1;
        }
        R->pending = xcalloc(S, P, sizeof(bool));
        R->direct = xcalloc(S, P, sizeof(bool));
        for (int t = 0; t < P; ++t) {
            R->direct[t] = sc->all_direct || t == q || 0 == (rnd(S) & 1);
        }
        R->weight = weight(S);
        R->blocked = UINT64_MAX; /* not blocked yet */
    }
    /* every slot's word: the regions of rank 0 (the same geometry everywhere) */
    for (int g = 0; g < S->r[0].win.nregions; ++g) {
        S->nwords += S->r[0].win.regions[g].nslots;
    }
    S->words = xcalloc(S, S->nwords, sizeof(size_t));
    S->nwords = 0;
    for (int g = 0; g < S->r[0].win.nregions; ++g) {
        for (int s = 0; s < S->r[0].win.regions[g].nslots; ++s) {
            S->words[S->nwords++] = coll_rdma_window_region_slot(&S->r[0].win,
                                                                 &S->r[0].win.regions[g], s);
        }
    }
    qsort(S->words, S->nwords, sizeof(size_t), cmp_size);
    for (int s = 1; s < S->nwords; ++s) {
        if (S->words[s] < S->words[s - 1] + COLL_RDMA_SLOT_HEADER) {
            fail(S, "the words at %zu and %zu overlap", S->words[s - 1], S->words[s]);
        }
    }
    S->meta = xcalloc(S, (size_t) P * S->nwords, sizeof(meta_t));
    S->acc = xcalloc(S, P + 2, sizeof(acc_t));
    S->deliver_odds = (unsigned) (const unsigned[]){2, 8, 64}[rnd(S) % 3];
    S->ops = xcalloc(S, (size_t) P * S->ncalls, sizeof(sop_t));
    for (int k = 0; k < COLL_RDMA_NCOLLS; ++k) {
        cseq[k] = sc->cfg.debug_seq_start - 1;
    }
    for (int i = 0; i < S->ncalls; ++i) {
        const sim_call_t *c = &sc->calls[i];
        for (int q = 0; q < P && c->replay_of < 0; ++q) {
            build_op(S, q, i);
            if (sop(S, q, i)->op.prog.nseq != sop(S, 0, i)->op.prog.nseq) {
                fail(S, "call %d: rank %d's program takes %u instances, rank 0's %u", i, q,
                     sop(S, q, i)->op.prog.nseq, sop(S, 0, i)->op.prog.nseq);
            }
        }
        S->call_seq[i] = cseq[c->coll] + 1;
        cseq[c->coll] += sop(S, 0, i)->op.prog.nseq;
    }
    plan_readers(S);
}

/* ---- the scheduler --------------------------------------------------------------------------- */

static void __attribute__((noreturn)) deadlock(sim_t *S)
{
    char msg[1024];
    size_t n = (size_t) snprintf(msg, sizeof(msg), "deadlock:");

    for (int q = 0; q < S->P && n < sizeof(msg) - 80; ++q) {
        srank_t *R = &S->r[q];
        const coll_rdma_prog_t *p;
        if (R->cur == S->ncalls) {
            continue;
        }
        p = &sop(S, q, R->cur)->op.prog;
        n += (size_t) snprintf(msg + n, sizeof(msg) - n,
                               " rank %d at call %d action %d %s (instance %llu);", q, R->cur,
                               R->pc, R->pc < p->n ? kind_names[p->acts[R->pc].kind] : "end",
                               (unsigned long long) R->seq);
    }
    S->q = -1;
    fail(S, "%s", msg);
}

static void schedule(sim_t *S)
{
    int *cand = xcalloc(S, S->P, sizeof(int));

    for (;;) {
        int n = 0, q = -1, frozen = 0;
        uint64_t total = 0, pick;
        bool all_done = true;

        /* now and then a rank changes speed or stops where it stands */
        if (0 == rnd(S) % 64) {
            srank_t *R = &S->r[rnd(S) % (uint64_t) S->P];
            R->weight = 0 == (rnd(S) & 1) ? 0 : weight(S);
        }
        for (int r = 0; r < S->P; ++r) {
            if (S->r[r].cur < S->ncalls) {
                all_done = false;
                if (S->r[r].blocked != S->epoch) {
                    frozen += 0 == S->r[r].weight;
                    if (S->r[r].weight > 0) {
                        cand[n++] = r;
                        total += S->r[r].weight;
                    }
                }
            }
        }
        if (all_done) {
            break;
        }
        if (0 == n && frozen > 0) {
            for (int r = 0; r < S->P; ++r) {
                S->r[r].weight = 0 == S->r[r].weight ? weight(S) : S->r[r].weight;
            }
            continue;
        }
        if (S->nputs > 0 && (0 == n || 0 == rnd(S) % S->deliver_odds)) {
            S->q = -1;
            deliver(S, (int) (rnd(S) % (uint64_t) S->nputs));
            continue;
        }
        if (0 == n) {
            free(cand);
            deadlock(S);
        }
        pick = rnd(S) % total;
        for (int k = 0; k < n; ++k) {
            if (pick < S->r[cand[k]].weight) {
                q = cand[k];
                break;
            }
            pick -= S->r[cand[k]].weight;
        }
        /* one action, or a burst until it would block */
        for (int burst = (rnd(S) & 1) ? 1 : 1000; burst > 0; --burst) {
            int rc = step(S, q);
            if (BLOCK == rc) {
                S->r[q].blocked = S->epoch;
                break;
            }
            if (DONE == rc) {
                break;
            }
        }
        if (S->st->actions > 100000000) {
            free(cand);
            fail(S, "more than 10^8 actions");
        }
    }
    free(cand);
    S->q = -1;
    for (int owner = 0; owner < S->P; ++owner) {
        for (int s = 0; s < S->nwords; ++s) {
            if (meta(S, owner, s)->remaining != 0) {
                fail(S, "at the end, rank %d's slot at %zu still awaits %d reader(s)", owner,
                     S->words[s], meta(S, owner, s)->remaining);
            }
        }
    }
}

static void cleanup(sim_t *S)
{
    for (int k = 0; k < S->nputs; ++k) {
        free(S->puts[k].snap);
    }
    free(S->puts);
    for (size_t k = 0; NULL != S->ops && k < (size_t) S->P * S->ncalls; ++k) {
        coll_rdma_prog_fini(&S->ops[k].op.prog);
        free(S->ops[k].smem);
        free(S->ops[k].rmem);
    }
    free(S->ops);
    for (int q = 0; NULL != S->r && q < S->P; ++q) {
        free(S->r[q].win.base);
        free(S->r[q].win.scratch);
        free(S->r[q].pending);
        free(S->r[q].direct);
    }
    free(S->r);
    for (int i = 0; i < SIM_MAX_CALLS; ++i) {
        free(S->ref[i]);
    }
    free(S->words);
    free(S->meta);
    free(S->acc);
    free(S->map);
    free(S);
}

int sim_run(const sim_scenario_t *sc, sim_stats_t *st, char *err, size_t errlen)
{
    sim_t *S = calloc(1, sizeof(sim_t));
    volatile int rc = 0; /* set after the longjmp */

    if (NULL == S) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    sim_dtype.super.size = SIM_ELEM;
    S->sc = sc;
    S->P = sc->P;
    S->ncalls = sc->ncalls;
    S->rng = mix64(sc->seed ^ 0x5eed);
    S->st = st;
    S->err = err;
    S->errlen = errlen;
    S->q = -1;
    err[0] = '\0';
    if (0 == setjmp(S->fail)) {
        build(S);
        schedule(S);
    } else {
        rc = -1;
    }
    cleanup(S);
    return rc;
}
