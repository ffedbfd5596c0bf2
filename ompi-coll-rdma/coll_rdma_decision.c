/*
 * coll/rdma decision layer: per call, an algorithm or the fallback.
 *
 * Every input is either part of the configuration that all ranks agreed on
 * at window setup or a fact MPI requires to match across ranks (the bytes of
 * the type signature, the op, the element type of a reduction's signature),
 * never a rank's layout or MPI_IN_PLACE, so all ranks of a communicator
 * decide alike (docs/design.md, "Datatypes", has the audit).
 */
#include "ompi_config.h"

#include "coll_rdma_decision.h"
#include "coll_rdma_rules.h"
#include "coll_rdma_sched.h"
#include "coll_rdma_layout.h"

static int fallback(int *why, int reason)
{
    *why = reason;
    return COLL_RDMA_ALG_FALLBACK;
}

/*
 * The algorithm asked for: the collective's parameter, or where that is auto
 * the first rule of coll_rdma_tuning_file that matches, else on one node
 * (every window mapped) the first default rule that matches (measured,
 * coll_rdma_defaults.rules, docs/tuning.md), else auto (the built-in table
 * below).  A rule's algorithm is then decided like a forced one.
 */
static int asked(const coll_rdma_config_t *cfg, int coll, int comm_size, size_t bytes,
                 bool all_direct)
{
    int alg = cfg->alg[coll];

    if (COLL_RDMA_ALG_AUTO != alg) {
        return alg;
    }
    alg = coll_rdma_rules_find(cfg->rules, coll, comm_size, bytes, COLL_RDMA_ALG_AUTO);
    if (COLL_RDMA_ALG_AUTO == alg && all_direct) {
        alg = coll_rdma_rules_find(cfg->defaults, coll, comm_size, bytes, COLL_RDMA_ALG_AUTO);
    }
    return alg;
}

/*
 * Whether a rule's choice `alg` (decided as `decided`) should give way to the
 * built-in table: it named an algorithm that cannot serve this call here (too
 * large for its slots, a window not mapped); the call then takes what auto
 * takes.  A rule's fallback is counted as the rule's (COLL_RDMA_WHY_RULE).
 */
static bool rule_gives_way(const coll_rdma_config_t *cfg, int coll, int alg, int decided,
                           int *why)
{
    if (alg == cfg->alg[coll] || COLL_RDMA_ALG_FALLBACK != decided) {
        return false; /* the parameter's, or served */
    }
    if (COLL_RDMA_ALG_FALLBACK == alg) {
        *why = COLL_RDMA_WHY_RULE;
        return false;
    }
    return COLL_RDMA_WHY_TOO_LARGE == *why || COLL_RDMA_WHY_WINDOW == *why;
}

/* A call as the decision sees it: the public functions' arguments (false
 * where a collective has no such fact). */
typedef struct call_facts {
    int comm_size;
    int nnodes; /* nodes of the window's node map (0: none; coll_rdma_topo_set_nodes) */
    size_t bytes;
    bool all_direct, emulated, reducible_type, reducible_op, order_independent, fallback_wrong;
    size_t rsag_segment; /* reductions: the window's rsag segment of this collective (0: none) */
    bool bcast_tree_cut, bcast_read_cut; /* bcast: the window's rings (coll_rdma_reach_t) */
} call_facts_t;

/* One collective's decision for algorithm `alg` (the parameter's, a rule's,
 * or AUTO: the built-in table). */
typedef int (*decide_as_fn)(const coll_rdma_config_t *cfg, int alg, const call_facts_t *f,
                            int *why);

/*
 * Every collective's decision: the algorithm asked for, decided by `as`;
 * where a rule asked for it and it cannot serve the call here, the built-in
 * table's.  A rule's choice keeps results alike on every rank (forced, nway
 * and Bruck serve in their order) and does not hand on what Open MPI reduces
 * wrongly.
 */
