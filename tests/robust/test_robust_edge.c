/*
 * Part of test_robust: the section edge (count 0, MPI_IN_PLACE, every root,
 * datatypes with a lower bound or odd extent, MPI_BOTTOM, MPI_COMM_SELF, an
 * intercommunicator, unaligned buffers).
 */
#include "test_robust.h"

/* ------------------------------------------------------------------ edge */

static void fill_pattern(void *p, size_t n, unsigned char seed)
{
    unsigned char *c = p;
    for (size_t i = 0; i < n; ++i) {
        c[i] = (unsigned char) (seed + 31 * i);
    }
}

/* Count 0 on every collective: buffers stay untouched. */
static void edge_count0(MPI_Comm comm)
{
    char a[64], b[64], ga[64], gb[64];
    int size;

    MPI_Comm_size(comm, &size);
    cur = "edge-count0";
    fill_pattern(a, 64, 1);
    fill_pattern(b, 64, 2);
    memcpy(ga, a, 64);
    memcpy(gb, b, 64);
    CHECK_MPI(MPI_Bcast(a, 0, MPI_INT, size - 1, comm));
    CHECK_MPI(MPI_Allreduce(a, b, 0, MPI_INT, MPI_SUM, comm));
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, b, 0, MPI_DOUBLE, MPI_MAX, comm));
    CHECK_MPI(MPI_Reduce(a, b, 0, MPI_INT, MPI_SUM, 0, comm));
    CHECK_MPI(MPI_Allgather(a, 0, MPI_INT, b, 0, MPI_INT, comm));
    CHECK_MPI(MPI_Alltoall(a, 0, MPI_INT, b, 0, MPI_INT, comm));
    expect_bytes("count 0 send buffer", a, ga, 64);
    expect_bytes("count 0 receive buffer", b, gb, 64);
}

/* Every root and MPI_IN_PLACE on bcast, allreduce, reduce, allgather,
 * alltoall, at a few sizes, at buffers `off` bytes into a big allocation. */
static void edge_roots_inplace(MPI_Comm comm, char *big, size_t off, const char *what)
{
    int size, rank;
    static const int counts[] = {1, 3, 1000, 2048, 2500};

    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    for (size_t ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ++ci) {
        int n = counts[ci];
        size_t blk = sizeof(int64_t) * (size_t) (n + 1) * size;
        /* unaligned: int64 elements at an odd address */
        int64_t *s = (int64_t *) (big + off), *r = (int64_t *) (big + off + blk + 8);
        int64_t *ref = xmalloc(blk);
        unsigned char *guard = (unsigned char *) r + blk;

        for (int root = 0; root < size; ++root) {
            uint64_t tag = ((uint64_t) ci << 32) ^ (uint64_t) root ^ (uint64_t) off << 8;
            cur = what;
            fill_pattern(guard, 64, 9);
            /* bcast */
            for (int i = 0; i < n; ++i) {
                ref[i] = (int64_t) val(tag, root, i);
                s[i] = rank == root ? ref[i] : 0;
            }
            CHECK_MPI(MPI_Bcast(s, n, MPI_INT64_T, root, comm));
            expect_i64("bcast (root, unaligned)", s, ref, n);
            /* reduce, in place at the root */
            for (int i = 0; i < n; ++i) {
                ref[i] = 0;
                for (int k = 0; k < size; ++k) {
                    ref[i] += (int64_t) (val(tag, k, i) % 100000);
                }
                r[i] = s[i] = (int64_t) (val(tag, rank, i) % 100000);
            }
            CHECK_MPI(MPI_Reduce(rank == root ? MPI_IN_PLACE : (void *) s, r, n, MPI_INT64_T,
                                 MPI_SUM, root, comm));
            if (rank == root) {
                expect_i64("reduce (root, in place)", r, ref, n);
            }
            /* allreduce in place and not */
            for (int i = 0; i < n; ++i) {
                r[i] = s[i] = (int64_t) (val(tag, rank, i) % 100000);
            }
            CHECK_MPI(MPI_Allreduce(root & 1 ? MPI_IN_PLACE : (void *) s, r, n, MPI_INT64_T,
                                    MPI_SUM, comm));
            expect_i64("allreduce (unaligned)", r, ref, n);
            /* allgather in place: own block already in the receive buffer */
            if (root == 0) {
                int m = n / size + 1;
                for (int k = 0; k < size; ++k) {
                    for (int i = 0; i < m; ++i) {
                        ref[(size_t) k * m + i] = (int64_t) val(tag + 1, k, i);
                        r[(size_t) k * m + i] = k == rank ? ref[(size_t) k * m + i] : -1;
                    }
                }
                CHECK_MPI(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, m, MPI_INT64_T,
                                        comm));
                expect_i64("allgather (in place)", r, ref, (size_t) m * size);
                /* alltoall in place */
                for (int k = 0; k < size; ++k) {
                    for (int i = 0; i < m; ++i) {
                        r[(size_t) k * m + i] = (int64_t) val(tag + 2 + (uint64_t) k, rank, i);
                        ref[(size_t) k * m + i] = (int64_t) val(tag + 2 + (uint64_t) rank, k, i);
                    }
                }
                CHECK_MPI(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, m, MPI_INT64_T,
                                       comm));
                expect_i64("alltoall (in place)", r, ref, (size_t) m * size);
            }
            {
                unsigned char want[64];
                fill_pattern(want, 64, 9);
                expect_bytes("bytes after the receive buffer", guard, want, 64);
            }
        }
        free(ref);
    }
}

