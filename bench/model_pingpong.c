/*
 * model_pingpong: LogGP parameters between two ranks, for bench/model.py.
 *
 * Two ranks (ranks above 1 wait).  Two paths are measured:
 *   mpi:   MPI_Send / MPI_Recv (the point-to-point path coll/tuned and
 *          coll/han build on: ob1 + vader on one node, TCP between hosts);
 *   store: plain stores into a shared-memory window (MPI_Win_allocate_shared,
 *          one node only): the payload copied into the peer's slot, then a
 *          sequence word, the receiver spinning on it and copying out; the
 *          path coll/rdma takes on one node.
 * For each: the one-way time of a ping-pong at sizes 1 B .. 1 MiB (half the
 * round trip, median of the repetitions), and the time per message of a burst
 * of BURST messages of 1 B answered by one reply (the gap g).  Then the cost
 * of combining doubles (MPI_Reduce_local, SUM) per byte.  Output, one line
 * per value (us, us per byte):
 *   oneway <path> <bytes> <us>
 *   burst <path> <us per message>
 *   osend <path> <us>           (mpi only: the time MPI_Send of 1 B takes)
 *   orecv <path> <us>           (mpi only: MPI_Recv of 1 B already there)
 *   gamma <us per byte>
 * Runs in about a second; -n REPS sets the repetitions (default 2000 for
 * small sizes, fewer above 8 KiB).
 */
#include <mpi.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_time.h"

#define MAXB (1 << 20)
#define BURST 32

/** Repetitions for a payload of `bytes` bytes, from the base count. */
static int reps_for(long bytes, int base)
{
    int r = bytes > 65536 ? base / 20 : bytes > 8192 ? base / 4 : base;
    return r < 20 ? 20 : r;
}