static int decide(const coll_rdma_config_t *cfg, int coll, decide_as_fn as,
                  const call_facts_t *f, int *why)
{
    int alg = asked(cfg, coll, f->comm_size, f->bytes, f->all_direct), decided;

    if (alg != cfg->alg[coll]
        && ((COLL_RDMA_ALLREDUCE == coll && !f->order_independent
             && (COLL_RDMA_ALG_NWAY == alg || COLL_RDMA_ALG_BRUCK == alg))
            || (f->fallback_wrong && COLL_RDMA_ALG_FALLBACK == alg))) {
        alg = COLL_RDMA_ALG_AUTO;
    }
    /* UCX emulates the puts to some peer (no RMA lane: TCP): the built-in
     * table was not measured for that and the put path loses there to the
     * point-to-point collectives (docs/performance.md, "Across hosts"); a
     * forced algorithm or a rule still serves, and so does auto where Open
     * MPI's own reduction of the pair is wrong (correct beats fast) */
    if (COLL_RDMA_ALG_AUTO == alg && f->emulated && !cfg->auto_emulated && !f->fallback_wrong) {
        return fallback(why, COLL_RDMA_WHY_WINDOW);
    }
    decided = as(cfg, alg, f, why);
    return rule_gives_way(cfg, coll, alg, decided, why) ? as(cfg, COLL_RDMA_ALG_AUTO, f, why)
                                                        : decided;
}

/*
 * Whether auto takes the two-level algorithms: windows reached by puts, a
 * node map, and some node of several ranks (with one rank per node the
 * leaders are every rank: the flat algorithm without the detour).
 */
static bool two_level(const call_facts_t *f)
{
    return !f->all_direct && f->nnodes > 0 && f->nnodes < f->comm_size;
}

/*
 * Correct beats fast (DESIGN.md rule 7): where Open MPI's own reduction of the
 * pair is wrong, a call that `decided` hands on for its size or the window
 * (not a forced `fallback`: that stays the user's way to take coll/rdma out
 * of the picture) is served all the same, and *rescued says so.  First by
 * what auto takes for a correct pair of that size on this communicator, so
 * that such calls run the same algorithms as any other; where auto would
 * hand it on too, by `any_size`, an algorithm that serves every size through
 * segments or chunks of bounded window memory.  Inputs as every decision's:
 * the agreed configuration and union, and what MPI requires to match.
 */
static int rescue(const coll_rdma_config_t *cfg, decide_as_fn as, const call_facts_t *f,
                  int decided, int any_size, bool *rescued, int *why)
{
    int auto_why;

    *rescued = false;
    /* Open MPI's datatype engine packs in int counts of bytes */
    if (COLL_RDMA_ALG_FALLBACK != decided || !f->fallback_wrong || f->bytes > INT32_MAX
        || (COLL_RDMA_WHY_TOO_LARGE != *why && COLL_RDMA_WHY_WINDOW != *why)) {
        return decided;
    }
    decided = as(cfg, COLL_RDMA_ALG_AUTO, f, &auto_why);
    if (COLL_RDMA_ALG_FALLBACK == decided) {
        if (COLL_RDMA_ALG_FALLBACK == any_size) {
            return decided; /* *why stays the asked algorithm's */
        }
        decided = any_size;
    }
    *rescued = true;
    return decided;
}

static int barrier_as(const coll_rdma_config_t *cfg, int alg, const call_facts_t *f, int *why)
{
    bool all_direct = f->all_direct;

    if (COLL_RDMA_ALG_FALLBACK == alg) {
        return fallback(why, COLL_RDMA_WHY_FORCED);
    }
    if (COLL_RDMA_ALG_AUTO == alg) {
        return all_direct ? COLL_RDMA_ALG_READ
               : two_level(f) ? COLL_RDMA_ALG_HIER
                              : COLL_RDMA_ALG_NWAY;
    }
    if ((COLL_RDMA_ALG_READ == alg && !all_direct)
        || (COLL_RDMA_ALG_HIER == alg && 0 == f->nnodes)) {
        return fallback(why, COLL_RDMA_WHY_WINDOW);
    }
    return alg;
}

/*
 * Whether a rescued call that auto hands on takes rsag: every window mapped
 * and the window holds the configured segment whole.  A segment the layout
 * cut to what the rules reach was sized for the calls the rules send; the
 * ring and the k-nomial chunks serve the rescued rest (docs/design.md,
 * "Where Open MPI's own reduction is wrong").  Measured: rsag in the cut 8
 * KiB segments of reduce at 2 ranks took 1.2-1.5x the k-nomial tree's 4 KiB
 * chunks from 32 KiB to 1 MiB (MPI_CHAR sums, 5 interleaved runs,
 * 2026-11-28), so a cut segment does not rescue.
 */
