/*
 * coll/rdma transport over UCP, the process's start (see coll_rdma_ucx.h):
 * UCX loaded with dlopen in steps, its context and worker, the lock every
 * UCX call is made under, and the end.  The seam under the window (memory,
 * addresses, endpoints, puts) is coll_rdma_ucx.c.
 */
#include "ompi_config.h"

#include "coll_rdma_config.h"
#include "coll_rdma_ucx_start.h"

#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "ompi/proc/proc.h"
#include "ompi/runtime/mpiruntime.h"
#include "opal/class/opal_hash_table.h"
#include "opal/runtime/opal_progress.h"
#include "opal/util/proc.h"

ucp_worker_h coll_rdma_ucx_worker = NULL;
coll_rdma_ucx_fns_t coll_rdma_ucx_fns;

ucp_context_h coll_rdma_ucx_context = NULL;
ucp_address_t *coll_rdma_ucx_address = NULL;
size_t coll_rdma_ucx_address_len = 0;
static int ucx_state = OPAL_ERR_NOT_INITIALIZED; /* sticky result of the first init */
opal_hash_table_t coll_rdma_ucx_endpoints; /* ompi_proc_t * -> coll_rdma_ucx_peer_t * */
coll_rdma_ucx_peer_t *coll_rdma_ucx_retired = NULL;

bool coll_rdma_ucx_progress_registered = false;
opal_mutex_t coll_rdma_ucx_mutex = OPAL_MUTEX_STATIC_INIT;
/* how far the start has come (coll_rdma_ucx_start_step) */
static enum {
    UCX_STEP_LOAD_UCS,
    UCX_STEP_LOAD,
    UCX_STEP_CONTEXT,
    UCX_STEP_WORKER
} ucx_step = UCX_STEP_LOAD_UCS;
_Static_assert(UCX_STEP_WORKER + 1 == COLL_RDMA_UCX_START_STEPS, "coll_rdma_ucx.h's step count");

void coll_rdma_ucx_lock(void)
{
    OPAL_THREAD_LOCK(&coll_rdma_ucx_mutex);
}

void coll_rdma_ucx_unlock(void)
{
    OPAL_THREAD_UNLOCK(&coll_rdma_ucx_mutex);
}

int coll_rdma_ucx_progress_cb(void)
{
    return (int) UCX_CALL(ucp_worker_progress)(coll_rdma_ucx_worker);
}

/* Where libucp is: configure's path (the UCX it compiled against), else the
 * loader's search path. */
#ifndef COLL_RDMA_UCP_LIBRARY
#define COLL_RDMA_UCP_LIBRARY "libucp.so.0"
#endif

/*
 * The first step of loading: libucs (with libucm), about two thirds of the
 * time of loading UCX (its constructor reads the configuration, measures
 * the clock),
 * where configure found it beside libucp and that libucp is still there: a
 * libucs from elsewhere would stand in for the one libucp needs.  Not
 * closed, like libucp.  Nothing where configure found no such pair: then
 * ucx_load() loads everything at once.
 */
static void ucx_load_ucs(void)
{
#ifdef COLL_RDMA_UCS_LIBRARY
    if (0 == access(COLL_RDMA_UCP_LIBRARY, F_OK)) {
        (void) dlopen(COLL_RDMA_UCS_LIBRARY, RTLD_NOW | RTLD_GLOBAL);
    }
#endif
}

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
        if (coll_rdma_verbose(1)) {
            coll_rdma_output("UCX unavailable (%s%s); coll/rdma steps aside",
                             NULL == library ? "" : "no ",
                             NULL == library ? dlerror() : missing);
        }
        return ucx_state = OMPI_ERR_NOT_AVAILABLE;
    }
    return OMPI_SUCCESS;
}

