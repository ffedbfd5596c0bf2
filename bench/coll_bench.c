/*
 * coll_bench: OSU-style latency benchmark (and validator) for MPI collectives.
 *
 * Build:  mpicc -O2 -Wall -Wextra bench/coll_bench.c -o coll_bench
 * Usage:  mpirun -np P ./coll_bench -c allreduce -m 8:65536 -f
 *         ./coll_bench -h   for all options
 *
 * Timing (per message size):
 *   WARMUP untimed calls, then ITERS calls, each timed on its own with
 *   clock_gettime(CLOCK_MONOTONIC) around the collective only (only
 *   differences within one process are used).  bcast and reduce are timed the
 *   OSU way: an MPI_Barrier before every call, outside the timed region
 *   (-S does that for every collective, -A for none).  Other collectives run
 *   back to back.
 *   Per rank: mean and median (sorted) of the ITERS per-call times.
 *   Reported (microseconds):
 *     Avg    = max over ranks of the per-rank mean (the slowest rank)
 *     Min    = min over ranks of the per-rank mean
 *     Max    = max over ranks of the per-rank mean (equal to Avg by definition)
 *     Median = max over ranks of the per-rank median
 *   Size is the per-rank message size in bytes: the broadcast / reduced vector
 *   for bcast, reduce and allreduce; the block each rank contributes for
 *   allgather; the block sent to each peer for alltoall.  0 for barrier.
 *
 *   commdup times the life of a communicator: MPI_Comm_dup(MPI_COMM_WORLD),
 *   one 8-byte MPI_Allreduce (double SUM) on it, MPI_Comm_free (size 0).  With
 *   coll/rdma the allreduce includes the window set-up.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum coll { C_BARRIER, C_BCAST, C_REDUCE, C_ALLREDUCE, C_ALLGATHER, C_ALLTOALL, C_COMMDUP, C_NCOLL };
static const char *coll_names[C_NCOLL] = {
    "barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall", "commdup"
};

enum kind { K_BYTE, K_INT8, K_UINT8, K_INT, K_INT64, K_FLOAT, K_DOUBLE };
struct dtype {
    const char *name;
    enum kind kind;
    size_t size;
};
static const struct dtype dtypes[] = {
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
#define NDTYPES (sizeof(dtypes) / sizeof(dtypes[0]))

static MPI_Datatype mpi_type(enum kind k)
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

enum opk { O_SUM, O_MAX, O_MIN };
static const char *op_names[] = { "sum", "max", "min" };

#define LARGE_MESSAGE_SIZE 8192
#define MAX_REPORTED_ERRORS 5

struct opts {
    enum coll coll;
    size_t min_size, max_size;
    int iters, warmup, iters_large, warmup_large;
    int full, validate, fresh, sync, inplace, root;
    size_t pool_bytes;
    const struct dtype *dt;
    enum opk op;
};

static int rank, nprocs;
static unsigned long nerrors;      /* mismatches seen by this rank */
static unsigned long ncalls_checked;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int is_reduction(enum coll c) { return c == C_REDUCE || c == C_ALLREDUCE; }

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

/* ---------- buffers ---------- */

static size_t align_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

