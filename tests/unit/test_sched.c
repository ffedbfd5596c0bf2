/*
 * Exhaustive unit test for the pure schedule code of coll/rdma
 * (coll_rdma_sched.h / coll_rdma_sched.c).  No MPI, no external libraries.
 *
 *   gcc -O2 -std=c99 -Wall -Wextra -I ompi-coll-rdma \
 *       tests/unit/test_sched.c ompi-coll-rdma/coll_rdma_sched.c -o test_sched
 *
 * Every (check family, P, radix-or-n) combination is one case.  Sizes
 * P = 1..MAX_P, tree radix 2..8, n-way n = 1..8.  Prints one line per
 * failure (at most MAX_REPORT) and finally "N passed, M failed"; exits
 * non-zero when M > 0.
 */
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

static int n_passed, n_failed, n_reported;
static int case_bad;                 /* current case already failed */
static const char *case_name;
static int case_p, case_k;

static void begin_case(const char *name, int p, int k)
{
    case_name = name;
    case_p = p;
    case_k = k;
    case_bad = 0;
}

static void end_case(void)
{
    if (case_bad) {
        ++n_failed;
    } else {
        ++n_passed;
    }
}

/* Record a failure; returns 0 so callers can write `return fail(...)`. */
static int fail(const char *fmt, ...)
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

#define CHECK(cond, ...) do { if (!(cond)) { fail(__VA_ARGS__); } } while (0)
/* Stop the current case after its first failure (avoids cascades). */
#define REQUIRE(cond, ...) do { if (!(cond)) { fail(__VA_ARGS__); return; } } while (0)

/* ---- independent reference arithmetic ---- */

/* smallest r with base^r >= size (0 for size <= 1) */
static int ref_rounds(long long size, int base)
{
    int r = 0;
    long long rem = size;          /* ceil(size / base^r) */

    while (rem > 1) {
        rem = (rem + base - 1) / base;
        ++r;
    }
    return r;
}

static long long ipow(int b, int e)
{
    long long x = 1;
    while (e-- > 0) {
        x *= b;
    }
    return x;
}

/* position of lowest nonzero base-k digit of v > 0 */
static int ref_level(int v, int k)
{
    int l = 0;
    while (v % k == 0) {
        v /= k;
        ++l;
    }
    return l;
}

/* ---- cached tree for one (P, radix) ---- */

static int t_parent[MAX_P], t_level[MAX_P], t_slot[MAX_P];
static int t_nch[MAX_P], t_ch[MAX_P][MAXCH];
static int t_rounds, t_maxch;

/* Query the library for the whole tree; checks output-array bounds. */
static void load_tree(int P, int k)
{
    int buf[MAXCH + GUARD];

    t_rounds = coll_rdma_sched_rounds(P, k);
    t_maxch = coll_rdma_knomial_max_children(P, k);
    for (int v = 0; v < P; ++v) {
        t_parent[v] = coll_rdma_knomial_parent(v, P, k);
        t_level[v] = coll_rdma_knomial_level(v, P, k);
        t_slot[v] = coll_rdma_knomial_child_slot(v, P, k);
        for (int i = 0; i < MAXCH + GUARD; ++i) {
            buf[i] = SENTINEL;
        }
        t_nch[v] = coll_rdma_knomial_children(v, P, k, buf);
        if (t_nch[v] < 0 || t_nch[v] > MAXCH) {
            t_nch[v] = -1;          /* flagged by structure check */
            continue;
        }
        for (int i = t_nch[v]; i < MAXCH + GUARD; ++i) {
            if (buf[i] != SENTINEL) {
                t_nch[v] = -2;      /* wrote past its returned count */
                break;
            }
        }
        if (t_nch[v] >= 0) {
            memcpy(t_ch[v], buf, sizeof(int) * (size_t) t_nch[v]);
        }
    }
}

/* rounds, level(0), max_children against reference formulas */
static void check_tree_rounds(int P, int k)
{
    int R = ref_rounds(P, k);

    CHECK(t_rounds == R, "rounds=%d expected ceil(log_%d %d)=%d", t_rounds, k, P, R);
    CHECK(t_rounds <= COLL_RDMA_SCHED_MAX_ROUNDS, "rounds=%d > MAX_ROUNDS", t_rounds);
    CHECK(ipow(k, R) >= P && (R == 0 || ipow(k, R - 1) < P),
          "reference rounds inconsistent");
    CHECK(t_maxch == (k - 1) * R, "max_children=%d expected %d", t_maxch, (k - 1) * R);
    CHECK(t_level[0] == R, "level(0)=%d expected rounds=%d", t_level[0], R);
}

