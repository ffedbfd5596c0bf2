/*
 * coll/rdma window, its memory and peers: allocation, the address peers
 * need, attaching them (at set-up, or at their first use), release (see
 * coll_rdma_window.h; the geometry is computed by coll_rdma_layout.c, the
 * arrival protocol and credits are coll_rdma_window_protocol.c).
 */
#include "ompi_config.h"

#include "coll_rdma_window.h"

#include "ompi/communicator/communicator.h"
#include "coll_rdma_resources.h"
#include "coll_rdma_sched.h"

#include <stdlib.h>
#include <string.h>

#include "ompi/runtime/mpiruntime.h"
#include "opal/runtime/opal_progress.h"

/* Free what coll_rdma_window_alloc() allocated before the memory is mapped
 * (free(NULL) is harmless: any of them may be missing). */
static void free_arrays(coll_rdma_window_t *win)
{
    free(win->peers);
    free(win->credit);
    free(win->reduce_credit);
    free(win->scratch);
    free(win->leaders);
    free(win->local);
    free(win->node_of);
    free(win->node_order);
    free(win->node_pos);
}

size_t coll_rdma_window_default_budget(int local_procs)
{
    return coll_rdma_window_budget_of(coll_rdma_resources_shm_size(), local_procs);
}

/* Whether `bytes` more of this process's windows fit its limits (UCX lock
 * held); *why and a message at verbose >= 1 where they do not. */
static bool within_limits(size_t bytes, const coll_rdma_window_limits_t *l, int *why)
{
    size_t mapped = coll_rdma_ucx_mapped(), kept = coll_rdma_window_pool_bytes(), free_bytes = 0;
    size_t need;
    bool room;

    if (l->max_bytes > 0 && bytes > l->max_bytes) {
        *why = COLL_RDMA_NOWIN_CAP;
        if (coll_rdma_verbose(1)) {
            coll_rdma_output("window of %zu bytes exceeds coll_rdma_window_max_bytes = %zu; "
                             "no window on this communicator", bytes, l->max_bytes);
        }
        return false;
    }
    /* freed windows kept for reuse give way to a new one, where that suffices */
    if (l->budget_bytes > 0 && mapped - kept <= l->budget_bytes
        && bytes <= l->budget_bytes - (mapped - kept)) {
        while ((mapped > l->budget_bytes || bytes > l->budget_bytes - mapped)
               && coll_rdma_window_pool_evict()) {
            mapped = coll_rdma_ucx_mapped();
        }
    }
    if (l->budget_bytes > 0 && (mapped > l->budget_bytes || bytes > l->budget_bytes - mapped)) {
        *why = COLL_RDMA_NOWIN_BUDGET;
        if (coll_rdma_verbose(1)) {
            coll_rdma_output("window of %zu bytes with %zu mapped would pass "
                             "coll_rdma_window_budget_bytes = %zu; no window on this communicator",
                             bytes, mapped, l->budget_bytes);
        }
        return false;
    }
    need = coll_rdma_resources_shm_need(bytes, l->local_ranks);
    room = coll_rdma_resources_shm_room(bytes, l->local_ranks, &free_bytes);
    while (!room && free_bytes + coll_rdma_window_pool_bytes() >= need
           && coll_rdma_window_pool_evict()) {
        room = coll_rdma_resources_shm_room(bytes, l->local_ranks, &free_bytes);
    }
    if (!room) {
        *why = COLL_RDMA_NOWIN_SHM;
        if (coll_rdma_verbose(1)) {
            coll_rdma_output("%s has %zu bytes free, %d windows of %zu bytes need more; no "
                             "window on this communicator", coll_rdma_resources_shm_dir(),
                             free_bytes, l->local_ranks, bytes);
        }
        return false;
    }
    return true;
}

