/*
 * Part of test_coll: thousands of back-to-back calls with random delays on
 * several communicators: allgather, alltoall, reduce and barrier (mix);
 * barrier, bcast and allreduce, barrier semantics checked afterwards
 * (stress).
 */
#include "test_coll.h"

/* ------------------------------------------------------------------ mix */

/*
 * Back-to-back allgather, alltoall, reduce and barrier calls (thousands, the
 * count of --stress-calls / 4) on world, a dup and a split, small blocks, a
 * random busy-wait before a quarter of the calls on each rank.
 */
void test_mix(void)
{
    cur_test = "mix";
    MPI_Comm dupw, sub2;
    MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dupw));
    MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, world_rank, &sub2));
    MPI_Comm cs[3] = {MPI_COMM_WORLD, dupw, sub2};
    const char *cn[3] = {"world", "dup(world)", "split%2"};
    rng_t rng = {opt_seed ^ 0x313ULL};
    rng_t mine = {mix64(opt_seed ^ (0x5151ULL + (uint64_t)world_rank)) | 1};
    const ty_t *tint = find_ar_type("int32"), *tu8 = find_ar_type("uint8");
    char label[96];
    long calls = opt_stress_calls / 4 > 0 ? opt_stress_calls / 4 : 1;
    for (long i = 0; i < calls; i++) {
        int c = (int)rng_below(&rng, 3);
        int what = (int)rng_below(&rng, 7);
        uint64_t tag = rng_next(&rng), rnd = rng_next(&rng);
        int csize;
        MPI_Comm_size(cs[c], &csize);
        if (rng_below(&mine, 4) == 0) {
            spin_ns((int64_t)rng_below(&mine, 30001));
        }
        snprintf(label, sizeof(label), "mix call %ld on %s", i, cn[c]);
        int n = (int)(rnd % (rnd & 0x100 ? 9 : 300)) + 1;
        if (what == 0) {
            MPI_CHECK(MPI_Barrier(cs[c]));
            n_barrier++;
        } else if (what <= 2) {
            blocks_case(cs[c], what == 2, (rnd >> 20) & 1 ? tint : tu8, n, L_CONTIG, L_CONTIG,
                        (int)((rnd >> 21) & 1), tag, label);
        } else {
            reduce_case(cs[c], tint, &ops[(rnd >> 24) % 2 ? O_SUM : O_MAX], (size_t)n,
                        (int)((rnd >> 32) % (uint64_t)csize), (int)((rnd >> 40) & 1), tag, label);
        }
    }
    MPI_Comm_free(&sub2);
    MPI_Comm_free(&dupw);
}

/* ------------------------------------------------------------------ stress */

typedef struct {
    int64_t in, out;
    int comm; /* 0 world, 1 dup, 2 split%2 */
} bstamp_t;

