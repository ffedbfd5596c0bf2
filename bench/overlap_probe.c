/*
 * overlap_probe: where a nonblocking collective's time goes when the
 * application computes between the start and the wait (OSU's overlap
 * method), per phase: the start call, the computation, the wait.
 *
 *     mpicc -O2 -o overlap_probe bench/overlap_probe.c
 *     mpirun -np 2 --bind-to core ./overlap_probe [-c iallreduce|ibcast|ibarrier]
 *            [-m MAXBYTES] [-f FACTOR] [-t TESTS] [-i ITERS]
 *
 * For each size (8 B, x8 up to MAXBYTES, default 64 KiB), each timed over
 * ITERS back-to-back calls (default 20000, fewer above 4 KiB) on a dup'ed
 * communicator past coll/rdma's window set-up:
 *   pure     start + wait, no computation (us per call)
 *   compute  the computation alone: FACTOR x pure (default 1, as OSU)
 *   overall  start + computation + wait
 *   start, wait   the two calls' own time inside `overall`
 *   overlap  max(0, 100 - (overall - compute) / pure x 100), OSU's figure
 * -t TESTS splits the computation in TESTS pieces with an MPI_Test after
 * each (OSU's -t): the library may progress during the computation.
 * Prints one line per size on rank 0, the slowest rank's means.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile double sink;

static void compute(long loops)
{
    double x = 1.0;
    for (long k = 0; k < loops; k++) {
        x = x * 1.0000001 + 1e-9;
    }
    sink = x;
}

static void start(const char *coll, double *in, double *out, int n, MPI_Comm comm, MPI_Request *r)
{
    if (!strcmp(coll, "ibarrier")) {
        MPI_Ibarrier(comm, r);
    } else if (!strcmp(coll, "ibcast")) {
        MPI_Ibcast(out, n, MPI_DOUBLE, 0, comm, r);
    } else {
        MPI_Iallreduce(in, out, n, MPI_DOUBLE, MPI_SUM, comm, r);
    }
}

int main(int argc, char **argv)
{
    const char *coll = "iallreduce";
    long maxbytes = 65536, iters0 = 20000;
    double factor = 1.0;
    int tests = 0, opt, rank;
    MPI_Comm comm;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    while (-1 != (opt = getopt(argc, argv, "c:m:f:t:i:"))) {
        switch (opt) {
        case 'c': coll = optarg; break;
        case 'm': maxbytes = atol(optarg); break;
        case 'f': factor = atof(optarg); break;
        case 't': tests = atoi(optarg); break;
        case 'i': iters0 = atol(optarg); break;
        default:
            if (0 == rank) {
                fprintf(stderr, "usage: overlap_probe [-c COLL] [-m MAXBYTES] [-f FACTOR] [-t TESTS] [-i ITERS]\n");
            }
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    for (int k = 0; k < 100; ++k) {
        MPI_Barrier(comm); /* past coll/rdma's window set-up */
    }
    double *in = calloc((size_t) maxbytes / 8 + 1, 8), *out = calloc((size_t) maxbytes / 8 + 1, 8);
    double c0 = MPI_Wtime();
    compute(20000000);
    double loops_per_us = 20000000 / ((MPI_Wtime() - c0) * 1e6);
    MPI_Bcast(&loops_per_us, 1, MPI_DOUBLE, 0, comm);
    if (0 == rank) {
        printf("# %s, computation %.1f x pure, %d MPI_Test during it; us per call, slowest rank\n", coll,
               factor, tests);
        printf("# %8s %9s %9s %9s %9s %9s %8s\n", "bytes", "pure", "compute", "overall", "start", "wait",
               "overlap%");
    }
    for (long bytes = 8; bytes <= maxbytes; bytes *= 8) {
        int n = (int) (bytes / 8), flag;
        long iters = bytes > 4096 ? iters0 / 10 : iters0;
        double t[5] = {0}, tmax[5]; /* pure, compute, overall, start, wait */
        MPI_Request r;

        for (int timed = 0; timed < 2; ++timed) {
            long it = timed ? iters : iters / 10;
            MPI_Barrier(comm);
            double a = MPI_Wtime();
            for (long i = 0; i < it; ++i) {
                start(coll, in, out, n, comm, &r);
                MPI_Wait(&r, MPI_STATUS_IGNORE);
            }
            t[0] = (MPI_Wtime() - a) / it;
        }
        MPI_Allreduce(MPI_IN_PLACE, &t[0], 1, MPI_DOUBLE, MPI_MAX, comm);
        long loops = (long) (factor * t[0] * 1e6 * loops_per_us), piece = tests > 0 ? loops / tests : loops;
        MPI_Barrier(comm);
        double a = MPI_Wtime();
        for (long i = 0; i < iters; ++i) {
            compute(loops);
        }
        t[1] = (MPI_Wtime() - a) / iters;
        MPI_Barrier(comm);
        a = MPI_Wtime();
        for (long i = 0; i < iters; ++i) {
            double s0 = MPI_Wtime();
            start(coll, in, out, n, comm, &r);
            double s1 = MPI_Wtime();
            if (tests > 0) {
                for (int k = 0; k < tests; ++k) {
                    compute(piece);
                    MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
                }
            } else {
                compute(loops);
            }
            double w0 = MPI_Wtime();
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            t[3] += s1 - s0;
            t[4] += MPI_Wtime() - w0;
        }
        t[2] = (MPI_Wtime() - a) / iters;
        t[3] /= iters;
        t[4] /= iters;
        MPI_Reduce(t, tmax, 5, MPI_DOUBLE, MPI_MAX, 0, comm);
        if (0 == rank) {
            double ov = 100.0 - (tmax[2] - tmax[1]) / tmax[0] * 100.0;
            printf("  %8ld %9.3f %9.3f %9.3f %9.3f %9.3f %8.1f\n", bytes, tmax[0] * 1e6, tmax[1] * 1e6,
                   tmax[2] * 1e6, tmax[3] * 1e6, tmax[4] * 1e6, ov < 0 ? 0 : ov);
            fflush(stdout);
        }
    }
    free(in);
    free(out);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
