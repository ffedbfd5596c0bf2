/*
 * MPI correctness tests for coll/rdma (MPI_Barrier, MPI_Bcast, MPI_Allreduce,
 * MPI_Allgather, MPI_Alltoall, MPI_Reduce).
 *
 * Every rank's input is a deterministic function of (seed, case tag, rank,
 * index), so every rank computes the expected result on its own and checks
 * what it received.  The first mismatch prints
 *
 *     FAIL rank R test T case [...] index I expected E got G   (first few)
 *
 * and the job ends with MPI_Abort (exit status != 0).  On success rank 0
 * prints one line "test_coll OK: ...".
 *
 * Nothing here depends on the component: with plain Open MPI every section
 * must pass too (except int8 SUM with Debian's op/avx bug, see --only int8sum
 * and run_mpi_tests.sh).  Data used only to check results (timestamps,
 * results of other ranks) travels by point-to-point messages (gather_p2p)
 * or MPI_Gather, which coll/rdma does not serve.
 *
 * Usage: test_coll [--only LIST] [--iters N] [--max-bytes B] [--seed S]
 *                  [--stress-calls N] [--dup-cycles N] [--light] [--any-order]
 *                  [--sweep-min P] [--ring-seg B] [--layout-derived-reduce B]
 *   LIST: comma separated from barrier, bcast, allreduce, allgather,
 *         alltoall, reduce, mix, comm, stress, fallback, int8sum, ulongminmax,
 *         sweep, large, fbwrong, all (default all = everything but
 *         ulongminmax and fbwrong, which plain Open MPI 4.1.4 always fails,
 *         sweep and large).  allgather and
 *         alltoall use blocks up to --max-bytes; mix: thousands of
 *         back-to-back allgather, alltoall, reduce (and barrier) calls with
 *         random delays on world, a dup and a split.
 *   --light: fewer types/ops/counts in the world bcast and allreduce
 *         sections (what the comm section always uses), for radix sweeps.
 *   --any-order: the allreduce under test combines in rank-dependent orders
 *         (nway, bruck forced): non-exact float sums are checked against the
 *         reference only, not for identical bits on every rank.
 *   sweep: the allreduce on sub-communicators of every size --sweep-min
 *         (default 2) .. np, made by MPI_Comm_split.
 *   large: allreduces up to --max-bytes at counts around the block and
 *         segment boundaries of a ring with --ring-seg B bytes per segment
 *         (default 32768).
 *   layout, layout-bcast, layout-allgather, layout-alltoall,
 *         layout-allreduce, layout-reduce: ranks describe the same data with
 *         different datatypes (test_layout.c, which says what
 *         --layout-derived-reduce does).
 *   fbwrong: allreduce and reduce of the (op, type) pairs that Debian's Open
 *         MPI 4.1.4 itself reduces wrong (SUM on 8- and 16-bit integers with
 *         op/avx, MIN/MAX on MPI_UNSIGNED_LONG), from 1 element to
 *         --max-bytes; not in "all" (plain Open MPI fails it).
 */
#define _GNU_SOURCE
#include <mpi.h>

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------ options */

enum {
    S_BARRIER = 1 << 0,
    S_BCAST = 1 << 1,
    S_ALLREDUCE = 1 << 2,
    S_COMM = 1 << 3,
    S_STRESS = 1 << 4,
    S_FALLBACK = 1 << 5,
    S_INT8SUM = 1 << 6,
    S_ULONG = 1 << 7, /* not in "all": plain Open MPI 4.1.4 always fails it */
    S_ALLGATHER = 1 << 8,
    S_ALLTOALL = 1 << 9,
    S_REDUCE = 1 << 10,
    S_MIX = 1 << 11,
    S_SWEEP = 1 << 12, /* not in "all": the allreduce on every size 2..np by split */
    S_LARGE = 1 << 13, /* not in "all": large allreduces around ring segment boundaries */
    /* not in "all": ranks pass different layouts of one signature (test_layout.c) */
    S_LAYOUT_BCAST = 1 << 14,
    S_LAYOUT_ALLGATHER = 1 << 15,
    S_LAYOUT_ALLTOALL = 1 << 16,
    S_LAYOUT_ALLREDUCE = 1 << 17,
    S_LAYOUT_REDUCE = 1 << 18,
    S_LAYOUT = S_LAYOUT_BCAST | S_LAYOUT_ALLGATHER | S_LAYOUT_ALLTOALL | S_LAYOUT_ALLREDUCE
               | S_LAYOUT_REDUCE,
    S_FBWRONG = 1 << 19, /* not in "all": plain Open MPI 4.1.4 fails it (op/avx, ompi#10525) */
    S_ALL = 0x7f | S_ALLGATHER | S_ALLTOALL | S_REDUCE | S_MIX
};

static int opt_sections = S_ALL;
static int opt_iters = 2;
static size_t opt_max_bytes = 16384;
static uint64_t opt_seed = 0x5eed2024;
static long opt_stress_calls = 20000;
static long opt_dup_cycles = 1000;
static int opt_light = 0; /* fewer counts/types/ops in bcast and allreduce */
static int opt_any_order = 0; /* float sums may differ in the last bits between ranks */
static int opt_sweep_min = 2; /* smallest communicator of the sweep section */
static size_t opt_ring_seg = 32768; /* ring segment bytes the large section aims at */

static int world_rank, world_size;
static const char *cur_test = "init";
static uint64_t n_checks, n_barrier, n_bcast, n_allreduce, n_other;

/* ------------------------------------------------------------------ helpers */

static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static uint64_t hash3(uint64_t tag, uint64_t rank, uint64_t idx)
{
    return mix64(mix64(mix64(opt_seed ^ tag) + rank) + idx);
}

/* Build a tag from the parameters of one call, so different calls differ. */
static uint64_t mktag(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e)
{
    return mix64(mix64(mix64(mix64(mix64(a) + b) + c) + d) + e);
}

/* Shared PRNG (xorshift64*): same seed on every rank gives the same stream. */
typedef struct { uint64_t s; } rng_t;
static uint64_t rng_next(rng_t *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 0x2545F4914F6CDD1DULL;
}
static uint64_t rng_below(rng_t *r, uint64_t n) { return n ? rng_next(r) % n : 0; }

