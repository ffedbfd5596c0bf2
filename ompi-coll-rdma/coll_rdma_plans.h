/*
 * coll/rdma algorithm families: the plans (coll_rdma_plans.c dispatches, one
 * file per family writes them) and the groups of ranks they run among.  A
 * plan appends an operation's program (coll_rdma_prog.h) from its
 * arguments and the window's geometry, locally, without communication.
 * Above the executor (coll_rdma_exec.h), which runs what they write.
 */
#ifndef COLL_RDMA_PLANS_H
#define COLL_RDMA_PLANS_H

#include "coll_rdma_exec.h"

/*
 * The ranks an algorithm runs among: member i is communicator rank ranks[i]
 * (ranks NULL: the whole communicator, member i is rank i); this rank is
 * member `rank` of `size`.  The flat plans run among the whole communicator;
 * the two-level plans (coll_rdma_hier.c) run the same schedules among the
 * nodes' leaders.
 */
typedef struct coll_rdma_group {
    int size;
    int rank;
    const int *ranks;
} coll_rdma_group_t;

/** The communicator rank of member i of g. */
static inline int coll_rdma_group_peer(const coll_rdma_group_t *g, int i)
{
    return NULL == g->ranks ? i : g->ranks[i];
}

/** The whole communicator of `win` as a group. */
static inline coll_rdma_group_t coll_rdma_group_all(const coll_rdma_window_t *win)
{
    return (coll_rdma_group_t){win->comm_size, win->rank, NULL};
}

/**
 * The whole communicator of `win` as a group in node order (node 0's ranks
 * in rank order, then node 1's, ...: coll_rdma_topo_set_nodes), where the
 * window has a node map; else rank order.  The rings run over it, so one of
 * their links per node crosses the network whatever the placement of ranks.
 * Member i is rank win->node_order[i].
 */
static inline coll_rdma_group_t coll_rdma_group_by_node(const coll_rdma_window_t *win)
{
    return win->nodes ? (coll_rdma_group_t){win->comm_size, win->node_pos[win->rank],
                                            win->node_order}
                      : coll_rdma_group_all(win);
}

/**
 * An algorithm's plan: append op's program from its arguments and the
 * window's geometry, locally (no communication).  Returns OMPI_SUCCESS or
 * OMPI_ERR_OUT_OF_RESOURCE.
 */
typedef int (*coll_rdma_plan_fn_t)(coll_rdma_op_t *op);

/** The plan of each (collective, algorithm); NULL where there is none (coll_rdma_plans.c). */
extern const coll_rdma_plan_fn_t coll_rdma_plans[COLL_RDMA_NCOLLS][COLL_RDMA_NALGS];

/**
 * Append op's program (op->coll, op->alg, op->bytes set; the window's
 * geometry and op->cfg as agreed): the plan of its algorithm, or, where that
 * algorithm's instance carries one slot and the op is larger (the k-nomial
 * and two-level reduces above win->reduce_bytes; the k-nomial and two-level
 * bcasts above the window's segment of their ring (win->bcast_segment; hier:
 * the smaller of the two rings'); the two-level allreduces above
 * cfg->allreduce_short_max_bytes), one instance per chunk, pipelined under
 * the slots' credits or its node's gating; sets op->prog.nseq.  Every
 * instance is checked against the window first: one that would write more
 * into a slot than its payload holds (a message, block or chunk larger than
 * the slots; a segment of op->cfg larger than the window's; a reduction's
 * segment or chunk smaller than one element of op->dtype, which would never
 * advance) is refused with OMPI_ERR_NOT_SUPPORTED and nothing is written.
 * The decision and the layout agree so that this never happens (the layout
 * sizes every slot for what the decision serves); every rank refuses alike,
 * and the caller fails the call (or hands it on) instead of corrupting the
 * windows.  Returns OMPI_SUCCESS, OMPI_ERR_NOT_SUPPORTED, or the plan's
 * error (OMPI_ERR_OUT_OF_RESOURCE).
 */
