/*
 * Random-program checker: legal MPI programs made from a seed, each result
 * checked against a reference every rank computes locally.
 *
 * A seed gives a program of 20 to 80 steps (--ops N: N), the same on every
 * rank: steps draw from one stream seeded by the seed, and every choice
 * depends only on what every rank knows (the communicator pool, the
 * outstanding requests).  Delays, early MPI_Test calls and completion
 * orders come from each rank's own stream (seed, rank).  Steps:
 *   coll     a collective on a communicator of the pool: barrier, bcast,
 *            allreduce, reduce, allgather, alltoall (coll/rdma's six:
 *            blocking, MPI_I* or persistent) or scan, gather, gatherv,
 *            alltoallv (never served: blocking or MPI_I*); 0 bytes to 1 MiB
 *            around the thresholds (8, 32, 56, 57, 64, 4 KiB, 16 KiB,
 *            64 KiB...), random roots, MPI_IN_PLACE, byte, int8, int,
 *            double or a vector type with gaps, sum, max, min, band or a
 *            user-defined commutative op (inputs: test_random_data.c)
 *   start    MPI_Start of an idle persistent request (new inputs)
 *   complete a set of outstanding requests, each rank in its own order and
 *            way: MPI_Wait, MPI_Waitall, MPI_Waitany, MPI_Waitsome, MPI_Test
 *   pfree    MPI_Request_free of an idle persistent request
 *   dup, idup, split (random colors, MPI_UNDEFINED, keys), create (a random
 *            subgroup, maybe reversed): a new communicator of the pool, from
 *            one of it or MPI_COMM_WORLD; idups of several outstanding
 *   free     MPI_Comm_free (on every member), requests on it outstanding or
 *            idle persistent ones not freed (completed or freed later)
 *   skew     each rank its own role: nothing, a brief MPI_Iprobe loop, a
 *            sleep of up to 25 ms then as long a loop, or MPI_Test loops
 * Between steps a rank may sleep, spin MPI_Iprobe or MPI_Test its requests.
 * The end completes every request and frees every communicator.
 *
 * Restrictions, where Open MPI 4.1.4's own components fail legal programs:
 *  - while an MPI_Comm_idup of d is outstanding, d gets blocking
 *    collectives only: no MPI_I*, *_init, MPI_Start, no other (i)dup,
 *    split or create of d.  The idup's communicator-ID agreement runs
 *    MPI_Iallreduce on d from inside opal_progress, so it takes a libnbc
 *    tag at a rank-local moment: a nonblocking collective on d then gets
 *    another rank's data, and two idups of d with blocking calls between
 *    hang;
 *  - MPI_Comm_free with requests outstanding on the communicator only where
 *    libnbc runs them in one round (MPI_Ibarrier at 2 ranks,
 *    MPI_Iallgather, MPI_Igather, MPI_Igatherv, MPI_Ialltoallv, MPI_Ialltoall
 *    not in place): libnbc keeps no reference on the communicator, and a
 *    later round crashes in MPI_Wait (MPI_Iallreduce, MPI_Iscan, MPI_Ibarrier
 *    at 3 ranks, started persistent requests...).
 *
 * Usage: test_random --seed S [--count K] [--ops N] [--focus idup|free|skew]
 *          [--without idup,free,skew,persist,nb,comm,handon,big,inplace]
 *          [--seed-timeout T] [--trace] [--backtrace]
 * runs seeds S .. S+K-1 in one MPI_Init; rank 0 prints "seed N" before each
 * and "digest seed N: HEX" after it (a hash of every result: the same with
 * and without coll/rdma).  --focus weighs the steps towards a shape;
 * --without leaves features out (free: only the end's frees, each after a
 * barrier).  A wrong result prints "rank R: FAIL seed N step I: ..." and
 * aborts; a seed that takes more than T seconds (default 20) prints
 * "rank R: TIMEOUT seed N step I (kind) after T s: what it waits for" (and
 * the stack with --backtrace) and exits 3; --trace prints every step.
 * Replay: mpirun -np P test_random --seed N --count 1 with the run's --mca
 * settings and options; tests/mpi/run_random.sh prints the command.
 */
#define _DEFAULT_SOURCE
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_random.h"

static const char *xname[] = {"idup", "free",   "skew", "persist", "nb",
                              "comm", "handon", "big",  "inplace"};
static int seed_timeout = 20, fixed_ops, want_backtrace;
static volatile sig_atomic_t cur_kind;

static void watchdog(int sig)
{
    char b[800];
    int n = snprintf(b, sizeof b, "rank %d: TIMEOUT seed %llu step %d (%s) after %d s: %s\n", wrank,
                     (unsigned long long) cur_seed, cur_step, rt_kind_name[cur_kind], seed_timeout,
                     waitdesc);
    void *frames[48];
    (void) sig;
    if (write(2, b, (size_t) n) > 0 && want_backtrace) {
        backtrace_symbols_fd(frames, backtrace(frames, 48), 2);
    }
    _exit(3);
}

