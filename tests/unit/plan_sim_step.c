/*
 * Part of the plan simulator: the inputs and checked results of every
 * call, and the interpreter that runs one action of a rank's program, as
 * coll_rdma_exec.c would.
 */
#include "plan_sim_int.h"

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
                    || COLL_RDMA_ALG_RING == c->alg
                    || ((COLL_RDMA_ALG_HIER == c->alg || COLL_RDMA_ALG_NPORT == c->alg)
                        && !c->order_independent))) {
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

static bool wait_all(sim_t *S, int q, const coll_rdma_act_t *a, uint64_t seq)
{
    srank_t *R = &S->r[q];
    int slot = slot_geom_at(S, &a->slot, coll_rdma_slot_off(&R->win, &a->slot, seq));
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
        const char *c = S->r[r].win.base + S->words[slot] + S->heads[slot];
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

int step(sim_t *S, int q)
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
        if (R->inflight > 0 && !S->sc->copied) {
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
        (void) slot_geom_at(S, &a->slot, coll_rdma_slot_off(&R->win, &a->slot, seq));
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
        if (a->credit >= COLL_RDMA_NCREDITS) {
            fail(S, "takes a credit of kind %d", a->credit);
        }
        ok = reached(word_at(S, a->peer, coll_rdma_credit_off(&R->win, a->credit)),
                     seq - coll_rdma_credit_depth(&R->win, a->credit));
        break;
    case COLL_RDMA_ACT_PUBLISH:
        off = coll_rdma_credit_off(&R->win, a->credit);
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
    if (NULL != S->hook) {
        S->hook(S, q, a, seq);
    }
    R->pending_set = false;
    ++R->pc;
    ++S->st->actions;
    ++S->epoch;
    return PROGRESS;
}
