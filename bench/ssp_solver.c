/*
 * Time to solution of a distributed least-squares solve, with MPI_Allreduce
 * exact (S = 0) or with bounded staleness S (coll/rdma's info key
 * coll_rdma_allreduce_staleness), as in Iakymchuk et al., "Efficient and
 * Eventually Consistent Collective Operations" (seed 004, section V-a):
 * stale sums cost iterations and save waiting.
 *
 * Problem: minimize ||A x - b||^2 / 2, A of m x n with entries N(0, 1/m)
 * (a hash of (i, j): the same problem at every process count), b = A x* +
 * noise.  Block coordinate descent: rank r owns columns block r of A and the
 * matching block x_r of x (no copies of x).  Iteration k: p_r = A_r x_r, one
 * MPI_Allreduce (SUM, m doubles) of the p_r on the solver communicator (the
 * one asking for S) gives A x, from which each rank takes the residual, the
 * loss and its block's gradient A_r^T (A x - b), and steps x_r.  With
 * staleness the other blocks' products may be up to S iterations old:
 * asynchronous block descent with bounded delay (Bertsekas and Tsitsiklis,
 * "Parallel and Distributed Computation", 1989, section 7.5), which converges
 * for a small enough step to the one minimizer.  Compute noise as on a shared
 * cluster: each iteration a rank is slowed, with probability --slow-prob, by
 * doing its work 1 to --slow-max extra times (per-rank random streams, the
 * same for every S).
 *
 * Stopping: a rank is done when the loss in its last sum is below --target
 * times the first one.  Ranks agree on when to stop without waiting: every 8
 * iterations each starts an MPI_Iallreduce (MIN of "done") on an exact
 * communicator and completes it 8 iterations later, so every rank stops at
 * the same iteration (a collective's count must match) and no exact
 * collective sits in the loop.  Then the exact loss of the x reached is
 * computed (not timed).
 *
 * Output, rank 0: one line per run
 *   S iterations seconds final_rel_loss stale_calls
 * (stale_calls: rank 0's calls that returned a stale sum, MPI_T
 * coll_rdma_allreduce_stale_calls; -1 without coll/rdma).
 *
 * Usage: ssp_solver [-S LIST] [-r REPS] [-n COLS] [-m ROWS] [--step F]
 *                   [--target REL] [--slow-prob P] [--slow-max K]
 *   -S LIST  comma-separated staleness values (default 0,1,2,4); runs are
 *            interleaved: repetition i runs every S once, in rotated order
 *   --step F the step, as a fraction of 1/L (default 0.5)
 */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_EVERY 8

static int rank, size;

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* A standard normal from the hash of `key` (splitmix64, Box-Muller). */
static double gauss(uint64_t key)
{
    uint64_t z[2];
    for (int i = 0; i < 2; ++i) {
        uint64_t v = key * 2 + (uint64_t) i + 0x9E3779B97F4A7C15ull;
        v = (v ^ (v >> 30)) * 0xBF58476D1CE4E5B9ull;
        v = (v ^ (v >> 27)) * 0x94D049BB133111EBull;
        z[i] = v ^ (v >> 31);
    }
    return sqrt(-2.0 * log(((double) (z[0] >> 11) + 0.5) / 9007199254740992.0))
           * cos(6.283185307179586 * ((double) (z[1] >> 11) + 0.5) / 9007199254740992.0);
}

typedef struct {
    int m, n, lo, cols; /* rows, columns; this rank's columns [lo, lo + cols) */
    double *A;          /* m x cols, column-major (A_r) */
    double *b;          /* m */
} problem_t;

static void generate(problem_t *p, int m, int n)
{
    double *part = calloc(m, sizeof(double));

    p->m = m;
    p->n = n;
    p->lo = (int) ((long) n * rank / size);
    p->cols = (int) ((long) n * (rank + 1) / size) - p->lo;
    p->A = malloc(sizeof(double) * (size_t) m * p->cols);
    p->b = malloc(sizeof(double) * m);
    for (int j = 0; j < p->cols; ++j) {
        double xs = gauss(((uint64_t) 1 << 62) + (uint64_t) (p->lo + j));
        for (int i = 0; i < m; ++i) {
            double a = gauss((uint64_t) i * (uint64_t) n + (uint64_t) (p->lo + j)) / sqrt((double) m);
            p->A[(size_t) j * m + i] = a;
            part[i] += a * xs;
        }
    }
    MPI_Allreduce(part, p->b, m, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < m; ++i) {
        p->b[i] += 0.001 * gauss(((uint64_t) 1 << 61) + (uint64_t) i);
    }
    free(part);
}

