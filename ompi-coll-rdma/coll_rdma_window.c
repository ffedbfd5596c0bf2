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

/*
 * Remember `nslots` slots of `stride` bytes at `off` (packing as in
 * coll_rdma_region_t), each starting with a word that must hold `empty`
 * before the address exchange.
 */
static void note_region(coll_rdma_window_t *win, size_t off, int nslots, size_t stride,
                        int packed, uint64_t empty)
{
    if (win->nregions < COLL_RDMA_MAX_REGIONS) {
        win->regions[win->nregions].off = off;
        win->regions[win->nregions].nslots = nslots;
        win->regions[win->nregions].stride = stride;
        win->regions[win->nregions].packed = packed;
        win->regions[win->nregions].empty = empty;
    }
    ++win->nregions; /* more than COLL_RDMA_MAX_REGIONS: alloc fails below */
}

/* Packed Bruck slots of sequence words (packed: 1 allgather, 2 alltoall). */
static void note_packed_region(coll_rdma_window_t *win, size_t off, int nslots, size_t stride,
                               int packed)
{
    note_region(win, off, nslots, stride, packed, win->seq_start - 1);
}

/* Offset of slot `s` of region `r` (see coll_rdma_region_t). */
static size_t region_slot(const coll_rdma_window_t *win, const coll_rdma_region_t *r, int s)
{
    if (0 == r->packed) {
        return r->off + (size_t) s * r->stride;
    }
    return coll_rdma_packed_slot(r->off, 0, 0, s,
                                 coll_rdma_bruck_blocks_before(win->comm_size, COLL_RDMA_BRUCK_RADIX,
                                                               s, 2 == r->packed),
                                 r->stride);
}

/* Reserve `nslots` slots of `stride` bytes at *off (advanced past them), each
 * starting with a word that holds `empty` at first; returns their offset. */
static size_t reserve_region(coll_rdma_window_t *win, size_t *off, int nslots, size_t stride,
                             uint64_t empty)
{
    size_t start = *off;

    note_region(win, start, nslots, stride, 0, empty);
    *off += (size_t) nslots * stride;
    return start;
}

/* Slots whose words are sequence numbers: they start at the instance before the first. */
static size_t add_region(coll_rdma_window_t *win, size_t *off, int nslots, size_t stride)
{
    return reserve_region(win, off, nslots, stride, win->seq_start - 1);
}

static size_t round8(size_t bytes)
{
    return (bytes + 7) & ~(size_t) 7;
}

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* Blocks held by one half of a Bruck region. */
static long bruck_half_blocks(int comm_size, bool alltoall)
{
    int slots = coll_rdma_sched_rounds(comm_size, COLL_RDMA_BRUCK_RADIX)
                * (COLL_RDMA_BRUCK_RADIX - 1);
    return coll_rdma_bruck_blocks_before(comm_size, COLL_RDMA_BRUCK_RADIX, slots, alltoall);
}

size_t coll_rdma_window_block_cap(const coll_rdma_config_t *cfg, int comm_size, int coll, int alg)
{
    size_t blocks;

    switch (coll) {
    case COLL_RDMA_ALLGATHER:
        /* one cap for bruck and ring: two halves of at most P blocks each */
        return min_size(cfg->allgather_max_bytes,
                        COLL_RDMA_REGION_BUDGET / (2 * (size_t) comm_size));
    case COLL_RDMA_ALLTOALL:
        blocks = COLL_RDMA_ALG_BRUCK == alg ? (size_t) bruck_half_blocks(comm_size, true)
                                            : (size_t) comm_size;
        return min_size(cfg->alltoall_max_bytes,
                        COLL_RDMA_REGION_BUDGET / (2 * (blocks > 0 ? blocks : 1)));
    case COLL_RDMA_REDUCE:
        blocks = (size_t) COLL_RDMA_REDUCE_DEPTH
                 * (size_t) coll_rdma_knomial_max_children(comm_size, cfg->reduce_radix);
        return min_size(cfg->reduce_max_bytes, COLL_RDMA_REGION_BUDGET / (blocks > 0 ? blocks : 1));
    default:
        return 0;
    }
}