void test_stress(void)
{
    cur_test = "stress";
    MPI_Comm dupw, sub2;
    MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dupw));
    MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, world_rank, &sub2));
    MPI_Comm cs[3] = {MPI_COMM_WORLD, dupw, sub2};
    const char *cn[3] = {"world", "dup(world)", "split%2"};
    rng_t rng = {opt_seed ^ 0x57e55ULL};                          /* shared */
    rng_t mine = {mix64(opt_seed ^ (0xde1a7ULL + (uint64_t)world_rank)) | 1}; /* per rank */
    bstamp_t *bs = xmalloc(sizeof(bstamp_t) * (size_t)opt_stress_calls);
    long nb = 0;
    char label[96];
    /* exact-checkable (type, op) pairs */
    int pairs[MAX_TYPES * NOPS][2], npairs = 0;
    for (int ti = 0; ti < n_ar_general; ti++) {
        for (int oi = 0; oi < NOPS; oi++) {
            if (op_valid(&ar_types[ti], ops[oi].k)) {
                pairs[npairs][0] = ti;
                pairs[npairs][1] = oi;
                npairs++;
            }
        }
    }
    for (long i = 0; i < opt_stress_calls; i++) {
        int c = (int)rng_below(&rng, 3);
        int what = (int)rng_below(&rng, 10);
        uint64_t tag = rng_next(&rng);
        uint64_t szsel = rng_below(&rng, 100);
        uint64_t rnd = rng_next(&rng);
        int csize;
        MPI_Comm_size(cs[c], &csize);
        /* random short busy-wait delay on random ranks */
        if (rng_below(&mine, 4) == 0) {
            spin_ns((int64_t)rng_below(&mine, 50001));
        }
        snprintf(label, sizeof(label), "stress call %ld on %s", i, cn[c]);
        if (what < 2) {
            bs[nb].comm = c;
            bs[nb].in = now_ns();
            MPI_CHECK(MPI_Barrier(cs[c]));
            bs[nb].out = now_ns();
            nb++;
            n_barrier++;
        } else {
            size_t maxb = szsel < 70 ? 64 : szsel < 95 ? 1024 : opt_max_bytes;
            if (what < 6) {
                const ty_t *t = &bc_types[rnd % (uint64_t)n_bc_types];
                size_t count = (size_t)((rnd >> 8) % (maxb / (size_t)t->size + 1));
                bcast_case(cs[c], t, (int)((rnd >> 40) % (uint64_t)csize), count, 0, tag, label);
            } else {
                int *p = pairs[rnd % (uint64_t)npairs];
                const ty_t *t = &ar_types[p[0]];
                size_t count = (size_t)((rnd >> 8) % (maxb / (size_t)t->size + 1));
                allreduce_case(cs[c], t, &ops[p[1]], count, (int)((rnd >> 40) & 1), tag, label);
            }
        }
    }
    /* barrier semantics of every stress barrier: rank 0 gathers the stamps
     * (MPI_Gather is not served by coll/rdma) */
    cur_test = "stress-barrier";
    bstamp_t *all = NULL;
    if (world_rank == 0) {
        all = xmalloc(sizeof(bstamp_t) * (size_t)nb * (size_t)world_size);
    }
    MPI_CHECK(MPI_Gather(bs, (int)(nb * (long)sizeof(bstamp_t)), MPI_BYTE, all,
                         (int)(nb * (long)sizeof(bstamp_t)), MPI_BYTE, 0, MPI_COMM_WORLD));
    if (world_rank == 0) {
        report_t rp = {"stress barriers: exit >= last entry in the communicator", 0};
        for (long b = 0; b < nb; b++) {
            for (int color = 0; color < 2; color++) {
                int64_t max_in = INT64_MIN;
                int max_r = -1;
                for (int r = 0; r < world_size; r++) {
                    bstamp_t *s = &all[(size_t)r * (size_t)nb + (size_t)b];
                    if (s->comm == 2 && r % 2 != color) {
                        continue;
                    }
                    if (s->in > max_in) {
                        max_in = s->in;
                        max_r = r;
                    }
                }
                for (int r = 0; r < world_size; r++) {
                    bstamp_t *s = &all[(size_t)r * (size_t)nb + (size_t)b];
                    if (s->comm == 2 && r % 2 != color) {
                        continue;
                    }
                    if (s->out < max_in) {
                        char es[128], gs[128];
                        snprintf(es, sizeof(es), "barrier %ld (%s): exit after entry of rank %d", b,
                                 cn[s->comm], max_r);
                        snprintf(gs, sizeof(gs), "rank %d left %.1f us before it", r,
                                 (double)(max_in - s->out) / 1e3);
                        report_bad(&rp, (size_t)b, es, gs);
                    }
                }
                if (all[(size_t)b].comm != 2) {
                    break;
                }
            }
        }
        report_end(&rp);
        free(all);
    }
    free(bs);
    MPI_Comm_free(&sub2);
    MPI_Comm_free(&dupw);
}
