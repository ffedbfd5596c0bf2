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

#endif /* COLL_RDMA_SCHED_H */
