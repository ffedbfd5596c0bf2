/*
 * Layouts with gaps around 64 KiB boundaries, shared by tests/mpi/test_gaps.c
 * (the collectives) and tests/unit/test_pack.c (coll/rdma's packing against
 * MPI_Pack/MPI_Unpack).  Issue 27: Open MPI 4.1's ompi_datatype_sndrcv lost
 * the last round (up to 64 KiB) of such layouts.
 *
 * A signature is n ints, or n/3 periods of (int, int, double).  A layout of
 * a signature is a datatype and count plus, for every element j of the
 * signature, its byte offset in one block (disp[j]) and its size (4 or 8);
 * buffers are filled and checked through that record, never through MPI's
 * datatype engine.  Static functions only: each program includes it once.
 */
#ifndef GAPS_LAYOUTS_H
#define GAPS_LAYOUTS_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SIG_INT, SIG_MIX };

/* contiguous, then the gapped kinds */
enum { L_CONTIG, L_BLOCKS, L_VECTOR, L_INDEXED, L_NKINDS };
static const char *gl_kind_names[L_NKINDS] = {"contig", "blocks", "vector", "indexed"};

typedef struct {
    int sig;         /* SIG_INT or SIG_MIX */
    size_t n;        /* elements of the signature (a multiple of 3 for SIG_MIX) */
} gl_sig_t;

typedef struct {
    int kind, count;
    MPI_Datatype dt;
    size_t *disp;  /* byte offset of element j in one block */
    size_t stride; /* bytes from one block to the next: count x extent */
    size_t span;   /* bytes one block's elements reach */
} gl_lay_t;

static inline void *gl_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (NULL == p) {
        fprintf(stderr, "out of memory (%zu bytes)\n", n);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return p;
}

static inline size_t gl_esize(const gl_sig_t *s, size_t j) { return SIG_MIX == s->sig && 2 == j % 3 ? 8 : 4; }

static inline size_t gl_sig_bytes(const gl_sig_t *s) { return SIG_MIX == s->sig ? s->n / 3 * 16 : s->n * 4; }

/* The signature of `bytes` bytes: ints, or periods of 16 bytes. */
static inline gl_sig_t gl_sig(int sig, size_t bytes)
{
    gl_sig_t s = {sig, SIG_MIX == sig ? bytes / 16 * 3 : bytes / 4};
    return s;
}

/* One period (int, int, double) with the ints at 0 and i1, the double at d,
 * resized to extent ext. */
static inline MPI_Datatype gl_period(MPI_Aint i1, MPI_Aint d, MPI_Aint ext)
{
    int bl[3] = {1, 1, 1};
    MPI_Aint disp[3] = {0, i1, d};
    MPI_Datatype ty[3] = {MPI_INT, MPI_INT, MPI_DOUBLE}, tmp, dt;
    MPI_Type_create_struct(3, bl, disp, ty, &tmp);
    MPI_Type_create_resized(tmp, 0, ext, &dt);
    MPI_Type_free(&tmp);
    return dt;
}

/*
 * Build a layout of kind `kind` for signature s:
 *   L_CONTIG   n x MPI_INT; or n/3 x the packed period (extent 16)
 *   L_BLOCKS   2 blocks of contiguous elements resized to a larger extent
 *              (the shape: 2 x 8193 ints with extent 8194 ints; at
 *              1 MiB 2 x 512 KiB with an extent of 5 MiB); `variant` 1: 5
 *              blocks where n allows, else 3
 *   L_VECTOR   one vector of 2 such blocks with a gap of one element (one
 *              hvector of packed periods for SIG_MIX)
 *   L_INDEXED  ints: one indexed type of blocks of 8193, 1, 700, 16385 and
 *              3 ints, in turn, with gaps of 1 to 3 ints; SIG_MIX: n/3
 *              periods with gaps (int at 0, int at 8, double at 16, extent 32)
 */
