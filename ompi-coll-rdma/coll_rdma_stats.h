/*
 * coll/rdma statistics: what each call served or handed on, per kind,
 * collective, algorithm and reason, printed at MPI_Finalize with
 * coll_rdma_verbose >= 1 and read by the MPI_T variables (the component).
 * Counters are process-wide: threads may run collectives on distinct
 * communicators at once.  Ground floor: every layer may count.
 */
#ifndef COLL_RDMA_STATS_H
#define COLL_RDMA_STATS_H

#include "coll_rdma_config.h"

/** The process's counters. */
typedef struct coll_rdma_counters {
    uint64_t served_calls[COLL_RDMA_NKINDS][COLL_RDMA_NCOLLS][COLL_RDMA_NALGS];
    uint64_t served_bytes[COLL_RDMA_NKINDS][COLL_RDMA_NCOLLS][COLL_RDMA_NALGS];
    uint64_t fallback_calls[COLL_RDMA_NKINDS][COLL_RDMA_NCOLLS][COLL_RDMA_NREASONS];
    /* allreduce calls with nway forced that Bruck served: (n, P) not adaptable */
    uint64_t allreduce_nway_not_adaptable;
    /* calls served beyond the thresholds because Open MPI's own reduction of
     * their (op, type) is wrong (also counted under their algorithm) */
    uint64_t wrong_fallback_calls[COLL_RDMA_NCOLLS];
    /* stale-synchronous allreduce calls by age (the caller's iteration minus
     * the oldest contribution's), added by each module when it goes */
    uint64_t ssp_ages[COLL_RDMA_STALENESS_MAX + 1];
    /* persistent requests of the previous component made as early requests'
     * fallbacks, and freed: equal at the end of a run that freed its requests
     * (the leak check counts them against what its suppression hides) */
    uint64_t fallbacks_made, fallbacks_freed;
    /* modules (one per communicator) made and destroyed: equal at the end of
     * a run that freed its communicators and their requests */
    uint64_t modules_made, modules_freed;
} coll_rdma_counters_t;

/** Counters a call adds to, and by how much: a standing or kept operation
 * keeps its list and applies it at every call. */
typedef struct coll_rdma_stats {
    int n;
    uint64_t *counter[4];
    uint64_t inc[4];
} coll_rdma_stats_t;

/** The process's counters, to read (the component prints them). */
const coll_rdma_counters_t *coll_rdma_stats_counters(void);

/** Add one fallback of `kind` and collective `coll` for reason `why` (enum coll_rdma_reason). */
void coll_rdma_stats_fallback(int kind, int coll, int why);

/**
 * The counters a served call of `kind` and collective `coll` by algorithm
 * `alg` adds to, into *l: calls and `moved` bytes (the call's bytes;
 * allgather and alltoall: times the communicator size), calls served only
 * because Open MPI's own reduction is wrong (`rescued`), forced n-way
 * allreduces that Bruck served (`asked`: the collective's configured
 * algorithm).
 */
void coll_rdma_stats_served(coll_rdma_stats_t *l, int kind, int coll, int alg, size_t moved,
                            bool rescued, int asked);

/** Add the counters of list *l. */
void coll_rdma_stats_apply(const coll_rdma_stats_t *l);

/** One more early request's fallback made (`made`) or freed (!made). */
void coll_rdma_stats_fallback_request(bool made);

/** One more module made (`made`) or destroyed (!made). */
void coll_rdma_stats_module(bool made);

/** Add a communicator's stale-synchronous calls by age (COLL_RDMA_STALENESS_MAX + 1 entries). */
void coll_rdma_stats_ssp_ages(const uint64_t *ages);

/**
 * Print every counter that is not 0, one line each (coll_rdma_output), with
 * the names of the collectives, algorithms and fallback reasons
 * (COLL_RDMA_NCOLLS, COLL_RDMA_NALGS and COLL_RDMA_NREASONS entries).
 */
void coll_rdma_stats_print(const char *const *coll_names, const char *const *alg_names,
                           const char *const *reason_names);

#endif /* COLL_RDMA_STATS_H */
