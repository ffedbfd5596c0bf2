/*
 * MPI's rules around a collective call (issue 35): what legal programs do
 * with communicators and progress around coll/rdma's calls, with every
 * result checked against a reference computed locally.
 *
 * Sections (--only a,b,...; default all):
 *   idup     MPI_Comm_idup chains (1 to 3 outstanding) on a communicator
 *            whose window is ready, while blocking collectives and starts of
 *            persistent requests run on it and ranks progress at random
 *            moments, MPI_Comm_split and MPI_Comm_create on it between the
 *            chains (Open MPI 4.1.4 alone hangs when they are made while an
 *            idup of the same parent is pending): Open MPI runs the
 *            idups' communicator-ID agreement (MPI_Iallreduce on the
 *            parent) from inside opal_progress, wherever each rank happens
 *            to progress.  --nb-parent adds served nonblocking calls on the
 *            parent while idups are pending (Open MPI 4.1.4 alone gets
 *            those wrong: its libnbc takes the agreement's tag at a moment
 *            that differs between ranks; coll/rdma serves them on its
 *            window, where no tag is taken)
 *   free     MPI_Comm_free with requests pending (on the window, early,
 *            every collective at once), with persistent requests not yet
 *            freed (made before the window and on it), and with a set-up in
 *            flight whose only request was freed; one rank 20 ms late
 *   skew     the set-up call (MPI_Ibarrier), then one rank progresses for
 *            0.2 ms while another sleeps 20 ms and progresses, then served
 *            nonblocking or persistent calls and calls the previous
 *            component runs (MPI_Iscan, MPI_Igatherv, a user-defined op):
 *            their tags must match on every rank
 *   threads  MPI_THREAD_MULTIPLE: a thread that only progresses (MPI_Iprobe)
 *            beside communicators crossing their set-up with a deferred
 *            nonblocking call and then a blocking one
 *   cid      MPI_Iallreduce of one MPI_INT with MPI_MAX/MPI_MIN (the shape
 *            of Open MPI's own agreement, handed on) among served calls
 *   inter    MPI_Comm_idup of an intercommunicator (its ID agreement runs
 *            MPI_Ireduce and MPI_Ibcast on the local communicator, from
 *            inside opal_progress) while blocking intercommunicator
 *            allreduces run (coll/inter: reduce and bcast on that same
 *            local communicator); two groups of alternate ranks, np >= 4
 *   inplace  MPI_Allgather, MPI_Ialltoall ... with MPI_IN_PLACE and a send
 *            count and type that MPI ignores, garbage on rank 1: on the
 *            window, and as early requests (nonblocking ones while the
 *            set-up runs, a persistent one made before the window)
 *   large    (Open MPI 6.0: MPI 4's large counts) MPI_Ibcast_c and
 *            MPI_Bcast_init_c of 2^31 + 8 bytes as early requests: their
 *            fallbacks, made while the set-up runs, must get the whole count
 *            (2 GiB per rank; not in the default set; --require-large:
 *            fail where this Open MPI has no large counts, rather than skip)
 * Options: --calls N (iterations per section), --warmup W (the
 * coll_rdma_window_setup_calls the run uses: where the set-up call falls),
 * --seed S, --nb-parent, --leave (MPI_Finalize with a communicator left
 * alive by an unfreed persistent request, and one whose set-up call's only
 * request was freed: a set-up maybe still in flight).  MPI_THREAD_MULTIPLE
 * is asked for only when --only names threads: every other section runs
 * single-threaded.
 * Prints "test_around OK" (rank 0); exits non-zero on any error.
 */
#define _DEFAULT_SOURCE
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "persistent_compat.h"
#include "test_check.h"

static int rank, size, calls = 40, warmup = 16, nb_parent = 0, leave = 0, require_large = 0;
static unsigned seed = 11;
static const char *only = NULL;

static int selected(const char *s) { return NULL == only || NULL != strstr(only, s); }

static unsigned lrnd(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return (*state >> 8) & 0xffffff;
}

/* Progress (MPI_Iprobe, which calls opal_progress) for `us` microseconds. */
static void progress_for(MPI_Comm comm, int us)
{
    double until = MPI_Wtime() + us * 1e-6;
    int flag;
    do {
        OK(MPI_Iprobe(MPI_ANY_SOURCE, 999, comm, &flag, MPI_STATUS_IGNORE));
    } while (MPI_Wtime() < until);
}

