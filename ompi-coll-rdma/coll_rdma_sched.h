/*
 * coll/rdma schedules: pure arithmetic, no MPI, no I/O.
 *
 * Every function here maps (rank, communicator size, radix, round) to peers
 * or slot indices.  The algorithms layer drives the window with these
 * answers; tests/unit/test_sched.c checks them exhaustively.
 *
 * Terms: "vrank" is a rank relative to the root, (rank - root + size) % size.
 */
#ifndef COLL_RDMA_SCHED_H
#define COLL_RDMA_SCHED_H

#include <stdbool.h>

/** Upper bound on rounds of any schedule here (radix >= 2, size < 2^31). */
#define COLL_RDMA_SCHED_MAX_ROUNDS 32

/**
 * Number of rounds of a radix-`base` schedule over `size` ranks:
 * ceil(log_base(size)), 0 for size <= 1.  base >= 2.
 */
int coll_rdma_sched_rounds(int size, int base);

/*
 * ---- k-nomial tree (radix k >= 2) rooted at vrank 0 ----
 *
 * In round i (i = 0 .. rounds-1) every vrank v whose digits 0..i in base k
 * are all zero owns subtree [v, v + k^(i+1)) and hands the sub-subtrees
 * v + j*k^i (j = 1 .. k-1) to their roots.  So the parent of v > 0 is v with
 * its lowest nonzero base-k digit cleared, and v's children are
 * v + j*k^i for every i below that digit.  Used top-down by broadcast and
 * bottom-up by reduce (Gupta's degree-d tree is the (d+1)-nomial tree,
 * seed 003 section 6.3; k-nomial bcast, seed 002 section 2.3.3).
 */

/** Parent vrank of `vrank` in the radix-`radix` tree, -1 for vrank 0. */
int coll_rdma_knomial_parent(int vrank, int size, int radix);

/**
 * Round in which `vrank` receives from its parent (position of its lowest
 * nonzero base-radix digit).  For vrank 0 returns rounds(size, radix).
 */
int coll_rdma_knomial_level(int vrank, int size, int radix);

/**
 * Children of `vrank`, written to children[] in broadcast order (largest
 * subtree first: descending round, ascending j).  Returns how many; never
 * more than coll_rdma_knomial_max_children(size, radix).
 */
int coll_rdma_knomial_children(int vrank, int size, int radix, int *children);

/** Largest number of children any vrank can have: (radix-1) * rounds. */
int coll_rdma_knomial_max_children(int size, int radix);

/**
 * Index of the slot that child `vrank` writes at its parent during a
 * bottom-up (reduce) phase: level*(radix-1) + (digit-1), in
 * [0, max_children).  Distinct for distinct children of one parent.
 * -1 for vrank 0.
 */
int coll_rdma_knomial_child_slot(int vrank, int size, int radix);

/*
 * ---- n-way dissemination (Hoefler et al.; seed 002 section 2.8) ----
 *
 * rounds = ceil(log_{n+1}(size)).  In round r rank i signals
 * i + j*(n+1)^r and hears from i - j*(n+1)^r (mod size), for the
 * j = 1..n with j*(n+1)^r < size: the larger j would only repeat
 * knowledge a smaller one already brings.
 */

/**
 * Peers of `rank` in `round`: to[j-1] receives from us, from[j-1] sends to
 * us.  Returns the number of peers in this round (0 .. n).  Either array may
 * be NULL.
 */
int coll_rdma_nway_peers(int rank, int size, int n, int round, int *to, int *from);

/** Flag slot index for (round, j) with j in 1..n: round*n + j-1. */
static inline int coll_rdma_nway_slot(int n, int round, int j)
{
    return round * n + (j - 1);
}

/*
 * ---- pairwise exchange (recursive doubling with a fold) ----
 *
 * p2 = largest power of two <= size, extra = size - p2.  Ranks p2 .. size-1
 * fold their data into rank - p2 and get the result back from it at the end;
 * ranks 0 .. p2-1 exchange with rank XOR 2^step for step = 0 .. log2(p2)-1
 * (End's thesis, seed 002 section 2.3.3 "pairwise exchange"; Thakur,
 * Rabenseifner and Gropp 2005).
 */

/** Largest power of two <= size (size >= 1). */
int coll_rdma_pow2_floor(int size);

/** Exchange steps among the p2 ranks: log2(p2). */
int coll_rdma_pairwise_steps(int size);