int coll_rdma_plan(coll_rdma_op_t *op);

/*
 * The plans, one per algorithm, in the algorithm family files.  Each
 * appends to op->prog from op's arguments (op->sbuf, op->rbuf: the user's
 * contiguous buffers, equal where in place; op->bytes: bytes; op->count:
 * elements of op->dtype, reductions only; op->root), op->cfg and op->win,
 * without communication, and returns OMPI_SUCCESS, or
 * OMPI_ERR_OUT_OF_RESOURCE where the program could not grow (op->prog.failed).
 * Call them through coll_rdma_plan(), which checks the sizes.
 */

/**
 * MPI_Barrier on one node (every window mapped) by reading (End's notified
 * read, seed 002 chapter 6, with one word per rank): every rank writes
 * instance s into its own read-barrier word, then waits until every other
 * rank's word reached s.  Words only grow, so one line per rank serves
 * every instance.  One transfer per rank and P - 1 reads.
 */
int coll_rdma_barrier_read_plan(coll_rdma_op_t *op);
/**
 * MPI_Barrier by n-way dissemination (End's thesis, seed 002 section 2.8;
 * Hoefler et al. 2006 for the dissemination pattern with n signals per
 * round), n = cfg->barrier_nway_n: ceil(log_{n+1} P) rounds, in
 * each one flag to n peers and a wait for n flags.  Flags only grow.
 */
int coll_rdma_barrier_nway_plan(coll_rdma_op_t *op);
/**
 * MPI_Barrier by pairwise exchange (recursive doubling; End's thesis, seed
 * 002 section 2.3.3): the ranks above the largest power of two p2 fold
 * into a partner below it, log2 p2 exchange steps among those, then the
 * partner releases them.  Flags only grow.
 */
int coll_rdma_barrier_pairwise_plan(coll_rdma_op_t *op);
/**
 * MPI_Bcast on one node (every window mapped) by reading (End's notified
 * read, seed 002 chapter 6): op->root posts op->bytes of its op->rbuf into
 * its own window and every other rank copies them out into its op->rbuf.
 * A message of at most COLL_RDMA_BCAST_SMALL_BYTES (56) travels in one line
 * with its word through the small ring (bcast_small_slots one-line slots,
 * where there are any), anything larger in segments of the window's
 * win->bcast_read_segment through the read ring (bcast_slots slots), one
 * instance per segment.  Every rank decides alike (bytes and the agreed
 * configuration).  The root rewrites a slot only once every other rank
 * published that it consumed the instance a ring ago (credits of every
 * rank: COLL_RDMA_CREDIT_BCAST or _BCAST_SMALL, one consumed word); every
 * rank publishes every instance.  Any op->bytes up to cfg->bcast_max_bytes.
 */
int coll_rdma_bcast_read_plan(coll_rdma_op_t *op);
/**
 * MPI_Allreduce on one node (every window mapped) by reading (End's
 * notified read, seed 002 chapter 6): every rank posts its op->sbuf
 * (op->count elements of predefined op->dtype, commutative predefined
 * op->op, op->bytes <= the read slot's payload: min(allreduce_read_max_bytes,
 * allreduce_max_bytes)) into its own window (instance parity) and folds
 * every rank's contribution into op->rbuf in rank order, c[P-1] op (... op
 * c[0]), as they arrive: the same expression, so the same bits, on every
 * rank for every (op, type).  P - 1 reads of the whole message per rank.
 * op->sbuf == op->rbuf is in place.
 */
