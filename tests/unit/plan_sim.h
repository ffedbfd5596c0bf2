/*
 * The plan simulator (tests/unit/plan_sim.c): P ranks' action programs, built
 * by the component's real plan functions against windows laid out by the
 * component's real coll_rdma_window_layout(), run in one process by an
 * interpreter of its own that mirrors coll_rdma_exec.c, under random
 * interleavings.  What it checks is listed in plan_sim.c.
 */
#ifndef PLAN_SIM_H
#define PLAN_SIM_H

#include "coll_rdma_plans.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Calls of a scenario at most: test_plans runs up to 10, the line model
 * (plan_sim_lines.c) a warm-up and a measured period of calls, as many as
 * the deepest slot ring it turns through twice. */
#define SIM_MAX_CALLS 1024
/* A reduction element: two 64-bit lanes, a wrapping sum of the
 * contributions (every one exactly once) and a hash of the expression
 * (which operands in which association and order). */
#define SIM_ELEM 16

typedef struct sim_call {
    int coll;      /* enum coll_rdma_coll */
    int alg;       /* enum coll_rdma_alg, as the decision layer would run it */
    size_t count;  /* reductions: elements of SIM_ELEM bytes */
    size_t bytes;  /* op->bytes: the message (bcast, reductions) or one block */
    int root;
    bool in_place; /* MPI_IN_PLACE (reduce: at the root) */
    bool order_independent; /* reductions: the op gives the same bits in every order */
    int replay_of; /* >= 0: a persistent restart of that earlier call: its
                    * programs and buffers, new contents */
} sim_call_t;

typedef struct sim_scenario {
    int P;
    uint64_t seed;   /* the schedule's random stream */
    bool all_direct; /* every window mapped (posts land at once); otherwise each
                      * pair of ranks is mapped or uses the put path at random */
    bool copied;     /* puts copy their sources when posted (UCX's UCS_OK): a FLUSH only
                      * orders them (a fence), they land later, in the order of the fences */
    int nodes;       /* > 0 (and not all_direct): the ranks form this many nodes at random
                      * (some maybe empty), mapped inside a node only, and the windows
                      * get the node map the two-level plans use */
    int groups;      /* > 0 with all_direct: the node map makes nodes of this many
                      * consecutive ranks (windows all mapped: the line model's
                      * two levels by shared cache) */
    bool poison;     /* windows start filled with 0xA5, every word then written empty
                      * (what a window taken from the pool holds: the old
                      * communicator's bytes); else calloc's zeros */
    coll_rdma_config_t cfg;
    int ncalls;      /* calls every rank makes, in this order */
    sim_call_t calls[SIM_MAX_CALLS];
} sim_scenario_t;

typedef struct sim_stats {
    uint64_t actions;   /* actions executed */
    uint64_t blocked;   /* would-block results */
    uint64_t posts;     /* slot writes */
    uint64_t deferred;  /* of them through the put path, delivered later */
    uint64_t overwrites; /* slots rewritten by a later message (reuse exercised) */
} sim_stats_t;

/**
 * Run `sc` once.  Returns 0, or -1 with the first failure described in
 * err (program, rank, call, action and what went wrong).
 */
int sim_run(const sim_scenario_t *sc, sim_stats_t *st, char *err, size_t errlen);

const char *sim_coll_name(int coll);
const char *sim_alg_name(int alg);

#endif /* PLAN_SIM_H */
