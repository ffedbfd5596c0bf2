/*
 * coll/rdma window: slot geometry, arrival protocol and credits (see
 * coll_rdma_window.h for the layout and the protocol).
 */
#include "ompi_config.h"

#include "coll_rdma_window.h"
#include "coll_rdma_sched.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "opal/runtime/opal_progress.h"

/* Copies from this size on may use non-temporal stores, which a release
 * store does not order on x86: fence them explicitly. */
#define COLL_RDMA_FENCE_BYTES (64 * 1024)

static size_t line_round(size_t bytes)
{
    return (bytes + COLL_RDMA_LINE - 1) & ~((size_t) COLL_RDMA_LINE - 1);
}

/* Wrap-safe "a is at or after b" for 64-bit sequence numbers. */
static inline bool seq_reached(uint64_t a, uint64_t b)
{
    return (int64_t) (a - b) >= 0;
}

static inline uint64_t load_acquire(const char *addr)
{
    return __atomic_load_n((const uint64_t *) addr, __ATOMIC_ACQUIRE);
}

static int attach_peers(coll_rdma_window_t *win, struct ompi_communicator_t *comm,
                        const char *blobs, const int *displs);

/* Descriptors a window set-up may need: UCX's posix transport keeps one open
 * per window and opens one per peer's window while attaching. */
#define COLL_RDMA_FD_MARGIN 32

/*
 * Whether fewer than COLL_RDMA_FD_MARGIN file descriptors are left below the
 * soft limit.  At the limit, UCX 1.13's ucp_ep_rkey_unpack crashes in its own
 * error path (uct_posix_rkey_release after a failed open of the peer's
 * segment), so a window must not be attempted there.
 */
static bool fds_exhausted(long *open_fds, long *limit)
{
    struct rlimit rl;
    struct dirent *e;
    DIR *d;

    *open_fds = 0;
    if (0 != getrlimit(RLIMIT_NOFILE, &rl) || RLIM_INFINITY == rl.rlim_cur
        || NULL == (d = opendir("/proc/self/fd"))) {
        return false;
    }
    while (NULL != (e = readdir(d))) {
        *open_fds += '.' != e->d_name[0];
    }
    closedir(d);
    *limit = (long) rl.rlim_cur;
    return *open_fds + COLL_RDMA_FD_MARGIN > *limit;
}

coll_rdma_window_t *coll_rdma_window_alloc(const coll_rdma_config_t *cfg, int comm_size, int rank)
{
    coll_rdma_window_t *win = calloc(1, sizeof(*win));
    int n = cfg->barrier_nway_n;
    int ar_radix = cfg->allreduce_ktree_degree + 1;
    int rc = OMPI_ERR_OUT_OF_RESOURCE;
    long open_fds, fd_limit;
    size_t off;

    if (NULL == win) {
        return NULL;
    }
    win->comm_size = comm_size;
    win->rank = rank;

    off = 0;
    win->off_barrier = off;
    off += (size_t) coll_rdma_sched_rounds(comm_size, n + 1) * n * COLL_RDMA_LINE;
    win->bcast_slots = cfg->bcast_slots;
    win->bcast_slot_size = line_round(COLL_RDMA_SLOT_HEADER + cfg->bcast_max_bytes);
    win->off_bcast = off;
    off += (size_t) win->bcast_slots * win->bcast_slot_size;
    win->off_consumed = off;
    off += COLL_RDMA_LINE;
    win->ar_slot_size = line_round(COLL_RDMA_SLOT_HEADER + cfg->allreduce_max_bytes);
    win->off_ar_up = off;
    off += (size_t) coll_rdma_knomial_max_children(comm_size, ar_radix) * win->ar_slot_size;
    win->off_ar_down = off;
    off += win->ar_slot_size;
    win->off_pw = off;
    off += (size_t) (2 + 2 * coll_rdma_pairwise_steps(comm_size)) * win->ar_slot_size;
    win->size = off;
    if (fds_exhausted(&open_fds, &fd_limit)) {
        if (mca_coll_rdma_component.verbose >= 1) {
            mca_coll_rdma_output("%ld of %ld file descriptors open (RLIMIT_NOFILE); a window needs "
                                 "up to %d: no window on this communicator",
                                 open_fds, fd_limit, COLL_RDMA_FD_MARGIN);
        }
        free(win);
        return NULL;
    }
    if (mca_coll_rdma_component.window_max_bytes > 0
        && win->size > mca_coll_rdma_component.window_max_bytes) {
        if (mca_coll_rdma_component.verbose >= 1) {
            mca_coll_rdma_output("window of %zu bytes exceeds coll_rdma_window_max_bytes = %zu; "
                                 "no window on this communicator",
                                 win->size, mca_coll_rdma_component.window_max_bytes);
        }
        free(win);
        return NULL;
    }

    win->peers = calloc(comm_size, sizeof(*win->peers));
    win->credit = calloc(comm_size, sizeof(*win->credit));
    if (NULL != win->peers && NULL != win->credit) {
        coll_rdma_ucx_lock();
        rc = coll_rdma_ucx_mem_alloc(win->size, &win->memh, (void **) &win->base, &win->rkey_buf,
                                     &win->rkey_len);
        coll_rdma_ucx_unlock();
    }
    if (OMPI_SUCCESS != rc) {
        free(win->peers);
        free(win->credit);
        free(win);
        return NULL;
    }
    /* Before the address exchange, so no peer can see stale words: every
     * sequence word (the first word of a line: slots start on lines) holds
     * "the instance before the first", as do the consumed word and the credit
     * cache, so that the first instance, debug_seq_start, is not yet reached
     * and every credit is granted, wherever the counters start. */
    memset(win->base, 0, win->size);
    win->seq_start = cfg->debug_seq_start;
    for (size_t line = 0; line < win->size; line += COLL_RDMA_LINE) {
        *(uint64_t *) (win->base + line) = win->seq_start - 1;
    }
    for (int i = 0; i < comm_size; ++i) {
        win->credit[i] = win->seq_start - 1;
    }
    return win;
}