/* Rank q's contribution to call i, and the sum over `n` ranks 0..n-1: exact in doubles. */
static double contrib(int i, int q) { return (double) (i + 1) * (q + 1); }
static double sum_of(int i, int n) { return (double) (i + 1) * n * (n + 1) / 2; }

static void check_double(double got, double want, const char *what, int i)
{
    if (got != want) {
        FAIL("%s call %d: %.17g, expected %.17g", what, i, got, want);
    }
}

/* A blocking allreduce on comm, checked. */
static void check_allreduce(MPI_Comm comm, int i, const char *what)
{
    int n, r;
    double x, y = -1;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &r);
    x = contrib(i, r);
    OK(MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, comm));
    check_double(y, sum_of(i, n), what, i);
}

/* A fresh duplicate of the world, its window ready and its tag span over:
 * warm-up calls, then the set-up call, blocking. */
static MPI_Comm steady_dup(void)
{
    MPI_Comm d;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    for (int i = 0; i <= warmup; i++) {
        OK(MPI_Barrier(d));
    }
    return d;
}

/* A fresh duplicate whose next collective call is its set-up call. */
static MPI_Comm setup_next_dup(void)
{
    MPI_Comm d;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    for (int i = 0; i < warmup; i++) {
        OK(MPI_Barrier(d));
    }
    return d;
}

/* ---- idup ----------------------------------------------------------------- */

static void idup(int n)
{
    unsigned st = seed * 7919u + (unsigned) rank;
    MPI_Comm d = steady_dup();
    MPI_Request pr[2];
    double px = 0, py = 0;
    long pb[3];
    int proot = 1 % size;
    MPI_Group world_group, even_group;
    int *evens = malloc(size * sizeof(int)), nevens = 0;

    for (int q = 0; q < size; q += 2) {
        evens[nevens++] = q;
    }
    OK(MPI_Comm_group(d, &world_group));
    OK(MPI_Group_incl(world_group, nevens, evens, &even_group));
    OK(MPI_Allreduce_init(&px, &py, 1, MPI_DOUBLE, MPI_SUM, d, MPI_INFO_NULL, &pr[0]));
    OK(MPI_Bcast_init(pb, 3, MPI_LONG, proot, d, MPI_INFO_NULL, &pr[1]));
    for (int it = 0; it < n; it++) {
        int k = 1 + it % 3;
        MPI_Comm nc[3];
        MPI_Request r[3];
        /* no progress between the idups of a batch: Open MPI 4.1.4 alone
         * hangs when one rank progresses there (the agreements' libnbc
         * requests of two pending idups then take their tags in another
         * order on that rank) */
        for (int j = 0; j < k; j++) {
            OK(MPI_Comm_idup(d, &nc[j], &r[j]));
        }
        if (lrnd(&st) % 2) {
            progress_for(MPI_COMM_WORLD, (int) (lrnd(&st) % 300));
        }
        OK(MPI_Barrier(d));
        check_allreduce(d, it, "idup: allreduce on the parent");
        if (lrnd(&st) % 3 == 0) {
            progress_for(MPI_COMM_WORLD, (int) (lrnd(&st) % 300));
        }
        {
            long b[2] = {-1, -1};
            int root = it % size;
            if (rank == root) {
                b[0] = it;
                b[1] = -it;
            }
            OK(MPI_Bcast(b, 2, MPI_LONG, root, d));
            if (b[0] != it || b[1] != -it) {
                FAIL("idup: bcast %d gave %ld %ld", it, b[0], b[1]);
            }
        }
        {
            int *all = malloc(size * sizeof(int)), mine = it * 100 + rank;
            OK(MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, d));
            for (int q = 0; q < size; q++) {
                if (all[q] != it * 100 + q) {
                    FAIL("idup: allgather %d from %d is %d", it, q, all[q]);
                }
            }
            free(all);
        }
        /* persistent requests made before the idups: starting one takes no tag */
        px = contrib(it, rank);
        pb[0] = pb[1] = pb[2] = rank == proot ? it : -1;
        OK(MPI_Startall(2, pr));
        if (lrnd(&st) % 2) {
            progress_for(MPI_COMM_WORLD, (int) (lrnd(&st) % 200));
        }
        OK(MPI_Waitall(2, pr, MPI_STATUSES_IGNORE));
        check_double(py, sum_of(it, size), "idup: persistent allreduce", it);
        if (pb[0] != it || pb[2] != it) {
            FAIL("idup: persistent bcast %d gave %ld", it, pb[0]);
        }
        if (nb_parent) {
            MPI_Request q;
            double x = contrib(it, rank), y = -1;
            OK(MPI_Iallreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, d, &q));
            if (lrnd(&st) % 2) {
                progress_for(MPI_COMM_WORLD, (int) (lrnd(&st) % 200));
            }
            OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
            check_double(y, sum_of(it, size), "idup: nonblocking allreduce on the parent", it);
        }
        if (lrnd(&st) % 2) {
            OK(MPI_Waitall(k, r, MPI_STATUSES_IGNORE));
        } else {
            for (int j = k - 1; j >= 0; j--) {
                OK(MPI_Wait(&r[j], MPI_STATUS_IGNORE));
            }
        }
        for (int j = 0; j < k; j++) {
            check_allreduce(nc[j], it + j, "idup: allreduce on the new communicator");
            OK(MPI_Comm_free(&nc[j]));
        }
        if (it % 4 == 1) { /* blocking creations on the parent, between the idups: Open
                            * MPI 4.1.4 alone hangs in MPI_Comm_split or _create made
                            * while an MPI_Comm_idup of the same parent is pending */
            MPI_Comm sc;
            OK(MPI_Comm_split(d, rank % 2, rank, &sc));
            check_allreduce(sc, it, "idup: allreduce on a split");
            OK(MPI_Comm_free(&sc));
        } else if (it % 4 == 3) {
            MPI_Comm cc;
            OK(MPI_Comm_create(d, even_group, &cc));
            if (MPI_COMM_NULL != cc) {
                check_allreduce(cc, it, "idup: allreduce on a created communicator");
                OK(MPI_Comm_free(&cc));
            } else if (rank % 2 == 0) {
                FAIL("idup: MPI_Comm_create gave no communicator to rank %d", rank);
            }
        }
    }
    OK(MPI_Request_free(&pr[0]));
    OK(MPI_Request_free(&pr[1]));
    OK(MPI_Group_free(&even_group));
    OK(MPI_Group_free(&world_group));
    OK(MPI_Comm_free(&d));
    free(evens);
}

