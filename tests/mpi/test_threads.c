/*
 * MPI_THREAD_MULTIPLE with coll/rdma: several threads per rank, each running
 * barrier, bcast and allreduce on its own communicator at the same time
 * (MPI forbids concurrent collectives on one communicator, not on distinct
 * ones), blocking and split-phase: an MPI_Iallreduce, an MPI_Ibcast and a
 * persistent allreduce outstanding together, completed by MPI_Waitall or by
 * an MPI_Testall loop (so that the threads' requests progress one another
 * through the shared progress callback), plus a thread that keeps creating and freeing communicators, each
 * with a first collective that sets a window up.  Every result is checked
 * against a locally computed reference.  Exit status 0 on success.
 *
 * Usage: test_threads [THREADS] [CALLS]   (default 3 threads, 3000 calls each)
 *   TEST_THREADS_FAIL=R:C   rank R's first worker counts a failure at call C
 *                           (checks that every rank stops and the run ends
 *                           with FAILED, not a hang)
 */
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "persistent_compat.h"

static int rank, size, calls = 3000;
static volatile int failures;
static int inject_rank = -1, inject_call = -1; /* TEST_THREADS_FAIL */

/*
 * Whether any rank saw a failure so far, agreed on `comm` (an allreduce of
 * the flag: every rank of comm gets the same answer, so all stop at the
 * same iteration).  A rank stopping alone would leave its peers blocked in
 * their next collective, and the case would end as a timeout instead of a
 * FAIL.
 */
static int any_failed(MPI_Comm comm)
{
    int mine = 0 != __atomic_load_n(&failures, __ATOMIC_RELAXED), any = 0;

    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm);
    return any;
}

static void fail(int thread, const char *what, int call, long expected, long got)
{
    fprintf(stderr, "FAIL rank %d thread %d %s call %d expected %ld got %ld\n", rank, thread, what,
            call, expected, got);
    __atomic_fetch_add(&failures, 1, __ATOMIC_RELAXED);
}

typedef struct {
    int id;
    MPI_Comm comm;
} job_t;

/* Split-phase calls of iteration c, all outstanding together. */
static void split_phase(job_t *job, int c, MPI_Request *persistent, int64_t *pin, int64_t *pout)
{
    int64_t nin[8], nout[8];
    int32_t bbuf[8];
    int root = (c + 1 + job->id) % size, done = 0;
    int64_t tri = (int64_t) size * (size + 1) / 2;
    MPI_Request reqs[3];

    for (int i = 0; i < 8; ++i) {
        nin[i] = (int64_t) (rank + 1) * (c + i + job->id);
        pin[i] = (int64_t) (rank + 2) * (c - i);
        bbuf[i] = rank == root ? c * 3 + i : -1;
    }
    MPI_Iallreduce(nin, nout, 8, MPI_INT64_T, MPI_SUM, job->comm, &reqs[0]);
    MPI_Ibcast(bbuf, 8, MPI_INT32_T, root, job->comm, &reqs[1]);
    MPI_Start(persistent);
    reqs[2] = *persistent;
    if (c % 2) {
        MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE);
    } else {
        while (!done) {
            MPI_Testall(3, reqs, &done, MPI_STATUSES_IGNORE);
        }
    }
    for (int i = 0; i < 8; ++i) {
        if (nout[i] != tri * (c + i + job->id)) {
            fail(job->id, "iallreduce", c, (long) (tri * (c + i + job->id)), (long) nout[i]);
            break;
        }
        if (pout[i] != (tri + size) * (c - i)) {
            fail(job->id, "allreduce_init", c, (long) ((tri + size) * (c - i)), (long) pout[i]);
            break;
        }
        if (bbuf[i] != c * 3 + i) {
            fail(job->id, "ibcast", c, c * 3 + i, bbuf[i]);
            break;
        }
    }
}

