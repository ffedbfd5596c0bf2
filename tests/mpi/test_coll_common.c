/*
 * Part of test_coll (tests/mpi/test_coll.c says what it tests): the
 * program's state and options, helpers (hashes, PRNG, clocks, allocation,
 * point-to-point gather, mismatch reports), the tables of types and ops,
 * buffer guards and the list of counts every section sweeps.
 */
#include "test_coll.h"

/* ------------------------------------------------------------------ options */

/* set by main (test_coll.c) from the command line; test_coll.h says what they mean */
int opt_sections = S_ALL;
int opt_iters = 2;
size_t opt_max_bytes = 16384;
uint64_t opt_seed = 0x5eed2024;
long opt_stress_calls = 20000;
long opt_dup_cycles = 1000;
int opt_light = 0; /* fewer counts/types/ops in bcast and allreduce */
int opt_any_order = 0; /* float sums may differ in the last bits between ranks */
int opt_sweep_min = 2; /* smallest communicator of the sweep section */
size_t opt_ring_seg = 32768; /* ring segment bytes the large section aims at */

int world_rank, world_size;
const char *cur_test = "init";
uint64_t n_checks, n_barrier, n_bcast, n_allreduce, n_other;

/* ------------------------------------------------------------------ helpers */

uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

uint64_t hash3(uint64_t tag, uint64_t rank, uint64_t idx)
{
    return mix64(mix64(mix64(opt_seed ^ tag) + rank) + idx);
}

/* Build a tag from the parameters of one call, so different calls differ. */
uint64_t mktag(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e)
{
    return mix64(mix64(mix64(mix64(mix64(a) + b) + c) + d) + e);
}

/* Shared PRNG (xorshift64*): same seed on every rank gives the same stream. */
uint64_t rng_next(rng_t *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 0x2545F4914F6CDD1DULL;
}
uint64_t rng_below(rng_t *r, uint64_t n) { return n ? rng_next(r) % n : 0; }

int64_t now_ns(void)
{
    /* CLOCK_MONOTONIC is one clock for all processes of the node; MPI_Wtime
     * is not comparable between processes in Open MPI 4.x. */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void sleep_ns(int64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000LL), (long)(ns % 1000000000LL)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

void spin_ns(int64_t ns)
{
    int64_t end = now_ns() + ns;
    while (now_ns() < end) {
    }
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "rank %d: out of memory (%zu bytes)\n", world_rank, n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

void die(void)
{
    fflush(stdout);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
    exit(3);
}

/* Every rank's `bytes` at `mine` into all (rank r's at r * bytes), by
 * point-to-point messages: checks must not depend on the collectives tested. */
void gather_p2p(const void *mine, size_t bytes, void *all, MPI_Comm comm)
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

void report_bad(report_t *rp, size_t idx, const char *exp, const char *got)
{
    if (rp->nbad < 5) {
        printf("FAIL rank %d test %s case [%s] index %zu expected %s got %s\n", world_rank,
               cur_test, rp->desc, idx, exp, got);
    }
    rp->nbad++;
}

void report_end(report_t *rp)
{
    n_checks++;
    if (rp->nbad) {
        printf("FAIL rank %d test %s case [%s]: %ld mismatching elements\n", world_rank, cur_test,
               rp->desc, rp->nbad);
        die();
    }
}

/* Compare buf with the expected image exp (nbytes, gaps included). */
void compare_image(const unsigned char *buf, const unsigned char *exp, size_t nbytes,
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

void fail_msg(const char *fmt, ...)
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

/* main: the types of the brief (fixed width, float, double); ext: C aliases */
ty_t ar_types[MAX_TYPES];
int n_ar_types, n_ar_main, n_ar_general; /* general: all but unsigned_long */
ty_t bc_types[MAX_TYPES];
int n_bc_types;

static void add_type(ty_t *tab, int *n, MPI_Datatype dt, const char *name, int size, kind_t k)
{
    ty_t t = {dt, name, size, k};
    tab[(*n)++] = t;
}

void init_types(void)
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

ty_t *find_ar_type(const char *name)
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

op_t ops[NOPS];

void init_ops(void)
{
    op_t t[NOPS] = {{MPI_SUM, "SUM", O_SUM},    {MPI_PROD, "PROD", O_PROD}, {MPI_MIN, "MIN", O_MIN},
                    {MPI_MAX, "MAX", O_MAX},    {MPI_LAND, "LAND", O_LAND}, {MPI_LOR, "LOR", O_LOR},
                    {MPI_LXOR, "LXOR", O_LXOR}, {MPI_BAND, "BAND", O_BAND}, {MPI_BOR, "BOR", O_BOR},
                    {MPI_BXOR, "BXOR", O_BXOR}};
    memcpy(ops, t, sizeof(t));
}

/* Whether MPI defines `op` on `t`: no logical or bitwise ops on floating
 * point, only bitwise ops on MPI_BYTE. */
int op_valid(const ty_t *t, opk_t k)
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

/* ------------------------------------------------------------------ guards */

void set_guard(void *p, size_t n) { memset(p, GUARD_BYTE, n); }

void check_guard(const void *p, size_t n, const char *what, const char *desc)
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
int make_counts(size_t max_count, size_t *out, int light)
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