/* ---- free ----------------------------------------------------------------- */

/* The six served collectives at once on comm, each checked after `complete`. */
typedef struct six {
    MPI_Request r[6];
    double x, y, rx, ry;
    long b[2];
    int *ag, *aa_in, *aa_out, ag_mine;
} six_t;

static void six_start(six_t *s, MPI_Comm comm, int i)
{
    int root = i % size;
    s->x = s->rx = contrib(i, rank);
    s->y = s->ry = -1;
    s->b[0] = s->b[1] = rank == root ? i : -1;
    s->ag = malloc(size * sizeof(int));
    s->aa_in = malloc(size * sizeof(int));
    s->aa_out = malloc(size * sizeof(int));
    s->ag_mine = i * 100 + rank;
    for (int q = 0; q < size; q++) {
        s->aa_in[q] = i * 10000 + rank * 100 + q;
    }
    OK(MPI_Ibarrier(comm, &s->r[0]));
    OK(MPI_Ibcast(s->b, 2, MPI_LONG, root, comm, &s->r[1]));
    OK(MPI_Iallreduce(&s->x, &s->y, 1, MPI_DOUBLE, MPI_SUM, comm, &s->r[2]));
    OK(MPI_Ireduce(&s->rx, &s->ry, 1, MPI_DOUBLE, MPI_SUM, root, comm, &s->r[3]));
    OK(MPI_Iallgather(&s->ag_mine, 1, MPI_INT, s->ag, 1, MPI_INT, comm, &s->r[4]));
    OK(MPI_Ialltoall(s->aa_in, 1, MPI_INT, s->aa_out, 1, MPI_INT, comm, &s->r[5]));
}