/* parent/children consistency, ranges, duplicates, connectivity, acyclicity */
static void check_tree_structure(int P, int k)
{
    static int seen_as_child[MAX_P], mark[MAX_P];
    (void) k;

    REQUIRE(t_parent[0] == -1, "parent(0)=%d expected -1", t_parent[0]);
    memset(seen_as_child, 0, sizeof(seen_as_child));
    for (int v = 0; v < P; ++v) {
        REQUIRE(t_nch[v] != -1, "children(%d) returned bad count", v);
        REQUIRE(t_nch[v] != -2, "children(%d) wrote past its returned count", v);
        REQUIRE(t_nch[v] <= t_maxch, "children(%d) count %d > max_children %d",
                v, t_nch[v], t_maxch);
        memset(mark, 0, sizeof(int) * (size_t) P);
        for (int i = 0; i < t_nch[v]; ++i) {
            int c = t_ch[v][i];
            REQUIRE(c >= 0 && c < P, "child %d of %d out of range", c, v);
            REQUIRE(c != v, "vrank %d is its own child", v);
            REQUIRE(!mark[c], "child %d listed twice under %d", c, v);
            mark[c] = 1;
            REQUIRE(t_parent[c] == v, "child %d of %d has parent %d", c, v, t_parent[c]);
            ++seen_as_child[c];
        }
    }
    REQUIRE(seen_as_child[0] == 0, "root listed as a child");
    for (int v = 1; v < P; ++v) {
        int p = t_parent[v];
        REQUIRE(p >= 0 && p < P, "parent(%d)=%d out of range", v, p);
        REQUIRE(p != v, "parent(%d) is itself", v);
        REQUIRE(seen_as_child[v] == 1,
                "vrank %d appears %d times in children lists (parent %d)",
                v, seen_as_child[v], p);
    }
    /* connected + acyclic: every chain reaches 0 within P-1 steps */
    for (int v = 1; v < P; ++v) {
        int x = v, steps = 0;
        while (x != 0 && steps < P) {
            x = t_parent[x];
            ++steps;
        }
        REQUIRE(x == 0, "vrank %d does not reach root (cycle)", v);
    }
}

/* exact match with the documented digit arithmetic */
static void check_tree_spec(int P, int k)
{
    for (int v = 1; v < P; ++v) {
        int l = ref_level(v, k);
        long long place = ipow(k, l);
        int digit = (int) ((v / place) % k);
        int par = (int) (v - digit * place);

        REQUIRE(t_level[v] == l, "level(%d)=%d expected %d", v, t_level[v], l);
        REQUIRE(l < t_rounds, "level(%d)=%d >= rounds %d", v, l, t_rounds);
        REQUIRE(t_parent[v] == par, "parent(%d)=%d expected %d", v, t_parent[v], par);
        REQUIRE(t_slot[v] == l * (k - 1) + digit - 1, "slot(%d)=%d expected %d",
                v, t_slot[v], l * (k - 1) + digit - 1);
    }
    for (int v = 0; v < P; ++v) {
        int top = (v == 0) ? t_rounds : ref_level(v, k);
        int n = 0;
        for (int i = top - 1; i >= 0; --i) {
            for (int j = 1; j < k; ++j) {
                long long c = v + (long long) j * ipow(k, i);
                if (c >= P) {
                    break;
                }
                REQUIRE(n < t_nch[v] && t_ch[v][n] == c,
                        "children(%d)[%d]=%d expected %lld", v, n,
                        n < t_nch[v] ? t_ch[v][n] : -1, c);
                ++n;
            }
        }
        REQUIRE(n == t_nch[v], "children(%d) count %d expected %d", v, t_nch[v], n);
    }
}

/* child slots: distinct per parent, in [0, max_children) */
static void check_tree_slots(int P, int k)
{
    static int used[MAXCH];
    (void) k;

    CHECK(t_slot[0] == -1, "child_slot(0)=%d expected -1", t_slot[0]);
    for (int v = 0; v < P; ++v) {
        if (t_nch[v] < 0) {
            return;
        }
        memset(used, 0, sizeof(used));
        for (int i = 0; i < t_nch[v]; ++i) {
            int c = t_ch[v][i], s = t_slot[c];
            REQUIRE(s >= 0 && s < t_maxch, "slot(%d)=%d not in [0,%d)", c, s, t_maxch);
            REQUIRE(!used[s], "slot %d used twice among children of %d", s, v);
            used[s] = 1;
        }
    }
}

/* top-down broadcast: rounds R-1 .. 0, child v receives in round level(v) */
static void check_tree_bcast(int P, int k)
{
    static int have[MAX_P], recv_round[MAX_P], got[MAX_P];

    if (t_nch[0] < 0) {
        REQUIRE(0, "children lists unusable");
    }
    memset(have, 0, sizeof(have));
    memset(got, 0, sizeof(got));
    have[0] = 1;
    for (int v = 1; v < P; ++v) {
        recv_round[v] = t_level[v];
        REQUIRE(recv_round[v] >= 0 && recv_round[v] < t_rounds,
                "vrank %d receives in round %d outside [0,%d)", v, recv_round[v], t_rounds);
        if (t_parent[v] != 0) {
            REQUIRE(t_level[t_parent[v]] > t_level[v],
                    "parent %d of %d receives in round %d, not after child round %d",
                    t_parent[v], v, t_level[t_parent[v]], t_level[v]);
        }
    }
    for (int v = 0; v < P; ++v) {
        int per_round[COLL_RDMA_SCHED_MAX_ROUNDS + 1] = {0};
        for (int i = 0; i < t_nch[v]; ++i) {
            int l = t_level[t_ch[v][i]];
            if (i > 0) {
                int pl = t_level[t_ch[v][i - 1]];
                REQUIRE(l <= pl, "children(%d): level %d after level %d (not largest first)",
                        v, l, pl);
            }
            if (l >= 0 && l <= COLL_RDMA_SCHED_MAX_ROUNDS) {
                REQUIRE(++per_round[l] <= k - 1,
                        "vrank %d sends to more than %d children in round %d", v, k - 1, l);
            }
        }
    }
    /* synchronous simulation; time runs from round R-1 down to 0 */
    for (int r = t_rounds - 1; r >= 0; --r) {
        static int newly[MAX_P];
        int nnew = 0;
        for (int p = 0; p < P; ++p) {
            for (int i = 0; i < t_nch[p]; ++i) {
                int c = t_ch[p][i];
                if (t_level[c] != r) {
                    continue;
                }
                REQUIRE(have[p], "round %d: parent %d sends to %d before holding data", r, p, c);
                REQUIRE(!got[c], "vrank %d receives twice", c);
                got[c] = 1;
                newly[nnew++] = c;
            }
        }
        for (int i = 0; i < nnew; ++i) {
            have[newly[i]] = 1;
        }
    }
    for (int v = 0; v < P; ++v) {
        REQUIRE(have[v], "vrank %d never receives the broadcast", v);
    }
}

