/*
 * coll/rdma reduction kernels (coll_rdma_kernels.h): wrapping 8- and 16-bit
 * integer SUM at memory speed.
 *
 * Written as plain loops for the compiler to vectorize, not with intrinsics:
 * one source for every instruction set, and the arithmetic stays readable
 * (unsigned addition, which C defines to wrap).  Two things make GCC
 * vectorize them at -O2, whose cost model ("very cheap") vectorizes only
 * loops that need neither a run-time alias check nor a scalar remainder:
 * the body takes restrict pointers (overlapping buffers are sent to a
 * scalar loop first), and the inner loop runs a constant BLOCK_BYTES; the
 * last partial block is the scalar remainder.
 *
 * Where the compiler and the C library support it (x86-64, GCC 12 or later,
 * glibc's ifunc), each kernel is compiled for x86-64-v4 (AVX-512 with its
 * byte and word instructions, AVX512BW), AVX2 and the baseline (SSE2), and
 * the dynamic loader picks one for the CPU when the component is loaded
 * (target_clones).  GCC 12 names AVX-512BW for target_clones only as part
 * of an architecture level ("avx512bw" alone is refused; "avx512f" alone
 * would split byte additions into 256-bit halves).  Elsewhere: one portable
 * version, vectorized for the compiler's target.
 */
#include "coll_rdma_kernels.h"

#include <stdint.h>

/* -DCOLL_RDMA_KERNEL_CLONES=0 builds the portable version only */
#ifndef COLL_RDMA_KERNEL_CLONES
#    if defined(__x86_64__) && defined(__GLIBC__) && defined(__GNUC__) && !defined(__clang__) \
        && __GNUC__ >= 12
#        define COLL_RDMA_KERNEL_CLONES 1
#    else
#        define COLL_RDMA_KERNEL_CLONES 0
#    endif
#endif

#if COLL_RDMA_KERNEL_CLONES
#    define CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#    define CLONES
#endif

/* Bytes per inner loop: four 512-bit vectors (eight 256-bit, sixteen
 * 128-bit), so one pass keeps several loads in flight; then blocks of one
 * 256-bit vector, so that the scalar remainder is under 32 bytes. */
#define BLOCK_BYTES 256
#define TAIL_BYTES 32

/* A 16-bit integer at any address: MPI buffers need not be aligned, and the
 * vectorizer must not assume that they are (it would peel a prologue to
 * align, then use aligned stores). */
typedef uint16_t u16_any __attribute__((aligned(1)));

/* Whether [a, a + bytes) and [b, b + bytes) share a byte. */
static inline int overlap(const void *a, const void *b, size_t bytes)
{
    uintptr_t x = (uintptr_t) a, y = (uintptr_t) b;

    return x < y + bytes && y < x + bytes;
}

/*
 * The kernels' bodies, inlined into every compiled version (each for its
 * instruction set): restrict pointers, whole blocks, smaller blocks, then
 * the remainder.
 * (uint8_t)/(uint16_t): the sum is computed in int and reduced modulo 2^8
 * or 2^16, i.e. wrapping.
 */
#define SUM_BODY(name, type)                                                                       \
    static inline __attribute__((always_inline)) void name(const type *restrict in,               \
                                                           type *restrict inout, size_t count)    \
    {                                                                                              \
        size_t i = 0;                                                                              \
                                                                                                   \
        for (; i + BLOCK_BYTES / sizeof(type) <= count; i += BLOCK_BYTES / sizeof(type)) {        \
            for (size_t j = 0; j < BLOCK_BYTES / sizeof(type); ++j) {                              \
                inout[i + j] = (type) (in[i + j] + inout[i + j]);                                  \
            }                                                                                      \
        }                                                                                          \
        for (; i + TAIL_BYTES / sizeof(type) <= count; i += TAIL_BYTES / sizeof(type)) {          \
            for (size_t j = 0; j < TAIL_BYTES / sizeof(type); ++j) {                               \
                inout[i + j] = (type) (in[i + j] + inout[i + j]);                                  \
            }                                                                                      \
        }                                                                                          \
        for (; i < count; ++i) {                                                                   \
            inout[i] = (type) (in[i] + inout[i]);                                                  \
        }                                                                                          \
    }

SUM_BODY(sum8_body, uint8_t)
SUM_BODY(sum16_body, u16_any)

CLONES void coll_rdma_kernel_sum8(const void *in, void *inout, size_t count)
{
    if (overlap(in, inout, count)) {
        const uint8_t *a = in;
        uint8_t *b = inout;
        for (size_t i = 0; i < count; ++i) {
            b[i] = (uint8_t) (a[i] + b[i]);
        }
        return;
    }
    sum8_body(in, inout, count);
}

CLONES void coll_rdma_kernel_sum16(const void *in, void *inout, size_t count)
{
    if (overlap(in, inout, 2 * count)) {
        const u16_any *a = in;
        u16_any *b = inout;
        for (size_t i = 0; i < count; ++i) {
            b[i] = (uint16_t) (a[i] + b[i]);
        }
        return;
    }
    sum16_body(in, inout, count);
}

const char *coll_rdma_kernel_isa(void)
{
#if COLL_RDMA_KERNEL_CLONES
    /* the order of the ifunc resolver: the first clone the CPU supports */
    __builtin_cpu_init();
    if (__builtin_cpu_supports("x86-64-v4")) {
        return "x86-64-v4";
    }
    if (__builtin_cpu_supports("avx2")) {
        return "avx2";
    }
    return "default";
#else
    return "portable";
#endif
}
