/*
 * sched_dump --lines: the cache-line model of coll/rdma's algorithms on one
 * node (tests/unit/plan_sim_lines.c; docs/design.md, "A model of
 * cache-line transfers").  For every algorithm of a collective that serves
 * BYTES at P ranks, one line:
 *
 *   ALGORITHM P BYTES critical=N busiest=N total=N
 *
 * transfers of 64-byte lines per call (the mean over one period of
 * steady-state calls, every rank entering each call at once): on the
 * critical path, at the busiest rank, in all.  Options:
 *   -v          more fields (the worst call's values, upgrades, wasted polls,
 *               transfers served by one rank's lines, the busiest rank; with
 *               -c the first rank's exit too) and the worst call's critical
 *               path, line by line
 *   -a ALG      that algorithm only
 *   -o NAME=N   a parameter of the configuration other than its default
 *               (coll_rdma_NAME): bcast_slots, bcast_small_slots (0: none),
 *               bcast_segment_bytes,
 *               bcast_radix, reduce_radix, barrier_nway_n,
 *               allreduce_ktree_degree, allreduce_nway_n, allreduce_bruck_n,
 *               allreduce_read_max_bytes; repeatable
 *   -R          what if WAIT_ALL and FOLD_ALL tested the words from the rank
 *               above on (rotated) rather than from rank 0: the readers of
 *               one line spread out in time (same counts; times with -c)
 *   -g G        two-level algorithms: nodes of G consecutive ranks (default:
 *               one node), every window still mapped
 *   -c X,U,F,G,A  costs in ns (lines_cost_t): a transfer X, a store to a
 *               line others hold U, F more per earlier reader of the same
 *               line, a rank's transfers at least G apart, A per action;
 *               adds the predicted time, us=T (-C plus the last exit)
 *   -C US       a fixed cost per call added to us= (default 0)
 *   --auto      also one line `auto=ALG us=T best=ALG us=T`: the algorithm
 *               coll/rdma's auto takes for the call on one node (the
 *               decision layer with the default rules, every window mapped;
 *               a reduction of integers, whose order does not matter) and
 *               the model's fastest of the algorithms printed (all of the
 *               collective's, two-level forms included, or -a's); needs -c.
 *               ALG is `fallback` where auto hands the call on (us=-1)
 *   --auto-ordered  the same for a reduction whose order matters (floating
 *               point: auto does not take n-way or Bruck; best= still
 *               names the fastest of all printed)
 *   --auto-table  only `auto=ALG`: the built-in table's pick, without the
 *               default rules (bench/model_rules.py), no model run
 */
#include "plan_sim_lines.h"

#include "coll_rdma_decision.h"
#include "coll_rdma_layout.h"
#include "coll_rdma_names.h"
#include "coll_rdma_rules.h"
#include "coll_rdma_sched.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int algs_of[COLL_RDMA_NCOLLS][10] = {
    [COLL_RDMA_BARRIER] = {COLL_RDMA_ALG_READ, COLL_RDMA_ALG_NWAY, COLL_RDMA_ALG_PAIRWISE,
                           COLL_RDMA_ALG_HIER, -1},
    [COLL_RDMA_BCAST] = {COLL_RDMA_ALG_READ, COLL_RDMA_ALG_KNOMIAL, COLL_RDMA_ALG_HIER, -1},
    [COLL_RDMA_ALLREDUCE] = {COLL_RDMA_ALG_READ, COLL_RDMA_ALG_PAIRWISE, COLL_RDMA_ALG_KTREE,
                             COLL_RDMA_ALG_NWAY, COLL_RDMA_ALG_BRUCK, COLL_RDMA_ALG_RING,
                             COLL_RDMA_ALG_RSAG, COLL_RDMA_ALG_HIER, COLL_RDMA_ALG_NPORT, -1},
    [COLL_RDMA_ALLGATHER] = {COLL_RDMA_ALG_BRUCK, COLL_RDMA_ALG_RING, COLL_RDMA_ALG_READ, -1},
    [COLL_RDMA_ALLTOALL] = {COLL_RDMA_ALG_BRUCK, COLL_RDMA_ALG_DIRECT, COLL_RDMA_ALG_READ, -1},
    [COLL_RDMA_REDUCE] = {COLL_RDMA_ALG_KNOMIAL, COLL_RDMA_ALG_RSAG, COLL_RDMA_ALG_HIER, -1},
};

