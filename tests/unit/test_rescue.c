/*
 * Unit test of the rescue's routing over the segment regions (issue 36;
 * coll_rdma_decision.c, rescue() and rsag_rescues()).  A call Open MPI
 * reduces wrongly (here an int8 sum) that the asked algorithm and auto hand
 * on takes rsag where every window is mapped and the window holds the
 * configured rsag segment whole; where the layout cut the segment to what
 * the rules reach, the ring (allreduce) or the k-nomial chunks (reduce);
 * where no chunk holds an element, rsag in the smaller segments, and the
 * fallback only where the window has none.  Calls within the rules' reach
 * keep the rules' algorithm, not rescued.  Windows laid out by the layout
 * code itself (coll_rdma_layout()), under the default rules, a tuning rule,
 * or forced rsag.  No MPI.
 *
 * Prints failures, then "test_rescue: PASS" or the count of failures.
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

/* Decide an int8 sum of `bytes` (collective `coll`) at P ranks on one node,
 * the window laid out for cfg; expect `want` and `want_rescued`. */
static void expect(const char *what, const coll_rdma_config_t *cfg, int P, int coll, size_t bytes,
                   int want, bool want_rescued)
{
    static coll_rdma_layout_t l;
    coll_rdma_reach_t reach = {.all_direct = true};
    bool rescued = false;
    int why = -1, got;

    memset(&l, 0, sizeof(l));
    if (OMPI_SUCCESS != coll_rdma_layout(&l, cfg, P, 0)) {
        printf("FAIL %s: no layout\n", what);
        ++failures;
        return;
    }
    reach.rsag_allreduce = l.rsag_allreduce.segment;
    reach.rsag_reduce = l.rsag_reduce.segment;
    got = COLL_RDMA_REDUCE == coll
              ? coll_rdma_decide_reduce(cfg, P, bytes, true, true, &reach, true, &rescued, &why)
              : coll_rdma_decide_allreduce(cfg, P, bytes, true, true, true, &reach, true,
                                           &rescued, &why);
    if (got != want || rescued != want_rescued) {
        printf("FAIL %s: %zu bytes at %d ranks (segments %zu, %zu) took %s%s, expected %s%s\n",
               what, bytes, P, l.rsag_allreduce.segment, l.rsag_reduce.segment,
               coll_rdma_alg_names[got], rescued ? " (rescued)" : "", coll_rdma_alg_names[want],
               want_rescued ? " (rescued)" : "");
        ++failures;
    }
}

int main(void)
{
    char err[256];
    coll_rdma_rules_t *defaults = coll_rdma_rules_parse_text(coll_rdma_defaults_text,
                                                             coll_rdma_names_vocab(), err,
                                                             sizeof(err));
    coll_rdma_rules_t *tuning = coll_rdma_rules_parse_text("allreduce 2 0-102400 rsag\n",
                                                           coll_rdma_names_vocab(), err,
                                                           sizeof(err));
    coll_rdma_config_t cfg = COLL_RDMA_CONFIG_DEFAULTS;

    if (NULL == defaults || NULL == tuning) {
        printf("FAIL rules: %s\n", err);
        return 1;
    }
    /* the default rules: at 2 ranks reduce rsag reaches 8 KiB (its segment
     * 8 KiB), allreduce rsag 512 KiB (whole); from 3 ranks both 4 MiB */
    cfg.defaults = defaults;
    expect("defaults, reduce within the rules", &cfg, 2, COLL_RDMA_REDUCE, 8192, COLL_RDMA_ALG_RSAG,
           false);
    expect("defaults, reduce past the rules", &cfg, 2, COLL_RDMA_REDUCE, 16384,
           COLL_RDMA_ALG_KNOMIAL, true);
    expect("defaults, reduce of 1 MiB", &cfg, 2, COLL_RDMA_REDUCE, 1 << 20, COLL_RDMA_ALG_KNOMIAL,
           true);
    expect("defaults, allreduce of 1 MiB", &cfg, 2, COLL_RDMA_ALLREDUCE, 1 << 20,
           COLL_RDMA_ALG_RSAG, true);
    expect("defaults, reduce within the rules", &cfg, 3, COLL_RDMA_REDUCE, 16384,
           COLL_RDMA_ALG_RSAG, false);
    expect("defaults, reduce past the rules", &cfg, 3, COLL_RDMA_REDUCE, 8 << 20,
           COLL_RDMA_ALG_RSAG, true);
    /* no chunk holds an element: rsag in the smaller segments, none without them */
    cfg.reduce_max_bytes = 4;
    expect("defaults, 4-byte reduce slots", &cfg, 2, COLL_RDMA_REDUCE, 16384, COLL_RDMA_ALG_RSAG,
           true);
    cfg.defaults = NULL;
    expect("no rules, 4-byte reduce slots", &cfg, 2, COLL_RDMA_REDUCE, 16384,
           COLL_RDMA_ALG_FALLBACK, false);
    /* forced: the configured segment, whole */
    cfg.reduce_max_bytes = 4 << 20;
    cfg.alg[COLL_RDMA_REDUCE] = COLL_RDMA_ALG_RSAG;
    expect("forced rsag, reduce past reduce_max_bytes", &cfg, 2, COLL_RDMA_REDUCE, 8 << 20,
           COLL_RDMA_ALG_RSAG, true);
    /* forced k-nomial: no rsag segment in the window, so a rescue never takes
     * rsag: the k-nomial chunks, and where no chunk holds an element, none */
    cfg.defaults = defaults;
    cfg.alg[COLL_RDMA_REDUCE] = COLL_RDMA_ALG_KNOMIAL;
    expect("forced k-nomial, reduce of 1 MiB", &cfg, 2, COLL_RDMA_REDUCE, 1 << 20,
           COLL_RDMA_ALG_KNOMIAL, true);
    cfg.reduce_max_bytes = 4;
    expect("forced k-nomial, 4-byte reduce slots", &cfg, 3, COLL_RDMA_REDUCE, 16384,
           COLL_RDMA_ALG_FALLBACK, false);
    cfg.reduce_max_bytes = 4 << 20;
    cfg.defaults = NULL;
    /* a tuning rule reaching rsag to 100 KiB: within it rsag, beyond it the ring */
    cfg.alg[COLL_RDMA_REDUCE] = COLL_RDMA_ALG_AUTO;
    cfg.rules = tuning;
    expect("tuning rule, allreduce within it", &cfg, 2, COLL_RDMA_ALLREDUCE, 102400,
           COLL_RDMA_ALG_RSAG, false);
    expect("tuning rule, allreduce of 2 MiB", &cfg, 2, COLL_RDMA_ALLREDUCE, 2 << 20,
           COLL_RDMA_ALG_RING, true);
    coll_rdma_rules_free(tuning);
    coll_rdma_rules_free(defaults);
    if (failures > 0) {
        printf("test_rescue: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_rescue: PASS\n");
    return 0;
}
