/*
 * Part of test_coll: the collectives on split, partial and dup
 * communicators, calls interleaved across communicators, dup/free cycles;
 * large allreduces around ring segment boundaries; the allreduce on
 * sub-communicators of every size (sweep).
 */
#include "test_coll.h"

/* ------------------------------------------------------------------ communicators */

void comm_suite(MPI_Comm comm, const char *label, int iters)
{
    test_barrier(comm, label, 1, 50);
    test_bcast(comm, label, iters, 1);
    test_allreduce(comm, label, iters, 1);
    test_blocks(comm, 0, label, 1, 1);
    test_blocks(comm, 1, label, 1, 1);
    test_reduce(comm, label, 1, 1);
}

static void check_split_rank(MPI_Comm sub, int color, int (*colorf)(int), const char *what)
{
    /* key reverses the order: new rank = number of same-color ranks above us */
    int expect = 0;
    for (int r = world_rank + 1; r < world_size; r++) {
        if (colorf(r) == color) {
            expect++;
        }
    }
    int got;
    MPI_Comm_rank(sub, &got);
    if (got != expect) {
        fail_msg("%s: rank in split communicator is %d, expected %d (key reverses order)", what, got,
                 expect);
    }
}

static int color2(int r) { return r % 2; }
static int color3(int r) { return r % 3; }

/* A small allreduce check usable anywhere. */
static void quick_allreduce(MPI_Comm comm, uint64_t tag, const char *label)
{
    static const char *tn[] = {"int32", "int8", "double", "uint64"};
    const ty_t *t = find_ar_type(tn[tag % 4]);
    size_t count = 1 + (size_t)(tag % 37);
    allreduce_case(comm, t, &ops[O_SUM], count, (int)((tag >> 8) & 1), tag, label);
}

/* Large allreduces (up to --max-bytes) at counts around the ring's block
 * and segment boundaries for --ring-seg bytes per segment: k*P segments
 * +-1 element, counts not divisible by P, fewer elements than ranks, and
 * the largest count.  Exact checks for integer and exact float inputs, and
 * non-exact float sums with identical bits on every rank (unless
 * --any-order). */
void test_large(MPI_Comm comm, const char *label)
{
    static const struct { const char *type; opk_t k; } cases[] = {
        {"uint8", O_SUM}, {"int32", O_MAX}, {"int32", O_BXOR}, {"int64", O_SUM},
        {"double", O_SUM}, {"float", O_PROD}, {"uint16", O_PROD}};
    int size;
    MPI_Comm_size(comm, &size);
    cur_test = "large";
    for (size_t ci = 0; ci < sizeof(cases) / sizeof(cases[0]) + 2; ci++) {
        int random = ci >= sizeof(cases) / sizeof(cases[0]); /* float, double random sums */
        const ty_t *t = find_ar_type(random ? (ci % 2 ? "double" : "float") : cases[ci].type);
        size_t seg = opt_ring_seg / (size_t)t->size, maxc = opt_max_bytes / (size_t)t->size;
        size_t counts[40];
        int nc = 0;
        counts[nc++] = 1;
        counts[nc++] = (size_t)size - 1;
        counts[nc++] = seg + 1;
        for (size_t k = 1; k <= 3; k++) {
            static const long d[] = {-1, 0, 1, 5};
            for (int di = 0; di < 4; di++) {
                long c = (long)(k * (size_t)size * seg) + d[di] * (di == 3 ? size + 1 : 1);
                counts[nc++] = (size_t)c;
            }
        }
        counts[nc++] = maxc - 1;
        counts[nc++] = maxc;
        for (int i = 0; i < nc; i++) {
            size_t count = counts[i];
            if (count < 1 || count > maxc) {
                continue;
            }
            uint64_t tag = mktag(0x1a, (uint64_t)ci, count, (uint64_t)size, 0);
            if (random) {
                allreduce_float_random(comm, t, count, i % 2, tag, label);
            } else {
                allreduce_case(comm, t, &ops[cases[ci].k], count, i % 2, tag, label);
            }
        }
    }
}

/* Float PROD with zeros: element i is zero at rank i % (size + 1) only (so
 * some elements have no zero), the other factors are +-1, 2 and 0.5, so
 * every product is exact and its sign (of zero too) does not depend on the
 * order.  Bitwise against the local product. */