static int64_t now_ns(void)
{
    /* CLOCK_MONOTONIC is one clock for all processes of the node; MPI_Wtime
     * is not comparable between processes in Open MPI 4.x. */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_ns(int64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000LL), (long)(ns % 1000000000LL)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static void spin_ns(int64_t ns)
{
    int64_t end = now_ns() + ns;
    while (now_ns() < end) {
    }
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "rank %d: out of memory (%zu bytes)\n", world_rank, n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

static void die(void)
{
    fflush(stdout);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
    exit(3);
}

#define MPI_CHECK(call)                                                                 \
    do {                                                                                \
        int rc_ = (call);                                                               \
        if (rc_ != MPI_SUCCESS) {                                                       \
            char s_[MPI_MAX_ERROR_STRING];                                              \
            int l_ = 0;                                                                 \
            MPI_Error_string(rc_, s_, &l_);                                             \
            printf("FAIL rank %d test %s: %s returned %d (%s) at %s:%d\n", world_rank,  \
                   cur_test, #call, rc_, s_, __FILE__, __LINE__);                       \
            die();                                                                      \
        }                                                                               \
    } while (0)

/* Every rank's `bytes` at `mine` into all (rank r's at r * bytes), by
 * point-to-point messages: checks must not depend on the collectives tested. */
static void gather_p2p(const void *mine, size_t bytes, void *all, MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    memcpy((char *)all + (size_t)rank * bytes, mine, bytes);
    for (int i = 1; i < size; i++) {
        int to = (rank + i) % size, from = (rank - i + size) % size;
        MPI_CHECK(MPI_Sendrecv(mine, (int)bytes, MPI_BYTE, to, 4242,
                               (char *)all + (size_t)from * bytes, (int)bytes, MPI_BYTE, from, 4242,
                               comm, MPI_STATUS_IGNORE));
    }
}

/* Mismatch collector: prints the first few, then aborts in report_end(). */
typedef struct {
    const char *desc;
    long nbad;
} report_t;

static void report_bad(report_t *rp, size_t idx, const char *exp, const char *got)
{
    if (rp->nbad < 5) {
        printf("FAIL rank %d test %s case [%s] index %zu expected %s got %s\n", world_rank,
               cur_test, rp->desc, idx, exp, got);
    }
    rp->nbad++;
}

static void report_end(report_t *rp)
{
    n_checks++;
    if (rp->nbad) {
        printf("FAIL rank %d test %s case [%s]: %ld mismatching elements\n", world_rank, cur_test,
               rp->desc, rp->nbad);
        die();
    }
}

static void fail_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail_msg(const char *fmt, ...)
{
    va_list ap;
    printf("FAIL rank %d test %s: ", world_rank, cur_test);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    die();
}

/* ------------------------------------------------------------------ types */

typedef enum { K_SINT, K_UINT, K_FLT, K_DBL, K_BYTE } kind_t;

typedef struct {
    MPI_Datatype dt;
    const char *name;
    int size;
    kind_t kind;
} ty_t;

enum { MAX_TYPES = 32 };
/* main: the types of the brief (fixed width, float, double); ext: C aliases */
static ty_t ar_types[MAX_TYPES];
static int n_ar_types, n_ar_main, n_ar_general; /* general: all but unsigned_long */
static ty_t bc_types[MAX_TYPES];
static int n_bc_types;

static void add_type(ty_t *tab, int *n, MPI_Datatype dt, const char *name, int size, kind_t k)
{
    ty_t t = {dt, name, size, k};
    tab[(*n)++] = t;
}

static void init_types(void)
{
    n_ar_types = 0;
    add_type(ar_types, &n_ar_types, MPI_INT8_T, "int8", 1, K_SINT);
    add_type(ar_types, &n_ar_types, MPI_UINT8_T, "uint8", 1, K_UINT);
    add_type(ar_types, &n_ar_types, MPI_INT16_T, "int16", 2, K_SINT);
    add_type(ar_types, &n_ar_types, MPI_UINT16_T, "uint16", 2, K_UINT);
    add_type(ar_types, &n_ar_types, MPI_INT32_T, "int32", 4, K_SINT);
    add_type(ar_types, &n_ar_types, MPI_UINT32_T, "uint32", 4, K_UINT);
    add_type(ar_types, &n_ar_types, MPI_INT64_T, "int64", 8, K_SINT);
    add_type(ar_types, &n_ar_types, MPI_UINT64_T, "uint64", 8, K_UINT);
    add_type(ar_types, &n_ar_types, MPI_FLOAT, "float", 4, K_FLT);
    add_type(ar_types, &n_ar_types, MPI_DOUBLE, "double", 8, K_DBL);
    n_ar_main = n_ar_types;
    /* C-named aliases and MPI_BYTE (bitwise ops only): fewer counts */
    add_type(ar_types, &n_ar_types, MPI_SIGNED_CHAR, "signed_char", 1, K_SINT);
    add_type(ar_types, &n_ar_types, MPI_UNSIGNED_CHAR, "unsigned_char", 1, K_UINT);
    add_type(ar_types, &n_ar_types, MPI_SHORT, "short", (int)sizeof(short), K_SINT);
    add_type(ar_types, &n_ar_types, MPI_INT, "int", (int)sizeof(int), K_SINT);
    add_type(ar_types, &n_ar_types, MPI_UNSIGNED, "unsigned", (int)sizeof(unsigned), K_UINT);
    add_type(ar_types, &n_ar_types, MPI_LONG, "long", (int)sizeof(long), K_SINT);
    add_type(ar_types, &n_ar_types, MPI_UNSIGNED_SHORT, "unsigned_short", (int)sizeof(short), K_UINT);
    add_type(ar_types, &n_ar_types, MPI_LONG_LONG, "long_long", 8, K_SINT);
    add_type(ar_types, &n_ar_types, MPI_UNSIGNED_LONG_LONG, "ull", 8, K_UINT);
    /* MPI_UNSIGNED_LONG comes last, outside the general list: Open MPI
     * 4.1.4's MIN/MAX compare it as signed long (open-mpi/ompi#10525, fixed
     * in 4.1.5), so it is only checked by --only ulongminmax */
    add_type(ar_types, &n_ar_types, MPI_BYTE, "byte", 1, K_BYTE);
    n_ar_general = n_ar_types;
    add_type(ar_types, &n_ar_types, MPI_UNSIGNED_LONG, "unsigned_long", (int)sizeof(long), K_UINT);

    n_bc_types = 0;
    for (int i = 0; i < n_ar_main; i++) {
        bc_types[n_bc_types++] = ar_types[i];
    }
    add_type(bc_types, &n_bc_types, MPI_BYTE, "byte", 1, K_BYTE);
    add_type(bc_types, &n_bc_types, MPI_CHAR, "char", 1, K_BYTE);
    add_type(bc_types, &n_bc_types, MPI_INT, "int", (int)sizeof(int), K_SINT);
    add_type(bc_types, &n_bc_types, MPI_LONG_DOUBLE, "long_double", (int)sizeof(long double),
             K_BYTE);
}

static ty_t *find_ar_type(const char *name)
{
    for (int i = 0; i < n_ar_types; i++) {
        if (!strcmp(ar_types[i].name, name)) {
            return &ar_types[i];
        }
    }
    fprintf(stderr, "no type %s\n", name);
    MPI_Abort(MPI_COMM_WORLD, 2);
    return NULL;
}

/* ------------------------------------------------------------------ ops */

typedef enum { O_SUM, O_PROD, O_MIN, O_MAX, O_LAND, O_LOR, O_LXOR, O_BAND, O_BOR, O_BXOR, NOPS } opk_t;

typedef struct {
    MPI_Op op;
    const char *name;
    opk_t k;
} op_t;

static op_t ops[NOPS];

static void init_ops(void)
{
    op_t t[NOPS] = {{MPI_SUM, "SUM", O_SUM},    {MPI_PROD, "PROD", O_PROD}, {MPI_MIN, "MIN", O_MIN},
                    {MPI_MAX, "MAX", O_MAX},    {MPI_LAND, "LAND", O_LAND}, {MPI_LOR, "LOR", O_LOR},
                    {MPI_LXOR, "LXOR", O_LXOR}, {MPI_BAND, "BAND", O_BAND}, {MPI_BOR, "BOR", O_BOR},
                    {MPI_BXOR, "BXOR", O_BXOR}};
    memcpy(ops, t, sizeof(t));
}

/* Whether MPI defines `op` on `t`: no logical or bitwise ops on floating
 * point, only bitwise ops on MPI_BYTE. */
static int op_valid(const ty_t *t, opk_t k)
{
    switch (t->kind) {
    case K_FLT:
    case K_DBL:
        return k == O_SUM || k == O_PROD || k == O_MIN || k == O_MAX;
    case K_BYTE:
        return k == O_BAND || k == O_BOR || k == O_BXOR;
    default:
        return 1;
    }
}

/* ------------------------------------------------------------------ values */

static uint64_t width_mask(int size)
{
    return size >= 8 ? ~0ULL : ((1ULL << (8 * size)) - 1);
}

static int64_t sext(uint64_t v, int size)
{
    if (size >= 8) {
        return (int64_t)v;
    }
    int sh = 64 - 8 * size;
    return (int64_t)(v << sh) >> sh;
}

/* Raw integer input (bits of the element, in the low 8*size bits) of rank r,
 * element i, for operation k. */
static uint64_t int_input(const ty_t *t, opk_t k, uint64_t tag, int r, size_t i, int nranks)
{
    uint64_t h = hash3(tag, (uint64_t)r, i);
    uint64_t m = width_mask(t->size);
    switch (k) {
    case O_PROD:
        /* small factors, so products stay meaningful (they still wrap for
         * 8-bit types at 8 ranks, computed with the same wrapping here) */
        if (t->kind == K_SINT) {
            static const int64_t f[3] = {1, 2, -1};
            return (uint64_t)f[h % 3] & m;
        }
        return (uint64_t)(1 + h % 2);
    case O_LAND:
    case O_LOR:
    case O_LXOR: {
        /* per element: all true, all false, or random per rank; true values
         * are arbitrary nonzero bit patterns (e.g. 0x100 for 16-bit types) */
        uint64_t mode = hash3(tag, 0xffffffffULL, i) % 3;
        uint64_t nz = (h >> 8) & m;
        if (nz == 0) {
            nz = 1;
        }
        if (mode == 0) {
            return nz;
        }
        if (mode == 1) {
            return 0;
        }
        return (h & 1) ? nz : 0;
    }
    default:
        (void)nranks;
        /* full range: SUM wraps, MIN/MAX see both signs */
        return h & m;
    }
}

static double flt_input(const ty_t *t, opk_t k, uint64_t tag, int r, size_t i)
{
    uint64_t h = hash3(tag, (uint64_t)r, i);
    switch (k) {
    case O_SUM:
        /* multiples of 1/16 of magnitude < 2^8 (float) or of 1/1024 < 2^30
         * (double): every partial sum of <= 2^8 ranks is exact */
        if (t->kind == K_FLT) {
            return (double)((int64_t)(h % 8193) - 4096) / 16.0;
        }
        return (double)((int64_t)(h % (1ULL << 41)) - (int64_t)(1ULL << 40)) / 1024.0;
    case O_PROD: {
        static const double f[4] = {1.0, 2.0, -1.0, 0.5};
        return f[h % 4];
    }
    default: {
        /* MIN/MAX: exact in float, wide exponent range, both signs */
        double v = (double)((int64_t)(h % 2000001) - 1000000);
        return ldexp(v, (int)((h >> 40) % 41) - 20);
    }
    }
}

/* Non-exact float SUM input: random values of mixed magnitude. */
static double rnd_input(uint64_t tag, int r, size_t i)
{
    uint64_t h = hash3(tag, (uint64_t)r, i);
    double u = (double)(h >> 11) / 9007199254740992.0 * 2.0 - 1.0; /* [-1, 1) */
    return ldexp(u, (int)((h & 0xff) % 21) - 10);
}

static void store_elem(const ty_t *t, void *buf, size_t i, uint64_t ival, double fval)
{
    char *p = (char *)buf + i * (size_t)t->size;
    if (t->kind == K_FLT) {
        float f = (float)fval;
        memcpy(p, &f, 4);
    } else if (t->kind == K_DBL) {
        memcpy(p, &fval, 8);
    } else {
        /* little endian: the low t->size bytes */
        uint64_t v = ival;
        memcpy(p, &v, (size_t)t->size);
    }
}

static uint64_t load_int(const ty_t *t, const void *buf, size_t i)
{
    uint64_t v = 0;
    memcpy(&v, (const char *)buf + i * (size_t)t->size, (size_t)t->size);
    return v;
}

static double load_flt(const ty_t *t, const void *buf, size_t i)
{
    const char *p = (const char *)buf + i * (size_t)t->size;
    if (t->kind == K_FLT) {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    double d;
    memcpy(&d, p, 8);
    return d;
}

/*
 * Element i of buf (float or double) against the sum over `size` ranks of
 * rnd_input(tag, r, i) as stored in the type: within 1e-5 of the sum of
 * magnitudes, so any summation order passes.
 */
static void check_random_sum(report_t *rp, const ty_t *t, const void *buf, size_t i, uint64_t tag,
                             int size)
{
    double ref = 0, scale = 0, g = load_flt(t, buf, i);
    for (int r = 0; r < size; r++) {
        double x = rnd_input(tag, r, i);
        if (t->kind == K_FLT) {
            x = (float)x;
        }
        ref += x;
        scale += fabs(x);
    }
    if (!(fabs(g - ref) <= 1e-5 * scale + 1e-300)) {
        char es[96], gs[96];
        snprintf(es, sizeof(es), "%.17g (+- %.3g)", ref, 1e-5 * scale);
        snprintf(gs, sizeof(gs), "%.17g", g);
        report_bad(rp, i, es, gs);
    }
}

static void fmt_int(const ty_t *t, uint64_t v, char *s, size_t n)
{
    if (t->kind == K_SINT) {
        snprintf(s, n, "%" PRId64 " (0x%" PRIx64 ")", sext(v, t->size), v);
    } else {
        snprintf(s, n, "%" PRIu64 " (0x%" PRIx64 ")", v, v);
    }
}

/* Fill `buf` with rank r's input for (t, k, tag). */
static void fill_input(const ty_t *t, opk_t k, uint64_t tag, int r, void *buf, size_t count, int nranks)
{
    for (size_t i = 0; i < count; i++) {
        if (t->kind == K_FLT || t->kind == K_DBL) {
            store_elem(t, buf, i, 0, flt_input(t, k, tag, r, i));
        } else {
            store_elem(t, buf, i, int_input(t, k, tag, r, i, nranks), 0);
        }
    }
}

static uint64_t int_combine(const ty_t *t, opk_t k, uint64_t a, uint64_t b)
{
    uint64_t m = width_mask(t->size);
    int sgn = (t->kind == K_SINT);
    switch (k) {
    case O_SUM:
        return (a + b) & m;
    case O_PROD:
        return (a * b) & m;
    case O_MIN:
        if (sgn) {
            return sext(a, t->size) < sext(b, t->size) ? a : b;
        }
        return a < b ? a : b;
    case O_MAX:
        if (sgn) {
            return sext(a, t->size) > sext(b, t->size) ? a : b;
        }
        return a > b ? a : b;
    case O_LAND:
        return (a != 0) && (b != 0);
    case O_LOR:
        return (a != 0) || (b != 0);
    case O_LXOR:
        return (a != 0) != (b != 0);
    case O_BAND:
        return a & b;
    case O_BOR:
        return a | b;
    case O_BXOR:
        return a ^ b;
    default:
        return 0;
    }
}

static double flt_combine(opk_t k, double a, double b)
{
    switch (k) {
    case O_SUM:
        return a + b;
    case O_PROD:
        return a * b;
    case O_MIN:
        return a < b ? a : b;
    case O_MAX:
        return a > b ? a : b;
    default:
        return NAN;
    }
}

/* Check `got` (count elements) against the reduction over ranks 0..n-1. */
static void check_reduction(const ty_t *t, opk_t k, uint64_t tag, int n, const void *got,
                            size_t count, const char *desc)
{
    report_t rp = {desc, 0};
    char es[96], gs[96];
    for (size_t i = 0; i < count; i++) {
        if (t->kind == K_FLT || t->kind == K_DBL) {
            double acc = flt_input(t, k, tag, 0, i);
            for (int r = 1; r < n; r++) {
                acc = flt_combine(k, acc, flt_input(t, k, tag, r, i));
            }
            if (t->kind == K_FLT) {
                acc = (float)acc;
            }
            double g = load_flt(t, got, i);
            if (!(g == acc)) {
                snprintf(es, sizeof(es), "%.17g", acc);
                snprintf(gs, sizeof(gs), "%.17g", g);
                report_bad(&rp, i, es, gs);
            }
        } else {
            uint64_t acc = int_input(t, k, tag, 0, i, n);
            for (int r = 1; r < n; r++) {
                acc = int_combine(t, k, acc, int_input(t, k, tag, r, i, n));
            }
            uint64_t g = load_int(t, got, i);
            if (g != acc) {
                fmt_int(t, acc, es, sizeof(es));
                fmt_int(t, g, gs, sizeof(gs));
                report_bad(&rp, i, es, gs);
            }
        }
    }
    report_end(&rp);
}

/* ------------------------------------------------------------------ guards */

enum { GUARD = 64 };
#define GUARD_BYTE 0xA5

static void set_guard(void *p, size_t n) { memset(p, GUARD_BYTE, n); }

static void check_guard(const void *p, size_t n, const char *what, const char *desc)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) {
        if (c[i] != GUARD_BYTE) {
            fail_msg("case [%s]: %s byte %zu past the data was overwritten (0x%02x, expected 0x%02x)",
                     desc, what, i, c[i], GUARD_BYTE);
        }
    }
}

/* ------------------------------------------------------------------ counts */

/* 0, 1, small and odd counts, powers of two (+-1 below 256, +3 above) up to
 * max_count, and max_count itself.  Sorted, unique. */
static int make_counts(size_t max_count, size_t *out, int light)
{
    size_t c[128];
    int n = 0;
    static const size_t small[] = {0, 1, 2, 3, 5, 7, 13};
    for (size_t i = 0; i < sizeof(small) / sizeof(small[0]); i++) {
        c[n++] = small[i];
    }
    for (size_t p = 8; p <= max_count; p *= 2) {
        c[n++] = p;
        if (!light || p == 16 || p == 64) {
            if (p <= 256) {
                c[n++] = p - 1;
                c[n++] = p + 1;
            } else {
                c[n++] = p + 3;
                c[n++] = p - 5;
            }
        }
    }
    c[n++] = max_count;
    /* sort, unique, clip */
    for (int i = 1; i < n; i++) {
        for (int j = i; j > 0 && c[j - 1] > c[j]; j--) {
            size_t x = c[j];
            c[j] = c[j - 1];
            c[j - 1] = x;
        }
    }
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (c[i] <= max_count && (m == 0 || out[m - 1] != c[i])) {
            out[m++] = c[i];
        }
    }
    if (light) {
        /* thin out: keep 0, 1, odd small ones, every other larger one, max */
        int k = 0;
        for (int i = 0; i < m; i++) {
            if (out[i] <= 16 || (i % 2) == 0 || i == m - 1) {
                out[k++] = out[i];
            }
        }
        m = k;
    }
    return m;
}

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

static void test_barrier(MPI_Comm comm, const char *label, int iters, int nplain)
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
static void bcast_case(MPI_Comm comm, const ty_t *t, int root, size_t count, size_t offset,
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

static void test_bcast(MPI_Comm comm, const char *label, int iters, int light)
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

/* ------------------------------------------------------------------ allreduce */

static void allreduce_case(MPI_Comm comm, const ty_t *t, const op_t *o, size_t count, int inplace,
                           uint64_t tag, const char *label)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    size_t nbytes = count * (size_t)t->size;
    char *sbuf = xmalloc(nbytes + GUARD);
    char *rbuf = xmalloc(nbytes + GUARD);
    char *orig = xmalloc(nbytes + 1);
    fill_input(t, o->k, tag, rank, inplace ? rbuf : sbuf, count, size);
    memcpy(orig, inplace ? rbuf : sbuf, nbytes);
    if (!inplace) {
        memset(rbuf, 0x3c, nbytes);
    }
    set_guard(sbuf + nbytes, GUARD);
    set_guard(rbuf + nbytes, GUARD);
    MPI_CHECK(MPI_Allreduce(inplace ? MPI_IN_PLACE : sbuf, rbuf, (int)count, t->dt, o->op, comm));
    n_allreduce++;
    char desc[200];
    snprintf(desc, sizeof(desc), "%s allreduce %s %s count %zu%s", label, t->name, o->name, count,
             inplace ? " in_place" : "");
    check_reduction(t, o->k, tag, size, rbuf, count, desc);
    check_guard(rbuf + nbytes, GUARD, "receive buffer", desc);
    if (!inplace) {
        if (memcmp(sbuf, orig, nbytes) != 0) {
            fail_msg("case [%s]: send buffer was modified", desc);
        }
        check_guard(sbuf + nbytes, GUARD, "send buffer", desc);
    }
    free(orig);
    free(sbuf);
    free(rbuf);
}

/* Non-exact float/double SUM of random values: all ranks must get the same
 * bits, within 1e-5 of a double reference relative to sum |x_i| (the
 * scale of rounding errors; relative to |ref| would be meaningless under
 * cancellation). */
static void allreduce_float_random(MPI_Comm comm, const ty_t *t, size_t count, int inplace,
                                   uint64_t tag, const char *label)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    size_t nbytes = count * (size_t)t->size;
    char *sbuf = xmalloc(nbytes + 1), *rbuf = xmalloc(nbytes + 1);
    for (size_t i = 0; i < count; i++) {
        store_elem(t, inplace ? rbuf : sbuf, i, 0, rnd_input(tag, rank, i));
    }
    MPI_CHECK(MPI_Allreduce(inplace ? MPI_IN_PLACE : sbuf, rbuf, (int)count, t->dt, MPI_SUM, comm));
    n_allreduce++;
    char desc[200];
    snprintf(desc, sizeof(desc), "%s allreduce random %s SUM count %zu%s", label, t->name, count,
             inplace ? " in_place" : "");
    char *all = xmalloc(nbytes * (size_t)size + 1);
    gather_p2p(rbuf, nbytes, all, comm);
    report_t rp = {desc, 0};
    for (int r = 0; r < size && !opt_any_order; r++) {
        if (memcmp(all + (size_t)r * nbytes, all, nbytes) != 0) {
            for (size_t i = 0; i < count; i++) {
                double a = load_flt(t, all, i), b = load_flt(t, all + (size_t)r * nbytes, i);
                if (memcmp(all + i * t->size, all + (size_t)r * nbytes + i * t->size, (size_t)t->size)) {
                    char es[96], gs[96];
                    snprintf(es, sizeof(es), "%.17g (as rank 0)", a);
                    snprintf(gs, sizeof(gs), "%.17g on rank %d (not bitwise identical)", b, r);
                    report_bad(&rp, i, es, gs);
                }
            }
        }
    }
    for (size_t i = 0; i < count; i++) {
        check_random_sum(&rp, t, rbuf, i, tag, size);
    }
    report_end(&rp);
    free(all);
    free(sbuf);
    free(rbuf);
}

