/*
 * The random-program checker's calls (test_random.h): buffers, inputs, the
 * MPI call in its three forms, and each rank's local reference.
 *
 * Inputs are a function of (call key, world rank, element), so every rank
 * computes every member's inputs and the exact result.  Sums use small
 * integers (8-bit sums stay within +-3 per rank: no overflow, Open MPI's
 * saturating op/avx cannot differ); doubles hold integers, so every sum is
 * exact in any order.  Output buffers start as a sentinel; the vector
 * type's gaps, the v variants' gaps and the blocks an in-place call does
 * not write must keep it.
 */
#include "test_random.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "persistent_compat.h"

#define SENTINEL 0xa5

MPI_Datatype rt_types[NTYPES];
MPI_Op rt_ops[NOPS];
const char *rt_coll_name[NCOLLS] = {"barrier",  "bcast", "allreduce", "reduce",  "allgather",
                                    "alltoall", "scan",  "gather",    "gatherv", "alltoallv"};
const char *rt_type_name[NTYPES] = {"byte", "int8", "int", "double", "vector"};
const char *rt_op_name[NOPS] = {"sum", "max", "min", "band", "user"};
static const size_t unit_bytes[NTYPES] = {1, 1, 4, 8, 4};
static const int stride[NTYPES] = {1, 1, 1, 1, 3}; /* units per element */
static const int ndata[NTYPES] = {1, 1, 1, 1, 2};  /* data units per element */

/* the user-defined operation: a commutative sum (coll/rdma hands it on) */
static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    for (int i = 0; i < *len; i++) {
        if (MPI_INT8_T == *dt) {
            ((int8_t *) inout)[i] += ((int8_t *) in)[i];
        } else if (MPI_DOUBLE == *dt) {
            ((double *) inout)[i] += ((double *) in)[i];
        } else {
            ((int32_t *) inout)[i] += ((int32_t *) in)[i];
        }
    }
}

void rt_data_init(void)
{
    rt_types[T_BYTE] = MPI_BYTE;
    rt_types[T_INT8] = MPI_INT8_T;
    rt_types[T_INT] = MPI_INT;
    rt_types[T_DOUBLE] = MPI_DOUBLE;
    MPI_Type_vector(2, 1, 2, MPI_INT, &rt_types[T_VEC]);
    MPI_Type_commit(&rt_types[T_VEC]);
    rt_ops[O_SUM] = MPI_SUM;
    rt_ops[O_MAX] = MPI_MAX;
    rt_ops[O_MIN] = MPI_MIN;
    rt_ops[O_BAND] = MPI_BAND;
    MPI_Op_create(user_sum, 1, &rt_ops[O_USER]);
}

void rt_data_fini(void)
{
    MPI_Type_free(&rt_types[T_VEC]);
    MPI_Op_free(&rt_ops[O_USER]);
}

static int reduction(int coll) { return C_ALLREDUCE == coll || C_REDUCE == coll || C_SCAN == coll; }

/* member w's k-th input value */
static int64_t val(const call_t *c, int w, int64_t k)
{
    uint64_t h = rnd_mix(c->key ^ ((uint64_t) (w + 1) << 40), (uint64_t) k);
    if (reduction(c->coll) && (O_SUM == c->op || O_USER == c->op)) {
        return T_INT8 == c->type ? (int64_t) (h % 7) - 3 : (int64_t) (h % 2000001) - 1000000;
    }
    if (reduction(c->coll) && O_BAND == c->op) {
        h |= h >> 29; /* mostly ones: the AND keeps some */
    }
    switch (c->type) {
    case T_BYTE:
        return (int64_t) (h & 0xff);
    case T_INT8:
        return (int8_t) h;
    default:
        return (int32_t) h;
    }
}

static int64_t combine(int op, int64_t a, int64_t b)
{
    switch (op) {
    case O_MAX:
        return a > b ? a : b;
    case O_MIN:
        return a < b ? a : b;
    case O_BAND:
        return a & b;
    default:
        return a + b;
    }
}

static void put(int t, void *b, size_t u, int64_t v)
{
    switch (t) {
    case T_BYTE:
        ((uint8_t *) b)[u] = (uint8_t) v;
        break;
    case T_INT8:
        ((int8_t *) b)[u] = (int8_t) v;
        break;
    case T_DOUBLE:
        ((double *) b)[u] = (double) v;
        break;
    default:
        ((int32_t *) b)[u] = (int32_t) v;
    }
}

