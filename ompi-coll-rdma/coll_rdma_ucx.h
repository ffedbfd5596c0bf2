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

#include "ompi/proc/proc.h"

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
 * Wait until every put and get issued by this process completed remotely.
 * Returns OMPI_SUCCESS or OMPI_ERROR.
 */
int coll_rdma_ucx_flush(void);

/** Unregister and free window memory from coll_rdma_ucx_mem_alloc(). */
void coll_rdma_ucx_mem_free(ucp_mem_h memh);

/**
 * Ask that the worker be progressed from opal_progress(): needed once any
 * peer is reached by emulated (non-direct) RMA, whose target must progress.
 */
void coll_rdma_ucx_want_progress(void);

#endif /* COLL_RDMA_UCX_H */
