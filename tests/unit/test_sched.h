/*
 * test_sched: what its files share (tests/unit/test_sched.c says what the
 * program tests and how it is built).
 *
 *   test_sched.c            case bookkeeping, reference arithmetic, main
 *   test_sched_tree.c       the k-nomial tree
 *   test_sched_nway.c       n-way dissemination; edge cases
 *   test_sched_exchange.c   pairwise exchange, Bruck's allgather and alltoall, ring
 *   test_sched_allreduce.c  adapted n-way allreduce, Bruck's global combine
 *
 * P is a communicator size (ranks 0 .. P-1), k a tree radix, n the
 * n-way's messages per round (radix n + 1).
 */
#ifndef TEST_SCHED_H
#define TEST_SCHED_H

#include "coll_rdma_sched.h"

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define MAX_P      300
#define MIN_RADIX  2
#define MAX_RADIX  8
#define MAX_N      8
#ifndef MAX_REPORT
#define MAX_REPORT 20 /* failure lines printed */
#endif
#define GUARD      8                 /* sentinel slots past the output */
#define SENTINEL   (-12345)
#define WORDS      ((MAX_P + 63) / 64)
#define MAXCH      (MAX_RADIX * COLL_RDMA_SCHED_MAX_ROUNDS)

/* ---- test_sched.c: case bookkeeping ---- */

/* Start case `name` for size p, radix or n k. */
void begin_case(const char *name, int p, int k);
/* Count the case as passed or failed. */
void end_case(void);
/* Record a failure (printf format) of the current case; returns 0. */
int fail(const char *fmt, ...);

#define CHECK(cond, ...) do { if (!(cond)) { fail(__VA_ARGS__); } } while (0)
/* Stop the current case after its first failure (avoids cascades). */
#define REQUIRE(cond, ...) do { if (!(cond)) { fail(__VA_ARGS__); return; } } while (0)

/* ---- test_sched.c: independent reference arithmetic ---- */

/* Smallest r with base^r >= size (0 for size <= 1). */
int ref_rounds(long long size, int base);
/* b^e. */
long long ipow(int b, int e);
/* Position of the lowest nonzero base-k digit of v > 0. */
int ref_level(int v, int k);

/* ---- test_sched_tree.c: one case each, for the tree load_tree(P, k) cached ---- */

/* Query the library for the whole tree of (P, k); checks output-array bounds. */
void load_tree(int P, int k);
/* Rounds, level(0), max_children against reference formulas. */
void check_tree_rounds(int P, int k);
/* Parent/children consistency, ranges, duplicates, connectivity, acyclicity. */
void check_tree_structure(int P, int k);
/* Exact match with the documented digit arithmetic. */
void check_tree_spec(int P, int k);
/* Child slots: distinct per parent, in [0, max_children). */
void check_tree_slots(int P, int k);
/* Top-down broadcast: rounds R-1 .. 0, child v receives in round level(v). */
void check_tree_bcast(int P, int k);
/* Bottom-up reduce with per-input counters: rounds 0 .. R-1. */
void check_tree_reduce(int P, int k);

/* ---- test_sched_nway.c ---- */

/* All peers of the R rounds: bounds, NULL handling, ranges, self, duplicates. */
void check_nway_peers(int P, int n, int R);
/* Knowledge simulation; also checks minimality of the round count R. */
void check_nway_knowledge(int P, int n, int R);
/* Slots of the R rounds: in [0, R * n), none used twice. */
void check_nway_slots(int P, int n, int R);
/* P = 1 everywhere (its own case). */
void check_edge_p1(void);
/* Sizes near INT_MAX: no overflow, rounds bounded (its own case). */
void check_edge_large(void);

/* ---- test_sched_exchange.c ---- */

/* The pairwise-exchange allreduce on P ranks: every input once, same bits everywhere. */
void check_pairwise(int P);
/* Bruck's allgather with radix k on P ranks. */
void check_bruck_allgather(int P, int k);
/* Bruck's index alltoall with radix k on P ranks. */
void check_bruck_alltoall(int P, int k);
/* Ring allgather: each step forwards what arrived in the previous one. */
void check_ring_allgather(int P);

/* ---- test_sched_allreduce.c ---- */

/* The adapted n-way plan for P against a reference search and the digest's lists. */
void check_nway_plan(int P, int n);
/* prefix_messages(n, x) for x up to 4 * MAX_P: every prefix and nothing else. */
void check_nway_prefix_messages(int n);
/* Plans and Bruck rounds near INT_MAX: no overflow, peers in range (its own case). */
void check_edge_large_allreduce(void);
/* The adapted n-way allreduce simulated on P ranks: every input exactly once. */
void check_nway_allreduce(int P, int n);
/* Bruck's global combine simulated on P ranks. */
void check_bruck(int P, int n);

#endif /* TEST_SCHED_H */