static int same(int t, const void *b, size_t u, int64_t v, char *got, size_t len)
{
    switch (t) {
    case T_BYTE:
        snprintf(got, len, "%u", ((const uint8_t *) b)[u]);
        return ((const uint8_t *) b)[u] == (uint8_t) v;
    case T_INT8:
        snprintf(got, len, "%d", ((const int8_t *) b)[u]);
        return ((const int8_t *) b)[u] == (int8_t) v;
    case T_DOUBLE:
        snprintf(got, len, "%.17g", ((const double *) b)[u]);
        return ((const double *) b)[u] == (double) v;
    default:
        snprintf(got, len, "%d", ((const int32_t *) b)[u]);
        return ((const int32_t *) b)[u] == (int32_t) v;
    }
}

/* unit index of logical value k of a block of elements starting at unit 0 */
static size_t unit_of(int t, int64_t k)
{
    return (size_t) (k / ndata[t]) * stride[t] + (T_VEC == t && k % 2 ? 2 : 0);
}

/* the v variants' counts: member q's to member r (gatherv: r = 0) */
static int vcount(const call_t *c, int q, int r)
{
    return (int) (rnd_mix(c->gen[0], (uint64_t) q * 4096 + r) % (uint64_t) (c->count + 1));
}

/* logical offset of q's values for r in q's alltoallv send buffer */
static int64_t voff(const call_t *c, int q, int r)
{
    int64_t o = 0;
    for (int x = 0; x < r; x++) {
        o += vcount(c, q, x);
    }
    return o;
}

void rt_call_prepare(call_t *c)
{
    int n = c->count, p = c->csize, t = c->type, me = c->crank;
    size_t blk = (size_t) n * stride[t];
    c->sunits = c->runits = 0;
    c->sc = c->sd = c->rc = c->rd = NULL;
    c->world = memcpy(malloc(p * sizeof(int) + 1), c->world, p * sizeof(int));
    switch (c->coll) {
    case C_BARRIER:
        break;
    case C_BCAST:
        c->runits = blk;
        break;
    case C_ALLREDUCE:
    case C_REDUCE:
    case C_SCAN:
        c->sunits = c->runits = blk;
        break;
    case C_ALLGATHER:
    case C_GATHER:
        c->sunits = blk;
        c->runits = blk * p;
        break;
    case C_ALLTOALL:
        c->sunits = c->runits = blk * p;
        break;
    case C_GATHERV:
    case C_ALLTOALLV: {
        int s = 0, r = 0;
        c->sc = malloc(4 * p * sizeof(int));
        c->sd = c->sc + p;
        c->rc = c->sd + p;
        c->rd = c->rc + p;
        for (int q = 0; q < p; q++) {
            c->sc[q] = C_GATHERV == c->coll ? (q ? 0 : vcount(c, me, 0)) : vcount(c, me, q);
            c->rc[q] = C_GATHERV == c->coll ? vcount(c, q, 0) : vcount(c, q, me);
            c->sd[q] = s;
            c->rd[q] = r;
            s += c->sc[q] + 1; /* one element of gap after each block */
            r += c->rc[q] + 1;
        }
        c->sunits = (size_t) s;
        c->runits = (size_t) r;
        break;
    }
    }
    /* one more unit: malloc(0) may give NULL, which MPI reads as no buffer */
    c->sbuf = malloc((c->sunits + 1) * unit_bytes[t]);
    c->rbuf = malloc((c->runits + 1) * unit_bytes[t]);
    rt_call_refill(c, c->key);
}

static void fill_block(const call_t *c, void *b, size_t at, int w, int64_t from, int64_t nvals)
{
    for (int64_t k = 0; k < nvals; k++) {
        put(c->type, b, at + unit_of(c->type, k), val(c, w, from + k));
    }
}

