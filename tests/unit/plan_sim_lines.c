/*
 * The cache-line model (plan_sim_lines.h; docs/design.md, "A model of
 * cache-line transfers").
 *
 * Lines.  Every 64-byte line of a window that an action touches has a
 * state: the rank whose write made its current version, when that write
 * became visible, and the ranks holding the current version (the writer,
 * and every rank that read it since).  A touch by a rank that does not hold
 * it is a transfer: a read miss, or a write that takes the line from the
 * rank that wrote it last (ownership).  A write to a line that the writer
 * holds but other ranks hold too is an upgrade (their copies are
 * invalidated; no data moves): counted apart, not a transfer.  Buffers of
 * the user and the scratch are private to their rank and never counted.
 * Lines stay cached for ever (no capacity misses).
 *
 * What an action touches mirrors coll_rdma_exec.c on the direct path:
 * POST reads its source where that is a slot and writes the target slot's
 * payload lines and word line; WAIT, WAIT_PEER and RING_RECV read a word's
 * line; WAIT_ALL and FOLD_ALL read every other rank's word line (FOLD_ALL:
 * and the payload), pass by pass as the executor does; COPY and REDUCE read
 * their source and write (REDUCE: read and write) their destination where
 * these are slots; CREDIT reads the peer's consumed line only where the
 * cached credit (win->credit) does not grant the instance, as
 * coll_rdma_window_credit_test() does; PUBLISH writes the own consumed
 * line; RING_SEND reads the own ack line and posts; RING_ACK writes the
 * peer's ack line; FLUSH touches nothing.
 *
 * Time.  Every rank enters every call at time 0, after every rank finished
 * the call before (the caches stay as that call left them; the bcast and
 * reduce benchmarks put a barrier between calls).  A rank has an issue time
 * I (when its next load may start) and a retire time R (when all it did so
 * far completed).  A load that needs a transfer starts at max(I, when its
 * version was written) and takes a transfer: loads whose addresses are known
 * overlap, as an out-of-order core overlaps independent misses; only a wait
 * that had to spin moves I, to when the value arrived: what follows a spin
 * starts after it.  A wait spins where the word was stored at I or later: a
 * store is not seen by a load issued at the same moment, so ranks that all
 * enter at once find each other's first words not there yet (a WAIT_ALL's
 * first pass finds none, polls the last, and a second pass loads the rest).  A store retires at
 * max(I, R) (after every earlier load) and becomes visible then, plus a
 * transfer where it takes the line from another writer (an upgrade's cost
 * where other ranks hold it), and not before the rank's earlier stores
 * (stores stay in order).  A rank exits at R: when its last load completed
 * or its last store retired; what its stores cost after that delays only
 * their readers.  With a transfer costing 1 and nothing else costing anything, the last
 * exit is the critical path in transfers; with the costs in ns of
 * lines_cost_t it is a prediction.
 *
 * The scheduler and the set-up: plan_sim_lines_run.c.
 */
#include "plan_sim_lines_int.h"

static bool bit(const uint64_t *b, int q)
{
    return 0 != (b[q / 64] >> (q % 64) & 1);
}

static void set_bit(uint64_t *b, int q)
{
    b[q / 64] |= (uint64_t) 1 << (q % 64);
}

static int count_bits(const uint64_t *b, int nw)
{
    int n = 0;
    for (int w = 0; w < nw; ++w) {
        n += __builtin_popcountll(b[w]);
    }
    return n;
}

/* When a store of an earlier call became visible: before any time of this one. */
#define BEFORE (-1e30)

/* ---- the lines ---------------------------------------------------------------------------- */

static uint64_t line_hash(uint64_t key)
{
    return mix64(key);
}

/* The state of owner's line `idx`, made on its first touch: written by its
 * owner (who set the window up), held by the owner only. */
static lline_t *line_get(sim_t *S, model_t *M, int owner, size_t idx)
{
    uint64_t key = ((uint64_t) owner << 40 | idx) + 1;
    size_t i;

    if (2 * (M->n + 1) > M->cap) {
        lline_t *old = M->lines;
        size_t oldcap = M->cap;
        M->cap = oldcap ? 2 * oldcap : 4096;
        M->lines = xcalloc(S, M->cap, sizeof(lline_t));
        for (size_t k = 0; k < oldcap; ++k) {
            if (0 != old[k].key) {
                for (i = line_hash(old[k].key) & (M->cap - 1); 0 != M->lines[i].key;
                     i = (i + 1) & (M->cap - 1)) {
                }
                M->lines[i] = old[k];
            }
        }
        free(old);
    }
    for (i = line_hash(key) & (M->cap - 1); 0 != M->lines[i].key; i = (i + 1) & (M->cap - 1)) {
        if (M->lines[i].key == key) {
            lline_t *l = &M->lines[i];
            if (l->call != M->call) {
                l->call = M->call;
                l->at = l->word_at = BEFORE;
                l->fan = 0;
                l->ev = l->word_ev = -1;
            }
            return l;
        }
    }
    M->lines[i] = (lline_t){key, owner, M->call, 0, NULL, 0, -1, BEFORE, BEFORE, -1,
                            xcalloc(S, 2 * M->nw, sizeof(uint64_t)), NULL};
    M->lines[i].prev = M->lines[i].valid + M->nw;
    set_bit(M->lines[i].valid, owner);
    ++M->n;
    return &M->lines[i];
}

