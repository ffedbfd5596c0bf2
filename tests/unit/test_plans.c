/*
 * The plan simulator's test (issue 11): every algorithm's real plan, for P
 * ranks in one process, several calls back to back on every rank, under
 * random interleavings, against simulated windows (tests/unit/plan_sim.c
 * says what is checked).  No MPI, no UCX: the plan files, the window layout
 * and the schedules are linked, the executor is not.
 *
 * Scenarios, per P and seed:
 *   one algorithm  6 calls of it (one family per algorithm)
 *   one collective 8 calls of its algorithms in random order, so that
 *                  algorithms sharing a region or a counter alternate
 *                  (nway/bruck, read/knomial bcast, ...)
 *   mixed          10 calls of every collective, once with every window
 *                  mapped and once over the put path
 *   small ring     40 to 80 calls, three in four read bcasts (mostly of at
 *                  most 57 bytes: the small ring and just past it), the rest
 *                  any collective, 1 to 8 small slots, the counters crossing
 *                  2^64 half the time: the ring reused turn after turn
 *   read and hier  12 to 24 read and two-level bcasts, every window mapped,
 *                  nodes of consecutive ranks (review 2026-11-27, F9)
 *   rule segments  8 calls of rsag and the read allgather and alltoall, not forced
 *                  but named by rules reaching 1, 100 or 300 bytes (P <= 4, one in
 *                  two: 8 KiB, the segment 256 KiB): segments smaller than the
 *                  configured one, messages of several
 * Calls have random arguments at and around the limits (a slot's payload,
 * a bcast segment, the ring's segments, fewer elements than ranks), roots
 * other than 0, MPI_IN_PLACE, and persistent restarts (the same program
 * run again with new contents).  The configuration (radices, n, slots,
 * segment sizes, the first sequence number, near 2^64 to cross the wrap)
 * is drawn per scenario, one in eight at the extremes (the smallest
 * segments, chunks, limits and rings; every *_max_bytes at -1), and clamped
 * as the component clamps it.  P = 1..16 with three seeds, 17..20 with two, a
 * sample up to 64 with one.
 *
 * Usage: test_plans [-v] [-p P] [-s seed] [-f family] [-n seeds] [-w]
 *   -v  one line per scenario     -p, -s, -f  run only those (to reproduce)
 *   -n  seeds 0 .. n-1 for every P (a longer search)
 *   -w  only the window memory per rank at the defaults, 2 to 4096 ranks
 * Prints failures, then "N passed, M failed"; exits non-zero on failure.
 */
#include "plan_sim.h"

#include "coll_rdma_sched.h"
#include "coll_rdma_window.h"
#include "coll_rdma_names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* tests/unit/test_plans_window.c: the window memory per rank (-w) */
int test_plans_window_memory(int print);

#define MAX_REPORT 10

