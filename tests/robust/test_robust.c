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
 *   churn   communicator churn: --cycles N MPI_Comm_dup/MPI_Comm_free cycles
 *           with a collective on each (default 10000), then --alive N
 *           communicators at once (default 500), each used, then freed;
 *           checks that /dev/shm mappings, open files and resident memory
 *           return to their level after the warm-up
 *   edge    edge inputs: count 0, MPI_IN_PLACE, every root, datatypes with a
 *           lower bound or extent different from their size, absolute
 *           addresses with MPI_BOTTOM, MPI_COMM_SELF, an intercommunicator,
 *           unaligned buffers in the middle of a large allocation
 *   --seed S  seed of the shared random stream
 *
 * Every mismatch prints "FAIL rank R ..." and ends the job with MPI_Abort;
 * on success rank 0 prints "test_robust OK: SECTION ...".
 */
#define _GNU_SOURCE
#include <mpi.h>

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int wrank, wsize;
static const char *cur = "init";
static uint64_t opt_seed = 0x70b05717ULL;
static long opt_calls = 10000, opt_cycles = 10000, opt_alive = 500;
static int opt_skew = 1, opt_kill_rank = -1;
static long opt_kill_at = -1;
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
static uint64_t val(uint64_t tag, int r, size_t i)
{
    return mix64(mix64(mix64(opt_seed ^ tag) + (uint64_t) r) + i);
}

typedef struct {
    uint64_t s;
} rng_t;

static uint64_t rng_next(rng_t *g)
{
    g->s ^= g->s >> 12;
    g->s ^= g->s << 25;
    g->s ^= g->s >> 27;
    return g->s * 0x2545F4914F6CDD1DULL;
}

static uint64_t rng_below(rng_t *g, uint64_t n)
{
    return n ? rng_next(g) % n : 0;
}

static double now_s(void)
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

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
    va_list ap;
    printf("FAIL rank %d test %s: ", wrank, cur);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    die();
}

#define CHECK_MPI(call)                                                                  \
    do {                                                                                 \
        int rc_ = (call);                                                                \
        if (MPI_SUCCESS != rc_) {                                                        \
            fail("%s returned %d at line %d", #call, rc_, __LINE__);                      \
        }                                                                                \
    } while (0)

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (NULL == p) {
        fail("out of memory (%zu bytes)", n);
    }
    return p;
}

/* Compare `n` int64 elements; first mismatch fails. */
static void expect_i64(const char *what, const int64_t *got, const int64_t *want, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        if (got[i] != want[i]) {
            fail("%s: element %zu of %zu: expected %" PRId64 " got %" PRId64, what, i, n, want[i],
                 got[i]);
        }
    }
    ++n_checked;
}

static void expect_bytes(const char *what, const void *got, const void *want, size_t n)
{
    const unsigned char *g = got, *w = want;
    for (size_t i = 0; i < n; ++i) {
        if (g[i] != w[i]) {
            fail("%s: byte %zu of %zu: expected 0x%02x got 0x%02x", what, i, n, w[i], g[i]);
        }
    }
    ++n_checked;
}

/* ------------------------------------------------------------------ mix */

/* Largest message of the stream: above the default 16 KiB thresholds. */
#define MIX_MAX_BYTES (24 * 1024)

typedef struct {
    MPI_Comm comm;
    int rank, size;
    int *world_of; /* world rank of each rank of comm, for references */
} comm_t;

static void comm_init(comm_t *c, MPI_Comm comm)
{
    int me = wrank;
    c->comm = comm;
    MPI_Comm_rank(comm, &c->rank);
    MPI_Comm_size(comm, &c->size);
    c->world_of = xmalloc(sizeof(int) * c->size);
    CHECK_MPI(MPI_Allgather(&me, 1, MPI_INT, c->world_of, 1, MPI_INT, comm));
}

/* Element i of comm rank r's input in call tag, as a small signed value (so
 * sums of many ranks stay exact in double too). */
static int64_t in_small(uint64_t tag, const comm_t *c, int r, size_t i)
{
    return (int64_t) (val(tag, c->world_of[r], i) % 2001) - 1000;
}

/*
 * One collective of kind `kind` (0..5) on c with shared random choices
 * drawn from g; checks its result.  Buffers hold MIX_MAX_BYTES * size.
 */
