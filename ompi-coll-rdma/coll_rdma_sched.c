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