static bool rsag_rescues(const coll_rdma_config_t *cfg, const call_facts_t *f)
{
    return f->all_direct && f->rsag_segment > 0
           && f->rsag_segment >= cfg->allreduce_rsag_segment_bytes;
}

/* The facts every collective shares: the communicator and what its set-up found. */
static call_facts_t facts(int comm_size, const coll_rdma_reach_t *reach, size_t bytes)
{
    return (call_facts_t){.comm_size = comm_size, .nnodes = reach->nnodes, .bytes = bytes,
                          .all_direct = reach->all_direct, .emulated = reach->emulated};
}

int coll_rdma_decide_barrier(const coll_rdma_config_t *cfg, int comm_size,
                             const coll_rdma_reach_t *reach, int *why)
{
    call_facts_t f = facts(comm_size, reach, 0);

    return decide(cfg, COLL_RDMA_BARRIER, barrier_as, &f, why);
}

/* auto: the read bcast on 2 ranks up to COLL_RDMA_AUTO_BCAST_TWO_RANKS_MAX_BYTES
 * (coll_rdma_layout.h): from 32 to 256 KiB its two copies took 1.09-1.32x the
 * time of coll/tuned's one message (2-core machine, 7 interleaved repetitions;
 * docs/performance.md).  The built-in table's largest bcast and allreduce
 * (bcast_max_bytes and allreduce_max_bytes cap what forced algorithms and
 * rules serve, default rules included; the table keeps the limits it was
 * measured with): COLL_RDMA_AUTO_BCAST_MAX_BYTES and this */
#define AUTO_ALLREDUCE_MAX_BYTES (1024 * 1024)

static int bcast_as(const coll_rdma_config_t *cfg, int alg, const call_facts_t *f, int *why)
{
    int comm_size = f->comm_size;
    size_t bytes = f->bytes;
    bool all_direct = f->all_direct;

    if (COLL_RDMA_ALG_FALLBACK == alg) {
        return fallback(why, COLL_RDMA_WHY_FORCED);
    }
    /* Open MPI's datatype engine packs in int counts of bytes */
    if (bytes > cfg->bcast_max_bytes || bytes > INT32_MAX) {
        return fallback(why, COLL_RDMA_WHY_TOO_LARGE);
    }
    /* On one node the root's single copy beats forwarding along a tree at
     * every size measured (docs/tuning.md); the trees are for windows
     * reached by puts. */
    if (COLL_RDMA_ALG_AUTO == alg) {
        if ((all_direct && bytes > coll_rdma_auto_bcast_read_max(comm_size))
            || bytes > COLL_RDMA_AUTO_BCAST_MAX_BYTES) {
            return fallback(why, COLL_RDMA_WHY_TOO_LARGE);
        }
        /* Across nodes one segment: the trees pipeline larger bcasts segment
         * by segment, which is not measured against coll/tuned's segmented
         * trees on a real network yet (forced, they serve up to
         * bcast_max_bytes). */
        if (!all_direct && bytes > cfg->bcast_segment_bytes) {
            return fallback(why, COLL_RDMA_WHY_TOO_LARGE);
        }
        alg = all_direct ? COLL_RDMA_ALG_READ
              : two_level(f) ? COLL_RDMA_ALG_HIER
                             : COLL_RDMA_ALG_KNOMIAL;
        /* a ring cut to what rules send (one node, where UCX then did not
         * map every window) does not hold the table's segment */
        if ((COLL_RDMA_ALG_KNOMIAL == alg && f->bcast_tree_cut)
            || (COLL_RDMA_ALG_HIER == alg && (f->bcast_tree_cut || f->bcast_read_cut))) {
            return fallback(why, COLL_RDMA_WHY_WINDOW);
        }
    }
    if ((COLL_RDMA_ALG_READ == alg && !all_direct)
        || (COLL_RDMA_ALG_HIER == alg && 0 == f->nnodes)) {
        return fallback(why, COLL_RDMA_WHY_WINDOW);
    }
    return alg;
}