static const struct alg {
    int coll, alg;
    bool direct_only; /* needs every window mapped */
} algs[] = {
    {COLL_RDMA_BARRIER, COLL_RDMA_ALG_READ, true},
    {COLL_RDMA_BARRIER, COLL_RDMA_ALG_NWAY, false},
    {COLL_RDMA_BARRIER, COLL_RDMA_ALG_PAIRWISE, false},
    {COLL_RDMA_BCAST, COLL_RDMA_ALG_READ, true}, /* BCAST_READ */
    {COLL_RDMA_BCAST, COLL_RDMA_ALG_KNOMIAL, false},
    {COLL_RDMA_ALLREDUCE, COLL_RDMA_ALG_READ, true},
    {COLL_RDMA_ALLREDUCE, COLL_RDMA_ALG_PAIRWISE, false},
    {COLL_RDMA_ALLREDUCE, COLL_RDMA_ALG_KTREE, false},
    {COLL_RDMA_ALLREDUCE, COLL_RDMA_ALG_NWAY, false},
    {COLL_RDMA_ALLREDUCE, COLL_RDMA_ALG_BRUCK, false},
    {COLL_RDMA_ALLREDUCE, COLL_RDMA_ALG_RING, false},
    {COLL_RDMA_ALLREDUCE, COLL_RDMA_ALG_RSAG, true},
    {COLL_RDMA_REDUCE, COLL_RDMA_ALG_KNOMIAL, false},
    {COLL_RDMA_REDUCE, COLL_RDMA_ALG_RSAG, true},
    {COLL_RDMA_ALLGATHER, COLL_RDMA_ALG_BRUCK, false},
    {COLL_RDMA_ALLGATHER, COLL_RDMA_ALG_RING, false},
    {COLL_RDMA_ALLGATHER, COLL_RDMA_ALG_READ, true},
    {COLL_RDMA_ALLTOALL, COLL_RDMA_ALG_BRUCK, false},
    {COLL_RDMA_ALLTOALL, COLL_RDMA_ALG_DIRECT, false},
    {COLL_RDMA_ALLTOALL, COLL_RDMA_ALG_READ, true},
    /* two levels: need a node map (all mapped: one node; else sc->nodes) */
    {COLL_RDMA_BARRIER, COLL_RDMA_ALG_HIER, false},
    {COLL_RDMA_ALLREDUCE, COLL_RDMA_ALG_HIER, false},
    {COLL_RDMA_BCAST, COLL_RDMA_ALG_HIER, false},
    {COLL_RDMA_REDUCE, COLL_RDMA_ALG_HIER, false},
    {COLL_RDMA_ALLREDUCE, COLL_RDMA_ALG_NPORT, false},
};
#define NALGS ((int) (sizeof(algs) / sizeof(algs[0])))
#define BCAST_READ 3 /* algs[BCAST_READ]: the read bcast */
#define BCAST_KNOMIAL 4 /* algs[BCAST_KNOMIAL]: the k-nomial bcast */

/* The two-level algorithms: they need a node map, and their allreduces run in chunks. */
static bool two_level(int alg)
{
    return COLL_RDMA_ALG_HIER == alg || COLL_RDMA_ALG_NPORT == alg;
}
#define BCAST_HIER 22 /* algs[BCAST_HIER]: the two-level bcast */
/* families: 0 .. NALGS-1 one algorithm, then one collective each, then mixed (mapped, put
 * path), then the small bcast ring's long runs, then read and two-level bcasts on one
 * communicator whose windows are all mapped, under a node map (review 2026-11-27, F9) */
#define FAM_COLL NALGS
#define FAM_MIX (NALGS + COLL_RDMA_NCOLLS)
#define FAM_SMALL (FAM_MIX + 2)
#define FAM_BCAST_NODES (FAM_SMALL + 1)
#define FAM_RULE_SEGMENTS (FAM_BCAST_NODES + 1)
#define NFAMS (FAM_RULE_SEGMENTS + 1)
/* tuning rules that name the algorithms of the segment regions up to 1, 100, 300 and 8192
 * bytes (segment_rules()) */
#define NREACH 4
static const size_t rule_reach[NREACH] = {1, 100, 300, 8192};
static coll_rdma_rules_t *reach_rules[NREACH];

static uint64_t rng;