static void mix_call(comm_t *c, rng_t *g, uint64_t tag, int kind, char *a, char *b, int64_t *ref)
{
    int root = (int) rng_below(g, (uint64_t) c->size);
    /* counts of 8-byte elements: mostly small, some at and above 16 KiB */
    static const int counts[] = {1, 2, 7, 64, 300, 1024, 2048, 3072};
    int count = counts[rng_below(g, sizeof(counts) / sizeof(counts[0]))];
    int in_place = (int) rng_below(g, 2);
    int64_t *sa = (int64_t *) a, *rb = (int64_t *) b;

    switch (kind) {
    case 0:
        cur = "mix-barrier";
        CHECK_MPI(MPI_Barrier(c->comm));
        break;
    case 1:
        cur = "mix-bcast";
        for (int i = 0; i < count; ++i) {
            ref[i] = (int64_t) val(tag, c->world_of[root], i);
            sa[i] = c->rank == root ? ref[i] : -1;
        }
        CHECK_MPI(MPI_Bcast(sa, count, MPI_INT64_T, root, c->comm));
        expect_i64("bcast", sa, ref, count);
        break;
    case 2: {
        /* SUM of int64, MAX of int64 or SUM of integer-valued doubles */
        int op = (int) rng_below(g, 3);
        cur = "mix-allreduce";
        for (int i = 0; i < count; ++i) {
            ref[i] = op == 1 ? INT64_MIN : 0;
            for (int r = 0; r < c->size; ++r) {
                int64_t v = in_small(tag, c, r, i);
                ref[i] = op == 1 ? (v > ref[i] ? v : ref[i]) : ref[i] + v;
            }
        }
        if (op == 2) {
            double *sd = (double *) a, *rd = (double *) b;
            for (int i = 0; i < count; ++i) {
                rd[i] = sd[i] = (double) in_small(tag, c, c->rank, i);
            }
            CHECK_MPI(MPI_Allreduce(in_place ? MPI_IN_PLACE : (void *) sd, rd, count, MPI_DOUBLE,
                                    MPI_SUM, c->comm));
            for (int i = 0; i < count; ++i) {
                rb[i] = (int64_t) rd[i];
            }
        } else {
            for (int i = 0; i < count; ++i) {
                rb[i] = sa[i] = in_small(tag, c, c->rank, i);
            }
            CHECK_MPI(MPI_Allreduce(in_place ? MPI_IN_PLACE : (void *) sa, rb, count, MPI_INT64_T,
                                    op == 1 ? MPI_MAX : MPI_SUM, c->comm));
        }
        expect_i64("allreduce", rb, ref, count);
        break;
    }
    case 3: {
        int n = count / c->size + 1;
        cur = "mix-allgather";
        for (int r = 0; r < c->size; ++r) {
            for (int i = 0; i < n; ++i) {
                ref[(size_t) r * n + i] = in_small(tag, c, r, i);
                rb[(size_t) r * n + i] = r == c->rank ? ref[(size_t) r * n + i] : -7;
            }
        }
        for (int i = 0; i < n; ++i) {
            sa[i] = in_small(tag, c, c->rank, i);
        }
        CHECK_MPI(MPI_Allgather(in_place ? MPI_IN_PLACE : (void *) sa, n, MPI_INT64_T, rb, n,
                                MPI_INT64_T, c->comm));
        expect_i64("allgather", rb, ref, (size_t) n * c->size);
        break;
    }
    case 4: {
        int n = count / c->size + 1;
        cur = "mix-alltoall";
        /* block for rank d from rank s: element i is in_small(tag + d, s, i) */
        for (int d = 0; d < c->size; ++d) {
            for (int i = 0; i < n; ++i) {
                sa[(size_t) d * n + i] = in_small(tag + (uint64_t) d, c, c->rank, i);
                ref[(size_t) d * n + i] = in_small(tag + (uint64_t) c->rank, c, d, i);
            }
        }
        if (in_place) {
            memcpy(rb, sa, sizeof(int64_t) * n * c->size);
        }
        CHECK_MPI(MPI_Alltoall(in_place ? MPI_IN_PLACE : (void *) sa, n, MPI_INT64_T, rb, n,
                               MPI_INT64_T, c->comm));
        expect_i64("alltoall", rb, ref, (size_t) n * c->size);
        break;
    }
    default: {
        cur = "mix-reduce";
        for (int i = 0; i < count; ++i) {
            ref[i] = 0;
            for (int r = 0; r < c->size; ++r) {
                ref[i] += in_small(tag, c, r, i);
            }
            rb[i] = sa[i] = in_small(tag, c, c->rank, i);
        }
        CHECK_MPI(MPI_Reduce(in_place && c->rank == root ? MPI_IN_PLACE : (void *) sa, rb, count,
                             MPI_INT64_T, MPI_SUM, root, c->comm));
        if (c->rank == root) {
            expect_i64("reduce", rb, ref, count);
        }
        break;
    }
    }
}

