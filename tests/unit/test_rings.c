/*
 * Unit test of the bcast rings on one node (issue 36; coll_rdma_layout.c,
 * layout_bcast_rings(), and coll_rdma_decision.c, bcast_as()).  On a
 * communicator whose ranks are all on one node each ring holds what may
 * come through it: the k-nomial ring what a rule or the forced algorithm
 * sends through k-nomial or hier, the read ring that through read or hier
 * and what auto's table reads; a forced algorithm's rings are whole, and so
 * are both across nodes and for auto's put path (coll_rdma_auto_emulated).
 * Where a ring is cut and the windows turn out not all mapped, auto's trees
 * hand on (reason window); forced and rule-named algorithms still serve.
 * Windows laid out by the layout code itself, under the default rules,
 * tuning rules at odd reaches, and each algorithm forced.  No MPI.
 *
 * Prints failures, then "test_rings: PASS" or the count of failures.
 */
#include "ompi_config.h"

#include "coll_rdma_decision.h"
#include "coll_rdma_layout.h"
#include "coll_rdma_names.h"
#include "coll_rdma_rules.h"
#include "ompi/constants.h"

#include <stdio.h>
#include <string.h>

static int failures;

#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            printf("FAIL " __VA_ARGS__);                                                       \
            printf("\n");                                                                      \
            ++failures;                                                                        \
        }                                                                                      \
    } while (0)

static size_t max2(size_t a, size_t b)
{
    return a > b ? a : b;
}

static size_t min2(size_t a, size_t b)
{
    return a < b ? a : b;
}

static size_t room(size_t slot)
{
    return slot - COLL_RDMA_SLOT_HEADER;
}

/* The most bytes `alg` of bcast may carry at P ranks under cfg other than
 * through auto's table: SIZE_MAX where forced, the reach of the tuning and
 * default rules that name it, 0 otherwise. */
static size_t named(const coll_rdma_config_t *cfg, int alg, int P)
{
    if (alg == cfg->alg[COLL_RDMA_BCAST]) {
        return SIZE_MAX;
    }
    if (COLL_RDMA_ALG_AUTO != cfg->alg[COLL_RDMA_BCAST]) {
        return 0;
    }
    return max2(coll_rdma_rules_reach(cfg->rules, COLL_RDMA_BCAST, alg, P),
                coll_rdma_rules_reach(cfg->defaults, COLL_RDMA_BCAST, alg, P));
}

/*
 * Lay cfg out at P ranks and check both rings: each holds
 * min(what may come through it, bcast_segment_bytes, bcast_max_bytes) in
 * one slot; whole (the configured segment) off one node and for auto's put
 * path; a cut ring says so.
 */
static void rings(const char *what, const coll_rdma_config_t *cfg, int P)
{
    static coll_rdma_layout_t l;
    size_t full = min2(cfg->bcast_segment_bytes, cfg->bcast_max_bytes);
    size_t hier = named(cfg, COLL_RDMA_ALG_HIER, P);
    size_t tree = max2(named(cfg, COLL_RDMA_ALG_KNOMIAL, P), hier);
    size_t read = max2(named(cfg, COLL_RDMA_ALG_READ, P), hier);
    bool whole = !cfg->one_node || cfg->auto_emulated;

    if (COLL_RDMA_ALG_AUTO == cfg->alg[COLL_RDMA_BCAST]) {
        read = max2(read, coll_rdma_auto_bcast_read_max(P));
    }
    memset(&l, 0, sizeof(l));
    if (OMPI_SUCCESS != coll_rdma_layout(&l, cfg, P, 0)) {
        printf("FAIL %s at %d ranks: no layout\n", what, P);
        ++failures;
        return;
    }
    CHECK(room(l.bcast_slot_size) >= min2(tree, full)
              && room(l.bcast_read_slot_size) >= min2(read, full),
          "%s at %d ranks: the rings hold %zu and %zu bytes, %zu and %zu may come", what, P,
          room(l.bcast_slot_size), room(l.bcast_read_slot_size), min2(tree, full),
          min2(read, full));
    CHECK(!whole || (l.bcast_segment == cfg->bcast_segment_bytes
                     && l.bcast_read_segment == cfg->bcast_segment_bytes
                     && room(l.bcast_slot_size) >= full && room(l.bcast_read_slot_size) >= full),
          "%s at %d ranks: rings of %zu and %zu bytes where both must be whole (%zu)", what, P,
          room(l.bcast_slot_size), room(l.bcast_read_slot_size), full);
    CHECK(l.bcast_tree_cut == (room(l.bcast_slot_size) < full)
              && l.bcast_read_cut == (room(l.bcast_read_slot_size) < full),
          "%s at %d ranks: cut %d and %d, rings of %zu and %zu bytes of %zu", what, P,
          l.bcast_tree_cut, l.bcast_read_cut, room(l.bcast_slot_size),
          room(l.bcast_read_slot_size), full);
    /* a ring nothing may fill is a line: the memory the cut is for */
    CHECK(whole || tree > 0 || full <= COLL_RDMA_LINE
              || (l.bcast_tree_cut && COLL_RDMA_LINE == l.bcast_segment),
          "%s at %d ranks: a k-nomial ring nothing names holds %zu bytes", what, P,
          room(l.bcast_slot_size));
}