/* bottom-up reduce with per-input counters: rounds 0 .. R-1 */
static void check_tree_reduce(int P, int k)
{
    static unsigned short cnt[MAX_P][MAX_P];
    static int sent[MAX_P];
    (void) k;

    if (t_nch[0] < 0) {
        REQUIRE(0, "children lists unusable");
    }
    memset(sent, 0, sizeof(sent));
    for (int v = 0; v < P; ++v) {
        memset(cnt[v], 0, sizeof(unsigned short) * (size_t) P);
        cnt[v][v] = 1;
    }
    for (int r = 0; r < t_rounds; ++r) {
        /* all sends of round r read the state before the round */
        for (int v = 1; v < P; ++v) {
            if (t_level[v] != r) {
                continue;
            }
            int p = t_parent[v];
            REQUIRE(p >= 0 && p < P, "parent(%d)=%d", v, p);
            REQUIRE(!sent[p], "round %d: %d sends into %d which already sent", r, v, p);
            for (int i = 0; i < t_nch[v]; ++i) {
                REQUIRE(sent[t_ch[v][i]] && t_level[t_ch[v][i]] < r,
                        "round %d: %d sends before child %d contributed", r, v, t_ch[v][i]);
            }
        }
        for (int v = 1; v < P; ++v) {
            if (t_level[v] != r) {
                continue;
            }
            for (int x = 0; x < P; ++x) {
                cnt[t_parent[v]][x] += cnt[v][x];
            }
            sent[v] = 1;
        }
    }
    for (int v = 1; v < P; ++v) {
        REQUIRE(sent[v], "vrank %d never contributes", v);
    }
    for (int x = 0; x < P; ++x) {
        REQUIRE(cnt[0][x] == 1, "root holds input %d %d times", x, cnt[0][x]);
    }
}

/* ---- n-way dissemination ---- */

static int g_to[MAX_P][COLL_RDMA_SCHED_MAX_ROUNDS][MAX_N];
static int g_from[MAX_P][COLL_RDMA_SCHED_MAX_ROUNDS][MAX_N];
static int g_cnt[MAX_P][COLL_RDMA_SCHED_MAX_ROUNDS];

/* query all peers; checks bounds, NULL handling, ranges, self, duplicates */
static void check_nway_peers(int P, int n, int R)
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
static void check_nway_knowledge(int P, int n, int R)
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

static void check_nway_slots(int P, int n, int R)
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

static void check_edge_p1(void)
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
static void check_edge_large(void)
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

/* ---- pairwise exchange ---- */

/*
 * Simulate the pairwise-exchange allreduce: fold, log2(p2) exchanges in which
 * both partners compute (lower partial) op (higher partial), result back to
 * the folded ranks.  A partial is modelled by per-input counts and by a hash
 * of the ordered expression, so "every input exactly once" and "every rank
 * holds the same expression (same bits)" are both checked.
 */
static int pw_cnt[MAX_P][MAX_P];
static unsigned long long pw_hash[MAX_P], pw_pow[MAX_P];

static void pw_combine(int dst, int lower, int higher, int P)
{
    unsigned long long h = pw_hash[lower] * pw_pow[higher] + pw_hash[higher];
    unsigned long long pw = pw_pow[lower] * pw_pow[higher];
    for (int i = 0; i < P; ++i) {
        pw_cnt[dst][i] = pw_cnt[lower][i] + pw_cnt[higher][i];
    }
    pw_hash[dst] = h;
    pw_pow[dst] = pw;
}

