/*
 * Exhaustive unit test for the pure schedule code of coll/rdma
 * (coll_rdma_sched.h / coll_rdma_sched.c).  No MPI, no external libraries.
 *
 *   gcc -O2 -std=c99 -Wall -Wextra -I ompi-coll-rdma \
 *       tests/unit/test_sched*.c ompi-coll-rdma/coll_rdma_sched.c -o test_sched
 *
 * Every (check family, P, radix-or-n) combination is one case.  Sizes
 * P = 1..MAX_P, tree radix 2..8, n-way n = 1..8.  Prints one line per
 * failure (at most MAX_REPORT) and finally "N passed, M failed"; exits
 * non-zero when M > 0.
 *
 * This file: the case bookkeeping, the reference arithmetic and main; the
 * checks are in the files test_sched.h lists.
 */
#include "test_sched.h"

static int n_passed, n_failed, n_reported;
static int case_bad;                 /* current case already failed */
static const char *case_name;
static int case_p, case_k;

void begin_case(const char *name, int p, int k)
{
    case_name = name;
    case_p = p;
    case_k = k;
    case_bad = 0;
}

void end_case(void)
{
    if (case_bad) {
        ++n_failed;
    } else {
        ++n_passed;
    }
}

/* Record a failure; returns 0 so callers can write `return fail(...)`. */
int fail(const char *fmt, ...)
{
    va_list ap;

    case_bad = 1;
    if (n_reported++ >= MAX_REPORT) {
        return 0;
    }
    printf("FAIL %s P=%d k=%d: ", case_name, case_p, case_k);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    return 0;
}

/* ---- independent reference arithmetic ---- */

/* smallest r with base^r >= size (0 for size <= 1) */
int ref_rounds(long long size, int base)
{
    int r = 0;
    long long rem = size;          /* ceil(size / base^r) */

    while (rem > 1) {
        rem = (rem + base - 1) / base;
        ++r;
    }
    return r;
}

long long ipow(int b, int e)
{
    long long x = 1;
    while (e-- > 0) {
        x *= b;
    }
    return x;
}

/* position of lowest nonzero base-k digit of v > 0 */
int ref_level(int v, int k)
{
    int l = 0;
    while (v % k == 0) {
        v /= k;
        ++l;
    }
    return l;
}

int main(void)
{
    check_edge_p1();
    check_edge_large();
    check_edge_large_allreduce();
    for (int n = 1; n <= MAX_N; ++n) {
        begin_case("nway_prefix_messages", 0, n);
        check_nway_prefix_messages(n);
        end_case();
    }

    for (int P = 1; P <= MAX_P; ++P) {
        begin_case("pairwise", P, 0);
        check_pairwise(P);
        end_case();
        begin_case("ring_allgather", P, 0);
        check_ring_allgather(P);
        end_case();
        for (int k = MIN_RADIX; k <= MAX_RADIX; ++k) {
            load_tree(P, k);
            begin_case("tree_rounds", P, k);
            check_tree_rounds(P, k);
            end_case();
            begin_case("tree_structure", P, k);
            check_tree_structure(P, k);
            end_case();
            begin_case("tree_spec", P, k);
            check_tree_spec(P, k);
            end_case();
            begin_case("tree_slots", P, k);
            check_tree_slots(P, k);
            end_case();
            begin_case("tree_bcast", P, k);
            check_tree_bcast(P, k);
            end_case();
            begin_case("tree_reduce", P, k);
            check_tree_reduce(P, k);
            end_case();
            begin_case("bruck_allgather", P, k);
            check_bruck_allgather(P, k);
            end_case();
            begin_case("bruck_alltoall", P, k);
            check_bruck_alltoall(P, k);
            end_case();
        }
        for (int n = 1; n <= MAX_N; ++n) {
            int R = coll_rdma_sched_rounds(P, n + 1);
            int peers_ok;
            begin_case("nway_peers", P, n);
            check_nway_peers(P, n, R);
            peers_ok = !case_bad;
            end_case();
            begin_case("nway_knowledge", P, n);
            if (peers_ok) {
                check_nway_knowledge(P, n, R);
            } else {
                fail("skipped: peer tables invalid");
            }
            end_case();
            begin_case("nway_slots", P, n);
            check_nway_slots(P, n, R);
            end_case();
            if (P >= 2) {
                begin_case("nway_plan", P, n);
                check_nway_plan(P, n);
                end_case();
                begin_case("nway_allreduce", P, n);
                check_nway_allreduce(P, n);
                end_case();
                begin_case("bruck", P, n);
                check_bruck(P, n);
                end_case();
            }
        }
    }
    if (n_reported > MAX_REPORT) {
        printf("(%d further failure lines suppressed)\n", n_reported - MAX_REPORT);
    }
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed > 0 ? 1 : 0;
}
