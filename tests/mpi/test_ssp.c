/*
 * MPI_Allreduce with bounded staleness (coll/rdma's info key
 * coll_rdma_allreduce_staleness, docs/design.md "Bounded staleness").
 *
 * Every contribution encodes its iteration: rank r's input at call t (t = 1,
 * 2, ... on that communicator) is zero except in block r, whose words are
 * t * (j + 1), so the sum's block r tells which of rank r's contributions the
 * result holds, and whether all its words came from that one contribution (a
 * torn read would mix two).  Checked at every call, under random delays that
 * make some ranks fall behind:
 *   - block `rank` is t (the caller's own contribution of this call);
 *   - every other block is from an iteration in [t - S, t + S], never before 1;
 *   - with the component (--expect), the MPI_T performance variable
 *     coll_rdma_allreduce_stale_age equals t minus the oldest block.
 *
 * Usage: test_ssp SECTIONS [--staleness S] [--calls N] [--threads T] [--expect]
 *                  [--expect-stale] [--ask-rank0 S0]
 *   SECTIONS, comma-separated:
 *     bound     two communicators asking for S (long long SUM, blocks of 512
 *               words, every third call MPI_IN_PLACE, others every fifth an
 *               MPI_Iallreduce; double SUM, blocks of 3), their calls interleaved
 *     exact     one communicator asking for S (rank 0 for S0 with --ask-rank0):
 *               every block must be t (S = 0, ranks that disagree, or calls
 *               above coll_rdma_allreduce_ssp_max_bytes)
 *     alternate a communicator asking for S whose calls alternate two counts:
 *               every block must be t (a call of another shape is exact)
 *     userop    a user-defined op on a communicator asking for S: exact
 *               results (never served stale)
 *     info      the key from MPI_Comm_dup_with_info and (Open MPI 5) from an
 *               MPI_Comm_set_info before the first collective takes effect, a
 *               later one does not
 *               (MPI_T coll_rdma_allreduce_staleness, with --expect), and the
 *               bound still holds
 *     threads   --threads T threads (MPI_THREAD_MULTIPLE), each running
 *               `bound` on communicators of its own
 *   --expect-stale: some call on some rank returned a stale block (with
 *   random delays over thousands of calls; fails if staleness never showed).
 * Prints "test_ssp OK calls=N stale=K" (K summed over ranks) and exits 0.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KEY "coll_rdma_allreduce_staleness"
#define WORDS 512

static int rank, size, staleness = 2, calls = 2000, nthreads = 3, ask_rank0 = -1;
static int expect, expect_stale;
static volatile int failures;
static long long stale_returns;

static void fail(const char *what, int call, long long expected, long long got)
{
    fprintf(stderr, "FAIL rank %d %s call %d expected %lld got %lld\n", rank, what, call, expected,
            got);
    __atomic_fetch_add(&failures, 1, __ATOMIC_RELAXED);
}

/* A duplicate of MPI_COMM_WORLD that asks for staleness s (no key: s < 0). */
static MPI_Comm ssp_comm(int s)
{
    MPI_Comm comm;
    MPI_Info info;
    char value[16];

    MPI_Info_create(&info);
    if (s >= 0) {
        snprintf(value, sizeof(value), "%d", s);
        MPI_Info_set(info, KEY, value);
    }
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &comm);
    MPI_Info_free(&info);
    return comm;
}

/* xorshift: each rank (and thread) its own sequence */
static unsigned next_random(unsigned *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 17;
    *state ^= *state << 5;
    return *state;
}

/* Random skew: now and then a rank sleeps, one rank at a time more often. */
static void skew(unsigned *state, int t)
{
    unsigned r = next_random(state);

    if (0 == r % 7 || (t / 50) % size == rank) {
        usleep(r % 5 == 0 ? 300 + r % 700 : r % 60);
    }
}

