/*
 * Test shim, loaded with LD_PRELOAD into MPI processes: counts the UCX calls
 * that tell coll/rdma's put path from its direct-store path, and prints at
 * exit one line on stderr:
 *
 *     [put-counter] host H pid P: ucp_put_nbi=N ucp_rkey_ptr_ok=A ucp_rkey_ptr_fail=B
 *
 * ucp_rkey_ptr succeeding means a peer's window is mapped (stores);
 * failing means that peer is reached by ucp_put_nbi.  In these tests only
 * coll/rdma calls these functions (Open MPI runs pml ob1, not UCX).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>

#include <ucp/api/ucp.h>

static unsigned long n_put, n_ptr_ok, n_ptr_fail;

ucs_status_t ucp_put_nbi(ucp_ep_h ep, const void *buffer, size_t length, uint64_t remote_addr,
                         ucp_rkey_h rkey)
{
    static ucs_status_t (*real)(ucp_ep_h, const void *, size_t, uint64_t, ucp_rkey_h);
    if (NULL == real) {
        real = (ucs_status_t(*)(ucp_ep_h, const void *, size_t, uint64_t, ucp_rkey_h)) dlsym(
            RTLD_NEXT, "ucp_put_nbi");
    }
    __atomic_fetch_add(&n_put, 1, __ATOMIC_RELAXED);
    return real(ep, buffer, length, remote_addr, rkey);
}

ucs_status_t ucp_rkey_ptr(ucp_rkey_h rkey, uint64_t raddr, void **addr_p)
{
    static ucs_status_t (*real)(ucp_rkey_h, uint64_t, void **);
    ucs_status_t status;
    if (NULL == real) {
        real = (ucs_status_t(*)(ucp_rkey_h, uint64_t, void **)) dlsym(RTLD_NEXT, "ucp_rkey_ptr");
    }
    status = real(rkey, raddr, addr_p);
    __atomic_fetch_add(UCS_OK == status ? &n_ptr_ok : &n_ptr_fail, 1, __ATOMIC_RELAXED);
    return status;
}

__attribute__((destructor)) static void report(void)
{
    char host[256] = "?";
    gethostname(host, sizeof(host) - 1);
    if (n_put + n_ptr_ok + n_ptr_fail > 0) {
        fprintf(stderr, "[put-counter] host %s pid %d: ucp_put_nbi=%lu ucp_rkey_ptr_ok=%lu "
                        "ucp_rkey_ptr_fail=%lu\n",
                host, (int) getpid(), n_put, n_ptr_ok, n_ptr_fail);
    }
}
