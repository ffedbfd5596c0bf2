/*
 * Part of test_sched: n-way dissemination (peers, knowledge after every
 * round, slots), and the edge cases of trees and n-way (P = 1, sizes near
 * INT_MAX).
 */
#include "test_sched.h"

/* ---- n-way dissemination ---- */

static int g_to[MAX_P][COLL_RDMA_SCHED_MAX_ROUNDS][MAX_N];
static int g_from[MAX_P][COLL_RDMA_SCHED_MAX_ROUNDS][MAX_N];
static int g_cnt[MAX_P][COLL_RDMA_SCHED_MAX_ROUNDS];

/* query all peers; checks bounds, NULL handling, ranges, self, duplicates */
void check_nway_peers(int P, int n, int R)
{
    int to[MAX_N + GUARD], from[MAX_N + GUARD];
    long long stride = 1;

    REQUIRE(R == ref_rounds(P, n + 1), "rounds(%d,%d)=%d expected %d",
            P, n + 1, R, ref_rounds(P, n + 1));
    REQUIRE(R <= COLL_RDMA_SCHED_MAX_ROUNDS, "rounds %d too large", R);
    for (int r = 0; r < R; ++r, stride *= n + 1) {
        int expect = 0;
        for (int j = 1; j <= n && j * stride < P; ++j) {
            ++expect;
        }
        for (int i = 0; i < P; ++i) {
            for (int x = 0; x < MAX_N + GUARD; ++x) {
                to[x] = from[x] = SENTINEL;
            }
            int c = coll_rdma_nway_peers(i, P, n, r, to, from);
            g_cnt[i][r] = c;
            REQUIRE(c >= 1 && c <= n, "rank %d round %d: %d peers (want 1..%d)", i, r, c, n);
            REQUIRE(c == expect, "rank %d round %d: %d peers expected %d", i, r, c, expect);
            for (int x = c; x < MAX_N + GUARD; ++x) {
                REQUIRE(to[x] == SENTINEL && from[x] == SENTINEL,
                        "rank %d round %d: wrote past count %d", i, r, c);
            }
            REQUIRE(coll_rdma_nway_peers(i, P, n, r, NULL, NULL) == c,
                    "rank %d round %d: count differs with NULL arrays", i, r);
            int to2[MAX_N], from2[MAX_N];
            REQUIRE(coll_rdma_nway_peers(i, P, n, r, to2, NULL) == c &&
                    coll_rdma_nway_peers(i, P, n, r, NULL, from2) == c &&
                    0 == memcmp(to2, to, sizeof(int) * (size_t) c) &&
                    0 == memcmp(from2, from, sizeof(int) * (size_t) c),
                    "rank %d round %d: results differ with one NULL array", i, r);
            for (int a = 0; a < c; ++a) {
                REQUIRE(to[a] >= 0 && to[a] < P, "rank %d round %d: to[%d]=%d out of range",
                        i, r, a, to[a]);
                REQUIRE(from[a] >= 0 && from[a] < P,
                        "rank %d round %d: from[%d]=%d out of range", i, r, a, from[a]);
                REQUIRE(to[a] != i, "rank %d round %d: to[%d] is self", i, r, a);
                REQUIRE(from[a] != i, "rank %d round %d: from[%d] is self", i, r, a);
                long long d = (long long) (a + 1) * stride;
                REQUIRE(to[a] == (int) ((i + d) % P) && from[a] == (int) (((i - d) % P + P) % P),
                        "rank %d round %d j=%d: to=%d from=%d, expected %lld/%lld",
                        i, r, a + 1, to[a], from[a], (i + d) % P, ((i - d) % P + P) % P);
                for (int b = 0; b < a; ++b) {
                    REQUIRE(to[a] != to[b], "rank %d round %d: duplicate to %d", i, r, to[a]);
                    REQUIRE(from[a] != from[b], "rank %d round %d: duplicate from %d",
                            i, r, from[a]);
                }
                g_to[i][r][a] = to[a];
                g_from[i][r][a] = from[a];
            }
        }
        /* a sends to b at index j  <=>  b hears from a at index j */
        for (int a = 0; a < P; ++a) {
            for (int j = 0; j < g_cnt[a][r]; ++j) {
                int b = g_to[a][r][j];
                REQUIRE(g_cnt[b][r] > j && g_from[b][r][j] == a,
                        "round %d: %d sends to %d at j=%d but %d hears from %d", r, a, b,
                        j + 1, b, g_cnt[b][r] > j ? g_from[b][r][j] : -1);
                b = g_from[a][r][j];
                REQUIRE(g_cnt[b][r] > j && g_to[b][r][j] == a,
                        "round %d: %d hears from %d at j=%d but %d sends to %d", r, a, b,
                        j + 1, b, g_cnt[b][r] > j ? g_to[b][r][j] : -1);
            }
        }
    }
}