static size_t llc_size(void)
{
    long v = -1;
#ifdef _SC_LEVEL3_CACHE_SIZE
    v = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (v <= 0) v = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    if (v <= 0) v = 32L << 20;
    return (size_t)v;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void usage(FILE *f)
{
    fprintf(f,
"usage: mpirun -np P coll_bench [options]\n"
"  -c COLL      barrier|bcast|reduce|allreduce|allgather|alltoall (default allreduce)\n"
"  -m [MIN:]MAX message sizes in bytes, doubling from MIN (default TYPESIZE:1048576;\n"
"               MIN may be 0; sizes below the datatype size are skipped)\n"
"  -i ITERS     timed calls per size (default 1000, 100 above %d bytes)\n"
"  -x WARMUP    untimed calls per size (default 100, 10 above %d bytes)\n"
"  -f           full statistics: Min, Max, Median columns\n"
"  -v           validate every call against a locally computed reference;\n"
"               exit status 1 on any mismatch\n"
"  -F           fresh buffers: cycle through a pool larger than the LLC\n"
"  -P MIB       pool size per rank for -F (default 2 x LLC, 64..1024 MiB)\n"
"  -t DTYPE     byte|char|int8|uint8|int|int64|long|float|double\n"
"               (default double for reduce/allreduce, byte otherwise)\n"
"  -o OP        sum|max|min for reductions (default sum)\n"
"  -r ROOT      root of bcast/reduce (default 0)\n"
"  -S           barrier before every call for every collective\n"
"  -A           no barrier before calls, also for bcast/reduce\n"
"  -I           MPI_IN_PLACE (allreduce, allgather, alltoall; reduce at root)\n"
"  -h           this help\n", LARGE_MESSAGE_SIZE, LARGE_MESSAGE_SIZE);
}

static int parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s) return -1;
    if (*end == 'k' || *end == 'K') { v <<= 10; end++; }
    else if (*end == 'm' || *end == 'M') { v <<= 20; end++; }
    if (*end) return -1;
    *out = (size_t)v;
    return 0;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
    int c, iset = 0, xset = 0;
    const char *dtname = NULL;
    long pool_mib = 0;
    memset(o, 0, sizeof(*o));
    o->coll = C_ALLREDUCE;
    o->min_size = (size_t)-1;
    o->max_size = 1 << 20;
    o->iters = 1000; o->warmup = 100;
    o->sync = -1;
    o->op = O_SUM;
    opterr = 0;
    while ((c = getopt(argc, argv, "c:m:i:x:fvFP:t:o:r:SAIh")) != -1) {
        switch (c) {
        case 'c': {
            int k;
            for (k = 0; k < C_NCOLL; k++)
                if (!strcmp(optarg, coll_names[k])) break;
            if (k == C_NCOLL) { if (!rank) fprintf(stderr, "unknown collective '%s'\n", optarg); return -1; }
            o->coll = (enum coll)k;
            break;
        }
        case 'm': {
            char *colon = strchr(optarg, ':');
            if (colon) {
                *colon = '\0';
                if (parse_size(optarg, &o->min_size) || parse_size(colon + 1, &o->max_size)) goto bad;
            } else if (parse_size(optarg, &o->max_size)) goto bad;
            break;
        }
        case 'i': o->iters = atoi(optarg); iset = 1; if (o->iters < 1) goto bad; break;
        case 'x': o->warmup = atoi(optarg); xset = 1; if (o->warmup < 0) goto bad; break;
        case 'f': o->full = 1; break;
        case 'v': o->validate = 1; break;
        case 'F': o->fresh = 1; break;
        case 'P': pool_mib = atol(optarg); if (pool_mib < 1) goto bad; break;
        case 't': dtname = optarg; break;
        case 'o': {
            int k;
            for (k = 0; k < 3; k++) if (!strcmp(optarg, op_names[k])) break;
            if (k == 3) goto bad;
            o->op = (enum opk)k;
            break;
        }
        case 'r': o->root = atoi(optarg); break;
        case 'S': o->sync = 1; break;
        case 'A': o->sync = 0; break;
        case 'I': o->inplace = 1; break;
        case 'h': if (!rank) usage(stdout); return 1;
        default: goto bad;
        }
    }
    if (optind != argc) goto bad;
    o->iters_large = iset ? o->iters : 100;
    o->warmup_large = xset ? o->warmup : 10;
    if (!dtname) dtname = is_reduction(o->coll) ? "double" : "byte";
    for (size_t k = 0; k < NDTYPES; k++)
        if (!strcmp(dtname, dtypes[k].name)) o->dt = &dtypes[k];
    if (!o->dt) { if (!rank) fprintf(stderr, "unknown datatype '%s'\n", dtname); return -1; }
    if (is_reduction(o->coll) && o->dt->kind == K_BYTE) {
        if (!rank) fprintf(stderr, "MPI_BYTE cannot be reduced with %s\n", op_names[o->op]);
        return -1;
    }
    if (o->min_size == (size_t)-1) o->min_size = o->dt->size;
    if (o->max_size < o->min_size) goto bad;
    if (o->root < 0 || o->root >= nprocs) { if (!rank) fprintf(stderr, "bad root\n"); return -1; }
    if (o->sync < 0) o->sync = (o->coll == C_BCAST || o->coll == C_REDUCE);
    if (pool_mib) o->pool_bytes = (size_t)pool_mib << 20;
    else {
        size_t p = 2 * llc_size();
        if (p < (64u << 20)) p = 64u << 20;
        if (p > (1024u << 20)) p = 1024u << 20;
        o->pool_bytes = p;
    }
    return 0;
