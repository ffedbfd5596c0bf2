/*
 * Bounds of the window geometry, the plans and the credit reads (code review
 * of 2026-11-27: F4, F10, F11).  No MPI, no UCX: the layout, the plans and
 * the arrival protocol are linked, the transport below them is stubbed here.
 *
 *  layout   coll_rdma_layout() over extreme parameter values (each size
 *           parameter alone and all together at 0, 1, the line, 1 GiB,
 *           2^31, 2^62, SIZE_MAX - 63, SIZE_MAX ..., with the deepest rings
 *           and staleness, at 2 to 2^16 ranks), as the MCA layer hands them
 *           over (raw: a size_t MCA parameter takes -1 as SIZE_MAX) and as
 *           the component clamps them (coll_rdma_config_bound_sizes()).
 *           Raw, the layout may fail (no window); where it succeeds, and
 *           always once clamped, every slot must hold what the decision
 *           layer may serve of its algorithm under that configuration (one
 *           instance: the message, a block, a chunk or a segment; the
 *           bounds of coll_rdma_decision.c, written out in check_slots()),
 *           and the regions must lie one after the other inside the window.
 *  plans    coll_rdma_plan() refuses an instance larger than its slots
 *           (a configuration or a size the window was not laid out for)
 *           with OMPI_ERR_NOT_SUPPORTED, and a chunk or segment smaller
 *           than one element (F10: plan_chunks never advanced), at once;
 *           and serves what fits.
 *  credits  coll_rdma_window_credit_test() over the put path: a get left in
 *           flight for one peer is not taken as another peer's credit (F11);
 *           and the default window budget (test_bounds_credits.c, with the
 *           transport's stubs).
 *
 * Prints failures (the first 20), then "test_bounds: PASS" or the count of
 * failures; exits non-zero on failure.  A plan that loops is cut by alarm()
 * and an address-space limit, so the test fails instead of hanging.
 */
#include "ompi_config.h"

#include "test_bounds.h"

#include "coll_rdma_layout.h"
#include "coll_rdma_names.h"
#include "coll_rdma_plans.h"
#include "coll_rdma_rules.h"
#include "coll_rdma_sched.h"
#include "coll_rdma_topo.h"
#include "coll_rdma_window_protocol.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

int failures;