/* knowledge simulation; also checks minimality of the round count */
void check_nway_knowledge(int P, int n, int R)
{
    static uint64_t know[MAX_P][WORDS], next[MAX_P][WORDS];
    int words = (P + 63) / 64;
    int complete_before_last = 1;
    (void) n;

    memset(know, 0, sizeof(know));
    for (int i = 0; i < P; ++i) {
        know[i][i / 64] |= (uint64_t) 1 << (i % 64);
    }
    for (int r = 0; r < R; ++r) {
        if (r == R - 1) {
            /* state after R-1 rounds: for P > 1 someone must still lack data */
            complete_before_last = 1;
            for (int i = 0; i < P && complete_before_last; ++i) {
                for (int b = 0; b < P; ++b) {
                    if (!(know[i][b / 64] >> (b % 64) & 1)) {
                        complete_before_last = 0;
                        break;
                    }
                }
            }
        }
        for (int i = 0; i < P; ++i) {
            memcpy(next[i], know[i], sizeof(uint64_t) * (size_t) words);
            for (int j = 0; j < g_cnt[i][r]; ++j) {
                int f = g_from[i][r][j];
                for (int w = 0; w < words; ++w) {
                    next[i][w] |= know[f][w];
                }
            }
        }
        memcpy(know, next, sizeof(know));
    }
    for (int i = 0; i < P; ++i) {
        for (int b = 0; b < P; ++b) {
            REQUIRE(know[i][b / 64] >> (b % 64) & 1,
                    "after %d rounds rank %d does not know rank %d", R, i, b);
        }
    }
    if (P > 1) {
        REQUIRE(R >= 1, "P>1 but 0 rounds");
        REQUIRE(!complete_before_last, "all ranks complete after %d rounds: %d not minimal",
                R - 1, R);
    }
}

void check_nway_slots(int P, int n, int R)
{
    static unsigned char used[COLL_RDMA_SCHED_MAX_ROUNDS * MAX_N];

    (void) P;
    memset(used, 0, sizeof(used));
    for (int r = 0; r < R; ++r) {
        for (int j = 1; j <= n; ++j) {
            int s = coll_rdma_nway_slot(n, r, j);
            REQUIRE(s >= 0 && s < R * n, "slot(round %d, j %d)=%d not in [0,%d)",
                    r, j, s, R * n);
            REQUIRE(!used[s], "slot %d used twice (round %d, j %d)", s, r, j);
            used[s] = 1;
        }
    }
}

/* ---- edge cases ---- */

