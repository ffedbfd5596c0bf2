/*
 * Test shim, loaded with LD_PRELOAD into an MPI process: makes coll/rdma's
 * own allocations of one size fail, to give one rank an allocation failure
 * its peers do not have (review 2026-11-27, F6: the node map's arrays of a
 * window; F7: a rank out of memory at its window's set-up).  Only malloc
 * calls made directly from mca_coll_rdma.so are touched (the caller's
 * address is looked up with dladdr); the rest of the process allocates from
 * glibc as usual.
 *
 *   MALLOC_FAIL_SIZE   bytes of the malloc that fails (required; 0: any
 *                      size, for a function named by MALLOC_FAIL_IN)
 *   MALLOC_FAIL_IN     only calls from this exported function (e.g.
 *                      coll_rdma_window_alloc); default: any function of
 *                      mca_coll_rdma.so
 *   MALLOC_FAIL_RANK   only in this world rank (OMPI_COMM_WORLD_RANK);
 *                      default: every process it is preloaded into
 *   MALLOC_FAIL_NTH    fail from the n-th such call on (default 1)
 *   MALLOC_FAIL_COUNT  how many to fail (default 1)
 *
 * At exit it prints one line on stderr, so that a case can tell the shim hit:
 *
 *     [malloc-fail] pid P: failed N malloc(S) in F
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t size);

static const char *fail_in;
static size_t fail_size;
static long fail_nth = 1, fail_count = 1, seen, failed;
static int armed;
static __thread int inside; /* dladdr may allocate */

__attribute__((constructor)) static void init(void)
{
    const char *size = getenv("MALLOC_FAIL_SIZE"), *nth = getenv("MALLOC_FAIL_NTH");
    const char *count = getenv("MALLOC_FAIL_COUNT"), *rank = getenv("MALLOC_FAIL_RANK");
    const char *me = getenv("OMPI_COMM_WORLD_RANK");

    fail_in = getenv("MALLOC_FAIL_IN");
    fail_size = NULL != size ? (size_t) strtoull(size, NULL, 10) : 0;
    fail_nth = NULL != nth ? atol(nth) : 1;
    fail_count = NULL != count ? atol(count) : 1;
    armed = NULL != size && (NULL == rank || (NULL != me && 0 == strcmp(rank, me)));
}

__attribute__((destructor)) static void report(void)
{
    char line[256];
    int n;

    if (!armed) {
        return;
    }
    n = snprintf(line, sizeof(line), "[malloc-fail] pid %d: failed %ld malloc(%zu) in %s\n",
                 (int) getpid(), failed, fail_size, NULL != fail_in ? fail_in : "mca_coll_rdma");
    (void) !write(STDERR_FILENO, line, (size_t) n);
}

/* Whether the allocation made from `caller` is one to fail. */
static int fail_now(void *caller)
{
    Dl_info info;
    int hit;

    inside = 1;
    hit = 0 != dladdr(caller, &info)
          && (NULL != fail_in ? NULL != info.dli_sname && 0 == strcmp(info.dli_sname, fail_in)
                              : NULL != info.dli_fname && NULL != strstr(info.dli_fname,
                                                                         "mca_coll_rdma"))
          && ++seen >= fail_nth;
    inside = 0;
    return hit;
}

void *malloc(size_t size)
{
    if (armed && (size == fail_size || (0 == fail_size && NULL != fail_in))
        && failed < fail_count && !inside
        && fail_now(__builtin_return_address(0))) {
        ++failed;
        return NULL;
    }
    return __libc_malloc(size);
}
