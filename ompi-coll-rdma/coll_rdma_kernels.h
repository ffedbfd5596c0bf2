/*
 * coll/rdma reduction kernels: what coll/rdma computes itself where Open
 * MPI's installed op function is wrong (coll_rdma_op.c, DESIGN.md rule 7).
 * Pure arithmetic, no MPI: tests/unit/test_kernels.c checks them.
 *
 * Open MPI's op/avx saturates 8- and 16-bit integer SUM; its base (scalar)
 * function is right but runs at about 1 GB/s.  These kernels add with
 * two's-complement wraparound, the result Open MPI's base function gives
 * (and MPI asks for), as plain loops the compiler vectorizes, compiled once
 * per instruction set and selected for the CPU when the component is loaded
 * (GCC's target_clones: an ifunc).  The signed and unsigned types of one
 * width share a kernel: wrapping addition gives the same bits.
 */
#ifndef COLL_RDMA_KERNELS_H
#define COLL_RDMA_KERNELS_H

#include <stddef.h>

/** inout[i] = in[i] + inout[i] for `count` elements, wrapping. */
typedef void (*coll_rdma_kernel_fn_t)(const void *in, void *inout, size_t count);

/**
 * Wrapping SUM of `count` 8-bit integers (int8_t and uint8_t alike):
 * inout[i] = (uint8_t) (in[i] + inout[i]).  Any alignment; buffers may
 * overlap (then elementwise in order, as the scalar loop).
 */
void coll_rdma_kernel_sum8(const void *in, void *inout, size_t count);

/**
 * Wrapping SUM of `count` 16-bit integers (int16_t and uint16_t alike),
 * as coll_rdma_kernel_sum8(); the pointers need not be 2-byte aligned.
 */
void coll_rdma_kernel_sum16(const void *in, void *inout, size_t count);

/**
 * The instruction set the kernels run with on this CPU: "x86-64-v4"
 * (AVX-512BW), "avx2" or "default" where they are compiled in several
 * versions (x86-64, GCC 12 or later, glibc), "portable" where only one.
 */
const char *coll_rdma_kernel_isa(void);

#endif /* COLL_RDMA_KERNELS_H */
