/*
 * Test shim, loaded with LD_PRELOAD into MPI processes: counts the UCX calls
 * that tell coll/rdma's put path from its direct-store path, and prints at
 * exit one line on stderr:
 *
 *     [put-counter] host H pid P: ucp_put_nbi=N ucp_rkey_ptr_ok=A ucp_rkey_ptr_fail=B
 *         ucp_ep_rkey_unpack=U ucp_ep_create=E
 *
 * ucp_rkey_ptr succeeding means a peer's window is mapped (stores);
 * failing means that peer is reached by ucp_put_nbi.  ucp_ep_rkey_unpack
 * counts the peers' windows attached (one per peer and communicator),
 * ucp_ep_create the peer processes connected.  In these tests only
 * coll/rdma calls these functions (Open MPI runs pml ob1, not UCX).
 *
 * PUT_COUNTER_FAIL_UNPACK_AFTER=N makes every ucp_ep_rkey_unpack after the
 * first N fail (UCS_ERR_NO_RESOURCE): a peer that cannot be reached.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <ucp/api/ucp.h>

static unsigned long n_put, n_ptr_ok, n_ptr_fail, n_unpack, n_ep;

/* The next definition of `name` after this library's. */
static void *next(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

ucs_status_t ucp_put_nbi(ucp_ep_h ep, const void *buffer, size_t length, uint64_t remote_addr,
                         ucp_rkey_h rkey)
{
    static ucs_status_t (*real)(ucp_ep_h, const void *, size_t, uint64_t, ucp_rkey_h);
    if (NULL == real) {
        real = (ucs_status_t(*)(ucp_ep_h, const void *, size_t, uint64_t, ucp_rkey_h)) next(
            "ucp_put_nbi");
    }
    __atomic_fetch_add(&n_put, 1, __ATOMIC_RELAXED);
    return real(ep, buffer, length, remote_addr, rkey);
}

ucs_status_t ucp_rkey_ptr(ucp_rkey_h rkey, uint64_t raddr, void **addr_p)
{
    static ucs_status_t (*real)(ucp_rkey_h, uint64_t, void **);
    ucs_status_t status;
    if (NULL == real) {
        real = (ucs_status_t(*)(ucp_rkey_h, uint64_t, void **)) next("ucp_rkey_ptr");
    }
    status = real(rkey, raddr, addr_p);
    __atomic_fetch_add(UCS_OK == status ? &n_ptr_ok : &n_ptr_fail, 1, __ATOMIC_RELAXED);
    return status;
}

ucs_status_t ucp_ep_rkey_unpack(ucp_ep_h ep, const void *rkey_buffer, ucp_rkey_h *rkey_p)
{
    static ucs_status_t (*real)(ucp_ep_h, const void *, ucp_rkey_h *);
    const char *fail_after = getenv("PUT_COUNTER_FAIL_UNPACK_AFTER");
    if (NULL == real) {
        real = (ucs_status_t(*)(ucp_ep_h, const void *, ucp_rkey_h *)) next("ucp_ep_rkey_unpack");
    }
    if (NULL != fail_after
        && __atomic_load_n(&n_unpack, __ATOMIC_RELAXED) >= strtoul(fail_after, NULL, 10)) {
        return UCS_ERR_NO_RESOURCE;
    }
    __atomic_fetch_add(&n_unpack, 1, __ATOMIC_RELAXED);
    return real(ep, rkey_buffer, rkey_p);
}

ucs_status_t ucp_ep_create(ucp_worker_h worker, const ucp_ep_params_t *params, ucp_ep_h *ep_p)
{
    static ucs_status_t (*real)(ucp_worker_h, const ucp_ep_params_t *, ucp_ep_h *);
    if (NULL == real) {
        real = (ucs_status_t(*)(ucp_worker_h, const ucp_ep_params_t *, ucp_ep_h *)) next(
            "ucp_ep_create");
    }
    __atomic_fetch_add(&n_ep, 1, __ATOMIC_RELAXED);
    return real(worker, params, ep_p);
}

__attribute__((destructor)) static void report(void)
{
    char host[256] = "?";
    gethostname(host, sizeof(host) - 1);
    if (n_put + n_ptr_ok + n_ptr_fail > 0) {
        fprintf(stderr, "[put-counter] host %s pid %d: ucp_put_nbi=%lu ucp_rkey_ptr_ok=%lu "
                        "ucp_rkey_ptr_fail=%lu ucp_ep_rkey_unpack=%lu ucp_ep_create=%lu\n",
                host, (int) getpid(), n_put, n_ptr_ok, n_ptr_fail, n_unpack, n_ep);
    }
}