static void six_check(six_t *s, int i, const char *what)
{
    int root = i % size;
    check_double(s->y, sum_of(i, size), what, i);
    if (rank == root) {
        check_double(s->ry, sum_of(i, size), what, i);
    }
    if (s->b[0] != i || s->b[1] != i) {
        FAIL("%s: bcast %d gave %ld", what, i, s->b[0]);
    }
    for (int q = 0; q < size; q++) {
        if (s->ag[q] != i * 100 + q || s->aa_out[q] != i * 10000 + q * 100 + rank) {
            FAIL("%s: allgather/alltoall %d block %d: %d %d", what, i, q, s->ag[q], s->aa_out[q]);
        }
    }
    free(s->ag);
    free(s->aa_in);
    free(s->aa_out);
}

static void late(int i)
{
    if (rank == i % size) {
        usleep(20000);
    }
}

static void comm_free(int n)
{
    unsigned st = seed * 104729u + (unsigned) rank;
    for (int it = 0; it < n; it++) {
        MPI_Comm d;
        MPI_Request r;
        double x = contrib(it, rank), y = -1;
        switch (it % 6) {
        case 0: { /* requests on the window, pending at the free */
            six_t s;
            d = steady_dup();
            late(it);
            six_start(&s, d, it);
            OK(MPI_Comm_free(&d));
            if (lrnd(&st) % 2) {
                OK(MPI_Waitall(6, s.r, MPI_STATUSES_IGNORE));
            } else {
                for (int j = 5; j >= 0; j--) {
                    OK(MPI_Wait(&s.r[j], MPI_STATUS_IGNORE));
                }
            }
            six_check(&s, it, "free: pending on the window");
            break;
        }
        case 1: /* an early request: the set-up call, then the free */
            d = setup_next_dup();
            late(it);
            OK(MPI_Iallreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, d, &r));
            OK(MPI_Comm_free(&d));
            OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            check_double(y, sum_of(it, size), "free: early request", it);
            break;
        case 2: /* a persistent request made before the window, the free, then starts */
            OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
            OK(MPI_Allreduce_init(&x, &y, 1, MPI_DOUBLE, MPI_SUM, d, MPI_INFO_NULL, &r));
            OK(MPI_Comm_free(&d));
            for (int j = 0; j < 2 * warmup + 3; j++) { /* across the set-up */
                x = contrib(it + j, rank);
                if (j == 3) {
                    late(it);
                }
                OK(MPI_Start(&r));
                OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
                check_double(y, sum_of(it + j, size), "free: early persistent request", it + j);
            }
            OK(MPI_Request_free(&r));
            break;
        case 3: /* a persistent request on the window, the free, then starts */
            d = steady_dup();
            OK(MPI_Allreduce_init(&x, &y, 1, MPI_DOUBLE, MPI_SUM, d, MPI_INFO_NULL, &r));
            OK(MPI_Comm_free(&d));
            for (int j = 0; j < 5; j++) {
                x = contrib(it + j, rank);
                late(it + j);
                OK(MPI_Start(&r));
                OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
                check_double(y, sum_of(it + j, size), "free: persistent request", it + j);
            }
            OK(MPI_Request_free(&r));
            break;
        case 4: /* a set-up in flight whose only request is gone */
            d = setup_next_dup();
            late(it);
            OK(MPI_Allreduce_init(&x, &y, 1, MPI_DOUBLE, MPI_SUM, d, MPI_INFO_NULL, &r));
            OK(MPI_Request_free(&r));
            OK(MPI_Comm_free(&d));
            check_allreduce(MPI_COMM_WORLD, it, "free: world after a set-up in flight");
            break;
        default: { /* every collective early at once */
            six_t s;
            d = setup_next_dup();
            late(it);
            six_start(&s, d, it);
            OK(MPI_Comm_free(&d));
            OK(MPI_Waitall(6, s.r, MPI_STATUSES_IGNORE));
            six_check(&s, it, "free: early requests of every collective");
        }
        }
    }
}

/* ---- skew ----------------------------------------------------------------- */

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void) type;
    for (int k = 0; k < *len; k++) {
        ((double *) inout)[k] += ((double *) in)[k];
    }
}