/* Set configuration parameter `name` (without coll_rdma_) to v; false if unknown. */
static bool set_param(coll_rdma_config_t *cfg, const char *name, long v)
{
    const struct {
        const char *name;
        int *i;
        size_t *z;
    } p[] = {
        {"bcast_slots", &cfg->bcast_slots, NULL},
        {"bcast_small_slots", &cfg->bcast_small_slots, NULL}, /* 0: no small ring */
        {"bcast_segment_bytes", NULL, &cfg->bcast_segment_bytes},
        {"bcast_radix", &cfg->bcast_radix, NULL},
        {"reduce_radix", &cfg->reduce_radix, NULL},
        {"barrier_nway_n", &cfg->barrier_nway_n, NULL},
        {"allreduce_ktree_degree", &cfg->allreduce_ktree_degree, NULL},
        {"allreduce_nway_n", &cfg->allreduce_nway_n, NULL},
        {"allreduce_bruck_n", &cfg->allreduce_bruck_n, NULL},
        {"allreduce_read_max_bytes", NULL, &cfg->allreduce_read_max_bytes},
    };

    for (size_t k = 0; k < sizeof(p) / sizeof(p[0]); ++k) {
        bool zero_ok = &cfg->bcast_small_slots == p[k].i;

        if (0 == strcmp(name, p[k].name) && (v >= 1 || (0 == v && zero_ok))) {
            if (NULL != p[k].i) {
                *p[k].i = (int) v;
            } else {
                *p[k].z = (size_t) v;
            }
            return true;
        }
    }
    return false;
}

static void usage(void)
{
    fprintf(stderr, "usage: sched_dump --lines [-v] [-R] [--auto | --auto-ordered | --auto-table] "
                    "[-a ALG] [-o NAME=N ...] [-g G] [-c X,U,F,G,A] [-C US] COLL P BYTES\n"
                    "  COLL: barrier, bcast, allreduce, reduce, allgather, alltoall\n");
    exit(2);
}

/* The enum value whose name is `name` among n names, or -1. */
static int lookup(const char *name, const char *(*name_of)(int), int n)
{
    for (int i = 0; i < n; ++i) {
        if (0 == strcmp(name, name_of(i))) {
            return i;
        }
    }
    return -1;
}

extern const char coll_rdma_defaults_text[]; /* coll_rdma_defaults_text.c */

/*
 * What auto takes for COLL at P ranks and BYTES on one node (every window
 * mapped, the default rules, the window laid out for cfg): an enum
 * coll_rdma_alg, FALLBACK where it hands the call on, -1 where the rules or
 * the layout fail.  order_independent: the reduction's result is the same
 * in any order (integers).
 */
static int auto_pick(const coll_rdma_config_t *base, int coll, int P, size_t bytes,
                     bool order_independent, bool with_rules)
{
    static coll_rdma_layout_t l;
    coll_rdma_config_t cfg = *base;
    coll_rdma_reach_t reach = {.all_direct = true, .nnodes = 1};
    char err[256];
    bool rescued = false;
    int why = -1, alg = -1;
    coll_rdma_rules_t *defaults = coll_rdma_rules_parse_text(coll_rdma_defaults_text,
                                                             coll_rdma_names_vocab(), err,
                                                             sizeof(err));

    cfg.defaults = with_rules ? defaults : NULL;
    memset(&l, 0, sizeof(l));
    if (NULL == defaults || OMPI_SUCCESS != coll_rdma_layout(&l, &cfg, P, 0)) {
        coll_rdma_rules_free(defaults);
        return -1;
    }
    reach.rsag_allreduce = l.rsag_allreduce.segment;
    reach.rsag_reduce = l.rsag_reduce.segment;
    switch (coll) {
    case COLL_RDMA_BARRIER:
        alg = coll_rdma_decide_barrier(&cfg, P, &reach, &why);
        break;
    case COLL_RDMA_BCAST:
        alg = coll_rdma_decide_bcast(&cfg, P, bytes, &reach, &why);
        break;
    case COLL_RDMA_ALLREDUCE:
        alg = coll_rdma_decide_allreduce(&cfg, P, bytes, true, true, order_independent, &reach,
                                         false, &rescued, &why);
        break;
    case COLL_RDMA_REDUCE:
        alg = coll_rdma_decide_reduce(&cfg, P, bytes, true, true, &reach, false, &rescued, &why);
        break;
    case COLL_RDMA_ALLGATHER:
        alg = coll_rdma_decide_allgather(&cfg, P, bytes, &reach, &why);
        break;
    case COLL_RDMA_ALLTOALL:
        alg = coll_rdma_decide_alltoall(&cfg, P, bytes, &reach, &why);
        break;
    }
    coll_rdma_rules_free(defaults);
    return alg;
}

