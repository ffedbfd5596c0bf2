/*
 * coll_bench: OSU-style latency benchmark (and validator) for MPI collectives.
 *
 * Build:  mpicc -O2 -Wall -Wextra bench/coll_bench.c bench/bench_opts.c bench/bench_check.c
 *         bench/bench_mpit.c -o coll_bench
 * Usage:  mpirun -np P ./coll_bench -c allreduce -m 8:65536 -f
 *         ./coll_bench -h   for all options
 *
 * Timing (per message size):
 *   WARMUP untimed calls, then ITERS calls, each timed on its own with
 *   clock_gettime(CLOCK_MONOTONIC) around the collective only (only
 *   differences within one process are used).  bcast and reduce are timed the
 *   OSU way: an MPI_Barrier before every call, outside the timed region
 *   (-S does that for every collective, -A for none).  Other collectives run
 *   back to back.
 *   Before the first size, PREWARM more untimed calls of the same collective
 *   (-W; default coll_rdma_window_setup_calls + 8, read through MPI_T, or 24
 *   where the component is not loaded or the value is above 100000), so that
 *   a component's one-time set-up (coll/rdma sets its window up at the
 *   communicator's coll_rdma_window_setup_calls + 1st call) is never timed,
 *   whatever the first size.  pingpong warms up with MPI_Barrier calls.
 *   Per rank: mean and median (sorted) of the ITERS per-call times.
 *   Reported (microseconds):
 *     Avg    = max over ranks of the per-rank mean (the slowest rank)
 *     Min    = min over ranks of the per-rank mean              (-f)
 *     Max    = max over ranks of the per-rank mean (= Avg)      (-f)
 *     Median = max over ranks of the per-rank median            (-f)
 *     CallMin, CallMed, CallMax = min, median, max over the ITERS calls of
 *              the call's time on its slowest rank (the spread: one slow
 *              call shows in CallMax, not only in Avg)
 *   Size is the per-rank message size in bytes: the broadcast / reduced vector
 *   for bcast, reduce and allreduce; the block each rank contributes for
 *   allgather; the block sent to each peer for alltoall; the message of
 *   pingpong.  0 for barrier.
 *
 *   commdup times the life of a communicator: MPI_Comm_dup(MPI_COMM_WORLD),
 *   one 8-byte MPI_Allreduce (double SUM) on it, MPI_Comm_free (size 0).  With
 *   coll/rdma the allreduce includes the window set-up if
 *   coll_rdma_window_setup_calls is 0.
 *
 *   pingpong is point-to-point (osu_latency): rank 0 sends, rank 1 receives
 *   and sends back; each of the two times its send-receive pair and halves it
 *   (one-way latency).  Other ranks wait.  It measures whether a collective
 *   component slows down what it does not serve.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_check.h"
#include "bench_mpit.h"
#include "bench_opts.h"

#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION < 5
#    include <mpi-ext.h> /* Open MPI 4.1: the persistent collectives are MPIX_*_init; 5.0: mpi.h */
#    define MPI_Barrier_init MPIX_Barrier_init
#    define MPI_Bcast_init MPIX_Bcast_init
#    define MPI_Reduce_init MPIX_Reduce_init
#    define MPI_Allreduce_init MPIX_Allreduce_init
#    define MPI_Allgather_init MPIX_Allgather_init
#    define MPI_Alltoall_init MPIX_Alltoall_init
#endif

/* The barrier before a call: MPI_Barrier, or (-B) ceil(log2 P) rounds of
 * zero-byte MPI_Sendrecv with rank +- 2^k (Hensgen, Finkel and Manber's
 * dissemination barrier), which no collective component serves. */
