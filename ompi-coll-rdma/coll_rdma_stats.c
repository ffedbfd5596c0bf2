/*
 * coll/rdma statistics (coll_rdma_stats.h).
 */
#include "ompi_config.h"

#include "coll_rdma_stats.h"

#include <stdio.h>

#include "ompi/runtime/mpiruntime.h"

static coll_rdma_counters_t counters;

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

const coll_rdma_counters_t *coll_rdma_stats_counters(void)
{
    return &counters;
}

void coll_rdma_stats_fallback(int kind, int coll, int why)
{
    stat_add(&counters.fallback_calls[kind][coll][why], 1);
}

void coll_rdma_stats_apply(const coll_rdma_stats_t *l)
{
    for (int i = 0; i < l->n; ++i) {
        stat_add(l->counter[i], l->inc[i]);
    }
}

void coll_rdma_stats_served(coll_rdma_stats_t *l, int kind, int coll, int alg, size_t moved,
                            bool rescued, int asked)
{
    l->n = 0;
    stat_push(l, &counters.served_calls[kind][coll][alg], 1);
    stat_push(l, &counters.served_bytes[kind][coll][alg], moved);
    if (rescued) {
        stat_push(l, &counters.wrong_fallback_calls[coll], 1);
    }
    if (COLL_RDMA_ALLREDUCE == coll && COLL_RDMA_ALG_BRUCK == alg && COLL_RDMA_ALG_NWAY == asked) {
        /* forced nway on a (n, P) without a plan: Bruck served it */
        stat_push(l, &counters.allreduce_nway_not_adaptable, 1);
    }
}

void coll_rdma_stats_fallback_request(bool made)
{
    stat_add(made ? &counters.fallbacks_made : &counters.fallbacks_freed, 1);
}

void coll_rdma_stats_module(bool made)
{
    stat_add(made ? &counters.modules_made : &counters.modules_freed, 1);
}

void coll_rdma_stats_ssp_ages(const uint64_t *ages)
{
    for (int age = 0; age <= COLL_RDMA_STALENESS_MAX; ++age) {
        if (ages[age] > 0) {
            __atomic_fetch_add(&counters.ssp_ages[age], ages[age], __ATOMIC_RELAXED);
        }
    }
}

/* Stale-synchronous allreduce calls by age, where there were any. */
static void print_ages(const uint64_t *ages)
{
    char line[512];
    uint64_t calls = 0, stale = 0;
    int len = 0;

    for (int age = 0; age <= COLL_RDMA_STALENESS_MAX; ++age) {
        calls += ages[age];
        stale += age > 0 ? ages[age] : 0;
        if (ages[age] > 0 && len < (int) sizeof(line) - 32) {
            len += snprintf(line + len, sizeof(line) - len, " %d=%llu", age,
                            (unsigned long long) ages[age]);
        }
    }
    if (calls > 0) {
        coll_rdma_output("allreduce ssp_age: calls=%llu stale=%llu by age:%s",
                         (unsigned long long) calls, (unsigned long long) stale, line);
    }
}

void coll_rdma_stats_print(const char *const *coll_names, const char *const *alg_names,
                           const char *const *reason_names)
{
    const coll_rdma_counters_t *c = &counters;

    for (int kind = 0; kind < COLL_RDMA_NKINDS; ++kind) {
        for (int coll = 0; coll < COLL_RDMA_NCOLLS; ++coll) {
            uint64_t fallbacks = 0;
            char reasons[256], name[32];
            int len = 0;

            /* barrier, ibarrier, barrier_init: MPI's names */
            snprintf(name, sizeof(name), "%s%s%s", COLL_RDMA_KIND_NONBLOCKING == kind ? "i" : "",
                     coll_names[coll], COLL_RDMA_KIND_PERSISTENT == kind ? "_init" : "");
            for (int alg = COLL_RDMA_ALG_NWAY; alg < COLL_RDMA_NALGS; ++alg) {
                if (c->served_calls[kind][coll][alg] > 0) {
                    coll_rdma_output("%s %s: calls=%llu bytes=%llu", name, alg_names[alg],
                                     (unsigned long long) c->served_calls[kind][coll][alg],
                                     (unsigned long long) c->served_bytes[kind][coll][alg]);
                }
            }
            for (int why = 0; why < COLL_RDMA_NREASONS; ++why) {
                fallbacks += c->fallback_calls[kind][coll][why];
                len += snprintf(reasons + len, sizeof(reasons) - len, " %s=%llu",
                                reason_names[why],
                                (unsigned long long) c->fallback_calls[kind][coll][why]);
            }
            if (fallbacks > 0) {
                coll_rdma_output("%s fallback: calls=%llu%s", name,
                                 (unsigned long long) fallbacks, reasons);
            }
        }
    }
    for (int coll = 0; coll < COLL_RDMA_NCOLLS; ++coll) {
        if (c->wrong_fallback_calls[coll] > 0) {
            /* also counted above under their algorithm */
            coll_rdma_output("%s wrong_fallback: calls=%llu (served beyond the thresholds: "
                             "Open MPI's own reduction of their op and type is wrong here)",
                             coll_names[coll],
                             (unsigned long long) c->wrong_fallback_calls[coll]);
        }
    }
    print_ages(c->ssp_ages);
    if (c->modules_made > 0) {
        coll_rdma_output("modules: made=%llu freed=%llu (one per communicator; the others' "
                         "communicators outlived MPI_Finalize)",
                         (unsigned long long) c->modules_made,
                         (unsigned long long) c->modules_freed);
    }
    if (c->fallbacks_made > 0) {
        coll_rdma_output("early fallbacks: made=%llu freed=%llu (persistent requests of the "
                         "previous component)",
                         (unsigned long long) c->fallbacks_made,
                         (unsigned long long) c->fallbacks_freed);
    }
    if (c->allreduce_nway_not_adaptable > 0) {
        /* also counted above as "allreduce bruck" */
        coll_rdma_output("allreduce nway_not_adaptable: calls=%llu (served by bruck)",
                         (unsigned long long) c->allreduce_nway_not_adaptable);
    }
}