/* Lay out the allgather, alltoall, reduce and pairwise barrier regions from
 * `off`; returns the end. */
static size_t layout_block_regions(coll_rdma_window_t *win, const coll_rdma_config_t *cfg,
                                   size_t off)
{
    int size = win->comm_size;
    int bruck_slots = coll_rdma_sched_rounds(size, COLL_RDMA_BRUCK_RADIX)
                      * (COLL_RDMA_BRUCK_RADIX - 1);
    size_t scratch;

    win->ag_block = coll_rdma_window_block_cap(cfg, size, COLL_RDMA_ALLGATHER, COLL_RDMA_ALG_BRUCK);
    win->ag_stride = round8(win->ag_block);
    win->ag_bruck_half = line_round((size_t) bruck_slots * COLL_RDMA_LINE
                                    + (size_t) bruck_half_blocks(size, false) * win->ag_stride);
    win->off_ag_bruck = off;
    note_packed_region(win, off, bruck_slots, win->ag_stride, 1);
    note_packed_region(win, off + win->ag_bruck_half, bruck_slots, win->ag_stride, 1);
    off += 2 * win->ag_bruck_half;
    win->ag_ring_slot = line_round(COLL_RDMA_SLOT_HEADER + win->ag_block);
    win->off_ag_ring = add_region(win, &off, 2 * (size - 1), win->ag_ring_slot);

    win->a2a_direct_block = coll_rdma_window_block_cap(cfg, size, COLL_RDMA_ALLTOALL,
                                                       COLL_RDMA_ALG_DIRECT);
    win->a2a_direct_slot = line_round(COLL_RDMA_SLOT_HEADER + win->a2a_direct_block);
    win->off_a2a_direct = add_region(win, &off, 2 * size, win->a2a_direct_slot);
    win->a2a_bruck_block = coll_rdma_window_block_cap(cfg, size, COLL_RDMA_ALLTOALL,
                                                      COLL_RDMA_ALG_BRUCK);
    win->a2a_bruck_stride = round8(win->a2a_bruck_block);
    win->a2a_bruck_half = line_round((size_t) bruck_slots * COLL_RDMA_LINE
                                     + (size_t) bruck_half_blocks(size, true)
                                           * win->a2a_bruck_stride);
    win->off_a2a_bruck = off;
    note_packed_region(win, off, bruck_slots, win->a2a_bruck_stride, 2);
    note_packed_region(win, off + win->a2a_bruck_half, bruck_slots, win->a2a_bruck_stride, 2);
    off += 2 * win->a2a_bruck_half;

    win->reduce_bytes = coll_rdma_window_block_cap(cfg, size, COLL_RDMA_REDUCE,
                                                   COLL_RDMA_ALG_KNOMIAL);
    win->reduce_children = coll_rdma_knomial_max_children(size, cfg->reduce_radix);
    win->reduce_slot_size = line_round(COLL_RDMA_SLOT_HEADER + win->reduce_bytes);
    win->off_reduce = add_region(win, &off, COLL_RDMA_REDUCE_DEPTH * win->reduce_children,
                                 win->reduce_slot_size);
    win->off_reduce_consumed = add_region(win, &off, 1, COLL_RDMA_LINE);

    win->off_bar_pw = add_region(win, &off, 2 + coll_rdma_pairwise_steps(size), COLL_RDMA_LINE);

    /* Bruck's position arrays (alltoall: and one round's messages); an inner
     * reduce tree node's partial result */
    scratch = (size_t) size * win->ag_stride;
    scratch = scratch > 2 * (size_t) size * win->a2a_bruck_stride
                  ? scratch
                  : 2 * (size_t) size * win->a2a_bruck_stride;
    win->scratch_size = scratch > win->reduce_bytes ? scratch : win->reduce_bytes;
    return off;
}

