/*
 * Nonblocking (MPI_I*) and persistent (MPI_*_init + MPI_Start) collectives:
 * barrier, bcast, allreduce, reduce, allgather, alltoall, every result
 * checked against a reference computed locally.
 *
 * Sections (--only a,b,...; default all):
 *   each     every collective once per root and count, nonblocking and
 *            persistent, in place where MPI allows it
 *   mixed    several outstanding calls of mixed kinds interleaved with
 *            blocking ones, completed by Waitall, Waitany, Testsome or
 *            random MPI_Test loops, random delays on random ranks
 *   repeat   the same nonblocking call again and again with new buffers
 *            and contents (coll/rdma keeps a freed request with its program
 *            and binds the next call's buffers), in place now and then, one
 *            with other arguments now and then, two alike outstanding
 *   persist  persistent requests started thousands of times with new
 *            contents; Startall; freed while inactive; one made before the
 *            communicator's window exists and started after
 *   typefree a bcast, allgather and alltoall of a derived type (strided:
 *            packed; or contiguous) whose type the
 *            user frees before the call completes, or before the persistent
 *            request's starts; other types made and freed between
 * Options: --iters N (rounds of "each"), --calls N (mixed, repeat, persist),
 *          --max-count N (elements), --seed S.
 * Prints "test_nbc OK" on success (rank 0); exits non-zero on any error.
 */
#define _DEFAULT_SOURCE
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "persistent_compat.h"

static int rank, size, errors;
static int iters = 1, calls = 2000, max_count = 1000;
static unsigned seed = 1;
static const char *only = NULL;

static int selected(const char *section)
{
    return NULL == only || NULL != strstr(only, section);
}

/* Shared draws (the same on every rank: collective arguments). */
static unsigned rnd(void)
{
    seed = seed * 1103515245u + 12345u;
    return (seed >> 8) & 0xffffff;
}

