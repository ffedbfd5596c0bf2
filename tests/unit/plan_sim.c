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
 * flight, delivered at a random later moment or at the writer's FLUSH; or,
 * in scenarios of copied puts (UCX copied the source: the component's FLUSH
 * is then a fence), at any later moment, even after the operation ended, but
 * in the order of the writer's FLUSHes.  With nodes, ranks are mapped
 * inside their node only and every window gets the component's node map.
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
 *          for it, win->seq_src); an operation ends with none in flight
 *          (none of these for copied puts, whose order alone matters: landing
 *          them in any order fails, tests/unit/test_plans, 2026-11-24).
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
 *
 * This file: set-up, scheduler and sim_run; the rest in the files
 * plan_sim_int.h lists.
 */
#include "plan_sim_int.h"

static ompi_datatype_t sim_dtype; /* only super.size is read (the ring plan) */

/* ---- set-up ---------------------------------------------------------------------------------- */

/* A rank's speed: how often the scheduler picks it, relative to the others. */
static unsigned weight(sim_t *S)
{
    static const unsigned weights[] = {1, 8, 30, 30, 100};
    return weights[rnd(S) % (sizeof(weights) / sizeof(weights[0]))];
}

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
    op->order_independent = c->order_independent;
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
    rc = coll_rdma_plan(op);
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

/*
 * The node map of every window, as the component's set-up makes it: each
 * rank reports the lowest rank it maps and the hash of the ranks it maps;
 * with nodes, mapping is symmetric inside a node (node_of, made while the
 * ranks were built: the lower half of each rank's row was set then).
 */
static void node_map(sim_t *S, const int *node_of)
{
    int P = S->P;
    int64_t *leader_of = xcalloc(S, P, sizeof(int64_t));
    uint64_t *hash = xcalloc(S, P, sizeof(uint64_t));

    for (int q = 0; q < P && S->sc->nodes > 0 && !S->sc->all_direct; ++q) {
        for (int t = q + 1; t < P; ++t) {
            S->r[q].direct[t] = node_of[t] == node_of[q];
        }
    }
    for (int q = 0; q < P; ++q) {
        leader_of[q] = q;
        for (int t = q - 1; t >= 0; --t) {
            leader_of[q] = S->r[q].direct[t] ? t : leader_of[q];
        }
        if (S->sc->groups > 0 && S->sc->all_direct) {
            leader_of[q] = q - q % S->sc->groups;
        }
        hash[q] = coll_rdma_topo_map_hash(S->r[q].direct, P);
    }
    for (int q = 0; q < P; ++q) {
        S->r[q].win.leaders = xcalloc(S, P, sizeof(int));
        S->r[q].win.local = xcalloc(S, P, sizeof(int));
        S->r[q].win.node_of = xcalloc(S, P, sizeof(int));
        S->r[q].win.node_order = xcalloc(S, P, sizeof(int));
        S->r[q].win.node_pos = xcalloc(S, P, sizeof(int));
        coll_rdma_topo_set_nodes(&S->r[q].win, leader_of, hash);
    }
    free(leader_of);
    free(hash);
    for (int q = 0; q < P; ++q) {
        if (S->sc->nodes > 0 && !S->r[q].win.nodes) {
            fail(S, "rank %d has no node map", q);
        }
    }
}

