/*
 * The cache-line model's scheduler, set-up and results (plan_sim_lines.c
 * has the lines and what every action touches; plan_sim_lines.h the
 * interface).
 *
 * The scheduler runs the ranks through the simulator's step(), which
 * applies the data and checks everything test_plans checks: call by call,
 * the rank whose next action takes effect first (a store when it becomes
 * visible, anything else when its loads start; stores first on a tie, then
 * the lowest rank), action by action until another rank comes first or it
 * would block; a rank that would block sleeps until a store to the line it
 * waits for.  Data is applied in that order while the times follow the
 * rules of plan_sim_lines.c, so a wait whose word another rank already
 * wrote in the simulation, at a later time, still counts as a spin.
 */
#include "plan_sim_lines_int.h"

/* ---- the scheduler ------------------------------------------------------------------------ */

/* A window region's name, for paths: the region that starts last at or before `off`. */
static const char *region_name(const coll_rdma_window_t *w, size_t off)
{
    const struct {
        size_t off;
        const char *name;
    } r[] = {
        {w->off_barrier, "barrier flag"},       {w->off_bcast, "bcast ring"},
        {w->off_consumed, "bcast consumed"},    {w->off_bcast_read, "bcast read ring"},
        {w->off_bcast_small, "bcast small ring"},
        {w->off_ar_up, "allreduce up"},         {w->off_ar_down, "allreduce down"},
        {w->off_pw, "pairwise"},                {w->off_read_barrier, "read barrier word"},
        {w->off_read_ar, "read allreduce"},     {w->rsag_allreduce.off, "rsag allreduce"},
        {w->rsag_allreduce.off_done, "rsag allreduce done"},
        {w->rsag_reduce.off, "rsag reduce"},    {w->rsag_reduce.off_done, "rsag reduce done"},
        {w->read_allgather.off, "read allgather"}, {w->read_alltoall.off, "read alltoall"},
        {w->off_hier_words, "hier words"},      {w->off_hier_ar, "hier allreduce"},
        {w->off_hier_reduce, "hier reduce"},    {w->off_ag_bruck, "allgather bruck"},
        {w->off_ag_ring, "allgather ring"},     {w->off_a2a_direct, "alltoall direct"},
        {w->off_a2a_bruck, "alltoall bruck"},   {w->off_reduce, "reduce ring"},
        {w->off_reduce_consumed, "reduce consumed"}, {w->off_bar_pw, "pairwise barrier flag"},
        {w->off_ar_diss, "dissemination"},      {w->off_ring, "ring slot"},
        {w->off_ring_ack, "ring ack"},
    };
    const char *best = "window";
    size_t at = 0;

    for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); ++i) {
        if (r[i].off <= off && r[i].off >= at && (r[i].off > 0 || 0 == at)) {
            at = r[i].off;
            best = r[i].name;
        }
    }
    return best;
}

/* The worst call's critical path: the events back from the last exit, oldest first. */
static void describe_path(sim_t *S, model_t *M, int last)
{
    char *out = M->out->path;
    size_t n = 0, cap = LINES_PATH_BYTES;
    int chain[256], len = 0;

    for (int e = M->rk[last].ev_retire; e >= 0 && len < 256; e = M->ev[e].pred) {
        chain[len++] = e;
    }
    n += (size_t) snprintf(out + n, cap - n, "exit of rank %d at %g:", last, M->rk[last].retire);
    for (int k = len - 1; k >= 0 && n < cap - 160; --k) {
        const lev_t *e = &M->ev[chain[k]];
        const char *what = 'r' == e->what ? "reads" : 'w' == e->what ? "takes" : "writes";
        n += (size_t) snprintf(out + n, cap - n, "\n  %6g  rank %d %s rank %d's %s line +%zu",
                               e->t, e->rank, what, e->owner, region_name(&S->r[0].win, e->off),
                               e->off);
        if ('s' != e->what && e->writer != e->owner) {
            n += (size_t) snprintf(out + n, cap - n, " (written by rank %d)", e->writer);
        }
    }
}

static void call_begin(model_t *M, int call)
{
    M->call = call;
    M->nev = 0;
    for (int q = 0; q < M->P; ++q) {
        M->rk[q] = (lrank_t){0, 0, 0, 0, -1, -1, -1, 0, 0, 0, 0};
    }
}

