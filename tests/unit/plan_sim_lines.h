/*
 * The cache-line model (issue 32): the plan simulator's real windows and
 * plans, run by a deterministic scheduler in which every rank enters each
 * call at once, with every window access of every action recorded line by
 * line.  A *transfer* is a rank touching (reading or writing) a 64-byte line
 * of a window that another rank wrote since this rank last held it.  Per
 * call: transfers in total, at the busiest rank, and on the critical path
 * (the longest chain of transfers that depend on each other, from the
 * common entry to the last rank's exit).  docs/design.md, "A model of
 * cache-line transfers", says what is counted and why.
 *
 * Used by bench/sched_dump --lines and tests/unit/test_lines.
 */
#ifndef PLAN_SIM_LINES_H
#define PLAN_SIM_LINES_H

#include "plan_sim.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * What time costs, in ns (or in transfers: xfer = 1, the rest 0, which is
 * how the counts are made).  A transfer that starts at t ends at t + xfer
 * + fan * (ranks that started fetching the same version of the line at t or
 * before: the readers of one line at once are served one after the other,
 * not those that come later); a store
 * to a line that other ranks hold becomes visible `upgrade` later; a rank
 * starts one transfer every `gap` at most (0: any number at once); every
 * action takes `action` of its rank's time.
 */
typedef struct lines_cost {
    double xfer;    /* one line from its writer's cache to the toucher (ns) */
    double upgrade; /* a store to a line other ranks hold: their copies go (ns) */
    double fan;     /* more per rank fetching the same version no later (ns) */
    double gap;     /* a rank's transfers start at least this far apart (ns) */
    double action;  /* local work of one action of the program (ns) */
} lines_cost_t;

/* One model run: an algorithm called back to back with the same arguments. */
typedef struct lines_setup {
    int coll, alg;          /* enum coll_rdma_coll, enum coll_rdma_alg */
    int P;                  /* ranks, 1 .. 1024 (sched_dump) */
    size_t bytes;           /* the message (bcast, reductions) or one block; barrier: 0 */
    int root;
    int groups;             /* > 0: the node map the two-level plans see makes nodes of
                             * this many consecutive ranks (every window still mapped) */
    coll_rdma_config_t cfg; /* lines_config() and changes */
    int warmup, measured;   /* calls before the measured ones, measured (0: one period each,
                             * lines_period()) */
    lines_cost_t cost;      /* zero: count (xfer = 1) */
    bool path;              /* describe the worst call's critical path in result.path */
    bool rotate;            /* what if: WAIT_ALL and FOLD_ALL test the words from rank + 1
                             * on, not from rank 0 (readers of one line spread out in time) */
} lines_setup_t;

#define LINES_PATH_BYTES 4096

/* Per call, over the measured calls: the mean, and the worst call's value (*_max). */
typedef struct lines_result {
    int calls;                /* measured */
    double critical, busiest, total;
    double critical_max, busiest_max, total_max;
    double upgrades;  /* writes to a line that other ranks hold but none wrote (no transfer) */
    double wasted;    /* polls that fetched a line before the write they waited for */
    double served;    /* transfers out of lines last written by one rank, the most */
    double time;      /* the last exit, in the units of the cost (count: = critical) */
    double first;     /* the first exit (the spread of the exits: time - first) */
    double time_max;
    int busiest_rank; /* of the worst call */
    char path[LINES_PATH_BYTES]; /* the worst call's critical path, if asked */
} lines_result_t;

/** The component's defaults (COLL_RDMA_CONFIG_DEFAULTS) as the model runs them. */
void lines_config(coll_rdma_config_t *cfg);

/**
 * Calls in one period of the slot rings (bcast slots, instance parity,
 * reduce rings, ring slots): after one period every slot and credit is back
 * where it was.
 */
int lines_period(const coll_rdma_config_t *cfg);

/**
 * NULL if `alg` serves `coll` of `bytes` at P ranks on one node under cfg
 * (as the decision layer would when forced), else why not (a short phrase).
 */
const char *lines_unserved(const coll_rdma_config_t *cfg, int coll, int alg, int P,
                           size_t bytes);

/**
 * Run the model.  Returns 0 with *out filled, or -1 with the simulator's
 * failure in err.
 */
int lines_run(const lines_setup_t *ls, lines_result_t *out, char *err, size_t errlen);

#endif /* PLAN_SIM_LINES_H */