static void check_pairwise(int P)
{
    static int new_cnt[MAX_P][MAX_P];
    static unsigned long long new_hash[MAX_P], new_pow[MAX_P];
    int p2 = coll_rdma_pow2_floor(P), steps = coll_rdma_pairwise_steps(P);

    REQUIRE(p2 >= 1 && p2 <= P && 2 * p2 > P && (p2 & (p2 - 1)) == 0, "pow2_floor=%d", p2);
    REQUIRE((1 << steps) == p2, "steps=%d for p2=%d", steps, p2);
    for (int r = 0; r < P; ++r) {
        int f = coll_rdma_pairwise_fold_partner(r, P);
        int want = r >= p2 ? r - p2 : (r < P - p2 ? r + p2 : -1);
        REQUIRE(f == want, "fold partner of %d is %d, want %d", r, f, want);
        if (f >= 0) {
            REQUIRE(coll_rdma_pairwise_fold_partner(f, P) == r, "fold not symmetric at %d", r);
        }
        for (int i = 0; i < P; ++i) {
            pw_cnt[r][i] = i == r;
        }
        pw_hash[r] = 1000003ull + (unsigned long long) r;
        pw_pow[r] = 1315423911ull;
    }
    for (int r = p2; r < P; ++r) {
        /* absorb: order does not matter (one rank computes), model it fixed */
        pw_combine(r - p2, r - p2, r, P);
    }
    for (int step = 0; step < steps; ++step) {
        for (int r = 0; r < p2; ++r) {
            int q = coll_rdma_pairwise_partner(r, step);
            REQUIRE(q >= 0 && q < p2 && q != r, "partner %d of %d at step %d", q, r, step);
            REQUIRE(coll_rdma_pairwise_partner(q, step) == r, "partner not symmetric");
            for (int i = 0; i < P; ++i) {
                new_cnt[r][i] = pw_cnt[r < q ? r : q][i] + pw_cnt[r < q ? q : r][i];
            }
            new_hash[r] = pw_hash[r < q ? r : q] * pw_pow[r < q ? q : r] + pw_hash[r < q ? q : r];
            new_pow[r] = pw_pow[r] * pw_pow[q];
        }
        for (int r = 0; r < p2; ++r) {
            memcpy(pw_cnt[r], new_cnt[r], sizeof(int) * P);
            pw_hash[r] = new_hash[r];
            pw_pow[r] = new_pow[r];
        }
    }
    for (int r = p2; r < P; ++r) {
        memcpy(pw_cnt[r], pw_cnt[r - p2], sizeof(int) * P);
        pw_hash[r] = pw_hash[r - p2];
    }
    for (int r = 0; r < P; ++r) {
        for (int i = 0; i < P; ++i) {
            REQUIRE(pw_cnt[r][i] == 1, "rank %d holds input %d %d times", r, i, pw_cnt[r][i]);
        }
        REQUIRE(pw_hash[r] == pw_hash[0], "rank %d holds a different expression than rank 0", r);
    }
}

/* ---- Bruck's allgather, Bruck's index alltoall, ring allgather ---- */

static int bk_hold[MAX_P][MAX_P], bk_next[MAX_P][MAX_P], bk_got[MAX_P][MAX_P];
static int bk_pos[MAX_P + GUARD];

/*
 * Simulate Bruck's allgather: every rank starts with its own block at
 * position 0; each transfer copies the sender's positions [0, count) to the
 * receiver's [dist, dist + count), using only what the sender held before
 * the round.  At the end, position r of rank p holds block (p + r) % P, each
 * position was received exactly once, and the packed slot layout matches.
 */
static void check_bruck_allgather(int P, int k)
{
    int R = ref_rounds(P, k);
    long before = 0;

    REQUIRE(coll_rdma_sched_rounds(P, k) == R, "rounds");
    for (int p = 0; p < P; ++p) {
        for (int r = 0; r < P; ++r) {
            bk_hold[p][r] = r == 0 ? p : -1;
            bk_got[p][r] = r == 0;
        }
    }
    for (int t = 0; t < R + 2; ++t) {
        long long span = ipow(k, t);
        memcpy(bk_next, bk_hold, sizeof(bk_hold));
        for (int j = 0; j <= k; ++j) {
            int count = -1;
            int dist = coll_rdma_bruck_allgather_step(P, k, t, j, &count);
            long long want = (j >= 1 && j < k && j * span < P) ? j * span : 0;
            REQUIRE(dist == want, "round %d j %d: distance %d, want %lld", t, j, dist, want);
            if (0 == dist) {
                REQUIRE(0 == count, "round %d j %d: count %d for no transfer", t, j, count);
                continue;
            }
            REQUIRE(t < R, "transfer in round %d >= rounds %d", t, R);
            REQUIRE(count >= 1 && count <= span && dist + count <= P,
                    "round %d j %d: count %d", t, j, count);
            REQUIRE(coll_rdma_bruck_blocks_before(P, k, t * (k - 1) + j - 1, false) == before,
                    "round %d j %d: blocks before slot", t, j);
            REQUIRE(before == dist - 1, "round %d j %d: slots not packed in position order", t, j);
            before += count;
            for (int p = 0; p < P; ++p) {
                int to = (int) (((long long) p - dist % P + P) % P);
                for (int x = 0; x < count; ++x) {
                    REQUIRE(bk_hold[p][x] >= 0, "rank %d sends position %d it does not hold", p, x);
                    REQUIRE(!bk_got[to][dist + x], "rank %d gets position %d twice", to, dist + x);
                    bk_got[to][dist + x] = 1;
                    bk_next[to][dist + x] = bk_hold[p][x];
                }
            }
        }
        memcpy(bk_hold, bk_next, sizeof(bk_hold));
    }
    REQUIRE(coll_rdma_bruck_blocks_before(P, k, R * (k - 1), false) == (P > 1 ? P - 1 : 0),
            "region total %ld", coll_rdma_bruck_blocks_before(P, k, R * (k - 1), false));
    for (int p = 0; p < P; ++p) {
        for (int r = 0; r < P; ++r) {
            /* the final rotation: position r is block (p + r) % P */
            REQUIRE(bk_got[p][r] && bk_hold[p][r] == (p + r) % P,
                    "rank %d position %d holds block %d, want %d", p, r, bk_hold[p][r],
                    (p + r) % P);
        }
    }
}