static void test_allreduce(MPI_Comm comm, const char *label, int iters, int light)
{
    cur_test = "allreduce";
    size_t counts[128];
    for (int it = 0; it < iters; it++) {
        for (int ti = 0; ti < n_ar_general; ti++) {
            const ty_t *t = &ar_types[ti];
            int ext = ti >= n_ar_main; /* aliases: fewer counts */
            int nc = make_counts(opt_max_bytes / (size_t)t->size, counts, light || ext);
            for (int oi = 0; oi < NOPS; oi++) {
                const op_t *o = &ops[oi];
                if (!op_valid(t, o->k)) {
                    continue;
                }
                if (light && oi % 3 != (ti + it) % 3 && o->k != O_SUM) {
                    continue;
                }
                for (int ci = 0; ci < nc; ci++) {
                    for (int ip = 0; ip < 2; ip++) {
                        if ((light || ext) && ip != (int)((ci + oi + it) % 2)) {
                            continue;
                        }
                        uint64_t tag = mktag(0xa1, (uint64_t)it, (uint64_t)ti * 16 + (uint64_t)oi,
                                             counts[ci], (uint64_t)ip);
                        allreduce_case(comm, t, o, counts[ci], ip, tag, label);
                    }
                }
            }
        }
        /* non-exact sums: bitwise identical on all ranks */
        for (int ti = 0; ti < n_ar_main; ti++) {
            const ty_t *t = &ar_types[ti];
            if (t->kind != K_FLT && t->kind != K_DBL) {
                continue;
            }
            int nc = make_counts(opt_max_bytes / (size_t)t->size, counts, light);
            for (int ci = 0; ci < nc; ci++) {
                uint64_t tag = mktag(0xf1, (uint64_t)it, (uint64_t)ti, counts[ci], 0);
                allreduce_float_random(comm, t, counts[ci], (ci + it) % 2, tag, label);
            }
        }
    }
}