void rt_call_refill(call_t *c, uint64_t key)
{
    int t = c->type, me = c->crank, w = c->world[me], n = c->count, p = c->csize;
    int64_t nv = (int64_t) n * ndata[t];
    size_t blk = (size_t) n * stride[t];
    c->key = key;
    memset(c->sbuf, SENTINEL, (c->sunits + 1) * unit_bytes[t]);
    memset(c->rbuf, SENTINEL, (c->runits + 1) * unit_bytes[t]);
    switch (c->coll) {
    case C_BARRIER:
        break;
    case C_BCAST:
        if (me == c->root) {
            fill_block(c, c->rbuf, 0, w, 0, nv);
        }
        break;
    case C_ALLREDUCE:
    case C_REDUCE:
    case C_SCAN:
        fill_block(c, c->in_place && (C_REDUCE != c->coll || me == c->root) ? c->rbuf : c->sbuf, 0,
                   w, 0, nv);
        break;
    case C_ALLGATHER:
    case C_GATHER:
        if (c->in_place && (C_GATHER != c->coll || me == c->root)) {
            fill_block(c, c->rbuf, blk * me, w, 0, nv);
        } else {
            fill_block(c, c->sbuf, 0, w, 0, nv);
        }
        break;
    case C_ALLTOALL:
        for (int r = 0; r < p; r++) {
            fill_block(c, c->in_place ? c->rbuf : c->sbuf, blk * r, w, nv * r, nv);
        }
        break;
    case C_GATHERV:
        fill_block(c, c->sbuf, 0, w, 0, c->sc[0]);
        break;
    case C_ALLTOALLV:
        for (int r = 0; r < p; r++) {
            fill_block(c, c->sbuf, c->sd[r], w, voff(c, me, r), c->sc[r]);
        }
        break;
    }
}

int rt_call_post(call_t *c, MPI_Comm comm, MPI_Request *r)
{
    MPI_Datatype dt = rt_types[c->type];
    MPI_Op op = rt_ops[c->op];
    int n = c->count, f = c->form, root = c->root, at_root = c->crank == c->root;
    void *s = c->in_place ? MPI_IN_PLACE : c->sbuf, *rb = c->rbuf;
    MPI_Info info = MPI_INFO_NULL;
    switch (c->coll) {
    case C_BARRIER:
        return f == F_BLOCKING      ? MPI_Barrier(comm)
               : f == F_NONBLOCKING ? MPI_Ibarrier(comm, r)
                                    : MPI_Barrier_init(comm, info, r);
    case C_BCAST:
        return f == F_BLOCKING      ? MPI_Bcast(rb, n, dt, root, comm)
               : f == F_NONBLOCKING ? MPI_Ibcast(rb, n, dt, root, comm, r)
                                    : MPI_Bcast_init(rb, n, dt, root, comm, info, r);
    case C_ALLREDUCE:
        return f == F_BLOCKING      ? MPI_Allreduce(s, rb, n, dt, op, comm)
               : f == F_NONBLOCKING ? MPI_Iallreduce(s, rb, n, dt, op, comm, r)
                                    : MPI_Allreduce_init(s, rb, n, dt, op, comm, info, r);
    case C_REDUCE:
        s = c->in_place && at_root ? MPI_IN_PLACE : c->sbuf;
        return f == F_BLOCKING      ? MPI_Reduce(s, rb, n, dt, op, root, comm)
               : f == F_NONBLOCKING ? MPI_Ireduce(s, rb, n, dt, op, root, comm, r)
                                    : MPI_Reduce_init(s, rb, n, dt, op, root, comm, info, r);
    case C_ALLGATHER:
        return f == F_BLOCKING      ? MPI_Allgather(s, n, dt, rb, n, dt, comm)
               : f == F_NONBLOCKING ? MPI_Iallgather(s, n, dt, rb, n, dt, comm, r)
                                    : MPI_Allgather_init(s, n, dt, rb, n, dt, comm, info, r);
    case C_ALLTOALL:
        return f == F_BLOCKING      ? MPI_Alltoall(s, n, dt, rb, n, dt, comm)
               : f == F_NONBLOCKING ? MPI_Ialltoall(s, n, dt, rb, n, dt, comm, r)
                                    : MPI_Alltoall_init(s, n, dt, rb, n, dt, comm, info, r);
    case C_SCAN:
        return f == F_BLOCKING ? MPI_Scan(s, rb, n, dt, op, comm)
                               : MPI_Iscan(s, rb, n, dt, op, comm, r);
    case C_GATHER:
        s = c->in_place && at_root ? MPI_IN_PLACE : c->sbuf;
        return f == F_BLOCKING ? MPI_Gather(s, n, dt, rb, n, dt, root, comm)
                               : MPI_Igather(s, n, dt, rb, n, dt, root, comm, r);
    case C_GATHERV:
        return f == F_BLOCKING
                   ? MPI_Gatherv(c->sbuf, c->sc[0], dt, rb, c->rc, c->rd, dt, root, comm)
                   : MPI_Igatherv(c->sbuf, c->sc[0], dt, rb, c->rc, c->rd, dt, root, comm, r);
    default:
        return f == F_BLOCKING
                   ? MPI_Alltoallv(c->sbuf, c->sc, c->sd, dt, rb, c->rc, c->rd, dt, comm)
                   : MPI_Ialltoallv(c->sbuf, c->sc, c->sd, dt, rb, c->rc, c->rd, dt, comm, r);
    }
}