static inline void gl_make(gl_lay_t *l, const gl_sig_t *s, int kind, int variant)
{
    size_t n = s->n, reps = n / 3, blocks = 2;
    MPI_Datatype tmp = MPI_DATATYPE_NULL, per = MPI_DATATYPE_NULL;
    l->kind = kind;
    l->count = 1;
    l->disp = gl_xmalloc((n ? n : 1) * sizeof(size_t));
    if (SIG_MIX == s->sig) {
        per = gl_period(4, 8, 16);
    }
    if (1 == variant) {
        size_t units = SIG_MIX == s->sig ? reps : n;
        blocks = 0 == units % 5 ? 5 : 0 == units % 3 ? 3 : 2;
    }
    size_t unit = SIG_MIX == s->sig ? 16 : 4;                   /* bytes of one unit */
    size_t units = SIG_MIX == s->sig ? reps : n, per_block = units / blocks;
    size_t gap = per_block * unit * blocks >= (1u << 20) ? 5u * (1u << 20) - per_block * unit : unit;
    switch (kind) {
    case L_CONTIG:
        l->dt = SIG_MIX == s->sig ? per : MPI_INT;
        l->count = (int)units;
        per = MPI_DATATYPE_NULL;
        for (size_t j = 0; j < n; j++) {
            l->disp[j] = SIG_MIX == s->sig ? 16 * (j / 3) + (j % 3) * 4 : 4 * j;
        }
        break;
    case L_BLOCKS:
    case L_VECTOR:
        if (units % blocks) {
            blocks = 1;
            per_block = units;
        }
        MPI_Type_contiguous((int)per_block, SIG_MIX == s->sig ? per : MPI_INT, &tmp);
        if (L_BLOCKS == kind) {
            MPI_Type_create_resized(tmp, 0, (MPI_Aint)(per_block * unit + gap), &l->dt);
            l->count = (int)blocks;
        } else {
            MPI_Type_create_hvector((int)blocks, 1, (MPI_Aint)(per_block * unit + gap), tmp, &l->dt);
        }
        for (size_t j = 0; j < n; j++) {
            size_t u = SIG_MIX == s->sig ? j / 3 : j, b = u / per_block, in = u % per_block;
            l->disp[j] = b * (per_block * unit + gap) + in * unit + (SIG_MIX == s->sig ? (j % 3) * 4 : 0);
        }
        break;
    default: /* L_INDEXED */
        if (SIG_MIX == s->sig) {
            l->dt = gl_period(8, 16, 32);
            l->count = (int)reps;
            for (size_t j = 0; j < n; j++) {
                l->disp[j] = 32 * (j / 3) + (j % 3) * 8;
            }
        } else {
            static const int lens[] = {8193, 1, 700, 16385, 3};
            size_t nb = 0, j = 0, pos = 0;
            int *bl = gl_xmalloc((n + 1) * sizeof(int)), *bd = gl_xmalloc((n + 1) * sizeof(int));
            while (j < n) {
                size_t len = (size_t)lens[nb % 5];
                if (len > n - j) {
                    len = n - j;
                }
                bl[nb] = (int)len;
                bd[nb] = (int)(pos / 4);
                for (size_t i = 0; i < len; i++) {
                    l->disp[j++] = pos;
                    pos += 4;
                }
                pos += 4 * (1 + nb % 3 + (size_t)variant);
                nb++;
            }
            MPI_Type_indexed((int)nb, bl, bd, MPI_INT, &l->dt);
            free(bl);
            free(bd);
        }
    }
    if (MPI_DATATYPE_NULL != tmp) {
        MPI_Type_free(&tmp);
    }
    if (MPI_DATATYPE_NULL != per) {
        MPI_Type_free(&per);
    }
    if (MPI_INT != l->dt) {
        MPI_Type_commit(&l->dt);
    }
    MPI_Aint lb, ext;
    int size;
    MPI_Type_get_extent(l->dt, &lb, &ext);
    MPI_Type_size(l->dt, &size);
    l->stride = (size_t)l->count * (size_t)ext;
    l->span = 0;
    for (size_t j = 0; j < n; j++) {
        if (l->disp[j] + gl_esize(s, j) > l->span) {
            l->span = l->disp[j] + gl_esize(s, j);
        }
    }
    if ((size_t)size * (size_t)l->count != gl_sig_bytes(s) || lb != 0) {
        fprintf(stderr, "test bug: layout %s of %zu elements: %d x %d bytes, expected %zu\n",
                gl_kind_names[kind], n, l->count, size, gl_sig_bytes(s));
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

static inline void gl_free(gl_lay_t *l)
{
    if (MPI_INT != l->dt) {
        MPI_Type_free(&l->dt);
    }
    free(l->disp);
}

/* Bytes a buffer of `blocks` blocks of layout l spans. */
static inline size_t gl_bytes(const gl_lay_t *l, int blocks) { return (size_t)(blocks - 1) * l->stride + l->span; }

static inline uint64_t gl_hash(uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t x = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull) * 0xbf58476d1ce4e5b9ull ^ c;
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Element j of what src sends to dst (dst -1: to every rank), as stored. */
static inline uint64_t gl_value(uint64_t tag, int src, int dst, size_t j)
{
    return gl_hash(tag, (uint64_t)src * 1000003u + (uint64_t)(dst + 1), j);
}

/* Write block b of layout l at buf: what src sends to dst. */
static inline void gl_put(const gl_lay_t *l, const gl_sig_t *s, unsigned char *buf, int b, uint64_t tag,
                   int src, int dst)
{
    for (size_t j = 0; j < s->n; j++) {
        uint64_t v = gl_value(tag, src, dst, j);
        memcpy(buf + (size_t)b * l->stride + l->disp[j], &v, gl_esize(s, j));
    }
}

/* A buffer of `bytes` bytes (and 64 guard bytes after them) with a pattern
 * of its own in every byte: gaps must keep it. */
static inline unsigned char *gl_buffer(size_t bytes, unsigned salt)
{
    unsigned char *p = gl_xmalloc(bytes + 64);
    for (size_t j = 0; j < bytes + 64; j++) {
        p[j] = (unsigned char)(salt ^ (j * 7) ^ (j >> 12));
    }
    return p;
}

/* The first byte where a and b differ, or -1. */
static inline long gl_diff(const unsigned char *a, const unsigned char *b, size_t bytes)
{
    if (0 == memcmp(a, b, bytes)) {
        return -1;
    }
    for (size_t i = 0; i < bytes; i++) {
        if (a[i] != b[i]) {
            return (long)i;
        }
    }
    return -1;
}

#endif /* GAPS_LAYOUTS_H */