/* Dedicated case: 8-bit (and 16-bit) integer SUM with values that overflow
 * (wrapping), at counts from below to well above a vector width.  Debian's
 * Open MPI 4.1.4 op/avx computes these with saturating adds (int8, uint8,
 * int16, uint16 once count reaches a vector width), so this section fails
 * with plain Open MPI unless run with --mca op ^avx; coll/rdma must get it
 * right without that. */
static void test_int8sum(MPI_Comm comm, const char *label, int iters)
{
    cur_test = "int8sum";
    /* the 16-bit types have the same saturation bug in op/avx */
    const char *names[] = {"int8", "uint8", "signed_char", "unsigned_char", "int16", "uint16"};
    size_t counts[128];
    for (int it = 0; it < iters; it++) {
        for (int ni = 0; ni < 6; ni++) {
            const ty_t *t = find_ar_type(names[ni]);
            int nc = make_counts(opt_max_bytes / (size_t)t->size, counts, 0);
            for (int ci = 0; ci < nc; ci++) {
                for (int ip = 0; ip < 2; ip++) {
                    uint64_t tag = mktag(0x18, (uint64_t)it, (uint64_t)ni, counts[ci], (uint64_t)ip);
                    allreduce_case(comm, t, &ops[O_SUM], counts[ci], ip, tag, label);
                }
            }
        }
    }
}

