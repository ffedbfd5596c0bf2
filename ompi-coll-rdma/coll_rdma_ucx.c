/*
 * coll/rdma transport over UCP, the seam under the window (see
 * coll_rdma_ucx.h): window memory, the address a peer needs, endpoints
 * cached per peer process, rkeys, put-with-signal, get, flush, progress.
 * The process's start is coll_rdma_ucx_start.c.
 */
#include "ompi_config.h"

#include "coll_rdma_config.h"
#include "coll_rdma_ucx.h"

#include <stdlib.h>
#include <string.h>

#include "ompi/proc/proc.h"
#include "opal/runtime/opal_progress.h"

/* ---- the seam under the window -------------------------------------------------- */

static coll_rdma_ucx_peer_t *peer_find(ompi_proc_t *proc)
{
    void *value;

    return OPAL_SUCCESS == opal_hash_table_get_value_uint64(&coll_rdma_ucx_endpoints,
                                                            (uint64_t) (uintptr_t) proc, &value)
               ? value
               : NULL;
}

bool coll_rdma_ucx_peer_known(ompi_proc_t *proc)
{
    return NULL != peer_find(proc);
}

bool coll_rdma_ucx_peer_holds_mine(ompi_proc_t *proc)
{
    coll_rdma_ucx_peer_t *peer = peer_find(proc);

    return NULL != peer && peer->holds_mine;
}

