/*
 * coll/rdma executor queue: operations of one communicator run one at a
 * time, in start order (coll_rdma_queue.h says why that keeps every
 * slot-reuse argument), by whoever drives the queue: the blocking call that
 * waits, or the request layer's progress callback.  The actions themselves
 * are interpreted by coll_rdma_exec() (coll_rdma_exec.c).
 */
#include "ompi_config.h"

#include "coll_rdma_queue.h"

#include <stdlib.h>
#include <string.h>

#include "opal/runtime/opal_progress.h"
#include "ompi/runtime/mpiruntime.h"

/* ---- the queue -------------------------------------------------------------- */

/* The driver: the application's thread and the progress callback (another
 * thread under MPI_THREAD_MULTIPLE, or re-entered from opal_progress inside
 * a wait) may both try; whoever gets it runs operations, the other leaves. */
static inline bool queue_enter(coll_rdma_queue_t *m)
{
    int expected = 0;

    if (OPAL_LIKELY(!ompi_mpi_thread_multiple)) {
        /* one thread: only re-entry from opal_progress can meet it busy */
        if (m->busy) {
            return false;
        }
        m->busy = 1;
        return true;
    }
    return __atomic_compare_exchange_n(&m->busy, &expected, 1, false, __ATOMIC_ACQUIRE,
                                       __ATOMIC_RELAXED);
}

static inline void queue_leave(coll_rdma_queue_t *m)
{
    __atomic_store_n(&m->busy, 0, __ATOMIC_RELEASE);
}

/* The list and the counters (MPI_THREAD_MULTIPLE only): held for a few
 * stores by whoever holds it, never across a call, so spinning for it ends. */
static inline void list_lock(coll_rdma_queue_t *m)
{
    if (OPAL_UNLIKELY(ompi_mpi_thread_multiple)) {
        int expected = 0;
        while (!__atomic_compare_exchange_n(&m->lock, &expected, 1, true, __ATOMIC_ACQUIRE,
                                            __ATOMIC_RELAXED)) {
            expected = 0;
        }
    }
}

static inline void list_unlock(coll_rdma_queue_t *m)
{
    if (OPAL_UNLIKELY(ompi_mpi_thread_multiple)) {
        __atomic_store_n(&m->lock, 0, __ATOMIC_RELEASE);
    }
}

/*
 * Number the op's instances (the collective's next prog.nseq sequence
 * numbers) and reset where it stands.  The counter runs modulo 2^64 from
 * debug_seq_start (default 1) and does not skip 0: "empty" is the value
 * every window word starts with, debug_seq_start - 1, and compares are
 * wrap-safe, so 0 is an ordinary instance after a wrap; skipping it would
 * give two consecutive instances the same parity (2^64 - 1 and 1).
 * List lock held: the numbers follow the order of the starts.
 */
static inline void op_reset(coll_rdma_op_t *op)
{
    coll_rdma_queue_t *m = op->queue;

    if (OPAL_UNLIKELY(COLL_RDMA_ALG_SSP == op->alg)) {
        /* a clock of its own: exact allreduces keep their every-rank-entered
         * argument; a call of another shape starts a run (coll_rdma_ssp.c) */
        op->seq = m->ssp_clock + 1;
        m->ssp_clock += op->prog.nseq;
        if (op->ssp_shape != m->ssp_shape) {
            m->ssp_shape = op->ssp_shape;
            m->ssp_first = op->seq;
        }
        op->ssp_first = m->ssp_first;
    } else {
        op->seq = m->seq[op->coll] + 1;
        m->seq[op->coll] += op->prog.nseq;
    }
    op->pc = 0;
    op->pending_set = false;
    op->done = false;
    op->status = OMPI_SUCCESS;
    op->next = NULL;
}

/* Number `op` and append it (list lock held). */
static inline void append(coll_rdma_queue_t *m, coll_rdma_op_t *op)
{
    op_reset(op);
    if (NULL == m->tail) {
        m->head = op;
    } else {
        m->tail->next = op;
    }
    m->tail = op;
}

void coll_rdma_op_start(coll_rdma_op_t *op)
{
    coll_rdma_queue_t *m = op->queue;

    coll_rdma_window_started(op->win);
    list_lock(m);
    append(m, op);
    list_unlock(m);
}

/* What the queue learns of an operation that ended: a stale-synchronous
 * call's age, for the statistics and MPI_T. */
static inline void ended(coll_rdma_queue_t *m, const coll_rdma_op_t *op, int rc)
{
    if (OPAL_UNLIKELY(COLL_RDMA_ALG_SSP == op->alg) && OMPI_SUCCESS == rc) {
        m->ssp_last_age = op->ssp_age;
        ++m->ssp_ages[op->ssp_age <= COLL_RDMA_STALENESS_MAX ? op->ssp_age
                                                             : COLL_RDMA_STALENESS_MAX];
    }
}

/* The head finished (or failed): take it off and complete it. */
static void complete_head(coll_rdma_queue_t *m, int rc)
{
    coll_rdma_op_t *op;

    list_lock(m);
    op = m->head;
    m->head = op->next;
    if (NULL == m->head) {
        m->tail = NULL;
    }
    list_unlock(m);
    op->status = rc;
    ended(m, op, rc);
    __atomic_store_n(&op->done, true, __ATOMIC_RELEASE);
    if (NULL != op->done_cb) {
        op->done_cb(op);
    }
}

int coll_rdma_queue_progress(coll_rdma_queue_t *m)
{
    coll_rdma_op_t *op;
    int completed = 0;

    if (NULL == __atomic_load_n(&m->head, __ATOMIC_ACQUIRE) || !queue_enter(m)) {
        return 0;
    }
    /* only the driver takes the head off: it stays put while it runs */
    while (NULL != (op = __atomic_load_n(&m->head, __ATOMIC_ACQUIRE))) {
        int rc = coll_rdma_exec(op);
        if (OMPI_ERR_WOULD_BLOCK == rc) {
            break;
        }
        complete_head(m, rc);
        ++completed;
    }
    queue_leave(m);
    return completed;
}

int coll_rdma_op_run(coll_rdma_op_t *op)
{
    coll_rdma_queue_t *m = op->queue;
    int spins = op->win->poll_spins;
    int rc;

    list_lock(m);
    if (NULL == m->head && queue_enter(m)) {
        /* nothing queued: run it directly, never queued, holding the queue
         * so that opal_progress's callback leaves the module alone (the
         * common case: blocking calls only); numbered before anything
         * started after this point */
        op_reset(op);
        list_unlock(m);
        while (OMPI_ERR_WOULD_BLOCK == (rc = coll_rdma_exec(op))) {
            coll_rdma_window_poll(op->win, op->poll_word, op->poll_seq, &spins);
        }
        ended(m, op, rc);
        queue_leave(m);
        return rc;
    }
    coll_rdma_window_started(op->win);
    append(m, op);
    list_unlock(m);
    while (!__atomic_load_n(&op->done, __ATOMIC_ACQUIRE)) {
        if (0 == coll_rdma_queue_progress(m)) {
            coll_rdma_window_idle(op->win, &spins);
        }
    }
    return op->status;
}