static void call_end(sim_t *S, model_t *M)
{
    lines_result_t *o = M->out;
    double total = 0, busiest = 0, time = 0, served = 0, first = 1e300;
    int who = 0, last = 0;

    if (!lines_measured(M)) {
        return;
    }
    for (int q = 0; q < M->P; ++q) {
        const lrank_t *r = &M->rk[q];
        total += r->xfer;
        o->upgrades += r->upgrades;
        o->wasted += r->wasted;
        served = r->served > served ? r->served : served;
        if (r->xfer > busiest) {
            busiest = r->xfer;
            who = q;
        }
        if (r->retire > time) {
            time = r->retire;
            last = q;
        }
        first = r->retire < first ? r->retire : first;
    }
    o->total += total;
    o->busiest += busiest;
    o->served += served;
    o->time += time;
    o->first += first;
    o->total_max = total > o->total_max ? total : o->total_max;
    o->busiest_max = busiest > o->busiest_max ? busiest : o->busiest_max;
    if (time > o->time_max || 0 == o->calls) {
        o->time_max = time;
        o->busiest_rank = who;
        if (M->ls->path) {
            describe_path(S, M, last);
        }
    }
    ++o->calls;
}

/* Rank q would block at its current action: the line whose store can wake it. */
static void fall_asleep(sim_t *S, model_t *M, int q)
{
    const srank_t *R = &S->r[q];
    const coll_rdma_prog_t *p = &sop(S, q, R->cur)->op.prog;
    const coll_rdma_act_t *a = &p->acts[R->pc];
    const coll_rdma_window_t *w = &R->win;
    uint64_t seq = R->seq + a->dseq;
    int owner = -2;
    size_t off = 0;

    switch (a->kind) {
    case COLL_RDMA_ACT_WAIT:
    case COLL_RDMA_ACT_WAIT_PEER:
    case COLL_RDMA_ACT_WAIT_ALL:
    case COLL_RDMA_ACT_FOLD_ALL:
        owner = COLL_RDMA_ACT_WAIT == a->kind ? q : COLL_RDMA_ACT_WAIT_PEER == a->kind ? a->peer : -1;
        off = coll_rdma_slot_off(w, &a->slot, seq);
        break;
    case COLL_RDMA_ACT_CREDIT:
        owner = a->peer;
        off = coll_rdma_credit_off(w, a->credit);
        break;
    case COLL_RDMA_ACT_RING_SEND:
        owner = q;
        off = w->off_ring_ack;
        break;
    case COLL_RDMA_ACT_RING_RECV:
        owner = q;
        off = coll_rdma_ring_slot(w, w->ring_received + 1);
        break;
    default:
        break;
    }
    M->asleep[q] = true;
    M->wait_owner[q] = owner;
    M->wait_idx[q] = off / COLL_RDMA_LINE;
}

/*
 * When rank q's next action takes effect: an action that stores into a
 * window at max(I, R), when its stores become visible; any other at I, when
 * its loads start.  Running actions in this order keeps stores and loads of
 * one line in their order in time (rsag's reduction in place into its input
 * slot, which other ranks read earlier, comes after their reads).
 */
#define TIE 1e-9 /* less than any cost */

static double next_key(sim_t *S, model_t *M, int q)
{
    const srank_t *R = &S->r[q];
    const coll_rdma_prog_t *p = &sop(S, q, R->cur)->op.prog;
    int pc = R->started ? R->pc : 0;
    const coll_rdma_act_t *a;
    bool stores;

    if (pc >= p->n) {
        return M->rk[q].issue;
    }
    a = &p->acts[pc];
    stores = COLL_RDMA_ACT_POST == a->kind || COLL_RDMA_ACT_PUBLISH == a->kind
             || COLL_RDMA_ACT_RING_ACK == a->kind || COLL_RDMA_ACT_RING_SEND == a->kind
             || ((COLL_RDMA_ACT_COPY == a->kind || COLL_RDMA_ACT_REDUCE == a->kind)
                 && (COLL_RDMA_BUF_SLOT == a->dst.base || COLL_RDMA_BUF_PEER_SLOT == a->dst.base));
    /* on a tie stores go first: a store at t is visible to a load at t */
    return (stores && M->rk[q].retire > M->rk[q].issue ? M->rk[q].retire : M->rk[q].issue)
           + (stores ? 0 : TIE);
}