void check_edge_p1(void)
{
    int buf[MAXCH + GUARD], to[MAX_N + GUARD], from[MAX_N + GUARD];

    begin_case("edge_P1", 1, 0);
    for (int b = 2; b <= MAX_N + 1; ++b) {
        CHECK(coll_rdma_sched_rounds(1, b) == 0, "rounds(1,%d)=%d", b,
              coll_rdma_sched_rounds(1, b));
    }
    for (int k = MIN_RADIX; k <= MAX_RADIX; ++k) {
        for (int i = 0; i < MAXCH + GUARD; ++i) {
            buf[i] = SENTINEL;
        }
        CHECK(coll_rdma_knomial_children(0, 1, k, buf) == 0 && buf[0] == SENTINEL,
              "radix %d: P=1 root has children", k);
        CHECK(coll_rdma_knomial_parent(0, 1, k) == -1, "radix %d: parent(0) != -1", k);
        CHECK(coll_rdma_knomial_level(0, 1, k) == 0, "radix %d: level(0) != 0", k);
        CHECK(coll_rdma_knomial_max_children(1, k) == 0, "radix %d: max_children != 0", k);
        CHECK(coll_rdma_knomial_child_slot(0, 1, k) == -1, "radix %d: slot(0) != -1", k);
    }
    for (int n = 1; n <= MAX_N; ++n) {
        to[0] = from[0] = SENTINEL;
        CHECK(coll_rdma_nway_peers(0, 1, n, 0, to, from) == 0 &&
              to[0] == SENTINEL && from[0] == SENTINEL, "n=%d: P=1 has peers", n);
    }
    CHECK(coll_rdma_sched_rounds(0, 2) == 0, "rounds(0,2) != 0");
    end_case();
}

/* large sizes: no overflow, rounds bounded */
void check_edge_large(void)
{
    static const int sizes[] = { 1 << 30, (1 << 30) + 1, INT_MAX - 1, INT_MAX };
    int buf[MAXCH + GUARD];

    begin_case("edge_large", INT_MAX, 0);
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); ++s) {
        int P = sizes[s];
        for (int k = MIN_RADIX; k <= MAX_N + 1; ++k) {
            int R = coll_rdma_sched_rounds(P, k);
            CHECK(R == ref_rounds(P, k) && R <= COLL_RDMA_SCHED_MAX_ROUNDS,
                  "rounds(%d,%d)=%d expected %d", P, k, R, ref_rounds(P, k));
            if (k > MAX_RADIX) {
                continue;
            }
            int vs[] = { 0, 1, P - 1, P / 2, P / k * (k - 1) };
            for (size_t a = 0; a < sizeof(vs) / sizeof(vs[0]); ++a) {
                int v = vs[a], c = coll_rdma_knomial_children(v, P, k, buf);
                CHECK(c >= 0 && c <= coll_rdma_knomial_max_children(P, k),
                      "size %d radix %d: children(%d) count %d", P, k, v, c);
                for (int i = 0; i < c && i < MAXCH; ++i) {
                    CHECK(buf[i] > v && buf[i] < P &&
                          coll_rdma_knomial_parent(buf[i], P, k) == v,
                          "size %d radix %d: child %d of %d bad", P, k, buf[i], v);
                }
                if (v > 0) {
                    int p = coll_rdma_knomial_parent(v, P, k);
                    CHECK(p >= 0 && p < v, "size %d radix %d: parent(%d)=%d", P, k, v, p);
                }
            }
        }
        for (int n = 1; n <= MAX_N; ++n) {
            int R = coll_rdma_sched_rounds(P, n + 1), to[MAX_N], from[MAX_N];
            for (int r = 0; r < R; ++r) {
                int c = coll_rdma_nway_peers(P - 1, P, n, r, to, from);
                CHECK(c >= 1 && c <= n, "size %d n %d round %d: %d peers", P, n, r, c);
                for (int j = 0; j < c && j < MAX_N; ++j) {
                    CHECK(to[j] >= 0 && to[j] < P && from[j] >= 0 && from[j] < P &&
                          to[j] != P - 1 && from[j] != P - 1,
                          "size %d n %d round %d: bad peer %d/%d", P, n, r, to[j], from[j]);
                }
            }
        }
    }
    end_case();
}
