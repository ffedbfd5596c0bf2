/*
 * malloc_fail.so: an LD_PRELOAD shim that makes coll/rdma's own allocations
 * fail on one rank, to test what the other ranks see (run_robust_tests.sh,
 * oom-* cases).  Only calls made from mca_coll_rdma.so itself are touched
 * (the caller's address is looked up with dladdr), so Open MPI and UCX
 * allocate as usual.
 *
 *   MALLOC_FAIL_RANK   the world rank whose allocations fail (OMPI_COMM_WORLD_RANK)
 *   MALLOC_FAIL_SIZE   bytes of the malloc or calloc (count * size) that fails
 *   MALLOC_FAIL_NTH    fail from the n-th such call on (default 1)
 *   MALLOC_FAIL_COUNT  how many to fail (default 1)
 *
 * Prints "malloc_fail: failed N" to stderr at the first failure, so a case
 * can tell that the shim hit.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);

static int armed = -1; /* -1: not read yet */
static size_t fail_size;
static long nth = 1, count = 1, seen, failed;

static void arm(void)
{
    const char *rank = getenv("MALLOC_FAIL_RANK"), *me = getenv("OMPI_COMM_WORLD_RANK");
    const char *size = getenv("MALLOC_FAIL_SIZE");

    armed = NULL != rank && NULL != me && NULL != size && 0 == strcmp(rank, me);
    if (armed) {
        fail_size = (size_t) strtoull(size, NULL, 10);
        nth = getenv("MALLOC_FAIL_NTH") ? atol(getenv("MALLOC_FAIL_NTH")) : 1;
        count = getenv("MALLOC_FAIL_COUNT") ? atol(getenv("MALLOC_FAIL_COUNT")) : 1;
    }
}

/* Whether this allocation, of `bytes` made from `caller`, is one to fail. */
static int fail_now(size_t bytes, void *caller)
{
    Dl_info info;

    if (armed < 0) {
        arm();
    }
    if (!armed || bytes != fail_size || failed >= count) {
        return 0;
    }
    if (0 == dladdr(caller, &info) || NULL == info.dli_fname
        || NULL == strstr(info.dli_fname, "mca_coll_rdma")) {
        return 0;
    }
    if (++seen < nth) {
        return 0;
    }
    if (0 == failed++) {
        char line[80];
        int n = snprintf(line, sizeof(line), "malloc_fail: failed %zu bytes\n", bytes);
        (void) !write(2, line, (size_t) n);
    }
    return 1;
}

void *malloc(size_t size)
{
    if (armed != 0 && fail_now(size, __builtin_return_address(0))) {
        return NULL;
    }
    return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
    if (armed != 0 && fail_now(n * size, __builtin_return_address(0))) {
        return NULL;
    }
    return __libc_calloc(n, size);
}
