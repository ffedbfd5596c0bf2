/*
 * Unit test of the reduction kernels (ompi-coll-rdma/coll_rdma_kernels.c):
 * every kernel against wrapping scalar arithmetic on pseudo-random inputs,
 * at every count 0..300 and every start offset of both buffers within a
 * 512-bit vector (so every remainder of every vector loop and every
 * misalignment, 16-bit elements at odd addresses included), with guard
 * bytes around the output that must stay untouched and an input that must
 * stay unchanged; then a few long vectors (up to 4 MiB + 3 bytes, past
 * every count the op self-test tries); then overlapping buffers (the
 * kernels' scalar path, which must compute in order as the plain loop
 * does).  No MPI.
 *
 * The component's kernels run in the version the loader chose for this
 * CPU (x86-64-v4 on an AVX-512 machine); the same source compiled once more
 * for AVX2 (kernels_avx2.c, run where the CPU has it) and for the baseline
 * (kernels_baseline.c, SSE2 on x86-64) checks the code of the other clones.
 */
#include "coll_rdma_kernels.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COUNT 300
#define OFFSETS 64 /* bytes: one 512-bit vector */
#define GUARD 64
#define GUARD_BYTE 0xA5

static int failures, checks;

static uint64_t rng = 0x243F6A8885A308D3ull;

static unsigned char rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned char) (rng >> 24);
}

/* The reference: elementwise, in order, modulo 2^(8 * width). */
static void reference(const unsigned char *in, unsigned char *inout, size_t count, int width)
{
    for (size_t i = 0; i < count; ++i) {
        if (1 == width) {
            inout[i] = (unsigned char) (in[i] + inout[i]);
        } else {
            uint16_t a, b;
            memcpy(&a, in + 2 * i, 2);
            memcpy(&b, inout + 2 * i, 2);
            b = (uint16_t) (a + b);
            memcpy(inout + 2 * i, &b, 2);
        }
    }
}

/* Byte buffers with room for every offset and the guards. */
static unsigned char in_buf[OFFSETS + 2 * MAX_COUNT + GUARD] __attribute__((aligned(64)));
static unsigned char out_buf[GUARD + OFFSETS + 2 * MAX_COUNT + GUARD] __attribute__((aligned(64)));
static unsigned char in_copy[sizeof(in_buf)], want[sizeof(out_buf)];

static void check_kernel(const char *name, coll_rdma_kernel_fn_t kernel, int width)
{
    int bad = 0;

    for (size_t count = 0; count <= MAX_COUNT; ++count) {
        for (size_t in_off = 0; in_off < OFFSETS; ++in_off) {
            /* both buffers at the same offset, and the output elsewhere too */
            size_t outs[] = {in_off, (in_off * 7 + 3) % OFFSETS};
            for (int o = 0; o < 2; ++o) {
                size_t out_off = GUARD + outs[o];
                for (size_t i = 0; i < sizeof(in_buf); ++i) {
                    in_buf[i] = rnd();
                }
                memset(out_buf, GUARD_BYTE, sizeof(out_buf));
                for (size_t i = 0; i < count * width; ++i) {
                    out_buf[out_off + i] = rnd();
                }
                memcpy(in_copy, in_buf, sizeof(in_buf));
                memcpy(want, out_buf, sizeof(out_buf));
                reference(in_buf + in_off, want + out_off, count, width);
                kernel(in_buf + in_off, out_buf + out_off, count);
                ++checks;
                if (0 != memcmp(out_buf, want, sizeof(out_buf))
                    || 0 != memcmp(in_buf, in_copy, sizeof(in_buf))) {
                    ++failures;
                    if (++bad <= 5) {
                        size_t first = 0;
                        while (first < sizeof(out_buf) && out_buf[first] == want[first]) {
                            ++first;
                        }
                        fprintf(stderr,
                                "FAIL %s: count %zu, input offset %zu, output offset %zu: "
                                "first wrong byte %ld of the output (%s)\n",
                                name, count, in_off, outs[o], (long) first - (long) out_off,
                                first < sizeof(out_buf) ? "output or guard" : "input changed");
                    }
                }
            }
        }
    }
}

