/*
 * coll_bench's data patterns and validation; see bench_check.h and
 * bench/README.md ("Validation").
 */
#include "bench_check.h"

#include <stdint.h>
#include <stdio.h>

const char *const coll_names[C_NCOLL] = {
    "barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall", "commdup", "pingpong"
};

const struct dtype dtypes[] = {
    { "byte",   K_BYTE,   1 },  /* MPI_BYTE: not for reductions */
    { "char",   K_INT8,   1 },  /* MPI_SIGNED_CHAR */
    { "int8",   K_INT8,   1 },
    { "uint8",  K_UINT8,  1 },
    { "int",    K_INT,    sizeof(int) },
    { "int64",  K_INT64,  8 },
    { "long",   K_INT64,  8 },
    { "float",  K_FLOAT,  sizeof(float) },
    { "double", K_DOUBLE, sizeof(double) },
};
const size_t ndtypes = sizeof(dtypes) / sizeof(dtypes[0]);

MPI_Datatype mpi_type(enum kind k)
{
    switch (k) {
    case K_BYTE:   return MPI_BYTE;
    case K_INT8:   return MPI_SIGNED_CHAR;
    case K_UINT8:  return MPI_UNSIGNED_CHAR;
    case K_INT:    return MPI_INT;
    case K_INT64:  return MPI_INT64_T;
    case K_FLOAT:  return MPI_FLOAT;
    case K_DOUBLE: return MPI_DOUBLE;
    }
    return MPI_DATATYPE_NULL;
}

const char *const op_names[3] = { "sum", "max", "min" };

#define MAX_REPORTED_ERRORS 5

int rank, nprocs;
unsigned long nerrors;
unsigned long ncalls_checked;

/* ---------- deterministic data patterns ---------- */

/* ---------- deterministic data patterns ---------- */

static inline uint32_t mix(uint32_t a, uint32_t b)
{
    uint32_t h = a * 0x9E3779B1u ^ (b + 0x7F4A7C15u) * 0x85EBCA77u;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    h *= 0x297A2D39u;
    h ^= h >> 15;
    return h;
}

/* seed for the data that rank src sends to rank dst in global call number t */
static inline uint32_t seed3(int src, int dst, unsigned long t)
{
    return mix(mix((uint32_t)t, (uint32_t)src), (uint32_t)dst + 0x1234u);
}

static inline uint8_t pat_byte(uint32_t seed, size_t idx)
{
    return (uint8_t)mix(seed, (uint32_t)idx ^ (uint32_t)(idx >> 32));
}

static void fill_bytes(void *buf, size_t n, uint32_t seed)
{
    uint8_t *p = buf;
    for (size_t i = 0; i < n; i++) p[i] = pat_byte(seed, i);
}

/* poison = complement of the expected pattern: a byte never written is caught */
static void poison_bytes(void *buf, size_t n, uint32_t seed)
{
    uint8_t *p = buf;
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)~pat_byte(seed, i);
}

static void report(const char *what, size_t size, unsigned long t, size_t idx,
                   double expect, double got)
{
    nerrors++;
    if (nerrors <= MAX_REPORTED_ERRORS)
        fprintf(stderr, "coll_bench: rank %d: MISMATCH %s size=%zu call=%lu index=%zu "
                "expected=%g got=%g\n", rank, what, size, t, idx, expect, got);
}

static int check_bytes(const void *buf, size_t n, uint32_t seed, const char *what,
                       size_t size, unsigned long t)
{
    const uint8_t *p = buf;
    for (size_t i = 0; i < n; i++) {
        uint8_t e = pat_byte(seed, i);
        if (p[i] != e) {
            report(what, size, t, i, e, p[i]);
            return 1;
        }
    }
    return 0;
}

