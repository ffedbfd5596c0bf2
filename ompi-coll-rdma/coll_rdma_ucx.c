/*
 * coll/rdma transport over UCP (see coll_rdma_ucx.h).
 */
#include "ompi_config.h"

#include "coll_rdma.h"
#include "coll_rdma_ucx.h"

#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "ompi/proc/proc.h"
#include "ompi/runtime/mpiruntime.h"
#include "opal/class/opal_hash_table.h"
#include "opal/runtime/opal_progress.h"
#include "opal/util/proc.h"

ucp_worker_h coll_rdma_ucx_worker = NULL;
coll_rdma_ucx_fns_t coll_rdma_ucx_fns;

static ucp_context_h ucx_context = NULL;
static ucp_address_t *ucx_address = NULL;
static size_t ucx_address_len = 0;
static int ucx_state = OPAL_ERR_NOT_INITIALIZED; /* sticky result of the first init */
static opal_hash_table_t ucx_endpoints;          /* ompi_proc_t * -> ucp_ep_h */
static bool ucx_progress_registered = false;
static opal_mutex_t ucx_lock = OPAL_MUTEX_STATIC_INIT;
/* the start-up helper (coll_rdma_ucx_prestart), until joined */
static pthread_t ucx_helper;
static bool ucx_helper_running = false; /* created and not joined yet */
static void (*ucx_helper_then)(void);   /* the caller's work after UCX */
/* MPI_Init has ended (coll_rdma_ucx_prestart_give_way), and the helper is
 * past ucp_init: whichever of the two comes second lowers the helper */
static bool ucx_helper_give_way = false;
static bool ucx_helper_past_init = false;

void coll_rdma_ucx_lock(void)
{
    OPAL_THREAD_LOCK(&ucx_lock);
}

void coll_rdma_ucx_unlock(void)
{
    OPAL_THREAD_UNLOCK(&ucx_lock);
}

static int ucx_progress(void)
{
    return (int) UCX_CALL(ucp_worker_progress)(coll_rdma_ucx_worker);
}

/* Where libucp is: configure's path (the UCX it compiled against), else the
 * loader's search path. */
#ifndef COLL_RDMA_UCP_LIBRARY
#define COLL_RDMA_UCP_LIBRARY "libucp.so.0"
#endif

/*
 * Load libucp (and with it libuct, libucs, libucm) and resolve
 * coll_rdma_ucx_fns; on failure set and return the sticky ucx_state.  Global,
 * and resolved through the global scope first, as when the component linked
 * UCX: so a library preloaded to wrap UCX calls (tests/robust/put_counter.c)
 * still sees them, and UCX's own modules find their libraries.  Never
 * closed: UCX keeps threads and handlers of its own.
 */