/**
 * Fold partner of `rank`: rank - p2 for a folded rank (>= p2), rank + p2 for
 * a rank that absorbs one (< size - p2), -1 otherwise.
 */
int coll_rdma_pairwise_fold_partner(int rank, int size);

/** Partner of `rank` (< p2) in exchange `step`: rank XOR 2^step. */
static inline int coll_rdma_pairwise_partner(int rank, int step)
{
    return rank ^ (1 << step);
}

/*
 * ---- Bruck's allgather and index alltoall (radix k >= 2) ----
 *
 * Bruck, Ho, Kipnis, Upfal, Weathersby, "Efficient algorithms for all-to-all
 * communications in multiport message-passing systems" (1997); the allgather
 * as on the slide of seed 000 B.3 ("similar to dissemination barrier, log P
 * steps", our radix-k form), the alltoall as MPICH's small-block algorithm
 * (seed 000 B.4, B.7).  rounds = ceil(log_k size); a round has up to k-1
 * transfers j = 1..k-1 (fewer in the last round), each one message.
 *
 * Blocks are named by "positions" 0..size-1 relative to the rank that holds
 * them.  A transfer (round, j) is numbered slot = round*(k-1) + j-1; the
 * slots of one rank's receive region are packed in slot order, so slot s
 * starts at s * header + (blocks of the slots before s) * block: see
 * coll_rdma_bruck_blocks_before().
 *
 * Allgather (concatenation): position r at rank p is the block of rank
 * (p + r) % size.  Before round t a rank holds positions [0, k^t); in
 * transfer (t, j) it sends positions [0, count) to (p - j*k^t) % size and
 * receives positions [j*k^t, j*k^t + count) from (p + j*k^t) % size, with
 * count = min(k^t, size - j*k^t).  The received ranges tile [1, size).  At
 * the end the rank rotates: position r goes to block (p + r) % size.
 *
 * Alltoall (index): at the start position r at rank p is p's block for rank
 * (p + r) % size (a local rotation).  In transfer (t, j) rank p sends every
 * position r whose base-k digit t equals j, ascending, to (p + j*k^t) %
 * size, and receives the same positions from (p - j*k^t) % size, replacing
 * its own.  A block starting at position r = (d - s) % size of rank s moves
 * by digit*k^t in each round, so it ends at rank d at the same position:
 * at the end position r holds the block from rank (p - r) % size.
 */

/**
 * Transfer (round, j) of Bruck's allgather over `size` ranks: the distance
 * j*radix^round (peers are rank -/+ distance) and *count, the blocks it
 * moves.  Returns the distance, which is also the first received position,
 * or 0 when the transfer does not exist (distance >= size, or j outside
 * 1..radix-1).
 */
int coll_rdma_bruck_allgather_step(int size, int radix, int round, int j, int *count);

/**
 * Transfer (round, j) of Bruck's index alltoall: the distance j*radix^round
 * (send to rank + distance, receive from rank - distance), or 0 when the
 * transfer does not exist.  Writes the positions it moves, ascending, to
 * positions[] (when not NULL; at most size entries) and their number to
 * *count.
 */
int coll_rdma_bruck_alltoall_step(int size, int radix, int round, int j, int *positions,
                                  int *count);

/**
 * Blocks carried by the slots before slot `slot` = round*(radix-1) + j-1 of
 * Bruck's allgather (`alltoall` false) or alltoall (true); with slot = the
 * number of slots, rounds*(radix-1), the total of the region.
 */
long coll_rdma_bruck_blocks_before(int size, int radix, int slot, bool alltoall);

/*
 * ---- ring allgather ----
 *
 * size-1 steps; in step s rank p sends block (p - s) % size to (p + 1) %
 * size and receives block (p - 1 - s) % size from (p - 1) % size, which it
 * forwards in step s+1 (seed 000 B.4's circular pattern with one neighbour).
 */

/** Block that `rank` sends in ring allgather step `step`: (rank - step) % size. */
static inline int coll_rdma_ring_allgather_block(int rank, int size, int step)
{
    return ((rank - step) % size + size) % size;
}