/* small integer values so that any reduction order is exact in every type */
static inline double val(enum kind k, int r, size_t i, unsigned long t)
{
    uint32_t h = mix(seed3(r, 0, t), (uint32_t)i);
    if (k == K_UINT8) return (double)(h % 4);     /* sums fit for P <= 84 */
    return (double)((int)(h % 7) - 3);            /* |sum| <= 3P */
}

static inline void set_elem(void *buf, enum kind k, size_t i, double v)
{
    switch (k) {
    case K_BYTE:
    case K_UINT8:  ((uint8_t *)buf)[i] = (uint8_t)v; break;
    case K_INT8:   ((int8_t *)buf)[i] = (int8_t)v; break;
    case K_INT:    ((int *)buf)[i] = (int)v; break;
    case K_INT64:  ((int64_t *)buf)[i] = (int64_t)v; break;
    case K_FLOAT:  ((float *)buf)[i] = (float)v; break;
    case K_DOUBLE: ((double *)buf)[i] = v; break;
    }
}

static inline double get_elem(const void *buf, enum kind k, size_t i)
{
    switch (k) {
    case K_BYTE:
    case K_UINT8:  return ((const uint8_t *)buf)[i];
    case K_INT8:   return ((const int8_t *)buf)[i];
    case K_INT:    return ((const int *)buf)[i];
    case K_INT64:  return (double)((const int64_t *)buf)[i];
    case K_FLOAT:  return ((const float *)buf)[i];
    case K_DOUBLE: return ((const double *)buf)[i];
    }
    return 0;
}

static double poison_val(enum kind k)
{
    if (k == K_INT8) return 127;
    if (k == K_UINT8) return 255;
    return 1e6;
}

static void fill_vals(void *buf, enum kind k, size_t n, int r, unsigned long t)
{
    for (size_t i = 0; i < n; i++) set_elem(buf, k, i, val(k, r, i, t));
}

static double ref_val(enum kind k, enum opk op, size_t i, unsigned long t)
{
    double acc = val(k, 0, i, t);
    for (int r = 1; r < nprocs; r++) {
        double v = val(k, r, i, t);
        if (op == O_SUM) acc += v;
        else if (op == O_MAX) acc = v > acc ? v : acc;
        else acc = v < acc ? v : acc;
    }
    return acc;
}

static int check_vals_own(const void *buf, enum kind k, size_t n, int r, unsigned long t,
                          const char *what, size_t size)
{
    for (size_t i = 0; i < n; i++) {
        double e = val(k, r, i, t), g = get_elem(buf, k, i);
        if (e != g) { report(what, size, t, i, e, g); return 1; }
    }
    return 0;
}

static int check_vals_ref(const void *buf, enum kind k, enum opk op, size_t n, unsigned long t,
                          const char *what, size_t size)
{
    for (size_t i = 0; i < n; i++) {
        double e = ref_val(k, op, i, t), g = get_elem(buf, k, i);
        if (e != g) { report(what, size, t, i, e, g); return 1; }
    }
    return 0;
}

/* ---------- one call ---------- */