static int ucx_fail(const char *what, ucs_status_t status)
{
    if (coll_rdma_verbose(1)) {
        coll_rdma_output("UCX unavailable (%s: %s); coll/rdma steps aside", what,
                         UCX_CALL(ucs_status_string)(status));
    }
    return ucx_state = OMPI_ERR_NOT_AVAILABLE;
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

/* The UCP context, with this component's settings (below); on failure sets
 * and returns the sticky ucx_state. */
static int ucx_start_context(void)
{
    ucp_params_t params;
    ucp_config_t *config;
    ucs_status_t status;
    /* every process of the job on this node: no communicator (short of
     * MPI_Comm_spawn and friends) needs a network */
    bool one_node = (size_t) opal_process_info.num_local_peers + 1 >= (size_t) ompi_proc_world_size();

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
     * emulated operations here (windows are mapped or reached by puts), and
     * UCX writes every byte of them when it creates the worker (to find a
     * full /dev/shm early): 32 buffers at a time instead of 512 (worker
     * creation 4.4 to 2.0 ms at 2 ranks), of 2 KiB instead of 8 KiB (a
     * further 0.6 to 0.25 ms in a loop of creations); larger messages are
     * fragmented by UCX. */
    if (NULL == getenv("UCX_MM_RX_BUFS_GROW") && NULL == getenv("UCX_POSIX_RX_BUFS_GROW")) {
        (void) UCX_CALL(ucp_config_modify)(config, "MM_RX_BUFS_GROW", "32");
    }
    if (NULL == getenv("UCX_MM_SEG_SIZE") && NULL == getenv("UCX_POSIX_SEG_SIZE")) {
        (void) UCX_CALL(ucp_config_modify)(config, "MM_SEG_SIZE", "2k");
    }
    /* Under MPI_THREAD_MULTIPLE every thread waiting in a call progresses
     * the one worker; with UCX's default spinlock, 2 namespace hosts x 2
     * ranks x 3 threads on 2 cores spun for minutes in ucp_worker_progress
     * (the lock's holder preempted by spinners), with a mutex the same run
     * took 12 s (tests/robust netns-2hosts-x2-threads). */
    if (ompi_mpi_thread_multiple && NULL == getenv("UCX_USE_MT_MUTEX")) {
        (void) UCX_CALL(ucp_config_modify)(config, "USE_MT_MUTEX", "y");
    }
    memset(&params, 0, sizeof(params));
    params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED;
    params.features = UCP_FEATURE_RMA;
    params.mt_workers_shared = ompi_mpi_thread_multiple;
    /* ucp_init() is an inline wrapper of this */
    status = UCX_CALL(ucp_init_version)(UCP_API_MAJOR, UCP_API_MINOR, &params, config,
                                        &coll_rdma_ucx_context);
    UCX_CALL(ucp_config_release)(config);
    if (UCS_OK != status) {
        return ucx_fail("ucp_init", status);
    }
    return OMPI_SUCCESS;
}

/* The worker and its address; on failure cleans the context up and sets and
 * returns the sticky ucx_state. */
static int ucx_start_worker(void)
{
    ucp_worker_params_t wparams;
    const char *what = "ucp_worker_create";
    ucs_status_t status;

    memset(&wparams, 0, sizeof(wparams));
    wparams.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    /* threads may put and progress at once on distinct communicators */
    wparams.thread_mode = ompi_mpi_thread_multiple ? UCS_THREAD_MODE_MULTI : UCS_THREAD_MODE_SINGLE;
    status = UCX_CALL(ucp_worker_create)(coll_rdma_ucx_context, &wparams, &coll_rdma_ucx_worker);
    if (UCS_OK == status) {
        what = "ucp_worker_get_address";
        status = UCX_CALL(ucp_worker_get_address)(coll_rdma_ucx_worker, &coll_rdma_ucx_address,
                                                  &coll_rdma_ucx_address_len);
        if (UCS_OK != status) {
            UCX_CALL(ucp_worker_destroy)(coll_rdma_ucx_worker);
        }
    }
    if (UCS_OK != status) {
        UCX_CALL(ucp_cleanup)(coll_rdma_ucx_context);
        coll_rdma_ucx_worker = NULL;
        coll_rdma_ucx_context = NULL;
        return ucx_fail(what, status);
    }
    OBJ_CONSTRUCT(&coll_rdma_ucx_endpoints, opal_hash_table_t);
    opal_hash_table_init(&coll_rdma_ucx_endpoints, 64);
    return ucx_state = OMPI_SUCCESS;
}

/* Each step sets the sticky ucx_state where it fails; the last sets it
 * where all succeeded. */
bool coll_rdma_ucx_start_step(void)
{
    if (OPAL_ERR_NOT_INITIALIZED != ucx_state) {
        return false;
    }
    switch (ucx_step++) {
    case UCX_STEP_LOAD_UCS:
        ucx_load_ucs();
        break;
    case UCX_STEP_LOAD:
        (void) ucx_load();
        break;
    case UCX_STEP_CONTEXT:
        (void) ucx_start_context();
        break;
    default:
        (void) ucx_start_worker();
        break;
    }
    return true;
}

int coll_rdma_ucx_init(void)
{
    while (coll_rdma_ucx_start_step()) {
    }
    return ucx_state;
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

/* A peer's endpoint closed (where one was made), the peer freed. */
static void peer_close(coll_rdma_ucx_peer_t *peer, const ucp_request_param_t *param)
{
    if (NULL != peer->ep) {
        (void) ucx_wait(UCX_CALL(ucp_ep_close_nbx)(peer->ep, param));
    }
    free(peer);
}

void coll_rdma_ucx_fini(void)
{
    uint64_t key;
    void *value, *node = NULL;
    ucp_request_param_t param;

    if (OMPI_SUCCESS != ucx_state) {
        if (OPAL_ERR_NOT_INITIALIZED == ucx_state && NULL != coll_rdma_ucx_context) {
            /* closed between the steps of the start: the context, no worker */
            UCX_CALL(ucp_cleanup)(coll_rdma_ucx_context);
            coll_rdma_ucx_context = NULL;
            ucx_step = UCX_STEP_CONTEXT;
        }
        return;
    }
    if (coll_rdma_ucx_progress_registered) {
        opal_progress_unregister(coll_rdma_ucx_progress_cb);
        coll_rdma_ucx_progress_registered = false;
    }
    memset(&param, 0, sizeof(param));
    param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    param.flags = UCP_EP_CLOSE_FLAG_FORCE;
    if (OPAL_SUCCESS == opal_hash_table_get_first_key_uint64(&coll_rdma_ucx_endpoints, &key, &value, &node)) {
        do {
            peer_close(value, &param);
        } while (OPAL_SUCCESS
                 == opal_hash_table_get_next_key_uint64(&coll_rdma_ucx_endpoints, &key, &value, node, &node));
    }
    while (NULL != coll_rdma_ucx_retired) {
        coll_rdma_ucx_peer_t *peer = coll_rdma_ucx_retired;
        coll_rdma_ucx_retired = peer->retired;
        peer_close(peer, &param);
    }
    OBJ_DESTRUCT(&coll_rdma_ucx_endpoints);
    UCX_CALL(ucp_worker_release_address)(coll_rdma_ucx_worker, coll_rdma_ucx_address);
    UCX_CALL(ucp_worker_destroy)(coll_rdma_ucx_worker);
    UCX_CALL(ucp_cleanup)(coll_rdma_ucx_context);
    coll_rdma_ucx_worker = NULL;
    coll_rdma_ucx_context = NULL;
    coll_rdma_ucx_address = NULL;
    ucx_state = OPAL_ERR_NOT_INITIALIZED;
    ucx_step = UCX_STEP_LOAD_UCS;
}