static void allreduce_prod_zeros(MPI_Comm comm, const ty_t *t, size_t count, int inplace,
                                 uint64_t tag, const char *label)
{
    static const double f[4] = {1.0, 2.0, -1.0, 0.5};
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    size_t nbytes = count * (size_t)t->size;
    char *sbuf = xmalloc(nbytes + 1), *rbuf = xmalloc(nbytes + 1), *want = xmalloc(nbytes + 1);
    for (size_t i = 0; i < count; i++) {
        double p = 1.0;
        for (int r = 0; r < size; r++) {
            double x = i % (size_t)(size + 1) == (size_t)r ? 0.0 : f[hash3(tag, (uint64_t)r, i) % 4];
            p *= x;
            if (r == rank) {
                store_elem(t, inplace ? rbuf : sbuf, i, 0, x);
            }
        }
        store_elem(t, want, i, 0, p);
    }
    MPI_CHECK(MPI_Allreduce(inplace ? MPI_IN_PLACE : sbuf, rbuf, (int)count, t->dt, MPI_PROD, comm));
    n_allreduce++;
    char desc[200];
    snprintf(desc, sizeof(desc), "%s allreduce zeros %s PROD count %zu%s", label, t->name, count,
             inplace ? " in_place" : "");
    report_t rp = {desc, 0};
    for (size_t i = 0; i < count; i++) {
        if (memcmp(rbuf + i * (size_t)t->size, want + i * (size_t)t->size, (size_t)t->size)) {
            char es[64], gs[64];
            snprintf(es, sizeof(es), "%g", load_flt(t, want, i));
            snprintf(gs, sizeof(gs), "%g", load_flt(t, rbuf, i));
            report_bad(&rp, i, es, gs);
        }
    }
    report_end(&rp);
    free(want);
    free(sbuf);
    free(rbuf);
}

/* The allreduce on communicators of every size from --sweep-min to np
 * (ranks 0 .. P-1 of world, split), so one mpirun covers every P: every
 * valid (type, op) pair at a few counts (in-place alternating), float
 * random sums (identical bits unless --any-order) and float PROD with
 * zeros, then back-to-back calls with random delays. */
void test_sweep(void)
{
    static const size_t base_counts[] = {1, 2, 7, 64, 1001};
    char label[96];
    cur_test = "sweep";
    for (int P = opt_sweep_min; P <= world_size; P++) {
        MPI_Comm sub;
        MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, world_rank < P ? 0 : MPI_UNDEFINED, world_rank, &sub));
        if (sub == MPI_COMM_NULL) {
            continue;
        }
        snprintf(label, sizeof(label), "sweep P=%d", P);
        for (int ti = 0; ti < n_ar_general; ti++) {
            const ty_t *t = &ar_types[ti];
            for (int oi = 0; oi < NOPS; oi++) {
                if (!op_valid(t, ops[oi].k)) {
                    continue;
                }
                for (size_t ci = 0; ci < sizeof(base_counts) / sizeof(base_counts[0]); ci++) {
                    size_t count = base_counts[ci];
                    int ip = (int)((ci + (size_t)oi + (size_t)ti) % 2);
                    if (count * (size_t)t->size > opt_max_bytes) {
                        count = opt_max_bytes / (size_t)t->size;
                    }
                    allreduce_case(sub, t, &ops[oi],
                                   count, ip, mktag(0x5e, (uint64_t)P, (uint64_t)ti * 16 + (uint64_t)oi, count, (uint64_t)ip),
                                   label);
                }
            }
        }
        for (int ti = 0; ti < n_ar_main; ti++) {
            const ty_t *t = &ar_types[ti];
            if (t->kind != K_FLT && t->kind != K_DBL) {
                continue;
            }
            for (size_t ci = 0; ci < sizeof(base_counts) / sizeof(base_counts[0]); ci++) {
                size_t count = base_counts[ci];
                if (count * (size_t)t->size > opt_max_bytes) {
                    count = opt_max_bytes / (size_t)t->size;
                }
                allreduce_float_random(sub, t, count, (int)(ci % 2),
                                       mktag(0x5f, (uint64_t)P, (uint64_t)ti, count, 0), label);
                allreduce_prod_zeros(sub, t, count, (int)((ci + 1) % 2),
                                     mktag(0x50, (uint64_t)P, (uint64_t)ti, count, 0), label);
            }
        }
        /* back to back, random delays on random ranks */
        rng_t mine = {mix64(opt_seed ^ (0x5eedULL + (uint64_t)world_rank)) | 1};
        for (int i = 0; i < 200; i++) {
            if (rng_below(&mine, 3) == 0) {
                spin_ns((int64_t)rng_below(&mine, 30001));
            }
            snprintf(label, sizeof(label), "sweep P=%d back-to-back %d", P, i);
            quick_allreduce(sub, mktag(0x5b, (uint64_t)P, (uint64_t)i, 0, 0), label);
        }
        MPI_CHECK(MPI_Comm_free(&sub));
    }
}