/* out = A_r x_r (m) */
static void product(const problem_t *p, const double *x, double *out)
{
    memset(out, 0, sizeof(double) * p->m);
    for (int j = 0; j < p->cols; ++j) {
        const double *col = p->A + (size_t) j * p->m;
        for (int i = 0; i < p->m; ++i) {
            out[i] += col[i] * x[j];
        }
    }
}

/* x_r -= step * A_r^T (ax - b); returns ||ax - b||^2 / 2 */
static double descend(const problem_t *p, const double *ax, double step, double *x, double *res)
{
    double loss = 0;

    for (int i = 0; i < p->m; ++i) {
        res[i] = ax[i] - p->b[i];
        loss += res[i] * res[i];
    }
    for (int j = 0; j < p->cols; ++j) {
        const double *col = p->A + (size_t) j * p->m;
        double g = 0;
        for (int i = 0; i < p->m; ++i) {
            g += col[i] * res[i];
        }
        x[j] -= step * g;
    }
    return loss / 2;
}

/*
 * MPI_T counter coll_rdma_allreduce_stale_calls of comm: started by
 * stale_open (counters count from their handle's start), read by stale_read
 * (-1 without coll/rdma).
 */
typedef struct {
    MPI_T_pvar_session session;
    MPI_T_pvar_handle handle;
    int ok;
} stale_counter_t;

static void stale_open(stale_counter_t *c, MPI_Comm comm)
{
    /* Open MPI 6.0.0rc2's MPI_T_pvar_handle_alloc reads the bytes after the
     * MPI_Comm it is given as the communicator's flags: the handle lies in
     * zeroed memory (tests/mpi/test_ssp.c, pvar_read) */
    static union {
        MPI_Comm comm;
        char bytes[4096];
    } bound;
    int index, count;

    memset(&bound, 0, sizeof(bound));
    bound.comm = comm;

    c->ok = MPI_SUCCESS == MPI_T_pvar_get_index("coll_rdma_allreduce_stale_calls",
                                                MPI_T_PVAR_CLASS_COUNTER, &index)
            && MPI_SUCCESS == MPI_T_pvar_session_create(&c->session);
    if (c->ok && MPI_SUCCESS != MPI_T_pvar_handle_alloc(c->session, index, &bound.comm, &c->handle,
                                                        &count)) {
        MPI_T_pvar_session_free(&c->session);
        c->ok = 0;
    }
}

static long long stale_read(stale_counter_t *c)
{
    unsigned long long value = 0;

    if (!c->ok) {
        return -1;
    }
    MPI_T_pvar_read(c->session, c->handle, &value);
    MPI_T_pvar_handle_free(c->session, &c->handle);
    MPI_T_pvar_session_free(&c->session);
    return (long long) value;
}

typedef struct {
    double target, slow_prob, step;
    int slow_max, max_iter;
} params_t;