int coll_rdma_allreduce_read_plan(coll_rdma_op_t *op);
/**
 * MPI_Allreduce by pairwise exchange (recursive doubling with a fold for P
 * not a power of two; End's thesis, seed 002 section 2.3.3): op->count
 * elements of predefined op->dtype, commutative predefined op->op,
 * op->bytes <= the slot payload (min(allreduce_short_max_bytes,
 * allreduce_max_bytes)).  The ranks above the largest power of two fold
 * their input into a partner, log2 p2 exchanges of the whole vector, the
 * partners hand the result back.  In each exchange both partners compute
 * lower op higher with the same operands: every rank gets the same bits for
 * every (op, type).  op->sbuf == op->rbuf is in place.
 */
int coll_rdma_allreduce_pairwise_plan(coll_rdma_op_t *op);
/**
 * MPI_Allreduce by End's adapted n-way dissemination (End's thesis, seed 002
 * section 2.9, Theorem 4.3 in the digest's (f, a, b) form; Hoefler et al.
 * 2006 for the dissemination pattern), n = cfg->allreduce_nway_n:
 * ceil(log_{n+1} P) rounds of at most n messages of the whole op->bytes
 * (op->count elements of a predefined op->dtype, commutative predefined
 * op->op; bytes <= cfg->allreduce_max_bytes).  In the last round one sender
 * may send only a prefix of its window and the receiver may leave out a
 * prefix of its own (recomputed by a second running reduction in the
 * scratch, never by an inverse op, so exact for floats and PROD with
 * zeros).  Ranks combine in rank-dependent orders: results are identical on
 * every rank only for order-independent (op, type) pairs
 * (coll_rdma_op_order_independent()).  Returns OMPI_ERR_NOT_SUPPORTED when
 * (n, P) is not adaptable (the decision layer picks Bruck there).
 */
int coll_rdma_allreduce_nway_plan(coll_rdma_op_t *op);
/**
 * MPI_Allreduce by Bruck's n-port global combine (Bruck and Ho 1993; End's
 * thesis, seed 002 section 2.10), n = cfg->allreduce_bruck_n: for every P,
 * ceil(log_{n+1} P) rounds of at most n messages; every rank keeps two
 * partial results (S0 in the scratch, and S1 = own input o S0 in rbuf; an
 * in-place input is copied to the scratch's second half).  Rank-dependent
 * combining order, as coll_rdma_allreduce_nway_plan(); same arguments.
 */
int coll_rdma_allreduce_bruck_plan(coll_rdma_op_t *op);
/**
 * MPI_Allreduce by the segmented pipelined ring (Iakymchuk et al., seed 004
 * section IV-A, digest C.5): reduce-scatter then allgather, P-1 steps each,
 * step s moving one block of about op->count/P elements to the right
 * neighbour in segments of at most cfg->allreduce_ring_segment_bytes
 * (RING_SEND/RING_RECV/RING_ACK through cfg->allreduce_ring_slots slots with
 * credits, so window memory does not grow with the message; the program
 * has six actions per segment, on the heap).  The ring runs node by node
 * where the window has a node map (one link per node crosses the network,
 * whatever the placement of ranks), else in rank order.  Block c is reduced
 * once, along the ring from position c to position c-1 in that fixed order,
 * and its bits are then copied around: identical results on every rank for
 * every (op, type).
 * Same arguments as coll_rdma_allreduce_nway_plan().
 */
int coll_rdma_allreduce_ring_plan(coll_rdma_op_t *op);
/**
 * MPI_Allreduce on one node (every window mapped) by reduce-scatter then
 * allgather, both by reading (the shared-memory form of Rabenseifner's
 * reduce-scatter + allgather, Thakur, Rabenseifner and Gropp, "Optimization
 * of Collective Communication Operations in MPICH", IJHPCA 2005, section
 * 4.4; reads instead of messages as in End's notified-read family, seed 002
 * chapter 6).  op->count elements of predefined op->dtype with a commutative
 * predefined op->op, any op->bytes, in segments of at most the window's
 * rsag_allreduce.segment (coll_rdma_layout.h), one instance each: a rank
 * copies its segment into its window once, reduces its 1/P share
 * (cache-line aligned) by reading that share from every window, marks it
 * done, then copies every rank's reduced share out of its owner's window.
 * Each share is combined by one rank only, so every rank gets the same bits
 * for every (op, type).  Two synchronizations per segment, independent of
 * P; every rank reads about 2 * bytes.  op->sbuf == op->rbuf is in place.
 */
