/*
 * coll/rdma statistics: what each call served or handed on, per kind,
 * collective, algorithm and reason, printed at MPI_Finalize with
 * coll_rdma_verbose >= 1 and read by the MPI_T variables
 * (coll_rdma_component.c).  Counters are process-wide: threads may run
 * collectives on distinct communicators at once.
 */
#ifndef COLL_RDMA_STATS_H
#define COLL_RDMA_STATS_H

#include "coll_rdma_call.h"

/** Add one fallback of `kind` and collective `coll` for reason `why` (enum coll_rdma_reason). */
void coll_rdma_stats_fallback(int kind, int coll, int why);

/**
 * The counters a served call `c` of `kind` by algorithm `alg` adds to, into
 * *l: calls and `moved` bytes (the call's bytes; allgather and alltoall:
 * times the communicator size), calls served only because Open MPI's own
 * reduction is wrong, forced n-way allreduces Bruck served.  A standing or
 * kept operation keeps its list and applies it at every call.
 */
void coll_rdma_stats_served(coll_rdma_stats_t *l, const coll_rdma_call_t *c, int kind, int alg,
                            size_t moved);

/** Add the counters of list *l. */
void coll_rdma_stats_apply(const coll_rdma_stats_t *l);

#endif /* COLL_RDMA_STATS_H */
