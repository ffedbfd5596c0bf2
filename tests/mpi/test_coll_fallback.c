/*
 * Part of test_coll: what coll/rdma hands to the next component (user ops,
 * non-commutative ops, derived, resized and pair types), then
 * intercommunicators and MPI_COMM_SELF.
 */
#include "test_coll.h"

/* ------------------------------------------------------------------ fallbacks */

static void usr_sum_i32(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const uint32_t *a = in;
    uint32_t *b = inout;
    for (int i = 0; i < *len; i++) {
        b[i] = a[i] + b[i];
    }
}

/* Affine maps x -> a*x + b (mod 2^32) composed: not commutative. */
typedef struct { uint32_t a, b; } aff_t;
static void aff_compose(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const aff_t *u = in;
    aff_t *v = inout;
    for (int i = 0; i < *len; i++) {
        /* inout = in o inout: apply inout first, then in */
        aff_t r = {u[i].a * v[i].a, u[i].a * v[i].b + u[i].b};
        v[i] = r;
    }
}

/* User op over derived types built from one base type: the layout of one
 * item (blocks of blen elements every stride elements, extent ext elements)
 * is set in these globals before each call.  Open MPI 4.1 rejects predefined
 * ops on derived datatypes, so derived types are reduced with this. */
static struct {
    kind_t kind; /* K_SINT (int32 or int64 by size), K_DBL */
    int size, nblk, blen, stride, ext;
    int max; /* 0: SUM (wrapping for integers), 1: MAX */
} g_lay;

static void usr_layout_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int k = 0; k < *len; k++) {
        for (int b = 0; b < g_lay.nblk; b++) {
            for (int e = 0; e < g_lay.blen; e++) {
                size_t i = (size_t)k * (size_t)g_lay.ext + (size_t)b * (size_t)g_lay.stride + (size_t)e;
                if (g_lay.kind == K_DBL) {
                    double *a = (double *)in + i, *c = (double *)inout + i;
                    *c = g_lay.max ? (*a > *c ? *a : *c) : *a + *c;
                } else if (g_lay.size == 4) {
                    int32_t *a = (int32_t *)in + i, *c = (int32_t *)inout + i;
                    *c = g_lay.max ? (*a > *c ? *a : *c) : (int32_t)((uint32_t)*a + (uint32_t)*c);
                } else {
                    int64_t *a = (int64_t *)in + i, *c = (int64_t *)inout + i;
                    *c = g_lay.max ? (*a > *c ? *a : *c) : (int64_t)((uint64_t)*a + (uint64_t)*c);
                }
            }
        }
    }
}

static void set_layout(kind_t kind, int size, int nblk, int blen, int stride, int ext, int max)
{
    g_lay.kind = kind;
    g_lay.size = size;
    g_lay.nblk = nblk;
    g_lay.blen = blen;
    g_lay.stride = stride;
    g_lay.ext = ext;
    g_lay.max = max;
}

static uint32_t u32_input(uint64_t tag, int r, size_t i) { return (uint32_t)hash3(tag, (uint64_t)r, i); }

