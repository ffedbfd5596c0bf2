/*
 * Part of test_coll: the inputs every rank computes from (seed, tag, rank,
 * index), elements stored and loaded by type, and the reference reductions
 * results are checked against.
 */
#include "test_coll.h"

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
double rnd_input(uint64_t tag, int r, size_t i)
{
    uint64_t h = hash3(tag, (uint64_t)r, i);
    double u = (double)(h >> 11) / 9007199254740992.0 * 2.0 - 1.0; /* [-1, 1) */
    return ldexp(u, (int)((h & 0xff) % 21) - 10);
}

void store_elem(const ty_t *t, void *buf, size_t i, uint64_t ival, double fval)
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

double load_flt(const ty_t *t, const void *buf, size_t i)
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
void check_random_sum(report_t *rp, const ty_t *t, const void *buf, size_t i, uint64_t tag,
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
void fill_input(const ty_t *t, opk_t k, uint64_t tag, int r, void *buf, size_t count, int nranks)
{
    for (size_t i = 0; i < count; i++) {
        if (t->kind == K_FLT || t->kind == K_DBL) {
            store_elem(t, buf, i, 0, flt_input(t, k, tag, r, i));
        } else {
            store_elem(t, buf, i, int_input(t, k, tag, r, i, nranks), 0);
        }
    }
}

uint64_t int_combine(const ty_t *t, opk_t k, uint64_t a, uint64_t b)
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
void check_reduction(const ty_t *t, opk_t k, uint64_t tag, int n, const void *got,
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