int coll_rdma_decide_bcast(const coll_rdma_config_t *cfg, int comm_size, size_t bytes,
                           const coll_rdma_reach_t *reach, int *why)
{
    call_facts_t f = facts(comm_size, reach, bytes);

    f.bcast_tree_cut = reach->bcast_tree_cut;
    f.bcast_read_cut = reach->bcast_read_cut;
    return decide(cfg, COLL_RDMA_BCAST, bcast_as, &f, why);
}

/* auto: the ring on 2 ranks up to this many bytes: at 1 MiB it took 1.26x coll/tuned's
 * time (2-core machine, 11 interleaved repetitions; docs/performance.md) */
#define AUTO_RING_TWO_RANKS_MAX_BYTES (512 * 1024)

/* auto: read allreduce only on communicators of more ranks than this */
#define AUTO_ALLREDUCE_READ_MIN_RANKS 4
/* and of at most this many: each rank loads P - 1 lines.  By the cache-line
 * model (fitted to the 16-core machine; docs/scale.md, "One node, many
 * cores"; not measured above 16 ranks), 8 B: where the order of the sums does
 * not show, n-way or Bruck beat read above 28 ranks (1.27 against 1.47 us at
 * 32, 1.54 against 2.03 at 48); where it does, only pairwise and the tree
 * compete, and pairwise, which folds the ranks above a power of two in and
 * out, and read cross at about 40 ranks (read 1.68 against 1.68 at 38, 1.78
 * against 1.82 at 41, 1.85 against 1.82 at 43; 2.03 against 1.82 at 48),
 * pairwise ahead at 32 too (1.40 against 1.47): a cap of 40 keeps read within
 * 3 % of the faster. */
#define AUTO_ALLREDUCE_READ_MAX_RANKS 28
#define AUTO_ALLREDUCE_READ_MAX_RANKS_ORDERED 40
/* the largest communicator auto was measured on; above it, on one node, the
 * (k+1)-nomial tree's serial parents lose to pairwise in the cache-line model
 * at 103 of the 110 allreduce cells of docs/perf/model/grid.txt (the tree up
 * to 1.55x pairwise's time), whatever the rounds say; the tree wins some of
 * 49-512 B (up to 1.12x: floating-point sums of that size at 49-63 ranks are
 * 8-11 % slower than with the rounds' choice) */
#define AUTO_MEASURED_MAX_RANKS 16