/* Log an event of the measured calls; its index, or -1. */
static int event(model_t *M, int rank, int owner, int writer, size_t idx, double t, char what,
                 int pred)
{
    if (!M->ls->path || !lines_measured(M)) {
        return -1;
    }
    if (M->nev == M->capev) {
        lev_t *e = realloc(M->ev, (M->capev ? 2 * M->capev : 1024) * sizeof(lev_t));
        if (NULL == e) {
            return -1;
        }
        M->ev = e;
        M->capev = M->capev ? 2 * M->capev : 1024;
    }
    M->ev[M->nev] = (lev_t){rank, owner, writer, pred, idx * COLL_RDMA_LINE, t, what};
    return M->nev++;
}

/*
 * Rank q loads owner's line `idx` at `issue`; `*ev` gets the event the
 * completion depends on.  Returns when the load completes.  A transfer
 * where q does not hold the version it reads.  A wait needs the line's
 * sequence word: it reads the line from when the word was stored.  Any
 * other load of a line whose current version was stored after `issue`
 * reads the version before (another part of the line changed: false
 * sharing), which q may already hold; it does not hold the current one.
 */
static double load(sim_t *S, model_t *M, int q, int owner, size_t idx, double issue, bool wait,
                   int *ev)
{
    lline_t *l = line_get(S, M, owner, idx);
    lrank_t *r = &M->rk[q];
    double since = wait ? l->word_at : l->at, start, done;
    int since_ev = wait ? l->word_ev : l->ev;
    bool older = !wait && l->at > issue;

    if (bit(l->valid, q) || (older && bit(l->prev, q))) {
        *ev = r->ev_issue;
        return issue;
    }
    start = older || issue > since ? issue : since;
    start = start > r->port ? start : r->port;
    r->port = start + M->cost.gap;
    done = start + M->cost.xfer;
    if (older) {
        set_bit(l->prev, q);
    } else {
        /* readers of one version that started no later queue before this one */
        int before = 0;
        for (int k = 0; k < l->fan; ++k) {
            before += l->starts[k] <= start;
        }
        done += M->cost.fan * before;
        if (l->fan == l->cap) {
            double *st = realloc(l->starts, (size_t) (l->cap ? 2 * l->cap : 8) * sizeof(double));
            if (NULL == st) {
                fail(S, "out of memory");
            }
            l->starts = st;
            l->cap = l->cap ? 2 * l->cap : 8;
        }
        l->starts[l->fan++] = start;
        set_bit(l->valid, q);
    }
    r->xfer += 1;
    M->rk[l->writer].served += 1;
    *ev = event(M, q, owner, l->writer, idx, done, 'r',
                !older && since > issue ? since_ev : r->ev_issue);
    return done;
}

/* A load that completed at `done` (event ev) counts towards R. */
static void retire(model_t *M, int q, double done, int ev)
{
    if (done > M->rk[q].retire) {
        M->rk[q].retire = done;
        M->rk[q].ev_retire = ev;
    }
}

/*
 * Rank q waits for owner's line `idx` (a word): a load; where the word was
 * written after q's issue time q spun on it, and what follows starts when
 * the value arrived.
 */
static void wait_line(sim_t *S, model_t *M, int q, int owner, size_t idx)
{
    lline_t *l = line_get(S, M, owner, idx);
    lrank_t *r = &M->rk[q];
    bool spun = l->word_at >= r->issue && !bit(l->valid, q);
    int ev;
    double done;

    if (spun && !bit(l->prev, q)) {
        r->wasted += 1; /* the first poll fetched the version before */
    }
    done = load(S, M, q, owner, idx, r->issue, true, &ev);
    if (spun) {
        r->issue = done;
        r->ev_issue = ev;
    }
    retire(M, q, done, ev);
}

