/*
 * line_cost: what one cache-line transfer costs on this machine, in ns, for
 * the cache-line model (sched_dump --lines -c; docs/design.md, "A model of
 * cache-line transfers").  Threads pinned to cores, no MPI.
 *
 *   pingpong          two cores, a flag line each way (stored, polled): half
 *                     the round trip, the one-way time of a coll/rdma word on
 *                     the direct path (a transfer after an upgrade)
 *   miss              one load of a line another core just wrote
 *                     (a transfer), less a load that hits
 *   upgrade           a store and a fence to a line another core holds
 *                     (its copy invalidated, no data), less one to a line
 *                     only this core holds
 *   stream N          one core loads N lines another core wrote, all at
 *                     once: ns per line (how far a core overlaps misses)
 *   fan P             one core stores a line that P-1 cores poll: from the
 *                     store to each poller seeing it (TSC), the slowest and
 *                     the mean of the P-1 (the read bcast's slot, the read
 *                     barrier's word)
 *   gather P          P-1 cores each store a line, then one core loads all
 *                     P-1 at once (the root's credit reads, a read
 *                     barrier's pass)
 *
 * Output: one line per value, "<name> [P or N] <ns> [<ns>]", medians over
 * the repetitions.  fan and gather need P cores: -p 2,4,8,16 on a machine
 * with 16 (default: 2 up to the cores this process may use).
 *
 * Usage: line_cost [-n REPS] [-p P[,P...]] [-c CPU[,CPU...]]
 *   -c: the cores to use, in order (default: the ones sched_getaffinity
 *   gives); the first is the writer of fan and the reader of gather.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_time.h"


#define LINE 64
#define MAXT 256
#define MAXN 1024

typedef struct {
    _Alignas(LINE) _Atomic uint64_t v;
    char pad[LINE - sizeof(uint64_t)];
} line_t;

static int ncpu, cpus[MAXT], reps = 2000;
static double tsc_ns; /* ns per TSC tick */

static line_t flag[MAXT], seen[MAXT], data[MAXT], go;
/* stream's lines, a page and a line apart and visited in a scrambled order,
 * so that no prefetcher guesses the next one (as a window's words of
 * different ranks lie) */
#define SPREAD (4096 / LINE + 1)
static line_t *far;
static int order[MAXN];
static _Atomic int ready;

static void pin(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    pthread_setaffinity_np(pthread_self(), sizeof(s), &s);
}

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

/** TSC ticks to ns, against CLOCK_MONOTONIC over 50 ms. */
static double calibrate(void)
{
    double t0 = now_ns();
    uint64_t c0 = ticks();
    while (now_ns() - t0 < 5e7) {
    }
    return (now_ns() - t0) / (double) (ticks() - c0);
}

static void spin_ns(double ns)
{
    uint64_t end = ticks() + (uint64_t) (ns / tsc_ns);
    while (ticks() < end) {
    }
}

/* One load, timed in TSC ticks (fenced so that only it is inside). */
static double timed_load(const line_t *l)
{
    uint64_t t0, t1;
    load_fence();
    t0 = ticks_ordered();
    (void) atomic_load_explicit(&l->v, memory_order_relaxed);
    t1 = ticks_ordered();
    load_fence();
    return (double) (t1 - t0);
}

/* One store and a fence (the store globally visible), timed in TSC ticks. */
static double timed_store(line_t *l, uint64_t v)
{
    uint64_t t0, t1;
    load_fence();
    t0 = ticks_ordered();
    atomic_store_explicit(&l->v, v, memory_order_relaxed);
    full_fence();
    t1 = ticks_ordered();
    load_fence();
    return (double) (t1 - t0);
}

/* ---- the tests, each a function of (thread index, threads) ---- */

typedef struct {
    int idx, nthreads, n;
    double *out;
    void (*fn)(int, int, int, double *);
} job_t;