static int allreduce_as(const coll_rdma_config_t *cfg, int forced, const call_facts_t *f,
                        int *why)
{
    int comm_size = f->comm_size;
    size_t bytes = f->bytes;
    bool all_direct = f->all_direct, order_independent = f->order_independent;
    bool reducible_type = f->reducible_type, reducible_op = f->reducible_op;
    coll_rdma_nway_plan_t plan;

    if (COLL_RDMA_ALG_FALLBACK == forced) {
        return fallback(why, COLL_RDMA_WHY_FORCED);
    }
    if (!reducible_type) {
        return fallback(why, COLL_RDMA_WHY_DATATYPE);
    }
    if (!reducible_op) {
        return fallback(why, COLL_RDMA_WHY_OP);
    }
    /* Open MPI's datatype engine packs in int counts of bytes */
    if (bytes > cfg->allreduce_max_bytes || bytes > INT32_MAX) {
        return fallback(why, COLL_RDMA_WHY_TOO_LARGE);
    }
    if (COLL_RDMA_ALG_RING == forced) {
        return COLL_RDMA_ALG_RING; /* any size: window memory is per segment */
    }
    if ((COLL_RDMA_ALG_HIER == forced || COLL_RDMA_ALG_NPORT == forced) && 0 == f->nnodes) {
        return fallback(why, COLL_RDMA_WHY_WINDOW);
    }
    if (COLL_RDMA_ALG_RSAG == forced) {
        /* any size: window memory is per segment */
        return all_direct ? COLL_RDMA_ALG_RSAG : fallback(why, COLL_RDMA_WHY_WINDOW);
    }
    if (COLL_RDMA_ALG_READ == forced) {
        if (!all_direct) {
            return fallback(why, COLL_RDMA_WHY_WINDOW);
        }
        return bytes > cfg->allreduce_read_max_bytes ? fallback(why, COLL_RDMA_WHY_TOO_LARGE)
                                                     : COLL_RDMA_ALG_READ;
    }
    if (COLL_RDMA_ALG_HIER == forced || COLL_RDMA_ALG_NPORT == forced) {
        return forced; /* larger than its slots: in chunks (coll_rdma_plan()) */
    }
    if (bytes > cfg->allreduce_short_max_bytes) {
        /* Beyond the slots of the other algorithms.  The ring beat coll/tuned,
         * sm and han from 32 KiB to 1 MiB at 4 and 8 ranks on one node, not at
         * 16 (docs/tuning.md): auto takes it up to allreduce_ring_max_ranks,
         * on one node only (across namespace hosts it took 4.1-4.7x coll/tuned's
         * time at 64 KiB and 1 MiB; on RDMA networks it is not measured). */
        return COLL_RDMA_ALG_AUTO == forced && all_direct && bytes <= AUTO_ALLREDUCE_MAX_BYTES
                       && comm_size <= cfg->allreduce_ring_max_ranks
                       && (comm_size > 2 || bytes <= AUTO_RING_TWO_RANKS_MAX_BYTES)
                   ? COLL_RDMA_ALG_RING
                   : fallback(why, COLL_RDMA_WHY_TOO_LARGE);
    }
    if (COLL_RDMA_ALG_NWAY == forced) {
        /* not adaptable for this P: Bruck's combine works for every P */
        return 0 == coll_rdma_nway_plan(comm_size, cfg->allreduce_nway_n, &plan)
                   ? COLL_RDMA_ALG_NWAY
                   : COLL_RDMA_ALG_BRUCK;
    }
    if (COLL_RDMA_ALG_AUTO != forced) {
        return forced; /* forced nway and bruck even where the order shows */
    }
    /* across nodes, only the leaders send over the network */
    if (two_level(f)) {
        return COLL_RDMA_ALG_HIER;
    }
    /* read combines P - 1 contributions per rank: at 2 and 4 ranks pairwise's
     * exchanges are as fast or faster (8 B: 0.40 against 0.46 us at 2 ranks,
     * 0.60 against 0.61 at 4), from 8 ranks read wins (docs/tuning.md), to
     * 28 or 40 ranks by the model */
    if (all_direct && bytes <= cfg->allreduce_read_max_bytes
        && comm_size > AUTO_ALLREDUCE_READ_MIN_RANKS
        && comm_size <= (order_independent ? AUTO_ALLREDUCE_READ_MAX_RANKS
                                           : AUTO_ALLREDUCE_READ_MAX_RANKS_ORDERED)) {
        return COLL_RDMA_ALG_READ;
    }
    /*
     * Fewest dependent transfers: pairwise needs log2(p2) exchanges plus
     * fold and back when P is not a power of two; the tree needs up and
     * down, 2 * ceil(log_{k+1} P), and its parents send serially; n-way and
     * Bruck need ceil(log_{n+1} P) rounds of up to n messages each.  n-way
     * and Bruck combine in rank-dependent orders, so they compete only when
     * the (op, type) pair gives the same bits in every order; pairwise and
     * the tree compute one expression for all ranks.  Ties go to pairwise,
     * then n-way, then Bruck (n-way reduces less).  (P = 3: tree 2 against
     * pairwise 3; P = 2, 4, 8: pairwise.)
     */
    {
        int p2 = coll_rdma_pow2_floor(comm_size);
        int best = COLL_RDMA_ALG_PAIRWISE;
        int cost = coll_rdma_pairwise_steps(comm_size) + (p2 < comm_size ? 2 : 0);
        int tree = 2 * coll_rdma_sched_rounds(comm_size, cfg->allreduce_ktree_degree + 1);

        if (order_independent) {
            int nway = coll_rdma_sched_rounds(comm_size, cfg->allreduce_nway_n + 1);
            int bruck = coll_rdma_sched_rounds(comm_size, cfg->allreduce_bruck_n + 1);
            if (nway < cost && 0 == coll_rdma_nway_plan(comm_size, cfg->allreduce_nway_n, &plan)) {
                best = COLL_RDMA_ALG_NWAY;
                cost = nway;
            }
            if (bruck < cost) {
                best = COLL_RDMA_ALG_BRUCK;
                cost = bruck;
            }
        }
        if (all_direct && comm_size > AUTO_MEASURED_MAX_RANKS) {
            return best;
        }
        return tree < cost ? COLL_RDMA_ALG_KTREE : best;
    }
}

