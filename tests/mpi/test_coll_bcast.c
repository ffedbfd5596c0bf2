/*
 * Part of test_coll: MPI_Barrier (nobody leaves before the last one
 * entered, checked with timestamps) and MPI_Bcast (every type, root,
 * count, aligned and misaligned buffers, guard after the data).
 */
#include "test_coll.h"

/* ------------------------------------------------------------------ barrier */

/* One timed barrier: ranks in `late` (bit r of a mask, or late_rank) sleep
 * sleep_ns before entering.  Afterwards every rank checks via gather_p2p that
 * no rank left before the last one entered. */
static void barrier_timed(MPI_Comm comm, const unsigned char *late, int64_t delay_ns, const char *desc)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_CHECK(MPI_Barrier(comm)); /* line everybody up */
    n_barrier++;
    if (late[rank]) {
        sleep_ns(delay_ns);
    }
    int64_t t[2];
    t[0] = now_ns();
    MPI_CHECK(MPI_Barrier(comm));
    t[1] = now_ns();
    n_barrier++;
    int64_t *all = xmalloc(sizeof(int64_t) * 2 * (size_t)size);
    gather_p2p(t, sizeof(t), all, comm);
    int64_t max_in = all[0];
    int max_r = 0;
    for (int r = 1; r < size; r++) {
        if (all[2 * r] > max_in) {
            max_in = all[2 * r];
            max_r = r;
        }
    }
    report_t rp = {desc, 0};
    for (int r = 0; r < size; r++) {
        if (all[2 * r + 1] < max_in) {
            char es[128], gs[128];
            snprintf(es, sizeof(es), "exit >= entry of rank %d (t=%" PRId64 " ns)", max_r, max_in);
            snprintf(gs, sizeof(gs), "rank %d left at t=%" PRId64 " ns, %.1f us too early", r,
                     all[2 * r + 1], (double)(max_in - all[2 * r + 1]) / 1e3);
            report_bad(&rp, (size_t)r, es, gs);
        }
    }
    free(all);
    report_end(&rp);
}

void test_barrier(MPI_Comm comm, const char *label, int iters, int nplain)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    cur_test = "barrier";
    char desc[160];
    unsigned char *late = xmalloc((size_t)size);
    rng_t rng = {opt_seed ^ 0xba771e7ULL ^ (uint64_t)size};
    for (int it = 0; it < iters; it++) {
        /* back-to-back barriers, nobody late */
        for (int i = 0; i < nplain; i++) {
            MPI_CHECK(MPI_Barrier(comm));
            n_barrier++;
        }
        /* each rank in turn is the late one */
        for (int lr = 0; lr < size; lr++) {
            memset(late, 0, (size_t)size);
            late[lr] = 1;
            snprintf(desc, sizeof(desc), "%s iter %d late rank %d sleeps 2 ms", label, it, lr);
            barrier_timed(comm, late, 2000000, desc);
        }
        /* a random subset is late */
        for (int rep = 0; rep < 3; rep++) {
            for (int r = 0; r < size; r++) {
                late[r] = (unsigned char)(rng_next(&rng) & 1);
            }
            snprintf(desc, sizeof(desc), "%s iter %d random late subset %d", label, it, rep);
            barrier_timed(comm, late, 1000000, desc);
        }
    }
    free(late);
}

/* ------------------------------------------------------------------ bcast */

static void bcast_expected_bytes(uint64_t tag, unsigned char *p, size_t nbytes)
{
    for (size_t j = 0; j < nbytes; j += 8) {
        uint64_t h = hash3(tag, 0xbcbcULL, j / 8);
        size_t n = nbytes - j < 8 ? nbytes - j : 8;
        memcpy(p + j, &h, n);
    }
}

/* Bcast `count` elements of `t` from `root` on `comm`; buffer at `offset`
 * bytes from an aligned allocation.  Checks data, root buffer unchanged, and
 * the guard after the data. */
void bcast_case(MPI_Comm comm, const ty_t *t, int root, size_t count, size_t offset,
                uint64_t tag, const char *label)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    size_t nbytes = count * (size_t)t->size;
    unsigned char *mem = xmalloc(nbytes + offset + GUARD + 16);
    unsigned char *buf = mem + offset;
    unsigned char *exp = xmalloc(nbytes + 1);
    bcast_expected_bytes(tag, exp, nbytes);
    if (rank == root) {
        memcpy(buf, exp, nbytes);
    } else {
        for (size_t j = 0; j < nbytes; j++) {
            buf[j] = (unsigned char)~exp[j]; /* differs from the expected byte everywhere */
        }
    }
    set_guard(buf + nbytes, GUARD);
    MPI_CHECK(MPI_Bcast(buf, (int)count, t->dt, root, comm));
    n_bcast++;
    char desc[200];
    snprintf(desc, sizeof(desc), "%s bcast %s root %d count %zu offset %zu", label, t->name, root,
             count, offset);
    report_t rp = {desc, 0};
    if (memcmp(buf, exp, nbytes) != 0) {
        for (size_t i = 0; i < count; i++) {
            const unsigned char *g = buf + i * (size_t)t->size, *e = exp + i * (size_t)t->size;
            if (memcmp(g, e, (size_t)t->size) != 0) {
                char es[64], gs[64];
                uint64_t ev = 0, gv = 0;
                memcpy(&ev, e, t->size < 8 ? (size_t)t->size : 8);
                memcpy(&gv, g, t->size < 8 ? (size_t)t->size : 8);
                snprintf(es, sizeof(es), "0x%0*" PRIx64, 2 * (t->size < 8 ? t->size : 8), ev);
                snprintf(gs, sizeof(gs), "0x%0*" PRIx64 "%s", 2 * (t->size < 8 ? t->size : 8), gv,
                         rank == root ? " (root buffer modified)" : "");
                report_bad(&rp, i, es, gs);
            }
        }
    }
    report_end(&rp);
    check_guard(buf + nbytes, GUARD, "bcast buffer", desc);
    free(exp);
    free(mem);
}