static void *run_job(void *arg)
{
    job_t *j = arg;
    pin(cpus[j->idx]);
    atomic_fetch_add(&ready, 1);
    while (atomic_load(&ready) < j->nthreads) {
    }
    j->fn(j->idx, j->nthreads, j->n, j->out);
    return NULL;
}

/* Run fn on `nthreads` pinned threads (thread 0 is this one's helper too). */
static void run(void (*fn)(int, int, int, double *), int nthreads, int n, double *out)
{
    pthread_t th[MAXT];
    job_t jobs[MAXT];

    memset(flag, 0, sizeof(flag));
    memset(seen, 0, sizeof(seen));
    memset(data, 0, sizeof(data));
    memset(far, 0, sizeof(line_t) * SPREAD * MAXN);
    atomic_store(&go.v, 0);
    atomic_store(&ready, 0);
    for (int i = 0; i < nthreads; ++i) {
        jobs[i] = (job_t){i, nthreads, n, out, fn};
        pthread_create(&th[i], NULL, run_job, &jobs[i]);
    }
    for (int i = 0; i < nthreads; ++i) {
        pthread_join(th[i], NULL);
    }
}

/* pingpong: thread 0 stores flag[1], thread 1 polls it and answers in flag[0]. */
static void pingpong(int me, int nt, int n, double *out)
{
    double *t = malloc(sizeof(double) * (size_t) reps);
    for (int i = -100; i < reps; ++i) {
        uint64_t s = (uint64_t) i + 101;
        if (0 == me) {
            uint64_t t0 = ticks();
            atomic_store_explicit(&flag[1].v, s, memory_order_release);
            while (atomic_load_explicit(&flag[0].v, memory_order_acquire) != s) {
            }
            if (i >= 0) {
                t[i] = (double) (ticks() - t0) * tsc_ns / 2;
            }
        } else {
            while (atomic_load_explicit(&flag[1].v, memory_order_acquire) != s) {
            }
            atomic_store_explicit(&flag[0].v, s, memory_order_release);
        }
    }
    if (0 == me) {
        out[0] = median(t, reps);
    }
    free(t);
}

/*
 * miss and upgrade: thread 1 stores data[0] (its line, modified there) and
 * then flag[1]; thread 0 sees the flag, loads data[0] once (a transfer),
 * then stores data[1] (held by both after thread 1 read it: an upgrade),
 * and the same on seen[0], which only thread 0 touches (the baselines).
 */
static void miss_upgrade(int me, int nt, int n, double *out)
{
    double *a = malloc(sizeof(double) * 4 * (size_t) reps), *b = a + reps, *c = b + reps,
           *d = c + reps;
    for (int i = -100; i < reps; ++i) {
        uint64_t s = (uint64_t) i + 101;
        if (1 == me) {
            atomic_store_explicit(&data[0].v, s, memory_order_relaxed);
            (void) atomic_load_explicit(&data[1].v, memory_order_relaxed); /* now shared */
            atomic_store_explicit(&flag[1].v, s, memory_order_release);
            while (atomic_load_explicit(&flag[0].v, memory_order_acquire) != s) {
            }
        } else {
            while (atomic_load_explicit(&flag[1].v, memory_order_acquire) != s) {
            }
            spin_ns(500); /* the writer's stores drained */
            double miss = timed_load(&data[0]), hit = timed_load(&seen[0]);
            double upg = timed_store(&data[1], s), own = timed_store(&seen[0], s);
            if (i >= 0) {
                a[i] = miss;
                b[i] = hit;
                c[i] = upg;
                d[i] = own;
            }
            atomic_store_explicit(&flag[0].v, s, memory_order_release);
        }
    }
    if (0 == me) {
        out[0] = (median(a, reps) - median(b, reps)) * tsc_ns;
        out[1] = (median(c, reps) - median(d, reps)) * tsc_ns;
    }
    free(a);
}

