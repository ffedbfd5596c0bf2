/*
 * Part of test_coll (tests/mpi/test_coll.c): layouts that differ between
 * ranks; uses the helpers of test_coll.h (hash3, mktag, rng, xmalloc,
 * compare_image, int_combine, ...).
 *
 * Collectives whose ranks describe the same data with different layouts.
 * MPI requires the ranks of a collective to pass matching type signatures,
 * not equal datatypes (MPI-4.0 section 6.1), so rank 0 may broadcast
 * count x MPI_INT while rank 1 receives one MPI_Type_vector of the same
 * ints.  A component that decides per rank from the layout takes different
 * protocols on different ranks and hangs (issue 10, item 1).
 *
 * Every rank builds its own datatype for a signature that all ranks agree
 * on, and records where each element of the signature lies in its buffer.
 * Buffers are filled and checked element by element from that record,
 * never through MPI's datatype engine, and the whole buffer is compared,
 * gaps and guard included.
 *
 * Sections (--only): layout-bcast, layout-allgather, layout-alltoall,
 * layout-allreduce, layout-reduce; layout = all five.  The reductions need
 * `--mca mpi_param_check 0`: MPI allows predefined ops on predefined
 * datatypes only, and the same one on every rank (MPI-4.0 section 6.9.1);
 * Open MPI's parameter check refuses anything else, even MPI_Type_dup(MPI_INT).
 * So only MPI_INT and its dup are mixed there, except with
 * --layout-derived-reduce B, which mixes every int layout in calls of at
 * most B bytes: give it only where coll/rdma serves every such call (Open
 * MPI 4.1's own reductions get such types wrong: they reduce `count`
 * elements, not count x the type's elements, and ignore gaps).
 */
#include "test_coll.h"

size_t opt_layout_derived_reduce = 0;

/* ---- signatures: n ints, or periods of a ints, b doubles, c ints ---- */

typedef struct {
    size_t n;   /* elements */
    int a, b, c; /* b == 0: ints only */
} lsig_t;

static size_t lsig_period(const lsig_t *s) { return s->b ? (size_t)(s->a + s->b + s->c) : 1; }

static int lsig_dbl(const lsig_t *s, size_t j)
{
    size_t p = j % lsig_period(s);
    return s->b && p >= (size_t)s->a && p < (size_t)(s->a + s->b);
}

static size_t lsig_es(const lsig_t *s, size_t j) { return lsig_dbl(s, j) ? 8 : 4; }

/* ---- layouts ---- */

/* int signatures: LK_CONTIG .. LK_STRUCT; mixed: LK_STRUCT .. LK_HVEC */
enum {
    LK_CONTIG,   /* n x MPI_INT */
    LK_VECTOR,   /* one vector(n/2, 2, 3, MPI_INT): the reproducer */
    LK_RESIZED,  /* n/2 x contiguous(2, MPI_INT) resized to extent 12 */
    LK_INDEXED,  /* one indexed: random blocks and gaps */
    LK_BACKWARD, /* one hindexed, blocks at decreasing addresses */
    LK_DUP,      /* n x MPI_Type_dup(MPI_INT) */
    LK_LB,       /* one struct of n ints at byte 8, resized to lower bound 8 */
    LK_STRUCT,   /* one struct: every run in random blocks with random gaps */
    LK_PACKED,   /* reps x one period as a struct without gaps */
    LK_GAPS,     /* reps x one period with random gaps */
    LK_NESTED,   /* one contiguous(reps, period with gaps) */
    LK_HVEC,     /* one hvector(reps, 1, stride, packed period) */
    NLK
};
static const char *lk_names[NLK] = {"contig", "vector", "resized", "indexed", "backward", "dup",
                                    "lb8",    "struct", "packed",  "gaps",    "nested",   "hvec"};

typedef struct {
    int kind, count;
    MPI_Datatype dt;
    size_t *disp;  /* byte offset of element j of one block */
    size_t stride; /* bytes from one block to the next: count x extent */
    size_t span;   /* bytes one block's elements reach */
} lay_t;

static MPI_Datatype lk_base(const lsig_t *s, size_t j) { return lsig_dbl(s, j) ? MPI_DOUBLE : MPI_INT; }

