/*
 * setup_cost: what one process pays for coll/rdma's start-up and window
 * set-up, call by call (issue 10, item 2).
 *
 * Build:  made by `make` as bench/setup_cost (or: mpicc -O2 bench/setup_cost.c -o setup_cost)
 * Usage:  mpirun -np 2 ./setup_cost [-n CALLS] [-s STEADY] [-m COMMS] [-k KIND]
 *         bench/setup_cost.sh runs it interleaved with and without coll/rdma
 *         and prints medians over runs.
 *
 * Times, each with CLOCK_MONOTONIC inside the process:
 *   init     MPI_Init (every rank; reported: the slowest rank; initmin: the
 *            fastest, which waited least for the others to start and so
 *            shows best what MPI_Init itself costs)
 *   call[i]  the i-th (1-based) 8-byte MPI_Allreduce (int64 SUM) on a
 *            communicator dup'ed from MPI_COMM_WORLD right after MPI_Init,
 *            i = 1..CALLS (default 40: with coll_rdma_window_setup_calls =
 *            16, call 17 sets the window up, or call 33 where the set-up
 *            was postponed because UCX was still starting).  Before each call the ranks
 *            meet in a barrier made of point-to-point messages, so that no
 *            other collective (and no other communicator's set-up) enters
 *            the measurement; reported: the slowest rank's time of that call.
 *   worst    the slowest of those calls (max over ranks), and worstat its
 *            number: the set-up call, unless noise was worse.
 *   steady   the median of STEADY (default 2000) more such calls, each timed
 *            alone, back to back (max over ranks of the per-rank median).
 *   dup2     the slowest of calls 15 to 18 on a second dup'ed communicator
 *            (max over ranks of each): with the default
 *            coll_rdma_window_setup_calls, its window's set-up once UCX
 *            already runs in the process.
 *   dup3     the same on a third, dup'ed after the second was freed on
 *            every rank: its window comes from the pool
 *            (coll_rdma_window_pool), without new shared memory.
 *   freeN    with -m N: the mean time per communicator of N communicators
 *            dup'ed, given 20 checked blocking 8-byte allreduces each (so
 *            that coll/rdma's window is set up after its 16 warm-up calls)
 *            and freed before the next (rank 0's clock, after a barrier).
 *   keptN    the same, all N kept alive; then freed together.
 *   shmkept  the bytes of /dev/shm in use (statvfs, rank 0, the whole node)
 *            with those N alive, less right after MPI_Init (so windows
 *            kept for reuse count too), per communicator, in KiB (key
 *            shmkept_kib).
 *   fin      MPI_Finalize, rank 0 only.
 * KIND (-k) says how each allreduce is called: blocking (MPI_Allreduce, the
 * default), nonblocking (MPI_Iallreduce then MPI_Wait) or persistent (one
 * MPI_Allreduce_init, MPI_Start then MPI_Wait for each call; the init counts
 * as the communicator's first collective call).  A call's time is then the
 * start and the wait together; startmax is the longest start alone (MPI_I*
 * or MPI_Start must not wait for other ranks).
 * Output: one line on rank 0,
 *   init_us=.. initmin_us=.. call1_us=.. ... callN_us=.. worst_us=.. worstat_us=..
 *   steady_us=.. dup2_us=.. dup3_us=.. startmax_us=.. fin_us=..  (worstat is a call number; every
 *   key ends in _us for the summary script)
 * Every result is checked (sum of rank + call numbers); a wrong one aborts.
 */
#define _GNU_SOURCE
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>

static double now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e6 + (double) ts.tv_nsec / 1e3;
}

/* A barrier of point-to-point messages (a gather to 0 and a release), so
 * that the timed communicator's collective calls are the only ones made. */
static void p2p_barrier(MPI_Comm comm)
{
    int rank, size, token = 0;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (0 == rank) {
        for (int i = 1; i < size; ++i) {
            MPI_Recv(&token, 1, MPI_INT, i, 77, comm, MPI_STATUS_IGNORE);
        }
        for (int i = 1; i < size; ++i) {
            MPI_Send(&token, 1, MPI_INT, i, 78, comm);
        }
    } else {
        MPI_Send(&token, 1, MPI_INT, 0, 77, comm);
        MPI_Recv(&token, 1, MPI_INT, 0, 78, comm, MPI_STATUS_IGNORE);
    }
}

enum { KIND_BLOCKING, KIND_NONBLOCKING, KIND_PERSISTENT };
static int kind = KIND_BLOCKING;
static double start_max = 0; /* the longest MPI_I* or MPI_Start alone, us */