/* Local draws (this rank's completion order and delays). */
static unsigned local_seed = 99;
static unsigned lrnd(void)
{
    local_seed = local_seed * 1103515245u + 12345u;
    return (local_seed >> 8) & 0xffffff;
}

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            if (errors++ < 10) {                                                                   \
                fprintf(stderr, "rank %d: ", rank);                                                \
                fprintf(stderr, __VA_ARGS__);                                                      \
                fprintf(stderr, "\n");                                                             \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* Input of rank r, element i, call t: exact in int and in double sums. */
static int val(int r, size_t i, int t)
{
    return (int) ((r * 7 + (int) i * 13 + t * 3) % 1000) - 300;
}

/* ---- one collective as a started request, and its check ------------------ */

enum { BARRIER, BCAST, ALLREDUCE, REDUCE, ALLGATHER, ALLTOALL, NCOLLS };
static const char *const names[NCOLLS] = {"barrier", "bcast", "allreduce", "reduce", "allgather",
                                          "alltoall"};

typedef struct job {
    int coll, root, t, in_place;
    size_t count;
    int *sbuf, *rbuf;
    MPI_Request req;
} job_t;

static void job_fill(job_t *j)
{
    size_t n = j->count;
    size_t sn = ALLTOALL == j->coll ? n * size : n, rn = (ALLGATHER == j->coll || ALLTOALL == j->coll) ? n * size : n;

    for (size_t i = 0; i < sn; ++i) {
        j->sbuf[i] = val(rank, i, j->t);
    }
    for (size_t i = 0; i < rn; ++i) {
        j->rbuf[i] = -7777;
    }
    if (BCAST == j->coll) {
        for (size_t i = 0; i < n; ++i) {
            j->rbuf[i] = rank == j->root ? val(j->root, i, j->t) : -7777;
        }
    }
    if (j->in_place) {
        if (ALLREDUCE == j->coll || (REDUCE == j->coll && rank == j->root)) {
            memcpy(j->rbuf, j->sbuf, n * sizeof(int));
        } else if (ALLGATHER == j->coll) {
            memcpy(j->rbuf + (size_t) rank * n, j->sbuf, n * sizeof(int));
        } else if (ALLTOALL == j->coll) {
            memcpy(j->rbuf, j->sbuf, n * size * sizeof(int));
        }
    }
}

static job_t *job_new(int coll, size_t count, int root, int in_place, int t)
{
    job_t *j = calloc(1, sizeof(*j));
    size_t big = (count > 0 ? count : 1) * (size_t) size;

    j->coll = coll;
    j->count = count;
    j->root = root;
    j->in_place = in_place && BARRIER != coll && BCAST != coll
                  && !(REDUCE == coll && rank != root);
    j->t = t;
    j->sbuf = malloc(big * sizeof(int));
    j->rbuf = malloc(big * sizeof(int));
    job_fill(j);
    return j;
}

static void job_free(job_t *j)
{
    if (MPI_REQUEST_NULL != j->req) {
        MPI_Request_free(&j->req);
    }
    free(j->sbuf);
    free(j->rbuf);
    free(j);
}

/* Create the request: nonblocking (started) or persistent (inactive). */
static void job_post(job_t *j, int persistent, MPI_Comm comm)
{
    const void *s = j->in_place ? MPI_IN_PLACE : j->sbuf;
    int n = (int) j->count, rc = MPI_SUCCESS;

    switch (j->coll) {
    case BARRIER:
        rc = persistent ? MPI_Barrier_init(comm, MPI_INFO_NULL, &j->req) : MPI_Ibarrier(comm, &j->req);
        break;
    case BCAST:
        rc = persistent ? MPI_Bcast_init(j->rbuf, n, MPI_INT, j->root, comm, MPI_INFO_NULL, &j->req)
                        : MPI_Ibcast(j->rbuf, n, MPI_INT, j->root, comm, &j->req);
        break;
    case ALLREDUCE:
        rc = persistent ? MPI_Allreduce_init(s, j->rbuf, n, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL,
                                             &j->req)
                        : MPI_Iallreduce(s, j->rbuf, n, MPI_INT, MPI_SUM, comm, &j->req);
        break;
    case REDUCE:
        rc = persistent ? MPI_Reduce_init(s, j->rbuf, n, MPI_INT, MPI_SUM, j->root, comm,
                                          MPI_INFO_NULL, &j->req)
                        : MPI_Ireduce(s, j->rbuf, n, MPI_INT, MPI_SUM, j->root, comm, &j->req);
        break;
    case ALLGATHER:
        rc = persistent ? MPI_Allgather_init(s, n, MPI_INT, j->rbuf, n, MPI_INT, comm,
                                             MPI_INFO_NULL, &j->req)
                        : MPI_Iallgather(s, n, MPI_INT, j->rbuf, n, MPI_INT, comm, &j->req);
        break;
    case ALLTOALL:
        rc = persistent ? MPI_Alltoall_init(s, n, MPI_INT, j->rbuf, n, MPI_INT, comm,
                                            MPI_INFO_NULL, &j->req)
                        : MPI_Ialltoall(s, n, MPI_INT, j->rbuf, n, MPI_INT, comm, &j->req);
        break;
    }
    CHECK(MPI_SUCCESS == rc, "%s%s: error %d", persistent ? "" : "i", names[j->coll], rc);
}

static void job_check(const job_t *j, const char *how)
{
    size_t n = j->count;

    for (size_t i = 0; i < n; ++i) {
        long sum = 0;
        for (int r = 0; r < size; ++r) {
            sum += val(r, i, j->t);
        }
        switch (j->coll) {
        case BCAST:
            CHECK(j->rbuf[i] == val(j->root, i, j->t), "%s bcast root %d count %zu t %d: [%zu] %d",
                  how, j->root, n, j->t, i, j->rbuf[i]);
            break;
        case ALLREDUCE:
            CHECK(j->rbuf[i] == sum, "%s allreduce count %zu t %d: [%zu] %d != %ld", how, n, j->t, i,
                  j->rbuf[i], sum);
            break;
        case REDUCE:
            if (rank == j->root) {
                CHECK(j->rbuf[i] == sum, "%s reduce root %d count %zu t %d: [%zu] %d != %ld", how,
                      j->root, n, j->t, i, j->rbuf[i], sum);
            }
            break;
        case ALLGATHER:
            for (int r = 0; r < size; ++r) {
                CHECK(j->rbuf[(size_t) r * n + i] == val(r, i, j->t),
                      "%s allgather count %zu t %d: block %d [%zu]", how, n, j->t, r, i);
            }
            break;
        case ALLTOALL:
            for (int r = 0; r < size; ++r) {
                CHECK(j->rbuf[(size_t) r * n + i] == val(r, (size_t) rank * n + i, j->t),
                      "%s alltoall count %zu t %d: from %d [%zu]", how, n, j->t, r, i);
            }
            break;
        }
    }
}

static const size_t counts[] = {0, 1, 2, 3, 7, 8, 64, 255, 1000, 4096, 20000};
#define NCOUNTS (sizeof(counts) / sizeof(counts[0]))

/* ---- sections ----------------------------------------------------------------- */

static void each(MPI_Comm comm)
{
    for (int it = 0; it < iters; ++it) {
        for (int coll = 0; coll < NCOLLS; ++coll) {
            for (size_t ci = 0; ci < NCOUNTS && counts[ci] <= (size_t) max_count; ++ci) {
                for (int root = 0; root < size; ++root) {
                    for (int persistent = 0; persistent < 2; ++persistent) {
                        for (int in_place = 0; in_place < 2; ++in_place) {
                            job_t *j = job_new(coll, counts[ci], root, in_place, it + root);
                            job_post(j, persistent, comm);
                            if (persistent) {
                                MPI_Start(&j->req);
                            }
                            MPI_Wait(&j->req, MPI_STATUS_IGNORE);
                            job_check(j, persistent ? "persistent" : "nonblocking");
                            job_free(j);
                        }
                    }
                    if (BCAST != coll && REDUCE != coll && root > 0) {
                        break; /* rootless: one pass */
                    }
                }
            }
        }
    }
}

/* Complete `n` requests in a random way. */
static void complete_randomly(MPI_Request *reqs, int n)
{
    int way = (int) (lrnd() % 4), done = 0, idx, outcount, flag;
    int *indices = malloc((size_t) n * sizeof(int));

    switch (way) {
    case 0:
        MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
        break;
    case 1:
        for (int k = 0; k < n; ++k) {
            MPI_Waitany(n, reqs, &idx, MPI_STATUS_IGNORE);
        }
        break;
    case 2:
        while (done < n) {
            MPI_Testsome(n, reqs, &outcount, indices, MPI_STATUSES_IGNORE);
            if (MPI_UNDEFINED == outcount) {
                break;
            }
            done += outcount;
        }
        break;
    default:
        /* MPI_Test in a random order (an inactive persistent request
         * tests true again: count each once) */
        memset(indices, 0, (size_t) n * sizeof(int));
        while (done < n) {
            int k = (int) (lrnd() % (unsigned) n);
            if (!indices[k]) {
                MPI_Test(&reqs[k], &flag, MPI_STATUS_IGNORE);
                indices[k] = flag;
                done += flag;
            }
        }
        break;
    }
    free(indices);
}

static void mixed(MPI_Comm comm)
{
    enum { MAXOUT = 5 };
    for (int c = 0; c < calls; ++c) {
        job_t *jobs[MAXOUT];
        MPI_Request reqs[MAXOUT];
        int n = 1 + (int) (rnd() % MAXOUT);

        for (int k = 0; k < n; ++k) {
            int coll = (int) (rnd() % NCOLLS);
            size_t count = counts[rnd() % 8];
            jobs[k] = job_new(coll, count, (int) (rnd() % (unsigned) size), (int) (rnd() % 2),
                              c * MAXOUT + k);
            job_post(jobs[k], 0, comm);
            reqs[k] = jobs[k]->req;
            if (0 == rnd() % 3) {
                /* a blocking call between: it must wait its turn */
                int x = rank, y = -1;
                MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, comm);
                CHECK(y == size * (size - 1) / 2, "blocking allreduce among nonblocking: %d", y);
            }
            if (0 == lrnd() % 50) {
                usleep(lrnd() % 300);
            }
        }
        complete_randomly(reqs, n);
        for (int k = 0; k < n; ++k) {
            jobs[k]->req = MPI_REQUEST_NULL;
            job_check(jobs[k], "mixed");
            job_free(jobs[k]);
        }
    }
}