/* Rank q loads bytes [off, off + len) of owner's window, not waiting; they retire. */
static void load_range(sim_t *S, model_t *M, int q, int owner, size_t off, size_t len)
{
    for (size_t i = off / COLL_RDMA_LINE; len > 0 && i <= (off + len - 1) / COLL_RDMA_LINE; ++i) {
        int ev;
        double done = load(S, M, q, owner, i, M->rk[q].issue, false, &ev);
        retire(M, q, done, ev);
    }
}

/*
 * Rank q stores bytes [off, off + len) of owner's window; they become
 * visible at max(I, R) plus a transfer for each line another rank wrote
 * since q held it (an upgrade where others hold it).  With `word`, off is
 * a sequence word (a post, a publication): its line, stored last with
 * release, becomes visible after all the others.
 */
static void store_range(sim_t *S, model_t *M, int q, int owner, size_t off, size_t len, bool word)
{
    lrank_t *r = &M->rk[q];
    double when = r->issue > r->retire ? r->issue : r->retire;
    int pred = r->issue > r->retire ? r->ev_issue : r->ev_retire;
    double last = r->visible > when ? r->visible : when; /* after the earlier stores */
    int ev = r->visible > when ? r->ev_visible : pred;
    size_t first = off / COLL_RDMA_LINE, end = (off + (len > 0 ? len : 1) - 1) / COLL_RDMA_LINE;

    for (size_t i = end + 1; i-- > first;) {
        lline_t *l = line_get(S, M, owner, i);
        bool xfer = !bit(l->valid, q), upgrade = !xfer && count_bits(l->valid, M->nw) > 1;
        double done = when + (xfer ? M->cost.xfer : upgrade ? M->cost.upgrade : 0);

        if (xfer) {
            r->xfer += 1;
            M->rk[l->writer].served += 1;
        }
        r->upgrades += upgrade;
        done = done > last ? done : last; /* the word (i == first) after the payload */
        ev = event(M, q, owner, l->writer, i, done, xfer ? 'w' : 's', xfer ? ev : pred);
        for (int w = 0; w < M->P; ++w) {
            if (M->asleep[w] && (-2 == M->wait_owner[w]
                                 || (M->wait_idx[w] == i
                                     && (owner == M->wait_owner[w] || -1 == M->wait_owner[w])))) {
                M->asleep[w] = false;
                ++M->woken;
            }
        }
        memcpy(l->prev, l->valid, M->nw * sizeof(uint64_t));
        memset(l->valid, 0, M->nw * sizeof(uint64_t));
        set_bit(l->valid, q);
        l->writer = q;
        l->at = done;
        l->fan = 0;
        l->ev = ev;
        if (word && i == first) {
            l->word_at = done;
            l->word_ev = ev;
        }
        last = done;
    }
    /* the rank goes on once the stores retired; they become visible later */
    r->visible = last;
    r->ev_visible = ev;
    retire(M, q, when, pred);
}

/* ---- actions ------------------------------------------------------------------------------ */

/* Where buffer b of rank q lies in a window at instance seq: owner and byte offset; false if private. */
static bool buf_at(sim_t *S, int q, const coll_rdma_buf_t *b, uint64_t seq, int *owner, size_t *off)
{
    int slot;
    uint64_t word;

    if (!buf_slot(S, q, b, seq, S->r[q].ring_m, owner, &slot, &word)) {
        return false;
    }
    *off = S->words[slot] + S->heads[slot] + b->off;
    return true;
}

/* WAIT_ALL and FOLD_ALL: passes over the words not yet seen, as test_all() does. */
static void wait_all_lines(sim_t *S, model_t *M, int q, const coll_rdma_act_t *a, uint64_t seq)
{
    lrank_t *r = &M->rk[q];
    size_t off = coll_rdma_slot_off(&S->r[q].win, &a->slot, seq), idx = off / COLL_RDMA_LINE;
    size_t extra = COLL_RDMA_ACT_FOLD_ALL == a->kind ? a->len * SIM_ELEM : 0;
    bool *seen = xcalloc(S, S->P, sizeof(bool));
    int left = S->P - 1;

    seen[q] = true;
    while (left > 0) {
        int last_short = -1;
        for (int k = 0; k < S->P; ++k) {
            int p = M->ls->rotate ? (q + 1 + k) % S->P : k; /* the executor: from rank 0 */
            lline_t *l;
            if (seen[p]) {
                continue;
            }
            l = line_get(S, M, p, idx);
            if (l->word_at < r->issue || bit(l->valid, q)) {
                int ev;
                double done = load(S, M, q, p, idx, r->issue, true, &ev);
                retire(M, q, done, ev);
                seen[p] = true;
                --left;
                if (extra > COLL_RDMA_LINE - coll_rdma_slot_head(&a->slot)) {
                    load_range(S, M, q, p, off + coll_rdma_slot_head(&a->slot), extra);
                }
            } else {
                if (!bit(l->prev, q)) {
                    r->wasted += 1;
                    set_bit(l->prev, q);
                }
                last_short = p;
            }
        }
        if (last_short >= 0) {
            /* the blocking wait polls the last word found short, then tests again */
            lline_t *l = line_get(S, M, last_short, idx);
            int ev;
            double done = load(S, M, q, last_short, idx, l->word_at, true, &ev);
            r->issue = done;
            r->ev_issue = ev;
            retire(M, q, done, ev);
        }
    }
    free(seen);
}