static size_t min2(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* The payload of a slot of `size` bytes. */
static size_t room(size_t size)
{
    return size > COLL_RDMA_SLOT_HEADER ? size - COLL_RDMA_SLOT_HEADER : 0;
}

/* ---- layout ------------------------------------------------------------------------------- */

/* Bytes a packed Bruck half needs: a line per slot and every block. */
static size_t bruck_need(int P, bool alltoall, size_t stride)
{
    int slots = coll_rdma_sched_rounds(P, COLL_RDMA_BRUCK_RADIX) * (COLL_RDMA_BRUCK_RADIX - 1);

    return (size_t) slots * COLL_RDMA_LINE
           + (size_t) coll_rdma_bruck_blocks_before(P, COLL_RDMA_BRUCK_RADIX, slots, alltoall)
                 * stride;
}

/* The end of region r: where its slot nslots would start (checked). */
static bool region_end(const coll_rdma_layout_t *l, const coll_rdma_region_t *r, size_t *end)
{
    size_t span;

    *end = 0;
    if (0 == r->packed) {
        return !__builtin_mul_overflow((size_t) r->nslots, r->stride, &span)
               && !__builtin_add_overflow(r->off, span, end);
    }
    *end = coll_rdma_layout_region_slot(l, r, r->nslots);
    return *end >= r->off;
}

static int cmp_region(const void *a, const void *b)
{
    const coll_rdma_region_t *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/*
 * The bcast rings at extreme values: each slot holds a segment of the
 * plans' (bcast_segment, bcast_read_segment) of at most bcast_max_bytes;
 * a ring is cut only on one node (not for auto's put path), and the read
 * ring then still holds what auto's table reads.  What rules and forced
 * algorithms send through them: tests/unit/test_rings.c.
 */
static void bcast_rings(const char *what, const coll_rdma_layout_t *l,
                        const coll_rdma_config_t *cfg)
{
    size_t msg = COLL_RDMA_MESSAGE_BYTES_MAX, max = min2(cfg->bcast_max_bytes, msg);
    size_t table = coll_rdma_auto_bcast_read_max(l->comm_size);
    bool cut = l->bcast_tree_cut || l->bcast_read_cut;

    CHECK(room(l->bcast_slot_size) >= min2(l->bcast_segment, max)
              && room(l->bcast_read_slot_size) >= min2(l->bcast_read_segment, max),
          "%s: bcast slots hold %zu and %zu bytes, segments %zu and %zu", what,
          room(l->bcast_slot_size), room(l->bcast_read_slot_size), l->bcast_segment,
          l->bcast_read_segment);
    CHECK(!cut || (cfg->one_node && !cfg->auto_emulated),
          "%s: bcast segments %zu and %zu of %zu configured, cut off one node", what,
          l->bcast_segment, l->bcast_read_segment, cfg->bcast_segment_bytes);
    CHECK(COLL_RDMA_ALG_AUTO != cfg->alg[COLL_RDMA_BCAST]
              || room(l->bcast_read_slot_size) >= min2(min2(table, cfg->bcast_segment_bytes), max),
          "%s: the read ring holds %zu bytes, auto reads up to %zu", what,
          room(l->bcast_read_slot_size), min2(table, max));
}

/*
 * Whether every slot of `l` holds what the decision may serve under cfg
 * (coll_rdma_decision.c): `rsag` where the rsag and read regions are in use
 * (their algorithms forced here).  One instance each: a bcast's segment
 * (read; knomial and hier cut chunks of it) of at most bcast_max_bytes; the
 * slot allreduces (and the two-level ones' chunks) up to
 * min(allreduce_short_max_bytes, allreduce_max_bytes); read up to
 * min(allreduce_read_max_bytes, allreduce_max_bytes); the ring's and the
 * algorithms by reading's segments (rsag serves any size where Open MPI's
 * own reduction is wrong, so its segment whole); the block caps the
 * decision reads (coll_rdma_window_block_cap(), the same on every rank);
 * the SSP ring's slots.  Every call is at most 2^31 - 1 bytes.
 */
static void check_slots(const char *what, const coll_rdma_layout_t *l,
                        const coll_rdma_config_t *cfg, bool rsag)
{
    int P = l->comm_size;
    size_t msg = COLL_RDMA_MESSAGE_BYTES_MAX, ag, a2a_direct, a2a_bruck, reduce;
    coll_rdma_region_t regions[COLL_RDMA_MAX_REGIONS];

    bcast_rings(what, l, cfg);
    CHECK(room(l->ar_slot_size) >= min2(cfg->allreduce_short_max_bytes,
                                        min2(cfg->allreduce_max_bytes, msg)),
          "%s: an allreduce slot holds %zu bytes, the slot algorithms serve up to %zu", what,
          room(l->ar_slot_size), min2(cfg->allreduce_short_max_bytes, cfg->allreduce_max_bytes));
    CHECK(room(l->read_ar_slot_size) >= min2(cfg->allreduce_read_max_bytes,
                                             min2(cfg->allreduce_max_bytes, msg)),
          "%s: a read allreduce slot holds %zu bytes, read serves up to %zu", what,
          room(l->read_ar_slot_size), cfg->allreduce_read_max_bytes);
    CHECK(l->ring_segment_bytes == cfg->allreduce_ring_segment_bytes
              && room(l->ring_slot_size) >= l->ring_segment_bytes,
          "%s: a ring slot holds %zu bytes of a %zu-byte segment", what, room(l->ring_slot_size),
          cfg->allreduce_ring_segment_bytes);
    if (rsag) { /* forced: the configured segments whole */
        size_t seg = min2(cfg->allreduce_rsag_segment_bytes, msg);
        CHECK(room(l->rsag_allreduce.slot_size) >= seg && room(l->rsag_reduce.slot_size) >= seg
                  && room(l->read_allgather.slot_size) >= seg
                  && room(l->read_alltoall.slot_size)
                         >= coll_rdma_window_a2a_read_segment(cfg, P),
              "%s: a segment slot holds %zu bytes of a %zu-byte segment", what,
              room(l->rsag_allreduce.slot_size), seg);
        CHECK(l->rsag_allreduce.segment == cfg->allreduce_rsag_segment_bytes
                  && l->rsag_reduce.segment == cfg->allreduce_rsag_segment_bytes
                  && l->read_allgather.segment == cfg->allreduce_rsag_segment_bytes
                  && l->read_alltoall.segment == coll_rdma_window_a2a_read_segment(cfg, P),
              "%s: forced, the segments are %zu, %zu, %zu and %zu bytes", what,
              l->rsag_allreduce.segment, l->rsag_reduce.segment, l->read_allgather.segment,
              l->read_alltoall.segment);
    }
    CHECK(room(l->rsag_allreduce.slot_size) >= l->rsag_allreduce.segment
              && room(l->rsag_reduce.slot_size) >= l->rsag_reduce.segment
              && room(l->read_allgather.slot_size) >= l->read_allgather.segment
              && room(l->read_alltoall.slot_size) >= l->read_alltoall.segment,
          "%s: a segment slot does not hold its region's segment", what);
    ag = coll_rdma_window_block_cap(cfg, P, COLL_RDMA_ALLGATHER, COLL_RDMA_ALG_BRUCK);
    CHECK(ag == l->ag_block && ag == coll_rdma_window_block_cap(cfg, P, COLL_RDMA_ALLGATHER,
                                                                COLL_RDMA_ALG_RING)
              && room(l->ag_ring_slot) >= ag && l->ag_stride >= ag
              && l->ag_bruck_half >= bruck_need(P, false, l->ag_stride),
          "%s: the allgather slots do not hold blocks of %zu bytes", what, ag);
    a2a_direct = coll_rdma_window_block_cap(cfg, P, COLL_RDMA_ALLTOALL, COLL_RDMA_ALG_DIRECT);
    a2a_bruck = coll_rdma_window_block_cap(cfg, P, COLL_RDMA_ALLTOALL, COLL_RDMA_ALG_BRUCK);
    CHECK(a2a_direct == l->a2a_direct_block && room(l->a2a_direct_slot) >= a2a_direct
              && a2a_bruck == l->a2a_bruck_block && l->a2a_bruck_stride >= a2a_bruck
              && l->a2a_bruck_half >= bruck_need(P, true, l->a2a_bruck_stride),
          "%s: the alltoall slots do not hold blocks of %zu / %zu bytes", what, a2a_direct,
          a2a_bruck);
    reduce = coll_rdma_window_block_cap(cfg, P, COLL_RDMA_REDUCE, COLL_RDMA_ALG_KNOMIAL);
    CHECK(reduce == l->reduce_bytes && room(l->reduce_slot_size) >= reduce
              && coll_rdma_window_block_cap(cfg, P, COLL_RDMA_REDUCE, COLL_RDMA_ALG_HIER) == reduce,
          "%s: a reduce slot holds %zu bytes, the tree serves %zu", what, room(l->reduce_slot_size),
          reduce);
    CHECK(cfg->allreduce_staleness <= 0 || room(l->ssp_slot_size) >= cfg->allreduce_ssp_max_bytes,
          "%s: an ssp slot holds %zu bytes, ssp serves up to %zu", what, room(l->ssp_slot_size),
          cfg->allreduce_ssp_max_bytes);
    CHECK(l->scratch_size >= 2 * room(l->ar_slot_size) && l->scratch_size >= reduce,
          "%s: a scratch of %zu bytes", what, l->scratch_size);
    /* the regions one after the other, inside the window */
    CHECK(l->nregions <= COLL_RDMA_MAX_REGIONS, "%s: %d regions", what, l->nregions);
    memcpy(regions, l->regions, sizeof(regions));
    qsort(regions, (size_t) l->nregions, sizeof(regions[0]), cmp_region);
    for (int r = 0; r < l->nregions; ++r) {
        size_t end;
        bool ok = region_end(l, &regions[r], &end);

        CHECK(ok && end <= l->size && (r + 1 == l->nregions || end <= regions[r + 1].off),
              "%s: region at %zu (%d slots of %zu) ends at %zu%s, the next at %zu, the window at "
              "%zu",
              what, regions[r].off, regions[r].nslots, regions[r].stride, end,
              ok ? "" : " (wrapped)", r + 1 < l->nregions ? regions[r + 1].off : 0, l->size);
        /* the retire words (not a region): clear of every region */
        CHECK(!ok || end <= l->off_retire || regions[r].off >= l->off_retire + 8 * (size_t) P,
              "%s: region at %zu (to %zu) overlaps the retire words at %zu (%d of them)", what,
              regions[r].off, end, l->off_retire, P);
    }
    CHECK(l->off_retire % 8 == 0 && l->off_retire + 8 * (size_t) P <= l->size,
          "%s: the retire words at %zu (%d of them) pass the window's %zu bytes", what,
          l->off_retire, P, l->size);
}

/* Lay out `cfg` raw and clamped at P ranks and check both (raw: where it succeeds). */
static void lay_out(const char *what, const coll_rdma_config_t *raw, int P, bool rsag)
{
    static coll_rdma_layout_t l;
    coll_rdma_config_t cfg = *raw;
    char name[256];

    memset(&l, 0, sizeof(l));
    snprintf(name, sizeof(name), "%s at %d ranks, raw", what, P);
    if (OMPI_SUCCESS == coll_rdma_layout(&l, &cfg, P, 0)) {
        check_slots(name, &l, &cfg, rsag);
    }
    (void) coll_rdma_config_bound_sizes(&cfg, NULL, NULL);
    for (int i = 0; i < coll_rdma_nsize_params; ++i) {
        const coll_rdma_size_param_t *p = &coll_rdma_size_params[i];
        size_t v = *(const size_t *) ((const char *) &cfg + p->offset);
        CHECK(v >= p->lo && v <= p->hi, "%s: clamped %s = %zu outside [%zu, %zu]", what, p->name,
              v, p->lo, p->hi);
    }
    snprintf(name, sizeof(name), "%s at %d ranks, clamped", what, P);
    memset(&l, 0, sizeof(l));
    CHECK(OMPI_SUCCESS == coll_rdma_layout(&l, &cfg, P, 0), "%s: no layout", name);
    check_slots(name, &l, &cfg, rsag);
}

static void test_layout(void)
{
    static const size_t values[] = {0, 1, 63, 64, 65, 4096, (size_t) 1 << 30,
                                    ((size_t) 1 << 30) + 1, (size_t) INT32_MAX, (size_t) 1 << 31,
                                    (size_t) 1 << 40, (size_t) 1 << 62, ((size_t) 1 << 62) + 64,
                                    SIZE_MAX / 2, SIZE_MAX - 63, SIZE_MAX - 15, SIZE_MAX};
    static const int sizes[] = {2, 3, 64, 4096, 1 << 16};
    int nv = (int) (sizeof(values) / sizeof(values[0]));

    for (int variant = 0; variant < 8; ++variant) {
        coll_rdma_config_t base = COLL_RDMA_CONFIG_DEFAULTS;
        bool rsag = variant & 1;

        base.one_node = variant >= 4; /* the bcast rings cut to their reach */
        base.auto_emulated = 6 == variant; /* but whole for auto's put path */

        if (rsag) { /* the segment regions in use: their algorithms forced */
            base.alg[COLL_RDMA_ALLREDUCE] = base.alg[COLL_RDMA_REDUCE] = COLL_RDMA_ALG_RSAG;
            base.alg[COLL_RDMA_ALLGATHER] = base.alg[COLL_RDMA_ALLTOALL] = COLL_RDMA_ALG_READ;
        }
        if (variant & 2) { /* the deepest rings and staleness */
            base.bcast_slots = 1024;
            base.bcast_small_slots = 4096;
            base.allreduce_ring_slots = 1024;
            base.allreduce_staleness = COLL_RDMA_STALENESS_MAX;
        }
        for (int s = 0; s < (int) (sizeof(sizes) / sizeof(sizes[0])); ++s) {
            for (int v = 0; v < nv; ++v) {
                coll_rdma_config_t all = base;
                char what[160];

                for (int i = 0; i < coll_rdma_nsize_params; ++i) {
                    coll_rdma_config_t one = base;
                    *(size_t *) ((char *) &one + coll_rdma_size_params[i].offset) = values[v];
                    *(size_t *) ((char *) &all + coll_rdma_size_params[i].offset) = values[v];
                    snprintf(what, sizeof(what), "variant %d, %s = %zu", variant,
                             coll_rdma_size_params[i].name, values[v]);
                    lay_out(what, &one, sizes[s], rsag);
                }
                snprintf(what, sizeof(what), "variant %d, every size parameter = %zu", variant,
                         values[v]);
                lay_out(what, &all, sizes[s], rsag);
            }
        }
    }
}

/* ---- plans -------------------------------------------------------------------------------- */

static ompi_datatype_t elem; /* only super.size is read */
static char buf_s[1 << 16], buf_r[1 << 16];

/* A window of P_PLAN ranks on one node, every window mapped, laid out for `cfg`. */
static void plan_window(coll_rdma_window_t *w, const coll_rdma_config_t *cfg)
{
    static int leaders[P_PLAN], local[P_PLAN], node_of[P_PLAN], order[P_PLAN], pos[P_PLAN];
    int64_t leader_of[P_PLAN] = {0};
    uint64_t hash[P_PLAN] = {0};

    memset(w, 0, sizeof(*w));
    CHECK(OMPI_SUCCESS == coll_rdma_window_layout(w, cfg, P_PLAN, 0), "plan window: no layout");
    w->all_direct = true;
    w->leaders = leaders;
    w->local = local;
    w->node_of = node_of;
    w->node_order = order;
    w->node_pos = pos;
    coll_rdma_topo_set_nodes(w, leader_of, hash);
}

static const char *planning; /* the plan under way, for the alarm */

static void stuck(int sig)
{
    (void) sig;
    printf("FAIL plan %s did not return in 20 s (a loop that never advances)\n", planning);
    fflush(stdout);
    _exit(1);
}

/* Plan (coll, alg) of `bytes` (elements of `unit` bytes for reductions)
 * under op_cfg on w; returns the plan's result. */
static int plan(coll_rdma_window_t *w, const coll_rdma_config_t *op_cfg, int coll, int alg,
                size_t bytes, size_t unit)
{
    static char name[96];
    static coll_rdma_op_t op;
    bool reduction = COLL_RDMA_ALLREDUCE == coll || COLL_RDMA_REDUCE == coll;
    int rc;

    memset(&op, 0, sizeof(op));
    elem.super.size = unit;
    op.win = w;
    op.cfg = op_cfg;
    op.coll = coll;
    op.alg = alg;
    op.bytes = bytes;
    op.count = reduction ? bytes / unit : 0;
    op.dtype = reduction ? &elem : NULL;
    op.root = 1;
    op.sbuf = buf_s;
    op.rbuf = buf_r;
    op.pending = op.pending_inline;
    coll_rdma_prog_init(&op.prog);
    snprintf(name, sizeof(name), "(collective %d, algorithm %d, %zu bytes of %zu-byte elements)",
             coll, alg, bytes, unit);
    planning = name;
    alarm(20); /* a plan that never advances fails the test, not the suite's timeout */
    rc = coll_rdma_plan(&op);
    alarm(0);
    coll_rdma_prog_fini(&op.prog);
    return rc;
}

static void expect(int rc, int want, const char *what)
{
    CHECK(rc == want, "plan %s returned %d, expected %d", what, rc, want);
}

/*
 * The segment regions' plans cut messages into the window's segments, not
 * the configuration's: they serve under a configuration of larger segments;
 * refuse a window without segments (they would never advance) or whose
 * segment its slots do not hold; and serve, in several segments, a message
 * larger than a segment that rules reaching 100 bytes sized to 128 (the
 * alltoall's: the configured 64 per destination).
 */
static void test_segment_plans(const coll_rdma_config_t *cfg, const coll_rdma_config_t *big)
{
    static coll_rdma_window_t w;
    static const struct {
        int coll, alg;
        size_t unit;
        const char *name;
    } segs[] = {{COLL_RDMA_ALLREDUCE, COLL_RDMA_ALG_RSAG, 16, "rsag allreduce"},
                {COLL_RDMA_REDUCE, COLL_RDMA_ALG_RSAG, 16, "rsag reduce"},
                {COLL_RDMA_ALLGATHER, COLL_RDMA_ALG_READ, 1, "read allgather"},
                {COLL_RDMA_ALLTOALL, COLL_RDMA_ALG_READ, 1, "read alltoall"}};
    coll_rdma_config_t named = *cfg, none = *cfg;
    char what[128], err[256];
    coll_rdma_rules_t *rules = coll_rdma_rules_parse_text(
        "allreduce 1- 0-100 rsag\nreduce 1- 0-100 rsag\n"
        "allgather 1- 0-100 read\nalltoall 1- 0-100 read\n",
        coll_rdma_names_vocab(), err, sizeof(err));

    named.alg[COLL_RDMA_ALLREDUCE] = named.alg[COLL_RDMA_REDUCE] = COLL_RDMA_ALG_AUTO;
    named.alg[COLL_RDMA_ALLGATHER] = named.alg[COLL_RDMA_ALLTOALL] = COLL_RDMA_ALG_AUTO;
    none = named;
    CHECK(NULL != rules, "segment rules: %s", err);
    named.rules = rules;
    for (size_t i = 0; i < sizeof(segs) / sizeof(segs[0]); ++i) {
        coll_rdma_rsag_region_t *r[] = {&w.rsag_allreduce, &w.rsag_reduce, &w.read_allgather,
                                        &w.read_alltoall};
        size_t want = COLL_RDMA_ALLTOALL == segs[i].coll ? 64 : 128;

        plan_window(&w, cfg);
        snprintf(what, sizeof(what), "%s in the window's segments, the configuration's larger",
                 segs[i].name);
        expect(plan(&w, big, segs[i].coll, segs[i].alg, 4096, segs[i].unit), OMPI_SUCCESS, what);
        r[i]->segment = room(r[i]->slot_size) + COLL_RDMA_LINE;
        snprintf(what, sizeof(what), "%s of segments larger than its slots", segs[i].name);
        expect(plan(&w, cfg, segs[i].coll, segs[i].alg, 4096, segs[i].unit),
               OMPI_ERR_NOT_SUPPORTED, what);
        plan_window(&w, &none);
        snprintf(what, sizeof(what), "%s on a window without its segments", segs[i].name);
        expect(plan(&w, &none, segs[i].coll, segs[i].alg, 4096, segs[i].unit),
               OMPI_ERR_NOT_SUPPORTED, what);
        plan_window(&w, &named);
        CHECK(r[i]->segment == want && room(r[i]->slot_size) >= want,
              "%s: rules reaching 100 bytes give a segment of %zu bytes in slots of %zu, not %zu",
              segs[i].name, r[i]->segment, room(r[i]->slot_size), want);
        snprintf(what, sizeof(what), "%s of 4096 bytes in segments of %zu", segs[i].name, want);
        expect(plan(&w, &named, segs[i].coll, segs[i].alg, 4096, segs[i].unit), OMPI_SUCCESS,
               what);
    }
    coll_rdma_rules_free(rules);
}

static void test_plans(void)
{
    coll_rdma_config_t cfg = COLL_RDMA_CONFIG_DEFAULTS, big;
    static coll_rdma_window_t w;
    static const int slot_algs[] = {COLL_RDMA_ALG_KTREE, COLL_RDMA_ALG_PAIRWISE,
                                    COLL_RDMA_ALG_NWAY, COLL_RDMA_ALG_BRUCK};
    char what[128];

    cfg.bcast_segment_bytes = 64;
    cfg.allreduce_short_max_bytes = 256;
    cfg.allreduce_read_max_bytes = 64;
    cfg.allreduce_ring_segment_bytes = 64;
    cfg.allreduce_rsag_segment_bytes = 256;
    cfg.reduce_max_bytes = 64;
    cfg.alg[COLL_RDMA_ALLREDUCE] = cfg.alg[COLL_RDMA_REDUCE] = COLL_RDMA_ALG_RSAG;
    cfg.alg[COLL_RDMA_ALLGATHER] = cfg.alg[COLL_RDMA_ALLTOALL] = COLL_RDMA_ALG_READ;
    plan_window(&w, &cfg);
    /* a configuration the window was not laid out for: larger segments */
    big = cfg;
    big.bcast_segment_bytes = 4096;
    big.allreduce_rsag_segment_bytes = 4096;
    for (int alg = COLL_RDMA_ALG_KNOMIAL; alg <= COLL_RDMA_ALG_HIER; ++alg) {
        if (NULL == coll_rdma_plans[COLL_RDMA_BCAST][alg]) {
            continue;
        }
        /* the plans cut a bcast into the window's segments, not the configuration's */
        snprintf(what, sizeof(what), "bcast %d of 4096 bytes in 64-byte slots", alg);
        expect(plan(&w, &big, COLL_RDMA_BCAST, alg, 4096, 1), OMPI_SUCCESS, what);
    }
    for (size_t i = 0; i < sizeof(slot_algs) / sizeof(slot_algs[0]); ++i) {
        snprintf(what, sizeof(what), "allreduce %d of one element past its slot", slot_algs[i]);
        expect(plan(&w, &cfg, COLL_RDMA_ALLREDUCE, slot_algs[i], room(w.ar_slot_size) + 16, 16),
               OMPI_ERR_NOT_SUPPORTED, what);
        snprintf(what, sizeof(what), "allreduce %d of its slot", slot_algs[i]);
        expect(plan(&w, &cfg, COLL_RDMA_ALLREDUCE, slot_algs[i], room(w.ar_slot_size), 16),
               OMPI_SUCCESS, what);
    }
    expect(plan(&w, &cfg, COLL_RDMA_ALLREDUCE, COLL_RDMA_ALG_READ, room(w.read_ar_slot_size) + 16,
                16),
           OMPI_ERR_NOT_SUPPORTED, "read allreduce past its slot");
    expect(plan(&w, &cfg, COLL_RDMA_ALLREDUCE, COLL_RDMA_ALG_READ, room(w.read_ar_slot_size), 16),
           OMPI_SUCCESS, "read allreduce of its slot");
    test_segment_plans(&cfg, &big);
    expect(plan(&w, &cfg, COLL_RDMA_ALLGATHER, COLL_RDMA_ALG_BRUCK, w.ag_block + 1, 1),
           OMPI_ERR_NOT_SUPPORTED, "bruck allgather of a block past its slots");
    expect(plan(&w, &cfg, COLL_RDMA_ALLGATHER, COLL_RDMA_ALG_RING, w.ag_block + 1, 1),
           OMPI_ERR_NOT_SUPPORTED, "ring allgather of a block past its slots");
    expect(plan(&w, &cfg, COLL_RDMA_ALLGATHER, COLL_RDMA_ALG_RING, w.ag_block, 1), OMPI_SUCCESS,
           "ring allgather of its slots");
    expect(plan(&w, &cfg, COLL_RDMA_ALLTOALL, COLL_RDMA_ALG_DIRECT, w.a2a_direct_block + 1, 1),
           OMPI_ERR_NOT_SUPPORTED, "direct alltoall of a block past its slots");
    expect(plan(&w, &cfg, COLL_RDMA_ALLTOALL, COLL_RDMA_ALG_BRUCK, w.a2a_bruck_block + 1, 1),
           OMPI_ERR_NOT_SUPPORTED, "bruck alltoall of a block past its slots");
    expect(plan(&w, &cfg, COLL_RDMA_ALLREDUCE, COLL_RDMA_ALG_SSP, 64, 16), OMPI_ERR_NOT_SUPPORTED,
           "ssp allreduce on a window without its ring");
    /* chunks and segments smaller than one element: refused at once (F10) */
    expect(plan(&w, &cfg, COLL_RDMA_REDUCE, COLL_RDMA_ALG_KNOMIAL, 1024, 128),
           OMPI_ERR_NOT_SUPPORTED, "knomial reduce of 128-byte elements in 64-byte slots");
    expect(plan(&w, &cfg, COLL_RDMA_ALLREDUCE, COLL_RDMA_ALG_RING, 1024, 128),
           OMPI_ERR_NOT_SUPPORTED, "ring allreduce of 128-byte elements in 64-byte segments");
    expect(plan(&w, &cfg, COLL_RDMA_REDUCE, COLL_RDMA_ALG_KNOMIAL, 1024, 16), OMPI_SUCCESS,
           "knomial reduce in chunks");
    cfg.allreduce_short_max_bytes = 8; /* below the minimum the component allows */
    plan_window(&w, &cfg);
    expect(plan(&w, &cfg, COLL_RDMA_ALLREDUCE, COLL_RDMA_ALG_HIER, 64, 16),
           OMPI_ERR_NOT_SUPPORTED, "hier allreduce in 8-byte chunks of 16-byte elements");
    expect(plan(&w, &cfg, COLL_RDMA_ALLREDUCE, COLL_RDMA_ALG_NPORT, 64, 16),
           OMPI_ERR_NOT_SUPPORTED, "nport allreduce in 8-byte chunks of 16-byte elements");
    cfg.allreduce_short_max_bytes = COLL_RDMA_ELEMENT_BYTES_MAX;
    plan_window(&w, &cfg);
    expect(plan(&w, &cfg, COLL_RDMA_ALLREDUCE, COLL_RDMA_ALG_HIER, 1024, 32), OMPI_SUCCESS,
           "hier allreduce in chunks of the smallest allreduce_short_max_bytes");
}

int main(void)
{
    struct rlimit as = {(rlim_t) 4 << 30, (rlim_t) 4 << 30};

    /* a plan that appends programs without end runs out of memory here,
     * not on the machine */
    (void) setrlimit(RLIMIT_AS, &as);
    setvbuf(stdout, NULL, _IOLBF, 0);
    signal(SIGALRM, stuck);
    test_layout();
    test_plans();
    test_credits();
    test_budget_default();
    if (0 == failures) {
        printf("test_bounds: PASS\n");
        return 0;
    }
    printf("test_bounds: %d failure(s)\n", failures);
    return 1;
}