/* Blob: uint64 base, uint64 rkey length, rkey, worker address. */
size_t coll_rdma_window_blob_size(const coll_rdma_window_t *win)
{
    const void *addr;
    size_t addr_len;

    coll_rdma_ucx_worker_address(&addr, &addr_len);
    return 2 * sizeof(uint64_t) + win->rkey_len + addr_len;
}

void coll_rdma_window_pack(const coll_rdma_window_t *win, void *blob)
{
    uint64_t head[2] = {(uint64_t) (uintptr_t) win->base, win->rkey_len};
    const void *addr;
    size_t addr_len;
    char *p = blob;

    coll_rdma_ucx_worker_address(&addr, &addr_len);
    memcpy(p, head, sizeof(head));
    memcpy(p + sizeof(head), win->rkey_buf, win->rkey_len);
    memcpy(p + sizeof(head) + win->rkey_len, addr, addr_len);
}

int coll_rdma_window_attach(coll_rdma_window_t *win, struct ompi_communicator_t *comm,
                            const char *blobs, const int *displs)
{
    int rc;

    coll_rdma_ucx_lock();
    rc = attach_peers(win, comm, blobs, displs);
    coll_rdma_ucx_unlock();
    return rc;
}

static int attach_peers(coll_rdma_window_t *win, struct ompi_communicator_t *comm,
                        const char *blobs, const int *displs)
{
    for (int i = 0; i < win->comm_size; ++i) {
        coll_rdma_peer_t *peer = &win->peers[i];
        const char *blob = blobs + displs[i];
        uint64_t head[2];
        void *ptr;

        if (i == win->rank) {
            peer->direct = win->base;
            continue;
        }
        memcpy(head, blob, sizeof(head));
        peer->base = head[0];
        if (OMPI_SUCCESS
                != coll_rdma_ucx_ep(ompi_comm_peer_lookup(comm, i), blob + sizeof(head) + head[1],
                                    &peer->ep)
            || UCS_OK != ucp_ep_rkey_unpack(peer->ep, blob + sizeof(head), &peer->rkey)) {
            return OMPI_ERROR;
        }
        if (UCS_OK == ucp_rkey_ptr(peer->rkey, peer->base, &ptr)) {
            peer->direct = ptr;
        } else {
            ++win->nremote;
        }
    }
    ucp_rkey_buffer_release(win->rkey_buf);
    win->rkey_buf = NULL;
    if (win->nremote > 0) {
        coll_rdma_ucx_want_progress();
    }
    return OMPI_SUCCESS;
}

