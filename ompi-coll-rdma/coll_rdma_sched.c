/*
 * coll/rdma schedules (see coll_rdma_sched.h).  Pure integer arithmetic.
 */
#include "coll_rdma_sched.h"

#include <stddef.h>

int coll_rdma_sched_rounds(int size, int base)
{
    int rounds = 0;
    long long span = 1;

    while (span < size) {
        span *= base;
        ++rounds;
    }
    return rounds;
}

int coll_rdma_knomial_level(int vrank, int size, int radix)
{
    int level = 0;

    if (0 == vrank) {
        return coll_rdma_sched_rounds(size, radix);
    }
    while (0 == vrank % radix) {
        vrank /= radix;
        ++level;
    }
    return level;
}

int coll_rdma_knomial_parent(int vrank, int size, int radix)
{
    long long place = 1;
    int level;

    if (0 == vrank) {
        return -1;
    }
    level = coll_rdma_knomial_level(vrank, size, radix);
    while (level-- > 0) {
        place *= radix;
    }
    /* clear the lowest nonzero digit */
    return (int) (vrank - ((vrank / place) % radix) * place);
}

int coll_rdma_knomial_max_children(int size, int radix)
{
    return (radix - 1) * coll_rdma_sched_rounds(size, radix);
}

int coll_rdma_knomial_children(int vrank, int size, int radix, int *children)
{
    int level = coll_rdma_knomial_level(vrank, size, radix);
    long long place = 1;
    int n = 0;

    for (int i = 0; i < level; ++i) {
        place *= radix;
    }
    /* descending round: the largest subtree is served first */
    for (int i = level - 1; i >= 0; --i) {
        place /= radix;
        for (int j = 1; j < radix; ++j) {
            long long child = vrank + j * place;
            if (child >= size) {
                break;
            }
            children[n++] = (int) child;
        }
    }
    return n;
}

int coll_rdma_knomial_child_slot(int vrank, int size, int radix)
{
    long long place = 1;
    int level;

    if (0 == vrank) {
        return -1;
    }
    level = coll_rdma_knomial_level(vrank, size, radix);
    for (int i = 0; i < level; ++i) {
        place *= radix;
    }
    return level * (radix - 1) + (int) ((vrank / place) % radix) - 1;
}

int coll_rdma_nway_peers(int rank, int size, int n, int round, int *to, int *from)
{
    long long stride = 1;
    int count = 0;

    for (int r = 0; r < round; ++r) {
        stride *= n + 1;
    }
    for (int j = 1; j <= n; ++j) {
        long long dist = j * stride;
        if (dist >= size) {
            break;
        }
        if (NULL != to) {
            to[count] = (int) ((rank + dist) % size);
        }
        if (NULL != from) {
            from[count] = (int) ((rank - dist % size + size) % size);
        }
        ++count;
    }
    return count;
}

int coll_rdma_pow2_floor(int size)
{
    int p2 = 1;

    while (p2 <= size / 2) {
        p2 *= 2;
    }
    return p2;
}

int coll_rdma_pairwise_steps(int size)
{
    return coll_rdma_sched_rounds(coll_rdma_pow2_floor(size), 2);
}

int coll_rdma_pairwise_fold_partner(int rank, int size)
{
    int p2 = coll_rdma_pow2_floor(size);

    if (rank >= p2) {
        return rank - p2;
    }
    return rank < size - p2 ? rank + p2 : -1;
}

/* ---- Bruck's allgather and index alltoall ---- */

/* j * radix^round, or 0 when that is not a transfer of `size` ranks */
static long long bruck_distance(int size, int radix, int round, int j)
{
    long long span = 1;

    if (j < 1 || j >= radix || round < 0) {
        return 0;
    }
    for (int r = 0; r < round; ++r) {
        span *= radix;
        if (span >= size) {
            return 0;
        }
    }
    return j * span < size ? j * span : 0;
}

int coll_rdma_bruck_allgather_step(int size, int radix, int round, int j, int *count)
{
    long long dist = bruck_distance(size, radix, round, j);
    long long span = dist / j;

    if (0 == dist) {
        *count = 0;
        return 0;
    }
    *count = (int) (size - dist < span ? size - dist : span);
    return (int) dist;
}

int coll_rdma_bruck_alltoall_step(int size, int radix, int round, int j, int *positions,
                                  int *count)
{
    long long dist = bruck_distance(size, radix, round, j);
    long long span = dist / j;
    int n = 0;

    if (0 != dist) {
        /* positions r with digit `round` equal to j: runs [q*radix*span + dist, + span) */
        for (long long base = dist; base < size; base += radix * span) {
            for (long long r = base; r < base + span && r < size; ++r) {
                if (NULL != positions) {
                    positions[n] = (int) r;
                }
                ++n;
            }
        }
    }
    *count = n;
    return (int) dist;
}