int coll_rdma_decide_allreduce(const coll_rdma_config_t *cfg, int comm_size, size_t bytes,
                               bool reducible_type, bool reducible_op, bool order_independent,
                               const coll_rdma_reach_t *reach, bool fallback_wrong, bool *rescued,
                               int *why)
{
    call_facts_t f = facts(comm_size, reach, bytes);
    bool all_direct = reach->all_direct;
    int decided;

    f.reducible_type = reducible_type;
    f.reducible_op = reducible_op;
    f.order_independent = order_independent;
    f.fallback_wrong = fallback_wrong;
    f.rsag_segment = reach->rsag_allreduce;
    if (cfg->allreduce_staleness > 0 && reducible_type && reducible_op && all_direct && bytes > 0
        && bytes <= cfg->allreduce_ssp_max_bytes
        && COLL_RDMA_ALG_FALLBACK != cfg->alg[COLL_RDMA_ALLREDUCE]) {
        *rescued = false;
        return COLL_RDMA_ALG_SSP;
    }
    decided = decide(cfg, COLL_RDMA_ALLREDUCE, allreduce_as, &f, why);
    /* any size: rsag's and the ring's window memory is per segment; rsag
     * (one node: it reads every window) where the window holds its
     * configured segment whole (rsag_rescues()), else the ring */
    return rescue(cfg, allreduce_as, &f, decided,
                  rsag_rescues(cfg, &f) ? COLL_RDMA_ALG_RSAG : COLL_RDMA_ALG_RING, rescued, why);
}

/* auto: Bruck's allgather up to this many bytes gathered (MPICH's 80 KB, seed 000 B.7) */
#define AUTO_ALLGATHER_BRUCK_BYTES (80 * 1024)

static int allgather_as(const coll_rdma_config_t *cfg, int alg, const call_facts_t *f, int *why)
{
    int comm_size = f->comm_size;
    size_t block_bytes = f->bytes;

    if (COLL_RDMA_ALG_FALLBACK == alg) {
        return fallback(why, COLL_RDMA_WHY_FORCED);
    }
    if (COLL_RDMA_ALG_READ == alg && !f->all_direct) {
        return fallback(why, COLL_RDMA_WHY_WINDOW);
    }
    /* one cap for bruck and ring; read: allgather_max_bytes (coll_rdma_window_block_cap) */
    if (block_bytes > coll_rdma_window_block_cap(cfg, comm_size, COLL_RDMA_ALLGATHER, alg)) {
        return fallback(why, COLL_RDMA_WHY_TOO_LARGE);
    }
    if (COLL_RDMA_ALG_AUTO != alg) {
        return alg;
    }
    /* log2 P rounds while the data is small, P-1 neighbour steps beyond */
    return (size_t) comm_size * block_bytes <= AUTO_ALLGATHER_BRUCK_BYTES ? COLL_RDMA_ALG_BRUCK
                                                                         : COLL_RDMA_ALG_RING;
}

int coll_rdma_decide_allgather(const coll_rdma_config_t *cfg, int comm_size, size_t block_bytes,
                               const coll_rdma_reach_t *reach, int *why)
{
    call_facts_t f = facts(comm_size, reach, block_bytes);

    return decide(cfg, COLL_RDMA_ALLGATHER, allgather_as, &f, why);
}

static int alltoall_as(const coll_rdma_config_t *cfg, int alg, const call_facts_t *f, int *why)
{
    if (COLL_RDMA_ALG_FALLBACK == alg) {
        return fallback(why, COLL_RDMA_WHY_FORCED);
    }
    if (COLL_RDMA_ALG_READ == alg && !f->all_direct) {
        return fallback(why, COLL_RDMA_WHY_WINDOW);
    }
    if (COLL_RDMA_ALG_AUTO == alg) {
        /* Bruck sends log2 P messages but moves each block log2 P / 2 times;
         * on one node direct writes beat it at every block size measured, at
         * 4, 8 and 16 ranks (docs/tuning.md), MPICH's 256-byte rule included */
        alg = COLL_RDMA_ALG_DIRECT;
    }
    if (f->bytes > coll_rdma_window_block_cap(cfg, f->comm_size, COLL_RDMA_ALLTOALL, alg)) {
        return fallback(why, COLL_RDMA_WHY_TOO_LARGE);
    }
    return alg;
}