/* A count: an integer where it is one, else two decimals. */
static void put(const char *key, double v)
{
    if (v == (double) (long long) v) {
        printf(" %s=%lld", key, (long long) v);
    } else {
        printf(" %s=%.2f", key, v);
    }
}

/*
 * One algorithm's line: the counts (costs zero), then with costs the
 * predicted time.  Returns 0, or -1 with the failure in res->path.
 */
static int one(lines_setup_t *ls, lines_result_t *res, int verbose, double call_us, double *us_out)
{
    lines_cost_t cost = ls->cost;
    char err[LINES_PATH_BYTES];
    double us = -1, first = 0;

    if (cost.xfer + cost.upgrade + cost.fan + cost.gap + cost.action > 0) {
        ls->path = false;
        if (0 != lines_run(ls, res, err, sizeof(err))) {
            snprintf(res->path, sizeof(res->path), "%s", err);
            return -1;
        }
        us = call_us + res->time / 1000;
        first = res->first;
    }
    ls->cost = (lines_cost_t){0, 0, 0, 0, 0};
    ls->path = verbose;
    if (0 != lines_run(ls, res, err, sizeof(err))) {
        ls->cost = cost;
        snprintf(res->path, sizeof(res->path), "%s", err);
        return -1;
    }
    ls->cost = cost;
    printf("%s %d %zu", sim_alg_name(ls->alg), ls->P, ls->bytes);
    put("critical", res->critical);
    put("busiest", res->busiest);
    put("total", res->total);
    if (verbose) {
        put("critical_max", res->critical_max);
        put("busiest_max", res->busiest_max);
        put("upgrades", res->upgrades);
        put("wasted", res->wasted);
        put("served", res->served);
        printf(" busiest_rank=%d", res->busiest_rank);
    }
    *us_out = us;
    if (us >= 0) {
        printf(" us=%.3f", us);
        if (verbose) {
            printf(" first_exit_us=%.3f", call_us + first / 1000);
        }
    }
    printf("\n");
    if (verbose && '\0' != res->path[0]) {
        printf("# %s\n", res->path);
    }
    return 0;
}

