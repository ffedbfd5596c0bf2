/*
 * Part of test_robust (tests/robust/test_robust.c): the sections mix (a
 * stream of mixed collectives on world and a reversed sub-communicator,
 * random roots, sizes and skew, a rank killed on request) and burst
 * (back-to-back bcasts, the last rank late).
 */
#include "test_robust.h"

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

void run_mix(void)
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
void run_burst(void)
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
        CHECK_MPI(MPI_Bcast(v, (int) opt_count, MPI_INT64_T, 0, MPI_COMM_WORLD));
        expect_i64("bcast", v, want, (size_t) opt_count);
    }
}