/*
 * Simulate Bruck's index alltoall with blocks named src * P + dst: after the
 * local rotation position r of rank p holds (p, p + r); each round moves the
 * listed positions at once.  At the end position r of rank p holds block
 * (p - r, p), so every rank holds every block meant for it exactly once.
 */
static void check_bruck_alltoall(int P, int k)
{
    int R = ref_rounds(P, k);
    long before = 0;

    for (int p = 0; p < P; ++p) {
        for (int r = 0; r < P; ++r) {
            bk_hold[p][r] = p * P + (p + r) % P;
        }
    }
    for (int t = 0; t < R + 2; ++t) {
        long long span = ipow(k, t);
        memcpy(bk_next, bk_hold, sizeof(bk_hold));
        for (int p = 0; p < P; ++p) {
            memset(bk_got[p], 0, sizeof(int) * P);
        }
        for (int j = 0; j <= k; ++j) {
            int count = -1, n = 0;
            long long want = (j >= 1 && j < k && j * span < P) ? j * span : 0;
            int dist;

            for (int g = 0; g < GUARD; ++g) {
                bk_pos[P + g] = SENTINEL;
            }
            dist = coll_rdma_bruck_alltoall_step(P, k, t, j, bk_pos, &count);
            REQUIRE(dist == want, "round %d j %d: distance %d, want %lld", t, j, dist, want);
            for (int g = 0; g < GUARD; ++g) {
                REQUIRE(bk_pos[P + g] == SENTINEL, "positions[] overrun");
            }
            /* the positions are exactly those with digit t == j, ascending */
            for (int r = 0; r < P && 0 != dist; ++r) {
                if ((r / span) % k == j) {
                    REQUIRE(n < count && bk_pos[n] == r, "round %d j %d: position %d missing", t,
                            j, r);
                    ++n;
                }
            }
            REQUIRE(n == count, "round %d j %d: %d positions listed, want %d", t, j, count, n);
            if (0 == dist) {
                continue;
            }
            REQUIRE(t < R, "transfer in round %d >= rounds %d", t, R);
            {
                int c2 = -1;
                REQUIRE(coll_rdma_bruck_alltoall_step(P, k, t, j, NULL, &c2) == dist && c2 == count,
                        "count without positions");
            }
            REQUIRE(coll_rdma_bruck_blocks_before(P, k, t * (k - 1) + j - 1, true) == before,
                    "round %d j %d: blocks before slot", t, j);
            before += count;
            for (int p = 0; p < P; ++p) {
                int to = (int) ((p + dist) % P);
                for (int x = 0; x < count; ++x) {
                    int r = bk_pos[x];
                    REQUIRE(!bk_got[to][r], "rank %d gets position %d twice in a round", to, r);
                    bk_got[to][r] = 1;
                    bk_next[to][r] = bk_hold[p][r];
                }
            }
        }
        memcpy(bk_hold, bk_next, sizeof(bk_hold));
    }
    REQUIRE(coll_rdma_bruck_blocks_before(P, k, R * (k - 1), true) == before, "region total");
    for (int p = 0; p < P; ++p) {
        for (int r = 0; r < P; ++r) {
            int want = ((p - r + P) % P) * P + p;
            REQUIRE(bk_hold[p][r] == want, "rank %d position %d holds (%d,%d), want (%d,%d)", p, r,
                    bk_hold[p][r] / P, bk_hold[p][r] % P, want / P, want % P);
        }
    }
}

/* Ring allgather: each step forwards what arrived in the previous one. */
static void check_ring_allgather(int P)
{
    for (int p = 0; p < P; ++p) {
        for (int b = 0; b < P; ++b) {
            bk_got[p][b] = b == p;
        }
    }
    for (int s = 0; s < P - 1; ++s) {
        memcpy(bk_next, bk_got, sizeof(bk_got));
        for (int p = 0; p < P; ++p) {
            int b = coll_rdma_ring_allgather_block(p, P, s), to = (p + 1) % P;
            REQUIRE(b >= 0 && b < P && bk_got[p][b], "rank %d step %d sends block %d it lacks", p,
                    s, b);
            REQUIRE(s == 0 || b == coll_rdma_ring_allgather_block((p - 1 + P) % P, P, s - 1),
                    "rank %d step %d does not forward what it received", p, s);
            REQUIRE(!bk_got[to][b], "rank %d gets block %d twice", to, b);
            bk_next[to][b] = 1;
        }
        memcpy(bk_got, bk_next, sizeof(bk_got));
    }
    for (int p = 0; p < P; ++p) {
        for (int b = 0; b < P; ++b) {
            REQUIRE(bk_got[p][b], "rank %d lacks block %d", p, b);
        }
    }
}

/* ---- adapted n-way dissemination allreduce and Bruck's global combine ---- */

/*
 * Non-adaptable (n, P) for P <= 128, copied from the digest (seed 002
 * section 2.9, "Non-adaptable P <= 128"; verify/nway_table.py).  Ranges
 * written out.  n = 4 and n = 5 have none up to 128.
 */
static const int nonadapt_n1[] = {13,  21,  25,  26,  27,  29,  37,  41,  42,  43,  45,  49,
                                  50,  51,  52,  53,  54,  55,  57,  58,  59,  61,  69,  73,
                                  74,  75,  77,  81,  82,  83,  84,  85,  86,  87,  89,  90,
                                  91,  93,  97,  98,  99,  100, 101, 102, 103, 104, 105, 106,
                                  107, 108, 109, 110, 111, 113, 114, 115, 116, 117, 118, 119,
                                  121, 122, 123, 125};