void coll_rdma_window_free(coll_rdma_window_t *win)
{
    if (NULL == win) {
        return;
    }
    coll_rdma_ucx_lock();
    for (int i = 0; i < win->comm_size; ++i) {
        if (NULL != win->peers[i].rkey) {
            ucp_rkey_destroy(win->peers[i].rkey);
        }
    }
    if (NULL != win->rkey_buf) {
        ucp_rkey_buffer_release(win->rkey_buf);
    }
    coll_rdma_ucx_mem_free(win->memh);
    coll_rdma_ucx_unlock();
    free(win->peers);
    free(win->credit);
    free(win);
}

int coll_rdma_window_post(coll_rdma_window_t *win, int peer, size_t off, const void *src,
                          size_t bytes, uint64_t seq)
{
    coll_rdma_peer_t *p = &win->peers[peer];
    ucs_status_t status;

    if (OPAL_LIKELY(NULL != p->direct)) {
        char *slot = p->direct + off;
        if (bytes > 0) {
            memcpy(slot + COLL_RDMA_SLOT_HEADER, src, bytes);
            if (bytes >= COLL_RDMA_FENCE_BYTES) {
                __atomic_thread_fence(__ATOMIC_SEQ_CST);
            }
        }
        __atomic_store_n((uint64_t *) slot, seq, __ATOMIC_RELEASE);
        return OMPI_SUCCESS;
    }
    win->dirty = true;
    if (bytes > 0) {
        status = ucp_put_nbi(p->ep, src, bytes, p->base + off + COLL_RDMA_SLOT_HEADER, p->rkey);
        if (UCS_STATUS_IS_ERR(status)) {
            return OMPI_ERROR;
        }
        /* the sequence word must not overtake the payload (DESIGN.md rule 1) */
        status = ucp_worker_fence(coll_rdma_ucx_worker);
        if (UCS_OK != status) {
            return OMPI_ERROR;
        }
    }
    win->seq_src = seq;
    status = ucp_put_nbi(p->ep, &win->seq_src, sizeof(uint64_t), p->base + off, p->rkey);
    return UCS_STATUS_IS_ERR(status) ? OMPI_ERROR : OMPI_SUCCESS;
}

void coll_rdma_window_wait(coll_rdma_window_t *win, size_t off, uint64_t seq)
{
    const char *word = win->base + off;
    int spins = mca_coll_rdma_component.poll_spins;

    while (!seq_reached(load_acquire(word), seq)) {
        if (win->nremote > 0) {
            /* emulated RMA needs the target to progress */
            ucp_worker_progress(coll_rdma_ucx_worker);
        }
        if (--spins <= 0) {
            opal_progress();
            spins = mca_coll_rdma_component.poll_spins;
        }
    }
}

/* Read peer's bcast consumed word: a load where mapped, else a get. */
static int read_consumed(coll_rdma_window_t *win, int peer, uint64_t *value)
{
    coll_rdma_peer_t *p = &win->peers[peer];
    ucs_status_t status;

    if (NULL != p->direct) {
        *value = load_acquire(p->direct + win->off_consumed);
        return OMPI_SUCCESS;
    }
    status = ucp_get_nbi(p->ep, value, sizeof(*value), p->base + win->off_consumed, p->rkey);
    if (UCS_STATUS_IS_ERR(status)) {
        return OMPI_ERROR;
    }
    return coll_rdma_ucx_flush();
}

int coll_rdma_window_credit(coll_rdma_window_t *win, int peer, uint64_t seq)
{
    uint64_t need = seq - (uint64_t) win->bcast_slots;
    int spins = mca_coll_rdma_component.poll_spins;

    while (!seq_reached(win->credit[peer], need)) {
        int rc = read_consumed(win, peer, &win->credit[peer]);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        if (--spins <= 0) {
            opal_progress();
            spins = mca_coll_rdma_component.poll_spins;
        }
    }
    return OMPI_SUCCESS;
}

void coll_rdma_window_consumed(coll_rdma_window_t *win, uint64_t seq)
{
    __atomic_store_n((uint64_t *) (win->base + win->off_consumed), seq, __ATOMIC_RELEASE);
}

int coll_rdma_window_complete(coll_rdma_window_t *win)
{
    if (!win->dirty) {
        return OMPI_SUCCESS;
    }
    win->dirty = false;
    return coll_rdma_ucx_flush();
}