#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION < 5
#    include <mpi-ext.h>
#    define MPI_Allreduce_init MPIX_Allreduce_init
#endif

/* The persistent request of a communicator (kind persistent), and its buffers. */
static MPI_Request preq[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
static int64_t pin[2], pout[2];

/* One checked 8-byte allreduce: every rank contributes rank + call. */
static void checked_allreduce(MPI_Comm comm, int which, int64_t call, int rank, int size)
{
    int64_t in = rank + call, out = -1, want = (int64_t) size * (size - 1) / 2 + size * call;
    MPI_Request r;
    double t;

    switch (kind) {
    case KIND_BLOCKING:
        MPI_Allreduce(&in, &out, 1, MPI_INT64_T, MPI_SUM, comm);
        break;
    case KIND_NONBLOCKING:
        t = now_us();
        MPI_Iallreduce(&in, &out, 1, MPI_INT64_T, MPI_SUM, comm, &r);
        t = now_us() - t;
        start_max = t > start_max ? t : start_max;
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        break;
    default:
        if (MPI_REQUEST_NULL == preq[which]) {
            MPI_Allreduce_init(&pin[which], &pout[which], 1, MPI_INT64_T, MPI_SUM, comm,
                               MPI_INFO_NULL, &preq[which]);
        }
        pin[which] = in;
        t = now_us();
        MPI_Start(&preq[which]);
        t = now_us() - t;
        start_max = t > start_max ? t : start_max;
        MPI_Wait(&preq[which], MPI_STATUS_IGNORE);
        out = pout[which];
    }
    if (out != want) {
        fprintf(stderr, "setup_cost: rank %d call %lld: got %lld, expected %lld\n", rank,
                (long long) call, (long long) out, (long long) want);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* Bytes in use in UCX's shared-memory directory on this node (UCX_POSIX_DIR,
 * else /dev/shm; 0 where it cannot be read). */
static double shm_used(void)
{
    const char *dir = getenv("UCX_POSIX_DIR");
    struct statvfs st;

    if (0 != statvfs(NULL != dir && '\0' != dir[0] ? dir : "/dev/shm", &st)) {
        return 0;
    }
    return (double) (st.f_blocks - st.f_bfree) * (double) st.f_frsize;
}

/*
 * -m N: N communicators dup'ed from MPI_COMM_WORLD, 20 checked blocking
 * allreduces each; freed one by one (many[0], us per communicator) or kept
 * until all N exist (many[1]; many[2]: /dev/shm's growth since shm_init per
 * communicator, KiB).  Rank 0's clock, after a point-to-point barrier.
 */
static void many_communicators(int n, int rank, int size, double shm_init, double many[3])
{
    MPI_Comm *c = malloc(sizeof(MPI_Comm) * n);
    int saved = kind;

    kind = KIND_BLOCKING;
    for (int keep = 0; keep < 2; ++keep) {
        p2p_barrier(MPI_COMM_WORLD);
        double t = now_us();
        for (int i = 0; i < n; ++i) {
            MPI_Comm_dup(MPI_COMM_WORLD, &c[i]);
            for (int k = 1; k <= 20; ++k) {
                checked_allreduce(c[i], 0, k, rank, size);
            }
            if (!keep) {
                MPI_Comm_free(&c[i]);
            }
        }
        p2p_barrier(MPI_COMM_WORLD);
        many[keep] = (now_us() - t) / n;
        if (keep) {
            many[2] = (shm_used() - shm_init) / 1024.0 / n;
            for (int i = 0; i < n; ++i) {
                MPI_Comm_free(&c[i]);
            }
        }
    }
    kind = saved;
    free(c);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

/* The slowest rank's value of each of n doubles, and the smallest v[0] in
 *min0 (MPI_Gather: not served by coll/rdma, so the report does not
 * disturb what it reports). */
static void max_over_ranks(double *v, int n, int rank, int size, double *min0)
{
    double *all = 0 == rank ? malloc(sizeof(double) * n * size) : NULL;

    MPI_Gather(v, n, MPI_DOUBLE, all, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (0 == rank) {
        for (int r = 1; r < size; ++r) {
            if (all[r * n] < *min0) {
                *min0 = all[r * n];
            }
        }
        for (int i = 0; i < n; ++i) {
            for (int r = 1; r < size; ++r) {
                if (all[r * n + i] > v[i]) {
                    v[i] = all[r * n + i];
                }
            }
        }
        free(all);
    }
}

int main(int argc, char **argv)
{
    int calls = 40, steady = 2000, ncomms = 0, rank, size;
    double many[3] = {0, 0, 0};
    double t0, init_us, t_fin, shm_init;
    MPI_Comm dup, dup2;

    t0 = now_us();
    MPI_Init(&argc, &argv);
    init_us = now_us() - t0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc) {
            calls = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "-s") && i + 1 < argc) {
            steady = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "-m") && i + 1 < argc) {
            ncomms = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "-k") && i + 1 < argc) {
            ++i;
            kind = !strcmp(argv[i], "nonblocking") ? KIND_NONBLOCKING
                   : !strcmp(argv[i], "persistent") ? KIND_PERSISTENT
                                                    : KIND_BLOCKING;
        } else {
            if (0 == rank) {
                fprintf(stderr, "usage: setup_cost [-n CALLS] [-s STEADY] [-m COMMS] [-k blocking|nonblocking|persistent]\n");
            }
            MPI_Finalize();
            return 2;
        }
    }
    if (calls < 1 || calls > 1000 || steady < 1 || ncomms < 0) {
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    /* v[0] init, v[1..calls] the first calls, then steady median, dup2's and
     * dup3's set-up calls, the longest start */
    int nv = calls + 5;
    double *v = calloc(nv, sizeof(double)), *st = malloc(sizeof(double) * steady);

    v[0] = init_us;
    p2p_barrier(MPI_COMM_WORLD); /* every rank's MPI_Init done */
    shm_init = shm_used();
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    for (int c = 1; c <= calls; ++c) {
        p2p_barrier(MPI_COMM_WORLD);
        double t = now_us();
        checked_allreduce(dup, 0, c, rank, size);
        v[c] = now_us() - t;
    }
    p2p_barrier(MPI_COMM_WORLD);
    for (int c = 0; c < steady; ++c) {
        double t = now_us();
        checked_allreduce(dup, 0, calls + 1 + c, rank, size);
        st[c] = now_us() - t;
    }
    qsort(st, steady, sizeof(double), cmp_double);
    v[calls + 1] = st[steady / 2];

    /* dup2, then dup3 once dup2 (and its persistent request) is freed on every
     * rank (they all entered the dup of dup3, which agrees on its ID) */
    for (int d = 0; d < 2; ++d) {
        MPI_Comm_dup(MPI_COMM_WORLD, &dup2);
        v[calls + 2 + d] = 0;
        for (int c = 1; c <= 18; ++c) {
            p2p_barrier(MPI_COMM_WORLD);
            double t = now_us();
            checked_allreduce(dup2, 1, c, rank, size);
            t = now_us() - t;
            if (c >= 15 && t > v[calls + 2 + d]) {
                v[calls + 2 + d] = t;
            }
        }
        if (MPI_REQUEST_NULL != preq[1]) {
            MPI_Request_free(&preq[1]);
        }
        MPI_Comm_free(&dup2);
    }
    if (MPI_REQUEST_NULL != preq[0]) {
        MPI_Request_free(&preq[0]);
    }
    MPI_Comm_free(&dup);
    if (ncomms > 0) {
        many_communicators(ncomms, rank, size, shm_init, many);
    }

    v[calls + 4] = start_max;
    double init_min = init_us;
    max_over_ranks(v, nv, rank, size, &init_min);
    if (0 == rank) {
        printf("init_us=%.1f initmin_us=%.1f", v[0], init_min);
        for (int c = 1; c <= calls; ++c) {
            printf(" call%d_us=%.1f", c, v[c]);
        }
        int worst = 1;
        for (int c = 2; c <= calls; ++c) {
            worst = v[c] > v[worst] ? c : worst;
        }
        printf(" worst_us=%.1f worstat_us=%d", v[worst], worst);
        printf(" steady_us=%.2f dup2_us=%.1f dup3_us=%.1f startmax_us=%.1f", v[calls + 1],
               v[calls + 2], v[calls + 3], v[calls + 4]);
        if (ncomms > 0) {
            printf(" free%d_us=%.1f kept%d_us=%.1f shmkept_kib=%.1f", ncomms, many[0], ncomms,
                   many[1], many[2]);
        }
    }
    free(v);
    free(st);
    t_fin = now_us();
    MPI_Finalize();
    if (0 == rank) {
        printf(" fin_us=%.1f\n", now_us() - t_fin);
    }
    return 0;
}