/* stream: thread 1 stores n lines, thread 0 then loads all n at once (far apart, scrambled). */
static void stream(int me, int nt, int n, double *out)
{
    double *t = malloc(sizeof(double) * (size_t) reps);
    for (int i = -20; i < reps; ++i) {
        uint64_t s = (uint64_t) i + 21;
        if (1 == me) {
            for (int k = 0; k < n; ++k) {
                atomic_store_explicit(&far[order[k] * SPREAD].v, s, memory_order_relaxed);
            }
            atomic_store_explicit(&flag[1].v, s, memory_order_release);
            while (atomic_load_explicit(&flag[0].v, memory_order_acquire) != s) {
            }
        } else {
            uint64_t sum = 0, t0, t1;
            while (atomic_load_explicit(&flag[1].v, memory_order_acquire) != s) {
            }
            spin_ns(500);
            load_fence();
            t0 = ticks_ordered();
            for (int k = 0; k < n; ++k) {
                sum += atomic_load_explicit(&far[order[k] * SPREAD].v, memory_order_relaxed);
            }
            t1 = ticks_ordered();
            if (sum != s * (uint64_t) n) {
                abort();
            }
            if (i >= 0) {
                t[i] = (double) (t1 - t0) * tsc_ns / n;
            }
            atomic_store_explicit(&flag[0].v, s, memory_order_release);
        }
    }
    if (0 == me) {
        out[0] = median(t, reps);
    }
    free(t);
}

/*
 * fan: thread 0 stores go (after the pollers acknowledged the round before
 * and a pause); every other thread polls it and records the TSC when it
 * sees the value, then acknowledges in its own line.
 */
static void fan(int me, int nt, int n, double *out)
{
    double *mx = malloc(sizeof(double) * 2 * (size_t) reps), *mean = mx + reps;
    for (int i = -100; i < reps; ++i) {
        uint64_t s = (uint64_t) i + 101;
        if (0 == me) {
            uint64_t t0, worst = 0, sum = 0;
            spin_ns(2000); /* every poller back at its poll */
            t0 = ticks();
            atomic_store_explicit(&go.v, s, memory_order_release);
            for (int r = 1; r < nt; ++r) {
                while (atomic_load_explicit(&flag[r].v, memory_order_acquire) != s) {
                }
                uint64_t d = atomic_load_explicit(&seen[r].v, memory_order_relaxed) - t0;
                worst = d > worst ? d : worst;
                sum += d;
            }
            if (i >= 0) {
                mx[i] = (double) worst * tsc_ns;
                mean[i] = (double) sum / (nt - 1) * tsc_ns;
            }
        } else {
            while (atomic_load_explicit(&go.v, memory_order_acquire) != s) {
            }
            atomic_store_explicit(&seen[me].v, ticks(), memory_order_relaxed);
            atomic_store_explicit(&flag[me].v, s, memory_order_release);
        }
    }
    if (0 == me) {
        out[0] = median(mx, reps);
        out[1] = median(mean, reps);
    }
    free(mx);
}

/*
 * gather: threads 1 .. nt-1 each store their line data[r], then count in
 * go; thread 0 waits for the count, pauses, and loads the nt-1 lines at
 * once, timed.
 */
static void gather(int me, int nt, int n, double *out)
{
    double *t = malloc(sizeof(double) * (size_t) reps);
    for (int i = -100; i < reps; ++i) {
        uint64_t s = (uint64_t) i + 101;
        if (0 == me) {
            uint64_t sum = 0, t0, t1;
            while (atomic_load_explicit(&go.v, memory_order_acquire) != s * (uint64_t) (nt - 1)) {
            }
            spin_ns(500);
            load_fence();
            t0 = ticks_ordered();
            for (int r = 1; r < nt; ++r) {
                sum += atomic_load_explicit(&data[r].v, memory_order_relaxed);
            }
            t1 = ticks_ordered();
            if (sum != s * (uint64_t) (nt - 1)) {
                abort();
            }
            if (i >= 0) {
                t[i] = (double) (t1 - t0) * tsc_ns;
            }
            atomic_store_explicit(&flag[0].v, s, memory_order_release);
        } else {
            atomic_store_explicit(&data[me].v, s, memory_order_relaxed);
            atomic_fetch_add_explicit(&go.v, 1, memory_order_acq_rel);
            while (atomic_load_explicit(&flag[0].v, memory_order_acquire) != s) {
            }
        }
    }
    if (0 == me) {
        out[0] = median(t, reps);
    }
    free(t);
}