/* The component's MPI_T variable `name` (class LEVEL) for comm, or -1 without it. */
static long long pvar_read(const char *name, MPI_Comm comm)
{
    unsigned long long value = 0;
    MPI_T_pvar_session session;
    MPI_T_pvar_handle handle;
    int index, count, rc = MPI_ERR_OTHER;

    if (MPI_SUCCESS != MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_LEVEL, &index)
        || MPI_SUCCESS != MPI_T_pvar_session_create(&session)) {
        return -1;
    }
    /* Open MPI 6.0.0rc2's MPI_T_pvar_handle_alloc reads the bytes after the
     * MPI_Comm it is given as the communicator's flags (ompit_obj_invalid()
     * takes the pointer to the handle for the communicator): the handle lies
     * in zeroed memory, so that they say "valid" (harmless elsewhere) */
    static union {
        MPI_Comm comm;
        char bytes[4096];
    } bound;
    memset(&bound, 0, sizeof(bound));
    bound.comm = comm;
    if (MPI_SUCCESS == MPI_T_pvar_handle_alloc(session, index, &bound.comm, &handle, &count)) {
        rc = MPI_T_pvar_read(session, handle, &value);
        MPI_T_pvar_handle_free(session, &handle);
    }
    MPI_T_pvar_session_free(&session);
    return MPI_SUCCESS == rc ? (long long) value : -1;
}

/*
 * Check block r of call t (words per block `w`, values t_r * (j + 1)) against
 * bound s (s <= 0: exact): every other rank's block of an iteration in
 * [t - s, t], this rank's of t; the oldest iteration into *oldest.
 */
static void check_blocks(const char *what, int t, int s, const long long *out, int w,
                         long long *oldest)
{
    *oldest = t;
    for (int r = 0; r < size; ++r) {
        long long c = out[(size_t) r * w];
        for (int j = 1; j < w; ++j) {
            if (out[(size_t) r * w + j] != c * (j + 1)) {
                fail(what, t, c * (j + 1), out[(size_t) r * w + j]); /* torn */
                return;
            }
        }
        /* the guarantee is [t - S, t]: never a contribution newer than the
         * caller's own (docs/design.md, "Bounded staleness") */
        if (r == rank || s <= 0 ? c != t : (c < t - s || c > t || c < 1)) {
            fail(what, t, t, c);
            return;
        }
        *oldest = c < *oldest ? c : *oldest;
    }
}

static void fill(long long *in, int w, int t)
{
    memset(in, 0, sizeof(*in) * (size_t) w * size);
    for (int j = 0; j < w; ++j) {
        in[(size_t) rank * w + j] = (long long) t * (j + 1);
    }
}

/*
 * `calls` calls on communicators a and b (both asking for s); stale returns
 * into *stale; the pvar checked where `pvar` (not from threads).
 */
static void bound(MPI_Comm a, MPI_Comm b, int s, unsigned seed, int pvar, int words,
                  long long *stale)
{
    long long *in = malloc(sizeof(*in) * words * size), *out = malloc(sizeof(*out) * words * size);
    double din[3 * 64], dout[3 * 64];
    long long oldest, age, dcheck[3 * 64];
    unsigned state = seed;

    for (int t = 1; t <= calls; ++t) {
        skew(&state, t);
        fill(in, words, t);
        if (0 == t % 3) {
            memcpy(out, in, sizeof(*in) * words * size);
            MPI_Allreduce(MPI_IN_PLACE, out, words * size, MPI_LONG_LONG, MPI_SUM, a);
        } else if (0 == t % 5) {
            MPI_Request req;
            MPI_Iallreduce(in, out, words * size, MPI_LONG_LONG, MPI_SUM, a, &req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
            MPI_Allreduce(in, out, words * size, MPI_LONG_LONG, MPI_SUM, a);
        }
        check_blocks("bound-ll", t, s, out, words, &oldest);
        *stale += oldest < t;
        if (expect && pvar && t > 16
            && (age = pvar_read("coll_rdma_allreduce_stale_age", a)) != t - oldest) {
            fail("bound-pvar-age", t, t - oldest, age);
        }
        for (int i = 0; i < 3 * size; ++i) {
            din[i] = i / 3 == rank ? (double) t * (i % 3 + 1) : 0.0;
        }
        MPI_Allreduce(din, dout, 3 * size, MPI_DOUBLE, MPI_SUM, b);
        for (int i = 0; i < 3 * size; ++i) {
            dcheck[i] = (long long) dout[i];
        }
        check_blocks("bound-double", t, s, dcheck, 3, &oldest);
        *stale += oldest < t;
    }
    free(in);
    free(out);
}

/* bound() on two new communicators asking for s */
static void bound_new(int s, unsigned seed)
{
    MPI_Comm a = ssp_comm(s), b = ssp_comm(s);
    long long stale = 0;

    bound(a, b, s, seed, 1, WORDS, &stale);
    stale_returns += stale;
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);
}