/* Dedicated case: MIN/MAX (and SUM) on MPI_UNSIGNED_LONG with values on both
 * sides of 2^63.  Open MPI 4.1.2-4.1.4 reduce MPI_UNSIGNED_LONG with the
 * signed long functions (open-mpi/ompi#10525, fixed by #10538 in 4.1.5), with
 * or without op/avx, so this fails with plain Open MPI 4.1.4 whatever the
 * flags; a served call must still be right. */
static void test_ulong(MPI_Comm comm, const char *label, int iters)
{
    cur_test = "ulongminmax";
    const ty_t *t = find_ar_type("unsigned_long");
    size_t counts[128];
    int nc = make_counts(opt_max_bytes / (size_t)t->size, counts, 0);
    static const opk_t ks[] = {O_MAX, O_MIN, O_SUM};
    for (int it = 0; it < iters; it++) {
        for (int oi = 0; oi < 3; oi++) {
            for (int ci = 0; ci < nc; ci++) {
                for (int ip = 0; ip < 2; ip++) {
                    uint64_t tag = mktag(0x01, (uint64_t)it, (uint64_t)oi, counts[ci], (uint64_t)ip);
                    allreduce_case(comm, t, &ops[ks[oi]], counts[ci], ip, tag, label);
                }
            }
        }
    }
}