/* One period (a ints, b doubles, c ints) as a struct, run r at byte
 * gap[0] + ... + gap[r] after the previous run's end; extent: its end + gap[3]. */
static MPI_Datatype lay_period(const lsig_t *s, const size_t gap[4], size_t *pdisp, size_t *ext)
{
    int bl[3] = {s->a, s->b, s->c};
    MPI_Aint d[3];
    MPI_Datatype ty[3] = {MPI_INT, MPI_DOUBLE, MPI_INT}, tmp, dt;
    size_t pos = 0, k = 0;
    for (int r = 0; r < 3; r++) {
        pos += gap[r];
        d[r] = (MPI_Aint)pos;
        for (int i = 0; i < bl[r]; i++, pos += r == 1 ? 8 : 4) {
            pdisp[k++] = pos;
        }
    }
    *ext = pos + gap[3];
    MPI_CHECK(MPI_Type_create_struct(3, bl, d, ty, &tmp));
    MPI_CHECK(MPI_Type_create_resized(tmp, 0, (MPI_Aint)*ext, &dt));
    MPI_CHECK(MPI_Type_free(&tmp));
    return dt;
}

/* Random blocks (1..7 elements, never across a change of base type) with
 * random gaps (0..3 ints): lengths into bl, element offsets into disp. */
static int lay_blocks(const lsig_t *s, rng_t *r, int *bl, MPI_Aint *bd, MPI_Datatype *bt, size_t *disp)
{
    size_t pos = 4 * rng_below(r, 4), j = 0;
    int nb = 0;
    while (j < s->n) {
        int len = 1 + (int)rng_below(r, 7);
        bd[nb] = (MPI_Aint)pos;
        bt[nb] = lk_base(s, j);
        bl[nb] = 0;
        while (len-- > 0 && j < s->n && lk_base(s, j) == bt[nb]) {
            disp[j] = pos;
            pos += lsig_es(s, j++);
            bl[nb]++;
        }
        pos += 4 * rng_below(r, 4);
        nb++;
    }
    return nb;
}