void test_comm(int iters)
{
    char label[128];
    MPI_Comm sub2, sub3, dupw;
    cur_test = "comm";
    MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, color2(world_rank), world_size - world_rank, &sub2));
    MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, color3(world_rank), -world_rank, &sub3));
    check_split_rank(sub2, color2(world_rank), color2, "split rank%2");
    check_split_rank(sub3, color3(world_rank), color3, "split rank%3");

    snprintf(label, sizeof(label), "split%%2 color %d", world_rank % 2);
    comm_suite(sub2, label, iters);
    snprintf(label, sizeof(label), "split%%3 color %d", world_rank % 3);
    comm_suite(sub3, label, iters);

    /* a split that leaves some ranks out */
    MPI_Comm part;
    int pc = (world_rank % 4 == 3) ? MPI_UNDEFINED : world_rank % 2;
    MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, pc, world_rank * 7 % 5, &part));
    if (part != MPI_COMM_NULL) {
        snprintf(label, sizeof(label), "split undefined%%4==3 color %d", pc);
        comm_suite(part, label, 1);
    }

    /* interleave several communicators call by call */
    MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dupw));
    cur_test = "comm-interleave";
    {
        MPI_Comm cs[4] = {MPI_COMM_WORLD, sub2, sub3, dupw};
        const char *cn[4] = {"world", "split%2", "split%3", "dup(world)"};
        rng_t rng = {opt_seed ^ 0x17e4ULL};
        for (int i = 0; i < 400 * iters; i++) {
            int c = (int)rng_below(&rng, 4);
            int what = (int)rng_below(&rng, 3);
            uint64_t tag = rng_next(&rng);
            int csize;
            MPI_Comm_size(cs[c], &csize);
            snprintf(label, sizeof(label), "interleave %d on %s", i, cn[c]);
            if (what == 0) {
                MPI_CHECK(MPI_Barrier(cs[c]));
                n_barrier++;
            } else if (what == 1) {
                const ty_t *t = &bc_types[tag % (uint64_t)n_bc_types];
                bcast_case(cs[c], t, (int)((tag >> 16) % (uint64_t)csize), (size_t)((tag >> 24) % 300),
                           0, tag, label);
            } else {
                quick_allreduce(cs[c], tag, label);
            }
        }
    }

    /* dup/free cycles, each followed by an allreduce (and every 10th by a
     * bcast and a barrier) on the new communicator */
    cur_test = "comm-dup";
    for (long i = 0; i < opt_dup_cycles; i++) {
        MPI_Comm d;
        MPI_Comm parent = (i % 5 == 4) ? sub2 : MPI_COMM_WORLD;
        MPI_CHECK(MPI_Comm_dup(parent, &d));
        snprintf(label, sizeof(label), "dup cycle %ld of %s", i, parent == sub2 ? "split%2" : "world");
        quick_allreduce(d, mktag(0xd0, (uint64_t)i, 0, 0, 0), label);
        if (i % 10 == 0) {
            int ds;
            MPI_Comm_size(d, &ds);
            bcast_case(d, &bc_types[(size_t)i % (size_t)n_bc_types], (int)(i % ds), 17 + (size_t)(i % 50),
                       0, mktag(0xd1, (uint64_t)i, 0, 0, 0), label);
            MPI_CHECK(MPI_Barrier(d));
            n_barrier++;
        }
        MPI_CHECK(MPI_Comm_free(&d));
    }
    /* several communicators alive at once, used after creation of all */
    {
        enum { NLIVE = 16 };
        MPI_Comm live[NLIVE];
        for (int i = 0; i < NLIVE; i++) {
            MPI_CHECK(MPI_Comm_dup(i % 2 ? sub3 : MPI_COMM_WORLD, &live[i]));
        }
        for (int rep = 0; rep < 3; rep++) {
            for (int i = NLIVE - 1; i >= 0; i--) {
                snprintf(label, sizeof(label), "live dup %d rep %d", i, rep);
                quick_allreduce(live[i], mktag(0xd2, (uint64_t)i, (uint64_t)rep, 0, 0), label);
            }
        }
        for (int i = 0; i < NLIVE; i++) {
            MPI_CHECK(MPI_Comm_free(&live[i]));
        }
    }
    /* barrier semantics on a dup after all that */
    cur_test = "comm-barrier";
    test_barrier(dupw, "dup(world) after cycles", 1, 10);

    if (part != MPI_COMM_NULL) {
        MPI_Comm_free(&part);
    }
    MPI_Comm_free(&dupw);
    MPI_Comm_free(&sub3);
    MPI_Comm_free(&sub2);
}