/*
 * Dedicated case: the pairs whose reduction Open MPI 4.1.4 itself gets wrong
 * (op/avx saturates 8- and 16-bit SUM; MPI_UNSIGNED_LONG MIN/MAX compare as
 * signed, ompi#10525), at sizes from 1 element past every threshold of
 * coll/rdma up to --max-bytes, for allreduce and reduce (both roots at the
 * ends, in place every other call).  coll/rdma must serve them all (its
 * fallback would be wrong); every element is checked.  The 4 MiB end runs
 * for one 8-bit, one 16-bit and the unsigned long pairs, the aliases stop
 * at 1 MiB + 1 byte (beyond allreduce_max_bytes) to keep the case short.
 */
static void reduce_case(MPI_Comm comm, const ty_t *t, const op_t *o, size_t count, int root,
                        int inplace, uint64_t tag, const char *label);

static void test_fbwrong(MPI_Comm comm, const char *label)
{
    static const struct {
        const char *type;
        opk_t op;
        int full; /* up to --max-bytes, else up to 1 MiB + 1 */
    } pairs[] = {{"int8", O_SUM, 1},           {"uint8", O_SUM, 0},
                 {"signed_char", O_SUM, 0},    {"unsigned_char", O_SUM, 0},
                 {"char", O_SUM, 0},           {"int16", O_SUM, 0},
                 {"uint16", O_SUM, 1},         {"short", O_SUM, 0},
                 {"unsigned_short", O_SUM, 0}, {"unsigned_long", O_MAX, 1},
                 {"unsigned_long", O_MIN, 0}};
    /* bytes: around a vector width, the reduce slot (4 KiB), where the
     * failures began (8 KiB), the short allreduce limit (16 KiB), the ring
     * segment, allreduce_max_bytes (1 MiB), and the end */
    static const size_t bytes[] = {1,    2,     3,         63,        64,          65,
                                   255,  4095,  4096,      4097,      8192,        16385,
                                   65539, 262139, 1048577, 2097152 + 5, (size_t)-1};
    static const ty_t char_type = {MPI_CHAR, "char", 1, K_SINT};
    int size;
    MPI_Comm_size(comm, &size);
    cur_test = "fbwrong";
    for (size_t pi = 0; pi < sizeof(pairs) / sizeof(pairs[0]); pi++) {
        const ty_t *t = strcmp(pairs[pi].type, "char") ? find_ar_type(pairs[pi].type) : &char_type;
        size_t limit = pairs[pi].full ? opt_max_bytes : 1048577;
        for (size_t bi = 0; bi < sizeof(bytes) / sizeof(bytes[0]); bi++) {
            size_t b = bytes[bi] == (size_t)-1 ? opt_max_bytes : bytes[bi];
            size_t count = b / (size_t)t->size;
            if (b > limit || count == 0 || (bytes[bi] == (size_t)-1 && !pairs[pi].full)) {
                continue;
            }
            int root = (int)(bi % 2) ? size - 1 : 0, ip = (int)((bi / 2 + pi) % 2);
            uint64_t tag = mktag(0xfb, (uint64_t)pi, (uint64_t)bi, count, 0);
            allreduce_case(comm, t, &ops[pairs[pi].op], count, ip, tag, label);
            tag = mktag(0xfc, (uint64_t)pi, (uint64_t)bi, count, 0);
            reduce_case(comm, t, &ops[pairs[pi].op], count, root, ip, tag, label);
        }
    }
}

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
enum { L_CONTIG, L_STRIDED, L_LB, NLAYOUTS };
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

/* Compare buf with the expected image exp (nbytes, gaps included). */
static void compare_image(const unsigned char *buf, const unsigned char *exp, size_t nbytes,
                          const char *desc)
{
    report_t rp = {desc, 0};
    if (memcmp(buf, exp, nbytes) != 0) {
        for (size_t j = 0; j < nbytes; j++) {
            if (buf[j] != exp[j]) {
                char es[32], gs[32];
                snprintf(es, sizeof(es), "byte 0x%02x", exp[j]);
                snprintf(gs, sizeof(gs), "0x%02x", buf[j]);
                report_bad(&rp, j, es, gs);
            }
        }
    }
    report_end(&rp);
}

/*
 * One MPI_Allgather or MPI_Alltoall (alltoall != 0) of n elements per block
 * on comm, with send layout skind and receive layout rkind on this rank (in
 * place: no send buffer).  Checks the whole receive buffer (data, gaps,
 * guard) against a locally built image and the send buffer unchanged.
 */
static void blocks_case(MPI_Comm comm, int alltoall, const ty_t *t, int n, int skind, int rkind,
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
static void test_blocks(MPI_Comm comm, int alltoall, const char *label, int iters, int light)
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

/* ------------------------------------------------------------------ reduce */

/* One MPI_Reduce to `root`: the root checks the result, every rank its send
 * buffer; non-root receive buffers must stay untouched. */
static void reduce_case(MPI_Comm comm, const ty_t *t, const op_t *o, size_t count, int root,
                        int inplace, uint64_t tag, const char *label)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    size_t nbytes = count * (size_t)t->size;
    char *sbuf = xmalloc(nbytes + GUARD), *rbuf = xmalloc(nbytes + GUARD);
    char *orig = xmalloc(nbytes + 1);
    int ip = inplace && rank == root;
    fill_input(t, o->k, tag, rank, ip ? rbuf : sbuf, count, size);
    memcpy(orig, ip ? rbuf : sbuf, nbytes);
    if (!ip) {
        memset(rbuf, 0x3c, nbytes);
    }
    set_guard(sbuf + nbytes, GUARD);
    set_guard(rbuf + nbytes, GUARD);
    MPI_CHECK(MPI_Reduce(ip ? MPI_IN_PLACE : sbuf, rbuf, (int)count, t->dt, o->op, root, comm));
    n_other++;
    char desc[200];
    snprintf(desc, sizeof(desc), "%s reduce %s %s count %zu root %d%s", label, t->name, o->name,
             count, root, inplace ? " in_place" : "");
    if (rank == root) {
        check_reduction(t, o->k, tag, size, rbuf, count, desc);
    } else {
        for (size_t j = 0; j < nbytes; j++) {
            if ((unsigned char)rbuf[j] != 0x3c) {
                fail_msg("case [%s]: receive buffer of a non-root rank was written", desc);
            }
        }
    }
    check_guard(rbuf + nbytes, GUARD, "receive buffer", desc);
    if (!ip) {
        if (memcmp(sbuf, orig, nbytes) != 0) {
            fail_msg("case [%s]: send buffer was modified", desc);
        }
        check_guard(sbuf + nbytes, GUARD, "send buffer", desc);
    }
    free(orig);
    free(sbuf);
    free(rbuf);
}