static void skew(int n)
{
    MPI_Op op;
    int *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int));
    int *all = malloc(2 * size * sizeof(int));

    OK(MPI_Op_create(user_sum, 1, &op));
    for (int q = 0; q < size; q++) {
        counts[q] = 1 + q % 2;
        displs[q] = 2 * q;
    }
    for (int it = 0; it < n; it++) {
        MPI_Comm d = setup_next_dup();
        MPI_Request r[5], pr = MPI_REQUEST_NULL;
        int nr = 0, v = it + rank, s = -1, mine[2] = {it * 10 + rank, it * 10 + rank + 1};
        double x = contrib(it, rank), y = -1, ux = contrib(it + 1, rank), uy = -1;
        int late_rank = it % size;

        OK(MPI_Ibarrier(d, &r[nr++])); /* the set-up call */
        if (rank == late_rank) {
            usleep(20000);
            progress_for(d, 20000);
        } else {
            progress_for(d, 200);
        }
        /* served on the window where this rank's set-up ended, an early
         * request elsewhere: the same tags either way */
        for (int round = 0; round < 2; round++) {
            nr = round ? 0 : nr;
            x = contrib(it + round, rank);
            ux = contrib(it + round + 1, rank);
            switch ((it + round) % 3) {
            case 0:
                OK(MPI_Iallreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, d, &r[nr++]));
                break;
            case 1:
                OK(MPI_Allreduce_init(&x, &y, 1, MPI_DOUBLE, MPI_SUM, d, MPI_INFO_NULL, &pr));
                OK(MPI_Start(&pr));
                break;
            default:
                OK(MPI_Ibcast(&x, 1, MPI_DOUBLE, it % size, d, &r[nr++]));
            }
            /* the previous component's own, twice outstanding */
            OK(MPI_Iscan(&v, &s, 1, MPI_INT, MPI_SUM, d, &r[nr++]));
            OK(MPI_Igatherv(mine, counts[rank], MPI_INT, all, counts, displs, MPI_INT, it % size,
                            d, &r[nr++]));
            OK(MPI_Iallreduce(&ux, &uy, 1, MPI_DOUBLE, op, d, &r[nr++])); /* a user op: handed on */
            OK(MPI_Waitall(nr, r, MPI_STATUSES_IGNORE));
            if (MPI_REQUEST_NULL != pr) {
                OK(MPI_Wait(&pr, MPI_STATUS_IGNORE));
                OK(MPI_Request_free(&pr));
                pr = MPI_REQUEST_NULL;
            }
            if ((it + round) % 3 == 2) {
                check_double(x, contrib(it + round, it % size), "skew: ibcast", it);
            } else {
                check_double(y, sum_of(it + round, size), "skew: served allreduce", it);
            }
            check_double(uy, sum_of(it + round + 1, size), "skew: user-op allreduce", it);
            if (s != (rank + 1) * it + rank * (rank + 1) / 2) {
                FAIL("skew %d: scan %d", it, s);
            }
            if (rank == it % size) {
                for (int q = 0; q < size; q++) {
                    for (int k = 0; k < counts[q]; k++) {
                        if (all[displs[q] + k] != it * 10 + q + k) {
                            FAIL("skew %d: gatherv from %d: %d", it, q, all[displs[q] + k]);
                        }
                    }
                }
            }
        }
        check_allreduce(d, it, "skew: blocking after");
        OK(MPI_Comm_free(&d));
    }
    OK(MPI_Op_free(&op));
    free(counts);
    free(displs);
    free(all);
}

/* ---- threads -------------------------------------------------------------- */

static volatile int stop_progress = 0;

static void *progress_thread(void *arg)
{
    (void) arg;
    while (!__atomic_load_n(&stop_progress, __ATOMIC_ACQUIRE)) {
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
    }
    return NULL;
}