/* Build this rank's datatype of kind `kind` for signature s (random choices from seed). */
static void lay_make(lay_t *l, const lsig_t *s, int kind, uint64_t seed)
{
    size_t n = s->n, per = lsig_period(s), reps = n / per;
    rng_t r = {seed | 1};
    MPI_Datatype tmp = MPI_DATATYPE_NULL;
    l->kind = kind;
    l->count = 1;
    l->disp = xmalloc(n * sizeof(size_t));
    for (size_t j = 0; j < n; j++) {
        l->disp[j] = 4 * j; /* ints without gaps; changed below where not */
    }
    switch (kind) {
    case LK_CONTIG:
        l->dt = MPI_INT;
        l->count = (int)n;
        break;
    case LK_DUP:
        MPI_CHECK(MPI_Type_dup(MPI_INT, &l->dt));
        l->count = (int)n;
        break;
    case LK_VECTOR:
    case LK_RESIZED:
        for (size_t j = 0; j < n; j++) {
            l->disp[j] = 12 * (j / 2) + 4 * (j % 2);
        }
        if (kind == LK_VECTOR) {
            MPI_CHECK(MPI_Type_vector((int)(n / 2), 2, 3, MPI_INT, &l->dt));
        } else {
            MPI_CHECK(MPI_Type_contiguous(2, MPI_INT, &tmp));
            MPI_CHECK(MPI_Type_create_resized(tmp, 0, 12, &l->dt));
            l->count = (int)(n / 2);
        }
        break;
    case LK_LB: {
        int bl = (int)n;
        MPI_Aint d = 8;
        MPI_Datatype it = MPI_INT;
        for (size_t j = 0; j < n; j++) {
            l->disp[j] = 8 + 4 * j;
        }
        MPI_CHECK(MPI_Type_create_struct(1, &bl, &d, &it, &tmp));
        MPI_CHECK(MPI_Type_create_resized(tmp, 8, (MPI_Aint)(4 * n), &l->dt));
        break;
    }
    case LK_INDEXED:
    case LK_BACKWARD:
    case LK_STRUCT: {
        int *bl = xmalloc(n * sizeof(int)), *bi = xmalloc(n * sizeof(int));
        MPI_Aint *bd = xmalloc(n * sizeof(MPI_Aint));
        MPI_Datatype *bt = xmalloc(n * sizeof(MPI_Datatype));
        int nb = lay_blocks(s, &r, bl, bd, bt, l->disp);
        if (kind == LK_BACKWARD) {
            /* mirror: block k ends where block k-1's mirror image starts */
            size_t end = (size_t)bd[nb - 1] + 4 * (size_t)bl[nb - 1], j = 0;
            for (int k = 0; k < nb; k++) {
                bd[k] = (MPI_Aint)(end - (size_t)bd[k] - 4 * (size_t)bl[k]);
                for (int i = 0; i < bl[k]; i++) {
                    l->disp[j++] = (size_t)bd[k] + 4 * (size_t)i;
                }
            }
            MPI_CHECK(MPI_Type_create_hindexed(nb, bl, bd, MPI_INT, &l->dt));
        } else if (kind == LK_INDEXED) {
            for (int k = 0; k < nb; k++) {
                bi[k] = (int)(bd[k] / 4);
            }
            MPI_CHECK(MPI_Type_indexed(nb, bl, bi, MPI_INT, &l->dt));
        } else {
            MPI_CHECK(MPI_Type_create_struct(nb, bl, bd, bt, &l->dt));
        }
        free(bl);
        free(bi);
        free(bd);
        free(bt);
        break;
    }
    default: { /* the mixed kinds: reps periods */
        size_t gap[4] = {0, 0, 0, 0}, ext, *pdisp = xmalloc(per * sizeof(size_t)), stride = 0;
        if (kind != LK_PACKED && kind != LK_HVEC) {
            for (int g = 0; g < 4; g++) {
                gap[g] = rng_below(&r, 17);
            }
        }
        tmp = lay_period(s, gap, pdisp, &ext);
        if (kind == LK_HVEC) {
            stride = ext + 8 * (1 + rng_below(&r, 3));
            MPI_CHECK(MPI_Type_create_hvector((int)reps, 1, (MPI_Aint)stride, tmp, &l->dt));
        } else if (kind == LK_NESTED) {
            MPI_CHECK(MPI_Type_contiguous((int)reps, tmp, &l->dt));
        } else {
            l->dt = tmp;
            tmp = MPI_DATATYPE_NULL;
            l->count = (int)reps;
        }
        for (size_t j = 0; j < n; j++) {
            l->disp[j] = (j / per) * (stride ? stride : ext) + pdisp[j % per];
        }
        free(pdisp);
    }
    }
    if (tmp != MPI_DATATYPE_NULL) {
        MPI_CHECK(MPI_Type_free(&tmp));
    }
    if (l->dt != MPI_INT) {
        MPI_CHECK(MPI_Type_commit(&l->dt));
    }
    MPI_Aint lb, ext;
    int size;
    size_t bytes = 0;
    MPI_CHECK(MPI_Type_get_extent(l->dt, &lb, &ext));
    MPI_CHECK(MPI_Type_size(l->dt, &size));
    l->stride = (size_t)l->count * (size_t)ext;
    l->span = 0;
    for (size_t j = 0; j < n; j++) {
        bytes += lsig_es(s, j);
        if (l->disp[j] + lsig_es(s, j) > l->span) {
            l->span = l->disp[j] + lsig_es(s, j);
        }
    }
    if ((size_t)size * (size_t)l->count != bytes || lb < 0) {
        fail_msg("test bug: layout %s of %zu elements has %d x %d bytes (expected %zu), lb %ld",
                 lk_names[kind], n, l->count, size, bytes, (long)lb);
    }
}

static void lay_free(lay_t *l)
{
    if (l->dt != MPI_INT) {
        MPI_Type_free(&l->dt);
    }
    free(l->disp);
}

static size_t lay_bytes(const lay_t *l, int nblocks) { return (size_t)(nblocks - 1) * l->stride + l->span; }