/*
 * ---- adapted n-way dissemination allreduce (End's thesis, seed 002 sections
 *      2.9 and 8; Theorem 4.3 in the digest's equivalent (f, a, b) form) ----
 *
 * k = ceil(log_{n+1} P) rounds, W = (n+1)^(k-1).  Rounds 0 .. k-2 are the
 * plain n-way rounds of coll_rdma_nway_peers(): every rank sends its whole
 * accumulator to its n peers and combines the n messages it receives in the
 * order j = 1 .. n.  After round k-2 the accumulator of rank p covers the W
 * consecutive ranks p-W+1 .. p.  On the way it passes through prefixes of
 * that window (the part nearest to p): own data (size 1), and after message
 * j of round r the (j+1)(n+1)^r ranks p-(j+1)(n+1)^r+1 .. p.
 *
 * The last round follows the plan (f, a, b), P = (f+1) W + a - b:
 *   - the full accumulator goes to rank + i*W for i = 1 .. f;
 *   - if a > 0, the prefix of size a goes to rank + (f+1)*W;
 *   - if b > 0, the receiver leaves out its own prefix of size b: its result
 *     is every block it received after that prefix (a second running
 *     reduction, the "tail"; never an inverse op) combined with the last
 *     round's messages.
 * P = (n+1)^k is the plan (n, 0, 0): the plain algorithm.  Some (n, P) have
 * no plan (n = 1: 13, 21, 25, ...; n = 2: 40, 41, 64, ...); callers use
 * Bruck's algorithm there.  Among the plans the one without removal is
 * preferred, then the smallest removal, then the fewest last-round messages
 * (the order of verify/nway_table.py).
 */

typedef struct coll_rdma_nway_plan {
    int rounds;  /* k = ceil(log_{n+1} P) >= 1 */
    int width;   /* W = (n+1)^(k-1): ranks in a window before the last round */
    int full;    /* f: full accumulators sent in the last round, 0 .. n */
    int partial; /* a: size of the prefix sent by the partial sender; 0: none */
    int removal; /* b: size of the own prefix left out; 0: none */
} coll_rdma_nway_plan_t;

/**
 * The last-round plan of the adapted n-way allreduce over `size` >= 2 ranks
 * with n >= 1.  Returns 0 and fills *plan, or -1 when (n, size) is not
 * adaptable.
 */
int coll_rdma_nway_plan(int size, int n, coll_rdma_nway_plan_t *plan);

/**
 * Number of received messages (of rounds 0 .. k-2, counted in combining
 * order: round-major, j = 1 .. n) after which the accumulator is the prefix
 * of `prefix` ranks: 0 for prefix 1 (own data), r*n + j for (j+1)(n+1)^r.
 * -1 when no prefix has that size.
 */
int coll_rdma_nway_prefix_messages(int n, int prefix);

/**
 * Last-round peers of `rank` under `plan`: to[i-1] = rank + i*W receives
 * from us, from[i-1] = rank - i*W sends to us (mod size), i = 1 .. f, then
 * f+1 for the partial message when a > 0.  Returns the count, f + (a > 0).
 * Message i uses flag slot coll_rdma_nway_slot(n, k-1, i); every slot of
 * the allreduce is below k * min(n, size-1).  Either array may be NULL.
 */
int coll_rdma_nway_last_peers(const coll_rdma_nway_plan_t *plan, int rank, int size, int *to,
                              int *from);

/*
 * ---- Bruck's n-port global combine (Bruck and Ho 1993; End's thesis, seed
 *      002 section 2.10) ----
 *
 * The digits alpha_{k-1} .. alpha_0 of P-1 in base n+1, most significant
 * first, give k = ceil(log_{n+1} P) rounds.  Every rank p keeps S0 (the
 * ranks p+1 .. p+c) and S1 = x_p o S0 (p .. p+c); c = 0 and S0 empty at the
 * start.  In the round of digit alpha, p sends S1 to p - i(c+1) for
 * i = 1 .. alpha and, when c > 0, S0 to p - alpha(c+1) - i*c for
 * i = 1 .. n - alpha; it receives the same kinds from the mirrored peers,
 * S0 = S0 o (everything received), S1 = x_p o S0, c = (n+1)c + alpha.  After
 * the last round c = P-1 and S1 is the result.
 */

/**
 * Round `round` (0 .. k-1) of Bruck's combine for `rank`: to[i] receives our
 * i-th message of the round, from[i] sends us its i-th (in both, S1 messages
 * first, then S0 messages); *nfull = alpha = the number of S1 messages.
 * Returns the number of messages (<= min(n, size-1)).  Message i uses flag
 * slot coll_rdma_nway_slot(n, round, i+1), below k * min(n, size-1) as for
 * the n-way allreduce.  Either array may be NULL.
 */
int coll_rdma_bruck_round(int rank, int size, int n, int round, int *to, int *from, int *nfull);

#endif /* COLL_RDMA_SCHED_H */
