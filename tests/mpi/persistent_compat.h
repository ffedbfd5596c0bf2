/*
 * MPI-4's persistent collectives under their standard names on every Open
 * MPI the tests build against: 4.1 names them MPIX_*_init (mpi-ext.h), 5.0
 * and 6.0 have MPI_*_init in mpi.h.  Included after mpi.h.
 */
#ifndef COLL_RDMA_TESTS_PERSISTENT_COMPAT_H
#define COLL_RDMA_TESTS_PERSISTENT_COMPAT_H

#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION < 5
#    include <mpi-ext.h>
#    define MPI_Barrier_init MPIX_Barrier_init
#    define MPI_Bcast_init MPIX_Bcast_init
#    define MPI_Allreduce_init MPIX_Allreduce_init
#    define MPI_Reduce_init MPIX_Reduce_init
#    define MPI_Allgather_init MPIX_Allgather_init
#    define MPI_Alltoall_init MPIX_Alltoall_init
#endif

#endif