int coll_rdma_allreduce_rsag_plan(coll_rdma_op_t *op);
/**
 * MPI_Allreduce with bounded staleness S = cfg->allreduce_staleness >= 1 on
 * one node (every window mapped): the stale-synchronous parallel allreduce of
 * Iakymchuk et al., "Efficient and Eventually Consistent Collective
 * Operations" (seed 004, section III-A, Algorithm 1), in a read form instead
 * of their hypercube.  Instances are counted apart from exact allreduces
 * (the module's ssp_clock): call t (its instance) writes op->bytes of op->sbuf
 * (op->count elements of predefined op->dtype, commutative predefined op->op,
 * at most cfg->allreduce_ssp_max_bytes) into slot t mod (2S + 2) of this
 * rank's own ring, then folds, in rank order, every rank's newest
 * contribution of instance t - S or later (and of the same shape: calls of
 * another shape do not count, op->ssp_first) into op->rbuf, waiting only for
 * ranks with none.  Own contribution: instance t.  Results differ between
 * ranks when a contribution is stale; with every contribution of instance t
 * they are the read allreduce's bits.  The ring's depth is what makes the
 * reads safe without locks (docs/design.md, "Bounded staleness").
 */
int coll_rdma_allreduce_ssp_plan(coll_rdma_op_t *op);
/**
 * MPI_Reduce by the program of coll_rdma_allreduce_rsag_plan() (same
 * arguments, its own region and segment), of which only op->root copies the reduced
 * shares out into op->rbuf; the other ranks end with their own share posted.
 */
int coll_rdma_reduce_rsag_plan(coll_rdma_op_t *op);
/**
 * MPI_Allgather by the ring: P-1 steps, in each one block to the right
 * neighbour, forwarding out of this rank's slot what came from the left
 * (seed 000 B.4); the ring runs node by node where the window has a node
 * map, as the ring allreduce's.  op->sbuf: this rank's block of op->bytes
 * (ONE block, 0 < bytes <= the window's ag_block) bytes, possibly at its
 * place inside op->rbuf (in place); op->rbuf: P contiguous blocks in rank
 * order.
 */
int coll_rdma_allgather_ring_plan(coll_rdma_op_t *op);
/**
 * MPI_Allgather by reading (one node: every window mapped): in segments of
 * the window's read_allgather.segment, every rank posts segment g of its block
 * into its own window and copies every peer's segment g out of the peer's
 * window into its place in op->rbuf (End's notified read, thesis chapter 6,
 * with P writers).  Each block is copied twice (in, out) whatever P, against
 * the ring's P - 1 forwards.  op->sbuf: this rank's block of op->bytes (> 0,
 * any size) bytes, possibly at its place inside op->rbuf (in place);
 * op->rbuf: P contiguous blocks.  Reuse: coll_rdma_layout.h, "read allgather".
 */
int coll_rdma_allgather_read_plan(coll_rdma_op_t *op);
/**
 * MPI_Alltoall by reading (one node): the read allgather's program with one
 * segment of the window's read_alltoall.segment bytes per destination:
 * every rank copies segment g of each of its P blocks into its window slot,
 * posts it, and copies from every peer's slot the segment meant for it.
 * op->sbuf, op->rbuf: P contiguous blocks of op->bytes (> 0, any size) bytes
 * (the same buffer in place: a segment is read into the slot before any
 * segment lands on it).  Reuse: coll_rdma_layout.h, "read alltoall".
 */
int coll_rdma_alltoall_read_plan(coll_rdma_op_t *op);