int sched_lines_main(int argc, char **argv)
{
    lines_setup_t ls;
    lines_result_t *res = malloc(sizeof(*res));
    int a = 1, only = -1, verbose = 0, coll, rc = 0, autos = 0, best = -1;
    bool costs;
    double call_us = 0, us_of[COLL_RDMA_NALGS];

    memset(&ls, 0, sizeof(ls));
    lines_config(&ls.cfg);
    while (a < argc && '-' == argv[a][0]) {
        const char *o = argv[a];
        if (0 == strcmp(o, "--auto") || 0 == strcmp(o, "--auto-ordered")
            || 0 == strcmp(o, "--auto-table")) {
            autos = 0 == strcmp(o, "--auto") ? 1 : 0 == strcmp(o, "--auto-ordered") ? 2 : 3;
            ++a;
            continue;
        }
        if (0 == strcmp(o, "-v") || 0 == strcmp(o, "-R")) {
            verbose |= 'v' == o[1];
            ls.rotate |= 'R' == o[1];
            ++a;
            continue;
        }
        if (a + 1 >= argc) {
            usage();
        }
        if (0 == strcmp(o, "-a")) {
            only = lookup(argv[a + 1], sim_alg_name, COLL_RDMA_NALGS);
        } else if (0 == strcmp(o, "-o")) {
            char name[64];
            long v;
            if (2 != sscanf(argv[a + 1], "%63[a-z_]=%ld", name, &v)
                || !set_param(&ls.cfg, name, v)) {
                usage();
            }
        } else if (0 == strcmp(o, "-g")) {
            ls.groups = atoi(argv[a + 1]);
        } else if (0 == strcmp(o, "-c")) {
            if (5 != sscanf(argv[a + 1], "%lf,%lf,%lf,%lf,%lf", &ls.cost.xfer, &ls.cost.upgrade,
                            &ls.cost.fan, &ls.cost.gap, &ls.cost.action)) {
                usage();
            }
        } else if (0 == strcmp(o, "-C")) {
            call_us = atof(argv[a + 1]);
        } else {
            usage();
        }
        a += 2;
    }
    if (argc - a != 3 || NULL == res) {
        usage();
    }
    coll = lookup(argv[a], sim_coll_name, COLL_RDMA_NCOLLS);
    ls.coll = coll;
    ls.P = atoi(argv[a + 1]);
    ls.bytes = (size_t) atol(argv[a + 2]);
    ls.path = verbose;
    costs = ls.cost.xfer + ls.cost.upgrade + ls.cost.fan + ls.cost.gap + ls.cost.action > 0;
    if (coll < 0 || ls.P < 1 || ls.P > 1024 || ls.cfg.bcast_slots < 1 || ls.groups < 0
        || ls.cfg.bcast_segment_bytes < 64 || ((1 == autos || 2 == autos) && !costs)) {
        usage();
    }
    ls.cfg.bcast_max_bytes = ls.cfg.bcast_max_bytes > ls.cfg.bcast_segment_bytes
                                 ? ls.cfg.bcast_max_bytes
                                 : ls.cfg.bcast_segment_bytes;
    for (int k = 0; k < COLL_RDMA_NALGS; ++k) {
        us_of[k] = -1;
    }
    if (3 == autos) {
        int pick = auto_pick(&ls.cfg, coll, ls.P, ls.bytes, true, false);
        free(res);
        if (pick < 0) {
            fprintf(stderr, "sched_dump --lines --auto-table: no layout\n");
            return 1;
        }
        printf("auto=%s\n", coll_rdma_alg_names[pick]);
        return 0;
    }
    for (int k = 0; algs_of[coll][k] >= 0; ++k) {
        const char *why;
        ls.alg = algs_of[coll][k];
        if (only >= 0 && ls.alg != only) {
            continue;
        }
        why = lines_unserved(&ls.cfg, coll, ls.alg, ls.P, ls.bytes);
        if (NULL != why) {
            printf("# %s %d %zu: not served (%s)\n", sim_alg_name(ls.alg), ls.P, ls.bytes, why);
            continue;
        }
        if (0 != one(&ls, res, verbose, call_us, &us_of[ls.alg])) {
            fprintf(stderr, "sched_dump --lines: %s %s P=%d: %s\n", argv[a], sim_alg_name(ls.alg),
                    ls.P, res->path);
            rc = 1;
        } else if (us_of[ls.alg] >= 0 && (best < 0 || us_of[ls.alg] < us_of[best])) {
            best = ls.alg;
        }
    }
    if (autos && 0 == rc) {
        int pick = auto_pick(&ls.cfg, coll, ls.P, ls.bytes, 1 == autos, true);
        if (pick < 0) {
            fprintf(stderr, "sched_dump --lines --auto: no default rules or layout\n");
            rc = 1;
        } else {
            printf("auto=%s us=%.3f best=%s us=%.3f\n", coll_rdma_alg_names[pick],
                   pick < COLL_RDMA_NALGS && us_of[pick] >= 0 ? us_of[pick] : -1.0,
                   best >= 0 ? sim_alg_name(best) : "none", best >= 0 ? us_of[best] : -1.0);
        }
    }
    free(res);
    return rc;
}