/* Datatypes whose lower bound or extent differs from their size. */
static void edge_datatypes(MPI_Comm comm)
{
    int size, rank, root;
    MPI_Datatype at8, strided, vec;
    int buf[64], want[64];

    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    root = size - 1;
    cur = "edge-datatypes";
    {
        /* one int at byte 8 of a 16-byte extent: true lb 8, size 4; count 1
         * is one contiguous block (coll/rdma may serve it at buf + 8) */
        int bl = 1;
        MPI_Aint d = 8;
        MPI_Datatype t = MPI_INT, tmp;
        CHECK_MPI(MPI_Type_create_struct(1, &bl, &d, &t, &tmp));
        CHECK_MPI(MPI_Type_create_resized(tmp, 0, 16, &at8));
        CHECK_MPI(MPI_Type_commit(&at8));
        MPI_Type_free(&tmp);
    }
    for (int count = 1; count <= 3; ++count) {
        for (int i = 0; i < 64; ++i) {
            want[i] = -5 - i;
            buf[i] = -5 - i;
        }
        for (int e = 0; e < count; ++e) {
            want[4 * e + 2] = 1000 + e;
            if (rank == root) {
                buf[4 * e + 2] = 1000 + e;
            }
        }
        CHECK_MPI(MPI_Bcast(buf, count, at8, root, comm));
        expect_bytes("bcast of an int at lb 8, extent 16", buf, want, sizeof(buf));
    }
    /* (Reductions on derived datatypes: Open MPI 4.1 refuses them itself
     * with MPI_ERR_OP before any coll component sees the call.) */
    /* negative lower bound: contiguous 4 ints resized to lb -16, extent 32 */
    CHECK_MPI(MPI_Type_contiguous(4, MPI_INT, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    CHECK_MPI(MPI_Type_create_resized(vec, -16, 32, &strided));
    CHECK_MPI(MPI_Type_commit(&strided));
    for (int i = 0; i < 64; ++i) {
        want[i] = buf[i] = 7 * i;
    }
    /* count 2 from &buf[4]: ints 4..7 and 12..15 */
    for (int i = 0; i < 64; ++i) {
        if ((i >= 4 && i < 8) || (i >= 12 && i < 16)) {
            want[i] = 100 + i;
            if (rank == root) {
                buf[i] = 100 + i;
            }
        }
    }
    CHECK_MPI(MPI_Bcast(&buf[4], 2, strided, root, comm));
    expect_bytes("bcast of a type with lb -16, extent 32", buf, want, sizeof(buf));
    /* alltoall: one strided element (8 ints in two runs) to every rank */
    {
        int *sb = xmalloc(sizeof(int) * 8 * size), *rbuf = xmalloc(sizeof(int) * 8 * size);
        int *rw = xmalloc(sizeof(int) * 8 * size);
        for (int k = 0; k < size; ++k) {
            for (int i = 0; i < 4; ++i) {
                sb[4 * k + i] = 1000 * rank + 10 * k + i;     /* contiguous send blocks */
                rw[4 * k + i] = 1000 * k + 10 * rank + i;
            }
        }
        CHECK_MPI(MPI_Alltoall(sb, 4, MPI_INT, rbuf, 1, vec, comm));
        expect_bytes("alltoall into a contiguous derived type", rbuf, rw, sizeof(int) * 4 * size);
        free(sb);
        free(rbuf);
        free(rw);
    }
    /* allgather and alltoall of the resized type: one block each */
    {
        int *g = xmalloc(sizeof(int) * 4 * size), *gw = xmalloc(sizeof(int) * 4 * size);
        for (int k = 0; k < size; ++k) {
            gw[4 * k + 2] = 50 * k + 1;
            g[4 * k + 2] = -1;
            gw[4 * k] = gw[4 * k + 1] = gw[4 * k + 3] = g[4 * k] = g[4 * k + 1] = g[4 * k + 3] = -9;
        }
        int mine = 50 * rank + 1;
        CHECK_MPI(MPI_Allgather(&mine, 1, MPI_INT, g, 1, at8, comm));
        expect_bytes("allgather into an int at lb 8, extent 16", g, gw, sizeof(int) * 4 * size);
        free(g);
        free(gw);
    }
    MPI_Type_free(&at8);
    MPI_Type_free(&strided);
    MPI_Type_free(&vec);
}

/* MPI_BOTTOM with absolute addresses. */
static void edge_bottom(MPI_Comm comm)
{
    int size, rank, root;
    int64_t x[5], y[3], wx[5], wy[3];
    MPI_Datatype one, two;
    int bl[2] = {5, 3};
    MPI_Aint d[2];
    MPI_Datatype t[2] = {MPI_INT64_T, MPI_INT64_T};

    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    root = size > 1 ? 1 : 0;
    cur = "edge-bottom";
    MPI_Get_address(x, &d[0]);
    MPI_Get_address(y, &d[1]);
    /* one block at an absolute address (contiguous: may be served) */
    CHECK_MPI(MPI_Type_create_struct(1, bl, d, t, &one));
    CHECK_MPI(MPI_Type_commit(&one));
    CHECK_MPI(MPI_Type_create_struct(2, bl, d, t, &two));
    CHECK_MPI(MPI_Type_commit(&two));
    for (int i = 0; i < 5; ++i) {
        wx[i] = 11 * i + 3;
        x[i] = rank == root ? wx[i] : 0;
    }
    CHECK_MPI(MPI_Bcast(MPI_BOTTOM, 1, one, root, comm));
    expect_i64("bcast from MPI_BOTTOM, one block", x, wx, 5);
    for (int i = 0; i < 5; ++i) {
        wx[i] = -(int64_t) i;
        x[i] = rank == root ? wx[i] : 0;
    }
    for (int i = 0; i < 3; ++i) {
        wy[i] = 1000 + i;
        y[i] = rank == root ? wy[i] : 0;
    }
    CHECK_MPI(MPI_Bcast(MPI_BOTTOM, 1, two, root, comm));
    expect_i64("bcast from MPI_BOTTOM, two blocks (x)", x, wx, 5);
    expect_i64("bcast from MPI_BOTTOM, two blocks (y)", y, wy, 3);
    /* allgather of one int64 per rank into absolute addresses */
    if (size <= 5) {
        int64_t mine = 17 * rank + 5;
        MPI_Datatype cell;
        MPI_Aint cd;
        int one_bl = 1;
        MPI_Datatype i64 = MPI_INT64_T, tmp;
        for (int k = 0; k < 5; ++k) {
            x[k] = -1;
            wx[k] = k < size ? 17 * k + 5 : -1;
        }
        for (int k = 0; k < 3; ++k) {
            y[k] = -1;
            wy[k] = k + 5 < size ? 17 * (k + 5) + 5 : -1;
        }
        /* one int64 at x's absolute address, extent 8: rank k's lands at
         * x + 8k (x holds 5, so up to 5 ranks) */
        MPI_Get_address(x, &cd);
        CHECK_MPI(MPI_Type_create_struct(1, &one_bl, &cd, &i64, &tmp));
        CHECK_MPI(MPI_Type_create_resized(tmp, cd, 8, &cell));
        CHECK_MPI(MPI_Type_commit(&cell));
        MPI_Type_free(&tmp);
        CHECK_MPI(MPI_Allgather(&mine, 1, MPI_INT64_T, MPI_BOTTOM, 1, cell, comm));
        expect_i64("allgather into MPI_BOTTOM + absolute address", x, wx, 5);
        MPI_Type_free(&cell);
    }
    MPI_Type_free(&one);
    MPI_Type_free(&two);
}

/* Intercommunicator of the even and the odd world ranks. */
static void edge_inter(void)
{
    MPI_Comm half, inter;
    int color = wrank & 1, lrank, lsize, rsize;
    int64_t v[8], want[8];

    if (wsize < 2) {
        return;
    }
    cur = "edge-inter";
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, wrank, &half));
    /* local leader: rank 0 of each half; remote leader: world rank 1 or 0 */
    CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, color ? 0 : 1, 77, &inter));
    MPI_Comm_rank(half, &lrank);
    MPI_Comm_size(half, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    CHECK_MPI(MPI_Barrier(inter));
    /* bcast from rank 0 of the even group to the odd group */
    for (int i = 0; i < 8; ++i) {
        want[i] = (int64_t) val(99, 0, i);
        v[i] = -1;
    }
    if (color == 0) {
        if (lrank == 0) {
            memcpy(v, want, sizeof(v));
        }
        CHECK_MPI(MPI_Bcast(v, 8, MPI_INT64_T, lrank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter));
    } else {
        CHECK_MPI(MPI_Bcast(v, 8, MPI_INT64_T, 0, inter));
        expect_i64("intercommunicator bcast", v, want, 8);
    }
    /* allreduce: each group gets the other group's sum of world ranks */
    for (int i = 0; i < 8; ++i) {
        int64_t s = 0;
        for (int r = 0; r < wsize; ++r) {
            if ((r & 1) != color) {
                s += r + i;
            }
        }
        want[i] = s;
        v[i] = wrank + i;
    }
    {
        int64_t out[8];
        CHECK_MPI(MPI_Allreduce(v, out, 8, MPI_INT64_T, MPI_SUM, inter));
        expect_i64("intercommunicator allreduce", out, want, 8);
    }
    /* allgather: the remote group's world ranks in their local order */
    {
        int64_t me = wrank, *all = xmalloc(sizeof(int64_t) * rsize), *w = xmalloc(sizeof(int64_t) * rsize);
        for (int k = 0; k < rsize; ++k) {
            w[k] = 2 * k + (color ? 0 : 1);
        }
        CHECK_MPI(MPI_Allgather(&me, 1, MPI_INT64_T, all, 1, MPI_INT64_T, inter));
        expect_i64("intercommunicator allgather", all, w, rsize);
        free(all);
        free(w);
    }
    (void) lsize;
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

void run_edge(void)
{
    size_t big_bytes = 8u << 20;
    char *big = xmalloc(big_bytes);
    MPI_Comm split, selfdup;
    int color;

    memset(big, 0x5a, big_bytes);
    /* MPI_COMM_SELF (served by coll/self) and a duplicate of it */
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_SELF, &selfdup));
    edge_count0(MPI_COMM_SELF);
    edge_roots_inplace(MPI_COMM_SELF, big, 3, "edge-self");
    edge_roots_inplace(selfdup, big, 5, "edge-self-dup");
    edge_datatypes(MPI_COMM_SELF);
    edge_bottom(MPI_COMM_SELF);
    MPI_Comm_free(&selfdup);

    edge_count0(MPI_COMM_WORLD);
    /* buffers in the middle of the allocation, at odd offsets */
    edge_roots_inplace(MPI_COMM_WORLD, big, (4u << 20) + 1, "edge-world-offset1");
    edge_roots_inplace(MPI_COMM_WORLD, big, (2u << 20) + 7, "edge-world-offset7");
    edge_roots_inplace(MPI_COMM_WORLD, big, 4096, "edge-world-aligned");
    edge_datatypes(MPI_COMM_WORLD);
    edge_bottom(MPI_COMM_WORLD);
    /* a sub-communicator whose ranks are in another order than the world's */
    color = wsize > 2 ? wrank % 2 : 0;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, -wrank, &split));
    edge_count0(split);
    edge_roots_inplace(split, big, 1000003, "edge-split");
    edge_datatypes(split);
    edge_bottom(split);
    MPI_Comm_free(&split);
    edge_inter();
    free(big);
}