/* Element j of the data rank src sends to dst (-1: the same for every destination). */
static uint64_t lay_value(uint64_t tag, int src, int dst, size_t j)
{
    return hash3(tag, (uint64_t)src * 1000003u + (uint64_t)(dst + 1), j);
}

/* Write block b of layout l at buf: what src sends to dst. */
static void lay_put(const lay_t *l, const lsig_t *s, unsigned char *buf, int b, uint64_t tag, int src, int dst)
{
    for (size_t j = 0; j < s->n; j++) {
        uint64_t v = lay_value(tag, src, dst, j);
        memcpy(buf + (size_t)b * l->stride + l->disp[j], &v, lsig_es(s, j));
    }
}

/* A buffer of `bytes` bytes with a pattern of its own and a guard after it. */
static unsigned char *lay_buffer(size_t bytes, unsigned salt)
{
    unsigned char *p = xmalloc(bytes + GUARD);
    for (size_t j = 0; j < bytes; j++) {
        p[j] = (unsigned char)(salt ^ (j * 7));
    }
    set_guard(p + bytes, GUARD);
    return p;
}

/* This rank's layout in mix `mix`: 0 and 1 the shapes (root or rank 0
 * contiguous, the others strided, and the reverse), then random kinds. */
static int lay_pick(const lsig_t *s, int mix, int special, uint64_t tag, int rank, int only_dup)
{
    static const int ints[] = {LK_CONTIG, LK_VECTOR, LK_RESIZED, LK_INDEXED, LK_BACKWARD, LK_DUP, LK_LB, LK_STRUCT};
    static const int mixed[] = {LK_PACKED, LK_GAPS, LK_NESTED, LK_HVEC, LK_STRUCT};
    int first = s->b ? LK_PACKED : LK_CONTIG, other = s->b ? LK_GAPS : LK_VECTOR;
    if (only_dup) {
        return (rank + mix) % 2 ? LK_DUP : LK_CONTIG;
    }
    if (mix < 2) {
        return (mix == 0) == special ? first : other;
    }
    rng_t r = {mktag(tag, (uint64_t)rank, (uint64_t)mix, 0x1a, 0) | 1};
    /* one big struct per element block is slow to build for 10^5 elements */
    for (;;) {
        int k = s->b ? mixed[rng_below(&r, 5)] : ints[rng_below(&r, 8)];
        if (k != LK_STRUCT || s->n <= 20000) {
            return k;
        }
    }
}

static lsig_t lay_sig(size_t ints, int mixed, uint64_t tag)
{
    lsig_t s = {ints, 0, 0, 0};
    if (mixed) {
        rng_t r = {tag | 1};
        s.a = 1 + (int)rng_below(&r, 3);
        s.b = 1 + (int)rng_below(&r, 2);
        s.c = 1 + (int)rng_below(&r, 3);
        size_t pb = 4 * (size_t)(s.a + s.c) + 8 * (size_t)s.b, reps = 4 * ints / pb;
        s.n = (reps ? reps : 1) * lsig_period(&s);
    }
    return s;
}

/* ---- bcast ---- */

static void layout_bcast(MPI_Comm comm, const char *label)
{
    static const size_t counts[] = {2, 4, 1000, 262144, 300000};
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    cur_test = "layout-bcast";
    for (int ci = 0; ci < 5; ci++) {
        for (int mixed = 0; mixed < 2; mixed++) {
            for (int root = 0; root < size; root++) {
                if (counts[ci] > 1000 && root != 0 && root != size - 1) {
                    continue;
                }
                for (int mix = 0; mix < 4; mix++) {
                    uint64_t tag = mktag(0x1b, counts[ci], (uint64_t)mixed, (uint64_t)root, (uint64_t)mix);
                    lsig_t s = lay_sig(counts[ci], mixed, tag);
                    lay_t l;
                    lay_make(&l, &s, lay_pick(&s, mix, rank == root, tag, rank, 0), mktag(tag, (uint64_t)rank, 1, 0, 0));
                    size_t nbytes = lay_bytes(&l, 1);
                    unsigned char *buf = lay_buffer(nbytes, 0x5a), *exp = lay_buffer(nbytes, 0x5a);
                    if (rank == root) {
                        lay_put(&l, &s, buf, 0, tag, root, -1);
                    }
                    lay_put(&l, &s, exp, 0, tag, root, -1);
                    MPI_CHECK(MPI_Bcast(buf, l.count, l.dt, root, comm));
                    n_bcast++;
                    char desc[200];
                    snprintf(desc, sizeof(desc), "%s bcast %zu elements%s root %d: this rank %s x %d",
                             label, s.n, mixed ? " int/double" : " int", root, lk_names[l.kind], l.count);
                    compare_image(buf, exp, nbytes + GUARD, desc);
                    lay_free(&l);
                    free(buf);
                    free(exp);
                }
            }
        }
    }
}