static uint64_t rnd(void)
{
    uint64_t x = (rng += 0x9e3779b97f4a7c15ULL);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static int pick(int n)
{
    return (int) (rnd() % (uint64_t) n);
}

#define PICK(...)                                                                                  \
    ((const long long[]){__VA_ARGS__}[pick(sizeof((const long long[]){__VA_ARGS__})              \
                                           / sizeof(long long))])

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

/*
 * The smallest values (review 2026-11-27, T9; clamped to their minimum by
 * coll_rdma_config_bound_sizes() where below it): one-line segments and
 * chunks (two-level allreduces cut many chunks of 64 bytes), limits below
 * the segments and the slot size (allreduce_max_bytes under
 * allreduce_short_max_bytes: slots of the limit), one-byte blocks, the
 * shallowest rings.  Limits stay at one element or more, so that the calls
 * drawn exist.
 */
static void extreme_low(coll_rdma_config_t *cfg)
{
    cfg->bcast_segment_bytes = (size_t) PICK(0, 1, 64);
    cfg->bcast_max_bytes = (size_t) PICK(57, 64, 100, 200);
    cfg->allreduce_short_max_bytes = (size_t) PICK(0, 16, 64);
    cfg->allreduce_max_bytes = (size_t) PICK(16, 32, 64, 4096);
    cfg->allreduce_read_max_bytes = (size_t) PICK(16, 32);
    cfg->allreduce_ring_segment_bytes = (size_t) PICK(0, 64);
    cfg->allreduce_rsag_segment_bytes = (size_t) PICK(1, 64);
    cfg->allgather_max_bytes = (size_t) PICK(1, 2, 8);
    cfg->alltoall_max_bytes = (size_t) PICK(1, 2, 8);
    cfg->reduce_max_bytes = (size_t) PICK(16, 32);
    cfg->bcast_slots = 2;
    cfg->allreduce_ring_slots = 2;
    cfg->bcast_small_slots = (int) PICK(0, 1);
}

/*
 * The largest limits a user may mean by -1 (an MCA size_t takes it as
 * 2^64 - 1; clamped to 2^31 - 1): every *_max_bytes.  The slot and segment
 * sizes stay: slots of 1 GiB cannot be simulated in memory (test_bounds
 * lays such windows out, without memory).  Calls are drawn within what
 * the simulator can hold (make_call()).
 */
static void extreme_high(coll_rdma_config_t *cfg)
{
    cfg->bcast_max_bytes = cfg->allreduce_max_bytes = SIZE_MAX;
    cfg->allgather_max_bytes = cfg->alltoall_max_bytes = cfg->reduce_max_bytes = SIZE_MAX;
}

static void random_config(coll_rdma_config_t *cfg, int P)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->min_comm_size = 1;
    cfg->barrier_nway_n = (int) PICK(1, 2, 3, 5);
    cfg->bcast_radix = 2 + pick(3);
    cfg->bcast_slots = (int) PICK(2, 3, 8);
    cfg->bcast_small_slots = (int) PICK(0, 1, 2, 3, 5, 64);
    cfg->bcast_segment_bytes = (size_t) PICK(64, 72, 128);
    cfg->bcast_max_bytes = cfg->bcast_segment_bytes * (size_t) PICK(3, 9);
    cfg->allreduce_ktree_degree = 1 + pick(3);
    cfg->allreduce_nway_n = 1 + pick(3);
    cfg->allreduce_bruck_n = 1 + pick(3);
    cfg->allreduce_max_bytes = 4096;
    cfg->allreduce_short_max_bytes = (size_t) PICK(96, 160);
    cfg->allreduce_read_max_bytes = (size_t) PICK(32, 48, 160);
    cfg->allreduce_ring_segment_bytes = (size_t) PICK(64, 80, 128);
    cfg->allreduce_ring_slots = 2 + pick(3);
    cfg->allreduce_ring_max_ranks = 8;
    /* rsag shares: cache lines of SIM_ELEM elements, fewer lines than ranks */
    cfg->allreduce_rsag_segment_bytes = (size_t) PICK(64, 200, 512);
    /* the layout holds the segments of rsag and the read allgather only where forced */
    cfg->alg[COLL_RDMA_ALLREDUCE] = cfg->alg[COLL_RDMA_REDUCE] = COLL_RDMA_ALG_RSAG;
    cfg->alg[COLL_RDMA_ALLGATHER] = cfg->alg[COLL_RDMA_ALLTOALL] = COLL_RDMA_ALG_READ;
    /* blocks that are no multiple of 8: the packed Bruck slots' stride is rounded up */
    cfg->allgather_max_bytes = (size_t) PICK(8, 13, 24, 40);
    cfg->alltoall_max_bytes = (size_t) PICK(8, 13, 24, 37);
    cfg->reduce_radix = 2 + pick(3);
    cfg->reduce_max_bytes = (size_t) PICK(64, 160);
    if (P <= 8 && 0 == pick(8)) {
        /* the region budget caps the blocks (coll_rdma_window_block_cap), not *_max_bytes */
        cfg->allgather_max_bytes = cfg->alltoall_max_bytes = cfg->reduce_max_bytes = 1 << 20;
    }
    /* near 2^64 the counters and parities cross the wrap within a scenario */
    cfg->debug_seq_start = (uint64_t) PICK(1, 1, 1000, -3LL);
    /* one node: the bcast rings cut to what may come through them (the
     * k-nomial ring to a line where nothing names it, the read ring too where
     * k-nomial is forced); the plans cut messages into the cut segments */
    cfg->one_node = (int) pick(2);
    if (cfg->one_node && 0 == pick(3)) {
        cfg->alg[COLL_RDMA_BCAST] = COLL_RDMA_ALG_KNOMIAL;
    }
    /* one in eight at the extremes (review 2026-11-27, T9) */
    switch (pick(8)) {
    case 0:
        extreme_low(cfg);
        break;
    case 1:
        extreme_high(cfg);
        break;
    default:
        break;
    }
    /* as the component clamps them (coll_rdma_config_bound_sizes()) */
    (void) coll_rdma_config_bound_sizes(cfg, NULL, NULL);
}

