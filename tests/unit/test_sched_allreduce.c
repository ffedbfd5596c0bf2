/*
 * Part of test_sched: the adapted n-way dissemination allreduce (plans,
 * prefix messages, simulation) and Bruck's global combine.
 */
#include "test_sched.h"

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

void check_nway_plan(int P, int n)
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

void check_nway_prefix_messages(int n)
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

/* Plans and Bruck rounds near INT_MAX: no overflow, peers in range. */
void check_edge_large_allreduce(void)
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

/* Simulate the adapted n-way allreduce on all ranks with the schedule's
 * peers, prefixes and last-round plan. */
void check_nway_allreduce(int P, int n)
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
void check_bruck(int P, int n)
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
