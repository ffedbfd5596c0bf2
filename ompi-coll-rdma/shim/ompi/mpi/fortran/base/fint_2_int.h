/*
 * Stand-in for an Open MPI header that Debian's libopenmpi-dev does not
 * install but ompi/op/op.h includes.  op.h only needs OMPI_INT_2_FINT, for
 * Fortran user ops, which coll/rdma never calls (it falls back for them).
 */
#ifndef COLL_RDMA_SHIM_FINT_2_INT_H
#define COLL_RDMA_SHIM_FINT_2_INT_H
#ifndef OMPI_INT_2_FINT
#define OMPI_INT_2_FINT(a) ((MPI_Fint) (a))
#endif
#endif