void prepare_call(const struct call *c)
{
    const int P = nprocs, root = c->root;
    const size_t bytes = c->bytes, count = c->count;
    const unsigned long t = c->t;
    char *sbuf = c->sbuf, *rbuf = c->rbuf;

    switch (c->coll) {
    case C_BARRIER: {
        long one = 1, old;
        MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, 0, MPI_SUM, c->win);
        MPI_Win_flush(0, c->win);
        break;
    }
    case C_BCAST:
        if (rank == root) fill_bytes(rbuf, bytes, seed3(root, 0, t));
        else poison_bytes(rbuf, bytes, seed3(root, 0, t));
        break;
    case C_REDUCE:
    case C_ALLREDUCE:
        if (c->sarg == MPI_IN_PLACE) {
            fill_vals(rbuf, c->kind, count, rank, t);
        } else {
            fill_vals(sbuf, c->kind, count, rank, t);
            for (size_t i = 0; i < count; i++) set_elem(rbuf, c->kind, i, poison_val(c->kind));
        }
        break;
    case C_ALLGATHER:
        for (int r = 0; r < P; r++)
            poison_bytes(rbuf + (size_t)r * bytes, bytes, seed3(r, 0, t));
        if (c->sarg == MPI_IN_PLACE) fill_bytes(rbuf + (size_t)rank * bytes, bytes, seed3(rank, 0, t));
        else fill_bytes(sbuf, bytes, seed3(rank, 0, t));
        break;
    case C_ALLTOALL:
        for (int r = 0; r < P; r++) {
            if (c->sarg == MPI_IN_PLACE) {
                fill_bytes(rbuf + (size_t)r * bytes, bytes, seed3(rank, r, t));
            } else {
                fill_bytes(sbuf + (size_t)r * bytes, bytes, seed3(rank, r, t));
                poison_bytes(rbuf + (size_t)r * bytes, bytes, seed3(r, rank, t));
            }
        }
        break;
    case C_PINGPONG:   /* rank 0 pings rank 1, rank 1 answers with its own data */
        if (rank < 2) {
            fill_bytes(sbuf, bytes, seed3(rank, 1 - rank, t));
            poison_bytes(rbuf, bytes, seed3(1 - rank, rank, t));
        }
        break;
    default: break;
    }
}

void check_call(const struct call *c)
{
    const int P = nprocs, root = c->root;
    const size_t bytes = c->bytes, count = c->count, size = c->size;
    const unsigned long t = c->t;
    const char *sbuf = c->sbuf, *rbuf = c->rbuf;

    ncalls_checked++;
    switch (c->coll) {
    case C_BARRIER: {
        long dummy = 0, seen;
        MPI_Fetch_and_op(&dummy, &seen, MPI_LONG, 0, 0, MPI_NO_OP, c->win);
        MPI_Win_flush(0, c->win);
        if (seen < (long)P * (long)(t + 1))
            report("barrier (left before all entered)", 0, t, 0, (double)P * (double)(t + 1), (double)seen);
        break;
    }
    case C_BCAST:
        check_bytes(rbuf, bytes, seed3(root, 0, t), rank == root ? "bcast root buffer changed" : "bcast", size, t);
        break;
    case C_COMMDUP:
        if (c->dup_out != 0.5 * P * (P + 1))
            report("commdup allreduce", 0, t, 0, 0.5 * P * (P + 1), c->dup_out);
        break;
    case C_REDUCE:
    case C_ALLREDUCE:
        if (c->sarg != MPI_IN_PLACE)
            check_vals_own(sbuf, c->kind, count, rank, t, "sendbuf modified", size);
        if (c->coll == C_ALLREDUCE || rank == root)
            check_vals_ref(rbuf, c->kind, c->op, count, t, coll_names[c->coll], size);
        break;
    case C_ALLGATHER:
        if (c->sarg != MPI_IN_PLACE)
            check_bytes(sbuf, bytes, seed3(rank, 0, t), "sendbuf modified", size, t);
        for (int r = 0; r < P; r++)
            if (check_bytes(rbuf + (size_t)r * bytes, bytes, seed3(r, 0, t), "allgather", size, t))
                break;
        break;
    case C_ALLTOALL:
        for (int r = 0; r < P; r++) {
            if (c->sarg != MPI_IN_PLACE &&
                check_bytes(sbuf + (size_t)r * bytes, bytes, seed3(rank, r, t), "sendbuf modified", size, t))
                break;
            if (check_bytes(rbuf + (size_t)r * bytes, bytes, seed3(r, rank, t), "alltoall", size, t))
                break;
        }
        break;
    case C_PINGPONG:
        if (rank < 2) {
            check_bytes(sbuf, bytes, seed3(rank, 1 - rank, t), "sendbuf modified", size, t);
            check_bytes(rbuf, bytes, seed3(1 - rank, rank, t), "pingpong", size, t);
        }
        break;
    default: break;
    }
}
