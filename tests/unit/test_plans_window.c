/*
 * Part of tests/unit/test_plans: the window memory per rank (test_plans -w),
 * checked every run.
 */
#include "ompi_config.h"

#include "coll_rdma_layout.h"
#include "coll_rdma_names.h"
#include "coll_rdma_rules.h"
#include "coll_rdma_window.h"

#include <stdio.h>
#include <string.h>

int test_plans_window_memory(int print);

/*
 * Window memory per rank at the parameters' defaults, for communicators of 2
 * to 4096 ranks: with the default rules on one node (every rank on it, as
 * they serve), with the built-in table alone (coll_rdma_default_rules 0),
 * with rsag forced for allreduce and reduce, with bounded staleness 8 on
 * top, and with the default rules on a communicator of several nodes (the
 * bcast rings whole: coll_rdma_layout.h).  Printed with
 * -w; checked against WINDOW_BOUND every run (the window must not grow with
 * P beyond it), and, with the default rules, up to 8 ranks against the
 * default window budget in Docker's 64 MiB /dev/shm among as many processes
 * (coll_rdma_window_budget_of: its 4 MiB floor is one such window).
 */
#define WINDOW_BOUND (8u << 20)

int test_plans_window_memory(int print)
{
    static const int sizes[] = {2, 4, 8, 16, 64, 256, 1024, 4096};
    static coll_rdma_window_t win;
    char err[256];
    coll_rdma_rules_t *defaults = coll_rdma_rules_parse_text(coll_rdma_defaults_text,
                                                             coll_rdma_names_vocab(), err,
                                                             sizeof(err));
    int bad = 0;

    if (NULL == defaults) {
        printf("FAIL the default rules: %s\n", err);
        return 1;
    }
    if (print) {
        printf("| ranks | auto, one node (bytes) | built-in table alone | rsag forced (allreduce, "
               "reduce) | + staleness 8 | auto, several nodes |\n"
               "|---:|---:|---:|---:|---:|---:|\n");
    }
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
        size_t bytes[5];
        for (int v = 0; v < 5; ++v) {
            coll_rdma_config_t cfg = COLL_RDMA_CONFIG_DEFAULTS;
            cfg.defaults = 1 == v ? NULL : defaults;
            cfg.one_node = v < 4;
            if (2 == v || 3 == v) {
                cfg.alg[COLL_RDMA_ALLREDUCE] = cfg.alg[COLL_RDMA_REDUCE] = COLL_RDMA_ALG_RSAG;
            }
            cfg.allreduce_staleness = v == 3 ? 8 : 0;
            memset(&win, 0, sizeof(win));
            if (OMPI_SUCCESS != coll_rdma_window_layout(&win, &cfg, sizes[i], 0)) {
                printf("FAIL window layout at %d ranks (variant %d)\n", sizes[i], v);
                coll_rdma_rules_free(defaults);
                return 1;
            }
            bytes[v] = win.size;
            if (0 == v && sizes[i] <= 8
                && win.size > coll_rdma_window_budget_of((size_t) 64 << 20, sizes[i])) {
                printf("FAIL window at %d ranks: %zu bytes, past the default budget in a 64 MiB "
                       "/dev/shm among %d processes (%zu)\n", sizes[i], win.size, sizes[i],
                       coll_rdma_window_budget_of((size_t) 64 << 20, sizes[i]));
                bad = 1;
            }
            if (3 != v && win.size > WINDOW_BOUND) {
                printf("FAIL window at %d ranks (variant %d): %zu bytes, above %u\n", sizes[i], v,
                       win.size, WINDOW_BOUND);
                bad = 1;
            }
        }
        if (print) {
            printf("| %d | %zu | %zu | %zu | %zu | %zu |\n", sizes[i], bytes[0], bytes[1],
                   bytes[2], bytes[3], bytes[4]);
        }
    }
    coll_rdma_rules_free(defaults);
    return bad;
}