/* Non-exact float/double SUM: the root gets the same bits from the same
 * inputs twice (a fixed combine order), within rounding of a reference. */
static void reduce_float_repeat(MPI_Comm comm, const ty_t *t, size_t count, int root, uint64_t tag,
                                const char *label)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    size_t nbytes = count * (size_t)t->size;
    char *sbuf = xmalloc(nbytes + 1), *r1 = xmalloc(nbytes + 1), *r2 = xmalloc(nbytes + 1);
    for (size_t i = 0; i < count; i++) {
        store_elem(t, sbuf, i, 0, rnd_input(tag, rank, i));
    }
    MPI_CHECK(MPI_Reduce(sbuf, r1, (int)count, t->dt, MPI_SUM, root, comm));
    MPI_CHECK(MPI_Reduce(sbuf, r2, (int)count, t->dt, MPI_SUM, root, comm));
    n_other += 2;
    char desc[200];
    snprintf(desc, sizeof(desc), "%s reduce random %s SUM count %zu root %d", label, t->name, count,
             root);
    if (rank == root) {
        report_t rp = {desc, 0};
        for (size_t i = 0; i < count; i++) {
            if (memcmp(r1 + i * t->size, r2 + i * t->size, (size_t)t->size) != 0) {
                char es[96], gs[96];
                snprintf(es, sizeof(es), "%.17g (first call)", load_flt(t, r1, i));
                snprintf(gs, sizeof(gs), "%.17g (second call, same inputs)", load_flt(t, r2, i));
                report_bad(&rp, i, es, gs);
            }
            check_random_sum(&rp, t, r1, i, tag, size);
        }
        report_end(&rp);
    }
    free(sbuf);
    free(r1);
    free(r2);
}

/* Every root; the general types and ops (thinned out by root), counts up to
 * --max-bytes, in place at the root on alternate cases. */
static void test_reduce(MPI_Comm comm, const char *label, int iters, int light)
{
    int size;
    MPI_Comm_size(comm, &size);
    cur_test = "reduce";
    size_t counts[128];
    for (int it = 0; it < iters; it++) {
        for (int root = 0; root < size; root++) {
            for (int ti = 0; ti < n_ar_general; ti++) {
                const ty_t *t = &ar_types[ti];
                if ((ti + root + it) % (light ? 6 : 3) != 0 && ti != root % n_ar_main) {
                    continue;
                }
                int nc = make_counts(opt_max_bytes / (size_t)t->size, counts, 1);
                for (int oi = 0; oi < NOPS; oi++) {
                    const op_t *o = &ops[oi];
                    if (!op_valid(t, o->k) || (oi + root) % 2 != 0) {
                        continue;
                    }
                    for (int ci = 0; ci < nc; ci++) {
                        if ((ci + oi) % 3 != 0 && ci != nc - 1) {
                            continue;
                        }
                        uint64_t tag = mktag(0x7ed, (uint64_t)it,
                                             (uint64_t)root * 64 + (uint64_t)ti, (uint64_t)oi,
                                             counts[ci]);
                        reduce_case(comm, t, o, counts[ci], root, (int)((ci + oi + it) % 2), tag,
                                    label);
                    }
                }
            }
            for (int ti = 0; ti < n_ar_main; ti++) {
                const ty_t *t = &ar_types[ti];
                if (t->kind == K_FLT || t->kind == K_DBL) {
                    size_t count = 1 + (size_t)(root * 37 + ti) % (opt_max_bytes / (size_t)t->size);
                    uint64_t tag = mktag(0x7ee, (uint64_t)it, (uint64_t)root, (uint64_t)ti, 0);
                    reduce_float_repeat(comm, t, count, root, tag, label);
                }
            }
        }
    }
}

/* ------------------------------------------------------------------ mix */

/*
 * Back-to-back allgather, alltoall, reduce and barrier calls (thousands, the
 * count of --stress-calls / 4) on world, a dup and a split, small blocks, a
 * random busy-wait before a quarter of the calls on each rank.
 */
static void test_mix(void)
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

/* ------------------------------------------------------------------ communicators */

static void comm_suite(MPI_Comm comm, const char *label, int iters)
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
static void test_large(MPI_Comm comm, const char *label)
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
static void test_sweep(void)
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

static void test_comm(int iters)
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

/* ------------------------------------------------------------------ stress */

typedef struct {
    int64_t in, out;
    int comm; /* 0 world, 1 dup, 2 split%2 */
} bstamp_t;

static void test_stress(void)
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

static void test_fallback(MPI_Comm comm, const char *label, int iters)
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
static void test_inter_self(void)
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

/* ------------------------------------------------------------------ layouts */

/* mixed layouts across ranks: its own file, sharing this file's helpers */
#include "test_layout.c"

/* ------------------------------------------------------------------ main */

static void usage(void)
{
    if (world_rank == 0) {
        fprintf(stderr,
                "usage: test_coll [--only barrier,bcast,allreduce,allgather,alltoall,reduce,mix,\n"
                "                         comm,stress,fallback,int8sum,ulongminmax,sweep,large,\n"
                "                         fbwrong,all]\n"
                "                 [--iters N] [--max-bytes B] [--seed S] [--stress-calls N]\n"
                "                 [--dup-cycles N] [--light] [--any-order] [--sweep-min P]\n"
                "                 [--ring-seg B] [--layout-derived-reduce B]\n"
                "       layout sections: layout (all of:) layout-bcast, layout-allgather,\n"
                "                        layout-alltoall, layout-allreduce, layout-reduce\n");
    }
}