static void run_mix(void)
{
    comm_t world, rev;
    MPI_Comm revcomm;
    rng_t g = {opt_seed | 1};
    size_t bytes = (size_t) MIX_MAX_BYTES * wsize + 64;
    char *a = xmalloc(bytes), *b = xmalloc(bytes);
    int64_t *ref = xmalloc(bytes);
    double t0, t;

    comm_init(&world, MPI_COMM_WORLD);
    /* ranks in reverse order: rank 0 of it is the last world rank */
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - wrank, &revcomm));
    comm_init(&rev, revcomm);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    t0 = now_s();
    for (long i = 0; i < opt_calls; ++i) {
        /* kinds: barrier, bcast and allreduce (served today) more often */
        static const int kinds[] = {0, 0, 1, 1, 1, 2, 2, 2, 2, 3, 4, 5};
        int kind = kinds[rng_below(&g, sizeof(kinds) / sizeof(kinds[0]))];
        comm_t *c = rng_below(&g, 4) == 0 ? &rev : &world;
        int late = (int) rng_below(&g, (uint64_t) wsize * 8);
        long delay_us = (long) rng_below(&g, 50);

        if (i == opt_kill_at && wrank == opt_kill_rank) {
            printf("rank %d: SIGKILL to itself before call %ld\n", wrank, i);
            fflush(stdout);
            raise(SIGKILL);
        }
        if (opt_skew && late == wrank) {
            /* one rank late now and then: slots, parity and credits under skew */
            struct timespec ts = {0, delay_us * 1000};
            nanosleep(&ts, NULL);
        }
        mix_call(c, &g, (uint64_t) i * 64, kind, a, b, ref);
    }
    t = now_s() - t0;
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    if (0 == wrank) {
        printf("mix: calls=%ld us_per_call=%.2f np=%d\n", opt_calls, 1e6 * t / (double) opt_calls,
               wsize);
    }
    MPI_Comm_free(&revcomm);
    free(world.world_of);
    free(rev.world_of);
    free(a);
    free(b);
    free(ref);
}

/* Back-to-back bcasts from one root with the last rank often late: the
 * root runs ahead as far as the slot credits let it (around a wrap of the
 * sequence numbers with coll_rdma_debug_seq_start). */
static void run_burst(void)
{
    int64_t v[8], want[8];

    cur = "burst-bcast";
    for (long c = 0; c < opt_calls; ++c) {
        for (int i = 0; i < 8; ++i) {
            want[i] = (int64_t) val((uint64_t) c, 0, i);
            v[i] = 0 == wrank ? want[i] : -1;
        }
        if (wrank == wsize - 1 && c % 5 == 0) {
            struct timespec ts = {0, 200000};
            nanosleep(&ts, NULL);
        }
        CHECK_MPI(MPI_Bcast(v, 8, MPI_INT64_T, 0, MPI_COMM_WORLD));
        expect_i64("bcast", v, want, 8);
    }
}

/* ------------------------------------------------------------------ churn */

typedef struct {
    long shm_maps;      /* mappings of /dev/shm files (deleted or not) */
    long shm_kib;       /* their size */
    long fds;           /* open file descriptors */
    long rss_kib;       /* resident set */
} usage_t;

static usage_t usage_now(void)
{
    usage_t u = {0, 0, 0, 0};
    char line[1024];
    FILE *f = fopen("/proc/self/maps", "r");
    DIR *d;
    struct dirent *e;

    while (f && fgets(line, sizeof(line), f)) {
        unsigned long lo, hi;
        if (strstr(line, "/dev/shm/") && 2 == sscanf(line, "%lx-%lx", &lo, &hi)) {
            ++u.shm_maps;
            u.shm_kib += (long) ((hi - lo) / 1024);
        }
    }
    if (f) {
        fclose(f);
    }
    f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof(line), f)) {
        sscanf(line, "VmRSS: %ld", &u.rss_kib);
    }
    if (f) {
        fclose(f);
    }
    if (NULL != (d = opendir("/proc/self/fd"))) {
        while (NULL != (e = readdir(d))) {
            u.fds += e->d_name[0] != '.';
        }
        closedir(d);
    }
    return u;
}

