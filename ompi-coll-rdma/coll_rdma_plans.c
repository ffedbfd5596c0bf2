/*
 * coll/rdma: every algorithm's plan, by collective and algorithm (the entry
 * points and the plan simulator of tests/unit look algorithms up here).
 */
#include "ompi_config.h"

#include "coll_rdma_exec.h"

const coll_rdma_plan_fn_t coll_rdma_plans[COLL_RDMA_NCOLLS][COLL_RDMA_NALGS] = {
    [COLL_RDMA_BARRIER] = {[COLL_RDMA_ALG_READ] = coll_rdma_barrier_read_plan,
                           [COLL_RDMA_ALG_NWAY] = coll_rdma_barrier_nway_plan,
                           [COLL_RDMA_ALG_PAIRWISE] = coll_rdma_barrier_pairwise_plan,
                           [COLL_RDMA_ALG_HIER] = coll_rdma_barrier_hier_plan},
    [COLL_RDMA_BCAST] = {[COLL_RDMA_ALG_READ] = coll_rdma_bcast_read_plan,
                         [COLL_RDMA_ALG_KNOMIAL] = coll_rdma_bcast_knomial_plan,
                         [COLL_RDMA_ALG_HIER] = coll_rdma_bcast_hier_plan},
    [COLL_RDMA_ALLREDUCE] = {[COLL_RDMA_ALG_READ] = coll_rdma_allreduce_read_plan,
                             [COLL_RDMA_ALG_PAIRWISE] = coll_rdma_allreduce_pairwise_plan,
                             [COLL_RDMA_ALG_KTREE] = coll_rdma_allreduce_ktree_plan,
                             [COLL_RDMA_ALG_NWAY] = coll_rdma_allreduce_nway_plan,
                             [COLL_RDMA_ALG_BRUCK] = coll_rdma_allreduce_bruck_plan,
                             [COLL_RDMA_ALG_RING] = coll_rdma_allreduce_ring_plan,
                             [COLL_RDMA_ALG_RSAG] = coll_rdma_allreduce_rsag_plan,
                             [COLL_RDMA_ALG_SSP] = coll_rdma_allreduce_ssp_plan,
                             [COLL_RDMA_ALG_HIER] = coll_rdma_allreduce_hier_plan},
    [COLL_RDMA_ALLGATHER] = {[COLL_RDMA_ALG_BRUCK] = coll_rdma_allgather_bruck_plan,
                             [COLL_RDMA_ALG_RING] = coll_rdma_allgather_ring_plan,
                             [COLL_RDMA_ALG_READ] = coll_rdma_allgather_read_plan},
    [COLL_RDMA_ALLTOALL] = {[COLL_RDMA_ALG_BRUCK] = coll_rdma_alltoall_bruck_plan,
                            [COLL_RDMA_ALG_DIRECT] = coll_rdma_alltoall_direct_plan,
                            [COLL_RDMA_ALG_READ] = coll_rdma_alltoall_read_plan},
    [COLL_RDMA_REDUCE] = {[COLL_RDMA_ALG_KNOMIAL] = coll_rdma_reduce_knomial_plan,
                          [COLL_RDMA_ALG_RSAG] = coll_rdma_reduce_rsag_plan},
};