/** MPI ping-pong one-way time (us) for `bytes` bytes, median of reps. */
static double mpi_oneway(int rank, char *buf, long bytes, int reps, double *t)
{
    for (int i = -10; i < reps; ++i) {
        double t0 = now_us();
        if (0 == rank) {
            MPI_Send(buf, (int) bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(buf, (int) bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, (int) bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, (int) bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        }
        if (i >= 0) t[i] = (now_us() - t0) / 2;
    }
    return median(t, reps);
}

/** MPI burst: BURST messages of 1 B, one reply; us per message. */
static double mpi_burst(int rank, char *buf, int reps, double *t)
{
    for (int i = -10; i < reps; ++i) {
        double t0 = now_us();
        if (0 == rank) {
            for (int j = 0; j < BURST; ++j) MPI_Send(buf, 1, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
            MPI_Recv(buf, 1, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            for (int j = 0; j < BURST; ++j) MPI_Recv(buf, 1, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, 1, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
        }
        if (i >= 0) t[i] = now_us() - t0;
    }
    return median(t, reps) / BURST;
}

/** Send and receive overheads of a 1-byte MPI message (us): the time inside
 * MPI_Send, and inside MPI_Recv of a message that has already arrived. */
static void mpi_overheads(int rank, char *buf, int reps, double *t, double *os, double *orv)
{
    double *t2 = t + reps;
    for (int i = 0; i < reps; ++i) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (0 == rank) {
            double t0 = now_us();
            MPI_Send(buf, 1, MPI_BYTE, 1, 3, MPI_COMM_WORLD);
            t[i] = now_us() - t0;
        } else {
            double t0 = now_us();
            while (now_us() - t0 < 20.0) {
                /* let the message arrive */
            }
            int flag = 0;
            MPI_Iprobe(0, 3, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            t0 = now_us();
            MPI_Recv(buf, 1, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            t2[i] = now_us() - t0;
        }
    }
    *os = 0 == rank ? median(t, reps) : 0;
    *orv = 1 == rank ? median(t2, reps) : 0;
}

/* The store path: slot[r] of rank r's segment receives from the peer. */
typedef struct {
    _Atomic long seq;
    char pad[56];
} flag_t;

static double store_oneway(int rank, char *mine, char *peer, flag_t *fmine, flag_t *fpeer,
                           char *out, long bytes, int reps, double *t, long *seq)
{
    for (int i = -10; i < reps; ++i) {
        double t0 = now_us();
        long s = ++*seq;
        if (0 == rank) {
            memcpy(peer, out, bytes);
            atomic_store_explicit(&fpeer->seq, s, memory_order_release);
            while (atomic_load_explicit(&fmine->seq, memory_order_acquire) != s) {
            }
            memcpy(out, mine, bytes);
        } else {
            while (atomic_load_explicit(&fmine->seq, memory_order_acquire) != s) {
            }
            memcpy(out, mine, bytes);
            memcpy(peer, out, bytes);
            atomic_store_explicit(&fpeer->seq, s, memory_order_release);
        }
        if (i >= 0) t[i] = (now_us() - t0) / 2;
    }
    return median(t, reps);
}

/** Store burst: BURST flags to BURST separate lines, one reply flag. */
static double store_burst(int rank, flag_t *fmine, flag_t *fpeer, int reps, double *t, long *seq)
{
    for (int i = -10; i < reps; ++i) {
        double t0 = now_us();
        long s = ++*seq;
        if (0 == rank) {
            for (int j = 1; j <= BURST; ++j) {
                atomic_store_explicit(&fpeer[j].seq, s, memory_order_release);
            }
            while (atomic_load_explicit(&fmine->seq, memory_order_acquire) != s) {
            }
        } else {
            for (int j = 1; j <= BURST; ++j) {
                while (atomic_load_explicit(&fmine[j].seq, memory_order_acquire) != s) {
                }
            }
            atomic_store_explicit(&fpeer->seq, s, memory_order_release);
        }
        if (i >= 0) t[i] = now_us() - t0;
    }
    return median(t, reps) / BURST;
}

int main(int argc, char **argv)
{
    int rank, size, base = 2000, shm = 0;
    static const long sizes[] = {1, 8, 64, 512, 4096, 65536, 1048576};
    const int nsizes = sizeof(sizes) / sizeof(sizes[0]);

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 2 && 0 == strcmp(argv[1], "-n")) base = atoi(argv[2]);
    if (size < 2) {
        if (0 == rank) fprintf(stderr, "model_pingpong: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    char *buf = malloc(MAXB), *out = malloc(MAXB);
    double *t = malloc(sizeof(double) * 2 * (base + 10));
    memset(buf, 1, MAXB);
    memset(out, 2, MAXB);

    /* one node?  Then the store path can be measured too. */
    MPI_Comm node;
    int nsize;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &nsize);
    MPI_Allreduce(MPI_IN_PLACE, &nsize, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    shm = nsize >= 2;

    if (rank < 2) {
        MPI_Comm pair;
        MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &pair);
        for (int k = 0; k < nsizes; ++k) {
            double v = mpi_oneway(rank, buf, sizes[k], reps_for(sizes[k], base), t);
            if (0 == rank) printf("oneway mpi %ld %.4f\n", sizes[k], v);
        }
        double b = mpi_burst(rank, buf, base / 4, t);
        if (0 == rank) printf("burst mpi %.4f\n", b);
        double os, orv;
        mpi_overheads(rank, buf, base / 10, t, &os, &orv);
        if (1 == rank) MPI_Send(&orv, 1, MPI_DOUBLE, 0, 4, MPI_COMM_WORLD);
        if (0 == rank) {
            MPI_Recv(&orv, 1, MPI_DOUBLE, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            printf("osend mpi %.4f\norecv mpi %.4f\n", os, orv);
        }
        MPI_Comm_free(&pair);
    } else {
        MPI_Comm dummy;
        MPI_Comm_split(MPI_COMM_WORLD, MPI_UNDEFINED, rank, &dummy);
    }

    if (shm) {
        MPI_Comm two;
        MPI_Win win;
        char *base_ptr;
        long seq = 0;
        MPI_Aint seg = MAXB + (BURST + 1) * sizeof(flag_t);
        MPI_Comm_split(node, rank < 2 ? 0 : MPI_UNDEFINED, rank, &two);
        if (rank < 2) {
            MPI_Win_allocate_shared(seg, 64, MPI_INFO_NULL, two, &base_ptr, &win);
            MPI_Aint psz;
            int disp;
            char *peer_ptr;
            MPI_Win_shared_query(win, 1 - rank, &psz, &disp, &peer_ptr);
            flag_t *fmine = (flag_t *) base_ptr, *fpeer = (flag_t *) peer_ptr;
            memset(base_ptr, 0, seg);
            MPI_Barrier(two);
            for (int k = 0; k < nsizes; ++k) {
                double v = store_oneway(rank, base_ptr + (BURST + 1) * sizeof(flag_t),
                                        peer_ptr + (BURST + 1) * sizeof(flag_t), fmine, fpeer, out,
                                        sizes[k], reps_for(sizes[k], base), t, &seq);
                if (0 == rank) printf("oneway store %ld %.4f\n", sizes[k], v);
            }
            double b = store_burst(rank, fmine, fpeer, base / 4, t, &seq);
            if (0 == rank) printf("burst store %.4f\n", b);
            MPI_Barrier(two);
            MPI_Win_free(&win);
            MPI_Comm_free(&two);
        }
    }

    if (0 == rank) {
        int n = MAXB / sizeof(double), reps = 20;
        double *a = (double *) buf, *c = (double *) out;
        for (int i = 0; i < n; ++i) a[i] = c[i] = 1.0;
        for (int i = -2; i < reps; ++i) {
            double t0 = now_us();
            MPI_Reduce_local(a, c, n, MPI_DOUBLE, MPI_SUM);
            if (i >= 0) t[i] = now_us() - t0;
        }
        printf("gamma %.6f\n", median(t, reps) / MAXB);
    }
    free(buf);
    free(out);
    free(t);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return 0;
}
