/*
 * The window pool (issue 36; coll_rdma_window.h, "the pool"): a freed
 * communicator's window is reused for another communicator only once every
 * peer of the freed one retired it (freed that communicator too).  Needs exactly 4 ranks, on one node.
 *
 * Sections (--only a,b; default slow and churn):
 *   slow     c1 = ranks {0, 1, 2}, c2 = ranks {0, 2, 3}: the same size, so
 *            rank 0's windows of both have the same size.  Rank 1 posts an
 *            MPI_Ibcast of c1 (root 0; coll/rdma's read bcast copies from
 *            the root's window) and then makes no MPI call until rank 0 says
 *            (in a file) that c2 is done; meanwhile rank 0 completes that
 *            bcast as root, frees c1, and sets c2's window up and runs
 *            bcasts of other data on it.  Rank 1 must get c1's data: rank
 *            0's window of c1 may not be reused for c2 while rank 1 still
 *            reads it.  Then, once rank 1 freed c1 too, c3 (ranks {0, 1, 2}
 *            again, made while c2 is still alive, so that only c1's window
 *            is free) reuses it: the runner checks rank 0's "windows:
 *            reused=1" where this section runs alone.  --free-early: rank 1
 *            frees c1 right after posting its bcast (MPI completes the
 *            request all the same); --persistent: the bcast of c1 is an
 *            MPI_Bcast_init request, started once.
 *   churn    --cycles N communicators (a dup of the world communicator, or
 *            of a split half), each through its set-up with checked
 *            allreduces and bcasts, freed by each rank after a random delay
 *            of up to 2 ms, so that windows come back to the pool while
 *            peers are still on their way out.
 *   concurrent  (only when named) five dups of the world communicator whose
 *            set-ups run at once (an MPI_Ibarrier posted on each, then all
 *            waited for; with --warmup 0 the set-up begins at that call),
 *            then checked allreduces and bcasts on each, then five more
 *            one after another: records filled before any set-up ended meet
 *            what the others learned meanwhile (coll_rdma_records.c).
 * Options: --warmup W (the coll_rdma_window_setup_calls of the run),
 * --cycles N, --seed S, --free-early, --persistent.  Prints "test_pool OK" (rank 0); exits non-zero on
 * any error.
 */
#define _DEFAULT_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "persistent_compat.h"
#include "test_check.h"

#define BYTES 1024

static int rank, size, warmup = 16, cycles = 200, free_early = 0, persistent = 0;
static unsigned seed = 5;
static const char *only = NULL;

static int selected(const char *s) { return NULL == only || NULL != strstr(only, s); }

static unsigned char pattern(int tag, int i) { return (unsigned char) (tag * 31 + i * 7 + 1); }

/* `calls` checked allreduces (sum of ranks + call) on comm */
static void allreduces(MPI_Comm comm, int calls)
{
    int n, me;

    OK(MPI_Comm_size(comm, &n));
    OK(MPI_Comm_rank(comm, &me));
    for (int c = 0; c < calls; ++c) {
        long in = me + c, out = -1;
        OK(MPI_Allreduce(&in, &out, 1, MPI_LONG, MPI_SUM, comm));
        if (out != (long) n * (n - 1) / 2 + (long) n * c) {
            FAIL("allreduce %d: %ld, expected %ld", c, out, (long) n * (n - 1) / 2 + (long) n * c);
        }
    }
}

/* `calls` checked bcasts of BYTES from `root` (comm rank), data tagged `tag` + call */
static void bcasts(MPI_Comm comm, int root, int tag, int calls)
{
    unsigned char buf[BYTES];
    int me;

    OK(MPI_Comm_rank(comm, &me));
    for (int c = 0; c < calls; ++c) {
        for (int i = 0; i < BYTES; ++i) {
            buf[i] = me == root ? pattern(tag + c, i) : 0;
        }
        OK(MPI_Bcast(buf, BYTES, MPI_BYTE, root, comm));
        for (int i = 0; i < BYTES; ++i) {
            if (buf[i] != pattern(tag + c, i)) {
                FAIL("bcast %d (tag %d): byte %d is %d, expected %d", c, tag, i, buf[i],
                     pattern(tag + c, i));
            }
        }
    }
}

