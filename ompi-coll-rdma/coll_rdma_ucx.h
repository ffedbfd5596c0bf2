/*
 * coll/rdma transport: one UCP context and worker per process (created at
 * the first window), endpoints cached per peer process, windows allocated
 * by UCX so that puts are truly one-sided (DESIGN.md section 3).
 */
#ifndef COLL_RDMA_UCX_H
#define COLL_RDMA_UCX_H

#include "ompi_config.h"

#include <stdbool.h>
#include <stddef.h>
#include <ucp/api/ucp.h>
#include <ucs/config/global_opts.h>

#include "ompi/proc/proc.h"

/*
 * Every UCX function coll/rdma calls.  The component does not link UCX:
 * coll_rdma_ucx_init() (or the start-up helper thread) loads libucp with
 * dlopen and fills coll_rdma_ucx_fns.  Linked, UCX's libraries were loaded,
 * relocated and initialized with the component, inside every MPI_Init (and
 * ompi_info), whether a window was ever set up or not: dlopen of the
 * component took 2.4 to 7 ms on the 2-core VM, 0.13 ms without them, and
 * MPI_Init at 2 ranks took 4.0 ms longer than with --mca coll ^rdma, now
 * 0.1 ms less when UCX is not started early (medians of 41 paired runs,
 * bench/setup_cost.sh).  Call them as UCX_CALL(name)(args), only after
 * coll_rdma_ucx_init() succeeded.
 */
#define COLL_RDMA_UCX_FUNCTIONS(X)                                                        \
    X(ucp_config_read) X(ucp_config_modify) X(ucp_config_release) X(ucp_init_version)     \
    X(ucp_cleanup) X(ucp_worker_create) X(ucp_worker_destroy) X(ucp_worker_get_address)   \
    X(ucp_worker_release_address) X(ucp_worker_progress) X(ucp_worker_fence)              \
    X(ucp_worker_flush_nbx) X(ucp_ep_create) X(ucp_ep_close_nbx) X(ucp_ep_rkey_unpack)    \
    X(ucp_rkey_ptr) X(ucp_rkey_pack) X(ucp_rkey_destroy) X(ucp_rkey_buffer_release)       \
    X(ucp_mem_map) X(ucp_mem_unmap) X(ucp_mem_query) X(ucp_put_nbi) X(ucp_get_nbi)        \
    X(ucp_request_check_status) X(ucp_request_free) X(ucs_status_string)                  \
    X(ucs_global_opts_set_value)

/** UCX's functions, resolved by coll_rdma_ucx_init(). */
typedef struct coll_rdma_ucx_fns {
#define COLL_RDMA_UCX_FN_POINTER(name) __typeof__(&name) name;
    COLL_RDMA_UCX_FUNCTIONS(COLL_RDMA_UCX_FN_POINTER)
#undef COLL_RDMA_UCX_FN_POINTER
} coll_rdma_ucx_fns_t;

extern coll_rdma_ucx_fns_t coll_rdma_ucx_fns;

#define UCX_CALL(name) (coll_rdma_ucx_fns.name)

/**
 * Serialize set-up and tear-down calls into UCX (context, endpoints, memory
 * registration, rkeys) between threads under MPI_THREAD_MULTIPLE; no-ops
 * otherwise.  The data path needs no lock: stores on the direct path, and a
 * worker created thread-safe for puts.  Never held across MPI calls.
 */
void coll_rdma_ucx_lock(void);
void coll_rdma_ucx_unlock(void);

/** The process-wide worker, valid after coll_rdma_ucx_init() succeeded. */
extern ucp_worker_h coll_rdma_ucx_worker;

/**
 * Create the UCP context and worker once per process.  Idempotent; a failure
 * is remembered and returned again without retrying.  If a helper thread of
 * coll_rdma_ucx_prestart() runs, waits for it and returns its result.
 * Returns OMPI_SUCCESS or OMPI_ERR_NOT_AVAILABLE (reason printed at
 * coll_rdma_verbose >= 1).  Call with the UCX lock held.
 */
int coll_rdma_ucx_init(void);

/**
 * Start a helper thread that creates the UCP context and worker, then calls
 * `then` (may be NULL; the component passes the op self-test), so that the
 * first window set-up finds them ready.  Call from MPI_Init (the component's
 * open or init_query), before any other coll/rdma code can reach UCX; later
 * calls do nothing.  The thread blocks every signal, gives way after
 * MPI_Init (coll_rdma_ucx_prestart_give_way), and ends when done;
 * coll_rdma_ucx_init() or coll_rdma_ucx_fini() joins it, and what `then`
 * wrote is visible after that.  If it cannot be created, nothing happens: coll_rdma_ucx_init()
 * starts UCX itself.
 */
void coll_rdma_ucx_prestart(void (*then)(void));

/**
 * MPI_Init is over (MPI_COMM_WORLD's module is enabled, its last step): the
 * helper, if it still runs, drops to SCHED_IDLE (once past ucp_init) so that
 * it no longer takes the application's cores.  Call from the thread that
 * called coll_rdma_ucx_prestart().
 */
void coll_rdma_ucx_prestart_give_way(void);

/** Join the helper thread if any, then close endpoints, worker and context
 * (component close). */
void coll_rdma_ucx_fini(void);

/** This worker's address (owned by the transport): *len bytes at *addr. */
void coll_rdma_ucx_worker_address(const void **addr, size_t *len);

/**
 * Endpoint to `proc` whose worker address is `addr`; created once and cached
 * per process for every communicator.  Returns OMPI_SUCCESS or OMPI_ERROR.
 * Call with the UCX lock held.
 */
int coll_rdma_ucx_ep(ompi_proc_t *proc, const void *addr, ucp_ep_h *ep);

/**
 * Allocate and register `bytes` of window memory (UCP_MEM_MAP_ALLOCATE) and
 * pack its rkey (*rkey_buf to be released with ucp_rkey_buffer_release).
 * Returns OMPI_SUCCESS or OMPI_ERR_OUT_OF_RESOURCE.
 */
int coll_rdma_ucx_mem_alloc(size_t bytes, ucp_mem_h *memh, void **base, void **rkey_buf,
                            size_t *rkey_len);

/**
 * Remote completion of every put and get this process issued, without
 * waiting: the first call (*request NULL) starts a flush of everything
 * issued so far, later calls test it; *done once it
 * completed (*request is NULL again).  Returns OMPI_SUCCESS or OMPI_ERROR.
 */
int coll_rdma_ucx_flush_test(void **request, bool *done);

/** Unregister and free window memory from coll_rdma_ucx_mem_alloc(). */
void coll_rdma_ucx_mem_free(ucp_mem_h memh);

/**
 * Ask that the worker be progressed from opal_progress(): needed once any
 * peer is reached by emulated (non-direct) RMA, whose target must progress.
 */
void coll_rdma_ucx_want_progress(void);

#endif /* COLL_RDMA_UCX_H */