static const int nonadapt_n2[] = {40,  41,  64,  65,  67,  68,  73,  74,  76,  77,  91,
                                  92,  94,  95,  100, 101, 103, 104, 112, 113, 115, 116,
                                  118, 119, 120, 121, 122, 123, 124, 125, 127, 128};
static const int nonadapt_n3[] = {85, 86, 87, 89, 90, 91, 101, 102, 103, 105, 106, 107};
#define NONADAPT_MAX_P 128

static int in_list(const int *list, size_t len, int P)
{
    for (size_t i = 0; i < len; ++i) {
        if (list[i] == P) {
            return 1;
        }
    }
    return 0;
}

/* Reference plan search, written independently of coll_rdma_nway_plan: the
 * prefix sizes as a table, every a below W, the digest's preference order.
 * Returns 0 and the plan or -1. */
static int ref_nway_plan(int P, int n, int *f_out, int *a_out, int *b_out)
{
    static unsigned char is_prefix[MAX_P + 1];
    int k = ref_rounds(P, n + 1);
    long long W = ipow(n + 1, k - 1);
    int best = -1;
    long long best_key = 0;

    memset(is_prefix, 0, sizeof(is_prefix));
    is_prefix[1] = 1;
    for (int l = 1; l <= k - 1; ++l) {
        for (int j = 1; j <= n; ++j) {
            long long x = (j + 1) * ipow(n + 1, l - 1);
            if (x <= MAX_P) {
                is_prefix[x] = 1;
            }
        }
    }
    for (int f = 0; f <= n; ++f) {
        for (long long a = 0; a < W; ++a) {
            long long b = (f + 1) * W + a - P;
            if ((a > 0 && (!is_prefix[a] || f + 1 > n)) || b < 0 || b > W
                || (b > 0 && !is_prefix[b])) {
                continue;
            }
            /* key: removal or not, removal size, messages */
            long long key = ((b != 0) << 30) + (b << 8) + f + (a > 0);
            if (best < 0 || key < best_key) {
                best = 1;
                best_key = key;
                *f_out = f;
                *a_out = (int) a;
                *b_out = (int) b;
            }
        }
    }
    return best < 0 ? -1 : 0;
}

/* Contribution counts per rank: cnt[p][q] = times input q is in rank p's
 * value.  Exact multisets, all ranks simulated. */
typedef unsigned short cnt_t;
static cnt_t s_acc[MAX_P][MAX_P], s_new[MAX_P][MAX_P], s_pre[MAX_P][MAX_P],
    s_tail[MAX_P][MAX_P];

static void cnt_add(cnt_t *dst, const cnt_t *src, int P)
{
    for (int q = 0; q < P; ++q) {
        dst[q] = (cnt_t) (dst[q] + src[q]);
    }
}

static void cnt_unit(cnt_t *dst, int p, int P)
{
    memset(dst, 0, sizeof(cnt_t) * (size_t) P);
    dst[p] = 1;
}

/* Every rank's value holds every input exactly once. */
static int cnt_exactly_once(cnt_t (*v)[MAX_P], int P, const char *what)
{
    for (int p = 0; p < P; ++p) {
        for (int q = 0; q < P; ++q) {
            if (v[p][q] != 1) {
                return fail("%s: rank %d holds input %d %d times", what, p, q, v[p][q]);
            }
        }
    }
    return 1;
}

static void check_nway_plan(int P, int n)
{
    coll_rdma_nway_plan_t plan;
    int f = -1, a = -1, b = -1;
    int rc = coll_rdma_nway_plan(P, n, &plan);
    int ref = ref_nway_plan(P, n, &f, &a, &b);

    REQUIRE((0 == rc) == (0 == ref), "plan %s, reference %s", rc ? "none" : "found",
            ref ? "none" : "found");
    if (P <= NONADAPT_MAX_P) {
        int listed = (1 == n && in_list(nonadapt_n1, sizeof(nonadapt_n1) / sizeof(int), P))
                     || (2 == n && in_list(nonadapt_n2, sizeof(nonadapt_n2) / sizeof(int), P))
                     || (3 == n && in_list(nonadapt_n3, sizeof(nonadapt_n3) / sizeof(int), P));
        REQUIRE(listed == (0 != rc), "adaptable=%d but the digest lists it as %s", 0 == rc,
                listed ? "not adaptable" : "adaptable");
    }
    if (0 != rc) {
        return;
    }
    REQUIRE(plan.full == f && plan.partial == a && plan.removal == b,
            "plan (f,a,b)=(%d,%d,%d), reference (%d,%d,%d)", plan.full, plan.partial,
            plan.removal, f, a, b);
    REQUIRE(plan.rounds == ref_rounds(P, n + 1) && plan.width == ipow(n + 1, plan.rounds - 1),
            "rounds %d width %d", plan.rounds, plan.width);
    REQUIRE((long long) (plan.full + 1) * plan.width + plan.partial - plan.removal == P,
            "P != (f+1)W + a - b");
    if (P == ipow(n + 1, plan.rounds)) {
        REQUIRE(plan.full == n && 0 == plan.partial && 0 == plan.removal,
                "P = (n+1)^k must be the plain algorithm (n, 0, 0)");
    }
}