/* reference of logical value k: member q's block (q < 0: the reduction
 * over members 0 .. -q - 1) */
static int64_t want(const call_t *c, int q, int64_t k)
{
    int64_t nv = (int64_t) c->count * ndata[c->type];
    if (q >= 0) {
        switch (c->coll) {
        case C_ALLTOALL:
            return val(c, c->world[q], nv * c->crank + k);
        case C_ALLTOALLV:
            return val(c, c->world[q], voff(c, q, c->crank) + k);
        default:
            return val(c, c->world[q], k);
        }
    }
    int64_t a = val(c, c->world[0], k);
    for (int x = 1; x < -q; x++) {
        a = combine(c->op, a, val(c, c->world[x], k));
    }
    return a;
}

int rt_call_check(call_t *c, uint64_t *digest, char *msg, size_t len)
{
    int t = c->type, p = c->csize, me = c->crank, nblocks = 1, who = 0;
    int64_t nv = (int64_t) c->count * ndata[t];
    size_t blk = (size_t) c->count * stride[t], ub = unit_bytes[t];
    uint64_t h = c->key;
    const unsigned char *b = c->rbuf;
    char got[48];
    switch (c->coll) {
    case C_BARRIER:
        return 0;
    case C_REDUCE:
    case C_GATHER:
    case C_GATHERV:
        if (me != c->root) {
            return 0;
        }
        break;
    default:
        break;
    }
    switch (c->coll) {
    case C_BCAST:
        who = c->root;
        break;
    case C_ALLREDUCE:
    case C_REDUCE:
        who = -p;
        break;
    case C_SCAN:
        who = -(me + 1);
        break;
    default:
        nblocks = p;
    }
    for (int q = 0; q < nblocks; q++) {
        size_t at = C_GATHERV == c->coll || C_ALLTOALLV == c->coll ? (size_t) c->rd[q] : blk * q;
        int64_t m = C_GATHERV == c->coll || C_ALLTOALLV == c->coll ? c->rc[q] : nv;
        for (int64_t k = 0; k < m; k++) {
            int64_t v = want(c, nblocks > 1 ? q : who, k);
            size_t u = at + unit_of(t, k);
            if (!same(t, c->rbuf, u, v, got, sizeof got)) {
                snprintf(msg, len, "block %d value %lld (unit %zu): got %s, expected %lld", q,
                         (long long) k, u, got, (long long) v);
                return 1;
            }
        }
    }
    /* everything else (gaps, the unit after) keeps the sentinel: check
     * every unit that is no data unit */
    for (size_t u = 0; u <= c->runits; u++) {
        int data = 0;
        if (u < c->runits && (C_GATHERV == c->coll || C_ALLTOALLV == c->coll)) {
            for (int q = 0; q < p && !data; q++) {
                data = u >= (size_t) c->rd[q] && u < (size_t) c->rd[q] + c->rc[q];
            }
        } else if (u < c->runits) {
            data = T_VEC != t || u % 3 != 1;
        }
        for (size_t i = 0; !data && i < ub; i++) {
            if (SENTINEL != b[u * ub + i]) {
                snprintf(msg, len, "unit %zu (a gap, or past the end) was written", u);
                return 1;
            }
        }
    }
    for (size_t i = 0; i < (c->runits + 1) * ub; i++) {
        h = h * 0x100000001b3ull ^ b[i];
    }
    *digest += rnd_mix(c->key, h);
    return 0;
}

void rt_call_release(call_t *c)
{
    free(c->sbuf);
    free(c->rbuf);
    free(c->sc);
    free(c->world);
    c->world = NULL;
    c->sbuf = c->rbuf = NULL;
    c->sc = NULL;
}

void rt_call_describe(const call_t *c, char *buf, size_t len)
{
    static const char *form[] = {"blocking", "nonblocking", "persistent"};
    snprintf(buf, len, "%s %s count %d %s%s%s root %d%s", form[c->form], rt_coll_name[c->coll],
             c->count, rt_type_name[c->type], reduction(c->coll) ? " " : "",
             reduction(c->coll) ? rt_op_name[c->op] : "", c->root, c->in_place ? " in place" : "");
}