/* Long vectors: every block loop many times, odd lengths, odd offsets. */
static void check_long(const char *name, coll_rdma_kernel_fn_t kernel, int width)
{
    static const size_t bytes[] = {4095, 4096, 65536 + 3, 1048576 + 64, 4194304 + 3};
    size_t most = 4194304 + 3 + 2 * OFFSETS;
    unsigned char *in = malloc(most), *out = malloc(most), *ref = malloc(most);

    if (NULL == in || NULL == out || NULL == ref) {
        ++failures;
        fprintf(stderr, "FAIL %s: no memory for the long vectors\n", name);
        free(in), free(out), free(ref);
        return;
    }
    for (size_t b = 0; b < sizeof(bytes) / sizeof(bytes[0]); ++b) {
        size_t count = bytes[b] / width, in_off = 5 * b % OFFSETS, out_off = (3 + 7 * b) % OFFSETS;
        for (size_t i = 0; i < most; ++i) {
            in[i] = rnd();
            out[i] = ref[i] = rnd();
        }
        reference(in + in_off, ref + out_off, count, width);
        kernel(in + in_off, out + out_off, count);
        ++checks;
        if (0 != memcmp(out, ref, most)) {
            size_t first = 0;
            while (out[first] == ref[first]) {
                ++first;
            }
            ++failures;
            fprintf(stderr, "FAIL %s: count %zu, input offset %zu, output offset %zu: first wrong "
                            "byte %ld of the output\n",
                    name, count, in_off, out_off, (long) first - (long) out_off);
        }
    }
    free(in), free(out), free(ref);
}

/* Overlapping operands: the result of the in-order scalar loop. */
static void check_overlap(const char *name, coll_rdma_kernel_fn_t kernel, int width)
{
    static unsigned char buf[4 * MAX_COUNT], ref[4 * MAX_COUNT];
    long shifts[] = {0, 1, 2, 3, 32, 64, -1, -2, -64};

    for (size_t s = 0; s < sizeof(shifts) / sizeof(shifts[0]); ++s) {
        for (size_t count = 0; count <= MAX_COUNT; count += 37) {
            size_t base = MAX_COUNT;
            for (size_t i = 0; i < sizeof(buf); ++i) {
                buf[i] = rnd();
            }
            memcpy(ref, buf, sizeof(buf));
            reference(ref + base + shifts[s], ref + base, count, width);
            kernel(buf + base + shifts[s], buf + base, count);
            ++checks;
            if (0 != memcmp(buf, ref, sizeof(buf))) {
                ++failures;
                fprintf(stderr, "FAIL %s: overlapping operands, input at output %+ld bytes, "
                                "count %zu\n",
                        name, shifts[s], count);
            }
        }
    }
}

/* the other versions of the kernels (kernels_avx2.c, kernels_baseline.c) */
void test_avx2_kernel_sum8(const void *in, void *inout, size_t count);
void test_avx2_kernel_sum16(const void *in, void *inout, size_t count);
void test_baseline_kernel_sum8(const void *in, void *inout, size_t count);
void test_baseline_kernel_sum16(const void *in, void *inout, size_t count);

static void check_all(const char *isa, coll_rdma_kernel_fn_t sum8, coll_rdma_kernel_fn_t sum16)
{
    char name[64];
    int before = failures;

    snprintf(name, sizeof(name), "sum8 (%s)", isa);
    check_kernel(name, sum8, 1);
    check_long(name, sum8, 1);
    check_overlap(name, sum8, 1);
    snprintf(name, sizeof(name), "sum16 (%s)", isa);
    check_kernel(name, sum16, 2);
    check_long(name, sum16, 2);
    check_overlap(name, sum16, 2);
    printf("%s: %s\n", isa, failures == before ? "ok" : "FAILED");
}

int main(void)
{
    check_all(coll_rdma_kernel_isa(), coll_rdma_kernel_sum8, coll_rdma_kernel_sum16);
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) {
        check_all("compiled for avx2", test_avx2_kernel_sum8, test_avx2_kernel_sum16);
    } else {
        printf("compiled for avx2: not run, the CPU lacks AVX2\n");
    }
#endif
    check_all("baseline", test_baseline_kernel_sum8, test_baseline_kernel_sum16);
    printf("%d checks, %d failures\n", checks, failures);
    return 0 == failures ? 0 : 1;
}
