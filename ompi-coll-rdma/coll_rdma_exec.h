/*
 * coll/rdma operations and their interpreter (coll_rdma_exec.c): one object
 * per collective call (blocking, nonblocking or persistent), its program
 * (coll_rdma_prog.h), and coll_rdma_exec(), which runs a program against
 * the window from where it stands.  The queue that orders a communicator's
 * operations and drives them is above (coll_rdma_queue.h).
 */
#ifndef COLL_RDMA_EXEC_H
#define COLL_RDMA_EXEC_H

#include "coll_rdma_config.h"
#include "coll_rdma_prog.h"
#include "coll_rdma_window_protocol.h"

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/op/op.h"

typedef struct coll_rdma_op coll_rdma_op_t;

/** What runs when an operation started by coll_rdma_op_start() ends (its
 * owner: the request layer completes its request); NULL for a blocking call
 * (coll_rdma_queue.h). */
typedef void (*coll_rdma_op_done_fn_t)(coll_rdma_op_t *op);

struct coll_rdma_op {
    coll_rdma_op_t *next;          /* the queue */
    struct coll_rdma_queue *queue; /* its communicator's (coll_rdma_queue.h) */
    coll_rdma_window_t *win;
    coll_rdma_op_done_fn_t done_cb; /* NULL for a blocking call */
    void *owner;                    /* for done_cb: its request */
    int coll;                      /* enum coll_rdma_coll: whose sequence numbers */
    int alg;                       /* enum coll_rdma_alg, for statistics */
    /* the call's arguments, as the program names them */
    const void *sbuf;              /* never MPI_IN_PLACE: then rbuf or a copy */
    void *rbuf;
    ompi_datatype_t *dtype;        /* REDUCE, FOLD_ALL: a predefined type */
    ompi_op_t *op;
    bool order_independent;        /* the (op, dtype) pair gives the same bits in every order */
    size_t count;                  /* elements of dtype (reductions) */
    size_t bytes;                  /* payload bytes (bcast, reductions) or one block (allgather,
                                    * alltoall) */
    int root;
    const coll_rdma_config_t *cfg; /* the agreed configuration */
    /* the user's buffers as MPI gave them, for PACK and UNPACK */
    const void *user_sbuf;
    size_t user_scount;
    ompi_datatype_t *user_sdtype;
    void *user_rbuf;
    size_t user_rcount;
    ompi_datatype_t *user_rdtype;
    char *tmp;                     /* packed data (malloc), freed with the op */
    ompi_datatype_t *held[2];      /* the user types PACK/UNPACK read, retained while the op
                                    * lives (MPI lets the user free them before a nonblocking or
                                    * persistent call completes); released by coll_rdma_op_fini */
    size_t unpack_bytes;           /* the result's packed bytes in tmp (0: none) */
    uint64_t seq;                  /* first instance, assigned at start */
    /* stale-synchronous allreduce: the call's shape (bytes, type, op), set by the
     * plan; the first instance of the run of calls of that shape this one
     * belongs to (assigned at start); the oldest instance folded so far */
    uint64_t ssp_shape;
    uint64_t ssp_first;
    uint64_t ssp_oldest;
    uint64_t ssp_age;              /* its age once folded: instance minus its oldest contribution */
    coll_rdma_prog_t prog;
    /* where the executor stands */
    int pc;
    int next_rank;                 /* WAIT_ALL / FOLD_ALL: ranks below have been visited */
    bool pending_set;              /* WAIT_ALL / FOLD_ALL: `pending` holds the peers awaited */
    uint64_t *pending;
    uint64_t pending_inline[4];
    const void *ring_payload;      /* RING_RECV's message, for the actions after it */
    void *flush_request;           /* FLUSH under way */
    const char *poll_word;         /* the mapped word the last test found short (NULL: none), */
    uint64_t poll_seq;             /* and the instance it waits for: what a blocking call polls */
    bool done;
    int status;                    /* OMPI_SUCCESS or the error that ended the program */
};

/**
 * Prepare `op` for collective `coll` by algorithm `alg` on `queue`, the
 * executor of a communicator whose window `win` is ready (NULL until it
 * is): no program yet, arguments as given, no completion callback.
 */
void coll_rdma_op_init(coll_rdma_op_t *op, struct coll_rdma_queue *queue, coll_rdma_window_t *win,
                       const coll_rdma_config_t *cfg, int coll, int alg);

/** Release what the op holds (program actions on the heap, bitmaps). */
void coll_rdma_op_fini(coll_rdma_op_t *op);




/**
 * Run `op`'s program from where it stands until it would block or ends.
 * Returns OMPI_SUCCESS (ended), OMPI_ERR_WOULD_BLOCK, or an error.
 */
int coll_rdma_exec(coll_rdma_op_t *op);

#endif /* COLL_RDMA_EXEC_H */