/**
 * MPI_Bcast of op->bytes contiguous bytes at op->rbuf from op->root over a
 * k-nomial tree of radix cfg->bcast_radix (seed 002 section 2.3.3; Gupta's
 * binomial bcast with RDMA-write slots and credits, seed 003 section 5.2).
 * bytes <= win->bcast_segment (one slot of the bcast ring).
 */
int coll_rdma_bcast_knomial_plan(coll_rdma_op_t *op);

/**
 * MPI_Allreduce of op->count elements of predefined op->dtype (op->bytes <=
 * cfg->allreduce_max_bytes) with a commutative predefined op->op, by Gupta's
 * degree-k tree (seed 003 section 6.3), k = cfg->allreduce_ktree_degree:
 * reduce to rank 0 over a (k+1)-nomial tree, then send the result down the
 * same tree.  One rank combines, so every rank gets the same bits.
 * op->sbuf == op->rbuf is in place.
 */
int coll_rdma_allreduce_ktree_plan(coll_rdma_op_t *op);

/**
 * MPI_Allgather of one op->bytes block per rank, by Bruck's concatenation
 * algorithm, radix COLL_RDMA_BRUCK_RADIX (seed 000 B.3; schedule in
 * coll_rdma_sched.h): ceil(log2 P) rounds, in round t one message of
 * min(2^t, P - 2^t) blocks to rank - 2^t, then a local rotation.
 * op->sbuf: this rank's block (may lie inside op->rbuf: in place); op->rbuf:
 * P contiguous blocks.  0 < block <= the window's ag_block.
 */
int coll_rdma_allgather_bruck_plan(coll_rdma_op_t *op);

/**
 * MPI_Alltoall of op->bytes per (source, destination) pair by Bruck's index
 * algorithm, radix COLL_RDMA_BRUCK_RADIX (MPICH's small-message alltoall,
 * seed 000 B.4/B.7; schedule in coll_rdma_sched.h): a local rotation,
 * ceil(log2 P) rounds each sending the blocks whose position has bit t set
 * to rank + 2^t in one message, a final rotation.  op->sbuf and op->rbuf: P
 * contiguous blocks each; equal is in place.  0 < block <= the window's
 * a2a_bruck_block.
 */
int coll_rdma_alltoall_bruck_plan(coll_rdma_op_t *op);

/**
 * MPI_Alltoall by direct writes (seed 004 section IV-B): each rank puts its
 * block for every peer into that peer's slot of this source, in rotated
 * order, one sequence word per source, then waits for its P-1 slots.  Same
 * arguments as coll_rdma_alltoall_bruck_plan(); block <= a2a_direct_block.
 */
int coll_rdma_alltoall_direct_plan(coll_rdma_op_t *op);

/**
 * MPI_Reduce of op->count elements of predefined op->dtype (op->bytes <= the
 * window's reduce_bytes) with a commutative predefined op->op to op->root,
 * over the k-nomial tree of radix cfg->reduce_radix rooted at the root
 * (vranks; seed 002 section 2.3.3; the up phase of Gupta's tree, seed 003
 * section 6.3).  Each node combines its children in a fixed order, so the
 * root's bits are the same run to run.  op->rbuf is used at the root only
 * (op->sbuf == op->rbuf there is in place).  Slots are reused under credits.
 */
int coll_rdma_reduce_knomial_plan(coll_rdma_op_t *op);

/*
 * The flat schedules among the members of a group g (this rank is member
 * g->rank of g->size; the plans above are these among the whole
 * communicator, the two-level plans run them among the nodes' leaders or
 * carriers).  Slots and credits as for the whole communicator: a group is
 * never larger, and its members use the slots the schedule gives their
 * group positions.  They append to op->prog as the plans do.
 */
/**
 * The n-way dissemination barrier (as coll_rdma_barrier_nway_plan()) among
 * g, its flag (round, j) at byte offset flags + coll_rdma_nway_slot(n,
 * round, j) * COLL_RDMA_LINE of each member's window (the flat barrier's
 * region, or the two-level words').  Ends with a flush.  Returns
 * OMPI_SUCCESS or OMPI_ERR_OUT_OF_RESOURCE.
 */
