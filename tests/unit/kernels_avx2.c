/*
 * The reduction kernels' source once more, as one version compiled for AVX2
 * (what the avx2 clone runs), under names of its own: test_kernels.c runs it
 * where the CPU has AVX2, whichever clone the loader picks for the component.
 */
#define COLL_RDMA_KERNEL_CLONES 0
#define coll_rdma_kernel_sum8 test_avx2_kernel_sum8
#define coll_rdma_kernel_sum16 test_avx2_kernel_sum16
#define coll_rdma_kernel_isa test_avx2_kernel_isa
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#    pragma GCC target("avx2")
#endif
#include "coll_rdma_kernels.c"
