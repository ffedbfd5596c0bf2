/*
 * Test shim, loaded with LD_PRELOAD into an MPI process: makes one malloc
 * fail, the MALLOC_FAIL_NTH-th (default 1) of MALLOC_FAIL_SIZE bytes called
 * directly from the function MALLOC_FAIL_IN (an exported symbol, e.g.
 * coll_rdma_window_alloc), and prints at exit one line on stderr:
 *
 *     [malloc-fail] pid P: failed 1 malloc(S) in F
 *
 * (failed 0 where the allocation never came).  The rest of the process's
 * allocations go to glibc's.  Used by tests/robust/run_robust_tests.sh to
 * give one rank an allocation failure its peers do not have (review
 * 2026-11-27, F6: the node map's arrays of a window).
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
static long fail_nth = 1, seen, failed;
static __thread int inside; /* dladdr may allocate */

__attribute__((constructor)) static void init(void)
{
    const char *size = getenv("MALLOC_FAIL_SIZE"), *nth = getenv("MALLOC_FAIL_NTH");

    fail_in = getenv("MALLOC_FAIL_IN");
    fail_size = NULL != size ? (size_t) strtoull(size, NULL, 10) : 0;
    fail_nth = NULL != nth ? atol(nth) : 1;
}

__attribute__((destructor)) static void report(void)
{
    char line[256];
    int n = snprintf(line, sizeof(line), "[malloc-fail] pid %d: failed %ld malloc(%zu) in %s\n",
                     (int) getpid(), failed, fail_size, NULL != fail_in ? fail_in : "(none)");

    (void) !write(STDERR_FILENO, line, (size_t) n);
}

void *malloc(size_t size)
{
    if (NULL != fail_in && size == fail_size && 0 == failed && !inside) {
        Dl_info info;
        void *caller = __builtin_return_address(0);

        inside = 1;
        if (0 != dladdr(caller, &info) && NULL != info.dli_sname
            && 0 == strcmp(info.dli_sname, fail_in) && ++seen == fail_nth) {
            failed = 1;
            inside = 0;
            return NULL;
        }
        inside = 0;
    }
    return __libc_malloc(size);
}
