/*
 * coll/rdma transport over UCP (see coll_rdma_ucx.h).
 */
#include "ompi_config.h"

#include "coll_rdma.h"
#include "coll_rdma_ucx.h"

#include <stdlib.h>
#include <string.h>

#include "ompi/runtime/mpiruntime.h"
#include "opal/class/opal_hash_table.h"
#include "opal/runtime/opal_progress.h"

ucp_worker_h coll_rdma_ucx_worker = NULL;

static ucp_context_h ucx_context = NULL;
static ucp_address_t *ucx_address = NULL;
static size_t ucx_address_len = 0;
static int ucx_state = OPAL_ERR_NOT_INITIALIZED; /* sticky result of the first init */
static opal_hash_table_t ucx_endpoints;          /* ompi_proc_t * -> ucp_ep_h */
static bool ucx_progress_registered = false;
static opal_mutex_t ucx_lock = OPAL_MUTEX_STATIC_INIT;

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
    return (int) ucp_worker_progress(coll_rdma_ucx_worker);
}

static int ucx_fail(const char *what, ucs_status_t status)
{
    if (mca_coll_rdma_component.verbose >= 1) {
        mca_coll_rdma_output("UCX unavailable (%s: %s); coll/rdma steps aside", what,
                             ucs_status_string(status));
    }
    return ucx_state = OMPI_ERR_NOT_AVAILABLE;
}

int coll_rdma_ucx_init(void)
{
    ucp_params_t params;
    ucp_worker_params_t wparams;
    ucp_config_t *config;
    ucs_status_t status;

    if (OPAL_ERR_NOT_INITIALIZED != ucx_state) {
        return ucx_state;
    }
    status = ucp_config_read(NULL, NULL, &config);
    if (UCS_OK != status) {
        return ucx_fail("ucp_config_read", status);
    }
    /* POSIX shared memory rather than SysV, for the windows and the worker's
     * own FIFOs, unless the user says otherwise: SysV segments are capped
     * system-wide (shmmni, 4096 by default), which a few hundred
     * communicators of 8 ranks exhaust; POSIX ones are files in /dev/shm,
     * unlinked at once. */
    if (NULL == getenv("UCX_ALLOC_PRIO")) {
        (void) ucp_config_modify(config, "ALLOC_PRIO", "md:posix,md:sysv,huge,thp,md:*,mmap,heap");
    }
    if (NULL == getenv("UCX_TLS")) {
        (void) ucp_config_modify(config, "TLS", "^sysv");
    }
    memset(&params, 0, sizeof(params));
    params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED;
    params.features = UCP_FEATURE_RMA;
    params.mt_workers_shared = ompi_mpi_thread_multiple;
    status = ucp_init(&params, config, &ucx_context);
    ucp_config_release(config);
    if (UCS_OK != status) {
        return ucx_fail("ucp_init", status);
    }
    memset(&wparams, 0, sizeof(wparams));
    wparams.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    /* threads may put and progress at once on distinct communicators */
    wparams.thread_mode = ompi_mpi_thread_multiple ? UCS_THREAD_MODE_MULTI : UCS_THREAD_MODE_SINGLE;
    status = ucp_worker_create(ucx_context, &wparams, &coll_rdma_ucx_worker);
    if (UCS_OK != status) {
        ucp_cleanup(ucx_context);
        ucx_context = NULL;
        return ucx_fail("ucp_worker_create", status);
    }
    status = ucp_worker_get_address(coll_rdma_ucx_worker, &ucx_address, &ucx_address_len);
    if (UCS_OK != status) {
        ucp_worker_destroy(coll_rdma_ucx_worker);
        ucp_cleanup(ucx_context);
        coll_rdma_ucx_worker = NULL;
        ucx_context = NULL;
        return ucx_fail("ucp_worker_get_address", status);
    }
    OBJ_CONSTRUCT(&ucx_endpoints, opal_hash_table_t);
    opal_hash_table_init(&ucx_endpoints, 64);
    return ucx_state = OMPI_SUCCESS;
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
    while (UCS_INPROGRESS == (status = ucp_request_check_status(request))) {
        ucp_worker_progress(coll_rdma_ucx_worker);
        opal_progress();
    }
    ucp_request_free(request);
    return status;
}

void coll_rdma_ucx_fini(void)
{
    uint64_t key;
    void *value, *node = NULL;
    ucp_request_param_t param;

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
            (void) ucx_wait(ucp_ep_close_nbx((ucp_ep_h) value, &param));
        } while (OPAL_SUCCESS
                 == opal_hash_table_get_next_key_uint64(&ucx_endpoints, &key, &value, node, &node));
    }
    OBJ_DESTRUCT(&ucx_endpoints);
    ucp_worker_release_address(coll_rdma_ucx_worker, ucx_address);
    ucp_worker_destroy(coll_rdma_ucx_worker);
    ucp_cleanup(ucx_context);
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
    status = ucp_ep_create(coll_rdma_ucx_worker, &params, ep);
    if (UCS_OK != status) {
        if (mca_coll_rdma_component.verbose >= 1) {
            mca_coll_rdma_output("ucp_ep_create failed: %s", ucs_status_string(status));
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
    status = ucp_mem_map(ucx_context, &params, memh);
    if (UCS_OK != status) {
        goto fail;
    }
    attr.field_mask = UCP_MEM_ATTR_FIELD_ADDRESS;
    status = ucp_mem_query(*memh, &attr);
    if (UCS_OK == status) {
        *base = attr.address;
        status = ucp_rkey_pack(ucx_context, *memh, rkey_buf, rkey_len);
    }
    if (UCS_OK != status) {
        ucp_mem_unmap(ucx_context, *memh);
        goto fail;
    }
    return OMPI_SUCCESS;
fail:
    if (mca_coll_rdma_component.verbose >= 1) {
        mca_coll_rdma_output("window of %zu bytes not allocated: %s", bytes,
                             ucs_status_string(status));
    }
    return OMPI_ERR_OUT_OF_RESOURCE;
}

void coll_rdma_ucx_mem_free(ucp_mem_h memh)
{
    ucp_mem_unmap(ucx_context, memh);
}

int coll_rdma_ucx_flush(void)
{
    ucp_request_param_t param;

    memset(&param, 0, sizeof(param));
    return UCS_OK == ucx_wait(ucp_worker_flush_nbx(coll_rdma_ucx_worker, &param)) ? OMPI_SUCCESS
                                                                                 : OMPI_ERROR;
}

int coll_rdma_ucx_flush_test(void **request, bool *done)
{
    ucs_status_t status;

    if (NULL == *request) {
        ucp_request_param_t param;
        ucs_status_ptr_t r;

        memset(&param, 0, sizeof(param));
        r = ucp_worker_flush_nbx(coll_rdma_ucx_worker, &param);
        if (UCS_PTR_IS_ERR(r)) {
            return OMPI_ERROR;
        }
        if (NULL == r) {
            *done = true;
            return OMPI_SUCCESS;
        }
        *request = r;
    }
    ucp_worker_progress(coll_rdma_ucx_worker);
    status = ucp_request_check_status(*request);
    if (UCS_INPROGRESS == status) {
        *done = false;
        return OMPI_SUCCESS;
    }
    ucp_request_free(*request);
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