/* c1's bcast from root 0: MPI_Ibcast, or a persistent request started once */
static void bcast_start(unsigned char *buf, MPI_Comm c1, MPI_Request *req)
{
    if (persistent) {
        OK(MPI_Bcast_init(buf, BYTES, MPI_BYTE, 0, c1, MPI_INFO_NULL, req));
        OK(MPI_Start(req));
    } else {
        OK(MPI_Ibcast(buf, BYTES, MPI_BYTE, 0, c1, req));
    }
}

static void section_slow(void)
{
    MPI_Comm c1, c2, c3;
    MPI_Request req = MPI_REQUEST_NULL;
    unsigned char buf[BYTES];
    char flag[128];
    int in1 = 3 != rank, in2 = 1 != rank, go = 1;
    struct stat st;

    if (0 == rank) {
        snprintf(flag, sizeof(flag), "/tmp/coll-rdma-test-pool-%d-%ld", (int) getpid(),
                 (long) time(NULL));
        unlink(flag);
    }
    OK(MPI_Bcast(flag, sizeof(flag), MPI_CHAR, 0, MPI_COMM_WORLD));
    OK(MPI_Comm_split(MPI_COMM_WORLD, in1 ? 0 : MPI_UNDEFINED, rank, &c1));
    OK(MPI_Comm_split(MPI_COMM_WORLD, in2 ? 0 : MPI_UNDEFINED, rank, &c2));
    if (in1) {
        allreduces(c1, warmup + 8); /* c1's window set up and in use */
    }
    /* rank 1 posts its bcast before the root writes, then tells the root */
    if (1 == rank) {
        memset(buf, 0, sizeof(buf));
        bcast_start(buf, c1, &req);
        OK(MPI_Send(&go, 1, MPI_INT, 0, 7, MPI_COMM_WORLD));
        if (free_early) {
            OK(MPI_Comm_free(&c1)); /* the request keeps it, and its window, alive */
        }
        /* no MPI call until c2 is done: the bcast stays pending */
        for (int waited = 0; 0 != stat(flag, &st); waited += 1) {
            if (waited > 100000) {
                FAIL("no word from rank 0 in 100 s");
            }
            usleep(1000);
        }
        for (int i = 0; i < BYTES; ++i) {
            if (0 != buf[i]) { /* copied inside MPI_Send: nothing was pending */
                FAIL("the bcast of c1 completed before rank 0 went on: the test tested nothing");
            }
        }
        OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        for (int i = 0; i < BYTES; ++i) {
            if (buf[i] != pattern(1, i)) {
                FAIL("the bcast of c1 pending while rank 0 went on: byte %d is %d, expected %d "
                     "(rank 0's window of c1 reused under it?)", i, buf[i], pattern(1, i));
            }
        }
    } else if (in1) { /* nonblocking too: MPI matches no blocking call with it */
        if (0 == rank) {
            OK(MPI_Recv(&go, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
        for (int i = 0; i < BYTES; ++i) {
            buf[i] = 0 == rank ? pattern(1, i) : 0;
        }
        bcast_start(buf, c1, &req);
        OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        for (int i = 0; i < BYTES; ++i) {
            if (buf[i] != pattern(1, i)) {
                FAIL("the bcast of c1: byte %d is %d, expected %d", i, buf[i], pattern(1, i));
            }
        }
    }
    if (persistent && MPI_REQUEST_NULL != req) {
        OK(MPI_Request_free(&req));
    }
    if (1 != rank && in1) {
        OK(MPI_Comm_free(&c1)); /* rank 0's window goes to its pool */
    }
    if (in2) {
        /* c2's set-up, then bcasts from rank 0 over every slot of its ring */
        allreduces(c2, warmup + 4);
        bcasts(c2, 0, 100, 40);
        OK(MPI_Barrier(c2));
        if (0 == rank) {
            FILE *f = fopen(flag, "w");
            if (NULL == f) {
                FAIL("cannot create %s", flag);
            }
            fclose(f);
        }
    }
    if (1 == rank && !free_early) {
        OK(MPI_Comm_free(&c1));
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (0 == rank) {
        unlink(flag);
    }
    /* every peer of c1 retired rank 0's window: c3 may take it */
    OK(MPI_Comm_split(MPI_COMM_WORLD, in1 ? 0 : MPI_UNDEFINED, rank, &c3));
    if (in1) {
        allreduces(c3, warmup + 8);
        bcasts(c3, 0, 200, 20);
        OK(MPI_Comm_free(&c3));
    }
    if (in2) {
        OK(MPI_Comm_free(&c2));
    }
}

static void section_concurrent(void)
{
    enum { K = 5 };
    MPI_Comm c[K];
    MPI_Request req[K];

    for (int k = 0; k < K; ++k) {
        OK(MPI_Comm_dup(MPI_COMM_WORLD, &c[k]));
    }
    for (int k = 0; k < K; ++k) {
        OK(MPI_Ibarrier(c[k], &req[k]));
    }
    OK(MPI_Waitall(K, req, MPI_STATUSES_IGNORE));
    for (int k = 0; k < K; ++k) {
        allreduces(c[k], warmup + 2);
        bcasts(c[k], k % size, k, 3);
        OK(MPI_Comm_free(&c[k]));
    }
    for (int k = 0; k < K; ++k) {
        OK(MPI_Comm_dup(MPI_COMM_WORLD, &c[k]));
        OK(MPI_Barrier(c[k]));
        allreduces(c[k], warmup + 2);
        OK(MPI_Comm_free(&c[k]));
    }
}

static void section_churn(void)
{
    unsigned state = seed * 7919u + (unsigned) rank;
    MPI_Comm half;

    OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
    for (int cycle = 0; cycle < cycles; ++cycle) {
        MPI_Comm c;
        OK(MPI_Comm_dup(cycle % 3 == 2 ? half : MPI_COMM_WORLD, &c));
        allreduces(c, warmup + 2);
        bcasts(c, cycle % 2, cycle, 3);
        state = state * 1103515245u + 12345u;
        usleep((state >> 8) % 2000);
        OK(MPI_Comm_free(&c));
    }
    OK(MPI_Comm_free(&half));
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        if (0 == strcmp(argv[i], "--only") && i + 1 < argc) {
            only = argv[++i];
        } else if (0 == strcmp(argv[i], "--warmup") && i + 1 < argc) {
            warmup = atoi(argv[++i]);
        } else if (0 == strcmp(argv[i], "--cycles") && i + 1 < argc) {
            cycles = atoi(argv[++i]);
        } else if (0 == strcmp(argv[i], "--seed") && i + 1 < argc) {
            seed = (unsigned) atoi(argv[++i]);
        } else if (0 == strcmp(argv[i], "--free-early")) {
            free_early = 1;
        } else if (0 == strcmp(argv[i], "--persistent")) {
            persistent = 1;
        } else {
            fprintf(stderr, "usage: test_pool [--only slow,churn,concurrent] [--warmup W] "
                            "[--cycles N] [--seed S] [--free-early] [--persistent]\n");
            return 2;
        }
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (4 != size) {
        if (0 == rank) {
            fprintf(stderr, "test_pool needs 4 ranks\n");
        }
        MPI_Finalize();
        return 2;
    }
    if (selected("slow")) {
        section_slow();
    }
    if (selected("churn")) {
        section_churn();
    }
    if (NULL != only && NULL != strstr(only, "concurrent")) {
        section_concurrent();
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (0 == rank) {
        printf("test_pool OK\n");
    }
    MPI_Finalize();
    return 0;
}