void test_fallback(MPI_Comm comm, const char *label, int iters)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    char desc[200];
    static const size_t cnts[] = {0, 1, 3, 16, 17, 100, 1000};
    const int ncnts = (int)(sizeof(cnts) / sizeof(cnts[0]));

    for (int it = 0; it < iters; it++) {
        /* 1. user-defined commutative op on a predefined type, also in place */
        cur_test = "fallback-userop";
        MPI_Op usum;
        MPI_CHECK(MPI_Op_create(usr_sum_i32, 1, &usum));
        for (int ci = 0; ci < ncnts; ci++) {
            for (int ip = 0; ip < 2; ip++) {
                size_t n = cnts[ci];
                uint64_t tag = mktag(0xf0, (uint64_t)it, n, (uint64_t)ip, 1);
                uint32_t *s = xmalloc(4 * n), *r = xmalloc(4 * n);
                for (size_t i = 0; i < n; i++) {
                    (ip ? r : s)[i] = u32_input(tag, rank, i);
                }
                MPI_CHECK(MPI_Allreduce(ip ? MPI_IN_PLACE : s, r, (int)n, MPI_UINT32_T, usum, comm));
                n_allreduce++;
                snprintf(desc, sizeof(desc), "%s user op sum uint32 count %zu%s", label, n, ip ? " in_place" : "");
                report_t rp = {desc, 0};
                for (size_t i = 0; i < n; i++) {
                    uint32_t e = 0;
                    for (int q = 0; q < size; q++) {
                        e += u32_input(tag, q, i);
                    }
                    if (r[i] != e) {
                        char es[32], gs[32];
                        snprintf(es, sizeof(es), "%" PRIu32, e);
                        snprintf(gs, sizeof(gs), "%" PRIu32, r[i]);
                        report_bad(&rp, i, es, gs);
                    }
                }
                report_end(&rp);
                free(s);
                free(r);
            }
        }
        MPI_Op_free(&usum);

        /* 2. non-commutative user op on a contiguous derived type */
        cur_test = "fallback-noncommutative";
        MPI_Op aff;
        MPI_Datatype afft;
        MPI_CHECK(MPI_Op_create(aff_compose, 0, &aff));
        MPI_CHECK(MPI_Type_contiguous(2, MPI_UINT32_T, &afft));
        MPI_CHECK(MPI_Type_commit(&afft));
        for (int ci = 0; ci < ncnts; ci++) {
            size_t n = cnts[ci];
            uint64_t tag = mktag(0xf0, (uint64_t)it, n, 0, 2);
            aff_t *s = xmalloc(sizeof(aff_t) * n), *r = xmalloc(sizeof(aff_t) * n);
            for (size_t i = 0; i < n; i++) {
                s[i].a = u32_input(tag, rank, 2 * i) | 1;
                s[i].b = u32_input(tag, rank, 2 * i + 1);
            }
            MPI_CHECK(MPI_Allreduce(s, r, (int)n, afft, aff, comm));
            n_allreduce++;
            snprintf(desc, sizeof(desc), "%s non-commutative user op (affine composition) count %zu", label, n);
            report_t rp = {desc, 0};
            for (size_t i = 0; i < n; i++) {
                /* x0 o x1 o ... o x_{n-1}, in rank order */
                aff_t e = {u32_input(tag, size - 1, 2 * i) | 1, u32_input(tag, size - 1, 2 * i + 1)};
                for (int q = size - 2; q >= 0; q--) {
                    aff_t u = {u32_input(tag, q, 2 * i) | 1, u32_input(tag, q, 2 * i + 1)};
                    aff_t x = {u.a * e.a, u.a * e.b + u.b};
                    e = x;
                }
                if (r[i].a != e.a || r[i].b != e.b) {
                    char es[64], gs[64];
                    snprintf(es, sizeof(es), "(%" PRIu32 ",%" PRIu32 ")", e.a, e.b);
                    snprintf(gs, sizeof(gs), "(%" PRIu32 ",%" PRIu32 ")", r[i].a, r[i].b);
                    report_bad(&rp, i, es, gs);
                }
            }
            report_end(&rp);
            free(s);
            free(r);
        }
        MPI_Type_free(&afft);
        MPI_Op_free(&aff);

        /* 3. strided vector type: bcast and allreduce; gaps must stay untouched */
        cur_test = "fallback-vector";
        for (int vi = 0; vi < 3; vi++) {
            int nblk = vi == 0 ? 1 : vi == 1 ? 7 : 300;
            int items = vi == 2 ? 1 : 3;
            MPI_Datatype vt;
            MPI_CHECK(MPI_Type_vector(nblk, 2, 3, MPI_INT32_T, &vt));
            MPI_CHECK(MPI_Type_commit(&vt));
            MPI_Aint lb, ext;
            MPI_Type_get_extent(vt, &lb, &ext);
            size_t nint = (size_t)ext / 4 * (size_t)items; /* ints spanned */
            uint64_t tag = mktag(0xf0, (uint64_t)it, (uint64_t)vi, 0, 3);
            int32_t *s = xmalloc(4 * nint), *r = xmalloc(4 * nint), *b = xmalloc(4 * nint);
            for (size_t i = 0; i < nint; i++) {
                s[i] = (int32_t)u32_input(tag, rank, i);
                r[i] = -7; /* gap markers in the receive buffers */
                b[i] = -9;
            }
            /* root 0 for the first, last rank otherwise */
            int root = vi == 1 ? size - 1 : 0;
            if (rank == root) {
                for (size_t i = 0; i < nint; i++) {
                    b[i] = (int32_t)u32_input(tag, 999, i);
                }
            }
            MPI_CHECK(MPI_Bcast(b, items, vt, root, comm));
            n_bcast++;
            MPI_Op lop;
            MPI_CHECK(MPI_Op_create(usr_layout_op, 1, &lop));
            set_layout(K_SINT, 4, nblk, 2, 3, (int)(ext / 4), 0);
            MPI_CHECK(MPI_Allreduce(s, r, items, vt, lop, comm));
            MPI_Op_free(&lop);
            n_allreduce++;
            snprintf(desc, sizeof(desc), "%s vector(%d,2,3,int32) x %d bcast root %d / allreduce user SUM", label,
                     nblk, items, root);
            report_t rp = {desc, 0};
            for (size_t i = 0; i < nint; i++) {
                size_t inext = i % ((size_t)ext / 4);
                int in_data = (inext % 3) != 2 && inext < (size_t)(3 * (nblk - 1) + 2);
                uint32_t e = 0;
                for (int q = 0; q < size; q++) {
                    e += u32_input(tag, q, i);
                }
                int32_t er = in_data ? (int32_t)e : -7;
                int32_t eb = in_data || rank == root ? (int32_t)u32_input(tag, 999, i) : -9;
                char es[64], gs[64];
                if (r[i] != er) {
                    snprintf(es, sizeof(es), "%" PRId32 " (allreduce%s)", er, in_data ? "" : " gap");
                    snprintf(gs, sizeof(gs), "%" PRId32, r[i]);
                    report_bad(&rp, i, es, gs);
                }
                if (b[i] != eb) {
                    snprintf(es, sizeof(es), "%" PRId32 " (bcast%s)", eb, in_data ? "" : " gap");
                    snprintf(gs, sizeof(gs), "%" PRId32, b[i]);
                    report_bad(&rp, i, es, gs);
                }
            }
            report_end(&rp);
            free(s);
            free(r);
            free(b);
            MPI_Type_free(&vt);
        }

        /* 4. contiguous derived type and a dup of a predefined type */
        cur_test = "fallback-contiguous";
        for (int di = 0; di < 2; di++) {
            MPI_Datatype dt;
            const ty_t *base = find_ar_type(di == 0 ? "double" : "int64");
            if (di == 0) {
                MPI_CHECK(MPI_Type_contiguous(5, MPI_DOUBLE, &dt));
            } else {
                MPI_CHECK(MPI_Type_dup(MPI_INT64_T, &dt));
            }
            MPI_CHECK(MPI_Type_commit(&dt));
            int per = di == 0 ? 5 : 1;
            for (int ci = 0; ci < ncnts; ci++) {
                size_t items = cnts[ci], n = items * (size_t)per;
                for (int oi = 0; oi < 2; oi++) {
                    const op_t *o = &ops[oi == 0 ? O_SUM : O_MAX];
                    uint64_t tag = mktag(0xf0, (uint64_t)it, (uint64_t)di * 100 + (uint64_t)oi, items, 4);
                    char *s = xmalloc(8 * n + GUARD), *r = xmalloc(8 * n + GUARD);
                    fill_input(base, o->k, tag, rank, s, n, size);
                    set_guard(r + 8 * n, GUARD);
                    MPI_Op lop;
                    MPI_CHECK(MPI_Op_create(usr_layout_op, 1, &lop));
                    set_layout(base->kind, base->size, 1, per, per, per, o->k == O_MAX);
                    MPI_CHECK(MPI_Allreduce(s, r, (int)items, dt, lop, comm));
                    MPI_Op_free(&lop);
                    n_allreduce++;
                    snprintf(desc, sizeof(desc), "%s %s allreduce user %s items %zu", label,
                             di == 0 ? "contiguous(5,double)" : "dup(int64)", o->name, items);
                    check_reduction(base, o->k, tag, size, r, n, desc);
                    check_guard(r + 8 * n, GUARD, "receive buffer", desc);
                    free(s);
                    free(r);
                }
                /* bcast of the derived type: reuse bcast_case via a fake type entry */
                ty_t ft = {dt, di == 0 ? "contiguous(5,double)" : "dup(int64)", 8 * per, K_BYTE};
                bcast_case(comm, &ft, (int)(items % (size_t)size), items, 0,
                           mktag(0xf0, (uint64_t)it, (uint64_t)di, items, 5), label);
            }
            MPI_Type_free(&dt);
        }

        /* 5. resized type: int32 with an 8-byte extent */
        cur_test = "fallback-resized";
        {
            MPI_Datatype rt;
            MPI_CHECK(MPI_Type_create_resized(MPI_INT32_T, 0, 8, &rt));
            MPI_CHECK(MPI_Type_commit(&rt));
            size_t n = 129;
            uint64_t tag = mktag(0xf0, (uint64_t)it, 0, 0, 6);
            int32_t *s = xmalloc(8 * n), *r = xmalloc(8 * n);
            for (size_t i = 0; i < 2 * n; i++) {
                s[i] = (int32_t)u32_input(tag, rank, i);
                r[i] = -5;
            }
            MPI_Op lop;
            MPI_CHECK(MPI_Op_create(usr_layout_op, 1, &lop));
            set_layout(K_SINT, 4, 1, 1, 1, 2, 0);
            MPI_CHECK(MPI_Allreduce(s, r, (int)n, rt, lop, comm));
            MPI_Op_free(&lop);
            n_allreduce++;
            snprintf(desc, sizeof(desc), "%s resized(int32, extent 8) allreduce user SUM count %zu", label, n);
            report_t rp = {desc, 0};
            for (size_t i = 0; i < 2 * n; i++) {
                uint32_t e = 0;
                for (int q = 0; q < size; q++) {
                    e += u32_input(tag, q, i);
                }
                int32_t er = (i % 2 == 0) ? (int32_t)e : -5;
                if (r[i] != er) {
                    char es[32], gs[32];
                    snprintf(es, sizeof(es), "%" PRId32 "%s", er, i % 2 ? " (gap)" : "");
                    snprintf(gs, sizeof(gs), "%" PRId32, r[i]);
                    report_bad(&rp, i, es, gs);
                }
            }
            report_end(&rp);
            free(s);
            free(r);
            MPI_Type_free(&rt);
        }

        /* 6. MAXLOC / MINLOC on pair types (with ties: lowest index wins) */
        cur_test = "fallback-loc";
        {
            size_t n = 37;
            uint64_t tag = mktag(0xf0, (uint64_t)it, 0, 0, 7);
            struct { int v, i; } si[37], ri[37];
            struct { double v; int i; } sd[37], rd[37];
            for (size_t i = 0; i < n; i++) {
                si[i].v = (int)(hash3(tag, (uint64_t)rank, i) % 4);
                si[i].i = rank * 3 + 1;
                sd[i].v = (double)(hash3(tag, (uint64_t)rank, i + 100) % 4) - 1.5;
                sd[i].i = 100 - rank;
            }
            MPI_CHECK(MPI_Allreduce(si, ri, (int)n, MPI_2INT, MPI_MAXLOC, comm));
            MPI_CHECK(MPI_Allreduce(sd, rd, (int)n, MPI_DOUBLE_INT, MPI_MINLOC, comm));
            n_allreduce += 2;
            snprintf(desc, sizeof(desc), "%s MAXLOC 2INT / MINLOC DOUBLE_INT count %zu", label, n);
            report_t rp = {desc, 0};
            for (size_t i = 0; i < n; i++) {
                int ev = -1, ei = 0;
                double dv = 1e9;
                int di2 = 0;
                for (int q = 0; q < size; q++) {
                    int v = (int)(hash3(tag, (uint64_t)q, i) % 4), ix = q * 3 + 1;
                    if (v > ev || (v == ev && ix < ei)) {
                        ev = v;
                        ei = ix;
                    }
                    double w = (double)(hash3(tag, (uint64_t)q, i + 100) % 4) - 1.5;
                    int jx = 100 - q;
                    if (w < dv || (w == dv && jx < di2)) {
                        dv = w;
                        di2 = jx;
                    }
                }
                char es[64], gs[64];
                if (ri[i].v != ev || ri[i].i != ei) {
                    snprintf(es, sizeof(es), "MAXLOC (%d,%d)", ev, ei);
                    snprintf(gs, sizeof(gs), "(%d,%d)", ri[i].v, ri[i].i);
                    report_bad(&rp, i, es, gs);
                }
                if (rd[i].v != dv || rd[i].i != di2) {
                    snprintf(es, sizeof(es), "MINLOC (%g,%d)", dv, di2);
                    snprintf(gs, sizeof(gs), "(%g,%d)", rd[i].v, rd[i].i);
                    report_bad(&rp, i, es, gs);
                }
            }
            report_end(&rp);
        }
    }
}