long coll_rdma_bruck_blocks_before(int size, int radix, int slot, bool alltoall)
{
    long blocks = 0;

    for (int s = 0; s < slot; ++s) {
        int count;
        if (alltoall) {
            (void) coll_rdma_bruck_alltoall_step(size, radix, s / (radix - 1), s % (radix - 1) + 1,
                                                 NULL, &count);
        } else {
            (void) coll_rdma_bruck_allgather_step(size, radix, s / (radix - 1),
                                                  s % (radix - 1) + 1, &count);
        }
        blocks += count;
    }
    return blocks;
}

/* ---- adapted n-way dissemination allreduce ---- */

int coll_rdma_nway_prefix_messages(int n, int prefix)
{
    long long stride = 1;

    if (1 == prefix) {
        return 0;
    }
    /* (j+1)(n+1)^r for j = 1 .. n: the ranges of distinct r do not overlap */
    for (int r = 0; stride * 2 <= prefix; ++r, stride *= n + 1) {
        if (0 == prefix % stride && prefix / stride >= 2 && prefix / stride <= n + 1) {
            return r * n + (int) (prefix / stride) - 1;
        }
    }
    return -1;
}

/* Size of the prefix after t messages of rounds 0 .. k-2 (t = 0: own data). */
static long long nway_prefix_size(int n, int t)
{
    long long stride = 1;

    if (0 == t) {
        return 1;
    }
    for (int r = 0; r < (t - 1) / n; ++r) {
        stride *= n + 1;
    }
    return ((t - 1) % n + 2) * stride;
}

int coll_rdma_nway_plan(int size, int n, coll_rdma_nway_plan_t *plan)
{
    int rounds = coll_rdma_sched_rounds(size, n + 1);
    int nprefix = (rounds - 1) * n + 1; /* prefixes: t = 0 .. (k-1)n messages */
    long long width = 1;
    int found = 0;

    for (int r = 1; r < rounds; ++r) {
        width *= n + 1;
    }
    /* every f and a in {0} and the prefixes below W; P = (f+1)W + a - b */
    for (int f = 0; f <= n; ++f) {
        for (int ta = -1; ta < nprefix; ++ta) {
            long long a = ta < 0 ? 0 : nway_prefix_size(n, ta);
            long long b = (f + 1) * width + a - size;
            int msgs = f + (a > 0);
            if (a >= width || (a > 0 && f + 1 > n) || b < 0 || b > width
                || (b > 0 && coll_rdma_nway_prefix_messages(n, (int) b) < 0)) {
                continue;
            }
            /* prefer no removal, then the smallest, then the fewest messages */
            if (found
                && ((plan->removal != 0) < (b != 0)
                    || ((plan->removal != 0) == (b != 0)
                        && (plan->removal < b
                            || (plan->removal == b
                                && plan->full + (plan->partial > 0) <= msgs))))) {
                continue;
            }
            found = 1;
            plan->rounds = rounds;
            plan->width = (int) width;
            plan->full = f;
            plan->partial = (int) a;
            plan->removal = (int) b;
        }
    }
    return found ? 0 : -1;
}

int coll_rdma_nway_last_peers(const coll_rdma_nway_plan_t *plan, int rank, int size, int *to,
                              int *from)
{
    int count = plan->full + (plan->partial > 0);

    for (int i = 1; i <= count; ++i) {
        long long dist = (long long) i * plan->width % size;
        if (NULL != to) {
            to[i - 1] = (int) ((rank + dist) % size);
        }
        if (NULL != from) {
            from[i - 1] = (int) ((rank - dist + size) % size);
        }
    }
    return count;
}

/* ---- Bruck's n-port global combine ---- */

int coll_rdma_bruck_round(int rank, int size, int n, int round, int *to, int *from, int *nfull)
{
    int rounds = coll_rdma_sched_rounds(size, n + 1);
    long long below = 1, c, digit;
    int count = 0;

    /* c = the digits above this round's, digit = this round's (MSB first) */
    for (int r = round + 1; r < rounds; ++r) {
        below *= n + 1;
    }
    c = (size - 1) / below / (n + 1);
    digit = (size - 1) / below % (n + 1);
    for (long long i = 1; i <= digit + (c > 0 ? n - digit : 0); ++i) {
        long long dist = i <= digit ? i * (c + 1) : digit * (c + 1) + (i - digit) * c;
        if (NULL != to) {
            to[count] = (int) ((rank - dist % size + size) % size);
        }
        if (NULL != from) {
            from[count] = (int) ((rank + dist) % size);
        }
        ++count;
    }
    *nfull = (int) digit;
    return count;
}