/* auto's (or the asked algorithm's) decision of a `bytes` bcast at P ranks
 * on a window with these facts: expect `want`. */
static void decide(const char *what, const coll_rdma_config_t *cfg, int P, size_t bytes,
                   coll_rdma_reach_t reach, int want)
{
    int why = -1, got = coll_rdma_decide_bcast(cfg, P, bytes, &reach, &why);

    CHECK(got == want, "%s: a bcast of %zu bytes at %d ranks took %s, expected %s", what, bytes,
          P, coll_rdma_alg_names[got], coll_rdma_alg_names[want]);
    CHECK(COLL_RDMA_ALG_FALLBACK != want || COLL_RDMA_WHY_WINDOW == why,
          "%s: handed on for reason %d, expected window", what, why);
}

/* The configuration of variant v: on one node (0), off it (1), auto's put
 * path (2), on one node without the default rules (3). */
static coll_rdma_config_t variant(int v, const coll_rdma_rules_t *defaults)
{
    coll_rdma_config_t cfg = COLL_RDMA_CONFIG_DEFAULTS;

    cfg.defaults = 3 == v ? NULL : defaults;
    cfg.one_node = 1 != v;
    cfg.auto_emulated = 2 == v;
    return cfg;
}

static void decisions(void)
{
    coll_rdma_config_t cfg = COLL_RDMA_CONFIG_DEFAULTS;
    coll_rdma_reach_t put = {.all_direct = false, .nnodes = 0}, cut = put, mapped = put;

    cut.bcast_tree_cut = true;
    mapped.all_direct = true;
    mapped.bcast_tree_cut = true;
    decide("auto, rings whole, put path", &cfg, 4, 100, put, COLL_RDMA_ALG_KNOMIAL);
    decide("auto, k-nomial ring cut, put path", &cfg, 4, 100, cut, COLL_RDMA_ALG_FALLBACK);
    decide("auto, k-nomial ring cut, every window mapped", &cfg, 4, 100, mapped,
           COLL_RDMA_ALG_READ);
    /* two levels: the read ring too */
    put.nnodes = cut.nnodes = 2;
    cut.bcast_tree_cut = false;
    cut.bcast_read_cut = true;
    decide("auto, read ring cut, two levels", &cfg, 4, 100, cut, COLL_RDMA_ALG_FALLBACK);
    decide("auto, rings whole, two levels", &cfg, 4, 100, put, COLL_RDMA_ALG_HIER);
    cut.nnodes = 0;
    decide("auto, read ring cut, flat tree", &cfg, 4, 100, cut, COLL_RDMA_ALG_KNOMIAL);
    /* forced: its ring is whole; it serves */
    cut.bcast_tree_cut = true;
    cfg.alg[COLL_RDMA_BCAST] = COLL_RDMA_ALG_KNOMIAL;
    decide("forced k-nomial, a ring cut", &cfg, 4, 100, cut, COLL_RDMA_ALG_KNOMIAL);
}

int main(void)
{
    static const int sizes[] = {2, 3, 4, 17, 20, 46, 64, 200};
    static const int algs[] = {COLL_RDMA_ALG_AUTO, COLL_RDMA_ALG_KNOMIAL, COLL_RDMA_ALG_READ,
                               COLL_RDMA_ALG_HIER};
    static const char *const files[] = {
        "bcast * 0-100 knomial\n",
        "bcast * 0-100 knomial\nbcast * 101-5000 hier\nbcast * 5001- read\n",
        "bcast 2-8 0-40000 read\nbcast * 3000-9000 knomial\n",
    };
    char err[256], what[128];
    coll_rdma_rules_t *defaults = coll_rdma_rules_parse_text(coll_rdma_defaults_text,
                                                             coll_rdma_names_vocab(), err,
                                                             sizeof(err));

    if (NULL == defaults) {
        printf("FAIL the default rules: %s\n", err);
        return 1;
    }
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); ++s) {
        for (int v = 0; v < 4; ++v) {
            for (size_t a = 0; a < sizeof(algs) / sizeof(algs[0]); ++a) {
                coll_rdma_config_t cfg = variant(v, defaults);
                cfg.alg[COLL_RDMA_BCAST] = algs[a];
                snprintf(what, sizeof(what), "variant %d, bcast algorithm %s", v,
                         coll_rdma_alg_names[algs[a]]);
                rings(what, &cfg, sizes[s]);
            }
            for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); ++f) {
                coll_rdma_config_t cfg = variant(v, defaults);
                coll_rdma_rules_t *rules = coll_rdma_rules_parse_text(files[f],
                                                                      coll_rdma_names_vocab(),
                                                                      err, sizeof(err));
                if (NULL == rules) {
                    printf("FAIL rules %zu: %s\n", f, err);
                    return 1;
                }
                cfg.rules = rules;
                cfg.bcast_segment_bytes = f == 2 ? 8192 : cfg.bcast_segment_bytes;
                snprintf(what, sizeof(what), "variant %d, rules %zu", v, f);
                rings(what, &cfg, sizes[s]);
                coll_rdma_rules_free(rules);
            }
        }
    }
    decisions();
    coll_rdma_rules_free(defaults);
    if (failures > 0) {
        printf("test_rings: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_rings: PASS\n");
    return 0;
}
