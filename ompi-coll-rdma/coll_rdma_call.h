/*
 * coll/rdma calls: a collective call's arguments as MPI gave them, the
 * decision on them, and the operation prepared from them ([PACK] plan
 * [UNPACK]).  Blocking calls keep one standing operation per collective:
 * a call whose arguments match the last one's but for the buffers runs the
 * same program again, without deciding or planning (a persistent request
 * the library makes on the user's behalf).
 */
#ifndef COLL_RDMA_CALL_H
#define COLL_RDMA_CALL_H

#include "coll_rdma_exec.h"
#include "coll_rdma_module.h"
#include "coll_rdma_stats.h"

/* bcast, allreduce, reduce: count and dtype on both sides */
typedef struct coll_rdma_call {
    int coll;
    const void *sbuf;
    size_t scount;
    ompi_datatype_t *sdtype;
    void *rbuf;
    size_t rcount;
    ompi_datatype_t *rdtype;
    ompi_op_t *op;
    int root;
    ompi_datatype_t *elem; /* reductions: the signature's element type (decide) */
    size_t nelem;
    bool rescued;          /* served only because Open MPI's own reduction is wrong */
} coll_rdma_call_t;

/**
 * Bytes the call moves per rank's message (bcast, reductions) or per block
 * (allgather, alltoall): from the receive side, whose signature every rank
 * shares.
 */
static inline size_t coll_rdma_call_bytes(const coll_rdma_call_t *c)
{
    return NULL == c->rdtype ? 0 : c->rcount * c->rdtype->super.size;
}

/** Bytes a served call moves, for the statistics: the call's bytes, times the
 * communicator size for allgather and alltoall. */
static inline size_t coll_rdma_call_moved(const coll_rdma_call_t *c, struct ompi_communicator_t *comm)
{
    size_t moved = coll_rdma_call_bytes(c);

    return COLL_RDMA_ALLGATHER == c->coll || COLL_RDMA_ALLTOALL == c->coll
               ? moved * (size_t) ompi_comm_size(comm)
               : moved;
}

/**
 * The algorithm for call `c` on `comm`, whose module's window is ready (enum
 * coll_rdma_alg), or COLL_RDMA_ALG_FALLBACK with *why (enum coll_rdma_why).
 * Every input is agreed configuration or required equal on all ranks by MPI
 * (docs/design.md "Datatypes").  Sets c->elem, c->nelem and c->rescued for
 * reductions.
 */
int coll_rdma_call_decide(mca_coll_rdma_module_t *m, struct ompi_communicator_t *comm,
                          coll_rdma_call_t *c, int *why);

/**
 * Whether `c` is a reduction Open MPI's own op may compute wrong
 * (coll_rdma_op_suspect(): SUM on 8- and 16-bit integers, MIN and MAX on
 * 64-bit unsigned ones), judged from the op and the signature's basic types,
 * which MPI requires equal on every rank: such a call starts the window's
 * set-up at once, so that coll/rdma can serve it.
 */
bool coll_rdma_call_suspect(const coll_rdma_call_t *c);

/**
 * Whether nonblocking call `c` has the shape of the collectives Open MPI
 * makes on its own behalf from inside opal_progress, to agree on a new
 * communicator's ID (ompi/communicator/comm_cid.c, 4.1 to 6.0): the
 * MPI_Iallreduce of one MPI_INT with MPI_MAX or MPI_MIN on the parent of an
 * intracommunicator (the ID steps; in 5.0 and 6.0 also the activation's),
 * and for an intercommunicator the MPI_Ireduce (MAX or MIN) and MPI_Ibcast
 * of one MPI_INT on its local communicator (coll/inter runs the
 * application's intercommunicator collectives as reduce and bcast on that
 * same communicator).  Made at the first opal_progress after the previous
 * step completed, their place among the application's calls differs between
 * ranks, so coll/rdma must neither number them in its queue nor count them
 * toward the warm-up: it hands every nonblocking call of these shapes on,
 * uncounted, on every rank alike (the application's calls of the same shapes
 * too: the test reads the type signature, the op and the collective, which
 * MPI requires equal on every rank).  Blocking and persistent calls are not
 * affected.
 */
bool coll_rdma_call_internal(const coll_rdma_call_t *c);

/**
 * Whether, for a nonblocking call of `coll` that coll/rdma hands on, the
 * previous component's nonblocking function is the one of the module that
 * made the early requests' persistent fallbacks (coll_rdma_call_hand_on_init):
 * then its messages and its one tag are those an early request's fallback
 * of the same call has on another rank, and a call handed on during the tag
 * span may go to it directly (docs/design.md, "Tags").
 */
bool coll_rdma_call_hands_on_alike(const mca_coll_rdma_module_t *m, int coll);