static void repeat(MPI_Comm comm)
{
    for (int coll = 0; coll < NCOLLS; ++coll) {
        job_t *prev = NULL; /* freed a call later: the next call's buffers lie elsewhere */
        for (int c = 0; c < calls / 4; ++c) {
            int other = 0 == c % 11, twin = 0 == c % 7;
            int in_place = 1 == (c / 25) % 2;
            job_t *j = job_new(coll, other ? 5 : 64, other ? 0 : size - 1, in_place, c);
            job_t *k = twin ? job_new(coll, 64, size - 1, in_place, c + 1) : NULL;

            job_post(j, 0, comm);
            if (NULL != k) {
                job_post(k, 0, comm);
                MPI_Wait(&k->req, MPI_STATUS_IGNORE);
                job_check(k, "repeated, twin");
                job_free(k);
            }
            MPI_Wait(&j->req, MPI_STATUS_IGNORE);
            job_check(j, "repeated");
            if (NULL != prev) {
                job_free(prev);
            }
            prev = j;
        }
        if (NULL != prev) {
            job_free(prev);
        }
    }
}

static void persist(MPI_Comm comm)
{
    job_t *jobs[NCOLLS];
    MPI_Request reqs[NCOLLS];
    MPI_Comm fresh;

    for (int coll = 0; coll < NCOLLS; ++coll) {
        jobs[coll] = job_new(coll, 1 + (size_t) coll * 5, coll % size, coll % 2, 0);
        job_post(jobs[coll], 1, comm);
    }
    for (int c = 0; c < calls; ++c) {
        for (int coll = 0; coll < NCOLLS; ++coll) {
            jobs[coll]->t = c;
            job_fill(jobs[coll]); /* new contents between starts */
            reqs[coll] = jobs[coll]->req;
        }
        if (c % 2) {
            MPI_Startall(NCOLLS, reqs);
        } else {
            for (int coll = 0; coll < NCOLLS; ++coll) {
                MPI_Start(&reqs[coll]);
            }
        }
        complete_randomly(reqs, NCOLLS);
        for (int coll = 0; coll < NCOLLS; ++coll) {
            job_check(jobs[coll], "persistent");
        }
    }
    for (int coll = 0; coll < NCOLLS; ++coll) {
        job_free(jobs[coll]); /* freed while inactive */
    }
    /* made before the new communicator's window exists, started after */
    MPI_Comm_dup(comm, &fresh);
    {
        job_t *j = job_new(ALLREDUCE, 3, 0, 0, 0);
        job_post(j, 1, fresh);
        for (int k = 0; k < 40; ++k) {
            MPI_Barrier(fresh);
        }
        for (int c = 0; c < 100; ++c) {
            j->t = c;
            job_fill(j);
            MPI_Start(&j->req);
            MPI_Wait(&j->req, MPI_STATUS_IGNORE);
            job_check(j, "persistent made before the window");
        }
        job_free(j);
    }
    MPI_Comm_free(&fresh);
}