static void threads(int n)
{
    unsigned st = seed * 31337u + (unsigned) rank;
    int provided;
    pthread_t t;

    MPI_Query_thread(&provided);
    if (MPI_THREAD_MULTIPLE != provided) {
        if (0 == rank) {
            printf("threads: skipped (MPI_THREAD_MULTIPLE not provided)\n");
        }
        return;
    }
    stop_progress = 0;
    if (0 != pthread_create(&t, NULL, progress_thread, NULL)) {
        FAIL("pthread_create");
    }
    for (int it = 0; it < n; it++) {
        MPI_Comm d = setup_next_dup();
        MPI_Request r[2];
        double x = contrib(it, rank), y = -1, x2 = contrib(it + 1, rank), y2 = -1;
        OK(MPI_Iallreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, d, &r[0])); /* the set-up call */
        usleep(lrnd(&st) % 400);
        OK(MPI_Iallreduce(&x2, &y2, 1, MPI_DOUBLE, MPI_SUM, d, &r[1]));
        usleep(lrnd(&st) % 400);
        check_allreduce(d, it + 2, "threads: blocking after deferred ones");
        OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        check_double(y, sum_of(it, size), "threads: deferred allreduce", it);
        check_double(y2, sum_of(it + 1, size), "threads: second deferred allreduce", it);
        OK(MPI_Comm_free(&d));
    }
    __atomic_store_n(&stop_progress, 1, __ATOMIC_RELEASE);
    pthread_join(t, NULL);
}

/* ---- inter ---------------------------------------------------------------- */

static void inter(int n)
{
    unsigned st = seed * 65537u + (unsigned) rank;
    int color = rank % 2;
    MPI_Comm local, ic;

    if (size < 4) {
        if (0 == rank) {
            printf("inter: skipped (needs 4 ranks: two groups of at least 2)\n");
        }
        return;
    }
    OK(MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local));
    OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 77, &ic));
    for (int it = 0; it < n; it++) {
        MPI_Comm d;
        MPI_Request r;
        double x[4], y[4], want = 0;
        for (int k = 0; k < 4; k++) {
            x[k] = rank + it + k;
        }
        for (int q = 1 - color; q < size; q += 2) { /* the other group's sum */
            want += q + it;
        }
        OK(MPI_Comm_idup(ic, &d, &r));
        if (lrnd(&st) % 2) {
            progress_for(MPI_COMM_WORLD, (int) (lrnd(&st) % 300));
        }
        OK(MPI_Allreduce(x, y, 4, MPI_DOUBLE, MPI_SUM, ic));
        check_double(y[0], want, "inter: allreduce on the intercommunicator", it);
        OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        OK(MPI_Comm_free(&d));
    }
    OK(MPI_Comm_free(&ic));
    OK(MPI_Comm_free(&local));
}

/* ---- inplace -------------------------------------------------------------- */

/* In-place alltoall and allgather made as early requests (the set-up call
 * and the one after it, and persistent ones made before the window, started
 * across it), whose fallbacks are made of the call as coll/rdma keeps it. */
static void inplace_early(int it, int scount, MPI_Datatype stype)
{
    MPI_Comm d = setup_next_dup(), e;
    MPI_Request r[2];
    int *a = malloc(size * sizeof(int)), *g = malloc(size * sizeof(int));

    for (int q = 0; q < size; q++) {
        a[q] = it * 1000 + rank * 10 + q;
        g[q] = q == rank ? it * 10 + q : -1;
    }
    OK(MPI_Ialltoall(MPI_IN_PLACE, scount, stype, a, 1, MPI_INT, d, &r[0]));
    OK(MPI_Iallgather(MPI_IN_PLACE, scount, stype, g, 1, MPI_INT, d, &r[1]));
    OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    for (int q = 0; q < size; q++) {
        if (a[q] != it * 1000 + q * 10 + rank || g[q] != it * 10 + q) {
            FAIL("inplace %d: early alltoall/allgather block %d: %d %d", it, q, a[q], g[q]);
        }
    }
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &e));
    OK(MPI_Alltoall_init(MPI_IN_PLACE, scount, stype, a, 1, MPI_INT, e, MPI_INFO_NULL, &r[0]));
    for (int j = 0; j < warmup + 3; j++) { /* across the set-up */
        for (int q = 0; q < size; q++) {
            a[q] = (it + j) * 1000 + rank * 10 + q;
        }
        OK(MPI_Start(&r[0]));
        OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
        for (int q = 0; q < size; q++) {
            if (a[q] != (it + j) * 1000 + q * 10 + rank) {
                FAIL("inplace %d: persistent alltoall start %d block %d: %d", it, j, q, a[q]);
            }
        }
    }
    OK(MPI_Request_free(&r[0]));
    OK(MPI_Comm_free(&e));
    OK(MPI_Comm_free(&d));
    free(a);
    free(g);
}