static void build(sim_t *S)
{
    const sim_scenario_t *sc = S->sc;
    int P = sc->P;
    uint64_t cseq[COLL_RDMA_NCOLLS];
    int *node_of;

    S->r = xcalloc(S, P, sizeof(srank_t));
    node_of = xcalloc(S, P, sizeof(int));
    for (int q = 0; q < P; ++q) {
        srank_t *R = &S->r[q];
        coll_rdma_window_t *w = &R->win;

        if (OMPI_SUCCESS != coll_rdma_window_layout(w, &sc->cfg, P, q)) {
            fail(S, "no layout for rank %d", q);
        }
        if (w->size != S->r[0].win.size) {
            fail(S, "rank %d's window has %zu bytes, rank 0's %zu", q, w->size, S->r[0].win.size);
        }
        w->all_direct = sc->all_direct; /* agreed at set-up: every rank maps every window */
        w->base = xcalloc(S, w->size, 1);
        w->scratch = xcalloc(S, w->scratch_size, 1);
        /* calloc's memory is already 0: pages no run touches stay unmapped
         * (windows of 256 ranks, plan_sim_lines.c); poisoned, as a window
         * reused from the pool, every word written by the component's own
         * reset */
        if (sc->poison) {
            memset(w->base, 0xA5, w->size);
        }
        coll_rdma_layout_reset_words(&w->layout, w->base, !sc->poison);
        for (int k = 0; k < COLL_RDMA_NCOLLS; ++k) {
            R->cseq[k] = sc->cfg.debug_seq_start - 1;
        }
        R->pending = xcalloc(S, P, sizeof(bool));
        R->direct = xcalloc(S, P, sizeof(bool));
        node_of[q] = sc->nodes > 0 ? (int) (rnd(S) % (uint64_t) sc->nodes) : 0;
        for (int t = 0; t < P && sc->nodes > 0 && !sc->all_direct; ++t) {
            R->direct[t] = t < q ? node_of[t] == node_of[q] : t == q;
        }
        for (int t = 0; t < P && (0 == sc->nodes || sc->all_direct); ++t) {
            R->direct[t] = sc->all_direct || t == q || 0 == (rnd(S) & 1);
        }
        R->weight = weight(S);
        R->blocked = UINT64_MAX; /* not blocked yet */
    }
    node_map(S, node_of);
    free(node_of);
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
    /* the payload's place in the slot, from the region (a plan's slot must agree) */
    S->heads = xcalloc(S, S->nwords, sizeof(size_t));
    for (int s = 0; s < S->nwords; ++s) {
        S->heads[s] = COLL_RDMA_SLOT_HEADER;
    }
    for (int g = 0; g < S->r[0].win.nregions; ++g) {
        for (int s = 0; s < S->r[0].win.regions[g].nslots && S->r[0].win.regions[g].line; ++s) {
            S->heads[slot_at(S, coll_rdma_window_region_slot(&S->r[0].win,
                                                             &S->r[0].win.regions[g], s))] =
                COLL_RDMA_LINE_HEADER;
        }
    }
    for (int s = 1; s < S->nwords; ++s) {
        if (S->words[s] < S->words[s - 1] + S->heads[s - 1]) {
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

static void schedule(sim_t *S, void *ctx)
{
    int *cand = xcalloc(S, S->P, sizeof(int));
    uint64_t first = S->st->actions; /* the statistics count over every run of the caller */

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
        if (S->st->actions - first > 100000000) {
            free(cand);
            fail(S, "more than 10^8 actions in this run");
        }
    }
    free(cand);
}

/* At the end of a run: every message was read by every reader planned. */
static void check_end(sim_t *S)
{
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
        if (S->sc->calls[k % (size_t) S->ncalls].replay_of >= 0) {
            continue; /* never built (sop() takes the original's): left untouched */
        }
        coll_rdma_prog_fini(&S->ops[k].op.prog);
        free(S->ops[k].smem);
        free(S->ops[k].rmem);
    }
    free(S->ops);
    for (int q = 0; NULL != S->r && q < S->P; ++q) {
        free(S->r[q].win.base);
        free(S->r[q].win.scratch);
        free(S->r[q].win.leaders);
        free(S->r[q].win.local);
        free(S->r[q].win.node_of);
        free(S->r[q].win.node_order);
        free(S->r[q].win.node_pos);
        free(S->r[q].pending);
        free(S->r[q].direct);
    }
    free(S->r);
    for (int i = 0; i < SIM_MAX_CALLS; ++i) {
        free(S->ref[i]);
    }
    free(S->words);
    free(S->heads);
    free(S->meta);
    free(S->acc);
    free(S->map);
    free(S);
}

int sim_run(const sim_scenario_t *sc, sim_stats_t *st, char *err, size_t errlen)
{
    return sim_run_with(sc, st, err, errlen, schedule, NULL);
}

int sim_run_with(const sim_scenario_t *sc, sim_stats_t *st, char *err, size_t errlen,
                 sim_driver_fn driver, void *ctx)
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
        driver(S, ctx);
        check_end(S);
    } else {
        rc = -1;
    }
    cleanup(S);
    return rc;
}