static void usage_print(const char *when, usage_t u)
{
    printf("rank %d %s: shm_maps=%ld shm_kib=%ld fds=%ld rss_kib=%ld\n", wrank, when, u.shm_maps,
           u.shm_kib, u.fds, u.rss_kib);
}

/* One checked collective on comm, chosen by i. */
static void churn_call(MPI_Comm comm, long i)
{
    int size, rank;
    int64_t v[4], want[4];

    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    switch (i % 3) {
    case 0:
        CHECK_MPI(MPI_Barrier(comm));
        break;
    case 1:
        for (int k = 0; k < 4; ++k) {
            want[k] = (int64_t) val((uint64_t) i, (int) (i % size), k);
            v[k] = rank == (int) (i % size) ? want[k] : 0;
        }
        CHECK_MPI(MPI_Bcast(v, 4, MPI_INT64_T, (int) (i % size), comm));
        expect_i64("churn bcast", v, want, 4);
        break;
    default:
        for (int k = 0; k < 4; ++k) {
            v[k] = (int64_t) (rank + 1) * (i + k);
            want[k] = (int64_t) size * (size + 1) / 2 * (i + k);
        }
        CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_INT64_T, MPI_SUM, comm));
        expect_i64("churn allreduce", v, want, 4);
        break;
    }
}

static void usage_bound(const char *what, usage_t base, usage_t now, long rss_slack_kib)
{
    /* a window or a peer's mapping left behind shows as a /dev/shm map; a
     * few maps of slack for the transport's own FIFOs set up lazily */
    if (now.shm_maps > base.shm_maps + 4 || now.fds > base.fds + 8
        || now.rss_kib > base.rss_kib + rss_slack_kib) {
        usage_print("base", base);
        usage_print(what, now);
        fail("%s: resources not returned (bounds: shm_maps +4, fds +8, rss +%ld KiB)", what,
             rss_slack_kib);
    }
}

static void run_churn(void)
{
    long warm = opt_cycles / 10 > 100 ? opt_cycles / 10 : (opt_cycles < 100 ? 0 : 100);
    MPI_Comm *alive = xmalloc(sizeof(MPI_Comm) * (size_t) (opt_alive > 0 ? opt_alive : 1));
    usage_t base, u;
    double t0 = now_s();

    cur = "churn-dup-free";
    {
        /* the transport's one-time set-up happens here, before the baseline */
        MPI_Comm d;
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
        churn_call(d, 0);
        CHECK_MPI(MPI_Comm_free(&d));
        base = usage_now();
    }
    for (long i = 0; i < opt_cycles; ++i) {
        MPI_Comm d;
        if (i == warm) {
            base = usage_now();
        }
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
        churn_call(d, i);
        CHECK_MPI(MPI_Comm_free(&d));
        if (0 == wrank && i > 0 && 0 == i % 2000) {
            /* progress, so that a timeout shows how far it got */
            printf("churn: %ld cycles after %.1f s\n", i, now_s() - t0);
        }
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    u = usage_now();
    usage_print("after-cycles", u);
    /* 9000 cycles: 16 MiB is < 2 KiB a cycle, far below one window (>100 KiB) */
    usage_bound("after dup/free cycles", base, u, 16 * 1024);

    cur = "churn-alive";
    for (long i = 0; i < opt_alive; ++i) {
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &alive[i]));
        churn_call(alive[i], i);
    }
    u = usage_now();
    usage_print("alive", u);
    /* every communicator still works after all are set up */
    for (long i = 0; i < opt_alive; ++i) {
        churn_call(alive[i], i + 1);
        churn_call(alive[i], i + 2);
    }
    for (long i = 0; i < opt_alive; ++i) {
        CHECK_MPI(MPI_Comm_free(&alive[i]));
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    u = usage_now();
    usage_print("after-free", u);
    usage_bound("after freeing the live communicators", base, u, 32 * 1024);
    if (0 == wrank) {
        printf("churn: cycles=%ld alive=%ld seconds=%.1f\n", opt_cycles, opt_alive, now_s() - t0);
    }
    free(alive);
}