coll_rdma_window_t *coll_rdma_window_alloc(const coll_rdma_config_t *cfg,
                                           const coll_rdma_window_limits_t *limits,
                                           int comm_size, int rank, coll_rdma_nowin_info_t *nowin)
{
    coll_rdma_window_t *win = calloc(1, sizeof(*win));
    int rc = OMPI_ERR_OUT_OF_RESOURCE, *why = &nowin->why;
    long open_fds, fd_limit;
    bool exhausted;

    nowin->why = COLL_RDMA_NOWIN_MEMORY;
    nowin->bytes = 0;
    if (NULL == win) {
        return NULL;
    }
    rc = coll_rdma_window_layout(win, cfg, comm_size, rank);
    if (OMPI_SUCCESS != rc) {
        /* e.g. size parameters beyond their ranges: never a wrapped slot */
        *why = COLL_RDMA_NOWIN_LAYOUT;
        if (coll_rdma_verbose(1)) {
            coll_rdma_output("no window geometry for %d ranks (%s): no window on this "
                             "communicator",
                             comm_size, OMPI_ERR_VALUE_OUT_OF_BOUNDS == rc
                                            ? "its size would overflow"
                                            : "too many regions");
        }
        free(win);
        return NULL;
    }
    nowin->bytes = win->size;
    win->window_pool = limits->window_pool;
    /* a freed window every peer retired, else the limits: the cheapest
     * test, and the one most often met (a process with many communicators);
     * again under the lock at mapping */
    coll_rdma_ucx_lock();
    win->reused = coll_rdma_window_pool_take(win->size, limits->max_bytes, &win->mem,
                                             &win->base);
    rc = win->reused || within_limits(win->size, limits, why) ? OMPI_SUCCESS
                                                              : OMPI_ERR_OUT_OF_RESOURCE;
    coll_rdma_ucx_unlock();
    if (OMPI_SUCCESS != rc) {
        free(win);
        return NULL;
    }
    /* A window taken from the pool holds its descriptor already: it is not
     * counted again (reading /proc/self/fd took 19 us of a 47-us
     * communicator at 2 ranks); its attach opens the peers' windows one at a
     * time, each only where a descriptor is free (attach_peer), else it says
     * "not connected" (no window on any rank). */
    coll_rdma_ucx_lock();
    exhausted = !win->reused && coll_rdma_resources_fds_exhausted(&open_fds, &fd_limit);
    /* each kept window holds a descriptor: they give way where that suffices */
    while (exhausted
           && open_fds - coll_rdma_window_pool_count() + COLL_RDMA_RESOURCES_FD_MARGIN <= fd_limit
           && coll_rdma_window_pool_evict()) {
        exhausted = coll_rdma_resources_fds_exhausted(&open_fds, &fd_limit);
    }
    coll_rdma_ucx_unlock();
    rc = OMPI_ERR_OUT_OF_RESOURCE;
    if (exhausted) {
        *why = COLL_RDMA_NOWIN_FDS;
        if (coll_rdma_verbose(1)) {
            coll_rdma_output("%ld of %ld file descriptors open (RLIMIT_NOFILE); a window needs "
                             "up to %d: no window on this communicator",
                             open_fds, fd_limit, COLL_RDMA_RESOURCES_FD_MARGIN);
        }
    } else {
        /* every array, the node map's too: one missing would leave this rank
         * alone without a node map (a decision unlike its peers'); failing
         * here says ok = 0 in the set-up's exchange and no rank gets a window */
        win->peers = calloc(comm_size, sizeof(*win->peers));
        win->credit = calloc(comm_size, sizeof(*win->credit));
        win->reduce_credit = calloc(comm_size, sizeof(*win->reduce_credit));
        win->leaders = malloc(comm_size * sizeof(int));
        win->local = malloc(comm_size * sizeof(int));
        win->node_of = malloc(comm_size * sizeof(int));
        win->node_order = malloc(comm_size * sizeof(int));
        win->node_pos = malloc(comm_size * sizeof(int));
        win->scratch = malloc(win->scratch_size > 0 ? win->scratch_size : 1);
        if (NULL != win->peers && NULL != win->credit && NULL != win->reduce_credit
            && NULL != win->scratch && NULL != win->leaders && NULL != win->local
            && NULL != win->node_of && NULL != win->node_order && NULL != win->node_pos) {
            coll_rdma_ucx_lock();
            if (win->reused) {
                rc = OMPI_SUCCESS;
            } else if (within_limits(win->size, limits, why)) {
                *why = COLL_RDMA_NOWIN_MAP;
                rc = coll_rdma_ucx_mem_alloc(win->size, &win->mem, (void **) &win->base);
            }
            coll_rdma_ucx_unlock();
        }
    }
    if (OMPI_SUCCESS != rc) {
        if (win->reused) { /* untouched, and no peer saw it: back, as quiescent */
            coll_rdma_ucx_lock();
            coll_rdma_window_pool_put(&win->mem, win->base, 0, 1, 0, win->window_pool);
            coll_rdma_ucx_unlock();
        }
        free_arrays(win);
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
    coll_rdma_layout_reset_words(&win->layout, win->base, false);
    for (int i = 0; i < comm_size; ++i) {
        win->credit[i] = win->seq_start - 1;
        win->reduce_credit[i] = win->seq_start - 1;
    }
    return win;
}

/* Blob: the transport's address of this window. */
size_t coll_rdma_window_blob_size(const coll_rdma_window_t *win)
{
    return coll_rdma_ucx_address_size(&win->mem);
}

void coll_rdma_window_pack(const coll_rdma_window_t *win, void *blob)
{
    coll_rdma_ucx_address_pack(&win->mem, win->base, blob);
}

/*
 * Attach peer i: its endpoint (made once per process, cached) and its
 * window's rkey.  `map`: use the mapping where UCX gives one; a peer
 * attached late is reached by puts whatever UCX could do, since the node
 * map and every choice between stores and puts were fixed at set-up.  Call
 * with the UCX lock held.
 */
static int attach_peer(coll_rdma_window_t *win, int i, bool map)
{
    coll_rdma_peer_t *peer = &win->peers[i];
    char *direct = NULL;
    int rc;

    /* descriptors may have run out since the window was allocated: the
     * set-up is nonblocking, and a window from the pool is not counted */
    if (!coll_rdma_resources_descriptor_free()) {
        if (coll_rdma_verbose(1)) {
            coll_rdma_output("no file descriptor left (RLIMIT_NOFILE) to attach a peer's window");
        }
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    rc = coll_rdma_ucx_attach(ompi_comm_peer_lookup(win->comm, i), win->blobs + win->blob_displs[i],
                              &peer->remote, &direct);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    peer->direct = map ? direct : NULL;
    win->nattached += 1;
    win->nemulated += peer->remote.emulated;
    return OMPI_SUCCESS;
}

/* The addresses are needed no more once no peer waits. */
static void blobs_done(coll_rdma_window_t *win)
{
    free(win->blobs);
    free(win->blob_displs);
    win->blobs = NULL;
    win->blob_displs = NULL;
}

/* Whether rank i is attached now: every peer when eager; when lazy, the
 * node's, and the first peer after this rank that is off the node. */
static bool attach_now(struct ompi_communicator_t *comm, int i, bool lazy, int *probe)
{
    if (!lazy || OPAL_PROC_ON_LOCAL_NODE(ompi_comm_peer_lookup(comm, i)->super.proc_flags)) {
        return true;
    }
    if (*probe < 0) {
        *probe = i;
        return true;
    }
    return false;
}

int coll_rdma_window_attach(coll_rdma_window_t *win, struct ompi_communicator_t *comm,
                            char **blobs, int **displs, bool lazy)
{
    int rc = OMPI_SUCCESS, probe = -1;

    win->comm = comm;
    win->blobs = *blobs;
    win->blob_displs = *displs;
    *blobs = NULL;
    *displs = NULL;
    coll_rdma_ucx_lock();
    /* from the next rank on, so that the peer probed off the node is the
     * first after this rank */
    for (int d = 1; d < win->comm_size && OMPI_SUCCESS == rc; ++d) {
        int i = (win->rank + d) % win->comm_size;

        if (attach_now(comm, i, lazy, &probe)) {
            rc = attach_peer(win, i, true);
        } else {
            win->peers[i].pending = true;
            win->npending += 1;
        }
        win->nremote += NULL == win->peers[i].direct; /* pending ones too */
    }
    win->peers[win->rank].direct = win->base;
    coll_rdma_ucx_address_done(&win->mem);
    coll_rdma_ucx_unlock();
    if (0 == win->npending) {
        blobs_done(win);
    }
    return rc;
}

int coll_rdma_window_attach_late(coll_rdma_window_t *win, int i)
{
    int rc;

    coll_rdma_ucx_lock();
    rc = attach_peer(win, i, false);
    coll_rdma_ucx_unlock();
    if (OMPI_SUCCESS != rc) {
        if (coll_rdma_verbose(1)) {
            char me[160], peer[160];
            coll_rdma_output("%s could not reach rank %d's window at its first use (%s); set "
                             "coll_rdma_lazy_connect=0 to connect every peer at set-up, where a "
                             "failure hands calls on",
                             coll_rdma_comm_rank(me, sizeof(me), win->comm, win->rank), i,
                             coll_rdma_comm_rank(peer, sizeof(peer), win->comm, i));
        }
        return rc;
    }
    win->peers[i].pending = false;
    if (0 == --win->npending) {
        blobs_done(win);
    }
    return OMPI_SUCCESS;
}

void coll_rdma_window_free(coll_rdma_window_t *win)
{
    /* Once MPI_Finalize has begun the peers may be past theirs: no retire
     * word is stored into their windows (a mapping of a peer's address
     * space, as XPMEM's, would fault) and nothing is kept (the pool is
     * emptied at the component's close anyway). */
    bool finalizing = ompi_mpi_state >= OMPI_MPI_STATE_FINALIZE_STARTED, in_flight = false;

    if (NULL == win) {
        return;
    }
    win->poolable = win->poolable && !finalizing;
    coll_rdma_ucx_lock();
    /* a credit's get left in flight by an operation that ended in an error
     * (the put path): UCX writes into win->fetched until it completes; where
     * even the flush fails, the window's memory is left, not freed under it */
    while (win->fetching) {
        bool done = false;
        if (OMPI_SUCCESS != coll_rdma_ucx_flush_test(&win->fetch_request, &done)) {
            in_flight = !done; /* the flush itself failed: nothing completed */
            win->fetching = false;
        } else if (done) {
            win->fetching = false;
        }
    }
    for (int i = 0; i < win->comm_size; ++i) {
        /* this rank's last access to the peers' windows is behind it (its
         * communicator's last request is gone): retire each, in its word */
        if (win->poolable && i != win->rank && NULL != win->peers[i].direct) {
            __atomic_store_n((uint64_t *) (win->peers[i].direct + win->off_retire)
                                 + win->rank,
                             1, __ATOMIC_RELEASE);
        }
        coll_rdma_ucx_detach(&win->peers[i].remote);
    }
    if (win->poolable) {
        coll_rdma_window_pool_put(&win->mem, win->base, win->off_retire, win->comm_size,
                                  win->rank, win->window_pool);
    } else if (!win->exposed && !finalizing) {
        /* no peer ever had its address: quiescent as it is (one rank, itself) */
        coll_rdma_window_pool_put(&win->mem, win->base, 0, 1, 0, win->window_pool);
    } else {
        coll_rdma_ucx_mem_free(&win->mem);
    }
    coll_rdma_ucx_unlock();
    free_arrays(win);
    blobs_done(win);
    if (!in_flight) {
        free(win);
    }
}

/* ---- the pool (coll_rdma_window.h): freed windows kept until every peer retired them ---- */

typedef struct pool_entry {
    coll_rdma_ucx_mem_t mem;
    char *base;
    size_t retire_off; /* the retire words of the communicator it served */
    int comm_size;
    int rank;           /* this process's rank there (its own word is never written) */
    uint64_t age;       /* when it was put: the smallest is evicted first */
} pool_entry_t;

static pool_entry_t pool[COLL_RDMA_WINDOW_POOL_MAX];
static int npool;
static uint64_t clock_put, ntaken, nkept;

/* Whether every other rank of the entry's communicator stored its retire word. */
static bool quiescent(const pool_entry_t *e)
{
    for (int i = 0; i < e->comm_size; ++i) {
        const uint64_t *word = (const uint64_t *) (e->base + e->retire_off) + i;
        if (i != e->rank && 0 == __atomic_load_n(word, __ATOMIC_ACQUIRE)) {
            return false;
        }
    }
    return true;
}

static void drop(int k)
{
    pool[k] = pool[--npool];
}

int coll_rdma_window_pool_count(void)
{
    return npool;
}

size_t coll_rdma_window_pool_bytes(void)
{
    size_t bytes = 0;

    for (int k = 0; k < npool; ++k) {
        bytes += pool[k].mem.bytes;
    }
    return bytes;
}

bool coll_rdma_window_pool_take(size_t bytes, size_t max_bytes, coll_rdma_ucx_mem_t *mem,
                                char **base)
{
    int best = -1;

    for (int k = 0; k < npool; ++k) {
        size_t have = pool[k].mem.bytes;
        if (have >= bytes && have - bytes <= bytes / 4 && (0 == max_bytes || have <= max_bytes)
            && (best < 0 || have < pool[best].mem.bytes) && quiescent(&pool[k])) {
            best = k;
        }
    }
    if (best < 0 || OMPI_SUCCESS != coll_rdma_ucx_mem_repack(&pool[best].mem)) {
        return false;
    }
    *mem = pool[best].mem;
    *base = pool[best].base;
    ntaken += pool[best].comm_size > 1; /* counted: windows peers had */
    drop(best);
    /* not zeroed (touching every page cost 0.9-5 ms at 2 MB): the caller
     * writes every sequence word empty, as on new memory, and no payload is
     * read before its word arrives (coll_rdma_window.h, the arrival protocol) */
    return true;
}

bool coll_rdma_window_pool_evict(void)
{
    int oldest = 0;

    if (0 == npool) {
        return false;
    }
    for (int k = 1; k < npool; ++k) {
        if (pool[k].age < pool[oldest].age) {
            oldest = k;
        }
    }
    coll_rdma_ucx_mem_free(&pool[oldest].mem);
    drop(oldest);
    return true;
}

void coll_rdma_window_pool_put(coll_rdma_ucx_mem_t *mem, char *base, size_t retire_off,
                               int comm_size, int rank, int max_windows)
{
    if (max_windows > COLL_RDMA_WINDOW_POOL_MAX) {
        max_windows = COLL_RDMA_WINDOW_POOL_MAX;
    }
    if (max_windows <= 0 || NULL == mem->memh) {
        coll_rdma_ucx_mem_free(mem);
        return;
    }
    while (npool >= max_windows) {
        (void) coll_rdma_window_pool_evict();
    }
    coll_rdma_ucx_address_done(mem); /* packed again when taken */
    pool[npool++] = (pool_entry_t){.mem = *mem, .base = base, .retire_off = retire_off,
                                   .comm_size = comm_size, .rank = rank, .age = ++clock_put};
    memset(mem, 0, sizeof(*mem));
    nkept += comm_size > 1;
}

void coll_rdma_window_pool_drain(void)
{
    while (coll_rdma_window_pool_evict()) {
    }
}

void coll_rdma_window_pool_counts(uint64_t *taken, uint64_t *kept)
{
    *taken = ntaken;
    *kept = nkept;
}