/* ---- allgather, alltoall ---- */

static void layout_blocks(MPI_Comm comm, int alltoall, const char *label)
{
    /* 1000 ints: 4000 bytes per block, under the default 4 KiB cap; 2000: above */
    static const size_t counts[] = {2, 4, 1000, 2000};
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    cur_test = alltoall ? "layout-alltoall" : "layout-allgather";
    for (int ci = 0; ci < 4; ci++) {
        for (int mixed = 0; mixed < 2; mixed++) {
            for (int mix = 0; mix < 6; mix++) {
                uint64_t tag = mktag(alltoall ? 0x1c : 0x1d, counts[ci], (uint64_t)mixed, (uint64_t)mix, 0);
                lsig_t s = lay_sig(counts[ci], mixed, tag);
                int inplace = mix == 5, sblocks = alltoall ? size : 1;
                /* send and receive side differ on one rank, and between ranks */
                lay_t sl, rl;
                lay_make(&sl, &s, lay_pick(&s, mix, rank == 0, tag, rank, 0), mktag(tag, (uint64_t)rank, 2, 0, 0));
                lay_make(&rl, &s, lay_pick(&s, mix, rank != 0, tag, rank + size, 0), mktag(tag, (uint64_t)rank, 3, 0, 0));
                size_t sbytes = lay_bytes(&sl, sblocks), rbytes = lay_bytes(&rl, size);
                unsigned char *sbuf = lay_buffer(sbytes, 0x77), *sexp = lay_buffer(sbytes, 0x77);
                unsigned char *rbuf = lay_buffer(rbytes, 0x5a), *exp;
                for (int b = 0; b < sblocks; b++) {
                    lay_put(&sl, &s, sbuf, b, tag, rank, alltoall ? b : -1);
                    lay_put(&sl, &s, sexp, b, tag, rank, alltoall ? b : -1);
                }
                if (inplace) { /* the input lies in the receive buffer */
                    for (int d = 0; d < size; d++) {
                        if (alltoall || d == rank) {
                            lay_put(&rl, &s, rbuf, d, tag, rank, alltoall ? d : -1);
                        }
                    }
                }
                exp = xmalloc(rbytes + GUARD);
                memcpy(exp, rbuf, rbytes + GUARD);
                for (int src = 0; src < size; src++) {
                    lay_put(&rl, &s, exp, src, tag, src, alltoall ? rank : -1);
                }
                const void *sarg = inplace ? MPI_IN_PLACE : sbuf;
                if (alltoall) {
                    MPI_CHECK(MPI_Alltoall(sarg, sl.count, sl.dt, rbuf, rl.count, rl.dt, comm));
                } else {
                    MPI_CHECK(MPI_Allgather(sarg, sl.count, sl.dt, rbuf, rl.count, rl.dt, comm));
                }
                n_other++;
                char desc[200];
                snprintf(desc, sizeof(desc), "%s %s %zu elements%s per block: this rank send %s x %d recv %s x %d%s",
                         label, alltoall ? "alltoall" : "allgather", s.n, mixed ? " int/double" : " int",
                         inplace ? "-" : lk_names[sl.kind], sl.count, lk_names[rl.kind], rl.count,
                         inplace ? " in_place" : "");
                compare_image(rbuf, exp, rbytes + GUARD, desc);
                compare_image(sbuf, sexp, sbytes + GUARD, desc); /* send buffer untouched */
                lay_free(&sl);
                lay_free(&rl);
                free(sbuf);
                free(sexp);
                free(rbuf);
                free(exp);
            }
        }
    }
}