/* A size in [1, max]: the limits and around them, or any. */
static size_t some_size(size_t max)
{
    size_t v = (size_t) PICK(1, 2, (long long) max - 1, (long long) max, 0, 0);
    if (0 == v) {
        v = 1 + (size_t) pick((int) max);
    }
    return v < 1 ? 1 : (v > max ? max : v);
}

static void make_call(sim_scenario_t *sc, int i, int k)
{
    sim_call_t *c = &sc->calls[i];
    const coll_rdma_config_t *cfg = &sc->cfg;
    coll_rdma_nway_plan_t plan;
    coll_rdma_window_t w;
    int P = sc->P;
    size_t read_seg;

    memset(c, 0, sizeof(*c));
    memset(&w, 0, sizeof(w));
    coll_rdma_window_layout(&w, cfg, P, 0);
    /* the segments the plans cut: the window's (the configured ones where forced) */
    read_seg = COLL_RDMA_ALLTOALL == algs[k].coll ? w.read_alltoall.segment
                                                  : w.read_allgather.segment;
    c->coll = algs[k].coll;
    c->alg = algs[k].alg;
    c->root = pick(P);
    c->in_place = pick(10) < 3;
    c->order_independent = pick(2);
    c->replay_of = -1;
    /* the decision layer's substitution: nway has no plan for this (n, P) */
    if (COLL_RDMA_ALG_NWAY == c->alg && COLL_RDMA_ALLREDUCE == c->coll
        && 0 != coll_rdma_nway_plan(P, cfg->allreduce_nway_n, &plan)) {
        c->alg = COLL_RDMA_ALG_BRUCK;
    }
    switch (c->coll) {
    case COLL_RDMA_BCAST:
        /* segmented up to bcast_max_bytes (knomial and hier: one instance
         * per segment, coll_rdma_plan()), or about one segment, or about
         * one line (read: the small ring, 56 bytes, or not, 57) */
        c->bytes = some_size(min_size((size_t) PICK((long long) cfg->bcast_max_bytes,
                                                    (long long) cfg->bcast_segment_bytes + 1,
                                                    COLL_RDMA_BCAST_SMALL_BYTES + 1),
                                      min_size(cfg->bcast_max_bytes,
                                               9 * cfg->bcast_segment_bytes)));
        break;
    case COLL_RDMA_ALLREDUCE:
        if (COLL_RDMA_ALG_RING == c->alg || COLL_RDMA_ALG_RSAG == c->alg) {
            size_t seg = (COLL_RDMA_ALG_RING == c->alg ? cfg->allreduce_ring_segment_bytes
                                                       : w.rsag_allreduce.segment)
                         / SIM_ELEM,
                   max = 4 * (size_t) P + 8;
            c->count = (size_t) PICK(1, P - 1, P, P + 1, (long long) (seg * P),
                                     (long long) (seg * P + 1), 0, 0);
            c->count = 0 == c->count ? some_size(max) : c->count;
            c->count = c->count < 1 ? 1 : min_size(c->count, cfg->allreduce_max_bytes / SIM_ELEM);
        } else if (COLL_RDMA_ALG_READ == c->alg) {
            c->count = some_size(min_size(cfg->allreduce_read_max_bytes,
                                          cfg->allreduce_max_bytes) / SIM_ELEM);
        } else if (two_level(c->alg) && pick(2)) {
            /* chunks of allreduce_short_max_bytes (coll_rdma_plan()) */
            c->count = some_size(min_size(3 * cfg->allreduce_short_max_bytes + SIM_ELEM,
                                          cfg->allreduce_max_bytes) / SIM_ELEM);
        } else {
            c->count = some_size(min_size(cfg->allreduce_short_max_bytes,
                                          cfg->allreduce_max_bytes) / SIM_ELEM);
        }
        c->bytes = c->count * SIM_ELEM;
        break;
    case COLL_RDMA_REDUCE:
        /* knomial and hier: in chunks of reduce_bytes above it (coll_rdma_plan()) */
        c->count = some_size((COLL_RDMA_ALG_RSAG == c->alg ? w.rsag_reduce.segment * 3
                              : pick(4)                    ? w.reduce_bytes
                                                           : 3 * w.reduce_bytes + SIM_ELEM)
                             / SIM_ELEM);
        c->bytes = c->count * SIM_ELEM;
        break;
    case COLL_RDMA_ALLGATHER:
    case COLL_RDMA_ALLTOALL:
        /* read: blocks of one segment, two and a bit, or any up to three */
        c->bytes = COLL_RDMA_ALG_READ == c->alg
                       ? (size_t) PICK((long long) read_seg, (long long) (2 * read_seg + 1),
                                       (long long) some_size(3 * read_seg))
                       : some_size(coll_rdma_window_block_cap(cfg, P, c->coll, c->alg));
        break;
    default:
        c->in_place = false;
        break;
    }
    /* a persistent restart of an earlier call, now and then */
    if (i > 0 && 0 == pick(4)) {
        int j = pick(i);
        if (sc->calls[j].replay_of < 0) {
            *c = sc->calls[j];
            c->replay_of = j;
        }
    }
}

