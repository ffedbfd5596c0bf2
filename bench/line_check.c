/*
 * line_check: the cost of one cache-line transfer and the small collectives,
 * measured side by side in one job, batch by batch, for checking the
 * cache-line model's predictions (sched_dump --lines -c; docs/design.md, "A
 * model of cache-line transfers").  A virtual machine may move its virtual
 * cores between faster and slower placements from one second to the next
 * (the 2-core development VM does: a line crosses in 55 or in 235 ns), so
 * a transfer's cost and a collective's time are only comparable when
 * measured together; each batch prints both.
 *
 * Per batch, on a dup'ed communicator whose window is set up:
 *   pingpong  ranks 0 and 1 through a shared-memory window (a word per
 *             direction, stored and polled, as coll/rdma's direct path
 *             does): half the median round trip, ns
 *   fan       rank 0 stores a word that every other rank polls: from the
 *             store to the last rank seeing it (TSC, one node), the median
 *             over the rounds, ns (a line read by P-1 cores at once)
 *   barrier, bcast (8 B, root 0), allreduce (8 B, one double, SUM), reduce
 *             (8 B, root 0): per call, each rank's median over the batch,
 *             the slowest rank's, us; bcast and reduce after an untimed
 *             MPI_Barrier each (the OSU method, as coll_bench), barrier and
 *             allreduce back to back
 *
 *     mpicc -O2 -o line_check bench/line_check.c
 *     mpirun -np 2 --bind-to core ./line_check [-b BATCHES] [-n CALLS]
 *
 * Output: "batch K pingpong NS fan NS barrier US bcast US allreduce US
 * reduce US" per batch (rank 0).
 */
#include <mpi.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_time.h"


#define LINE 64
#define ROUNDS 500

enum { BARRIER, BCAST, ALLREDUCE, REDUCE, NCOLLS };
static const char *const names[NCOLLS] = {"barrier", "bcast", "allreduce", "reduce"};

/* Word w of rank r's segment of the shared window (one line each). */
static _Atomic uint64_t *word(char **seg, int r, int w)
{
    return (_Atomic uint64_t *) (seg[r] + (size_t) w * LINE);
}

/** Ping-pong between ranks 0 and 1: half the median round trip (ns). */
static double pingpong(char **seg, int rank, uint64_t *seq, double tsc_ns, double *t)
{
    for (int i = -50; i < ROUNDS; ++i) {
        uint64_t s = ++*seq;
        if (0 == rank) {
            uint64_t t0 = ticks();
            atomic_store_explicit(word(seg, 1, 0), s, memory_order_release);
            while (atomic_load_explicit(word(seg, 0, 0), memory_order_acquire) != s) {
            }
            if (i >= 0) {
                t[i] = (double) (ticks() - t0) * tsc_ns / 2;
            }
        } else if (1 == rank) {
            while (atomic_load_explicit(word(seg, 1, 0), memory_order_acquire) != s) {
            }
            atomic_store_explicit(word(seg, 0, 0), s, memory_order_release);
        }
    }
    return 0 == rank ? median(t, ROUNDS) : 0;
}

/** Rank 0 stores a word all others poll: store to the last one seeing it (ns, median). */
static double fan(char **seg, int rank, int size, uint64_t *seq, double tsc_ns, double *t)
{
    for (int i = -50; i < ROUNDS; ++i) {
        uint64_t s = ++*seq;
        if (0 == rank) {
            uint64_t t0, last = 0;
            double wait = now_us();
            while (now_us() - wait < 2) {
                /* every poller back at its poll */
            }
            t0 = ticks();
            atomic_store_explicit(word(seg, 0, 1), s, memory_order_release);
            for (int r = 1; r < size; ++r) {
                while (atomic_load_explicit(word(seg, r, 2), memory_order_acquire) != s) {
                }
                uint64_t seen = atomic_load_explicit(word(seg, r, 3), memory_order_relaxed);
                last = seen - t0 > last ? seen - t0 : last;
            }
            if (i >= 0) {
                t[i] = (double) last * tsc_ns;
            }
        } else {
            while (atomic_load_explicit(word(seg, 0, 1), memory_order_acquire) != s) {
            }
            atomic_store_explicit(word(seg, rank, 3), ticks(), memory_order_relaxed);
            atomic_store_explicit(word(seg, rank, 2), s, memory_order_release);
        }
    }
    return 0 == rank ? median(t, ROUNDS) : 0;
}