/* Calls whose datatype the user frees before they complete (MPI_Type_free of
 * a type in use is allowed: "any communication that is currently using this
 * datatype will complete normally"): a strided type is packed, so the
 * nonblocking call and every start of the persistent one read the type after
 * its free; a contiguous one is not, but Open MPI's MPI layer keeps its own
 * reference in the request (ompi_coll_base_retain_datatypes).  Other types are made and freed between, to reuse its memory
 * (the test's case runs with MALLOC_PERTURB_, which scribbles freed memory). */
static MPI_Datatype strided(int n, int stride)
{
    MPI_Datatype t;
    MPI_Type_vector(n, 1, stride, MPI_INT, &t);
    MPI_Type_commit(&t);
    return t;
}

static void churn(void)
{
    for (int k = 0; k < 8; ++k) {
        MPI_Datatype t = strided(1 + k, 2);
        MPI_Type_free(&t);
    }
}

static void typefree_fill(int *a, int *b, size_t len, int coll, int root, int t)
{
    for (size_t i = 0; i < len; ++i) {
        a[i] = BCAST == coll && rank != root ? -7777 : val(rank, i, t);
        b[i] = -7777;
    }
}

static void typefree(MPI_Comm comm)
{
    const int n = 37, colls[] = {BCAST, ALLGATHER, ALLTOALL};
    size_t len = (size_t) (2 * n) * size;
    int *a = malloc(len * sizeof(int)), *b = malloc(len * sizeof(int));

    for (int c = 0; c < calls / 10 + 1; ++c) {
        for (int k = 0; k < 3; ++k) {
            int coll = colls[k], persistent = c % 2, root = c % size, starts = persistent ? 3 : 1;
            /* stride 2: packed; stride 1: a derived type used in place */
            int st = 1 + (c / 2) % 2, ext = (n - 1) * st + 1; /* the type's extent in ints */
            MPI_Datatype t = strided(n, st);
            MPI_Request r;

            typefree_fill(a, b, len, coll, root, c * 3); /* before the nonblocking call */
            if (BCAST == coll) {
                persistent ? MPI_Bcast_init(a, 1, t, root, comm, MPI_INFO_NULL, &r)
                           : MPI_Ibcast(a, 1, t, root, comm, &r);
            } else if (ALLGATHER == coll) {
                persistent ? MPI_Allgather_init(a, 1, t, b, 1, t, comm, MPI_INFO_NULL, &r)
                           : MPI_Iallgather(a, 1, t, b, 1, t, comm, &r);
            } else {
                persistent ? MPI_Alltoall_init(a, 1, t, b, 1, t, comm, MPI_INFO_NULL, &r)
                           : MPI_Ialltoall(a, 1, t, b, 1, t, comm, &r);
            }
            MPI_Type_free(&t);
            churn();
            for (int s = 0; s < starts; ++s) {
                int tt = c * 3 + s;
                if (persistent) {
                    typefree_fill(a, b, len, coll, root, tt);
                    MPI_Start(&r);
                    churn();
                }
                MPI_Wait(&r, MPI_STATUS_IGNORE);
                for (int i = 0; i < n; ++i) {
                    if (BCAST == coll) {
                        CHECK(a[st * i] == val(root, (size_t) (st * i), tt)
                                  && (rank == root || 1 == st || a[st * i + 1] == -7777),
                              "type freed, bcast c %d [%d]: %d", c, i, a[st * i]);
                        continue;
                    }
                    for (int q = 0; q < size; ++q) {
                        /* block q of either side starts at element q x ext */
                        int at = q * ext + st * i;
                        int want = ALLGATHER == coll ? val(q, (size_t) (st * i), tt)
                                                     : val(q, (size_t) (rank * ext + st * i), tt);
                        CHECK(b[at] == want && (i == n - 1 || 1 == st || b[at + 1] == -7777),
                              "type freed, %s c %d block %d [%d]: %d != %d", names[coll], c, q, i,
                              b[at], want);
                    }
                }
            }
            if (persistent) {
                MPI_Request_free(&r);
            }
        }
    }
    free(a);
    free(b);
}

int main(int argc, char **argv)
{
    MPI_Comm comm;
    int total;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--only") && i + 1 < argc) {
            only = argv[++i];
        } else if (!strcmp(argv[i], "--iters") && i + 1 < argc) {
            iters = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--calls") && i + 1 < argc) {
            calls = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--max-count") && i + 1 < argc) {
            max_count = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            seed = (unsigned) atoi(argv[++i]);
        }
    }
    local_seed += (unsigned) rank * 7919u;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    /* past the window set-up delay, whatever coll_rdma_window_setup_calls */
    for (int k = 0; k < 40; ++k) {
        MPI_Barrier(comm);
    }
    if (selected("each")) {
        each(comm);
    }
    if (selected("mixed")) {
        mixed(comm);
    }
    if (selected("repeat")) {
        repeat(comm);
    }
    if (selected("persist")) {
        persist(comm);
    }
    if (selected("typefree")) {
        typefree(comm);
    }
    MPI_Comm_free(&comm);
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (0 == rank) {
        if (0 == total) {
            printf("test_nbc OK\n");
        } else {
            printf("test_nbc FAILED: %d errors\n", total);
        }
    }
    MPI_Finalize();
    return 0 != total;
}