static int ucx_load(void)
{
    void *library = dlopen(COLL_RDMA_UCP_LIBRARY, RTLD_NOW | RTLD_GLOBAL);
    const char *missing = NULL;

    if (NULL == library) {
        library = dlopen("libucp.so.0", RTLD_NOW | RTLD_GLOBAL);
    }
    if (NULL != library) {
#define COLL_RDMA_UCX_RESOLVE(name)                                                        \
    *(void **) &coll_rdma_ucx_fns.name = dlsym(RTLD_DEFAULT, #name);                       \
    if (NULL == coll_rdma_ucx_fns.name) {                                                  \
        *(void **) &coll_rdma_ucx_fns.name = dlsym(library, #name);                        \
    }                                                                                      \
    if (NULL == coll_rdma_ucx_fns.name && NULL == missing) {                               \
        missing = #name;                                                                   \
    }
        COLL_RDMA_UCX_FUNCTIONS(COLL_RDMA_UCX_RESOLVE)
#undef COLL_RDMA_UCX_RESOLVE
    }
    if (NULL == library || NULL != missing) {
        if (mca_coll_rdma_component.verbose >= 1) {
            mca_coll_rdma_output("UCX unavailable (%s%s); coll/rdma steps aside",
                                 NULL == library ? "" : "no ",
                                 NULL == library ? dlerror() : missing);
        }
        return ucx_state = OMPI_ERR_NOT_AVAILABLE;
    }
    return OMPI_SUCCESS;
}

static int ucx_fail(const char *what, ucs_status_t status)
{
    if (mca_coll_rdma_component.verbose >= 1) {
        mca_coll_rdma_output("UCX unavailable (%s: %s); coll/rdma steps aside", what,
                             UCX_CALL(ucs_status_string)(status));
    }
    return ucx_state = OMPI_ERR_NOT_AVAILABLE;
}

/*
 * The helper gives way to the application once MPI_Init is over: SCHED_IDLE,
 * so that it runs only on idle cores and never preempts the application's
 * calls (ranks often fill every core), and a set-up that needs it waits for
 * it (the join puts the core to sleep).  During MPI_Init it shares the core
 * fairly: measured at 2 ranks on 2 cores (40 runs, UCX linked then), it
 * lengthens MPI_Init after the component's open by 2.4 ms and the set-up
 * call takes 2.0 ms; idle from ucp_init on, 1.6 and 2.9 ms.  Never
 * before ucp_init: UCX creates its async thread there, which would inherit
 * the policy, and an unprivileged process cannot undo it.  A failure leaves
 * the helper as it was.
 */
static void helper_step_aside(pthread_t thread)
{
    struct sched_param param;

    memset(&param, 0, sizeof(param));
    (void) pthread_setschedparam(thread, SCHED_IDLE, &param);
}

/* Whether this node has RDMA devices (InfiniBand, RoCE, iWARP). */
static bool rdma_devices_present(void)
{
    DIR *dir = opendir("/sys/class/infiniband");
    struct dirent *entry;
    bool found = false;

    if (NULL == dir) {
        return false;
    }
    while (!found && NULL != (entry = readdir(dir))) {
        found = '.' != entry->d_name[0];
    }
    closedir(dir);
    return found;
}

/* Create context and worker; sets and returns the sticky ucx_state.  In the
 * helper (`helper`), steps aside once the context exists. */
static int ucx_start(bool helper)
{
    ucp_params_t params;
    ucp_worker_params_t wparams;
    ucp_config_t *config;
    ucs_status_t status;
    /* every process of the job on this node: no communicator (short of
     * MPI_Comm_spawn and friends) needs a network */
    bool one_node = (size_t) opal_process_info.num_local_peers + 1 >= (size_t) ompi_proc_world_size();

    if (OMPI_SUCCESS != ucx_load()) {
        return ucx_state;
    }

    /* Without RDMA devices UCX's ib and rdmacm modules find nothing, but
     * loading them (verbs, its providers, netlink) was half of ucp_init
     * (1.5 of 3 ms).  The module list is process-wide: set only where no
     * UCX user in the process could want them, and never over the user's
     * UCX_MODULES; modules load once per process, so where another UCX user
     * came first this changes nothing. */
    if (NULL == getenv("UCX_MODULES") && !rdma_devices_present()) {
        (void) UCX_CALL(ucs_global_opts_set_value)("MODULES", "^ib,rdmacm");
    }
    status = UCX_CALL(ucp_config_read)(NULL, NULL, &config);
    if (UCS_OK != status) {
        return ucx_fail("ucp_config_read", status);
    }
    /* POSIX shared memory rather than SysV, for the windows and the worker's
     * own FIFOs, unless the user says otherwise: SysV segments are capped
     * system-wide (shmmni, 4096 by default), which a few hundred
     * communicators of 8 ranks exhaust; POSIX ones are files in /dev/shm,
     * unlinked at once. */
    if (NULL == getenv("UCX_ALLOC_PRIO")) {
        (void) UCX_CALL(ucp_config_modify)(config, "ALLOC_PRIO",
                                           "md:posix,md:sysv,huge,thp,md:*,mmap,heap");
    }
    /* On one node, shared memory only: the network transports' interfaces
     * (TCP on every device) took 1 of the worker's 2.2 ms.  A communicator
     * with processes elsewhere (MPI_Comm_spawn) then cannot connect and
     * falls back; UCX_TLS overrides. */
    if (NULL == getenv("UCX_TLS")) {
        (void) UCX_CALL(ucp_config_modify)(config, "TLS", one_node ? "posix,cma,self" : "^sysv");
    }
    /* The shared-memory transport's receive buffers serve only wire-up and
     * emulated operations here (windows are mapped or reached by puts);
     * growing them 32 at a time instead of 512 halves the worker's creation
     * (4.4 to 2.0 ms at 2 ranks) and its destruction. */
    if (NULL == getenv("UCX_MM_RX_BUFS_GROW") && NULL == getenv("UCX_POSIX_RX_BUFS_GROW")) {
        (void) UCX_CALL(ucp_config_modify)(config, "MM_RX_BUFS_GROW", "32");
    }
    memset(&params, 0, sizeof(params));
    params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED;
    params.features = UCP_FEATURE_RMA;
    params.mt_workers_shared = ompi_mpi_thread_multiple;
    /* ucp_init() is an inline wrapper of this */
    status = UCX_CALL(ucp_init_version)(UCP_API_MAJOR, UCP_API_MINOR, &params, config,
                                        &ucx_context);
    UCX_CALL(ucp_config_release)(config);
    if (UCS_OK != status) {
        return ucx_fail("ucp_init", status);
    }
    if (helper) {
        __atomic_store_n(&ucx_helper_past_init, true, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&ucx_helper_give_way, __ATOMIC_SEQ_CST)) {
            helper_step_aside(pthread_self());
        }
    }
    memset(&wparams, 0, sizeof(wparams));
    wparams.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    /* threads may put and progress at once on distinct communicators */
    wparams.thread_mode = ompi_mpi_thread_multiple ? UCS_THREAD_MODE_MULTI : UCS_THREAD_MODE_SINGLE;
    status = UCX_CALL(ucp_worker_create)(ucx_context, &wparams, &coll_rdma_ucx_worker);
    if (UCS_OK != status) {
        UCX_CALL(ucp_cleanup)(ucx_context);
        ucx_context = NULL;
        return ucx_fail("ucp_worker_create", status);
    }
    status = UCX_CALL(ucp_worker_get_address)(coll_rdma_ucx_worker, &ucx_address, &ucx_address_len);
    if (UCS_OK != status) {
        UCX_CALL(ucp_worker_destroy)(coll_rdma_ucx_worker);
        UCX_CALL(ucp_cleanup)(ucx_context);
        coll_rdma_ucx_worker = NULL;
        ucx_context = NULL;
        return ucx_fail("ucp_worker_get_address", status);
    }
    OBJ_CONSTRUCT(&ucx_endpoints, opal_hash_table_t);
    opal_hash_table_init(&ucx_endpoints, 64);
    return ucx_state = OMPI_SUCCESS;
}

static void *ucx_helper_main(void *arg)
{
    (void) arg;
    (void) ucx_start(true);
    if (NULL != ucx_helper_then) {
        ucx_helper_then();
    }
    return NULL;
}

void coll_rdma_ucx_prestart(void (*then)(void))
{
    sigset_t all, old;

    if (ucx_helper_running || OPAL_ERR_NOT_INITIALIZED != ucx_state) {
        return;
    }
    ucx_helper_then = then;
    /* Signals stay with the application's threads: the helper blocks all. */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    ucx_helper_running = 0 == pthread_create(&ucx_helper, NULL, ucx_helper_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void coll_rdma_ucx_prestart_give_way(void)
{
    if (ucx_helper_running) {
        __atomic_store_n(&ucx_helper_give_way, true, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&ucx_helper_past_init, __ATOMIC_SEQ_CST)) {
            helper_step_aside(ucx_helper);
        }
    }
}

/* Wait for the helper, if one runs: afterwards ucx_state and the self-test
 * results it wrote are visible to this thread. */
static void ucx_join_helper(void)
{
    if (ucx_helper_running) {
        (void) pthread_join(ucx_helper, NULL);
        ucx_helper_running = false;
    }
}

int coll_rdma_ucx_init(void)
{
    ucx_join_helper();
    if (OPAL_ERR_NOT_INITIALIZED != ucx_state) {
        return ucx_state;
    }
    return ucx_start(false);
}

/* Drive a non-blocking UCP request to completion. */
static ucs_status_t ucx_wait(ucs_status_ptr_t request)
{
    ucs_status_t status;

    if (NULL == request) {
        return UCS_OK;
    }
    if (UCS_PTR_IS_ERR(request)) {
        return UCS_PTR_STATUS(request);
    }
    while (UCS_INPROGRESS == (status = UCX_CALL(ucp_request_check_status)(request))) {
        UCX_CALL(ucp_worker_progress)(coll_rdma_ucx_worker);
        opal_progress();
    }
    UCX_CALL(ucp_request_free)(request);
    return status;
}

void coll_rdma_ucx_fini(void)
{
    uint64_t key;
    void *value, *node = NULL;
    ucp_request_param_t param;

    ucx_join_helper();
    if (OMPI_SUCCESS != ucx_state) {
        return;
    }
    if (ucx_progress_registered) {
        opal_progress_unregister(ucx_progress);
        ucx_progress_registered = false;
    }
    memset(&param, 0, sizeof(param));
    param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    param.flags = UCP_EP_CLOSE_FLAG_FORCE;
    if (OPAL_SUCCESS == opal_hash_table_get_first_key_uint64(&ucx_endpoints, &key, &value, &node)) {
        do {
            (void) ucx_wait(UCX_CALL(ucp_ep_close_nbx)((ucp_ep_h) value, &param));
        } while (OPAL_SUCCESS
                 == opal_hash_table_get_next_key_uint64(&ucx_endpoints, &key, &value, node, &node));
    }
    OBJ_DESTRUCT(&ucx_endpoints);
    UCX_CALL(ucp_worker_release_address)(coll_rdma_ucx_worker, ucx_address);
    UCX_CALL(ucp_worker_destroy)(coll_rdma_ucx_worker);
    UCX_CALL(ucp_cleanup)(ucx_context);
    coll_rdma_ucx_worker = NULL;
    ucx_context = NULL;
    ucx_address = NULL;
    ucx_state = OPAL_ERR_NOT_INITIALIZED;
}

void coll_rdma_ucx_worker_address(const void **addr, size_t *len)
{
    *addr = ucx_address;
    *len = ucx_address_len;
}

int coll_rdma_ucx_ep(ompi_proc_t *proc, const void *addr, ucp_ep_h *ep)
{
    uint64_t key = (uint64_t) (uintptr_t) proc;
    ucp_ep_params_t params;
    void *value;
    ucs_status_t status;

    if (OPAL_SUCCESS == opal_hash_table_get_value_uint64(&ucx_endpoints, key, &value)) {
        *ep = (ucp_ep_h) value;
        return OMPI_SUCCESS;
    }
    memset(&params, 0, sizeof(params));
    params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
    params.address = (const ucp_address_t *) addr;
    status = UCX_CALL(ucp_ep_create)(coll_rdma_ucx_worker, &params, ep);
    if (UCS_OK != status) {
        if (mca_coll_rdma_component.verbose >= 1) {
            mca_coll_rdma_output("ucp_ep_create failed: %s", UCX_CALL(ucs_status_string)(status));
        }
        return OMPI_ERROR;
    }
    opal_hash_table_set_value_uint64(&ucx_endpoints, key, *ep);
    return OMPI_SUCCESS;
}

int coll_rdma_ucx_mem_alloc(size_t bytes, ucp_mem_h *memh, void **base, void **rkey_buf,
                            size_t *rkey_len)
{
    ucp_mem_map_params_t params;
    ucp_mem_attr_t attr;
    ucs_status_t status;

    memset(&params, 0, sizeof(params));
    params.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH
                        | UCP_MEM_MAP_PARAM_FIELD_FLAGS;
    params.address = NULL;
    params.length = bytes;
    params.flags = UCP_MEM_MAP_ALLOCATE;
    status = UCX_CALL(ucp_mem_map)(ucx_context, &params, memh);
    if (UCS_OK != status) {
        goto fail;
    }
    attr.field_mask = UCP_MEM_ATTR_FIELD_ADDRESS;
    status = UCX_CALL(ucp_mem_query)(*memh, &attr);
    if (UCS_OK == status) {
        *base = attr.address;
        status = UCX_CALL(ucp_rkey_pack)(ucx_context, *memh, rkey_buf, rkey_len);
    }
    if (UCS_OK != status) {
        UCX_CALL(ucp_mem_unmap)(ucx_context, *memh);
        goto fail;
    }
    return OMPI_SUCCESS;
fail:
    if (mca_coll_rdma_component.verbose >= 1) {
        mca_coll_rdma_output("window of %zu bytes not allocated: %s", bytes,
                             UCX_CALL(ucs_status_string)(status));
    }
    return OMPI_ERR_OUT_OF_RESOURCE;
}

void coll_rdma_ucx_mem_free(ucp_mem_h memh)
{
    UCX_CALL(ucp_mem_unmap)(ucx_context, memh);
}

int coll_rdma_ucx_flush_test(void **request, bool *done)
{
    ucs_status_t status;

    if (NULL == *request) {
        ucp_request_param_t param;
        ucs_status_ptr_t r;

        memset(&param, 0, sizeof(param));
        r = UCX_CALL(ucp_worker_flush_nbx)(coll_rdma_ucx_worker, &param);
        if (UCS_PTR_IS_ERR(r)) {
            return OMPI_ERROR;
        }
        if (NULL == r) {
            *done = true;
            return OMPI_SUCCESS;
        }
        *request = r;
    }
    UCX_CALL(ucp_worker_progress)(coll_rdma_ucx_worker);
    status = UCX_CALL(ucp_request_check_status)(*request);
    if (UCS_INPROGRESS == status) {
        *done = false;
        return OMPI_SUCCESS;
    }
    UCX_CALL(ucp_request_free)(*request);
    *request = NULL;
    *done = true;
    return UCS_OK == status ? OMPI_SUCCESS : OMPI_ERROR;
}

void coll_rdma_ucx_want_progress(void)
{
    if (!ucx_progress_registered) {
        opal_progress_register(ucx_progress);
        ucx_progress_registered = true;
    }
}
