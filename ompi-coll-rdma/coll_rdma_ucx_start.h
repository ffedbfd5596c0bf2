/*
 * coll/rdma transport, the process's start (coll_rdma_ucx_start.c): one UCP
 * context and worker per process, started in steps at a communicator's
 * warm-up calls, UCX loaded with dlopen, the lock every UCX call is made
 * under; and the process's UCX state, which the seam (coll_rdma_ucx.c)
 * uses.
 */
#ifndef COLL_RDMA_UCX_START_H
#define COLL_RDMA_UCX_START_H

#include "ompi_config.h"

#include <stdbool.h>
#include <stddef.h>
#include <ucp/api/ucp.h>
#include <ucs/config/global_opts.h>

#include "coll_rdma_compat.h"

#include "opal/class/opal_hash_table.h"

/*
 * Every UCX function coll/rdma calls.  The component does not link UCX:
 * coll_rdma_ucx_init() or its first step loads libucp with dlopen and
 * fills coll_rdma_ucx_fns.  Linked, UCX's libraries were loaded,
 * relocated and initialized with the component, inside every MPI_Init (and
 * ompi_info), whether a window was ever set up or not: dlopen of the
 * component took 2.4 to 7 ms on the 2-core VM, 0.13 ms without them, and
 * MPI_Init at 2 ranks took 4.0 ms longer than with --mca coll ^rdma, now
 * 0.1 ms less (medians of 41 paired runs, bench/setup_cost.sh).  Call them as UCX_CALL(name)(args), only after
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
    X(ucs_global_opts_set_value) X(ucp_ep_print_info)

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

/**
 * Create the UCP context and worker once per process: the steps of
 * coll_rdma_ucx_start_step() that remain.  Idempotent; a failure is
 * remembered and returned again without retrying.  Returns OMPI_SUCCESS or
 * OMPI_ERR_NOT_AVAILABLE (reason printed at coll_rdma_verbose >= 1).  Call
 * with the UCX lock held.
 */
int coll_rdma_ucx_init(void);

/**
 * Take the next step of this process's UCX start, if one remains: load
 * libucp (about 1 ms at first), create the context (1 ms), create the worker
 * (0.5-1 ms), so that the warm-up calls before a first window set-up can
 * share the cost instead of one call paying for all of it.  Returns false,
 * doing nothing, once the start is over (succeeded or failed; see
 * coll_rdma_ucx_init()).  Call with the UCX lock held.
 */
bool coll_rdma_ucx_start_step(void);

/** How many steps coll_rdma_ucx_start_step() takes at most. */
#define COLL_RDMA_UCX_START_STEPS 4

/** Close endpoints, worker and context (component close). */
void coll_rdma_ucx_fini(void);

/* ---- the process's UCX state (the transport's own) ---------------------------- */

/* A peer process as this process knows it, for every communicator: its
 * worker address (from the first set-up that carried it), its endpoint once
 * a window of it was attached, and whether it said that it holds this
 * process's worker address (coll_rdma_ucx.h, "Worker addresses"). */
typedef struct coll_rdma_ucx_peer {
    ucp_ep_h ep;        /* NULL until the first attach */
    int emulated;       /* rma_emulated(ep) once asked (a peer not mapped), else -1 */
    bool holds_mine;    /* it has this process's worker address: set-ups omit it */
    struct coll_rdma_ucx_peer *retired; /* the next in coll_rdma_ucx_retired */
    size_t address_len;
    char address[];     /* its worker address */
} coll_rdma_ucx_peer_t;

extern ucp_context_h coll_rdma_ucx_context;
extern ucp_worker_h coll_rdma_ucx_worker;
extern ucp_address_t *coll_rdma_ucx_address; /* the worker's */
extern size_t coll_rdma_ucx_address_len;
extern opal_hash_table_t coll_rdma_ucx_endpoints; /* ompi_proc_t * -> coll_rdma_ucx_peer_t *: the peers known */
/* peers replaced by a new address of their process (it started UCX again):
 * their endpoints are closed with the others at the end */
extern coll_rdma_ucx_peer_t *coll_rdma_ucx_retired;
extern bool coll_rdma_ucx_progress_registered;    /* coll_rdma_ucx_progress_cb in opal_progress */
extern opal_mutex_t coll_rdma_ucx_mutex;

/** Progress the worker (an opal_progress callback once registered). */
int coll_rdma_ucx_progress_cb(void);

#endif /* COLL_RDMA_UCX_START_H */