/* Calls that must be exact: every block of call t is t. */
static void exact(const char *what, MPI_Comm comm, int alternate, MPI_Op op)
{
    long long *in = malloc(sizeof(*in) * WORDS * size), *out = malloc(sizeof(*out) * WORDS * size);
    long long oldest;
    unsigned state = 12345u + (unsigned) rank * 7919u;

    for (int t = 1; t <= calls; ++t) {
        int w = alternate && t % 2 ? WORDS / 2 : WORDS;
        skew(&state, t);
        fill(in, w, t);
        MPI_Allreduce(in, out, w * size, MPI_LONG_LONG, op, comm);
        check_blocks(what, t, 0, out, w, &oldest);
    }
    free(in);
    free(out);
}

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    for (int i = 0; i < *len; ++i) {
        ((long long *) inout)[i] += ((long long *) in)[i];
    }
}

/* The staleness in force (MPI_T) must be `want` on comm, once past the warm-up. */
static void expect_staleness(const char *what, MPI_Comm comm, int want)
{
    long long x = 1, y, got;

    for (int i = 0; i < 32; ++i) { /* past the warm-up: the window is set up */
        MPI_Allreduce(&x, &y, 1, MPI_LONG_LONG, MPI_SUM, comm);
    }
    got = pvar_read("coll_rdma_allreduce_staleness", comm);
    if (expect && got != want) {
        fail(what, 0, want, got);
    }
}

/*
 * The info key takes effect from MPI_Comm_dup_with_info and from an
 * MPI_Comm_set_info before the first collective; a later MPI_Comm_set_info
 * is ignored: the staleness in force stays, and so does the bound.
 */
static void info_section(int s)
{
    MPI_Comm a = ssp_comm(s), b, c;
    MPI_Info info;
    char value[16];
    long long stale = 0;

    expect_staleness("info-dup-with-info", a, s);
    snprintf(value, sizeof(value), "%d", s + 1);
    MPI_Info_create(&info);
    MPI_Info_set(info, KEY, value);
    MPI_Comm_set_info(a, info);
    expect_staleness("info-set-later", a, s);
    MPI_Comm_dup(MPI_COMM_WORLD, &b);
    MPI_Comm_set_info(b, info); /* before b's first collective: s + 1 */
#if !defined(OMPI_MAJOR_VERSION) || OMPI_MAJOR_VERSION >= 5
    expect_staleness("info-set-before", b, s + 1);
#else
    /* Open MPI 4.1's MPI_Comm_set_info drops the keys no component subscribed
     * to, and its subscriptions truncate keys to 27 characters: exact */
    expect_staleness("info-set-before-4.1", b, 0);
#endif
    MPI_Info_free(&info);
    c = ssp_comm(s);
    bound(a, c, s, 99u + (unsigned) rank, 0, WORDS, &stale);
    stale_returns += stale;
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);
    MPI_Comm_free(&c);
}

typedef struct {
    MPI_Comm a, b;
    unsigned seed;
} job_t;

static void *thread_main(void *arg)
{
    job_t *job = arg;
    long long stale = 0;

    bound(job->a, job->b, staleness, job->seed, 0, WORDS, &stale);
    __atomic_fetch_add(&stale_returns, stale, __ATOMIC_RELAXED);
    return NULL;
}

/* Communicators created by the main thread, in the same order on every rank
 * (creating them from the threads would be concurrent collectives on
 * MPI_COMM_WORLD); then every thread runs bound() on its own two. */