/* One solve with staleness s: iterations and seconds (slowest rank). */
static void solve(const problem_t *p, const params_t *q, int s, uint64_t seed, int *iters,
                  double *secs, double *rel, long long *stale)
{
    MPI_Comm solver, control;
    MPI_Info info;
    MPI_Request check = MPI_REQUEST_NULL;
    stale_counter_t counter;
    char value[16];
    int m = p->m, done_local = 0, done_all = 0, flag_in = 0, k;
    double *x = calloc(p->cols, sizeof(double)), *part = malloc(sizeof(double) * m);
    double *ax = calloc(m, sizeof(double)), *res = malloc(sizeof(double) * m);
    double loss0 = -1, loss, t0, t1;
    uint64_t noise = seed ^ ((uint64_t) (rank + 1) << 32);

    MPI_Info_create(&info);
    snprintf(value, sizeof(value), "%d", s);
    MPI_Info_set(info, "coll_rdma_allreduce_staleness", value);
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &solver);
    MPI_Info_free(&info);
    MPI_Comm_dup(MPI_COMM_WORLD, &control);
    stale_open(&counter, solver);
    /* past coll/rdma's warm-up on both, untimed */
    for (int i = 0; i < 40; ++i) {
        MPI_Allreduce(MPI_IN_PLACE, ax, m, MPI_DOUBLE, MPI_MAX, solver);
        MPI_Allreduce(MPI_IN_PLACE, &flag_in, 1, MPI_INT, MPI_MIN, control);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (k = 0; k < q->max_iter && !done_all; ++k) {
        int extra = 0;
        product(p, x, part);
        if ((double) (rnd(&noise) % 1000000) / 1e6 < q->slow_prob) {
            extra = 1 + (int) (rnd(&noise) % (uint64_t) q->slow_max);
        }
        for (int e = 0; e < extra; ++e) { /* the same work again: a slowed rank */
            product(p, x, res);
            descend(p, res, 0.0, x, res);
        }
        MPI_Allreduce(part, ax, m, MPI_DOUBLE, MPI_SUM, solver);
        loss = descend(p, ax, q->step, x, res);
        if (loss0 < 0) {
            loss0 = loss;
        }
        done_local = done_local || loss <= q->target * loss0;
        if (k % CHECK_EVERY == CHECK_EVERY - 1) {
            /* the check started CHECK_EVERY iterations ago ends here on every rank */
            if (MPI_REQUEST_NULL != check) {
                MPI_Wait(&check, MPI_STATUS_IGNORE);
                done_all = done_all || flag_in;
            }
            flag_in = done_local;
            MPI_Iallreduce(MPI_IN_PLACE, &flag_in, 1, MPI_INT, MPI_MIN, control, &check);
        }
    }
    t1 = MPI_Wtime() - t0;
    if (MPI_REQUEST_NULL != check) {
        MPI_Wait(&check, MPI_STATUS_IGNORE);
    }
    MPI_Allreduce(&t1, secs, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    /* the exact loss of the x reached */
    product(p, x, part);
    MPI_Allreduce(part, ax, m, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    *rel = descend(p, ax, 0.0, x, res) / loss0;
    MPI_Bcast(rel, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    *iters = k;
    *stale = stale_read(&counter);
    MPI_Comm_free(&solver);
    MPI_Comm_free(&control);
    free(x);
    free(part);
    free(ax);
    free(res);
}

int main(int argc, char **argv)
{
    int reps = 5, n = 640, m = 1024, nS = 0, S[16], provided;
    char list[256] = "0,1,2,4";
    double step = 0.5;
    params_t q = {.target = 1e-5, .slow_prob = 0.25, .slow_max = 3, .max_iter = 20000};
    problem_t p;

    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "-S") && i + 1 < argc) {
            snprintf(list, sizeof(list), "%s", argv[++i]);
        } else if (!strcmp(argv[i], "-r") && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "-n") && i + 1 < argc) {
            n = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "-m") && i + 1 < argc) {
            m = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--step") && i + 1 < argc) {
            step = atof(argv[++i]);
        } else if (!strcmp(argv[i], "--target") && i + 1 < argc) {
            q.target = atof(argv[++i]);
        } else if (!strcmp(argv[i], "--slow-prob") && i + 1 < argc) {
            q.slow_prob = atof(argv[++i]);
        } else if (!strcmp(argv[i], "--slow-max") && i + 1 < argc) {
            q.slow_max = atoi(argv[++i]);
        } else {
            fprintf(stderr, "ssp_solver: unknown option %s (see the header of bench/ssp_solver.c)\n",
                    argv[i]);
            return 2;
        }
    }
    for (char *tok = strtok(list, ","); tok && nS < 16; tok = strtok(NULL, ",")) {
        S[nS++] = atoi(tok);
    }
    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    generate(&p, m, n);
    /* L = ||A||^2 <= (1 + sqrt(n / m))^2 for entries of variance 1/m */
    q.step = step / pow(1.0 + sqrt((double) n / m), 2);
    if (0 == rank) {
        printf("# ssp_solver: %d ranks, A %d x %d, step %.2f/L, target %.1e, slow %.2f x up to "
               "%d\n", size, m, n, step, q.target, q.slow_prob, q.slow_max);
        printf("# S iterations seconds final_rel_loss stale_calls\n");
    }
    for (int rep = 0; rep < reps; ++rep) {
        for (int i = 0; i < nS; ++i) {
            int s = S[(i + rep) % nS], iters;
            double secs, rel;
            long long stale;
            solve(&p, &q, s, 1000003u * (uint64_t) (rep + 1), &iters, &secs, &rel, &stale);
            if (0 == rank) {
                printf("%d %d %.4f %.3e %lld\n", s, iters, secs, rel, stale);
                fflush(stdout);
            }
        }
    }
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}