/* Intercommunicator (coll/inter) and MPI_COMM_SELF: must keep working. */
void test_inter_self(void)
{
    char desc[160];
    cur_test = "fallback-self";
    comm_suite(MPI_COMM_SELF, "COMM_SELF", 1);
    if (world_size < 2) {
        return;
    }
    cur_test = "fallback-intercomm";
    MPI_Comm half, inter;
    int color = world_rank % 2;
    MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, color, world_rank, &half));
    /* leaders: world rank 0 (color 0) and 1 (color 1) */
    MPI_CHECK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - color, 77, &inter));
    int lrank, lsize, rsize;
    MPI_Comm_rank(half, &lrank);
    MPI_Comm_size(half, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    for (int rep = 0; rep < 3; rep++) {
        size_t n = 1 + 40 * (size_t)rep;
        uint64_t tag = mktag(0x1c, (uint64_t)rep, 0, 0, 0);
        uint32_t *s = xmalloc(4 * n), *r = xmalloc(4 * n);
        for (size_t i = 0; i < n; i++) {
            s[i] = u32_input(tag, world_rank, i);
        }
        MPI_CHECK(MPI_Allreduce(s, r, (int)n, MPI_UINT32_T, MPI_SUM, inter));
        MPI_CHECK(MPI_Barrier(inter));
        snprintf(desc, sizeof(desc), "intercomm allreduce SUM count %zu (sum of the other group)", n);
        report_t rp = {desc, 0};
        for (size_t i = 0; i < n; i++) {
            uint32_t e = 0;
            for (int q = 0; q < world_size; q++) {
                if (q % 2 != color) {
                    e += u32_input(tag, q, i);
                }
            }
            if (r[i] != e) {
                char es[32], gs[32];
                snprintf(es, sizeof(es), "%" PRIu32, e);
                snprintf(gs, sizeof(gs), "%" PRIu32, r[i]);
                report_bad(&rp, i, es, gs);
            }
        }
        report_end(&rp);
        /* bcast from the leader of group `rep % 2` to the other group */
        int rootgrp = rep % 2;
        for (size_t i = 0; i < n; i++) {
            r[i] = color == rootgrp ? u32_input(tag, 555, i) : 0;
        }
        int root = color == rootgrp ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        MPI_CHECK(MPI_Bcast(r, (int)n, MPI_UINT32_T, root, inter));
        snprintf(desc, sizeof(desc), "intercomm bcast from group %d count %zu", rootgrp, n);
        report_t rb = {desc, 0};
        for (size_t i = 0; i < n; i++) {
            if (r[i] != u32_input(tag, 555, i)) {
                char es[32], gs[32];
                snprintf(es, sizeof(es), "%" PRIu32, u32_input(tag, 555, i));
                snprintf(gs, sizeof(gs), "%" PRIu32, r[i]);
                report_bad(&rb, i, es, gs);
            }
        }
        report_end(&rb);
        free(s);
        free(r);
    }
    (void)lsize;
    (void)rsize;
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}