bad:
    if (!rank) usage(stderr);
    return -1;
}

/* ---------- one message size ---------- */

struct bufs { char *sbuf, *rbuf; };

int main(int argc, char **argv)
{
    struct opts o;
    int rc;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    rc = parse_args(argc, argv, &o);
    if (rc) { MPI_Finalize(); return rc < 0 ? 2 : 0; }

    const enum coll coll = o.coll;
    const enum kind kind = o.dt->kind;
    const size_t tsize = o.dt->size;
    const MPI_Datatype dt = mpi_type(kind);
    const MPI_Op mop = o.op == O_SUM ? MPI_SUM : o.op == O_MAX ? MPI_MAX : MPI_MIN;
    const int P = nprocs, root = o.root;

    /* footprint of one call for the largest size */
    size_t smax = o.max_size / tsize * tsize;
    size_t fmax = align_up(P * smax, 4096) * 2 + 4096;
    size_t region = o.fresh ? (o.pool_bytes > 2 * fmax ? o.pool_bytes : 2 * fmax) : fmax;
    char *pool = NULL;
    if (coll != C_BARRIER) {
        if (posix_memalign((void **)&pool, 4096, region)) {
            fprintf(stderr, "coll_bench: rank %d: cannot allocate %zu bytes\n", rank, region);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        memset(pool, 0, region);   /* touch every page */
    }
    size_t cursor = 0;

    int maxiters = o.iters > o.iters_large ? o.iters : o.iters_large;
    double *times = malloc(sizeof(double) * (size_t)maxiters);

    /* barrier validation: a counter at rank 0, incremented atomically by
     * every rank before it enters barrier k; after leaving barrier k a rank
     * must see at least P*(k+1). */
    MPI_Win win = MPI_WIN_NULL;
    long *wbase = NULL;
    if (o.validate && coll == C_BARRIER) {
        MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &wbase, &win);
        *wbase = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_lock_all(0, win);
    }

    if (rank == 0) {
        printf("# coll_bench %s np=%d\n", coll_names[coll], P);
        printf("# dtype=%s%s%s root=%d iters=%d(%d above %d B) warmup=%d(%d) sync=%s fresh=%s",
               o.dt->name, is_reduction(coll) ? " op=" : "", is_reduction(coll) ? op_names[o.op] : "",
               root, o.iters, o.iters_large, LARGE_MESSAGE_SIZE, o.warmup, o.warmup_large,
               o.sync ? "barrier-before-each-call" : "back-to-back",
               o.fresh ? "yes" : "no");
        if (o.fresh) printf("(pool=%zuMiB)", region >> 20);
        printf(" validate=%s inplace=%s\n", o.validate ? "yes" : "no", o.inplace ? "yes" : "no");
        if (o.full)
            printf("# %-10s %16s %12s %12s %12s\n", "Size", "Avg Latency(us)", "Min", "Max", "Median");
        else
            printf("# %-10s %16s\n", "Size", "Avg Latency(us)");
        fflush(stdout);
    }

    unsigned long t = 0;     /* global call number (validation seed) */
    const double dup_in = rank + 1;
    double dup_out = 0;      /* commdup: sum of rank + 1 */
    unsigned long errors_before_size;
    unsigned long total_failed_sizes = 0;

    const int sizeless = coll == C_BARRIER || coll == C_COMMDUP;
    for (size_t size = (sizeless ? 0 : o.min_size);;
         size = size ? size * 2 : 1) {
        if (!sizeless && size > o.max_size) break;
        if (size % tsize && size != 0) {
            if (sizeless) break;
            continue;    /* below the datatype size */
        }
        const size_t count = size / tsize;
        const size_t bytes = count * tsize;
        const int large = bytes > LARGE_MESSAGE_SIZE;
        const int iters = large ? o.iters_large : o.iters;
        const int warmup = large ? o.warmup_large : o.warmup;
        size_t sbytes = 0, rbytes = 0;
        switch (coll) {
        case C_BARRIER: break;
        case C_BCAST: rbytes = bytes; break;
        case C_REDUCE: case C_ALLREDUCE: sbytes = bytes; rbytes = bytes; break;
        case C_ALLGATHER: sbytes = bytes; rbytes = (size_t)P * bytes; break;
        case C_ALLTOALL: sbytes = (size_t)P * bytes; rbytes = (size_t)P * bytes; break;
        default: break;
        }
        const size_t foot = align_up(sbytes, 4096) + align_up(rbytes ? rbytes : 1, 4096);
        errors_before_size = nerrors;

        MPI_Barrier(MPI_COMM_WORLD);
        for (int it = 0; it < warmup + iters; it++, t++) {
            char *sbuf = NULL, *rbuf = NULL;
            if (coll != C_BARRIER) {
                if (o.fresh) {
                    if (cursor + foot > region) cursor = 0;
                    sbuf = pool + cursor;
                    cursor += foot;
                } else {
                    sbuf = pool;
                }
                rbuf = sbuf + align_up(sbytes, 4096);
            }
            const void *sarg = sbuf;
            if (o.inplace && (coll == C_ALLREDUCE || coll == C_ALLGATHER || coll == C_ALLTOALL ||
                              (coll == C_REDUCE && rank == root)))
                sarg = MPI_IN_PLACE;

            /* ---- prepare ---- */
            if (o.validate) {
                switch (coll) {
                case C_BARRIER: {
                    long one = 1, old;
                    MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, 0, MPI_SUM, win);
                    MPI_Win_flush(0, win);
                    break;
                }
                case C_BCAST:
                    if (rank == root) fill_bytes(rbuf, bytes, seed3(root, 0, t));
                    else poison_bytes(rbuf, bytes, seed3(root, 0, t));
                    break;
                case C_REDUCE:
                case C_ALLREDUCE:
                    if (sarg == MPI_IN_PLACE) {
                        fill_vals(rbuf, kind, count, rank, t);
                    } else {
                        fill_vals(sbuf, kind, count, rank, t);
                        for (size_t i = 0; i < count; i++) set_elem(rbuf, kind, i, poison_val(kind));
                    }
                    break;
                case C_ALLGATHER:
                    for (int r = 0; r < P; r++)
                        poison_bytes(rbuf + (size_t)r * bytes, bytes, seed3(r, 0, t));
                    if (sarg == MPI_IN_PLACE) fill_bytes(rbuf + (size_t)rank * bytes, bytes, seed3(rank, 0, t));
                    else fill_bytes(sbuf, bytes, seed3(rank, 0, t));
                    break;
                case C_ALLTOALL:
                    for (int r = 0; r < P; r++) {
                        if (sarg == MPI_IN_PLACE) {
                            fill_bytes(rbuf + (size_t)r * bytes, bytes, seed3(rank, r, t));
                        } else {
                            fill_bytes(sbuf + (size_t)r * bytes, bytes, seed3(rank, r, t));
                            poison_bytes(rbuf + (size_t)r * bytes, bytes, seed3(r, rank, t));
                        }
                    }
                    break;
                default: break;
                }
            }

            if (o.sync) MPI_Barrier(MPI_COMM_WORLD);
            double t0 = now();
            switch (coll) {
            case C_BARRIER: MPI_Barrier(MPI_COMM_WORLD); break;
            case C_BCAST: MPI_Bcast(rbuf, (int)count, dt, root, MPI_COMM_WORLD); break;
            case C_REDUCE: MPI_Reduce(sarg, rbuf, (int)count, dt, mop, root, MPI_COMM_WORLD); break;
            case C_ALLREDUCE: MPI_Allreduce(sarg, rbuf, (int)count, dt, mop, MPI_COMM_WORLD); break;
            case C_ALLGATHER: MPI_Allgather(sarg, (int)count, dt, rbuf, (int)count, dt, MPI_COMM_WORLD); break;
            case C_ALLTOALL: MPI_Alltoall(sarg, (int)count, dt, rbuf, (int)count, dt, MPI_COMM_WORLD); break;
            case C_COMMDUP: {
                MPI_Comm dup;
                MPI_Comm_dup(MPI_COMM_WORLD, &dup);
                MPI_Allreduce(&dup_in, &dup_out, 1, MPI_DOUBLE, MPI_SUM, dup);
                MPI_Comm_free(&dup);
                break;
            }
            default: break;
            }
            double t1 = now();
            if (it >= warmup) times[it - warmup] = t1 - t0;

            /* ---- check ---- */
            if (o.validate) {
                ncalls_checked++;
                switch (coll) {
                case C_BARRIER: {
                    long dummy = 0, seen;
                    MPI_Fetch_and_op(&dummy, &seen, MPI_LONG, 0, 0, MPI_NO_OP, win);
                    MPI_Win_flush(0, win);
                    if (seen < (long)P * (long)(t + 1))
                        report("barrier (left before all entered)", 0, t, 0,
                               (double)P * (double)(t + 1), (double)seen);
                    break;
                }
                case C_BCAST:
                    check_bytes(rbuf, bytes, seed3(root, 0, t), rank == root ? "bcast root buffer changed" : "bcast",
                                size, t);
                    break;
                case C_COMMDUP:
                    if (dup_out != 0.5 * P * (P + 1))
                        report("commdup allreduce", 0, t, 0, 0.5 * P * (P + 1), dup_out);
                    break;
                case C_REDUCE:
                case C_ALLREDUCE:
                    if (sarg != MPI_IN_PLACE)
                        check_vals_own(sbuf, kind, count, rank, t, "sendbuf modified", size);
                    if (coll == C_ALLREDUCE || rank == root)
                        check_vals_ref(rbuf, kind, o.op, count, t, coll_names[coll], size);
                    break;
                case C_ALLGATHER:
                    if (sarg != MPI_IN_PLACE)
                        check_bytes(sbuf, bytes, seed3(rank, 0, t), "sendbuf modified", size, t);
                    for (int r = 0; r < P; r++)
                        if (check_bytes(rbuf + (size_t)r * bytes, bytes, seed3(r, 0, t), "allgather", size, t))
                            break;
                    break;
                case C_ALLTOALL:
                    for (int r = 0; r < P; r++) {
                        if (sarg != MPI_IN_PLACE &&
                            check_bytes(sbuf + (size_t)r * bytes, bytes, seed3(rank, r, t), "sendbuf modified",
                                        size, t))
                            break;
                        if (check_bytes(rbuf + (size_t)r * bytes, bytes, seed3(r, rank, t), "alltoall", size, t))
                            break;
                    }
                    break;
                default: break;
                }
            }
        }

        /* ---- statistics ---- */
        double sum = 0;
        for (int i = 0; i < iters; i++) sum += times[i];
        double mean = sum / iters;
        qsort(times, (size_t)iters, sizeof(double), cmp_double);
        double median = iters % 2 ? times[iters / 2] : 0.5 * (times[iters / 2 - 1] + times[iters / 2]);
        double in[3] = { mean, -mean, median }, out[3];
        MPI_Reduce(in, out, 3, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (o.validate) {
            unsigned long mine = nerrors - errors_before_size, all = 0;
            MPI_Reduce(&mine, &all, 1, MPI_UNSIGNED_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
            if (rank == 0 && all) {
                total_failed_sizes++;
                printf("# VALIDATION FAILED: %s size=%zu: %lu mismatching call(s) (summed over ranks)\n",
                       coll_names[coll], size, all);
            }
        }
        if (rank == 0) {
            if (o.full)
                printf("  %-10zu %16.2f %12.2f %12.2f %12.2f\n", size, out[0] * 1e6, -out[1] * 1e6,
                       out[0] * 1e6, out[2] * 1e6);
            else
                printf("  %-10zu %16.2f\n", size, out[0] * 1e6);
            fflush(stdout);
        }
        if (sizeless) break;
    }

    int failed = 0;
    if (o.validate) {
        unsigned long e = nerrors, etot = 0, c = ncalls_checked, ctot = 0;
        MPI_Allreduce(&e, &etot, 1, MPI_UNSIGNED_LONG, MPI_SUM, MPI_COMM_WORLD);
        MPI_Reduce(&c, &ctot, 1, MPI_UNSIGNED_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        failed = etot != 0;
        if (rank == 0) {
            printf("# validation %s: %s np=%d, %lu calls checked over all ranks, %lu mismatch(es)\n",
                   failed ? "FAILED" : "passed", coll_names[coll], P, ctot, etot);
            fflush(stdout);
        }
    }
    (void)total_failed_sizes;

    if (win != MPI_WIN_NULL) {
        MPI_Win_unlock_all(win);
        MPI_Win_free(&win);
    }
    free(times);
    free(pool);
    MPI_Finalize();
    return failed ? 1 : 0;
}
