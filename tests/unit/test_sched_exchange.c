/*
 * Part of test_sched: the pairwise-exchange allreduce, Bruck's allgather,
 * Bruck's index alltoall and the ring allgather, simulated on all ranks.
 */
#include "test_sched.h"

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

void check_pairwise(int P)
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
void check_bruck_allgather(int P, int k)
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
void check_bruck_alltoall(int P, int k)
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
void check_ring_allgather(int P)
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