static void threads_section(void)
{
    pthread_t tid[16];
    job_t jobs[16];
    int n = nthreads < 16 ? nthreads : 16;

    for (int i = 0; i < n; ++i) {
        jobs[i].a = ssp_comm(staleness);
        jobs[i].b = ssp_comm(staleness);
        jobs[i].seed = 777u * (unsigned) (i + 1) + (unsigned) rank * 31u + 1u;
    }
    for (int i = 0; i < n; ++i) {
        pthread_create(&tid[i], NULL, thread_main, &jobs[i]);
    }
    for (int i = 0; i < n; ++i) {
        pthread_join(tid[i], NULL);
    }
    for (int i = 0; i < n; ++i) {
        MPI_Comm_free(&jobs[i].a);
        MPI_Comm_free(&jobs[i].b);
    }
}

int main(int argc, char **argv)
{
    const char *sections = argc > 1 ? argv[1] : "bound";
    int provided, tprovided, fails, ask;
    long long total;

    for (int i = 2; i < argc; ++i) {
        if (0 == strcmp(argv[i], "--staleness") && i + 1 < argc) {
            staleness = atoi(argv[++i]);
        } else if (0 == strcmp(argv[i], "--calls") && i + 1 < argc) {
            calls = atoi(argv[++i]);
        } else if (0 == strcmp(argv[i], "--threads") && i + 1 < argc) {
            nthreads = atoi(argv[++i]);
        } else if (0 == strcmp(argv[i], "--ask-rank0") && i + 1 < argc) {
            ask_rank0 = atoi(argv[++i]);
        } else if (0 == strcmp(argv[i], "--expect")) {
            expect = 1;
        } else if (0 == strcmp(argv[i], "--expect-stale")) {
            expect_stale = 1;
        }
    }
    MPI_Init_thread(&argc, &argv, strstr(sections, "threads") ? MPI_THREAD_MULTIPLE
                                                               : MPI_THREAD_SINGLE, &provided);
    /* not with threads: Open MPI 4.1.4's MPI_T_init_thread(MPI_THREAD_SINGLE)
     * turns its thread safety off for the whole process (ob1 then crashes in
     * the threads' allreduces); the pvars are read by the other sections only */
    if (!strstr(sections, "threads")) {
        MPI_T_init_thread(MPI_THREAD_SINGLE, &tprovided);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ask = 0 == rank && ask_rank0 >= 0 ? ask_rank0 : staleness;

    if (strstr(sections, "bound")) {
        bound_new(staleness, 2463534242u + (unsigned) rank * 1000003u);
    }
    if (strstr(sections, "exact")) {
        MPI_Comm comm = ssp_comm(ask);
        exact("exact", comm, 0, MPI_SUM);
        MPI_Comm_free(&comm);
    }
    if (strstr(sections, "alternate")) {
        MPI_Comm comm = ssp_comm(staleness);
        exact("alternate", comm, 1, MPI_SUM);
        MPI_Comm_free(&comm);
    }
    if (strstr(sections, "userop")) {
        MPI_Comm comm = ssp_comm(staleness);
        MPI_Op op;
        MPI_Op_create(user_sum, 1, &op);
        exact("userop", comm, 0, op);
        MPI_Op_free(&op);
        MPI_Comm_free(&comm);
    }
    if (strstr(sections, "info")) {
        info_section(staleness);
    }
    if (strstr(sections, "threads")) {
        if (MPI_THREAD_MULTIPLE != provided) {
            fprintf(stderr, "FAIL rank %d: MPI_THREAD_MULTIPLE not provided\n", rank);
            __atomic_fetch_add(&failures, 1, __ATOMIC_RELAXED);
        } else {
            threads_section();
        }
    }

    MPI_Allreduce((const void *) &failures, &fails, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&stale_returns, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (0 == fails && expect_stale && 0 == total) {
        if (0 == rank) {
            fprintf(stderr, "FAIL no call returned a stale block (staleness never showed)\n");
        }
        fails = 1;
    }
    if (0 == rank && 0 == fails) {
        printf("test_ssp OK calls=%d stale=%lld\n", calls, total);
    }
    if (!strstr(sections, "threads")) {
        MPI_T_finalize();
    }
    MPI_Finalize();
    return 0 == fails ? 0 : 1;
}