int coll_rdma_window_diss_slots(int comm_size, int n)
{
    return coll_rdma_sched_rounds(comm_size, n + 1) * (n < comm_size - 1 ? n : comm_size - 1);
}

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
    int diss;
    long open_fds, fd_limit;
    size_t off = 0;

    if (NULL == win) {
        return NULL;
    }
    win->comm_size = comm_size;
    win->rank = rank;
    win->seq_start = cfg->debug_seq_start;

    win->off_barrier = add_region(win, &off, coll_rdma_sched_rounds(comm_size, n + 1) * n,
                                  COLL_RDMA_LINE);
    win->bcast_slots = cfg->bcast_slots;
    win->bcast_slot_size = line_round(COLL_RDMA_SLOT_HEADER + cfg->bcast_segment_bytes);
    win->off_bcast = add_region(win, &off, win->bcast_slots, win->bcast_slot_size);
    win->off_consumed = add_region(win, &off, 1, COLL_RDMA_LINE);
    win->off_bcast_read = add_region(win, &off, win->bcast_slots, win->bcast_slot_size);
    /* the slot algorithms serve up to the smaller of the two limits */
    win->ar_slot_size = line_round(COLL_RDMA_SLOT_HEADER
                                   + (cfg->allreduce_short_max_bytes < cfg->allreduce_max_bytes
                                          ? cfg->allreduce_short_max_bytes
                                          : cfg->allreduce_max_bytes));
    win->off_ar_up = add_region(win, &off, coll_rdma_knomial_max_children(comm_size, ar_radix),
                                win->ar_slot_size);
    win->off_ar_down = add_region(win, &off, 1, win->ar_slot_size);
    win->off_pw = add_region(win, &off, 2 + 2 * coll_rdma_pairwise_steps(comm_size),
                             win->ar_slot_size);
    diss = coll_rdma_window_diss_slots(comm_size, cfg->allreduce_nway_n);
    if (coll_rdma_window_diss_slots(comm_size, cfg->allreduce_bruck_n) > diss) {
        diss = coll_rdma_window_diss_slots(comm_size, cfg->allreduce_bruck_n);
    }
    win->off_ar_diss = add_region(win, &off, 2 * diss, win->ar_slot_size);
    win->ring_segment_bytes = cfg->allreduce_ring_segment_bytes;
    win->ring_slot_size = line_round(COLL_RDMA_SLOT_HEADER + win->ring_segment_bytes);
    win->ring_slots = cfg->allreduce_ring_slots;
    /* the ring's words count ring messages, from 0 */
    win->off_ring = reserve_region(win, &off, win->ring_slots, win->ring_slot_size, 0);
    win->off_ring_ack = reserve_region(win, &off, 1, COLL_RDMA_LINE, 0);
    win->off_read_barrier = add_region(win, &off, 1, COLL_RDMA_LINE);
    win->read_ar_slot_size = line_round(COLL_RDMA_SLOT_HEADER + cfg->allreduce_read_max_bytes);
    win->off_read_ar = add_region(win, &off, 2, win->read_ar_slot_size);
    off = layout_block_regions(win, cfg, off);
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
    win->reduce_credit = calloc(comm_size, sizeof(*win->reduce_credit));
    /* allreduce (n-way tail, Bruck's S0): two slot payloads */
    if (win->scratch_size < 2 * (win->ar_slot_size - COLL_RDMA_SLOT_HEADER)) {
        win->scratch_size = 2 * (win->ar_slot_size - COLL_RDMA_SLOT_HEADER);
    }
    win->scratch = malloc(win->scratch_size > 0 ? win->scratch_size : 1);
    if (NULL != win->peers && NULL != win->credit && NULL != win->reduce_credit
        && NULL != win->scratch && win->nregions <= COLL_RDMA_MAX_REGIONS) {
        coll_rdma_ucx_lock();
        rc = coll_rdma_ucx_mem_alloc(win->size, &win->memh, (void **) &win->base, &win->rkey_buf,
                                     &win->rkey_len);
        coll_rdma_ucx_unlock();
    }
    if (OMPI_SUCCESS != rc) {
        free(win->peers);
        free(win->credit);
        free(win->reduce_credit);
        free(win->scratch);
        free(win);
        return NULL;
    }
    /*
     * Before the address exchange, so no peer can see a stale word: every
     * sequence word holds "the instance before the first" (debug_seq_start -
     * 1, 0 by default), as do the consumed words and the credit caches, so
     * that the first instance is not yet reached and every credit is granted,
     * wherever the counters start; message counters hold 0.  Only the words:
     * the payload is never read before its word arrives, and writing the
     * whole window would fault in every page of it (most of the cost of a
     * communicator's first collective).
     */
    for (int r = 0; r < win->nregions; ++r) {
        for (int i = 0; i < win->regions[r].nslots; ++i) {
            *(uint64_t *) (win->base + region_slot(win, &win->regions[r], i)) =
                win->regions[r].empty;
        }
    }
    for (int i = 0; i < comm_size; ++i) {
        win->credit[i] = win->seq_start - 1;
        win->reduce_credit[i] = win->seq_start - 1;
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
            || UCS_OK != UCX_CALL(ucp_ep_rkey_unpack)(peer->ep, blob + sizeof(head), &peer->rkey)) {
            return OMPI_ERROR;
        }
        if (UCS_OK == UCX_CALL(ucp_rkey_ptr)(peer->rkey, peer->base, &ptr)) {
            peer->direct = ptr;
        } else {
            ++win->nremote;
        }
    }
    UCX_CALL(ucp_rkey_buffer_release)(win->rkey_buf);
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
            UCX_CALL(ucp_rkey_destroy)(win->peers[i].rkey);
        }
    }
    if (NULL != win->rkey_buf) {
        UCX_CALL(ucp_rkey_buffer_release)(win->rkey_buf);
    }
    coll_rdma_ucx_mem_free(win->memh);
    coll_rdma_ucx_unlock();
    free(win->peers);
    free(win->credit);
    free(win->reduce_credit);
    free(win->scratch);
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
        status = UCX_CALL(ucp_put_nbi)(p->ep, src, bytes, p->base + off + COLL_RDMA_SLOT_HEADER,
                                       p->rkey);
        if (UCS_STATUS_IS_ERR(status)) {
            return OMPI_ERROR;
        }
        /* the sequence word must not overtake the payload (DESIGN.md rule 1) */
        status = UCX_CALL(ucp_worker_fence)(coll_rdma_ucx_worker);
        if (UCS_OK != status) {
            return OMPI_ERROR;
        }
    }
    win->seq_src = seq;
    status = UCX_CALL(ucp_put_nbi)(p->ep, &win->seq_src, sizeof(uint64_t), p->base + off, p->rkey);
    return UCS_STATUS_IS_ERR(status) ? OMPI_ERROR : OMPI_SUCCESS;
}

