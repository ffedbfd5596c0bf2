/*
 * tests/pkg/run_pkg_test.sh's MPI program: a few hundred barriers, bcasts and
 * allreduces, results checked, "pkg_coll: ok" from rank 0.  Run with plain
 * mpirun, with the installed package (coll/rdma serves past the first
 * coll_rdma_window_setup_calls calls) and without it (Open MPI's own).
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, i, bad = 0, allbad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (i = 0; i < 200; i++) {
        long v = rank + i, sum = 0, b = rank == 0 ? i : -1;
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Bcast(&b, 1, MPI_LONG, 0, MPI_COMM_WORLD);
        MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (b != i || sum != (long) size * (size - 1) / 2 + (long) size * i) {
            bad++;
        }
    }
    MPI_Allreduce(&bad, &allbad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (allbad) {
            printf("pkg_coll: %d wrong results\n", allbad);
        } else {
            printf("pkg_coll: ok\n");
        }
    }
    MPI_Finalize();
    return allbad != 0;
}