int coll_rdma_ucx_peer_learn(ompi_proc_t *proc, const void *address, size_t len, bool holds_mine)
{
    coll_rdma_ucx_peer_t *peer = peer_find(proc);

    coll_rdma_ucx_peer_t *old = peer;

    if (NULL == peer && NULL == address) {
        return OMPI_ERR_NOT_FOUND; /* a peer that omits what this process lacks */
    }
    /* A new peer, or one whose address changed: the process started UCX
     * again (MPI sessions: its component closed and opened), so it holds
     * none of this process's addresses any more either.  The old endpoint
     * is closed at the end (communicators of the old process may still
     * name it). */
    if (NULL == peer
        || (NULL != address
            && (len != peer->address_len || 0 != memcmp(address, peer->address, len)))) {
        peer = malloc(sizeof(*peer) + len);
        if (NULL == peer) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        peer->ep = NULL;
        peer->emulated = -1;
        peer->retired = NULL;
        peer->address_len = len;
        memcpy(peer->address, address, len);
        if (OPAL_SUCCESS != opal_hash_table_set_value_uint64(&coll_rdma_ucx_endpoints,
                                                             (uint64_t) (uintptr_t) proc, peer)) {
            free(peer);
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        if (NULL != old) {
            old->retired = coll_rdma_ucx_retired;
            coll_rdma_ucx_retired = old;
        }
    }
    /* its latest word: a record filled before it learned this process's
     * address may come after one filled since (set-ups of two communicators
     * end in either order), which costs only an address sent once more */
    peer->holds_mine = holds_mine;
    return OMPI_SUCCESS;
}

size_t coll_rdma_ucx_worker_address(const void **address)
{
    *address = coll_rdma_ucx_address;
    return coll_rdma_ucx_address_len;
}

/* The known peer `proc` with its endpoint, created at its first attach and
 * kept for every communicator.  NULL on failure (or a peer not known). */
static coll_rdma_ucx_peer_t *endpoint(ompi_proc_t *proc)
{
    coll_rdma_ucx_peer_t *peer = peer_find(proc);
    ucp_ep_params_t params;
    ucs_status_t status;

    if (NULL == peer || NULL != peer->ep) {
        return peer;
    }
    memset(&params, 0, sizeof(params));
    params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
    params.address = (const ucp_address_t *) peer->address;
    status = UCX_CALL(ucp_ep_create)(coll_rdma_ucx_worker, &params, &peer->ep);
    if (UCS_OK != status) {
        if (coll_rdma_verbose(1)) {
            coll_rdma_output("ucp_ep_create failed: %s", UCX_CALL(ucs_status_string)(status));
        }
        peer->ep = NULL;
        return NULL;
    }
    return peer;
}

/* Window memory mapped by this process (UCX lock held). */
static size_t mapped_bytes = 0;

size_t coll_rdma_ucx_mapped(void)
{
    return mapped_bytes;
}

int coll_rdma_ucx_mem_alloc(size_t bytes, coll_rdma_ucx_mem_t *mem, void **base)
{
    ucp_mem_map_params_t params;
    ucp_mem_attr_t attr;
    ucs_status_t status;

    memset(mem, 0, sizeof(*mem));
    memset(&params, 0, sizeof(params));
    params.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH
                        | UCP_MEM_MAP_PARAM_FIELD_FLAGS;
    params.address = NULL;
    params.length = bytes;
    params.flags = UCP_MEM_MAP_ALLOCATE;
    status = UCX_CALL(ucp_mem_map)(coll_rdma_ucx_context, &params, &mem->memh);
    if (UCS_OK != status) {
        goto fail;
    }
    attr.field_mask = UCP_MEM_ATTR_FIELD_ADDRESS;
    status = UCX_CALL(ucp_mem_query)(mem->memh, &attr);
    if (UCS_OK == status) {
        *base = attr.address;
        status = UCX_CALL(ucp_rkey_pack)(coll_rdma_ucx_context, mem->memh, &mem->rkey_buf, &mem->rkey_len);
    }
    if (UCS_OK != status) {
        UCX_CALL(ucp_mem_unmap)(coll_rdma_ucx_context, mem->memh);
        mem->memh = NULL;
        goto fail;
    }
    mem->bytes = bytes;
    mapped_bytes += bytes;
    return OMPI_SUCCESS;
fail:
    if (coll_rdma_verbose(1)) {
        coll_rdma_output("window of %zu bytes not allocated: %s", bytes,
                         UCX_CALL(ucs_status_string)(status));
    }
    return OMPI_ERR_OUT_OF_RESOURCE;
}

int coll_rdma_ucx_mem_repack(coll_rdma_ucx_mem_t *mem)
{
    if (NULL != mem->rkey_buf) {
        return OMPI_SUCCESS;
    }
    return UCS_OK == UCX_CALL(ucp_rkey_pack)(coll_rdma_ucx_context, mem->memh, &mem->rkey_buf,
                                             &mem->rkey_len)
               ? OMPI_SUCCESS
               : OMPI_ERR_OUT_OF_RESOURCE;
}

void coll_rdma_ucx_mem_free(coll_rdma_ucx_mem_t *mem)
{
    coll_rdma_ucx_address_done(mem);
    if (NULL != mem->memh) {
        UCX_CALL(ucp_mem_unmap)(coll_rdma_ucx_context, mem->memh);
        mem->memh = NULL;
        mapped_bytes -= mem->bytes;
        mem->bytes = 0;
    }
}

/* Address: uint64 base, uint64 rkey length, rkey (the worker address
 * travels apart: coll_rdma_ucx_peer_learn()). */
size_t coll_rdma_ucx_address_size(const coll_rdma_ucx_mem_t *mem)
{
    return 2 * sizeof(uint64_t) + mem->rkey_len;
}

void coll_rdma_ucx_address_pack(const coll_rdma_ucx_mem_t *mem, const void *base, void *blob)
{
    uint64_t head[2] = {(uint64_t) (uintptr_t) base, mem->rkey_len};
    char *p = blob;

    memcpy(p, head, sizeof(head));
    memcpy(p + sizeof(head), mem->rkey_buf, mem->rkey_len);
}

void coll_rdma_ucx_address_done(coll_rdma_ucx_mem_t *mem)
{
    if (NULL != mem->rkey_buf) {
        UCX_CALL(ucp_rkey_buffer_release)(mem->rkey_buf);
        mem->rkey_buf = NULL;
    }
}

/*
 * Whether UCX emulates puts on `ep`: no lane of its configuration is an RMA
 * lane.  UCX 1.13 to 1.18 say so only in ucp_ep_print_info()'s lane lines
 * (" rma#N" on an RMA lane); where the text cannot be had, say no (hardware
 * RMA assumed, as before this check).
 */
static bool rma_emulated(ucp_ep_h ep)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    bool emulated = false;

    if (NULL == f) {
        return false;
    }
    UCX_CALL(ucp_ep_print_info)(ep, f);
    fclose(f);
    emulated = NULL != text && NULL != strstr(text, "lane[") && NULL == strstr(text, " rma#");
    free(text);
    return emulated;
}