static void check_nway_prefix_messages(int n)
{
    /* every prefix of up to MAX_P ranks and nothing else */
    for (int x = 1; x <= 4 * MAX_P; ++x) {
        int t = coll_rdma_nway_prefix_messages(n, x);
        int expect = 1 == x ? 0 : -1;
        for (int l = 1; (long long) 2 * ipow(n + 1, l - 1) <= x; ++l) {
            for (int j = 1; j <= n; ++j) {
                if ((j + 1) * ipow(n + 1, l - 1) == x) {
                    expect = (l - 1) * n + j;
                }
            }
        }
        REQUIRE(t == expect, "prefix_messages(n=%d, %d)=%d expected %d", n, x, t, expect);
    }
}

/* Simulate the adapted n-way allreduce on all ranks with the schedule's
 * peers, prefixes and last-round plan. */
/* Plans and Bruck rounds near INT_MAX: no overflow, peers in range. */
static void check_edge_large_allreduce(void)
{
    static const int sizes[] = {1 << 30, (1 << 30) + 1, INT_MAX - 1, INT_MAX};
    static const int ns[] = {1, 2, 3, 5, 8, 64};
    int to[64], from[64], nfull;

    begin_case("edge_large_allreduce", INT_MAX, 0);
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); ++s) {
        int P = sizes[s];
        for (size_t ni = 0; ni < sizeof(ns) / sizeof(ns[0]); ++ni) {
            int n = ns[ni], k = ref_rounds(P, n + 1);
            coll_rdma_nway_plan_t plan;
            if (0 == coll_rdma_nway_plan(P, n, &plan)) {
                CHECK(plan.rounds == k && plan.width == ipow(n + 1, k - 1)
                          && (long long) (plan.full + 1) * plan.width + plan.partial - plan.removal
                                 == P,
                      "size %d n %d: plan k=%d W=%d (%d,%d,%d)", P, n, plan.rounds, plan.width,
                      plan.full, plan.partial, plan.removal);
                int c = coll_rdma_nway_last_peers(&plan, P - 1, P, to, from);
                for (int i = 0; i < c; ++i) {
                    CHECK(to[i] >= 0 && to[i] < P && from[i] >= 0 && from[i] < P
                              && to[i] != P - 1 && from[i] != P - 1,
                          "size %d n %d: last peer %d/%d", P, n, to[i], from[i]);
                }
            }
            for (int r = 0; r < k; ++r) {
                int c = coll_rdma_bruck_round(P - 1, P, n, r, to, from, &nfull);
                CHECK(c <= n && nfull <= c, "size %d n %d round %d: %d messages", P, n, r, c);
                for (int i = 0; i < c; ++i) {
                    CHECK(to[i] >= 0 && to[i] < P && from[i] >= 0 && from[i] < P
                              && to[i] != P - 1 && from[i] != P - 1,
                          "size %d n %d round %d: bad peer %d/%d", P, n, r, to[i], from[i]);
                }
            }
        }
    }
    end_case();
}

static void check_nway_allreduce(int P, int n)
{
    coll_rdma_nway_plan_t plan;
    int to[MAX_N + GUARD], from[MAX_N + GUARD], cnt;
    int tail_on[MAX_P], sent_pre[MAX_P];
    int ta, tb, k, nslots = P - 1 < n ? P - 1 : n;

    if (0 != coll_rdma_nway_plan(P, n, &plan)) {
        return;
    }
    k = plan.rounds;
    ta = plan.partial > 0 ? coll_rdma_nway_prefix_messages(n, plan.partial) : -1;
    tb = plan.removal > 0 ? coll_rdma_nway_prefix_messages(n, plan.removal) : -1;
    REQUIRE(plan.partial == 0 || (ta >= 0 && ta <= (k - 1) * n), "partial prefix %d unreachable",
            plan.partial);
    REQUIRE(plan.removal == 0 || (tb >= 0 && tb <= (k - 1) * n), "removal prefix %d unreachable",
            plan.removal);
    for (int p = 0; p < P; ++p) {
        cnt_unit(s_acc[p], p, P);
        memset(s_tail[p], 0, sizeof(cnt_t) * (size_t) P);
        tail_on[p] = 0 == tb;
        sent_pre[p] = 0 == ta;
        if (0 == ta) {
            cnt_unit(s_pre[p], p, P);
        }
    }
    for (int r = 0; r < k - 1; ++r) {
        for (int p = 0; p < P; ++p) {
            cnt = coll_rdma_nway_peers(p, P, n, r, NULL, from);
            REQUIRE(cnt == n, "round %d of %d: %d peers, want n", r, k, cnt);
            memcpy(s_new[p], s_acc[p], sizeof(cnt_t) * (size_t) P);
            for (int j = 1; j <= n; ++j) {
                int t = r * n + j;
                cnt_add(s_new[p], s_acc[from[j - 1]], P);
                if (tail_on[p]) {
                    cnt_add(s_tail[p], s_acc[from[j - 1]], P);
                }
                if (t == ta) {
                    memcpy(s_pre[p], s_new[p], sizeof(cnt_t) * (size_t) P);
                    sent_pre[p] = 1;
                }
                if (t == tb) {
                    tail_on[p] = 1;
                }
            }
        }
        memcpy(s_acc, s_new, sizeof(s_acc));
    }
    for (int p = 0; p < P; ++p) {
        for (int x = 0; x < MAX_N + GUARD; ++x) {
            to[x] = from[x] = SENTINEL;
        }
        cnt = coll_rdma_nway_last_peers(&plan, p, P, to, from);
        REQUIRE(cnt == plan.full + (plan.partial > 0) && cnt <= nslots,
                "last round: %d messages (plan f=%d a=%d, at most %d)", cnt, plan.full,
                plan.partial, nslots);
        for (int x = cnt; x < MAX_N + GUARD; ++x) {
            REQUIRE(to[x] == SENTINEL && from[x] == SENTINEL, "last round wrote past count");
        }
        for (int i = 0; i < cnt; ++i) {
            int back[MAX_N];
            REQUIRE(to[i] >= 0 && to[i] < P && from[i] >= 0 && from[i] < P && to[i] != p
                        && from[i] != p,
                    "last round peer %d: to %d from %d", i + 1, to[i], from[i]);
            for (int x = 0; x < i; ++x) {
                REQUIRE(to[x] != to[i] && from[x] != from[i], "last round: duplicate peer");
            }
            /* the sender of our message i lists us as its receiver i */
            coll_rdma_nway_last_peers(&plan, from[i], P, back, NULL);
            REQUIRE(back[i] == p, "last round: %d hears from %d at %d, which sends to %d", p,
                    from[i], i + 1, back[i]);
            REQUIRE(coll_rdma_nway_slot(n, k - 1, i + 1) < k * nslots,
                    "last-round slot %d beyond %d", coll_rdma_nway_slot(n, k - 1, i + 1),
                    k * nslots);
        }
        memcpy(s_new[p], plan.removal > 0 ? s_tail[p] : s_acc[p], sizeof(cnt_t) * (size_t) P);
        for (int i = 0; i < plan.full; ++i) {
            cnt_add(s_new[p], s_acc[from[i]], P);
        }
        if (plan.partial > 0) {
            REQUIRE(sent_pre[from[plan.full]], "partial sender never reached its prefix");
            cnt_add(s_new[p], s_pre[from[plan.full]], P);
        }
    }
    (void) cnt_exactly_once(s_new, P, "nway allreduce");
}

