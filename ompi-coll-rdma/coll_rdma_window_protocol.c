/*
 * coll/rdma window, its arrival protocol: puts with their sequence words,
 * polling, the credit reads and publishes of bcast and reduce, flushes, and
 * UCX progress where puts are emulated (see coll_rdma_window_protocol.h; memory and
 * peers are coll_rdma_window.c).
 */
#include "ompi_config.h"

#include "coll_rdma_window_protocol.h"

#include "opal/runtime/opal_progress.h"

/*
 * From the first call served over puts on (its first put or wait), let
 * opal_progress() progress UCX too: emulated puts land only where their
 * target progresses, also after the call returned.  Not before, so that
 * calls handed on never pay for it.
 */
static inline void want_progress(coll_rdma_window_t *win)
{
    if (OPAL_UNLIKELY(!win->progress_wanted)) {
        coll_rdma_ucx_want_progress();
        win->progress_wanted = true;
    }
}

int coll_rdma_window_put(coll_rdma_window_t *win, int peer, size_t off, size_t head,
                         const void *src, size_t bytes, uint64_t seq)
{
    bool in_flight;
    int rc;

    want_progress(win);
    rc = coll_rdma_window_reach(win, peer);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    win->seq_src = seq;
    rc = coll_rdma_ucx_put_signal(&win->peers[peer].remote, off + head, src,
                                  bytes, off, &win->seq_src, &in_flight);
    win->dirty = win->dirty || in_flight;
    win->unordered = true;
    return rc;
}

void coll_rdma_window_started(coll_rdma_window_t *win)
{
    if (win->nremote > 0) {
        want_progress(win);
    }
}

void coll_rdma_window_idle(coll_rdma_window_t *win, int *spins)
{
    if (win->nremote > 0) {
        /* emulated RMA needs the target to progress */
        want_progress(win);
        coll_rdma_ucx_progress();
    }
    if (--*spins <= 0) {
        opal_progress();
        *spins = win->poll_spins;
    }
}
void coll_rdma_window_poll(coll_rdma_window_t *win, const char *word, uint64_t seq, int *spins)
{
    if (NULL != word && 0 == win->nremote) {
        for (; *spins > 1; --*spins) {
            if (coll_rdma_seq_reached(coll_rdma_load_word(word), seq)) {
                return;
            }
        }
    }
    coll_rdma_window_idle(win, spins);
}

/*
 * The put path's read of a peer's word without waiting: a get into
 * win->fetched, then a flush tested on later calls; *value is updated once
 * it completed.  One get at a time per window (one operation runs at a
 * time), recorded with the cache it is for (`value`: one per credit kind's
 * consumed word and peer): a get issued for another (kind, peer), left in
 * flight by an operation that ended with an error, is completed and its
 * value discarded, never stored in this caller's cache (which would grant
 * this peer's credit on another peer's word); this caller's own get follows
 * at its next test.
 */
static int fetch_word(coll_rdma_window_t *win, int peer, size_t off, uint64_t *value)
{
    bool done;
    int rc;

    if (!win->fetching) {
        if (OMPI_SUCCESS != coll_rdma_window_reach(win, peer)
            || OMPI_SUCCESS != coll_rdma_ucx_get(&win->peers[peer].remote, off, &win->fetched,
                                                 sizeof(win->fetched))) {
            return OMPI_ERROR;
        }
        win->fetching = true;
        win->fetch_for = value;
    }
    rc = coll_rdma_ucx_flush_test(&win->fetch_request, &done);
    if (OMPI_SUCCESS == rc && done) {
        win->fetching = false;
        if (win->fetch_for == value) {
            *value = win->fetched;
        }
        win->fetch_for = NULL;
    }
    return rc;
}

int coll_rdma_window_credit_test(coll_rdma_window_t *win, int kind, int peer, uint64_t seq,
                                 bool *granted)
{
    uint64_t need = seq - coll_rdma_credit_depth(win, kind);
    uint64_t *credit = COLL_RDMA_CREDIT_REDUCE == kind ? &win->reduce_credit[peer]
                                                       : &win->credit[peer];
    size_t off = coll_rdma_credit_off(win, kind);
    int rc = OMPI_SUCCESS;

    if (!coll_rdma_seq_reached(*credit, need)) {
        if (NULL != win->peers[peer].direct) {
            *credit = coll_rdma_load_word(win->peers[peer].direct + off);
        } else {
            rc = fetch_word(win, peer, off, credit);
        }
    }
    *granted = coll_rdma_seq_reached(*credit, need);
    return rc;
}

void coll_rdma_window_publish(coll_rdma_window_t *win, int kind, uint64_t seq)
{
    __atomic_store_n((uint64_t *) (win->base + coll_rdma_credit_off(win, kind)), seq,
                     __ATOMIC_RELEASE);
}

int coll_rdma_window_flush_test(coll_rdma_window_t *win, void **request, bool *done)
{
    int rc;

    if (!win->dirty && NULL == *request) {
        /* every source was copied (local completion): no round trip to wait
         * for, only the order of what comes next (words written by two
         * calls in turn must end with the later value) */
        *done = true;
        rc = win->unordered ? coll_rdma_ucx_fence() : OMPI_SUCCESS;
        win->unordered = false;
        return rc;
    }
    win->dirty = false; /* what is issued from now on needs a flush of its own */
    win->unordered = false; /* a flush orders as a fence does */
    rc = coll_rdma_ucx_flush_test(request, done);
    return rc;
}

