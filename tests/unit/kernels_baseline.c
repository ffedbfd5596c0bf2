/*
 * The reduction kernels' source once more, as one version for the
 * compiler's baseline target (on x86-64 SSE2: what the default clone runs),
 * under names of its own, for test_kernels.c.
 */
#define COLL_RDMA_KERNEL_CLONES 0
#define coll_rdma_kernel_sum8 test_baseline_kernel_sum8
#define coll_rdma_kernel_sum16 test_baseline_kernel_sum16
#define coll_rdma_kernel_isa test_baseline_kernel_isa
#include "coll_rdma_kernels.c"