/* Between two polls: progress for emulated RMA, and now and then Open MPI's. */
static inline void poll_idle(coll_rdma_window_t *win, int *spins)
{
    if (win->nremote > 0) {
        /* emulated RMA needs the target to progress */
        UCX_CALL(ucp_worker_progress)(coll_rdma_ucx_worker);
    }
    if (--*spins <= 0) {
        opal_progress();
        *spins = mca_coll_rdma_component.poll_spins;
    }
}

/* Poll the sequence word at `word` until it reaches `seq`. */
static void wait_word(coll_rdma_window_t *win, const char *word, uint64_t seq)
{
    int spins = mca_coll_rdma_component.poll_spins;

    while (!seq_reached(load_acquire(word), seq)) {
        poll_idle(win, &spins);
    }
}

void coll_rdma_window_wait_many(coll_rdma_window_t *win, const size_t *offs, int count,
                                uint64_t seq)
{
    uint64_t pending = count >= 64 ? ~(uint64_t) 0 : ((uint64_t) 1 << count) - 1;
    int spins = mca_coll_rdma_component.poll_spins;

    for (;;) {
        for (uint64_t left = pending; 0 != left; left &= left - 1) {
            int i = __builtin_ctzll(left);
            if (seq_reached(load_acquire(win->base + offs[i]), seq)) {
                pending &= ~((uint64_t) 1 << i);
            }
        }
        if (0 == pending) {
            return;
        }
        poll_idle(win, &spins);
    }
}

void coll_rdma_window_wait(coll_rdma_window_t *win, size_t off, uint64_t seq)
{
    wait_word(win, win->base + off, seq);
}

