/*
 * Part of test_sched (tests/unit/test_sched.c): the k-nomial tree against
 * the documented digit arithmetic for every (P, radix): structure, child
 * slots, broadcast and reduce rounds.
 */
#include "test_sched.h"

/* ---- cached tree for one (P, radix) ---- */

static int t_parent[MAX_P], t_level[MAX_P], t_slot[MAX_P];
static int t_nch[MAX_P], t_ch[MAX_P][MAXCH];
static int t_rounds, t_maxch;

/* Query the library for the whole tree; checks output-array bounds. */
void load_tree(int P, int k)
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
void check_tree_rounds(int P, int k)
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
void check_tree_structure(int P, int k)
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
void check_tree_spec(int P, int k)
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
void check_tree_slots(int P, int k)
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
void check_tree_bcast(int P, int k)
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
void check_tree_reduce(int P, int k)
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
