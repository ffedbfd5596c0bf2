/*
 * Part of the plan simulator: which ranks read every message and where
 * each of them reads it last (from the programs, before the run); every
 * access to a window during the run: reads, posts, puts in flight.
 */
#include "plan_sim_int.h"

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
int accesses(sim_t *S, int q, const coll_rdma_act_t *a, uint64_t seq, ringpos_t *ring,
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
void plan_readers(sim_t *S)
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

/*
 * Rank q (access `sub` of its current action) looks at message `word` in
 * owner's slot: its word (OBSERVE, WAITED) or payload bytes [at, at + len)
 * (DATA).  It must find that very message; WAITED and DATA may be the last
 * access, which consumes the message for q.
 */
void touch(sim_t *S, int q, int sub, int owner, int slot, uint64_t word, size_t at,
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
char *buf_mem(sim_t *S, int q, const coll_rdma_buf_t *b, uint64_t seq, size_t len,
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
    return S->r[owner].win.base + S->words[slot] + S->heads[slot] + b->off;
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
        memcpy(at + S->heads[slot], src, len);
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
void post(sim_t *S, int q, int target, size_t off, const char *src, size_t len,
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
    for (int k = 0; k < S->nputs && !S->sc->copied; ++k) {
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
                 -1, -1, 0, R->fences};
    ++S->nputs;
    if (NULL != srcb && !S->sc->copied) { /* a copied source may change at once */
        buf_slot(S, q, srcb, src_seq, R->ring_m, &p->src_owner, &p->src_slot, &p->src_word);
    }
    if (len > 0) {
        memcpy(p->snap, src, len);
    }
    ++R->inflight;
    ++S->st->deferred;
}

void deliver(sim_t *S, int k)
{
    put_t p;
    int q = S->q, call = S->call, pc = S->pc;

    /* puts of one writer land in the order of its fences */
    for (int j = 0; j < S->nputs; ++j) {
        if (S->puts[j].q == S->puts[k].q && S->puts[j].fence < S->puts[k].fence) {
            k = j;
        }
    }
    p = S->puts[k];
    S->puts[k] = S->puts[--S->nputs];
    S->q = p.q;
    S->call = p.call;
    S->pc = p.pc;
    if (p.len > 0 && !S->sc->copied && 0 != memcmp(p.src, p.snap, p.len)) {
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

/* FLUSH: every put of rank q completes, in a random order; copied puts are
 * only ordered before the later ones (a fence). */
void flush(sim_t *S, int q)
{
    ++S->r[q].fences;
    while (S->r[q].inflight > 0 && !S->sc->copied) {
        int k = (int) (rnd(S) % (uint64_t) S->nputs);
        while (S->puts[k].q != q) {
            k = (k + 1) % S->nputs;
        }
        deliver(S, k);
    }
}