int coll_rdma_barrier_nway_group(coll_rdma_op_t *op, const coll_rdma_group_t *g, size_t flags);
/**
 * The k-nomial bcast (as coll_rdma_bcast_knomial_plan()) of op->bytes (<=
 * the bcast slot's payload) from member `root`'s op->rbuf into every
 * member's op->rbuf, through the bcast ring and its credits, without the
 * flush and the "consumed" publish that end it: the caller's, after its own
 * use of the slot.  No error of its own (op->prog.failed on allocation).
 */
void coll_rdma_bcast_knomial_group(coll_rdma_op_t *op, const coll_rdma_group_t *g, int root);
/**
 * The k-nomial reduce (as coll_rdma_reduce_knomial_plan()) of op->count
 * elements of op->dtype (op->bytes <= win->reduce_bytes) to member `root`:
 * each member combines its children's contributions into `acc` (its own
 * input already there: the scratch, or op->rbuf at the root) and posts
 * `acc` to its parent; ends with the "consumed" publish and the flush.  No
 * error of its own (op->prog.failed on allocation).
 */
void coll_rdma_reduce_knomial_group(coll_rdma_op_t *op, const coll_rdma_group_t *g, int root,
                                    coll_rdma_buf_t acc);
/**
 * The pairwise allreduce (as coll_rdma_allreduce_pairwise_plan()) among g,
 * of op->count elements (op->bytes <= the slot payload) whose input is
 * op->sbuf, or op->rbuf where in_rbuf (an in-place call; the two-level
 * plans' node results); the result in op->rbuf.  Returns OMPI_SUCCESS or
 * OMPI_ERR_OUT_OF_RESOURCE.
 */
int coll_rdma_allreduce_pairwise_group(coll_rdma_op_t *op, const coll_rdma_group_t *g,
                                       bool in_rbuf);
/**
 * The adapted n-way allreduce (as coll_rdma_allreduce_nway_plan()) among g;
 * input and result as coll_rdma_allreduce_pairwise_group().  Returns
 * OMPI_ERR_NOT_SUPPORTED where (n, g->size) is not adaptable (the caller
 * takes Bruck's), else OMPI_SUCCESS or OMPI_ERR_OUT_OF_RESOURCE.
 */
int coll_rdma_allreduce_nway_group(coll_rdma_op_t *op, const coll_rdma_group_t *g, bool in_rbuf);
/**
 * Bruck's n-port allreduce (as coll_rdma_allreduce_bruck_plan()) among g;
 * input and result as coll_rdma_allreduce_pairwise_group(); its S0 in the
 * window's scratch.  Returns OMPI_SUCCESS or OMPI_ERR_OUT_OF_RESOURCE.
 */
int coll_rdma_allreduce_bruck_group(coll_rdma_op_t *op, const coll_rdma_group_t *g, bool in_rbuf);

/**
 * MPI_Barrier in two levels (coll/han's hierarchy, in End's notified-read
 * form inside a node, seed 002 chapter 6): every rank of a node writes its
 * arrival word into its own window; the node's leader (its lowest rank)
 * reads them all, runs the n-way dissemination barrier (seed 002 section
 * 2.8; n = cfg->barrier_nway_n) among the leaders only, then writes its
 * release word, which the node's ranks read.  Needs the node map of the
 * window (win->nodes: every rank maps the windows of its node); across nodes
 * only leaders communicate: ceil(log_{n+1} nodes) rounds instead of
 * ceil(log_{n+1} P).
 */