/* ------------------------------------------------------------------ edge */

static void fill_pattern(void *p, size_t n, unsigned char seed)
{
    unsigned char *c = p;
    for (size_t i = 0; i < n; ++i) {
        c[i] = (unsigned char) (seed + 31 * i);
    }
}

/* Count 0 on every collective: buffers stay untouched. */
static void edge_count0(MPI_Comm comm)
{
    char a[64], b[64], ga[64], gb[64];
    int size;

    MPI_Comm_size(comm, &size);
    cur = "edge-count0";
    fill_pattern(a, 64, 1);
    fill_pattern(b, 64, 2);
    memcpy(ga, a, 64);
    memcpy(gb, b, 64);
    CHECK_MPI(MPI_Bcast(a, 0, MPI_INT, size - 1, comm));
    CHECK_MPI(MPI_Allreduce(a, b, 0, MPI_INT, MPI_SUM, comm));
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, b, 0, MPI_DOUBLE, MPI_MAX, comm));
    CHECK_MPI(MPI_Reduce(a, b, 0, MPI_INT, MPI_SUM, 0, comm));
    CHECK_MPI(MPI_Allgather(a, 0, MPI_INT, b, 0, MPI_INT, comm));
    CHECK_MPI(MPI_Alltoall(a, 0, MPI_INT, b, 0, MPI_INT, comm));
    expect_bytes("count 0 send buffer", a, ga, 64);
    expect_bytes("count 0 receive buffer", b, gb, 64);
}

/* Every root and MPI_IN_PLACE on bcast, allreduce, reduce, allgather,
 * alltoall, at a few sizes, at buffers `off` bytes into a big allocation. */
static void edge_roots_inplace(MPI_Comm comm, char *big, size_t off, const char *what)
{
    int size, rank;
    static const int counts[] = {1, 3, 1000, 2048, 2500};

    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    for (size_t ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ++ci) {
        int n = counts[ci];
        size_t blk = sizeof(int64_t) * (size_t) (n + 1) * size;
        /* unaligned: int64 elements at an odd address */
        int64_t *s = (int64_t *) (big + off), *r = (int64_t *) (big + off + blk + 8);
        int64_t *ref = xmalloc(blk);
        unsigned char *guard = (unsigned char *) r + blk;

        for (int root = 0; root < size; ++root) {
            uint64_t tag = ((uint64_t) ci << 32) ^ (uint64_t) root ^ (uint64_t) off << 8;
            cur = what;
            fill_pattern(guard, 64, 9);
            /* bcast */
            for (int i = 0; i < n; ++i) {
                ref[i] = (int64_t) val(tag, root, i);
                s[i] = rank == root ? ref[i] : 0;
            }
            CHECK_MPI(MPI_Bcast(s, n, MPI_INT64_T, root, comm));
            expect_i64("bcast (root, unaligned)", s, ref, n);
            /* reduce, in place at the root */
            for (int i = 0; i < n; ++i) {
                ref[i] = 0;
                for (int k = 0; k < size; ++k) {
                    ref[i] += (int64_t) (val(tag, k, i) % 100000);
                }
                r[i] = s[i] = (int64_t) (val(tag, rank, i) % 100000);
            }
            CHECK_MPI(MPI_Reduce(rank == root ? MPI_IN_PLACE : (void *) s, r, n, MPI_INT64_T,
                                 MPI_SUM, root, comm));
            if (rank == root) {
                expect_i64("reduce (root, in place)", r, ref, n);
            }
            /* allreduce in place and not */
            for (int i = 0; i < n; ++i) {
                r[i] = s[i] = (int64_t) (val(tag, rank, i) % 100000);
            }
            CHECK_MPI(MPI_Allreduce(root & 1 ? MPI_IN_PLACE : (void *) s, r, n, MPI_INT64_T,
                                    MPI_SUM, comm));
            expect_i64("allreduce (unaligned)", r, ref, n);
            /* allgather in place: own block already in the receive buffer */
            if (root == 0) {
                int m = n / size + 1;
                for (int k = 0; k < size; ++k) {
                    for (int i = 0; i < m; ++i) {
                        ref[(size_t) k * m + i] = (int64_t) val(tag + 1, k, i);
                        r[(size_t) k * m + i] = k == rank ? ref[(size_t) k * m + i] : -1;
                    }
                }
                CHECK_MPI(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, m, MPI_INT64_T,
                                        comm));
                expect_i64("allgather (in place)", r, ref, (size_t) m * size);
                /* alltoall in place */
                for (int k = 0; k < size; ++k) {
                    for (int i = 0; i < m; ++i) {
                        r[(size_t) k * m + i] = (int64_t) val(tag + 2 + (uint64_t) k, rank, i);
                        ref[(size_t) k * m + i] = (int64_t) val(tag + 2 + (uint64_t) rank, k, i);
                    }
                }
                CHECK_MPI(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, m, MPI_INT64_T,
                                       comm));
                expect_i64("alltoall (in place)", r, ref, (size_t) m * size);
            }
            {
                unsigned char want[64];
                fill_pattern(want, 64, 9);
                expect_bytes("bytes after the receive buffer", guard, want, 64);
            }
        }
        free(ref);
    }
}

