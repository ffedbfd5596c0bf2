/*
 * Window set-up reached from nonblocking and persistent calls (issue 28).
 *
 * A communicator's window is set up at its (window_setup_calls + 1)-th
 * collective call of any kind; a nonblocking call made while the set-up
 * runs waits for it inside its request, never inside MPI_I* or MPI_Start.
 * Every section runs on a fresh MPI_Comm_dup, so every section crosses the
 * switch; every result is checked against a reference computed locally.
 *
 * Sections (--only a,b,...; default all):
 *   nbonly    only MPI_Ibarrier / MPI_Iallreduce / MPI_Ibcast, each waited
 *             for at once (the benchmark pattern), thousands of calls
 *   persist   only persistent requests, made before the window and started
 *             thousands of times across the switch
 *   chain     rank r posts its MPI_Ibarrier only after a message from rank
 *             r - 1, which sends it between its own MPI_Ibarrier and
 *             MPI_Wait: MPI_Ibarrier must not wait for other ranks
 *   mixed     blocking and nonblocking calls mixed, ranks holding
 *             different numbers of outstanding requests when they reach
 *             the switch, completed in random orders, random delays
 *   tags      MPI_Igatherv and MPI_Iscan (the previous component's, not
 *             coll/rdma's) interleaved with coll/rdma's calls while the
 *             set-up runs, some ranks progressing between them: their tags
 *             must still match on every rank (12 communicators, each
 *             crossing its set-up; a set-up that made its second exchange
 *             inside opal_progress hangs here)
 *   large     nonblocking calls coll/rdma hands on (too large) made while
 *             the set-up runs
 *   threads   MPI_THREAD_MULTIPLE: several threads, each with its own
 *             nonblocking-only communicator
 * Options: --calls N (per section), --threads T, --seed S.
 * Prints "test_nbsetup OK" (rank 0); exits non-zero on any error.
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

static int rank, size, calls = 3000, nthreads = 3;
static unsigned seed = 7;
static const char *only = NULL;
static int errors;

static int selected(const char *s) { return NULL == only || NULL != strstr(only, s); }

/* Local draws: delays and completion orders differ between ranks. */
static unsigned lrnd(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return (*state >> 8) & 0xffffff;
}

static void delay(unsigned *state)
{
    if (0 == lrnd(state) % 7) {
        usleep(lrnd(state) % 200);
    }
}

/* The allreduce of call i: every rank's (i + 1) * (rank + 1), exact in doubles. */
static double expected_sum(int i) { return (double) (i + 1) * size * (size + 1) / 2; }

static void check_sum(double got, int i, const char *what)
{
    if (got != expected_sum(i)) {
        FAIL("%s call %d: sum %.17g, expected %.17g", what, i, got, expected_sum(i));
    }
}

static void nbonly(MPI_Comm comm, int n, const char *what)
{
    MPI_Request r;
    long buf[4];
    for (int i = 0; i < n; i++) {
        double x = (double) (i + 1) * (rank + 1), y = -1;
        switch (i % 3) {
        case 0:
            OK(MPI_Ibarrier(comm, &r));
            OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            break;
        case 1:
            OK(MPI_Iallreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, comm, &r));
            OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            check_sum(y, i, what);
            break;
        default:
            for (int k = 0; k < 4; k++) {
                buf[k] = rank == i % size ? (long) i * 4 + k : -1;
            }
            OK(MPI_Ibcast(buf, 4, MPI_LONG, i % size, comm, &r));
            OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            for (int k = 0; k < 4; k++) {
                if (buf[k] != (long) i * 4 + k) {
                    FAIL("%s call %d: bcast element %d is %ld", what, i, k, buf[k]);
                }
            }
        }
    }
}

