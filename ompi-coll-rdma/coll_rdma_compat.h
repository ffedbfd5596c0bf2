/*
 * coll/rdma: everything that depends on the Open MPI version lives here.
 *
 * Open MPI 4.1: coll component API 2.0.0 (MCA_COLL_BASE_VERSION_2_0_0),
 * module struct 2.3.0, communicator table behind the pointer comm->c_coll.
 */
#ifndef COLL_RDMA_COMPAT_H
#define COLL_RDMA_COMPAT_H

#include "ompi_config.h"
#include "ompi/mca/coll/coll.h"

#if OMPI_MAJOR_VERSION != 4
#error "coll/rdma supports Open MPI 4.1 (configure checks this)"
#endif

#define COLL_RDMA_COMPONENT_VERSION MCA_COLL_BASE_VERSION_2_0_0

/* The communicator's table of selected functions and their modules. */
#define COLL_RDMA_COMM_TABLE(comm) ((comm)->c_coll)

/* Barrier, bcast and allreduce function types of this coll API. */
typedef mca_coll_base_module_barrier_fn_t coll_rdma_barrier_fn_t;
typedef mca_coll_base_module_bcast_fn_t coll_rdma_bcast_fn_t;
typedef mca_coll_base_module_allreduce_fn_t coll_rdma_allreduce_fn_t;
typedef mca_coll_base_module_allgather_fn_t coll_rdma_allgather_fn_t;
typedef mca_coll_base_module_allgatherv_fn_t coll_rdma_allgatherv_fn_t;

#endif /* COLL_RDMA_COMPAT_H */
