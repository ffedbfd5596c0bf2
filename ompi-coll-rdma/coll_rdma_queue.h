/*
 * coll/rdma executor queue (coll_rdma_queue.c): a communicator's operations
 * run one at a time in start order.
 *
 * Order.  An operation's program starts only when the one before it
 * finished, and a blocking call never overtakes an outstanding nonblocking
 * one.  Every rank starts a communicator's collectives in the same order
 * (MPI), so instance numbers and ring message numbers are assigned alike
 * everywhere, and each rank still finishes instance i before it posts
 * anything of instance i+1: every slot-reuse argument of coll_rdma_layout.h
 * and docs/design.md, written for blocking calls, holds unchanged.  What is
 * given up is overlap between two collectives of one communicator, not
 * overlap with computation.
 */
#ifndef COLL_RDMA_QUEUE_H
#define COLL_RDMA_QUEUE_H

#include "coll_rdma_exec.h"

/*
 * A communicator's executor: its operations in start order, who runs them
 * (one driver at a time: the application's thread or the progress
 * callback), the instance counters of every collective, and the
 * stale-synchronous allreduce's clock.  Embedded in the module.
 *
 * Two locks, used only under MPI_THREAD_MULTIPLE (one thread needs none:
 * nothing runs between its instructions but what it calls):
 *   lock  the list and the counters: held for a few stores, never across a
 *         call out of this file, so a start never waits for a driver, not
 *         even one below it on the same thread's stack (a collective issued
 *         from inside opal_progress while a blocking call of the same
 *         module polls);
 *   busy  the driver: whoever runs the head operation (or a blocking call's
 *         operation, run directly).
 */
typedef struct coll_rdma_queue {
    coll_rdma_op_t *head;
    coll_rdma_op_t *tail;
    int lock;
    int busy;
    /* the last instance per collective; debug_seq_start - 1 (the value window
     * words start with) until the first */
    uint64_t seq[COLL_RDMA_NCOLLS];
    /* stale-synchronous allreduce (coll_rdma_ssp.c): its clock (the last instance
     * numbered), the shape (bytes, type, op) of the last call numbered and the
     * instance where calls of that shape began; the age of the oldest
     * contribution of the last call completed, and calls by age */
    uint64_t ssp_clock;
    uint64_t ssp_shape;
    uint64_t ssp_first;
    uint64_t ssp_last_age;
    uint64_t ssp_ages[COLL_RDMA_STALENESS_MAX + 1];
} coll_rdma_queue_t;

/**
 * Start `op` (its program built): assign its instances (the collective's
 * next prog.nseq sequence numbers) and append it to its queue, both at once
 * under the queue's lock, so that the order of the numbers is the order of
 * the starts; it runs as soon as it reaches the head, and op->done_cb runs
 * when it ends.  Never waits: neither for another rank nor for whoever
 * drives the queue (callable from inside opal_progress while a call of the
 * same module polls below it).
 */
void coll_rdma_op_start(coll_rdma_op_t *op);

/**
 * Run a blocking call: start `op` (numbered anew) and drive its queue until
 * `op` is done; with nothing queued, run it directly.  `op`
 * keeps its program, to be run again or released by coll_rdma_op_fini().
 * Returns its status (OMPI_SUCCESS or a transport error).
 * Precondition: no blocking call of the same module is being run further
 * down this thread's stack (a blocking collective issued from a progress
 * callback while another of the same communicator waits could never end:
 * the outer one is first in call order and cannot resume until it returns).
 */
int coll_rdma_op_run(coll_rdma_op_t *op);

/**
 * Progress a queue: run the head operation until it would block, and the
 * next ones as the head completes (their done_cb runs).  Does nothing when
 * called re-entrantly for the same queue.  Returns the number of operations
 * completed.
 */
int coll_rdma_queue_progress(coll_rdma_queue_t *queue);

#endif /* COLL_RDMA_QUEUE_H */