int coll_rdma_decide_alltoall(const coll_rdma_config_t *cfg, int comm_size, size_t block_bytes,
                              const coll_rdma_reach_t *reach, int *why)
{
    call_facts_t f = facts(comm_size, reach, block_bytes);

    return decide(cfg, COLL_RDMA_ALLTOALL, alltoall_as, &f, why);
}

static int reduce_as(const coll_rdma_config_t *cfg, int alg, const call_facts_t *f, int *why)
{
    size_t bytes = f->bytes;

    if (COLL_RDMA_ALG_FALLBACK == alg) {
        return fallback(why, COLL_RDMA_WHY_FORCED);
    }
    if (!f->reducible_type) {
        return fallback(why, COLL_RDMA_WHY_DATATYPE);
    }
    if (!f->reducible_op) {
        return fallback(why, COLL_RDMA_WHY_OP);
    }
    if (COLL_RDMA_ALG_RSAG == alg) {
        /* window memory is per segment: reduce_max_bytes alone limits it */
        if (!f->all_direct) {
            return fallback(why, COLL_RDMA_WHY_WINDOW);
        }
        return bytes > cfg->reduce_max_bytes || bytes > INT32_MAX
                   ? fallback(why, COLL_RDMA_WHY_TOO_LARGE)
                   : COLL_RDMA_ALG_RSAG;
    }
    if (COLL_RDMA_ALG_HIER == alg && 0 == f->nnodes) {
        return fallback(why, COLL_RDMA_WHY_WINDOW);
    }
    if (bytes > coll_rdma_window_block_cap(cfg, f->comm_size, COLL_RDMA_REDUCE,
                                           COLL_RDMA_ALG_KNOMIAL)) {
        return fallback(why, COLL_RDMA_WHY_TOO_LARGE);
    }
    /* auto: the k-nomial tree also across nodes.  Over consecutive ranks per
     * node it is node-aware by itself (its first rounds stay inside a node,
     * then one rank per node sends on) and combines a node's inputs in
     * ceil(log_k ppn) rounds instead of the carrier's ppn - 1 in turn; across
     * 4 namespace hosts x 2 hier took 1.08-1.26x its time
     * (docs/performance.md). */
    return COLL_RDMA_ALG_HIER == alg ? COLL_RDMA_ALG_HIER : COLL_RDMA_ALG_KNOMIAL;
}

int coll_rdma_decide_reduce(const coll_rdma_config_t *cfg, int comm_size, size_t bytes,
                            bool reducible_type, bool reducible_op, const coll_rdma_reach_t *reach,
                            bool fallback_wrong, bool *rescued, int *why)
{
    call_facts_t f = facts(comm_size, reach, bytes);
    int decided, any_size;

    f.reducible_type = reducible_type;
    f.reducible_op = reducible_op;
    f.fallback_wrong = fallback_wrong;
    f.rsag_segment = reach->rsag_reduce;
    decided = decide(cfg, COLL_RDMA_REDUCE, reduce_as, &f, why);
    /*
     * Any size: rsag (window memory per segment) where every window is
     * mapped and holds its configured segment (rsag_rescues()); else a tree
     * in chunks of at most the reduce slot (coll_rdma_plan()), each chunk
     * one instance: the asked hier where it has a node map, else the
     * k-nomial tree.  A chunk must hold one element of every type the
     * self-test can mark (<= 8 bytes); where it cannot, rsag in the window's
     * segments, even cut ones, if it has any.
     */
    if (rsag_rescues(cfg, &f)) {
        any_size = COLL_RDMA_ALG_RSAG;
    } else if (coll_rdma_window_block_cap(cfg, comm_size, COLL_RDMA_REDUCE, COLL_RDMA_ALG_KNOMIAL)
               < 8) {
        any_size = reach->all_direct && f.rsag_segment > 0 ? COLL_RDMA_ALG_RSAG
                                                           : COLL_RDMA_ALG_FALLBACK;
    } else {
        any_size = COLL_RDMA_ALG_HIER == asked(cfg, COLL_RDMA_REDUCE, comm_size, bytes,
                                               reach->all_direct)
                           && f.nnodes > 0
                       ? COLL_RDMA_ALG_HIER
                       : COLL_RDMA_ALG_KNOMIAL;
    }
    return rescue(cfg, reduce_as, &f, decided, any_size, rescued, why);
}