/**
 * Take from comm's counter of nonblocking-collective tags what the previous
 * component's persistent request for a call takes (coll/libnbc, 4.1 to 6.0:
 * one tag per request, ompi_coll_base_nbc_reserve_tags), for a call of the
 * tag span that coll/rdma serves on its window, where another rank whose
 * set-up had not ended made an early request and its fallback for the same
 * call (docs/design.md, "Tags").
 */
void coll_rdma_call_keep_tag(struct ompi_communicator_t *comm);

/**
 * Make call `c` a persistent request of the previous component on comm
 * (its MPI_<coll>_init, with `info`): the fallback of a request made before
 * the window exists, and of a nonblocking call made while it is set up.
 * Made at the call, in call order on every rank: Open MPI's nonblocking
 * collectives take their tags when made (coll_rdma_setup.c says why that
 * matters); starting one takes none.  Returns the previous function's
 * result, OMPI_ERR_NOT_SUPPORTED where it has none.
 */
int coll_rdma_call_hand_on_init(mca_coll_rdma_module_t *m, struct ompi_communicator_t *comm,
                                const coll_rdma_call_t *c, struct ompi_info_t *info,
                                ompi_request_t **request);

/**
 * Give `op` (initialized by coll_rdma_op_init() for c->coll and the decided
 * algorithm) the call's arguments and its program: [PACK] plan [UNPACK].
 * Non-contiguous layouts are packed through op->tmp.  An empty call (no
 * bytes) gets an empty program that takes no instance.  Returns
 * OMPI_SUCCESS or OMPI_ERR_OUT_OF_RESOURCE.
 */
int coll_rdma_call_prepare(coll_rdma_op_t *op, const coll_rdma_call_t *c,
                           struct ompi_communicator_t *comm);

/**
 * Bind the call's buffers to `op`, prepared for a call with the same
 * arguments but for the buffers: the user's arguments for PACK and UNPACK,
 * and op->sbuf / op->rbuf.  For contiguous layouts this adds no action, so
 * a kept program runs again as is.  Returns OMPI_SUCCESS or
 * OMPI_ERR_OUT_OF_RESOURCE.
 */
int coll_rdma_call_bind(coll_rdma_op_t *op, const coll_rdma_call_t *c,
                        struct ompi_communicator_t *comm);

/**
 * Whether call `c` has the arguments of key `k`, a key of its collective,
 * but for the buffers (counts, datatype and op handles, root,
 * MPI_IN_PLACE); if so, fills in c->elem, c->nelem and c->rescued from the
 * key.  Comparing
 * handles is safe only where they cannot be freed and come back as others:
 * the key holds references on them, or they are predefined.
 */
bool coll_rdma_call_matches(const coll_rdma_call_t *k, coll_rdma_call_t *c);

/** Key `k` of call `c`: its arguments without buffers (sbuf: MPI_IN_PLACE or NULL). */
void coll_rdma_call_key(coll_rdma_call_t *k, const coll_rdma_call_t *c);

/** A blocking collective's standing operation and the call it was made for. */
typedef struct coll_rdma_standing {
    coll_rdma_op_t op;
    bool valid;              /* op holds the program of `key` */
    coll_rdma_call_t key;    /* no buffers (sbuf: MPI_IN_PLACE or NULL); its datatypes and op
                              * retained */
    coll_rdma_stats_t stats; /* what each of its calls counts */
} coll_rdma_standing_t;

/**
 * The standing operation of `m` for c->coll when the call matches its key
 * (collective, counts, datatype and op handles, root, MPI_IN_PLACE), with
 * c's buffers bound and c->elem, c->nelem, c->rescued filled in; NULL
 * otherwise.  Handles are compared safely: the key holds a reference on
 * them, so a freed handle's memory cannot come back as another type.
 */
coll_rdma_standing_t *coll_rdma_call_standing(mca_coll_rdma_module_t *m, coll_rdma_call_t *c,
                                              struct ompi_communicator_t *comm);

/**
 * The standing operation of `m` for `coll`, emptied (coll_rdma_op_fini) and
 * marked not valid, for the caller to prepare a new program in; allocated
 * at first use.  NULL when out of memory.
 */
coll_rdma_standing_t *coll_rdma_call_standing_slot(mca_coll_rdma_module_t *m, int coll);

/**
 * Make s->op, just prepared for call `c`, the standing program of its
 * collective, whose calls count `stats`.  Calls that pack (op->tmp) are not
 * kept: returns false and leaves s not valid.
 */
bool coll_rdma_call_stand(coll_rdma_standing_t *s, const coll_rdma_call_t *c,
                          const coll_rdma_stats_t *stats);

/** Free the standing operations of `m` and drop their references. */
void coll_rdma_call_release(mca_coll_rdma_module_t *m);

#endif /* COLL_RDMA_CALL_H */