void test_bcast(MPI_Comm comm, const char *label, int iters, int light)
{
    int size;
    MPI_Comm_size(comm, &size);
    cur_test = "bcast";
    size_t counts[128];
    for (int it = 0; it < iters; it++) {
        for (int root = 0; root < size; root++) {
            for (int ti = 0; ti < n_bc_types; ti++) {
                const ty_t *t = &bc_types[ti];
                if (light && ti % 3 != root % 3 && t->size != 1) {
                    continue;
                }
                int nc = make_counts(opt_max_bytes / (size_t)t->size, counts, light);
                for (int ci = 0; ci < nc; ci++) {
                    /* odd iterations use a misaligned buffer */
                    size_t offset = (it % 2) ? (size_t)(1 + (ci + root) % 7) : 0;
                    uint64_t tag = mktag(0xbc, (uint64_t)it, (uint64_t)root, (uint64_t)ti, counts[ci]);
                    bcast_case(comm, t, root, counts[ci], offset, tag, label);
                }
            }
        }
    }
}

/* ------------------------------------------------------------------ bcast-small */

/*
 * The read bcast's small ring (a message of at most 56 bytes in one cache
 * line with its sequence word).  First every root and every size from 1 to
 * 64 bytes (the line's limit and past it) of bytes, then of every type, on
 * world; then opt_stress_calls back-to-back bcasts on world, a dup and a
 * split, seven in eight of at most 56 bytes (odd counts of any type) and the
 * others up to 4 KiB (the segment ring, same counter and credits), from
 * random roots, with a random busy-wait before a quarter of the calls on
 * each rank: roots run ahead of slow readers up to the ring's depth, then
 * wait for their credits.
 */
void test_bcast_small(void)
{
    cur_test = "bcast-small";
    MPI_Comm dupw, sub2;
    MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dupw));
    MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, world_rank, &sub2));
    MPI_Comm cs[3] = {MPI_COMM_WORLD, dupw, sub2};
    const char *cn[3] = {"world", "dup(world)", "split%2"};
    const ty_t *byte = NULL;
    rng_t rng = {opt_seed ^ 0x5a11bcULL};                                        /* shared */
    rng_t mine = {mix64(opt_seed ^ (0xb5a11ULL + (uint64_t)world_rank)) | 1}; /* per rank */
    char label[96];

    for (int ti = 0; ti < n_bc_types; ti++) {
        byte = 1 == bc_types[ti].size && NULL == byte ? &bc_types[ti] : byte;
    }
    for (int root = 0; root < world_size && NULL != byte; root++) {
        for (size_t n = 1; n <= 64; n++) {
            bcast_case(MPI_COMM_WORLD, byte, root, n, n % 8,
                       mktag(0x5b, 1, (uint64_t)root, 0, n), "small: every size");
        }
    }
    for (int ti = 0; ti < n_bc_types; ti++) {
        const ty_t *t = &bc_types[ti];
        for (size_t count = 1; count * (size_t)t->size <= 64; count++) {
            int root = (int)((count + (size_t)ti) % (size_t)world_size);
            bcast_case(MPI_COMM_WORLD, t, root, count, 0, mktag(0x5b, 2, (uint64_t)ti, 0, count),
                       "small: every type");
        }
    }
    for (long i = 0; i < opt_stress_calls; i++) {
        int c = (int)rng_below(&rng, 3), csize;
        const ty_t *t = &bc_types[rng_below(&rng, (uint64_t)n_bc_types)];
        size_t max = rng_below(&rng, 8) ? 56 : 4096;
        size_t most = max / (size_t)t->size > 0 ? max / (size_t)t->size : 1;
        size_t count = 1 + (size_t)rng_below(&rng, most);
        uint64_t tag = rng_next(&rng), rnd = rng_next(&rng);

        MPI_Comm_size(cs[c], &csize);
        if (rng_below(&mine, 4) == 0) {
            spin_ns((int64_t)rng_below(&mine, 50001));
        }
        snprintf(label, sizeof(label), "small: call %ld on %s", i, cn[c]);
        bcast_case(cs[c], t, (int)(rnd % (uint64_t)csize), count, 0, tag, label);
    }
    MPI_Comm_free(&sub2);
    MPI_Comm_free(&dupw);
}