static int parse_sections(const char *s)
{
    int m = 0;
    char *dup = strdup(s), *save = NULL;
    for (char *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (!strcmp(tok, "barrier")) m |= S_BARRIER;
        else if (!strcmp(tok, "bcast")) m |= S_BCAST;
        else if (!strcmp(tok, "allreduce")) m |= S_ALLREDUCE;
        else if (!strcmp(tok, "comm")) m |= S_COMM;
        else if (!strcmp(tok, "stress")) m |= S_STRESS;
        else if (!strcmp(tok, "fallback")) m |= S_FALLBACK;
        else if (!strcmp(tok, "int8sum")) m |= S_INT8SUM;
        else if (!strcmp(tok, "allgather")) m |= S_ALLGATHER;
        else if (!strcmp(tok, "alltoall")) m |= S_ALLTOALL;
        else if (!strcmp(tok, "reduce")) m |= S_REDUCE;
        else if (!strcmp(tok, "mix")) m |= S_MIX;
        else if (!strcmp(tok, "ulongminmax")) m |= S_ULONG;
        else if (!strcmp(tok, "sweep")) m |= S_SWEEP;
        else if (!strcmp(tok, "large")) m |= S_LARGE;
        else if (!strcmp(tok, "layout")) m |= S_LAYOUT;
        else if (!strcmp(tok, "layout-bcast")) m |= S_LAYOUT_BCAST;
        else if (!strcmp(tok, "layout-allgather")) m |= S_LAYOUT_ALLGATHER;
        else if (!strcmp(tok, "layout-alltoall")) m |= S_LAYOUT_ALLTOALL;
        else if (!strcmp(tok, "layout-allreduce")) m |= S_LAYOUT_ALLREDUCE;
        else if (!strcmp(tok, "layout-reduce")) m |= S_LAYOUT_REDUCE;
        else if (!strcmp(tok, "fbwrong")) m |= S_FBWRONG;
        else if (!strcmp(tok, "all")) m |= S_ALL;
        else {
            free(dup);
            return -1;
        }
    }
    free(dup);
    return m;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    setvbuf(stdout, NULL, _IOLBF, 0);

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;
        if (!strcmp(a, "--only") && v) {
            opt_sections = parse_sections(v);
            bad = opt_sections <= 0;
            i++;
        } else if (!strcmp(a, "--iters") && v) {
            opt_iters = atoi(v);
            bad = opt_iters < 1;
            i++;
        } else if (!strcmp(a, "--max-bytes") && v) {
            opt_max_bytes = (size_t)strtoull(v, NULL, 0);
            bad = opt_max_bytes < 8 || opt_max_bytes > (1u << 26);
            i++;
        } else if (!strcmp(a, "--seed") && v) {
            opt_seed = strtoull(v, NULL, 0);
            i++;
        } else if (!strcmp(a, "--stress-calls") && v) {
            opt_stress_calls = atol(v);
            bad = opt_stress_calls < 0;
            i++;
        } else if (!strcmp(a, "--light")) {
            opt_light = 1;
        } else if (!strcmp(a, "--ring-seg") && v) {
            opt_ring_seg = (size_t)strtoull(v, NULL, 0);
            bad = opt_ring_seg < 1;
            i++;
        } else if (!strcmp(a, "--layout-derived-reduce") && v) {
            opt_layout_derived_reduce = (size_t)strtoull(v, NULL, 0);
            i++;
        } else if (!strcmp(a, "--any-order")) {
            opt_any_order = 1;
        } else if (!strcmp(a, "--sweep-min") && v) {
            opt_sweep_min = atoi(v);
            bad = opt_sweep_min < 1;
            i++;
        } else if (!strcmp(a, "--dup-cycles") && v) {
            opt_dup_cycles = atol(v);
            bad = opt_dup_cycles < 0;
            i++;
        } else {
            bad = 1;
        }
        if (bad) {
            usage();
            MPI_Finalize();
            return 2;
        }
    }
    init_types();
    init_ops();

    double t0 = (double)now_ns();
    enum { NSEC = 16 };
    struct { int bit; const char *name; double secs; } sec[NSEC] = {
        {S_BARRIER, "barrier", 0}, {S_BCAST, "bcast", 0},       {S_ALLREDUCE, "allreduce", 0},
        {S_INT8SUM, "int8sum", 0}, {S_ULONG, "ulongminmax", 0}, {S_FALLBACK, "fallback", 0},
        {S_ALLGATHER, "allgather", 0}, {S_ALLTOALL, "alltoall", 0}, {S_REDUCE, "reduce", 0},
        {S_MIX, "mix", 0},         {S_COMM, "comm", 0},         {S_STRESS, "stress", 0},
        {S_SWEEP, "sweep", 0},     {S_LARGE, "large", 0},       {S_LAYOUT, "layout", 0},
        {S_FBWRONG, "fbwrong", 0}};
    for (int s = 0; s < NSEC; s++) {
        if (!(opt_sections & sec[s].bit)) {
            continue;
        }
        double ts = (double)now_ns();
        switch (sec[s].bit) {
        case S_BARRIER:
            test_barrier(MPI_COMM_WORLD, "world", opt_iters, 1000);
            break;
        case S_BCAST:
            test_bcast(MPI_COMM_WORLD, "world", opt_iters, opt_light);
            break;
        case S_ALLREDUCE:
            test_allreduce(MPI_COMM_WORLD, "world", opt_iters, opt_light);
            break;
        case S_INT8SUM:
            test_int8sum(MPI_COMM_WORLD, "world", opt_iters);
            break;
        case S_ULONG:
            test_ulong(MPI_COMM_WORLD, "world", opt_iters);
            break;
        case S_FALLBACK:
            test_fallback(MPI_COMM_WORLD, "world", opt_iters);
            test_inter_self();
            break;
        case S_ALLGATHER:
            test_blocks(MPI_COMM_WORLD, 0, "world", opt_iters, opt_light);
            break;
        case S_ALLTOALL:
            test_blocks(MPI_COMM_WORLD, 1, "world", opt_iters, opt_light);
            break;
        case S_REDUCE:
            test_reduce(MPI_COMM_WORLD, "world", opt_iters, opt_light);
            break;
        case S_MIX:
            test_mix();
            break;
        case S_COMM:
            test_comm(opt_iters);
            break;
        case S_STRESS:
            test_stress();
            break;
        case S_SWEEP:
            test_sweep();
            break;
        case S_LARGE:
            test_large(MPI_COMM_WORLD, "world");
            break;
        case S_LAYOUT:
            test_layout(opt_sections);
            break;
        case S_FBWRONG:
            test_fbwrong(MPI_COMM_WORLD, "world");
            break;
        }
        sec[s].secs = ((double)now_ns() - ts) / 1e9;
        /* everyone finished the section before the next one starts */
        MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    }
    /* totals over all ranks, for the summary line */
    uint64_t mine[5] = {n_checks, n_barrier, n_bcast, n_allreduce, n_other}, tot[5];
    MPI_CHECK(MPI_Reduce(mine, tot, 5, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD));
    if (world_rank == 0) {
        char secs[512] = "";
        size_t l = 0;
        for (int s = 0; s < NSEC; s++) {
            if (opt_sections & sec[s].bit) {
                l += (size_t)snprintf(secs + l, sizeof(secs) - l, "%s%s=%.2fs", l ? "," : "",
                                      sec[s].name, sec[s].secs);
            }
        }
        printf("test_coll OK: np=%d sections=%s max_bytes=%zu iters=%d checks=%" PRIu64
               " calls(barrier=%" PRIu64 " bcast=%" PRIu64 " allreduce=%" PRIu64
               " allgather+alltoall+reduce=%" PRIu64 ") rank0 time=%.2fs\n",
               world_size, secs, opt_max_bytes, opt_iters, tot[0], tot[1], tot[2], tot[3], tot[4],
               ((double)now_ns() - t0) / 1e9);
    }
    MPI_Finalize();
    return 0;
}
