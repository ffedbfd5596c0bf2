/*
 * coll/rdma topology: the node map of a window (coll_rdma_topo.h).
 */
#include "ompi_config.h"

#include "coll_rdma_topo.h"

#include <stdlib.h>
#include <string.h>

uint64_t coll_rdma_topo_map_hash(const bool *mapped, int size)
{
    uint64_t h = 0xcbf29ce484222325ULL;

    for (int i = 0; i < size; ++i) {
        if (mapped[i]) {
            for (int b = 0; b < 4; ++b) {
                h = (h ^ (uint64_t) ((unsigned) i >> (8 * b) & 0xff)) * 0x100000001b3ULL;
            }
        }
    }
    return h;
}

/*
 * node_order and node_pos from node_of: node 0's ranks in rank order, then
 * node 1's, ...  node_pos[0 .. nnodes-1] first holds each node's count, then
 * its next free position.
 */
static void node_order(coll_rdma_window_t *win)
{
    int size = win->comm_size, at = 0;

    memset(win->node_pos, 0, (size_t) win->nnodes * sizeof(int));
    for (int i = 0; i < size; ++i) {
        ++win->node_pos[win->node_of[i]];
    }
    for (int n = 0; n < win->nnodes; ++n) {
        int count = win->node_pos[n];

        win->node_pos[n] = at;
        at += count;
    }
    for (int i = 0; i < size; ++i) {
        win->node_order[win->node_pos[win->node_of[i]]++] = i;
    }
    for (int i = 0; i < size; ++i) {
        win->node_pos[win->node_order[i]] = i;
    }
}

void coll_rdma_topo_set_nodes(coll_rdma_window_t *win, const int64_t *leader_of,
                                const uint64_t *map_hash)
{
    int size = win->comm_size, me = win->rank;
    int64_t mine = leader_of[me];
    bool ok = NULL != win->leaders && NULL != win->local && NULL != win->node_of
              && NULL != win->node_order && NULL != win->node_pos;

    win->nodes = false;
    win->nnodes = win->nlocal = 0;
    for (int i = 0; ok && i < size; ++i) {
        int64_t l = leader_of[i];
        /* a leader leads itself and shares its node's set of mapped ranks */
        ok = l >= 0 && l <= i && leader_of[l] == l && map_hash[i] == map_hash[l];
    }
    if (!ok) {
        return; /* no map: the two-level algorithms fall back */
    }
    for (int i = 0; i < size; ++i) {
        if (leader_of[i] == i) {
            win->node = i == mine ? win->nnodes : win->node;
            win->node_of[i] = win->nnodes;
            win->leaders[win->nnodes++] = i;
        }
        /* a node's leader is its lowest rank: numbered before its members */
        win->node_of[i] = win->node_of[leader_of[i]];
        if (leader_of[i] == mine) {
            win->local_rank = i == me ? win->nlocal : win->local_rank;
            win->local[win->nlocal++] = i;
        }
    }
    node_order(win);
    win->nodes = true;
}
