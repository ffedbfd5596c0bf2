/*
 * coll/rdma two-level family: the barrier, bcast, allreduce and reduce in
 * two levels over the window's node map (coll_rdma_topo.h) (inside a node by reading, as
 * the notified-read family of End's thesis, seed 002 chapter 6; among one
 * rank per node by the flat schedules of coll_rdma_nway.c,
 * coll_rdma_pairwise.c and coll_rdma_knomial.c, as coll/han composes its
 * levels).  Across nodes only one rank per node communicates, so the rounds
 * over the network are those of the number of nodes, not of ranks.  Plans
 * (see coll_rdma_prog.h); regions and reuse in coll_rdma_layout.h,
 * "two-level".
 */
#include "ompi_config.h"

#include "coll_rdma_plans.h"
#include "coll_rdma_sched.h"

#include <stdlib.h>
#include <string.h>

/* The leaders as a group (this rank a leader). */
static coll_rdma_group_t leaders(const coll_rdma_window_t *win)
{
    return (coll_rdma_group_t){win->nnodes, win->node, win->leaders};
}

int coll_rdma_barrier_hier_plan(coll_rdma_op_t *op)
{
    coll_rdma_window_t *win = op->win;
    coll_rdma_prog_t *p = &op->prog;
    coll_rdma_slot_t arrived = coll_rdma_slot_fixed(win->off_hier_words);
    coll_rdma_slot_t release = coll_rdma_slot_fixed(win->off_hier_words + COLL_RDMA_LINE);
    coll_rdma_buf_t none = coll_rdma_buf(COLL_RDMA_BUF_NONE, 0);
    int leader = win->local[0];

    /* words only grow: a rank already in the next barrier still reads >= seq */
    if (win->local_rank > 0) {
        coll_rdma_prog_post(p, 0, win->rank, arrived, none, 0);
        coll_rdma_prog_wait_peer(p, 0, leader, release);
        return p->failed ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
    }
    for (int i = 1; i < win->nlocal; ++i) {
        coll_rdma_prog_wait_peer(p, 0, win->local[i], arrived);
    }
    if (win->nnodes > 1) {
        coll_rdma_group_t g = leaders(win);
        /* flags of their own: a rank's flags have one writer each (words only grow) */
        int rc = coll_rdma_barrier_nway_group(op, &g, win->off_hier_words + 2 * COLL_RDMA_LINE);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    if (win->nlocal > 1) {
        coll_rdma_prog_post(p, 0, win->rank, release, none, 0);
    }
    return p->failed ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}

/* The allreduce of rbuf among group *g, one rank per node (the leaders, or
 * one port's carriers): pairwise, which gives every member the same bits,
 * unless the pair is order-independent: then the adapted n-way
 * dissemination, or Bruck's where (n, nodes) is not adaptable (fewer rounds:
 * ceil(log_{n+1} nodes) against log2). */
static int among_nodes(coll_rdma_op_t *op, const coll_rdma_group_t *g)
{
    coll_rdma_nway_plan_t plan;

    if (!op->order_independent) {
        return coll_rdma_allreduce_pairwise_group(op, g, true);
    }
    if (0 == coll_rdma_nway_plan(g->size, op->cfg->allreduce_nway_n, &plan)) {
        return coll_rdma_allreduce_nway_group(op, g, true);
    }
    return coll_rdma_allreduce_bruck_group(op, g, true);
}

int coll_rdma_allreduce_hier_plan(coll_rdma_op_t *op)
{
    coll_rdma_window_t *win = op->win;
    coll_rdma_prog_t *p = &op->prog;
    /* one slot each suffices: the leader's progress gates its node (coll_rdma_layout.h) */
    coll_rdma_slot_t input = coll_rdma_slot_fixed(win->off_hier_ar);
    coll_rdma_slot_t result = coll_rdma_slot_fixed(win->off_hier_ar + win->ar_slot_size);
    coll_rdma_buf_t rbuf = coll_rdma_buf(COLL_RDMA_BUF_RBUF, 0);
    coll_rdma_buf_t sbuf = coll_rdma_buf(op->sbuf == op->rbuf ? COLL_RDMA_BUF_RBUF
                                                              : COLL_RDMA_BUF_SBUF, 0);
    int leader = win->local[0];

    if (win->local_rank > 0) {
        coll_rdma_prog_post(p, 0, win->rank, input, sbuf, op->bytes);
        coll_rdma_prog_wait_peer(p, 0, leader, result);
        coll_rdma_prog_copy(p, coll_rdma_buf_slot(result, leader, 0), rbuf, op->bytes, 0);
        return p->failed ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
    }
    /* rbuf = c[last] op (... op (c[1] op c[leader])), ranks of the node in order */
    if (op->sbuf != op->rbuf) {
        coll_rdma_prog_copy(p, sbuf, rbuf, op->bytes, 0);
    }
    for (int i = 1; i < win->nlocal; ++i) {
        coll_rdma_prog_wait_peer(p, 0, win->local[i], input);
        coll_rdma_prog_reduce(p, coll_rdma_buf_slot(input, win->local[i], 0), rbuf, op->count,
                              0);
    }
    if (win->nnodes > 1) {
        coll_rdma_group_t g = leaders(win);
        int rc = among_nodes(op, &g);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    if (win->nlocal > 1) {
        coll_rdma_prog_post(p, 0, win->rank, result, rbuf, op->bytes);
    }
    return p->failed ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}

/*
 * The ports of the n-port allreduce: *nports, the ranks of the smallest
 * node; this rank's port is its index on its node (local_rank), which it
 * carries where it is below *nports.  Returns the carriers of this rank's
 * port, one per node in node order (the port-th rank of each node, in rank
 * order), as group *g, freed by the caller; NULL where it cannot be
 * allocated.  Read off the node order made at set-up (each node's ranks
 * contiguous there, from its leader's position): O(nnodes).
 */
static int *ports(const coll_rdma_window_t *win, coll_rdma_group_t *g, int *nports)
{
    int nnodes = win->nnodes, port = win->local_rank;
    int *ranks = malloc((size_t) nnodes * sizeof(int));

    if (NULL == ranks) {
        return NULL;
    }
    *nports = win->comm_size;
    for (int n = 0; n < nnodes; ++n) {
        int first = win->node_pos[win->leaders[n]];
        int end = n + 1 < nnodes ? win->node_pos[win->leaders[n + 1]] : win->comm_size;

        *nports = end - first < *nports ? end - first : *nports;
        /* a node short of the port: unused (this rank carries no share) */
        ranks[n] = port < end - first ? win->node_order[first + port] : 0;
    }
    *g = (coll_rdma_group_t){nnodes, win->node, ranks};
    return ranks;
}

/* Port j's share of n elements among nports: [*lo, *hi), every rank alike. */
static void port_share(size_t n, int nports, int j, size_t *lo, size_t *hi)
{
    *lo = n * (size_t) j / (size_t) nports;
    *hi = n * (size_t) (j + 1) / (size_t) nports;
}

/* Port `port`'s carrier across nodes: the allreduce of its share, which
 * lies in rbuf at `off` bytes (the group's plans address rbuf from 0). */
static int port_among_nodes(coll_rdma_op_t *op, const coll_rdma_group_t *g, size_t count,
                            size_t off)
{
    size_t bytes = op->bytes, n = op->count;
    int first = op->prog.n, rc;

    op->count = count;
    op->bytes = count * (bytes / n);
    rc = among_nodes(op, g);
    for (int i = first; i < op->prog.n; ++i) {
        coll_rdma_act_t *a = &op->prog.acts[i];

        a->src.off += COLL_RDMA_BUF_RBUF == a->src.base ? off : 0;
        a->dst.off += COLL_RDMA_BUF_RBUF == a->dst.base ? off : 0;
    }
    op->count = n;
    op->bytes = bytes;
    return rc;
}

int coll_rdma_allreduce_nport_plan(coll_rdma_op_t *op)
{
    coll_rdma_window_t *win = op->win;
    coll_rdma_prog_t *p = &op->prog;
    /* one slot each, as hier's: see coll_rdma_layout.h, "two-level" */
    coll_rdma_slot_t input = coll_rdma_slot_fixed(win->off_hier_ar);
    coll_rdma_slot_t result = coll_rdma_slot_fixed(win->off_hier_ar + win->ar_slot_size);
    bool in_place = op->sbuf == op->rbuf;
    size_t unit = op->bytes / op->count, lo, hi;
    int me = win->local_rank, nports, rc = OMPI_SUCCESS;
    coll_rdma_group_t g;
    int *ranks = ports(win, &g, &nports);

    if (NULL == ranks) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    if (win->nlocal > 1) {
        coll_rdma_prog_post(p, 0, win->rank, input,
                            coll_rdma_buf(in_place ? COLL_RDMA_BUF_RBUF : COLL_RDMA_BUF_SBUF, 0),
                            op->bytes);
    }
    port_share(op->count, nports, me, &lo, &hi);
    if (me < nports && hi > lo) {
        coll_rdma_buf_t share = coll_rdma_buf(COLL_RDMA_BUF_RBUF, lo * unit);

        /* share = c[last] op (... op (c[1] op c[first])), the node's ranks
         * in rank order, each read from its input slot (this rank's too:
         * in place, rbuf is overwritten first) */
        for (int i = 0; i < win->nlocal; ++i) {
            int q = win->local[i];
            coll_rdma_buf_t in = win->nlocal > 1
                                     ? coll_rdma_buf_slot(input, q == win->rank ? -1 : q, lo * unit)
                                     : coll_rdma_buf(COLL_RDMA_BUF_SBUF, lo * unit);

            if (q != win->rank) {
                coll_rdma_prog_wait_peer(p, 0, q, input);
            }
            if (0 == i && (win->nlocal > 1 || !in_place)) {
                coll_rdma_prog_copy(p, in, share, (hi - lo) * unit, 0);
            } else if (i > 0) {
                coll_rdma_prog_reduce(p, in, share, hi - lo, 0);
            }
        }
        if (win->nnodes > 1) {
            rc = port_among_nodes(op, &g, hi - lo, lo * unit);
        }
        if (win->nlocal > 1) {
            coll_rdma_prog_post(p, 0, win->rank, result, share, (hi - lo) * unit);
        }
    }
    /* every other port's share from its carrier on this node */
    for (int j = 0; j < nports; ++j) {
        port_share(op->count, nports, j, &lo, &hi);
        if (j != me && hi > lo) {
            coll_rdma_prog_wait_peer(p, 0, win->local[j], result);
            coll_rdma_prog_copy(p, coll_rdma_buf_slot(result, win->local[j], 0),
                                coll_rdma_buf(COLL_RDMA_BUF_RBUF, lo * unit), (hi - lo) * unit, 0);
        }
    }
    free(ranks);
    return OMPI_SUCCESS != rc ? rc : p->failed ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}

/* The rank that carries a rooted collective's node: the root on its own
 * node, else the leader. */
static int carrier(const coll_rdma_window_t *win, int root)
{
    return win->node == win->node_of[root] ? root : win->local[0];
}

/*
 * The carriers of every node, in node order, as a group *g (this rank one
 * of them); returns their array (freed by the caller), NULL where it cannot
 * be allocated.
 */
static int *carriers(const coll_rdma_window_t *win, int root, coll_rdma_group_t *g)
{
    int *ranks = malloc(win->nnodes * sizeof(int));

    if (NULL != ranks) {
        memcpy(ranks, win->leaders, win->nnodes * sizeof(int));
        ranks[win->node_of[root]] = root;
        *g = (coll_rdma_group_t){win->nnodes, win->node, ranks};
    }
    return ranks;
}

/*
 * Wait until every other rank of this node consumed (credits of `kind`) the
 * instance one ring before this one: whichever of them read this rank's
 * slot then, it is done with it.
 */
static void node_credits(coll_rdma_prog_t *p, const coll_rdma_window_t *win, int kind)
{
    for (int i = 0; i < win->nlocal; ++i) {
        if (win->local[i] != win->rank) {
            coll_rdma_prog_credit(p, COLL_RDMA_ACT_CREDIT, 0, kind, win->local[i]);
        }
    }
}

/*
 * The credits before a carrier rewrites its read ring slot: of every rank
 * that may still read what it held a ring ago.  Over the two-level bcast
 * those are its node's; but where every window is mapped (agreed at set-up:
 * one machine split by coll_rdma_debug_node_ranks, or nodes by shared cache)
 * the flat read bcast may run on the same communicator (tuning rules naming
 * read for some sizes and hier for others) and have written that slot for
 * every rank to read: then every rank's credit (review 2026-11-27, F9; the
 * plan simulator's family of read and two-level bcasts fails without it).
 */
static void read_ring_credits(coll_rdma_prog_t *p, const coll_rdma_window_t *win)
{
    if (!win->all_direct) {
        node_credits(p, win, COLL_RDMA_CREDIT_BCAST);
        return;
    }
    for (int peer = 0; peer < win->comm_size; ++peer) {
        if (peer != win->rank) {
            coll_rdma_prog_credit(p, COLL_RDMA_ACT_CREDIT, 0, COLL_RDMA_CREDIT_BCAST, peer);
        }
    }
}

int coll_rdma_bcast_hier_plan(coll_rdma_op_t *op)
{
    coll_rdma_window_t *win = op->win;
    coll_rdma_prog_t *p = &op->prog;
    coll_rdma_slot_t slot = coll_rdma_slot(win->off_bcast_read, win->bcast_read_slot_size,
                                           (uint32_t) win->bcast_slots);
    coll_rdma_buf_t rbuf = coll_rdma_buf(COLL_RDMA_BUF_RBUF, 0);
    int mine = carrier(win, op->root);

    if (win->rank != mine) {
        coll_rdma_prog_wait_peer(p, 0, mine, slot);
        coll_rdma_prog_copy(p, coll_rdma_buf_slot(slot, mine, 0), rbuf, op->bytes, 0);
    } else {
        if (win->nnodes > 1) {
            coll_rdma_group_t g;
            int *ranks = carriers(win, op->root, &g);

            if (NULL == ranks) {
                return OMPI_ERR_OUT_OF_RESOURCE;
            }
            coll_rdma_bcast_knomial_group(op, &g, win->node_of[op->root]);
            free(ranks);
        }
        /* as the read bcast's root: the slot last held instance seq -
         * bcast_slots, done with once every rank that may read it consumed it */
        if (win->nlocal > 1) {
            read_ring_credits(p, win);
            coll_rdma_prog_post(p, 0, win->rank, slot, rbuf, op->bytes);
        }
    }
    /* the k-nomial slot is rewritten once every put out of it completed */
    coll_rdma_prog_flush(p);
    coll_rdma_prog_credit(p, COLL_RDMA_ACT_PUBLISH, 0, COLL_RDMA_CREDIT_BCAST, 0);
    return p->failed ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}

int coll_rdma_reduce_hier_plan(coll_rdma_op_t *op)
{
    coll_rdma_window_t *win = op->win;
    coll_rdma_prog_t *p = &op->prog;
    coll_rdma_slot_t input = coll_rdma_slot(win->off_hier_reduce, win->reduce_slot_size,
                                            COLL_RDMA_REDUCE_DEPTH);
    coll_rdma_buf_t sbuf = coll_rdma_buf(COLL_RDMA_BUF_SBUF, 0);
    coll_rdma_buf_t acc;
    int mine = carrier(win, op->root);

    if (win->rank != mine) {
        /* the slot held instance seq - depth, read by that instance's
         * carrier: one of the node's ranks */
        node_credits(p, win, COLL_RDMA_CREDIT_REDUCE);
        coll_rdma_prog_post(p, 0, win->rank, input, sbuf, op->bytes);
        coll_rdma_prog_credit(p, COLL_RDMA_ACT_PUBLISH, 0, COLL_RDMA_CREDIT_REDUCE, 0);
        return p->failed ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
    }
    /* acc = c[last] op (... op (c[first] op c[carrier])), the node's other
     * ranks in rank order: the root's rbuf, or the scratch */
    acc = coll_rdma_buf(win->rank == op->root ? COLL_RDMA_BUF_RBUF : COLL_RDMA_BUF_SCRATCH, 0);
    if (op->sbuf != op->rbuf || win->rank != op->root) {
        coll_rdma_prog_copy(p, sbuf, acc, op->bytes, 0);
    }
    for (int i = 0; i < win->nlocal; ++i) {
        if (win->local[i] != win->rank) {
            coll_rdma_prog_wait_peer(p, 0, win->local[i], input);
            coll_rdma_prog_reduce(p, coll_rdma_buf_slot(input, win->local[i], 0), acc, op->count,
                                  0);
        }
    }
    if (win->nnodes > 1) {
        coll_rdma_group_t g;
        int *ranks = carriers(win, op->root, &g);

        if (NULL == ranks) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        /* publishes this instance consumed: the node's inputs are read too */
        coll_rdma_reduce_knomial_group(op, &g, win->node_of[op->root], acc);
        free(ranks);
    } else {
        coll_rdma_prog_credit(p, COLL_RDMA_ACT_PUBLISH, 0, COLL_RDMA_CREDIT_REDUCE, 0);
    }
    return p->failed ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}