static int random_alg(int coll, const sim_scenario_t *sc)
{
    for (;;) {
        int k = pick(NALGS);
        if ((coll < 0 || algs[k].coll == coll) && (sc->all_direct || !algs[k].direct_only)
            && (sc->all_direct || sc->nodes > 0 || !two_level(algs[k].alg))) {
            return k;
        }
    }
}

/* An algorithm of a segment region: rsag, the read allgather or alltoall. */
static int segment_alg(void)
{
    for (;;) {
        int k = pick(NALGS);
        if (COLL_RDMA_ALG_RSAG == algs[k].alg
            || (COLL_RDMA_ALG_READ == algs[k].alg
                && (COLL_RDMA_ALLGATHER == algs[k].coll || COLL_RDMA_ALLTOALL == algs[k].coll))) {
            return k;
        }
    }
}

static void make_scenario(sim_scenario_t *sc, int P, uint64_t seed, int fam)
{
    rng = seed * 1000003ULL + (uint64_t) P * 7919ULL + (uint64_t) fam;
    memset(sc, 0, sizeof(*sc));
    sc->P = P;
    sc->seed = rnd();
    sc->poison = true; /* windows as the pool hands them out: nothing read but words */
    random_config(&sc->cfg, P);
    if (fam < NALGS) {
        sc->all_direct = algs[fam].direct_only || pick(2);
        sc->ncalls = 6;
    } else if (fam < FAM_MIX) {
        sc->all_direct = pick(2);
        sc->ncalls = 8;
    } else if (fam < FAM_SMALL) {
        sc->all_direct = FAM_MIX == fam;
        sc->ncalls = 10;
    } else if (FAM_RULE_SEGMENTS == fam) {
        /* the segment regions sized by tuning rules below the configured
         * segment (coll_rdma_layout.h): nothing forced, the rules name
         * them; the plans go through several of the window's segments */
        int r = P <= 4 && pick(2) ? NREACH - 1 : pick(NREACH - 1);

        sc->all_direct = true;
        sc->ncalls = 8;
        if (NREACH - 1 == r) { /* the default segment, rules reaching 8 KiB */
            sc->cfg.allreduce_rsag_segment_bytes = 256 * 1024;
            if (sc->cfg.allreduce_max_bytes < 65536) { /* calls of several segments */
                sc->cfg.allreduce_max_bytes = 65536;
            }
        }
        sc->cfg.alg[COLL_RDMA_ALLREDUCE] = sc->cfg.alg[COLL_RDMA_REDUCE] = COLL_RDMA_ALG_AUTO;
        sc->cfg.alg[COLL_RDMA_ALLGATHER] = sc->cfg.alg[COLL_RDMA_ALLTOALL] = COLL_RDMA_ALG_AUTO;
        sc->cfg.rules = reach_rules[r];
        /* and the bcast rings of one node: the k-nomial ring cut to what
         * the rule reaches (a line, 128, 320 bytes or whole), the read ring
         * whole (auto's table); k-nomial and two-level bcasts of several
         * segments go through them, the two-level one in the smaller */
        sc->cfg.one_node = 1;
        sc->cfg.auto_emulated = 0;
        sc->cfg.alg[COLL_RDMA_BCAST] = COLL_RDMA_ALG_AUTO;
        sc->cfg.bcast_segment_bytes = 1024;
        sc->cfg.bcast_max_bytes = 3 * 1024;
        sc->groups = 1 + pick(P > 1 ? P - 1 : 1);
    } else if (FAM_BCAST_NODES == fam) {
        /* read bcasts (every rank reads the root's read ring) and two-level
         * ones (a node reads its carrier's) of one communicator, every
         * window mapped, nodes of `groups` consecutive ranks (as
         * coll_rdma_debug_node_ranks makes them; tuning rules may name both
         * algorithms for different sizes): a carrier rewrites its read ring
         * slot only when every rank that may still read it is done */
        sc->all_direct = true;
        sc->groups = 1 + pick(P > 1 ? P - 1 : 1);
        sc->ncalls = 12 + pick(13);
        sc->cfg.bcast_slots = (int) PICK(2, 3);
        sc->cfg.bcast_small_slots = (int) PICK(0, 2);
    } else {
        /* the small ring turned many times: 40 to 80 calls, mostly read
         * bcasts of one line or just over, from random roots, among every
         * other collective; a shallow ring; half the time the counters
         * cross 2^64 half-way */
        sc->all_direct = true;
        sc->ncalls = 40 + pick(41);
        sc->cfg.bcast_small_slots = (int) PICK(1, 2, 3, 5, 8);
        if (pick(2)) {
            sc->cfg.debug_seq_start = (uint64_t) 0 - (uint64_t) (sc->ncalls / 2);
        }
    }
    /* ranks on nodes (mapped inside a node only) half the time, always for
     * the two-level families */
    if (!sc->all_direct
        && ((fam < NALGS && two_level(algs[fam].alg)) || pick(2))) {
        sc->nodes = 1 + pick(P);
    }
    sc->copied = !sc->all_direct && pick(2);
    for (int i = 0; i < sc->ncalls; ++i) {
        int k = fam < NALGS              ? fam
                : fam < FAM_MIX          ? random_alg(fam - FAM_COLL, sc)
                : fam < FAM_SMALL        ? random_alg(-1, sc)
                : FAM_BCAST_NODES == fam ? (pick(2) ? BCAST_READ : BCAST_HIER)
                : FAM_RULE_SEGMENTS == fam ? (pick(3)   ? segment_alg()
                                              : pick(2) ? BCAST_KNOMIAL
                                                        : BCAST_HIER)
                : pick(4)                  ? BCAST_READ
                                           : random_alg(-1, sc);
        make_call(sc, i, k);
        if (FAM_SMALL == fam && BCAST_READ == k && sc->calls[i].replay_of < 0 && pick(4)) {
            sc->calls[i].bytes = 1 + (size_t) pick(COLL_RDMA_BCAST_SMALL_BYTES + 1);
        }
    }
}

