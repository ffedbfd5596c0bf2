/*
 * tests/unit/test_bounds: what its two files share (test_bounds.c: the
 * layout and the plans at their bounds; test_bounds_credits.c: the credit
 * reads over a stubbed transport, the default budget).
 */
#ifndef TEST_BOUNDS_H
#define TEST_BOUNDS_H

#include <stdio.h>

/* ranks of the windows the plans and credits are tried on */
#define P_PLAN 4

extern int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            if (failures++ < 20) {                                                                 \
                printf("FAIL ");                                                                   \
                printf(__VA_ARGS__);                                                               \
                printf("\n");                                                                      \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* A get left in flight for one peer is not another peer's credit (F11). */
void test_credits(void);

/* The default window budget (coll_rdma_window_budget_of). */
void test_budget_default(void);

#endif