static void persist(MPI_Comm comm, int n)
{
    MPI_Request r[3];
    double x = 0, y = 0;
    long buf[2];
    int root = size - 1;
    MPI_Info info;
    OK(MPI_Info_create(&info));
    OK(MPI_Barrier_init(comm, info, &r[0]));
    OK(MPI_Allreduce_init(&x, &y, 1, MPI_DOUBLE, MPI_SUM, comm, info, &r[1]));
    OK(MPI_Bcast_init(buf, 2, MPI_LONG, root, comm, info, &r[2]));
    OK(MPI_Info_free(&info));
    for (int i = 0; i < n; i++) {
        x = (double) (i + 1) * (rank + 1);
        buf[0] = rank == root ? i : -1;
        buf[1] = rank == root ? -i : -1;
        if (i % 2) {
            OK(MPI_Startall(3, r));
            OK(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
        } else {
            for (int k = 0; k < 3; k++) {
                OK(MPI_Start(&r[k]));
                OK(MPI_Wait(&r[k], MPI_STATUS_IGNORE));
            }
        }
        check_sum(y, i, "persist");
        if (buf[0] != i || buf[1] != -i) {
            FAIL("persist call %d: bcast gave %ld %ld", i, buf[0], buf[1]);
        }
    }
    for (int k = 0; k < 3; k++) {
        OK(MPI_Request_free(&r[k]));
    }
}

/* Rank r > 0 posts its MPI_Ibarrier only after rank r - 1's message, which
 * r - 1 sends between its own MPI_Ibarrier and MPI_Wait. */
static void chain(MPI_Comm comm, int n)
{
    MPI_Request r;
    int token = 0;
    for (int i = 0; i < n; i++) {
        if (rank > 0) {
            OK(MPI_Recv(&token, 1, MPI_INT, rank - 1, 5, comm, MPI_STATUS_IGNORE));
            if (token != i) {
                FAIL("chain call %d: token %d", i, token);
            }
        }
        if (i % 4 == 3) {
            double x = (double) (i + 1) * (rank + 1), y = -1;
            OK(MPI_Iallreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, comm, &r));
            token = i;
            if (rank + 1 < size) {
                OK(MPI_Send(&token, 1, MPI_INT, rank + 1, 5, comm));
            }
            OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            check_sum(y, i, "chain");
        } else {
            OK(MPI_Ibarrier(comm, &r));
            token = i;
            if (rank + 1 < size) {
                OK(MPI_Send(&token, 1, MPI_INT, rank + 1, 5, comm));
            }
            OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        }
    }
}

/* Batches of 1 to 6 outstanding calls (the same calls on every rank, as MPI
 * requires), blocking ones between; ranks complete them in random orders
 * after random delays, so each reaches the switch with other requests
 * still outstanding. */
static void mixed(MPI_Comm comm, int n)
{
    unsigned st = seed * 977u + (unsigned) rank;
    MPI_Request r[6];
    double x[6], y[6];
    int ids[6];
    for (int i = 0; i < n;) {
        int k = 1 + (int) ((unsigned) (i * 31 + 7) % 6); /* the same on every rank */
        for (int j = 0; j < k; j++, i++) {
            ids[j] = i;
            x[j] = (double) (i + 1) * (rank + 1);
            y[j] = -1;
            if (i % 5 == 4) {
                OK(MPI_Ibarrier(comm, &r[j]));
            } else {
                OK(MPI_Iallreduce(&x[j], &y[j], 1, MPI_DOUBLE, MPI_SUM, comm, &r[j]));
            }
            delay(&st);
        }
        switch (lrnd(&st) % 3) {
        case 0:
            OK(MPI_Waitall(k, r, MPI_STATUSES_IGNORE));
            break;
        case 1:
            for (int done = 0; done < k; done++) {
                int idx;
                OK(MPI_Waitany(k, r, &idx, MPI_STATUS_IGNORE));
            }
            break;
        default:
            for (int left = k; left > 0;) {
                for (int j = 0; j < k; j++) {
                    int flag = 0;
                    if (MPI_REQUEST_NULL != r[j]) {
                        OK(MPI_Test(&r[j], &flag, MPI_STATUS_IGNORE));
                        left -= flag;
                    }
                }
            }
        }
        for (int j = 0; j < k; j++) {
            if (ids[j] % 5 != 4) {
                check_sum(y[j], ids[j], "mixed");
            }
        }
        if (i % 3 == 0) { /* a blocking call between */
            double a = (double) (i + 1) * (rank + 1), b = -1;
            OK(MPI_Allreduce(&a, &b, 1, MPI_DOUBLE, MPI_SUM, comm));
            check_sum(b, i, "mixed blocking");
        }
    }
}

/* The previous component's own nonblocking collectives between coll/rdma's
 * while the set-up runs (delays make the set-up's progress fall anywhere). */