static void describe(const sim_scenario_t *sc, int fam, uint64_t seed)
{
    static coll_rdma_window_t w;

    memset(&w, 0, sizeof(w));
    (void) coll_rdma_window_layout(&w, &sc->cfg, sc->P, 0);
    printf("  reproduce: test_plans -p %d -s %llu -f %d (%s, %s%s, %d nodes, groups of %d; "
           "seq_start %llu, "
           "bcast slots %d, small slots %d; one node %d, bcast %s: segments %zu and %zu read)\n",
           sc->P, (unsigned long long) seed, fam,
           fam < NALGS              ? "one algorithm"
           : fam < FAM_MIX          ? "one collective"
           : fam < FAM_SMALL        ? "mixed"
           : FAM_BCAST_NODES == fam ? "read and two-level bcasts"
           : FAM_RULE_SEGMENTS == fam ? "segments sized by rules"
                                    : "small bcast ring",
           sc->all_direct ? "all mapped" : "put path", sc->copied ? " (copied puts)" : "",
           sc->nodes, sc->groups,
           (unsigned long long) sc->cfg.debug_seq_start, sc->cfg.bcast_slots,
           sc->cfg.bcast_small_slots, sc->cfg.one_node,
           coll_rdma_alg_names[sc->cfg.alg[COLL_RDMA_BCAST]], w.bcast_segment,
           w.bcast_read_segment);
    for (int i = 0; i < sc->ncalls; ++i) {
        const sim_call_t *c = &sc->calls[i];
        printf("  call %d: %s %s bytes %zu root %d%s%s", i, sim_coll_name(c->coll),
               sim_alg_name(c->alg), c->bytes, c->root, c->in_place ? " in place" : "",
               c->order_independent ? " order-independent" : "");
        if (c->replay_of >= 0) {
            printf(" (restart of call %d)", c->replay_of);
        }
        printf("\n");
    }
}