static void inplace(int n)
{
    MPI_Comm d = steady_dup();
    int *buf = malloc(2 * size * sizeof(int));
    /* MPI ignores them with MPI_IN_PLACE: rank 1 passes garbage */
    int scount = 1 == rank ? -1 : 0;
    MPI_Datatype stype = 1 == rank ? MPI_DATATYPE_NULL : MPI_INT;
    for (int it = 0; it < 2; it++) {
        inplace_early(it, scount, stype);
    }
    for (int it = 0; it < n; it++) {
        MPI_Request r;
        for (int q = 0; q < size; q++) {
            buf[q] = q == rank ? it * 10 + q : -1;
        }
        if (it % 2) {
            OK(MPI_Allgather(MPI_IN_PLACE, scount, stype, buf, 1, MPI_INT, d));
        } else {
            OK(MPI_Iallgather(MPI_IN_PLACE, scount, stype, buf, 1, MPI_INT, d, &r));
            OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        }
        for (int q = 0; q < size; q++) {
            if (buf[q] != it * 10 + q) {
                FAIL("inplace %d: allgather block %d is %d", it, q, buf[q]);
            }
        }
        for (int q = 0; q < size; q++) {
            buf[q] = it * 1000 + rank * 10 + q;
        }
        if (it % 2) {
            OK(MPI_Ialltoall(MPI_IN_PLACE, scount, stype, buf, 1, MPI_INT, d, &r));
            OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        } else {
            OK(MPI_Alltoall(MPI_IN_PLACE, scount, stype, buf, 1, MPI_INT, d));
        }
        for (int q = 0; q < size; q++) {
            if (buf[q] != it * 1000 + q * 10 + rank) {
                FAIL("inplace %d: alltoall block %d is %d", it, q, buf[q]);
            }
        }
    }
    free(buf);
    OK(MPI_Comm_free(&d));
}

/* ---- large ---------------------------------------------------------------- */

#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 6
/* The last bytes of a bcast of n bytes from rank 0: where a fallback got the
 * count cut to an int (2^31 + 8 -> 8), they stay as they were. */
static void large_check(const unsigned char *buf, MPI_Count n, int it)
{
    for (MPI_Count k = n - 64; k < n; k++) {
        if (buf[k] != (unsigned char) (k * 7 + it)) {
            FAIL("large %d: byte %lld is %u", it, (long long) k, buf[k]);
        }
    }
}

/* MemAvailable of /proc/meminfo, in KiB (0: unknown). */
static long mem_available_kib(void)
{
    char line[128];
    long kib = 0;
    FILE *f = fopen("/proc/meminfo", "r");
    while (NULL != f && NULL != fgets(line, sizeof(line), f)) {
        if (1 == sscanf(line, "MemAvailable: %ld kB", &kib)) {
            break;
        }
    }
    if (NULL != f) {
        fclose(f);
    }
    return kib;
}