/*
 * Call by call: the rank whose next action takes effect first runs, action
 * by action, until it would block or another rank's next action comes
 * first; one that would block sleeps until a store to the line it waits
 * for.
 */
static void drive(sim_t *S, void *ctx)
{
    model_t *M = ctx;

    S->hook = lines_on_action;
    S->hook_ctx = M;
    for (int i = 0; i < S->ncalls; ++i) {
        call_begin(M, i);
        for (;;) {
            int q = -1;
            bool left = false;
            double next = 1e300, best = 0;
            for (int r = 0; r < S->P; ++r) {
                double k;
                if (S->r[r].cur != i) {
                    continue;
                }
                left = true;
                if (M->asleep[r]) {
                    continue;
                }
                k = next_key(S, M, r);
                if (q < 0 || k < best) {
                    next = q < 0 ? next : best;
                    q = r;
                    best = k;
                } else if (k < next) {
                    next = k;
                }
            }
            if (!left) {
                break;
            }
            if (q < 0) {
                S->q = -1;
                fail(S, "call %d: every rank left waits and none can go on", i);
            }
            for (uint64_t woken = M->woken; S->r[q].cur == i && next_key(S, M, q) <= next
                                            && woken == M->woken;) {
                if (BLOCK == step(S, q)) {
                    fall_asleep(S, M, q);
                    break;
                }
            }
        }
        call_end(S, M);
    }
}

/* ---- set-up ------------------------------------------------------------------------------- */

void lines_config(coll_rdma_config_t *cfg)
{
    coll_rdma_config_t d = COLL_RDMA_CONFIG_DEFAULTS;
    *cfg = d;
}

static int gcd(int a, int b)
{
    return 0 == b ? a : gcd(b, a % b);
}

static int lcm(int a, int b)
{
    return a / gcd(a, b) * b;
}

int lines_period(const coll_rdma_config_t *cfg)
{
    int p = lcm(2, COLL_RDMA_REDUCE_DEPTH);

    p = lcm(p, cfg->bcast_slots > 0 ? cfg->bcast_slots : 1);
    p = lcm(p, cfg->bcast_small_slots > 0 ? cfg->bcast_small_slots : 1);
    return lcm(p, cfg->allreduce_ring_slots > 0 ? cfg->allreduce_ring_slots : 1);
}

const char *lines_unserved(const coll_rdma_config_t *cfg, int coll, int alg, int P,
                           size_t bytes)
{
    coll_rdma_nway_plan_t plan;

    if (P < 2) {
        return "one rank";
    }
    switch (coll) {
    case COLL_RDMA_BCAST:
        return bytes > cfg->bcast_max_bytes ? "above bcast_max_bytes" : NULL;
    case COLL_RDMA_ALLREDUCE:
        if (bytes > cfg->allreduce_max_bytes) {
            return "above allreduce_max_bytes";
        }
        if (COLL_RDMA_ALG_READ == alg && bytes > cfg->allreduce_read_max_bytes) {
            return "above allreduce_read_max_bytes";
        }
        if (COLL_RDMA_ALG_NWAY == alg && 0 != coll_rdma_nway_plan(P, cfg->allreduce_nway_n, &plan)) {
            return "(n, P) not adaptable: bruck serves";
        }
        if (alg != COLL_RDMA_ALG_RING && alg != COLL_RDMA_ALG_RSAG && alg != COLL_RDMA_ALG_HIER
            && alg != COLL_RDMA_ALG_NPORT && alg != COLL_RDMA_ALG_READ
            && bytes > cfg->allreduce_short_max_bytes) {
            return "above allreduce_short_max_bytes";
        }
        return NULL;
    case COLL_RDMA_REDUCE:
        if (COLL_RDMA_ALG_RSAG == alg) {
            return bytes > cfg->reduce_max_bytes ? "above reduce_max_bytes" : NULL;
        }
        return bytes > coll_rdma_window_block_cap(cfg, P, coll, COLL_RDMA_ALG_KNOMIAL)
                   ? "above the reduce region's block"
                   : NULL;
    case COLL_RDMA_ALLGATHER:
    case COLL_RDMA_ALLTOALL:
        return bytes > coll_rdma_window_block_cap(cfg, P, coll, alg) ? "above the region's block"
                                                                     : NULL;
    default:
        return NULL;
    }
}