static void sync_barrier(const struct opts *o)
{
    int rank, size;

    if (!o->p2p_sync) {
        MPI_Barrier(MPI_COMM_WORLD);
        return;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int d = 1; d < size; d <<= 1) {
        MPI_Sendrecv(NULL, 0, MPI_BYTE, (rank + d) % size, 77, NULL, 0, MPI_BYTE,
                     (rank - d + size) % size, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---------- buffers ---------- */

static size_t align_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_sorted(const double *v, int n)
{
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Start a nonblocking call, or make a persistent request (inactive). */
static void start_call(enum coll coll, const struct call *c, MPI_Datatype dt, MPI_Op mop,
                       int persistent, MPI_Request *req)
{
    const int n = (int)c->count;
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Info i = MPI_INFO_NULL;
    switch (coll) {
    case C_BARRIER: persistent ? MPI_Barrier_init(w, i, req) : MPI_Ibarrier(w, req); break;
    case C_BCAST:
        persistent ? MPI_Bcast_init(c->rbuf, n, dt, c->root, w, i, req)
                   : MPI_Ibcast(c->rbuf, n, dt, c->root, w, req);
        break;
    case C_REDUCE:
        persistent ? MPI_Reduce_init(c->sarg, c->rbuf, n, dt, mop, c->root, w, i, req)
                   : MPI_Ireduce(c->sarg, c->rbuf, n, dt, mop, c->root, w, req);
        break;
    case C_ALLREDUCE:
        persistent ? MPI_Allreduce_init(c->sarg, c->rbuf, n, dt, mop, w, i, req)
                   : MPI_Iallreduce(c->sarg, c->rbuf, n, dt, mop, w, req);
        break;
    case C_ALLGATHER:
        persistent ? MPI_Allgather_init(c->sarg, n, dt, c->rbuf, n, dt, w, i, req)
                   : MPI_Iallgather(c->sarg, n, dt, c->rbuf, n, dt, w, req);
        break;
    case C_ALLTOALL:
        persistent ? MPI_Alltoall_init(c->sarg, n, dt, c->rbuf, n, dt, w, i, req)
                   : MPI_Ialltoall(c->sarg, n, dt, c->rbuf, n, dt, w, req);
        break;
    default: break;
    }
}

/* -L's computation: a spin on the clock for `us` microseconds. */
static void spin(double us)
{
    const double end = now() + us * 1e-6;
    while (now() < end) {
    }
}

/* -O's computation: a dependent floating-point loop of `loops` steps. */
static volatile double compute_sink;
static void compute(long loops)
{
    double x = 1.0;
    for (long k = 0; k < loops; k++) x = x * 1.0000001 + 1e-9;
    compute_sink = x;
}

/* The call itself: what is timed.  Split-phase: start (or MPI_Start of
 * *preq), `loops` of computation, wait. */
static void run_call(enum coll coll, struct call *c, MPI_Datatype dt, MPI_Op mop, int prewarm_barrier,
                     int mode, MPI_Request *preq, long loops)
{
    const int n = (int)c->count;
    if (prewarm_barrier) { MPI_Barrier(MPI_COMM_WORLD); return; }
    if (mode != MODE_BLOCKING) {
        MPI_Request req;
        if (mode == MODE_PERSISTENT) MPI_Start(preq);
        else start_call(coll, c, dt, mop, 0, &req);
        if (loops > 0) compute(loops);
        MPI_Wait(mode == MODE_PERSISTENT ? preq : &req, MPI_STATUS_IGNORE);
        return;
    }
    switch (coll) {
    case C_BARRIER: MPI_Barrier(MPI_COMM_WORLD); break;
    case C_BCAST: MPI_Bcast(c->rbuf, n, dt, c->root, MPI_COMM_WORLD); break;
    case C_REDUCE: MPI_Reduce(c->sarg, c->rbuf, n, dt, mop, c->root, MPI_COMM_WORLD); break;
    case C_ALLREDUCE: MPI_Allreduce(c->sarg, c->rbuf, n, dt, mop, MPI_COMM_WORLD); break;
    case C_ALLGATHER: MPI_Allgather(c->sarg, n, dt, c->rbuf, n, dt, MPI_COMM_WORLD); break;
    case C_ALLTOALL: MPI_Alltoall(c->sarg, n, dt, c->rbuf, n, dt, MPI_COMM_WORLD); break;
    case C_COMMDUP: {
        const double in = rank + 1;
        MPI_Comm dup;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        MPI_Allreduce(&in, &c->dup_out, 1, MPI_DOUBLE, MPI_SUM, dup);
        MPI_Comm_free(&dup);
        break;
    }
    case C_PINGPONG:
        if (rank == 0) {
            MPI_Send(c->sbuf, n, dt, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(c->rbuf, n, dt, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(c->rbuf, n, dt, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(c->sbuf, n, dt, 0, 1, MPI_COMM_WORLD);
        }
        break;
    default: break;
    }
}

int main(int argc, char **argv)
{
    struct opts o;
    int rc;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    rc = bench_opts_parse(argc, argv, &o);
    if (rc) { MPI_Finalize(); return rc < 0 ? 2 : 0; }

    const enum coll coll = o.coll;
    const enum kind kind = o.dt->kind;
    const size_t tsize = o.dt->size;
    const MPI_Datatype dt = mpi_type(kind);
    const MPI_Op mop = o.op == O_SUM ? MPI_SUM : o.op == O_MAX ? MPI_MAX : MPI_MIN;
    const int P = nprocs, root = o.root;

    o.setup_calls = mpit_cvar_int("coll_rdma_window_setup_calls");
    if (o.prewarm < 0)
        o.prewarm = (o.setup_calls >= 0 && o.setup_calls <= PREWARM_SETUP_MAX ? o.setup_calls
                                                                              : PREWARM_NO_COMPONENT) +
                    PREWARM_MARGIN;

    /* footprint of one call for the largest size */
    size_t smax = o.max_size / tsize * tsize;
    size_t fmax = align_up(P * smax, 4096) * 2 + 4096;
    size_t region = o.fresh ? (o.pool_bytes > 2 * fmax ? o.pool_bytes : 2 * fmax) : fmax;
    char *pool = NULL;
    if (coll != C_BARRIER) {
        if (posix_memalign((void **)&pool, 4096, region)) {
            fprintf(stderr, "coll_bench: rank %d: cannot allocate %zu bytes\n", rank, region);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        memset(pool, 0, region);   /* touch every page */
    }
    size_t cursor = 0;

    /* per-call times of one size, untimed calls first; their max over ranks */
    int maxiters = o.iters > o.iters_large ? o.iters : o.iters_large;
    int maxwarm = (o.warmup > o.warmup_large ? o.warmup : o.warmup_large) + o.prewarm;
    double *all = malloc(sizeof(double) * (size_t)(maxiters + maxwarm));
    double *slowest = malloc(sizeof(double) * (size_t)(maxiters + maxwarm));

    /* barrier validation: a counter at rank 0, incremented atomically by
     * every rank before it enters barrier k; after leaving barrier k a rank
     * must see at least P*(k+1). */
    MPI_Win win = MPI_WIN_NULL;
    long *wbase = NULL;
    if (o.validate && coll == C_BARRIER) {
        MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &wbase, &win);
        *wbase = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_lock_all(0, win);
    }

    if (rank == 0) {
        printf("# coll_bench %s np=%d\n", coll_names[coll], P);
        printf("# dtype=%s%s%s root=%d iters=%d(%d above %d B) warmup=%d(%d) prewarm=%d sync=%s fresh=%s",
               o.dt->name, is_reduction(coll) ? " op=" : "", is_reduction(coll) ? op_names[o.op] : "",
               root, o.iters, o.iters_large, LARGE_MESSAGE_SIZE, o.warmup, o.warmup_large, o.prewarm,
               !o.sync ? "back-to-back" : o.p2p_sync ? "p2p-barrier-before-each-call"
                                                     : "barrier-before-each-call",
               o.fresh ? "yes" : "no");
        if (o.fresh) printf("(pool=%zuMiB)", region >> 20);
        printf(" validate=%s inplace=%s\n", o.validate ? "yes" : "no", o.inplace ? "yes" : "no");
        if (o.app_us > 0)
            printf("# application loop: %.2f us of computation before every call, no barrier; Avg: "
                   "the loop's time per call less that\n", o.app_us);
        if (o.setup_calls > PREWARM_SETUP_MAX)
            printf("# coll_rdma_window_setup_calls=%d (above %d: not pre-warmed for)\n", o.setup_calls,
                   PREWARM_SETUP_MAX);
        else if (o.setup_calls >= 0) printf("# coll_rdma_window_setup_calls=%d\n", o.setup_calls);
        else printf("# coll_rdma_window_setup_calls: not registered (coll/rdma not loaded)\n");
        if (o.full)
            printf("# %-10s %16s %12s %12s %12s %12s %12s %12s", "Size", "Avg Latency(us)", "Min", "Max",
                   "Median", "CallMin", "CallMed", "CallMax");
        else
            printf("# %-10s %16s %12s %12s %12s", "Size", "Avg Latency(us)", "CallMin", "CallMed", "CallMax");
        printf(o.overlap ? " %12s %12s %9s\n" : "\n", "Compute", "Overall", "Overlap%");
        fflush(stdout);
    }

    /* -O: the computation's speed, loops per second (a long calibration) */
    double loops_per_sec = 0;
    if (o.overlap) {
        double c0 = now();
        compute(20000000);
        loops_per_sec = 20000000 / (now() - c0);
        MPI_Bcast(&loops_per_sec, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    }
    if (rank == 0 && o.mode != MODE_BLOCKING)
        printf("# mode=%s (pre-warm calls blocking: the window is set up by a blocking call)%s\n",
               mode_names[o.mode], o.overlap ? " overlap=yes" : "");

    /* calls coll/rdma served of each size's timed ones, said after the table */
    const int counted = coll != C_COMMDUP && coll != C_PINGPONG && mpit_served_open(coll_names[coll]) == 0;
    char served_line[2048];
    size_t served_len = 0;
    long long served_before = -1;
    served_line[0] = '\0';

    unsigned long t = 0;     /* global call number (validation seed) */
    unsigned long errors_before_size;
    int first = 1;

    const int sizeless = coll == C_BARRIER || coll == C_COMMDUP;
    for (size_t size = (sizeless ? 0 : o.min_size);;
         size = size ? size * 2 : 1) {
        if (!sizeless && size > o.max_size) break;
        if (size % tsize && size != 0) {
            if (sizeless) break;
            continue;    /* below the datatype size */
        }
        const size_t count = size / tsize;
        const size_t bytes = count * tsize;
        const int large = bytes > LARGE_MESSAGE_SIZE;
        const int iters = large ? o.iters_large : o.iters;
        const int prewarm = first ? o.prewarm : 0;
        const int warmup = (large ? o.warmup_large : o.warmup) + prewarm;
        size_t sbytes = 0, rbytes = 0;
        switch (coll) {
        case C_BARRIER: break;
        case C_BCAST: rbytes = bytes; break;
        case C_REDUCE: case C_ALLREDUCE: case C_PINGPONG: sbytes = bytes; rbytes = bytes; break;
        case C_ALLGATHER: sbytes = bytes; rbytes = (size_t)P * bytes; break;
        case C_ALLTOALL: sbytes = (size_t)P * bytes; rbytes = (size_t)P * bytes; break;
        default: break;
        }
        const size_t foot = align_up(sbytes, 4096) + align_up(rbytes ? rbytes : 1, 4096);
        errors_before_size = nerrors;

        MPI_Request preq = MPI_REQUEST_NULL;
        double loop_start = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        for (int it = 0; it < warmup + iters; it++, t++) {
            struct call c = { .coll = coll, .kind = kind, .op = o.op, .root = root, .count = count,
                              .bytes = bytes, .size = size, .t = t, .win = win };
            /* pingpong's pre-warm: collectives, so a component's set-up is done */
            const int prewarm_barrier = coll == C_PINGPONG && it < prewarm;
            if (coll != C_BARRIER) {
                if (o.fresh) {
                    if (cursor + foot > region) cursor = 0;
                    c.sbuf = pool + cursor;
                    cursor += foot;
                } else {
                    c.sbuf = pool;
                }
                c.rbuf = c.sbuf + align_up(sbytes, 4096);
            }
            c.sarg = c.sbuf;
            if (o.inplace && (coll == C_ALLREDUCE || coll == C_ALLGATHER || coll == C_ALLTOALL ||
                              (coll == C_REDUCE && rank == root)))
                c.sarg = MPI_IN_PLACE;

            if (o.validate && !prewarm_barrier) prepare_call(&c);
            if (counted && it == warmup) served_before = mpit_served();
            if (it == warmup) loop_start = now();
            if (o.app_us > 0) spin(o.app_us);
            if (o.sync) sync_barrier(&o);
            double t0 = now();
            /* the pre-warm is blocking (a nonblocking call never sets a window
             * up); a persistent request is made after it, on the window */
            const int mode = it < prewarm ? MODE_BLOCKING : o.mode;
            if (mode == MODE_PERSISTENT && preq == MPI_REQUEST_NULL) {
                start_call(coll, &c, dt, mop, 1, &preq);
                t0 = now();
            }
            run_call(coll, &c, dt, mop, prewarm_barrier, mode, &preq, 0);
            double t1 = now();
            all[it] = t1 - t0;
            if (coll == C_PINGPONG) all[it] = rank < 2 ? 0.5 * all[it] : 0;
            if (o.validate && !prewarm_barrier) check_call(&c);
        }

        const double loop_per_call = (now() - loop_start) / iters - o.app_us * 1e-6;

        /* ---- statistics ---- */
        const int n = warmup + iters;
        if (counted && rank == 0 && served_len < sizeof(served_line) - 32)
            served_len += (size_t)snprintf(served_line + served_len, sizeof(served_line) - served_len,
                                           " %zu=%.2f", size, (double)(mpit_served() - served_before) / iters);
        MPI_Reduce(all, slowest, n, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        double *times = all + warmup;
        double sum = 0;
        for (int i = 0; i < iters; i++) sum += times[i];
        double mean = o.app_us > 0 ? loop_per_call : sum / iters;
        qsort(times, (size_t)iters, sizeof(double), cmp_double);
        double median = median_sorted(times, iters);
        double in[3] = { mean, -mean, median }, out[3];
        if (coll == C_PINGPONG && rank >= 2) in[0] = in[1] = in[2] = -1e30;  /* not in pingpong */
        MPI_Reduce(in, out, 3, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (o.validate) {
            unsigned long mine = nerrors - errors_before_size, sum_err = 0;
            MPI_Reduce(&mine, &sum_err, 1, MPI_UNSIGNED_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
            if (rank == 0 && sum_err)
                printf("# VALIDATION FAILED: %s size=%zu: %lu mismatching call(s) (summed over ranks)\n",
                       coll_names[coll], size, sum_err);
        }
        if (rank == 0) {
            if (first && warmup > 0) {
                /* the untimed calls before the first timed one: a set-up shows here */
                int worst = 0;
                for (int i = 1; i < warmup; i++) if (slowest[i] > slowest[worst]) worst = i;
                qsort(slowest, (size_t)warmup, sizeof(double), cmp_double);
                printf("# untimed calls before the first size: %d (%d prewarm%s), slowest %.2f us (call %d), "
                       "median %.2f us\n", warmup, prewarm, coll == C_PINGPONG ? " barriers" : "",
                       slowest[warmup - 1] * 1e6, worst + 1, median_sorted(slowest, warmup) * 1e6);
            }
            double *ct = slowest + warmup;
            qsort(ct, (size_t)iters, sizeof(double), cmp_double);
            if (o.full)
                printf("  %-10zu %16.2f %12.2f %12.2f %12.2f", size, out[0] * 1e6, -out[1] * 1e6,
                       out[0] * 1e6, out[2] * 1e6);
            else
                printf("  %-10zu %16.2f", size, out[0] * 1e6);
            printf(" %12.2f %12.2f %12.2f", ct[0] * 1e6, median_sorted(ct, iters) * 1e6, ct[iters - 1] * 1e6);
            if (!o.overlap) printf("\n");
            fflush(stdout);
        }
        if (o.overlap) {
            /* OSU's overlap: the same calls with computation between start
             * and wait, OVERLAP_FACTOR x the pure latency (the slowest rank's
             * median call); Compute and Overall are per-rank medians */
            double pure = out[2], meds[2], maxs[2];
            MPI_Bcast(&pure, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            long loops = (long)(OVERLAP_FACTOR * pure * loops_per_sec);
            for (int it = 0; it < iters; it++, t++) {
                struct call c = { .coll = coll, .kind = kind, .op = o.op, .root = root, .count = count,
                                  .bytes = bytes, .size = size, .t = t, .win = win };
                if (coll != C_BARRIER) { c.sbuf = pool; c.rbuf = c.sbuf + align_up(sbytes, 4096); }
                c.sarg = c.sbuf;
                if (o.inplace && (coll == C_ALLREDUCE || coll == C_ALLGATHER || coll == C_ALLTOALL ||
                                  (coll == C_REDUCE && rank == root)))
                    c.sarg = MPI_IN_PLACE;
                if (o.sync) sync_barrier(&o);
                double t0 = now();
                compute(loops);
                double t1 = now();
                if (o.sync) sync_barrier(&o);
                double t2 = now();
                run_call(coll, &c, dt, mop, 0, o.mode, &preq, loops);
                all[it] = t1 - t0;
                slowest[it] = now() - t2;
            }
            /* medians per rank (a descheduled call shows in no column), the
             * slowest rank's */
            qsort(all, (size_t)iters, sizeof(double), cmp_double);
            qsort(slowest, (size_t)iters, sizeof(double), cmp_double);
            meds[0] = median_sorted(all, iters);
            meds[1] = median_sorted(slowest, iters);
            MPI_Reduce(meds, maxs, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            if (rank == 0) {
                double ov = 100.0 - (maxs[1] - maxs[0]) / pure * 100.0;
                printf(" %12.2f %12.2f %9.1f\n", maxs[0] * 1e6, maxs[1] * 1e6, ov < 0 ? 0 : ov);
                fflush(stdout);
            }
        }
        if (preq != MPI_REQUEST_NULL) MPI_Request_free(&preq);
        first = 0;
        if (sizeless) break;
    }
    if (counted) {
        if (rank == 0) printf("# served by coll/rdma (of each size's timed calls, rank 0):%s\n", served_line);
        mpit_served_close();
    }

    int failed = 0;
    if (o.validate) {
        unsigned long e = nerrors, etot = 0, c = ncalls_checked, ctot = 0;
        MPI_Allreduce(&e, &etot, 1, MPI_UNSIGNED_LONG, MPI_SUM, MPI_COMM_WORLD);
        MPI_Reduce(&c, &ctot, 1, MPI_UNSIGNED_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        failed = etot != 0;
        if (rank == 0) {
            printf("# validation %s: %s np=%d, %lu calls checked over all ranks, %lu mismatch(es)\n",
                   failed ? "FAILED" : "passed", coll_names[coll], P, ctot, etot);
            fflush(stdout);
        }
    }

    if (win != MPI_WIN_NULL) {
        MPI_Win_unlock_all(win);
        MPI_Win_free(&win);
    }
    free(all);
    free(slowest);
    free(pool);
    MPI_Finalize();
    return failed ? 1 : 0;
}