static void large(void)
{
    MPI_Count n = ((MPI_Count) 1 << 31) + 8;
    unsigned char *buf;
    MPI_Request r;
    int enough = mem_available_kib() > 3L * size * (1L << 20), all = 0;

    /* 2 GiB per rank and what the previous component copies through */
    OK(MPI_Allreduce(&enough, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    if (!all) {
        if (0 == rank) {
            printf("large: skipped (less than %d GiB of memory available)\n", 3 * size);
        }
        return;
    }
    buf = malloc((size_t) n);
    if (NULL == buf) {
        FAIL("large: no memory for 2 GiB");
    }
    for (int it = 0; it < 2; it++) {
        MPI_Comm d = setup_next_dup();
        memset(buf, 0, (size_t) n);
        if (0 == rank) {
            for (MPI_Count k = n - 64; k < n; k++) {
                buf[k] = (unsigned char) (k * 7 + it);
            }
        }
        if (0 == it) { /* a nonblocking call while the set-up runs */
            OK(MPI_Ibcast_c(buf, n, MPI_BYTE, 0, d, &r));
        } else { /* a persistent request made before the window */
            OK(MPI_Bcast_init_c(buf, n, MPI_BYTE, 0, d, MPI_INFO_NULL, &r));
            OK(MPI_Start(&r));
        }
        OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        large_check(buf, n, it);
        if (MPI_REQUEST_NULL != r) {
            OK(MPI_Request_free(&r));
        }
        OK(MPI_Comm_free(&d));
    }
    free(buf);
    if (0 == rank) {
        printf("large: ran (a nonblocking and a persistent bcast of %lld bytes)\n", (long long) n);
    }
}
#else
static void large(void)
{
    if (require_large) {
        FAIL("large: --require-large, but this Open MPI has no MPI 4 large counts");
    }
    if (0 == rank) {
        printf("large: skipped (no MPI 4 large counts before Open MPI 6.0)\n");
    }
}
#endif

/* ---- cid ------------------------------------------------------------------ */

static void cid(int n)
{
    MPI_Comm d = steady_dup();
    for (int it = 0; it < n; it++) {
        MPI_Request r[3];
        int a = it * 7 + rank, amax = -1, amin = -1;
        double x = contrib(it, rank), y = -1;
        OK(MPI_Iallreduce(&a, &amax, 1, MPI_INT, MPI_MAX, d, &r[0]));
        OK(MPI_Iallreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, d, &r[1]));
        OK(MPI_Iallreduce(&a, &amin, 1, MPI_INT, MPI_MIN, d, &r[2]));
        OK(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
        if (amax != it * 7 + size - 1 || amin != it * 7) {
            FAIL("cid %d: max %d min %d", it, amax, amin);
        }
        check_double(y, sum_of(it, size), "cid: served allreduce", it);
    }
    OK(MPI_Comm_free(&d));
}

/* What MPI_Finalize may meet (MPI requires operations complete, not handles
 * freed): a communicator kept alive by an inactive persistent request on its
 * window, and one whose set-up call (a persistent request made and freed at
 * once) may still be exchanging. */
static void leave_behind(void)
{
    static double x, y;
    MPI_Comm d = steady_dup(), e = setup_next_dup();
    MPI_Request r, q;
    OK(MPI_Allreduce_init(&x, &y, 1, MPI_DOUBLE, MPI_SUM, d, MPI_INFO_NULL, &r));
    for (int i = 0; i < 3; i++) {
        x = contrib(i, rank);
        OK(MPI_Start(&r));
        OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        check_double(y, sum_of(i, size), "leave: persistent allreduce", i);
    }
    OK(MPI_Allreduce_init(&x, &y, 1, MPI_DOUBLE, MPI_SUM, e, MPI_INFO_NULL, &q));
    OK(MPI_Request_free(&q));
    OK(MPI_Comm_free(&e));
    (void) d; /* d and r stay */
}

int main(int argc, char **argv)
{
    int provided;
    for (int i = 1; i < argc; i++) {
        if (0 == strcmp(argv[i], "--only") && i + 1 < argc) {
            only = argv[++i];
        } else if (0 == strcmp(argv[i], "--calls") && i + 1 < argc) {
            calls = atoi(argv[++i]);
        } else if (0 == strcmp(argv[i], "--warmup") && i + 1 < argc) {
            warmup = atoi(argv[++i]);
        } else if (0 == strcmp(argv[i], "--seed") && i + 1 < argc) {
            seed = (unsigned) atoi(argv[++i]);
        } else if (0 == strcmp(argv[i], "--nb-parent")) {
            nb_parent = 1;
        } else if (0 == strcmp(argv[i], "--leave")) {
            leave = 1;
        } else if (0 == strcmp(argv[i], "--require-large")) {
            require_large = 1;
        } else {
            fprintf(stderr, "unknown option %s\n", argv[i]);
            return 2;
        }
    }
    MPI_Init_thread(&argc, &argv,
                    NULL != only && selected("threads") ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE,
                    &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (selected("idup")) {
        idup(calls);
    }
    if (selected("free")) {
        comm_free(calls);
    }
    if (selected("skew")) {
        skew(calls);
    }
    if (NULL != only && selected("threads")) {
        threads(calls);
    }
    if (selected("cid")) {
        cid(calls);
    }
    if (selected("inter")) {
        inter(calls);
    }
    if (selected("inplace")) {
        inplace(calls);
    }
    if (NULL != only && selected("large")) {
        large();
    }
    if (leave) {
        leave_behind();
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (0 == rank) {
        printf("test_around OK\n");
    }
    MPI_Finalize();
    return 0;
}