int main(int argc, char **argv)
{
    int ps[32], nps = 0;
    double out[2];
    cpu_set_t s;

    CPU_ZERO(&s);
    sched_getaffinity(0, sizeof(s), &s);
    for (int c = 0; c < CPU_SETSIZE && ncpu < MAXT; ++c) {
        if (CPU_ISSET(c, &s)) {
            cpus[ncpu++] = c;
        }
    }
    for (int a = 1; a + 1 < argc; a += 2) {
        char *tok, *str = argv[a + 1];
        if (0 == strcmp(argv[a], "-n")) {
            reps = atoi(str);
        } else if (0 == strcmp(argv[a], "-p")) {
            for (; nps < 32 && NULL != (tok = strtok(str, ",")); str = NULL) {
                ps[nps++] = atoi(tok);
            }
        } else if (0 == strcmp(argv[a], "-c")) {
            for (ncpu = 0; ncpu < MAXT && NULL != (tok = strtok(str, ",")); str = NULL) {
                cpus[ncpu++] = atoi(tok);
            }
        } else {
            fprintf(stderr, "usage: line_cost [-n REPS] [-p P[,P...]] [-c CPU[,CPU...]]\n");
            return 2;
        }
    }
    if (ncpu < 2 || reps < 1) {
        fprintf(stderr, "line_cost: needs two cores and one repetition\n");
        return 2;
    }
    if (0 == nps) {
        for (int p = 2; p <= ncpu && nps < 32; p *= 2) {
            ps[nps++] = p;
        }
        if (ps[nps - 1] != ncpu && nps < 32) {
            ps[nps++] = ncpu;
        }
    }
    far = aligned_alloc(4096, sizeof(line_t) * SPREAD * MAXN);
    if (NULL == far) {
        return 2;
    }
    for (int k = 0; k < MAXN; ++k) {
        order[k] = k;
    }
    for (int k = MAXN - 1; k > 0; --k) { /* a fixed shuffle */
        int j = (int) ((uint64_t) (k * 2654435761u) % (uint64_t) (k + 1)), x = order[k];
        order[k] = order[j];
        order[j] = x;
    }
    tsc_ns = calibrate();
    printf("# cores %d (first %d, %d), TSC %.3f GHz, %d repetitions, medians in ns\n", ncpu,
           cpus[0], cpus[1], 1 / tsc_ns, reps);
    run(pingpong, 2, 0, out);
    printf("pingpong %.1f\n", out[0]);
    run(miss_upgrade, 2, 0, out);
    printf("miss %.1f\nupgrade %.1f\n", out[0], out[1]);
    for (int n = 1; n <= MAXN; n = 2 * n + 1) {
        run(stream, 2, n, out);
        printf("stream %d %.1f\n", n, out[0]);
    }
    for (int k = 0; k < nps; ++k) {
        if (ps[k] < 2 || ps[k] > ncpu) {
            printf("# fan %d, gather %d: only %d cores\n", ps[k], ps[k], ncpu);
            continue;
        }
        run(fan, ps[k], 0, out);
        printf("fan %d %.1f %.1f\n", ps[k], out[0], out[1]);
        run(gather, ps[k], 0, out);
        printf("gather %d %.1f\n", ps[k], out[0]);
    }
    return 0;
}