int coll_rdma_barrier_hier_plan(coll_rdma_op_t *op);
/**
 * MPI_Allreduce in two levels: each non-leader posts its input (op->count
 * elements of predefined op->dtype, commutative predefined op->op, op->bytes
 * <= cfg->allreduce_short_max_bytes) into its own window; the leader folds
 * the node's inputs by reading, in rank order (c[last] op (... op c[leader])),
 * runs a flat allreduce of that among the leaders (pairwise exchange, or,
 * where op->order_independent, the adapted n-way dissemination of seed 002
 * section 2.9 or Bruck's where (n, nodes) is not adaptable), and posts the
 * result into its window, which the node's ranks copy out.  With pairwise
 * among the leaders every rank gets the same bits for every (op, type).
 * op->sbuf == op->rbuf is in place.  Slots and reuse: coll_rdma_layout.h,
 * "two-level".
 */
int coll_rdma_allreduce_hier_plan(coll_rdma_op_t *op);
/**
 * MPI_Allreduce in two levels with every node's first L ranks carrying a
 * share across nodes, L the rank count of the smallest node (the n-port
 * idea of seed 002 section 2.10: all of a node's ranks and network ports at
 * work instead of its leader's; MVAPICH2's multi-leader allreduce does the
 * same for large messages).  The op->count elements (as hier's, op->bytes <=
 * cfg->allreduce_short_max_bytes; coll_rdma_plan() chunks larger calls) are
 * cut into L shares of count * i / L .. count * (i + 1) / L.  Every rank
 * posts its input into its window; the node's i-th rank (rank order), i < L,
 * folds share i of its node's inputs by reading, in rank order, runs hier's
 * allreduce across nodes on that share with the i-th ranks of the other
 * nodes, and posts it into its window, from which the node's ranks copy
 * it.  Across nodes every node sends L messages of 1/L the bytes in
 * parallel, and the fold inside the node is split L ways.  Each share is
 * computed by one group, so with pairwise across nodes every rank gets the
 * same bits.  op->sbuf == op->rbuf is in place.  Slots and reuse as hier's
 * (coll_rdma_layout.h, "two-level").
 */
int coll_rdma_allreduce_nport_plan(coll_rdma_op_t *op);
/**
 * MPI_Bcast in two levels, op->bytes <= the smaller of win->bcast_segment
 * and win->bcast_read_segment from
 * op->root into every rank's op->rbuf: the k-nomial tree of puts (radix
 * cfg->bcast_radix; Gupta's RDMA tree, as in the flat plan) among one rank
 * per node, the root on its own node and the leader on every other, then on
 * each node the read bcast from that rank's read ring (End's notified read,
 * seed 002 chapter 6), which its node's ranks copy out.  Across nodes
 * ceil(log_k nodes) rounds and one message per node, against
 * ceil(log_k P) rounds of the flat tree.  One instance per call; both rings
 * reused under the "consumed" credits (coll_rdma_layout.h): the carrier
 * rewrites its read ring slot once every rank of its node consumed the
 * instance a ring ago, and every rank where every window is mapped (where
 * the flat read bcast, read by every rank, may share the ring).
 */
int coll_rdma_bcast_hier_plan(coll_rdma_op_t *op);
/**
 * MPI_Reduce in two levels, op->bytes <= win->reduce_bytes (op->count
 * elements of predefined op->dtype, commutative predefined op->op) to
 * op->root's op->rbuf (op->sbuf == op->rbuf at the root is in place): every
 * rank of a node but its carrier (the root on the root's node, else the
 * leader) posts its input into its own window's input ring; the carrier
 * folds them by reading, in rank order after its own input, then the
 * carriers run the k-nomial reduce (radix cfg->reduce_radix, Gupta's tree
 * as in the flat plan) to the root.  Across nodes one message per carrier
 * and ceil(log_k nodes) rounds.  Input ring reuse: a rank writes slot s
 * mod COLL_RDMA_REDUCE_DEPTH only after every rank of its node published
 * reduce instance s - depth consumed (the carrier of that instance is one
 * of them).
 */
int coll_rdma_reduce_hier_plan(coll_rdma_op_t *op);

#endif /* COLL_RDMA_PLANS_H */
