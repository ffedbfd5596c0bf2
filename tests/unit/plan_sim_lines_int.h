/*
 * The cache-line model's own declarations (plan_sim_lines.h is what its
 * users see): the state of lines and ranks, shared by
 *
 *   plan_sim_lines.c      lines, loads and stores, what every action touches
 *   plan_sim_lines_run.c  the scheduler, the set-up, the results
 *
 * Units: times are in the units of lines_cost_t (ns, or transfers when
 * counting); q, owner, writer are ranks; idx is a line's index in its
 * owner's window (byte offset / 64).
 */
#ifndef PLAN_SIM_LINES_INT_H
#define PLAN_SIM_LINES_INT_H

#include "plan_sim_lines.h"

#include "plan_sim_int.h"

typedef struct lline {
    uint64_t key;   /* owner << 40 | line index, + 1; 0: an empty bucket */
    int writer;     /* whose write made the current version */
    int call;       /* the call `at`, `fan` and `ev` belong to */
    int fan;        /* ranks that fetched the current version in this call */
    double *starts; /* when each of them started fetching it (lines_cost_t.fan), fan of cap */
    int cap;
    int ev;         /* the write's event (paths), or -1 */
    double at;      /* when the current version became visible (BEFORE: an earlier call) */
    double word_at; /* when its sequence word was last stored (BEFORE: an earlier call) */
    int word_ev;    /* that store's event (paths), or -1 */
    uint64_t *valid; /* ranks holding the current version */
    uint64_t *prev;  /* ranks that held the version before (wasted polls) */
} lline_t;

typedef struct lrank {
    double issue, retire, port; /* I, R, and when its next transfer may start */
    double visible;             /* when its last store became visible (stores keep order) */
    int ev_issue, ev_retire, ev_visible; /* the events that set I, R, visible (paths) */
    double xfer, upgrades, wasted, served; /* this call */
} lrank_t;

/* One event of a measured call, for the path: a transfer or a write. */
typedef struct lev {
    int rank, owner, writer, pred;
    size_t off;
    double t;
    char what; /* 'r' transfer read, 'w' transfer write, 's' store without transfer */
} lev_t;

typedef struct model {
    const lines_setup_t *ls;
    lines_cost_t cost;
    lines_result_t *out;
    int P, nw, call, first_measured;
    lline_t *lines;
    size_t cap, n;
    lrank_t *rk;
    bool *asleep;       /* would block: wait for a store to (wait_owner, wait_idx) */
    int *wait_owner;    /* -1: any rank's line wait_idx (WAIT_ALL); -2: any store */
    size_t *wait_idx;
    uint64_t woken;     /* ranks woken so far (a burst ends at one) */
    uint64_t *credit;   /* [kind][q][peer]: the executor's cached credits */
    lev_t *ev;
    int nev, capev;
} model_t;

/* Whether the call being run is one of the measured ones. */
static inline bool lines_measured(const model_t *M)
{
    return M->call >= M->first_measured;
}

/* The simulator's hook (sim_t.hook): what action `a` of rank q at instance seq touched. */
void lines_on_action(sim_t *S, int q, const coll_rdma_act_t *a, uint64_t seq);

#endif /* PLAN_SIM_LINES_INT_H */
