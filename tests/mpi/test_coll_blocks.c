/*
 * Part of test_coll: MPI_Allgather and MPI_Alltoall with blocks of every
 * type up to --max-bytes and send and receive layouts differing between
 * ranks (same type signature).
 */
#include "test_coll.h"

/* ------------------------------------------------------------------ allgather, alltoall */

/*
 * Block layouts.  An allgather or alltoall buffer is a row of blocks of n
 * elements; the layout decides the datatype and where element i of block b
 * lies.  Ranks may use different layouts in one call (same type signature):
 *   L_CONTIG  n elements of a predefined type t
 *   L_STRIDED one MPI_INT vector (n ints, stride 2) resized to 2n ints: gaps
 *   L_LB      one type of n ints at displacement 8, resized to lower bound 8
 *             and extent 4n: contiguous, true_lb 8
 */
static const char *layout_names[NLAYOUTS] = {"contig", "strided", "lb8"};

typedef struct {
    int kind, n, count;   /* count: datatype count per block */
    size_t es;            /* element bytes */
    MPI_Datatype dt;
    int owned;            /* dt must be freed */
} layout_t;

static layout_t layout_make(int kind, const ty_t *t, int n)
{
    layout_t l = {kind, n, n, (size_t)t->size, t->dt, 0};
    if (kind == L_CONTIG) {
        return l;
    }
    MPI_Datatype tmp;
    l.es = sizeof(int);
    l.count = 1;
    l.owned = 1;
    if (kind == L_STRIDED) {
        MPI_CHECK(MPI_Type_vector(n, 1, 2, MPI_INT, &tmp));
        MPI_CHECK(MPI_Type_create_resized(tmp, 0, (MPI_Aint)(2 * n * (int)sizeof(int)), &l.dt));
    } else {
        int bl = n;
        MPI_Aint disp = 8;
        MPI_Datatype it = MPI_INT;
        MPI_CHECK(MPI_Type_create_struct(1, &bl, &disp, &it, &tmp));
        MPI_CHECK(MPI_Type_create_resized(tmp, 8, (MPI_Aint)(n * (int)sizeof(int)), &l.dt));
    }
    MPI_CHECK(MPI_Type_free(&tmp));
    MPI_CHECK(MPI_Type_commit(&l.dt));
    return l;
}

static void layout_free(layout_t *l)
{
    if (l->owned) {
        MPI_Type_free(&l->dt);
    }
}

static size_t layout_bytes(const layout_t *l, int nblocks)
{
    size_t row = (size_t)l->n * l->es * (l->kind == L_STRIDED ? 2 : 1);
    return (l->kind == L_LB ? 8 : 0) + (size_t)nblocks * row;
}

static size_t layout_off(const layout_t *l, int b, int i)
{
    switch (l->kind) {
    case L_STRIDED:
        return ((size_t)b * (size_t)l->n + (size_t)i) * 2 * l->es;
    case L_LB:
        return 8 + ((size_t)b * (size_t)l->n + (size_t)i) * l->es;
    default:
        return ((size_t)b * (size_t)l->n + (size_t)i) * l->es;
    }
}

/* Element i of the data that rank src sends to dst (dst = -1: allgather). */
static void elem_data(uint64_t tag, int src, int dst, int i, size_t es, unsigned char *out)
{
    for (size_t j = 0; j < es; j += 8) {
        uint64_t h = hash3(tag, (uint64_t)src * 1000003u + (uint64_t)(dst + 1),
                           (uint64_t)i * 4 + j / 8);
        memcpy(out + j, &h, es - j < 8 ? es - j : 8);
    }
}

/* Write block b of layout l at buf: the data src sends to dst. */
static void put_block(const layout_t *l, unsigned char *buf, int b, uint64_t tag, int src, int dst)
{
    for (int i = 0; i < l->n; i++) {
        elem_data(tag, src, dst, i, l->es, buf + layout_off(l, b, i));
    }
}
/*
 * One MPI_Allgather or MPI_Alltoall (alltoall != 0) of n elements per block
 * on comm, with send layout skind and receive layout rkind on this rank (in
 * place: no send buffer).  Checks the whole receive buffer (data, gaps,
 * guard) against a locally built image and the send buffer unchanged.
 */