static void *worker(void *arg)
{
    job_t *job = arg;
    int64_t in[64], out[64], pin[8] = {0}, pout[8];
    int32_t buf[300];
    MPI_Request persistent;

    /* after a blocking call, which sets the window up: a persistent request
     * made before it would stay with the fallback */
    MPI_Barrier(job->comm);
    MPI_Allreduce_init(pin, pout, 8, MPI_INT64_T, MPI_SUM, job->comm, MPI_INFO_NULL, &persistent);
    for (int c = 0; c < calls && !any_failed(job->comm); ++c) {
        int n = 1 + (c * 7 + job->id) % 64, root = (c + job->id) % size;
        MPI_Barrier(job->comm);
        for (int i = 0; i < n; ++i) {
            in[i] = (int64_t) (rank + 1) * (i + c + job->id);
        }
        MPI_Allreduce(in, out, n, MPI_INT64_T, MPI_SUM, job->comm);
        for (int i = 0; i < n; ++i) {
            int64_t want = (int64_t) size * (size + 1) / 2 * (i + c + job->id);
            if (out[i] != want) {
                fail(job->id, "allreduce", c, (long) want, (long) out[i]);
                break;
            }
        }
        for (int i = 0; i < 300; ++i) {
            buf[i] = rank == root ? c * 1000 + i + job->id : -1;
        }
        MPI_Bcast(buf, 1 + c % 300, MPI_INT32_T, root, job->comm);
        for (int i = 0; i < 1 + c % 300; ++i) {
            if (buf[i] != c * 1000 + i + job->id) {
                fail(job->id, "bcast", c, c * 1000 + i + job->id, buf[i]);
                break;
            }
        }
        split_phase(job, c, &persistent, pin, pout);
        if (0 == job->id && rank == inject_rank && c == inject_call) {
            fail(job->id, "injected (TEST_THREADS_FAIL)", c, 0, 0);
        }
    }
    MPI_Request_free(&persistent);
    return NULL;
}

/* Creates and frees communicators while the workers run. */
static void *churner(void *arg)
{
    job_t *job = arg;

    for (int c = 0; c < calls / 20 && !any_failed(job->comm); ++c) {
        MPI_Comm tmp;
        int one = 1, sum = 0;
        MPI_Comm_dup(job->comm, &tmp);
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, tmp);
        if (sum != size) {
            fail(job->id, "churn allreduce", c, size, sum);
        }
        MPI_Comm_free(&tmp);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, nthreads = argc > 1 ? atoi(argv[1]) : 3;
    pthread_t *threads;
    job_t *jobs;

    if (argc > 2) {
        calls = atoi(argv[2]);
    }
    if (NULL != getenv("TEST_THREADS_FAIL")) {
        (void) sscanf(getenv("TEST_THREADS_FAIL"), "%d:%d", &inject_rank, &inject_call);
    }
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (0 == rank) {
            printf("SKIP: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
        }
        MPI_Finalize();
        return 0;
    }
    threads = calloc(nthreads + 1, sizeof(*threads));
    jobs = calloc(nthreads + 1, sizeof(*jobs));
    /* communicators are created in the same order on every rank */
    for (int t = 0; t <= nthreads; ++t) {
        jobs[t].id = t;
        MPI_Comm_dup(MPI_COMM_WORLD, &jobs[t].comm);
    }
    for (int t = 0; t < nthreads; ++t) {
        pthread_create(&threads[t], NULL, worker, &jobs[t]);
    }
    pthread_create(&threads[nthreads], NULL, churner, &jobs[nthreads]);
    for (int t = 0; t <= nthreads; ++t) {
        pthread_join(threads[t], NULL);
    }
    for (int t = 0; t <= nthreads; ++t) {
        MPI_Comm_free(&jobs[t].comm);
    }
    {
        int local = failures, total = 0;
        MPI_Allreduce(&local, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (0 == rank) {
            printf("test_threads %s: np=%d threads=%d calls=%d failures=%d\n",
                   total ? "FAILED" : "OK", size, nthreads, calls, total);
        }
        free(threads);
        free(jobs);
        MPI_Finalize();
        return total ? 1 : 0;
    }
}
