/*
 * small_probe: the per-call time of the smallest calls, one process per
 * rank, for before/after series of a hot-path change (bench/small_series.sh).
 * Modes, each timed over ITERS calls after ITERS/10 warm-up calls on a
 * dup'ed communicator whose window is set up: barrier, ibarrier + wait,
 * barrier_init start + wait, allreduce of one double (SUM), iallreduce +
 * wait, allreduce_init start + wait, bcast of one double from rank 0,
 * ibcast + wait, bcast_init start + wait; and iallreduce + wait on a
 * communicator that never sees a blocking call (its set-up made by
 * MPI_Iallreduce: coll/rdma's tag span never ends there, docs/design.md
 * "Tags").  Prints "<mode> <us per call>" on rank 0, the slowest rank's mean.
 *
 *     mpicc -O2 -o small_probe bench/small_probe.c
 *     mpirun -np 2 --bind-to core ./small_probe [ITERS]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION < 5
#    include <mpi-ext.h> /* Open MPI 4.1: MPIX_*_init; 5.0: mpi.h's MPI-4 names */
#    define MPI_Barrier_init MPIX_Barrier_init
#    define MPI_Allreduce_init MPIX_Allreduce_init
#    define MPI_Bcast_init MPIX_Bcast_init
#endif

enum {
    BARRIER, IBARRIER, BARRIER_INIT,
    ALLREDUCE, IALLREDUCE, ALLREDUCE_INIT,
    BCAST, IBCAST, BCAST_INIT, IALLREDUCE_NBONLY, NMODES
};
static const char *const names[NMODES] = {"barrier",   "ibarrier",   "barrier_init",
                                          "allreduce", "iallreduce", "allreduce_init",
                                          "bcast",     "ibcast",     "bcast_init",
                                          "iallreduce_nbonly"};

int main(int argc, char **argv)
{
    int rank, iters;
    double in, out, t[NMODES], tmax[NMODES];
    MPI_Comm comm, nbcomm;
    double b = 0;
    MPI_Request r, pa, pb, pc;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    iters = argc > 1 ? atoi(argv[1]) : 20000;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    in = rank;
    for (int i = 0; i < 100; ++i) {
        MPI_Barrier(comm); /* past coll/rdma's window set-up (16 calls by default) */
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &nbcomm);
    for (int i = 0; i < 100; ++i) { /* its set-up by nonblocking calls only */
        MPI_Iallreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, nbcomm, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    MPI_Allreduce_init(&in, &out, 1, MPI_DOUBLE, MPI_SUM, comm, MPI_INFO_NULL, &pa);
    MPI_Barrier_init(comm, MPI_INFO_NULL, &pb);
    MPI_Bcast_init(&b, 1, MPI_DOUBLE, 0, comm, MPI_INFO_NULL, &pc);
    for (int m = 0; m < NMODES; ++m) {
        for (int timed = 0; timed < 2; ++timed) {
            int n = timed ? iters : iters / 10;
            double t0;
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            for (int i = 0; i < n; ++i) {
                switch (m) {
                case BARRIER: MPI_Barrier(comm); break;
                case IBARRIER: MPI_Ibarrier(comm, &r); MPI_Wait(&r, MPI_STATUS_IGNORE); break;
                case BARRIER_INIT: MPI_Start(&pb); MPI_Wait(&pb, MPI_STATUS_IGNORE); break;
                case ALLREDUCE: MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, comm); break;
                case IALLREDUCE:
                    MPI_Iallreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, comm, &r);
                    MPI_Wait(&r, MPI_STATUS_IGNORE);
                    break;
                case ALLREDUCE_INIT: MPI_Start(&pa); MPI_Wait(&pa, MPI_STATUS_IGNORE); break;
                case BCAST: MPI_Bcast(&b, 1, MPI_DOUBLE, 0, comm); break;
                case IBCAST:
                    MPI_Ibcast(&b, 1, MPI_DOUBLE, 0, comm, &r);
                    MPI_Wait(&r, MPI_STATUS_IGNORE);
                    break;
                case BCAST_INIT: MPI_Start(&pc); MPI_Wait(&pc, MPI_STATUS_IGNORE); break;
                default:
                    MPI_Iallreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, nbcomm, &r);
                    MPI_Wait(&r, MPI_STATUS_IGNORE);
                    break;
                }
            }
            t[m] = (MPI_Wtime() - t0) / n * 1e6;
        }
    }
    MPI_Reduce(t, tmax, NMODES, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (0 == rank) {
        for (int m = 0; m < NMODES; ++m) {
            printf("%s %.3f\n", names[m], tmax[m]);
        }
    }
    MPI_Request_free(&pa);
    MPI_Request_free(&pb);
    MPI_Request_free(&pc);
    MPI_Comm_free(&comm);
    MPI_Comm_free(&nbcomm);
    MPI_Finalize();
    return 0;
}