/* Simulate Bruck's global combine on all ranks with the schedule's peers. */
static void check_bruck(int P, int n)
{
    static cnt_t s1[MAX_P][MAX_P];
    int to[MAX_N + GUARD], from[MAX_N + GUARD], back[MAX_N + GUARD];
    int k = ref_rounds(P, n + 1), nslots = P - 1 < n ? P - 1 : n;
    long long c = 0;

    for (int p = 0; p < P; ++p) {
        memset(s_acc[p], 0, sizeof(cnt_t) * (size_t) P); /* S0: empty */
        cnt_unit(s1[p], p, P);
    }
    for (int r = 0; r < k; ++r) {
        int alpha = -1;
        long long digit = (P - 1) / ipow(n + 1, k - 1 - r) % (n + 1);
        for (int p = 0; p < P; ++p) {
            int nfull = -1, back_full;
            for (int x = 0; x < MAX_N + GUARD; ++x) {
                to[x] = from[x] = SENTINEL;
            }
            int cnt = coll_rdma_bruck_round(p, P, n, r, to, from, &nfull);
            REQUIRE(nfull == digit, "round %d: alpha %d, digit of P-1 is %lld", r, nfull, digit);
            REQUIRE(cnt == nfull + (c > 0 ? n - nfull : 0) && cnt <= nslots,
                    "round %d: %d messages, alpha %d, c %lld", r, cnt, nfull, c);
            REQUIRE(coll_rdma_bruck_round(p, P, n, r, NULL, NULL, &back_full) == cnt,
                    "count differs with NULL arrays");
            for (int x = cnt; x < MAX_N + GUARD; ++x) {
                REQUIRE(to[x] == SENTINEL && from[x] == SENTINEL, "wrote past count");
            }
            memcpy(s_new[p], s_acc[p], sizeof(cnt_t) * (size_t) P);
            for (int i = 0; i < cnt; ++i) {
                REQUIRE(to[i] >= 0 && to[i] < P && from[i] >= 0 && from[i] < P && to[i] != p
                            && from[i] != p,
                        "round %d message %d: to %d from %d", r, i, to[i], from[i]);
                for (int x = 0; x < i; ++x) {
                    REQUIRE(to[x] != to[i] && from[x] != from[i], "round %d: duplicate peer", r);
                }
                coll_rdma_bruck_round(to[i], P, n, r, NULL, back, &back_full);
                REQUIRE(back[i] == p, "round %d: %d sends message %d to %d, which hears from %d",
                        r, p, i, to[i], back[i]);
                REQUIRE(coll_rdma_nway_slot(n, r, i + 1) < k * nslots, "slot beyond region");
                /* S1 messages first, then S0 messages */
                cnt_add(s_new[p], i < nfull ? s1[from[i]] : s_acc[from[i]], P);
            }
            alpha = nfull;
        }
        for (int p = 0; p < P; ++p) {
            memcpy(s_acc[p], s_new[p], sizeof(cnt_t) * (size_t) P);
            cnt_unit(s1[p], p, P);
            cnt_add(s1[p], s_acc[p], P);
        }
        c = (n + 1) * c + alpha;
    }
    REQUIRE(c == P - 1, "c = %lld after the last round, want P-1", c);
    (void) cnt_exactly_once(s1, P, "bruck");
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