void lines_on_action(sim_t *S, int q, const coll_rdma_act_t *a, uint64_t seq)
{
    model_t *M = S->hook_ctx;
    lrank_t *r = &M->rk[q];
    const coll_rdma_window_t *w = &S->r[q].win;
    int owner, owner2;
    size_t off, off2, bytes;

    r->issue += M->cost.action;
    r->retire = r->retire > r->issue ? r->retire : r->issue;
    switch (a->kind) {
    case COLL_RDMA_ACT_POST:
        if (buf_at(S, q, &a->src, seq, &owner, &off)) {
            load_range(S, M, q, owner, off, a->len);
        }
        store_range(S, M, q, a->peer, coll_rdma_slot_off(w, &a->slot, seq),
                    coll_rdma_slot_head(&a->slot) + a->len, true);
        break;
    case COLL_RDMA_ACT_WAIT:
        wait_line(S, M, q, q, coll_rdma_slot_off(w, &a->slot, seq) / COLL_RDMA_LINE);
        break;
    case COLL_RDMA_ACT_WAIT_PEER:
        wait_line(S, M, q, a->peer, coll_rdma_slot_off(w, &a->slot, seq) / COLL_RDMA_LINE);
        break;
    case COLL_RDMA_ACT_WAIT_ALL:
    case COLL_RDMA_ACT_FOLD_ALL:
        wait_all_lines(S, M, q, a, seq);
        break;
    case COLL_RDMA_ACT_COPY:
    case COLL_RDMA_ACT_REDUCE:
        bytes = COLL_RDMA_ACT_COPY == a->kind ? a->len : a->len * SIM_ELEM;
        if (buf_at(S, q, &a->src, seq, &owner, &off)) {
            load_range(S, M, q, owner, off, bytes);
        }
        if (buf_at(S, q, &a->dst, seq, &owner2, &off2)) {
            if (COLL_RDMA_ACT_REDUCE == a->kind) {
                load_range(S, M, q, owner2, off2, bytes);
            }
            store_range(S, M, q, owner2, off2, bytes, false);
        }
        break;
    case COLL_RDMA_ACT_CREDIT: {
        /* one cache per consumed word, as the executor's (the bcast kinds share one) */
        size_t word = COLL_RDMA_CREDIT_REDUCE == a->credit ? 1 : 0;
        uint64_t *cached = &M->credit[(word * S->P + q) * S->P + a->peer];
        uint64_t need = seq - coll_rdma_credit_depth(w, a->credit);

        off = coll_rdma_credit_off(w, a->credit);
        if (!reached(*cached, need)) {
            /* the executor's cache does not grant it: it loads the word */
            wait_line(S, M, q, a->peer, off / COLL_RDMA_LINE);
            *cached = word_at(S, a->peer, off);
        }
        break;
    }
    case COLL_RDMA_ACT_PUBLISH:
        off = coll_rdma_credit_off(w, a->credit);
        store_range(S, M, q, q, off, sizeof(uint64_t), true);
        break;
    case COLL_RDMA_ACT_RING_SEND: {
        uint64_t m = w->ring_sent;
        wait_line(S, M, q, q, w->off_ring_ack / COLL_RDMA_LINE);
        if (buf_at(S, q, &a->src, seq, &owner, &off)) {
            load_range(S, M, q, owner, off, a->len);
        }
        store_range(S, M, q, a->peer, coll_rdma_ring_slot(w, m), COLL_RDMA_SLOT_HEADER + a->len,
                    true);
        break;
    }
    case COLL_RDMA_ACT_RING_RECV:
        wait_line(S, M, q, q, coll_rdma_ring_slot(w, S->r[q].ring_m) / COLL_RDMA_LINE);
        break;
    case COLL_RDMA_ACT_RING_ACK:
        store_range(S, M, q, a->peer, w->off_ring_ack, sizeof(uint64_t), true);
        break;
    default:
        break; /* FLUSH: nothing is in flight on the direct path */
    }
}