/* Parse reach_rules[], rule_reach[i] bytes each; 0 when done. */
static int segment_rules(void)
{
    char text[256], err[256];

    for (int i = 0; i < NREACH; ++i) {
        snprintf(text, sizeof(text),
                 "allreduce 1- 0-%zu rsag\nreduce 1- 0-%zu rsag\n"
                 "allgather 1- 0-%zu read\nalltoall 1- 0-%zu read\nbcast 1- 0-%zu knomial\n",
                 rule_reach[i], rule_reach[i], rule_reach[i], rule_reach[i], rule_reach[i]);
        reach_rules[i] = coll_rdma_rules_parse_text(text, coll_rdma_names_vocab(), err,
                                                    sizeof(err));
        if (NULL == reach_rules[i]) {
            printf("FAIL the segment rules: %s\n", err);
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    /* P = 1..20 in full, then a sample up to 64 (powers of two and their neighbours) */
    static const int big[] = {23, 24, 27, 31, 32, 33, 40, 47, 48, 63, 64};
    int only_p = 0, only_f = -1, verbose = 0, passed = 0, failed = 0, nseeds = 0;
    long long only_s = -1;
    sim_stats_t st;
    clock_t t0 = clock();

    for (int a = 1; a < argc; ++a) {
        if (0 == strcmp(argv[a], "-v")) {
            verbose = 1;
        } else if (a + 1 < argc && 0 == strcmp(argv[a], "-p")) {
            only_p = atoi(argv[++a]);
        } else if (a + 1 < argc && 0 == strcmp(argv[a], "-s")) {
            only_s = atoll(argv[++a]);
        } else if (a + 1 < argc && 0 == strcmp(argv[a], "-f")) {
            only_f = atoi(argv[++a]);
        } else if (a + 1 < argc && 0 == strcmp(argv[a], "-n")) {
            nseeds = atoi(argv[++a]);
        } else if (0 == strcmp(argv[a], "-w")) {
            return test_plans_window_memory(1);
        } else {
            fprintf(stderr, "usage: %s [-v] [-p P] [-s seed] [-f family 0..%d] [-n seeds] [-w]\n",
                    argv[0], NFAMS - 1);
            return 2;
        }
    }
    memset(&st, 0, sizeof(st));
    if (COLL_RDMA_BCAST != algs[BCAST_READ].coll || COLL_RDMA_ALG_READ != algs[BCAST_READ].alg
        || COLL_RDMA_BCAST != algs[BCAST_HIER].coll || COLL_RDMA_ALG_HIER != algs[BCAST_HIER].alg) {
        printf("FAIL internal: algs[BCAST_READ] or algs[BCAST_HIER] is not that bcast\n");
        return 1;
    }
    if (0 != segment_rules()) {
        return 1;
    }
    failed += test_plans_window_memory(0);
    for (int x = 0; x < 20 + (int) (sizeof(big) / sizeof(big[0])); ++x) {
        int P = only_p > 0 ? only_p : x < 20 ? x + 1 : big[x - 20];
        int seeds = nseeds > 0 ? nseeds : P <= 16 ? 3 : P <= 20 ? 2 : 1;

        if (only_p > 0 && x > 0) {
            break;
        }
        for (uint64_t seed = 0; seed < (uint64_t) (only_s >= 0 ? 1 : seeds); ++seed) {
            uint64_t s = only_s >= 0 ? (uint64_t) only_s : seed;
            for (int fam = 0; fam < NFAMS; ++fam) {
                sim_scenario_t sc;
                char err[2048];

                if (only_f >= 0 && fam != only_f) {
                    continue;
                }
                make_scenario(&sc, P, s, fam);
                if (0 == sim_run(&sc, &st, err, sizeof(err))) {
                    ++passed;
                    if (verbose) {
                        size_t most = 0;
                        for (int i = 0; i < sc.ncalls; ++i) {
                            most = sc.calls[i].bytes > most ? sc.calls[i].bytes : most;
                        }
                        printf("ok   P=%d seed=%llu family=%d (%d calls, up to %zu bytes%s)\n", P,
                               (unsigned long long) s, fam, sc.ncalls, most,
                               sc.all_direct ? "" : ", put path");
                    }
                    continue;
                }
                if (failed++ < MAX_REPORT) {
                    printf("FAIL P=%d seed=%llu family=%d: %s\n", P, (unsigned long long) s, fam,
                           err);
                    describe(&sc, fam, s);
                }
            }
        }
    }
    printf("plans: %llu actions, %llu would-block, %llu slot writes (%llu over the put path, "
           "%llu reusing a slot), %.1f s\n",
           (unsigned long long) st.actions, (unsigned long long) st.blocked,
           (unsigned long long) st.posts, (unsigned long long) st.deferred,
           (unsigned long long) st.overwrites, (double) (clock() - t0) / CLOCKS_PER_SEC);
    printf("%d passed, %d failed\n", passed, failed);
    for (int r = 0; r < NREACH; ++r) {
        coll_rdma_rules_free(reach_rules[r]);
    }
    return failed > 0 ? 1 : 0;
}
