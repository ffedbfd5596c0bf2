/*
 * Robustness tests of coll/rdma (docs/reliability.md): programs that check
 * their results against references computed locally, whatever component
 * serves the calls.  Run by tests/robust/run_robust_tests.sh.
 *
 * Usage: test_robust SECTION [options]
 *   mix     a stream of mixed collectives (barrier, bcast, allreduce,
 *           allgather, alltoall, reduce) on MPI_COMM_WORLD and on a
 *           sub-communicator with reversed ranks, random roots, sizes
 *           below and above the thresholds, random skew; prints
 *           "mix: calls=N us_per_call=T"
 *       --calls N        (default 10000)
 *       --no-skew        no random delays (for timing)
 *       --kill-rank R --kill-at I   rank R sends itself SIGKILL before call I
 *   burst   --calls bcasts from rank 0 of MPI_COMM_WORLD, the last rank late
 *           every 5th call (slot credits)
 *       --count N        int64s per bcast, 1 to 8 (default 8: 64 bytes, the
 *                        segment ring; 7 or fewer: the read bcast's small ring)
 *   churn   communicator churn: --cycles N MPI_Comm_dup/MPI_Comm_free cycles
 *           with a collective on each (default 10000), then --alive N
 *           communicators at once (default 500), each used, then freed;
 *           checks that /dev/shm mappings, open files and resident memory
 *           return to their level after the warm-up
 *   edge    edge inputs: count 0, MPI_IN_PLACE, every root, datatypes with a
 *           lower bound or extent different from their size, absolute
 *           addresses with MPI_BOTTOM, MPI_COMM_SELF, an intercommunicator,
 *           unaligned buffers in the middle of a large allocation
 *   fdpool  a communicator's window set up and freed (kept for reuse), then
 *           rank 1 takes every file descriptor but --leave K (default 0)
 *           and a new communicator makes 20 checked allreduces on a window
 *           taken from the pool or none; --late: rank 1 takes them after its
 *           set-up call (an MPI_Iallreduce), before its wait.  Run with a
 *           small RLIMIT_NOFILE and coll_rdma_window_setup_calls 0
 *   persistent-free  --cycles N (e.g. 5) cycles of MPI_Comm_dup, a checked
 *           persistent allgather started once, MPI_Request_free and
 *           MPI_Comm_free (run without coll/rdma: Open MPI's own leak)
 *   --seed S  seed of the shared random stream
 *
 * Every mismatch prints "FAIL rank R ..." and ends the job with MPI_Abort;
 * on success rank 0 prints "test_robust OK: SECTION ...".
 *
 * This file: state, helpers, main; the sections are in the files
 * test_robust.h lists.
 */
#include "test_robust.h"

int wrank, wsize;
const char *cur = "init";
uint64_t opt_seed = 0x70b05717ULL;
long opt_calls = 10000, opt_cycles = 10000, opt_alive = 500, opt_count = 8;
int opt_skew = 1, opt_kill_rank = -1;
long opt_kill_at = -1;
long opt_leave = 0;
int opt_late = 0;
static long n_checked;

/* ------------------------------------------------------------------ helpers */

static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* Input value of element i of rank r in call `tag`. */
uint64_t val(uint64_t tag, int r, size_t i)
{
    return mix64(mix64(mix64(opt_seed ^ tag) + (uint64_t) r) + i);
}

static uint64_t rng_next(rng_t *g)
{
    g->s ^= g->s >> 12;
    g->s ^= g->s << 25;
    g->s ^= g->s >> 27;
    return g->s * 0x2545F4914F6CDD1DULL;
}

uint64_t rng_below(rng_t *g, uint64_t n)
{
    return n ? rng_next(g) % n : 0;
}

double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

static void die(void)
{
    fflush(stdout);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
    exit(3);
}

void fail(const char *fmt, ...)
{
    va_list ap;
    printf("FAIL rank %d test %s: ", wrank, cur);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    die();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (NULL == p) {
        fail("out of memory (%zu bytes)", n);
    }
    return p;
}

/* Compare `n` int64 elements; first mismatch fails. */
void expect_i64(const char *what, const int64_t *got, const int64_t *want, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        if (got[i] != want[i]) {
            fail("%s: element %zu of %zu: expected %" PRId64 " got %" PRId64, what, i, n, want[i],
                 got[i]);
        }
    }
    ++n_checked;
}

void expect_bytes(const char *what, const void *got, const void *want, size_t n)
{
    const unsigned char *g = got, *w = want;
    for (size_t i = 0; i < n; ++i) {
        if (g[i] != w[i]) {
            fail("%s: byte %zu of %zu: expected 0x%02x got 0x%02x", what, i, n, w[i], g[i]);
        }
    }
    ++n_checked;
}

/* ------------------------------------------------------------------ main */

int main(int argc, char **argv)
{
    const char *section = argc > 1 ? argv[1] : "";

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (int i = 2; i < argc; ++i) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : "0";
        if (!strcmp(o, "--calls")) {
            opt_calls = atol(v), ++i;
        } else if (!strcmp(o, "--count")) {
            opt_count = atol(v) < 1 ? 1 : atol(v) > 8 ? 8 : atol(v), ++i;
        } else if (!strcmp(o, "--cycles")) {
            opt_cycles = atol(v), ++i;
        } else if (!strcmp(o, "--alive")) {
            opt_alive = atol(v), ++i;
        } else if (!strcmp(o, "--seed")) {
            opt_seed = strtoull(v, NULL, 0), ++i;
        } else if (!strcmp(o, "--kill-rank")) {
            opt_kill_rank = atoi(v), ++i;
        } else if (!strcmp(o, "--kill-at")) {
            opt_kill_at = atol(v), ++i;
        } else if (!strcmp(o, "--no-skew")) {
            opt_skew = 0;
        } else if (!strcmp(o, "--leave")) {
            opt_leave = atol(v), ++i;
        } else if (!strcmp(o, "--late")) {
            opt_late = 1;
        } else {
            if (0 == wrank) {
                fprintf(stderr, "unknown option %s\n", o);
            }
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (!strcmp(section, "mix")) {
        run_mix();
    } else if (!strcmp(section, "burst")) {
        run_burst();
    } else if (!strcmp(section, "churn")) {
        run_churn();
    } else if (!strcmp(section, "edge")) {
        run_edge();
    } else if (!strcmp(section, "persistent-free")) {
        run_persistent_free();
    } else if (!strcmp(section, "fdpool")) {
        run_fdpool();
    } else {
        if (0 == wrank) {
            fprintf(stderr, "usage: test_robust mix|burst|churn|edge|persistent-free|fdpool "
                            "[options]\n");
        }
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    {
        long total = n_checked;
        MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (0 == wrank) {
            printf("test_robust OK: %s np=%d checks=%ld\n", section, wsize, total);
        }
    }
    MPI_Finalize();
    return 0;
}