int lines_run(const lines_setup_t *ls, lines_result_t *out, char *err, size_t errlen)
{
    sim_scenario_t *sc = calloc(1, sizeof(*sc));
    model_t M;
    sim_stats_t st;
    sim_call_t *c;
    int P = ls->P, period = lines_period(&ls->cfg), rc;
    bool reduction = COLL_RDMA_ALLREDUCE == ls->coll || COLL_RDMA_REDUCE == ls->coll;
    bool counting = 0 == ls->cost.xfer + ls->cost.upgrade + ls->cost.fan + ls->cost.gap
                             + ls->cost.action;

    memset(out, 0, sizeof(*out));
    memset(&M, 0, sizeof(M));
    memset(&st, 0, sizeof(st));
    if (NULL == sc) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    sc->P = P;
    sc->all_direct = true;
    sc->groups = ls->groups;
    sc->cfg = ls->cfg;
    /* the layout holds rsag's and the read allgather's and alltoall's slots only where forced */
    if (COLL_RDMA_ALG_RSAG == ls->alg || COLL_RDMA_ALG_READ == ls->alg) {
        sc->cfg.alg[ls->coll] = ls->alg;
    }
    sc->ncalls = (ls->warmup > 0 ? ls->warmup : period) + (ls->measured > 0 ? ls->measured : period);
    if (sc->ncalls > SIM_MAX_CALLS) {
        snprintf(err, errlen, "%d calls: more than %d", sc->ncalls, SIM_MAX_CALLS);
        free(sc);
        return -1;
    }
    c = &sc->calls[0];
    c->coll = ls->coll;
    c->alg = ls->alg;
    /* reductions run on elements of SIM_ELEM bytes: 8 B is one element (the lines are those of 16) */
    c->count = reduction ? (ls->bytes + SIM_ELEM - 1) / SIM_ELEM : 0;
    c->bytes = reduction ? c->count * SIM_ELEM : COLL_RDMA_BARRIER == ls->coll ? 0 : ls->bytes;
    c->root = ls->root;
    c->order_independent = true;
    c->replay_of = -1;
    for (int i = 1; i < sc->ncalls; ++i) {
        sc->calls[i] = *c;
        sc->calls[i].replay_of = 0; /* the standing operation of a repeated blocking call */
    }
    M.ls = ls;
    M.cost = ls->cost;
    if (counting) {
        M.cost.xfer = 1;
    }
    M.out = out;
    M.P = P;
    M.nw = (P + 63) / 64;
    M.first_measured = sc->ncalls - (ls->measured > 0 ? ls->measured : period);
    M.rk = calloc((size_t) P, sizeof(lrank_t));
    M.asleep = calloc((size_t) P, sizeof(bool));
    M.wait_owner = calloc((size_t) P, sizeof(int));
    M.wait_idx = calloc((size_t) P, sizeof(size_t));
    M.credit = calloc((size_t) COLL_RDMA_NCREDITS * P * P, sizeof(uint64_t));
    if (NULL == M.rk || NULL == M.asleep || NULL == M.wait_owner || NULL == M.wait_idx
        || NULL == M.credit) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    } else {
        for (size_t k = 0; k < (size_t) COLL_RDMA_NCREDITS * P * P; ++k) {
            M.credit[k] = ls->cfg.debug_seq_start - 1; /* as the window starts them */
        }
        rc = sim_run_with(sc, &st, err, errlen, drive, &M);
    }
    if (0 == rc && out->calls > 0) {
        double n = out->calls;
        out->total /= n;
        out->busiest /= n;
        out->upgrades /= n;
        out->wasted /= n;
        out->served /= n;
        out->time /= n;
        out->first /= n;
        out->critical = counting ? out->time : 0;
        out->critical_max = counting ? out->time_max : 0;
    }
    for (size_t k = 0; k < M.cap; ++k) {
        free(M.lines[k].valid);
        free(M.lines[k].starts);
    }
    free(M.lines);
    free(M.rk);
    free(M.asleep);
    free(M.wait_owner);
    free(M.wait_idx);
    free(M.credit);
    free(M.ev);
    free(sc);
    return rc;
}
