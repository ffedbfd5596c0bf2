/*
 * coll/rdma statistics (coll_rdma_stats.h).
 */
#include "ompi_config.h"

#include "coll_rdma_stats.h"

#include "ompi/runtime/mpiruntime.h"

/* Threads may run collectives on distinct communicators at once. */
static inline void stat_add(uint64_t *counter, uint64_t n)
{
    if (OPAL_UNLIKELY(ompi_mpi_thread_multiple)) {
        __atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
    } else {
        *counter += n;
    }
}

static inline void stat_push(coll_rdma_stats_t *l, uint64_t *counter, uint64_t inc)
{
    l->counter[l->n] = counter;
    l->inc[l->n++] = inc;
}

void coll_rdma_stats_fallback(int kind, int coll, int why)
{
    stat_add(&mca_coll_rdma_component.fallback_calls[kind][coll][why], 1);
}

void coll_rdma_stats_apply(const coll_rdma_stats_t *l)
{
    for (int i = 0; i < l->n; ++i) {
        stat_add(l->counter[i], l->inc[i]);
    }
}

void coll_rdma_stats_served(coll_rdma_stats_t *l, const coll_rdma_call_t *c, int kind, int alg,
                            size_t moved)
{
    mca_coll_rdma_component_t *cc = &mca_coll_rdma_component;

    l->n = 0;
    stat_push(l, &cc->served_calls[kind][c->coll][alg], 1);
    stat_push(l, &cc->served_bytes[kind][c->coll][alg], moved);
    if (c->rescued) {
        stat_push(l, &cc->wrong_fallback_calls[c->coll], 1);
    }
    if (COLL_RDMA_ALLREDUCE == c->coll && COLL_RDMA_ALG_BRUCK == alg
        && COLL_RDMA_ALG_NWAY == cc->config.alg[COLL_RDMA_ALLREDUCE]) {
        /* forced nway on a (n, P) without a plan: Bruck served it */
        stat_push(l, &cc->allreduce_nway_not_adaptable, 1);
    }
}