/* ---- allreduce, reduce ---- */

static void layout_reduce(MPI_Comm comm, int allreduce, const char *label)
{
    /* 1000 ints: served by every algorithm at the default thresholds
     * (reduce's cap is 4 KiB); 262144: 1 MiB, the ring or the fallback */
    static const size_t counts[] = {2, 4, 1000, 262144};
    static const opk_t opk[] = {O_SUM, O_MAX, O_BXOR};
    const ty_t *tint = find_ar_type("int");
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    cur_test = allreduce ? "layout-allreduce" : "layout-reduce";
    for (int ci = 0; ci < 4; ci++) {
        for (int mix = 0; mix < 6; mix++) {
            int root = allreduce ? -1 : (mix % 2 ? size - 1 : 0);
            int inplace = mix % 3 == 2 && (allreduce || rank == root);
            int only_dup = 4 * counts[ci] > opt_layout_derived_reduce;
            const op_t *o = &ops[opk[mix % 3]];
            uint64_t tag = mktag(allreduce ? 0x1e : 0x1f, counts[ci], (uint64_t)mix, 0, 0);
            lsig_t s = lay_sig(counts[ci], 0, tag);
            lay_t l;
            lay_make(&l, &s, lay_pick(&s, mix, rank == 0, tag, rank, only_dup), mktag(tag, (uint64_t)rank, 4, 0, 0));
            size_t nbytes = lay_bytes(&l, 1);
            unsigned char *sbuf = lay_buffer(nbytes, 0x77), *sexp = lay_buffer(nbytes, 0x77);
            unsigned char *rbuf = lay_buffer(nbytes, 0x5a), *exp = lay_buffer(nbytes, 0x5a);
            lay_put(&l, &s, inplace ? rbuf : sbuf, 0, tag, rank, -1);
            lay_put(&l, &s, inplace ? exp : sexp, 0, tag, rank, -1);
            if (allreduce || rank == root) {
                for (size_t j = 0; j < s.n; j++) {
                    uint64_t acc = lay_value(tag, 0, -1, j) & 0xffffffffu;
                    for (int q = 1; q < size; q++) {
                        acc = int_combine(tint, o->k, acc, lay_value(tag, q, -1, j) & 0xffffffffu);
                    }
                    memcpy(exp + l.disp[j], &acc, 4);
                }
            }
            const void *sarg = inplace ? MPI_IN_PLACE : sbuf;
            if (allreduce) {
                MPI_CHECK(MPI_Allreduce(sarg, rbuf, l.count, l.dt, o->op, comm));
                n_allreduce++;
            } else {
                MPI_CHECK(MPI_Reduce(sarg, rbuf, l.count, l.dt, o->op, root, comm));
                n_other++;
            }
            char desc[200];
            snprintf(desc, sizeof(desc), "%s %s %s %zu ints%s root %d: this rank %s x %d", label,
                     allreduce ? "allreduce" : "reduce", o->name, s.n, inplace ? " in_place" : "",
                     root, lk_names[l.kind], l.count);
            compare_image(rbuf, exp, nbytes + GUARD, desc);
            compare_image(sbuf, sexp, nbytes + GUARD, desc);
            lay_free(&l);
            free(sbuf);
            free(sexp);
            free(rbuf);
            free(exp);
        }
    }
}

void test_layout(int sections)
{
    if (sections & S_LAYOUT_BCAST) {
        layout_bcast(MPI_COMM_WORLD, "world");
    }
    if (sections & S_LAYOUT_ALLGATHER) {
        layout_blocks(MPI_COMM_WORLD, 0, "world");
    }
    if (sections & S_LAYOUT_ALLTOALL) {
        layout_blocks(MPI_COMM_WORLD, 1, "world");
    }
    if (sections & S_LAYOUT_ALLREDUCE) {
        layout_reduce(MPI_COMM_WORLD, 1, "world");
    }
    if (sections & S_LAYOUT_REDUCE) {
        layout_reduce(MPI_COMM_WORLD, 0, "world");
    }
}
