/*
 * coll/rdma entry points (coll_rdma_entry.c): MPI's blocking, nonblocking and
 * persistent barrier, bcast, allreduce, reduce, allgather and alltoall.
 */
#ifndef COLL_RDMA_ENTRY_H
#define COLL_RDMA_ENTRY_H

#include "coll_rdma_module.h"

/** Fill the module's collective slots with coll/rdma's entry points, and register what
 * drops the layers' state of the module when it goes (its teardown). */
void coll_rdma_entry_install(mca_coll_rdma_module_t *m);

/** The coll/rdma module serving comm's MPI_Allreduce, or NULL (another component's, or none yet). */
mca_coll_rdma_module_t *coll_rdma_entry_module(struct ompi_communicator_t *comm);

#endif /* COLL_RDMA_ENTRY_H */