void blocks_case(MPI_Comm comm, int alltoall, const ty_t *t, int n, int skind, int rkind,
                 int inplace, uint64_t tag, const char *label)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    layout_t sl = layout_make(skind, t, n), rl = layout_make(rkind, t, n);
    int sblocks = alltoall ? size : 1;
    size_t sbytes = layout_bytes(&sl, sblocks), rbytes = layout_bytes(&rl, size);
    unsigned char *sbuf = xmalloc(sbytes + GUARD), *sorig = xmalloc(sbytes + 1);
    unsigned char *rbuf = xmalloc(rbytes + GUARD), *exp = xmalloc(rbytes + GUARD);

    for (size_t j = 0; j < rbytes; j++) {
        rbuf[j] = (unsigned char)(0x5a ^ j);
    }
    set_guard(rbuf + rbytes, GUARD);
    memset(sbuf, 0x77, sbytes);
    set_guard(sbuf + sbytes, GUARD);
    if (inplace) {
        /* the input lies in the receive buffer */
        if (alltoall) {
            for (int d = 0; d < size; d++) {
                put_block(&rl, rbuf, d, tag, rank, d);
            }
        } else {
            put_block(&rl, rbuf, rank, tag, rank, -1);
        }
    } else {
        for (int b = 0; b < sblocks; b++) {
            put_block(&sl, sbuf, b, tag, rank, alltoall ? b : -1);
        }
    }
    memcpy(sorig, sbuf, sbytes);
    memcpy(exp, rbuf, rbytes + GUARD);
    for (int s = 0; s < size; s++) {
        put_block(&rl, exp, s, tag, s, alltoall ? rank : -1);
    }
    if (alltoall) {
        MPI_CHECK(MPI_Alltoall(inplace ? MPI_IN_PLACE : sbuf, sl.count, sl.dt, rbuf, rl.count,
                               rl.dt, comm));
    } else {
        MPI_CHECK(MPI_Allgather(inplace ? MPI_IN_PLACE : sbuf, sl.count, sl.dt, rbuf, rl.count,
                                rl.dt, comm));
    }
    n_other++;
    char desc[200];
    snprintf(desc, sizeof(desc), "%s %s %s n %d (%zu bytes per block) send %s recv %s%s", label,
             alltoall ? "alltoall" : "allgather", skind == L_CONTIG ? t->name : "int", n,
             (size_t)n * rl.es, inplace ? "-" : layout_names[skind], layout_names[rkind],
             inplace ? " in_place" : "");
    compare_image(rbuf, exp, rbytes + GUARD, desc);
    if (!inplace && memcmp(sbuf, sorig, sbytes + 0) != 0) {
        fail_msg("case [%s]: send buffer was modified", desc);
    }
    check_guard(sbuf + sbytes, GUARD, "send buffer", desc);
    layout_free(&sl);
    layout_free(&rl);
    free(sbuf);
    free(sorig);
    free(rbuf);
    free(exp);
}

/*
 * Every type of the bcast list at block sizes from 1 element up to
 * --max-bytes, alternately in place; then MPI_INT blocks with every pair of
 * layouts, the layout differing between ranks (same type signature).
 */
void test_blocks(MPI_Comm comm, int alltoall, const char *label, int iters, int light)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    cur_test = alltoall ? "alltoall" : "allgather";
    size_t counts[128];
    const ty_t *tint = find_ar_type("int");
    for (int it = 0; it < iters; it++) {
        for (int ti = 0; ti < n_bc_types; ti++) {
            const ty_t *t = &bc_types[ti];
            if (light && ti % 3 != it % 3 && t->size != 1) {
                continue;
            }
            int nc = make_counts(opt_max_bytes / (size_t)t->size, counts, 1);
            for (int ci = 0; ci < nc; ci++) {
                uint64_t tag =
                    mktag(alltoall ? 0xa2a : 0xa6, (uint64_t)it, (uint64_t)ti, counts[ci], 0);
                blocks_case(comm, alltoall, t, (int)counts[ci], L_CONTIG, L_CONTIG,
                            (int)((ci + ti + it) % 2), tag, label);
            }
        }
        static const int ns[] = {1, 3, 64, 1000};
        for (int ni = 0; ni < 4; ni++) {
            for (int mix = 0; mix < NLAYOUTS * NLAYOUTS; mix++) {
                if (light && mix % 3 != ni % 3) {
                    continue;
                }
                /* this rank's layouts: shifted by rank, so ranks differ */
                int sk = (mix / NLAYOUTS + rank) % NLAYOUTS;
                int rk = (mix % NLAYOUTS + rank) % NLAYOUTS;
                uint64_t tag = mktag(alltoall ? 0xa2b : 0xa7, (uint64_t)it, (uint64_t)ns[ni],
                                     (uint64_t)mix, 0);
                blocks_case(comm, alltoall, tint, ns[ni], sk, rk, mix % 4 == 3, tag, label);
            }
        }
    }
}