static void tags(MPI_Comm comm, int n)
{
    unsigned st = seed * 131u + (unsigned) rank;
    int *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int));
    int *all = malloc(size * 3 * sizeof(int)), mine[3];
    for (int q = 0; q < size; q++) {
        counts[q] = 1 + q % 3;
        displs[q] = 3 * q;
    }
    for (int i = 0; i < n; i++) {
        MPI_Request r[3];
        double x = (double) (i + 1) * (rank + 1), y = -1;
        int s = -1, v = i + rank;
        for (int k = 0; k < 3; k++) {
            mine[k] = i * 10 + rank + k;
        }
        OK(MPI_Iallreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, comm, &r[0]));
        delay(&st);
        OK(MPI_Igatherv(mine, counts[rank], MPI_INT, all, counts, displs, MPI_INT, i % size, comm,
                        &r[1]));
        if (lrnd(&st) % 2) {
            /* progress on some ranks only, between two of the previous
             * component's calls: where the set-up made something of it
             * here, its tag would come between theirs on this rank only */
            int flag;
            double until = MPI_Wtime() + (lrnd(&st) % 2000) * 1e-6;
            while (MPI_Wtime() < until) {
                OK(MPI_Iprobe(MPI_ANY_SOURCE, 999, comm, &flag, MPI_STATUS_IGNORE));
            }
        }
        OK(MPI_Iscan(&v, &s, 1, MPI_INT, MPI_SUM, comm, &r[2]));
        OK(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
        check_sum(y, i, "tags");
        int want = 0;
        for (int q = 0; q <= rank; q++) {
            want += i + q;
        }
        if (s != want) {
            FAIL("tags call %d: scan %d, expected %d", i, s, want);
        }
        if (rank == i % size) {
            for (int q = 0; q < size; q++) {
                for (int k = 0; k < counts[q]; k++) {
                    if (all[displs[q] + k] != i * 10 + q + k) {
                        FAIL("tags call %d: gatherv from %d element %d is %d", i, q, k,
                             all[displs[q] + k]);
                    }
                }
            }
        }
    }
    free(counts);
    free(displs);
    free(all);
}

/* Calls coll/rdma hands on (above every threshold) while the set-up runs. */
static void large(MPI_Comm comm, int n)
{
    size_t count = 1 << 18; /* 2 MiB of doubles: above allreduce_max_bytes */
    double *x = malloc(count * sizeof(double)), *y = malloc(count * sizeof(double));
    for (int i = 0; i < n; i++) {
        MPI_Request r[2];
        double a = (double) (i + 1) * (rank + 1), b = -1;
        for (size_t k = 0; k < count; k += 4096) {
            x[k] = (double) (i + 1) * (rank + 1);
        }
        OK(MPI_Iallreduce(x, y, (int) count, MPI_DOUBLE, MPI_SUM, comm, &r[0]));
        OK(MPI_Iallreduce(&a, &b, 1, MPI_DOUBLE, MPI_SUM, comm, &r[1]));
        OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        check_sum(b, i, "large (small one)");
        for (size_t k = 0; k < count; k += 4096) {
            check_sum(y[k], i, "large");
        }
    }
    free(x);
    free(y);
}

static void *thread_main(void *arg)
{
    MPI_Comm comm = *(MPI_Comm *) arg;
    nbonly(comm, calls, "threads");
    return NULL;
}

static void threads(void)
{
    pthread_t th[16];
    MPI_Comm comms[16];
    int t = nthreads > 16 ? 16 : nthreads;
    for (int k = 0; k < t; k++) {
        OK(MPI_Comm_dup(MPI_COMM_WORLD, &comms[k]));
    }
    for (int k = 0; k < t; k++) {
        pthread_create(&th[k], NULL, thread_main, &comms[k]);
    }
    for (int k = 0; k < t; k++) {
        pthread_join(th[k], NULL);
    }
    for (int k = 0; k < t; k++) {
        OK(MPI_Comm_free(&comms[k]));
    }
}

typedef void (*section_fn)(MPI_Comm, int);

static void run(const char *name, section_fn fn, int n)
{
    MPI_Comm comm;
    if (!selected(name)) {
        return;
    }
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    fn(comm, n);
    OK(MPI_Comm_free(&comm));
}

static void nbonly_section(MPI_Comm comm, int n) { nbonly(comm, n, "nbonly"); }

int main(int argc, char **argv)
{
    int provided;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--only") && i + 1 < argc) {
            only = argv[++i];
        } else if (!strcmp(argv[i], "--calls") && i + 1 < argc) {
            calls = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            nthreads = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            seed = (unsigned) atoi(argv[++i]);
        }
    }
    if (selected("threads")) {
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    } else {
        MPI_Init(&argc, &argv);
        provided = MPI_THREAD_SINGLE;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    run("nbonly", nbonly_section, calls);
    run("persist", persist, calls);
    run("chain", chain, calls);
    run("mixed", mixed, calls);
    for (int k = 0; k < 12; k++) { /* each communicator crosses its set-up */
        run("tags", tags, 40);
    }
    run("large", large, 12);
    if (selected("threads")) {
        if (MPI_THREAD_MULTIPLE == provided) {
            threads();
        } else if (0 == rank) {
            printf("threads: MPI_THREAD_MULTIPLE not provided, skipped\n");
        }
    }
    int all;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (0 == rank) {
        printf(all ? "FAIL test_nbsetup\n" : "test_nbsetup OK\n");
    }
    MPI_Finalize();
    return all ? 1 : 0;
}