/** One collective, n calls: this rank's median per call (us). */
static double coll(int c, MPI_Comm comm, int n, double *t)
{
    double in = 1, out = 0, b = 0;

    for (int i = -n / 10; i < n; ++i) {
        double t0;
        if (BCAST == c || REDUCE == c) {
            MPI_Barrier(comm);
        }
        t0 = now_us();
        switch (c) {
        case BARRIER:
            MPI_Barrier(comm);
            break;
        case BCAST:
            MPI_Bcast(&b, 1, MPI_DOUBLE, 0, comm);
            break;
        case ALLREDUCE:
            MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, comm);
            break;
        default:
            MPI_Reduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
        }
        if (i >= 0) {
            t[i] = now_us() - t0;
        }
    }
    return median(t, n);
}

int main(int argc, char **argv)
{
    int rank, size, batches = 10, n = 2000;
    MPI_Comm comm, node;
    MPI_Win win;
    char *base, **seg;
    double *t, tsc_ns, t0;
    uint64_t c0, seq = 0;

    MPI_Init(&argc, &argv);
    for (int a = 1; a + 1 < argc; a += 2) {
        if (0 == strcmp(argv[a], "-b")) {
            batches = atoi(argv[a + 1]);
        } else if (0 == strcmp(argv[a], "-n")) {
            n = atoi(argv[a + 1]);
        }
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    {
        int nsize;
        MPI_Comm_size(node, &nsize);
        if (nsize != size || size < 2 || n < 10) {
            if (0 == rank) {
                fprintf(stderr, "line_check: needs 2 or more ranks, all on one node, and -n >= 10\n");
            }
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    MPI_Win_allocate_shared(4 * LINE, LINE, MPI_INFO_NULL, node, &base, &win);
    seg = malloc(sizeof(char *) * (size_t) size);
    t = malloc(sizeof(double) * (size_t) (n > ROUNDS ? n : ROUNDS));
    for (int r = 0; r < size; ++r) {
        MPI_Aint sz;
        int du;
        MPI_Win_shared_query(win, r, &sz, &du, &seg[r]);
    }
    memset(base, 0, 4 * LINE);
    for (int i = 0; i < 100; ++i) {
        MPI_Barrier(comm); /* past coll/rdma's window set-up */
    }
    /* TSC ticks to ns, against CLOCK_MONOTONIC over 20 ms */
    t0 = now_us();
    c0 = ticks();
    while (now_us() - t0 < 2e4) {
    }
    tsc_ns = (now_us() - t0) * 1e3 / (double) (ticks() - c0);
    MPI_Bcast(&tsc_ns, 1, MPI_DOUBLE, 0, comm);
    for (int b = 0; b < batches; ++b) {
        double pp, fn, res[NCOLLS], worst[NCOLLS];
        MPI_Barrier(comm);
        pp = pingpong(seg, rank, &seq, tsc_ns, t);
        MPI_Barrier(comm);
        fn = fan(seg, rank, size, &seq, tsc_ns, t);
        for (int c = 0; c < NCOLLS; ++c) {
            MPI_Barrier(comm);
            res[c] = coll(c, comm, n, t);
        }
        MPI_Reduce(res, worst, NCOLLS, MPI_DOUBLE, MPI_MAX, 0, comm);
        if (0 == rank) {
            printf("batch %d pingpong %.1f fan %.1f", b, pp, fn);
            for (int c = 0; c < NCOLLS; ++c) {
                printf(" %s %.3f", names[c], worst[c]);
            }
            printf("\n");
            fflush(stdout);
        }
    }
    MPI_Win_free(&win);
    free(seg);
    free(t);
    MPI_Comm_free(&node);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