/* the next step's kind: a function of the program's state only */
static int choose(const uint64_t *u)
{
    static const int base[NK] = {50, 8, 15, 3, 3, 3, 3, 2, 4, 5};
    int w[NK], total = 0, ns = free_slot() >= 0, nr = free_req() >= 0;
    memcpy(w, base, sizeof w);
    if (X_IDUP == focus) {
        w[K_IDUP] = 20;
    } else if (X_FREE == focus) {
        w[K_FREE] = 12;
        w[K_SKEW] = 12;
    } else if (X_SKEW == focus) {
        w[K_DUP] = w[K_SPLIT] = 8;
        w[K_SKEW] = 15;
    }
    w[K_START] *= pick_req(0, startable) >= 0;
    w[K_COMPLETE] *= pick_req(0, active) >= 0;
    w[K_PFREE] *= pick_req(0, idle) >= 0;
    w[K_DUP] *= ns && !(without & X_COMM);
    w[K_SPLIT] *= ns && !(without & X_COMM);
    w[K_CREATE] *= ns && !(without & X_COMM);
    if (ns && pick_slot(0, live) < 0) {
        w[K_DUP] = 10; /* a dup of MPI_COMM_WORLD */
    }
    w[K_IDUP] *= ns && nr && pick_slot(0, parent) >= 0 && !(without & X_IDUP);
    w[K_FREE] *= pick_slot(0, freeable) >= 0 && !(without & X_FREE);
    w[K_SKEW] *= !(without & X_SKEW);
    w[K_COLL] *= pick_slot(0, live) >= 0;
    for (int k = 0; k < NK; k++) {
        total += w[k];
    }
    if (0 == total) {
        return -1;
    }
    for (int k = 0, x = (int) (u[0] % (uint64_t) total); k < NK; x -= w[k++]) {
        if (x < w[k]) {
            return k;
        }
    }
    return -1;
}

static void run_seed(unsigned long long seed)
{
    uint64_t u[16], all;
    int nsteps;
    cur_seed = seed;
    prog = rnd_mix(seed, 0x7261);
    local = rnd_mix(seed ^ 0x6c6f63616cull, (uint64_t) wrank + 1);
    digest = 0;
    memset(reqs, 0, sizeof reqs);
    memset(slots, 0, sizeof slots);
    alarm((unsigned) seed_timeout);
    slots[0].state = S_LIVE;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &slots[0].comm));
    set_world(&slots[0]);
    nsteps = fixed_ops ? fixed_ops : 20 + (int) (rnd_next(&prog) % 61);
    for (int i = 0; i <= nsteps + NREQS + NSLOTS; i++) {
        int k;
        for (int j = 0; j < 16; j++) {
            u[j] = rnd_next(&prog);
        }
        cur_step = i;
        jitter();
        if (i >= nsteps) { /* the end: complete, free, free */
            k = pick_req(0, active) >= 0 ? K_COMPLETE : pick_req(0, idle) >= 0 ? K_PFREE : K_FREE;
            if (K_COMPLETE == k) {
                u[1] = ~0ull;
            }
            if (K_FREE == k && pick_slot(0, freeable) < 0) {
                break;
            }
        } else if ((k = choose(u)) < 0) {
            continue;
        }
        cur_kind = k;
        snprintf(waitdesc, sizeof waitdesc, "%s", rt_kind_name[k]);
        if (trace) {
            fprintf(stderr, "rank %d: seed %llu step %d: %s\n", wrank, seed, i, rt_kind_name[k]);
        }
        switch (k) {
        case K_COLL:
            step_coll(u, i);
            break;
        case K_START:
            step_start(u, i);
            break;
        case K_COMPLETE:
            step_complete(u);
            break;
        case K_PFREE:
            step_pfree(u);
            break;
        case K_FREE:
            step_free(u);
            break;
        case K_SKEW:
            step_skew(u);
            break;
        default:
            step_newcomm(k, u, i);
        }
    }
    OK(MPI_Reduce(&digest, &all, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD));
    alarm(0);
    if (0 == wrank) {
        printf("digest seed %llu: %016llx\n", seed, (unsigned long long) all);
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    unsigned long long seed = 1, count = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--trace")) {
            trace = 1;
        } else if (!strcmp(a, "--backtrace")) {
            want_backtrace = 1;
        } else if (NULL == v) {
            FAIL("option %s needs a value", a);
        } else if (!strcmp(a, "--seed")) {
            seed = strtoull(argv[++i], NULL, 0);
        } else if (!strcmp(a, "--count")) {
            count = strtoull(argv[++i], NULL, 0);
        } else if (!strcmp(a, "--ops")) {
            fixed_ops = atoi(argv[++i]);
        } else if (!strcmp(a, "--seed-timeout")) {
            seed_timeout = atoi(argv[++i]);
        } else if (!strcmp(a, "--focus") || !strcmp(a, "--without")) {
            int mask = 0;
            for (int k = 0; k < (int) (sizeof xname / sizeof xname[0]); k++) {
                mask |= strstr(v, xname[k]) ? 1 << k : 0;
            }
            if (!strcmp(a, "--focus")) {
                focus = mask;
            } else {
                without = mask;
            }
            i++;
        } else {
            FAIL("unknown option %s", a);
        }
    }
    world_slot.comm = MPI_COMM_WORLD;
    set_world(&world_slot);
    signal(SIGALRM, watchdog);
    rt_data_init();
    for (unsigned long long s = seed; s < seed + count; s++) {
        if (0 == wrank) {
            printf("seed %llu\n", s);
            fflush(stdout);
        }
        run_seed(s);
    }
    rt_data_fini();
    if (0 == wrank) {
        printf("test_random OK\n");
    }
    MPI_Finalize();
    return 0;
}