int coll_rdma_ucx_attach(ompi_proc_t *proc, const void *blob, coll_rdma_ucx_remote_t *remote,
                         char **direct)
{
    const char *p = blob;
    uint64_t head[2];
    coll_rdma_ucx_peer_t *peer;
    void *ptr;

    memcpy(head, p, sizeof(head));
    remote->base = head[0];
    *direct = NULL;
    peer = endpoint(proc);
    if (NULL == peer) {
        return OMPI_ERROR;
    }
    remote->ep = peer->ep;
    if (UCS_OK != UCX_CALL(ucp_ep_rkey_unpack)(remote->ep, p + sizeof(head), &remote->rkey)) {
        return OMPI_ERROR;
    }
    if (UCS_OK == UCX_CALL(ucp_rkey_ptr)(remote->rkey, remote->base, &ptr)) {
        *direct = ptr;
    }
    /* asked once per peer process (it prints the endpoint's configuration) */
    if (NULL == *direct && peer->emulated < 0) {
        peer->emulated = rma_emulated(peer->ep);
    }
    remote->emulated = NULL == *direct && 1 == peer->emulated;
    return OMPI_SUCCESS;
}

void coll_rdma_ucx_detach(coll_rdma_ucx_remote_t *remote)
{
    if (NULL != remote->rkey) {
        UCX_CALL(ucp_rkey_destroy)(remote->rkey);
        remote->rkey = NULL;
    }
}

int coll_rdma_ucx_put_signal(const coll_rdma_ucx_remote_t *remote, size_t payload_off,
                             const void *src, size_t bytes, size_t word_off, const uint64_t *word,
                             bool *in_flight)
{
    ucs_status_t status;

    *in_flight = false;
    if (bytes > 0) {
        status = UCX_CALL(ucp_put_nbi)(remote->ep, src, bytes, remote->base + payload_off,
                                       remote->rkey);
        if (UCS_STATUS_IS_ERR(status)) {
            return OMPI_ERROR;
        }
        *in_flight = UCS_INPROGRESS == status;
        /* the word must not overtake the payload */
        if (UCS_OK != UCX_CALL(ucp_worker_fence)(coll_rdma_ucx_worker)) {
            return OMPI_ERROR;
        }
    }
    status = UCX_CALL(ucp_put_nbi)(remote->ep, word, sizeof(uint64_t), remote->base + word_off,
                                   remote->rkey);
    *in_flight = *in_flight || UCS_INPROGRESS == status;
    return UCS_STATUS_IS_ERR(status) ? OMPI_ERROR : OMPI_SUCCESS;
}

int coll_rdma_ucx_fence(void)
{
    return UCS_OK == UCX_CALL(ucp_worker_fence)(coll_rdma_ucx_worker) ? OMPI_SUCCESS : OMPI_ERROR;
}

int coll_rdma_ucx_get(const coll_rdma_ucx_remote_t *remote, size_t off, void *dst, size_t bytes)
{
    ucs_status_t status = UCX_CALL(ucp_get_nbi)(remote->ep, dst, bytes, remote->base + off,
                                                remote->rkey);

    return UCS_STATUS_IS_ERR(status) ? OMPI_ERROR : OMPI_SUCCESS;
}

void coll_rdma_ucx_progress(void)
{
    (void) coll_rdma_ucx_progress_cb();
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
    coll_rdma_ucx_lock(); /* threads of two communicators may ask at once */
    if (!coll_rdma_ucx_progress_registered) {
        opal_progress_register(coll_rdma_ucx_progress_cb);
        coll_rdma_ucx_progress_registered = true;
    }
    coll_rdma_ucx_unlock();
}