const void *coll_rdma_window_wait_peer(coll_rdma_window_t *win, int peer, size_t off, uint64_t seq)
{
    const char *slot = win->peers[peer].direct + off;

    wait_word(win, slot, seq);
    return slot + COLL_RDMA_SLOT_HEADER;
}

void coll_rdma_window_wait_all_peers(coll_rdma_window_t *win, size_t off, uint64_t seq,
                                     coll_rdma_visit_fn_t visit, void *ctx)
{
    int size = win->comm_size, spins = mca_coll_rdma_component.poll_spins;
    int nwords = (size + 63) / 64;
    int first = 0; /* every rank below has arrived */
    int next = 0;  /* the next rank to visit */
    uint64_t pending[nwords];

    memset(pending, 0, sizeof(pending));
    for (int peer = 0; peer < size; ++peer) {
        if (peer != win->rank) {
            pending[peer / 64] |= (uint64_t) 1 << (peer % 64);
        }
    }
    for (;;) {
        bool all = true;
        for (int w = first / 64; w < nwords; ++w) {
            for (uint64_t left = pending[w]; 0 != left; left &= left - 1) {
                int peer = w * 64 + __builtin_ctzll(left);
                if (seq_reached(load_acquire(win->peers[peer].direct + off), seq)) {
                    pending[w] &= ~((uint64_t) 1 << (peer % 64));
                } else {
                    all = false;
                }
            }
            if (all) {
                first = (w + 1) * 64;
            }
        }
        if (NULL != visit) {
            /* rank order: visit while the next rank is no longer pending */
            while (next < size && 0 == (pending[next / 64] & ((uint64_t) 1 << (next % 64)))) {
                visit(ctx, next, coll_rdma_window_peer_payload(win, next, off));
                ++next;
            }
        }
        if (all) {
            return;
        }
        poll_idle(win, &spins);
    }
}

/* Read the word at `off` of peer's window: a load where mapped, else a get. */
static int read_word(coll_rdma_window_t *win, int peer, size_t off, uint64_t *value)
{
    coll_rdma_peer_t *p = &win->peers[peer];
    ucs_status_t status;

    if (NULL != p->direct) {
        *value = load_acquire(p->direct + off);
        return OMPI_SUCCESS;
    }
    status = UCX_CALL(ucp_get_nbi)(p->ep, value, sizeof(*value), p->base + off, p->rkey);
    if (UCS_STATUS_IS_ERR(status)) {
        return OMPI_ERROR;
    }
    return coll_rdma_ucx_flush();
}

/* Wait until peer's consumed word at `off` reached `need`, caching it in *credit. */
static int wait_credit(coll_rdma_window_t *win, int peer, size_t off, uint64_t need,
                       uint64_t *credit)
{
    int spins = mca_coll_rdma_component.poll_spins;

    while (!seq_reached(*credit, need)) {
        int rc = read_word(win, peer, off, credit);
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

int coll_rdma_window_credit(coll_rdma_window_t *win, int peer, uint64_t seq)
{
    return wait_credit(win, peer, win->off_consumed, seq - (uint64_t) win->bcast_slots,
                       &win->credit[peer]);
}

void coll_rdma_window_consumed(coll_rdma_window_t *win, uint64_t seq)
{
    __atomic_store_n((uint64_t *) (win->base + win->off_consumed), seq, __ATOMIC_RELEASE);
}

int coll_rdma_window_reduce_credit(coll_rdma_window_t *win, int peer, uint64_t seq)
{
    return wait_credit(win, peer, win->off_reduce_consumed, seq - COLL_RDMA_REDUCE_DEPTH,
                       &win->reduce_credit[peer]);
}

void coll_rdma_window_reduce_consumed(coll_rdma_window_t *win, uint64_t seq)
{
    __atomic_store_n((uint64_t *) (win->base + win->off_reduce_consumed), seq, __ATOMIC_RELEASE);
}

int coll_rdma_window_complete(coll_rdma_window_t *win)
{
    if (!win->dirty) {
        return OMPI_SUCCESS;
    }
    win->dirty = false;
    return coll_rdma_ucx_flush();
}