/* Datatypes whose lower bound or extent differs from their size. */
static void edge_datatypes(MPI_Comm comm)
{
    int size, rank, root;
    MPI_Datatype at8, strided, vec;
    int buf[64], want[64];

    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    root = size - 1;
    cur = "edge-datatypes";
    {
        /* one int at byte 8 of a 16-byte extent: true lb 8, size 4; count 1
         * is one contiguous block (coll/rdma may serve it at buf + 8) */
        int bl = 1;
        MPI_Aint d = 8;
        MPI_Datatype t = MPI_INT, tmp;
        CHECK_MPI(MPI_Type_create_struct(1, &bl, &d, &t, &tmp));
        CHECK_MPI(MPI_Type_create_resized(tmp, 0, 16, &at8));
        CHECK_MPI(MPI_Type_commit(&at8));
        MPI_Type_free(&tmp);
    }
    for (int count = 1; count <= 3; ++count) {
        for (int i = 0; i < 64; ++i) {
            want[i] = -5 - i;
            buf[i] = -5 - i;
        }
        for (int e = 0; e < count; ++e) {
            want[4 * e + 2] = 1000 + e;
            if (rank == root) {
                buf[4 * e + 2] = 1000 + e;
            }
        }
        CHECK_MPI(MPI_Bcast(buf, count, at8, root, comm));
        expect_bytes("bcast of an int at lb 8, extent 16", buf, want, sizeof(buf));
    }
    /* (Reductions on derived datatypes: Open MPI 4.1 refuses them itself
     * with MPI_ERR_OP before any coll component sees the call.) */
    /* negative lower bound: contiguous 4 ints resized to lb -16, extent 32 */
    CHECK_MPI(MPI_Type_contiguous(4, MPI_INT, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    CHECK_MPI(MPI_Type_create_resized(vec, -16, 32, &strided));
    CHECK_MPI(MPI_Type_commit(&strided));
    for (int i = 0; i < 64; ++i) {
        want[i] = buf[i] = 7 * i;
    }
    /* count 2 from &buf[4]: ints 4..7 and 12..15 */
    for (int i = 0; i < 64; ++i) {
        if ((i >= 4 && i < 8) || (i >= 12 && i < 16)) {
            want[i] = 100 + i;
            if (rank == root) {
                buf[i] = 100 + i;
            }
        }
    }
    CHECK_MPI(MPI_Bcast(&buf[4], 2, strided, root, comm));
    expect_bytes("bcast of a type with lb -16, extent 32", buf, want, sizeof(buf));
    /* alltoall: one strided element (8 ints in two runs) to every rank */
    {
        int *sb = xmalloc(sizeof(int) * 8 * size), *rbuf = xmalloc(sizeof(int) * 8 * size);
        int *rw = xmalloc(sizeof(int) * 8 * size);
        for (int k = 0; k < size; ++k) {
            for (int i = 0; i < 4; ++i) {
                sb[4 * k + i] = 1000 * rank + 10 * k + i;     /* contiguous send blocks */
                rw[4 * k + i] = 1000 * k + 10 * rank + i;
            }
        }
        CHECK_MPI(MPI_Alltoall(sb, 4, MPI_INT, rbuf, 1, vec, comm));
        expect_bytes("alltoall into a contiguous derived type", rbuf, rw, sizeof(int) * 4 * size);
        free(sb);
        free(rbuf);
        free(rw);
    }
    /* allgather and alltoall of the resized type: one block each */
    {
        int *g = xmalloc(sizeof(int) * 4 * size), *gw = xmalloc(sizeof(int) * 4 * size);
        for (int k = 0; k < size; ++k) {
            gw[4 * k + 2] = 50 * k + 1;
            g[4 * k + 2] = -1;
            gw[4 * k] = gw[4 * k + 1] = gw[4 * k + 3] = g[4 * k] = g[4 * k + 1] = g[4 * k + 3] = -9;
        }
        int mine = 50 * rank + 1;
        CHECK_MPI(MPI_Allgather(&mine, 1, MPI_INT, g, 1, at8, comm));
        expect_bytes("allgather into an int at lb 8, extent 16", g, gw, sizeof(int) * 4 * size);
        free(g);
        free(gw);
    }
    MPI_Type_free(&at8);
    MPI_Type_free(&strided);
    MPI_Type_free(&vec);
}

/* MPI_BOTTOM with absolute addresses. */
static void edge_bottom(MPI_Comm comm)
{
    int size, rank, root;
    int64_t x[5], y[3], wx[5], wy[3];
    MPI_Datatype one, two;
    int bl[2] = {5, 3};
    MPI_Aint d[2];
    MPI_Datatype t[2] = {MPI_INT64_T, MPI_INT64_T};

    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    root = size > 1 ? 1 : 0;
    cur = "edge-bottom";
    MPI_Get_address(x, &d[0]);
    MPI_Get_address(y, &d[1]);
    /* one block at an absolute address (contiguous: may be served) */
    CHECK_MPI(MPI_Type_create_struct(1, bl, d, t, &one));
    CHECK_MPI(MPI_Type_commit(&one));
    CHECK_MPI(MPI_Type_create_struct(2, bl, d, t, &two));
    CHECK_MPI(MPI_Type_commit(&two));
    for (int i = 0; i < 5; ++i) {
        wx[i] = 11 * i + 3;
        x[i] = rank == root ? wx[i] : 0;
    }
    CHECK_MPI(MPI_Bcast(MPI_BOTTOM, 1, one, root, comm));
    expect_i64("bcast from MPI_BOTTOM, one block", x, wx, 5);
    for (int i = 0; i < 5; ++i) {
        wx[i] = -(int64_t) i;
        x[i] = rank == root ? wx[i] : 0;
    }
    for (int i = 0; i < 3; ++i) {
        wy[i] = 1000 + i;
        y[i] = rank == root ? wy[i] : 0;
    }
    CHECK_MPI(MPI_Bcast(MPI_BOTTOM, 1, two, root, comm));
    expect_i64("bcast from MPI_BOTTOM, two blocks (x)", x, wx, 5);
    expect_i64("bcast from MPI_BOTTOM, two blocks (y)", y, wy, 3);
    /* allgather of one int64 per rank into absolute addresses */
    if (size <= 5) {
        int64_t mine = 17 * rank + 5;
        MPI_Datatype cell;
        MPI_Aint cd;
        int one_bl = 1;
        MPI_Datatype i64 = MPI_INT64_T, tmp;
        for (int k = 0; k < 5; ++k) {
            x[k] = -1;
            wx[k] = k < size ? 17 * k + 5 : -1;
        }
        for (int k = 0; k < 3; ++k) {
            y[k] = -1;
            wy[k] = k + 5 < size ? 17 * (k + 5) + 5 : -1;
        }
        /* one int64 at x's absolute address, extent 8: rank k's lands at
         * x + 8k (x holds 5, so up to 5 ranks) */
        MPI_Get_address(x, &cd);
        CHECK_MPI(MPI_Type_create_struct(1, &one_bl, &cd, &i64, &tmp));
        CHECK_MPI(MPI_Type_create_resized(tmp, cd, 8, &cell));
        CHECK_MPI(MPI_Type_commit(&cell));
        MPI_Type_free(&tmp);
        CHECK_MPI(MPI_Allgather(&mine, 1, MPI_INT64_T, MPI_BOTTOM, 1, cell, comm));
        expect_i64("allgather into MPI_BOTTOM + absolute address", x, wx, 5);
        MPI_Type_free(&cell);
    }
    MPI_Type_free(&one);
    MPI_Type_free(&two);
}

/* Intercommunicator of the even and the odd world ranks. */
static void edge_inter(void)
{
    MPI_Comm half, inter;
    int color = wrank & 1, lrank, lsize, rsize;
    int64_t v[8], want[8];

    if (wsize < 2) {
        return;
    }
    cur = "edge-inter";
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, wrank, &half));
    /* local leader: rank 0 of each half; remote leader: world rank 1 or 0 */
    CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, color ? 0 : 1, 77, &inter));
    MPI_Comm_rank(half, &lrank);
    MPI_Comm_size(half, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    CHECK_MPI(MPI_Barrier(inter));
    /* bcast from rank 0 of the even group to the odd group */
    for (int i = 0; i < 8; ++i) {
        want[i] = (int64_t) val(99, 0, i);
        v[i] = -1;
    }
    if (color == 0) {
        if (lrank == 0) {
            memcpy(v, want, sizeof(v));
        }
        CHECK_MPI(MPI_Bcast(v, 8, MPI_INT64_T, lrank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter));
    } else {
        CHECK_MPI(MPI_Bcast(v, 8, MPI_INT64_T, 0, inter));
        expect_i64("intercommunicator bcast", v, want, 8);
    }
    /* allreduce: each group gets the other group's sum of world ranks */
    for (int i = 0; i < 8; ++i) {
        int64_t s = 0;
        for (int r = 0; r < wsize; ++r) {
            if ((r & 1) != color) {
                s += r + i;
            }
        }
        want[i] = s;
        v[i] = wrank + i;
    }
    {
        int64_t out[8];
        CHECK_MPI(MPI_Allreduce(v, out, 8, MPI_INT64_T, MPI_SUM, inter));
        expect_i64("intercommunicator allreduce", out, want, 8);
    }
    /* allgather: the remote group's world ranks in their local order */
    {
        int64_t me = wrank, *all = xmalloc(sizeof(int64_t) * rsize), *w = xmalloc(sizeof(int64_t) * rsize);
        for (int k = 0; k < rsize; ++k) {
            w[k] = 2 * k + (color ? 0 : 1);
        }
        CHECK_MPI(MPI_Allgather(&me, 1, MPI_INT64_T, all, 1, MPI_INT64_T, inter));
        expect_i64("intercommunicator allgather", all, w, rsize);
        free(all);
        free(w);
    }
    (void) lsize;
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

static void run_edge(void)
{
    size_t big_bytes = 8u << 20;
    char *big = xmalloc(big_bytes);
    MPI_Comm split, selfdup;
    int color;

    memset(big, 0x5a, big_bytes);
    /* MPI_COMM_SELF (served by coll/self) and a duplicate of it */
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_SELF, &selfdup));
    edge_count0(MPI_COMM_SELF);
    edge_roots_inplace(MPI_COMM_SELF, big, 3, "edge-self");
    edge_roots_inplace(selfdup, big, 5, "edge-self-dup");
    edge_datatypes(MPI_COMM_SELF);
    edge_bottom(MPI_COMM_SELF);
    MPI_Comm_free(&selfdup);

    edge_count0(MPI_COMM_WORLD);
    /* buffers in the middle of the allocation, at odd offsets */
    edge_roots_inplace(MPI_COMM_WORLD, big, (4u << 20) + 1, "edge-world-offset1");
    edge_roots_inplace(MPI_COMM_WORLD, big, (2u << 20) + 7, "edge-world-offset7");
    edge_roots_inplace(MPI_COMM_WORLD, big, 4096, "edge-world-aligned");
    edge_datatypes(MPI_COMM_WORLD);
    edge_bottom(MPI_COMM_WORLD);
    /* a sub-communicator whose ranks are in another order than the world's */
    color = wsize > 2 ? wrank % 2 : 0;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, -wrank, &split));
    edge_count0(split);
    edge_roots_inplace(split, big, 1000003, "edge-split");
    edge_datatypes(split);
    edge_bottom(split);
    MPI_Comm_free(&split);
    edge_inter();
    free(big);
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
    } else {
        if (0 == wrank) {
            fprintf(stderr, "usage: test_robust mix|burst|churn|edge [options]\n");
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
