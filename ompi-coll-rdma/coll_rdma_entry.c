/*
 * coll/rdma entry points: MPI's blocking, nonblocking (MPI_I*) and
 * persistent (MPI_*_init) barrier, bcast, allreduce, reduce, allgather and
 * alltoall.  One path for all eighteen: the call's arguments -> decision ->
 * an operation with its program (the algorithm's plan, with packing around
 * it for non-contiguous layouts) -> run to the end (blocking), started
 * (nonblocking), or kept for MPI_Start (persistent).  Everything not served
 * goes to the saved previous function, counted by reason.
 */
#include "ompi_config.h"

#include "coll_rdma.h"
#include "coll_rdma_request.h"

#include <stdlib.h>
#include <string.h>

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/runtime/mpiruntime.h"

/* A collective call's arguments as MPI gave them.  bcast, allreduce, reduce:
 * count and dtype on both sides. */
typedef struct call {
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
} call_t;

/* ---- statistics ------------------------------------------------------------ */

/* Threads may run collectives on distinct communicators at once. */
static inline void stat_add(uint64_t *counter, uint64_t n)
{
    if (OPAL_UNLIKELY(ompi_mpi_thread_multiple)) {
        __atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
    } else {
        *counter += n;
    }
}

/*
 * A call served only because Open MPI's own reduction of its (op, type) is
 * wrong (the decision's rescued): counted, and said once per collective and
 * pair at verbose >= 1 (by the communicator's rank 0).
 */
static void stat_rescued(const call_t *c, int alg, struct ompi_communicator_t *comm)
{
    static uint64_t said[COLL_RDMA_NCOLLS][OMPI_OP_BASE_FORTRAN_OP_MAX];
    int f = c->op->o_f_to_c_index, t = ompi_op_ddt_map[c->elem->id];
    uint64_t bit = (uint64_t) 1 << t;

    stat_add(&mca_coll_rdma_component.wrong_fallback_calls[c->coll], 1);
    if (mca_coll_rdma_component.verbose >= 1 && 0 == ompi_comm_rank(comm)
        && 0 == (__atomic_fetch_or(&said[c->coll][f], bit, __ATOMIC_RELAXED) & bit)) {
        mca_coll_rdma_output("%s %s on %s: Open MPI's own reduction computes wrong results on "
                             "this installation (op self-test), so coll/rdma serves such calls at "
                             "every size, beyond its thresholds (%s)",
                             COLL_RDMA_ALLREDUCE == c->coll ? "MPI_Allreduce" : "MPI_Reduce",
                             c->op->o_name, c->elem->name,
                             COLL_RDMA_ALG_RING == alg ? "segmented ring" : "k-nomial tree in chunks");
    }
}

/* ---- the algorithms, as plans ---------------------------------------------- */


/* ---- one call --------------------------------------------------------------- */

#define contiguous coll_rdma_dtype_contiguous

/* Bytes the call moves per rank's message (bcast, reductions) or per block
 * (allgather, alltoall): from the receive side, whose signature every rank
 * shares. */
static size_t call_bytes(const call_t *c)
{
    return NULL == c->rdtype ? 0 : c->rcount * c->rdtype->super.size;
}

/*
 * The algorithm for the call, or COLL_RDMA_ALG_FALLBACK with *why.  Every
 * input is agreed configuration or required equal on all ranks by MPI.
 */
static int decide(mca_coll_rdma_module_t *m, struct ompi_communicator_t *comm, call_t *c,
                  bool may_setup, int *why)
{
    const coll_rdma_config_t *cfg = &mca_coll_rdma_component.config;
    int size = ompi_comm_size(comm);
    size_t bytes = call_bytes(c);
    bool direct, supported, wrong, reduction = COLL_RDMA_REDUCE == c->coll
                                                 || COLL_RDMA_ALLREDUCE == c->coll;

    if (!coll_rdma_module_window_ready(m, comm, may_setup,
                                       reduction && coll_rdma_op_suspect(c->op, c->rdtype), why)) {
        return COLL_RDMA_ALG_FALLBACK;
    }
    direct = m->window->all_direct;
    switch (c->coll) {
    case COLL_RDMA_BARRIER:
        return coll_rdma_decide_barrier(cfg, size, direct, why);
    case COLL_RDMA_BCAST:
        return coll_rdma_decide_bcast(cfg, size, bytes, direct, why);
    case COLL_RDMA_ALLGATHER:
        return coll_rdma_decide_allgather(cfg, size, bytes, why);
    case COLL_RDMA_ALLTOALL:
        return coll_rdma_decide_alltoall(cfg, size, bytes, why);
    default:
        break;
    }
    c->elem = coll_rdma_reduce_elem(c->rdtype, bytes, &c->nelem);
    supported = NULL != c->elem && coll_rdma_op_supported(c->op, c->elem);
    wrong = supported && coll_rdma_op_is_fallback_wrong(m->fallback_wrong, c->op, c->elem);
    if (COLL_RDMA_REDUCE == c->coll) {
        return coll_rdma_decide_reduce(cfg, size, bytes, NULL != c->elem, supported, wrong,
                                       &c->rescued, why);
    }
    return coll_rdma_decide_allreduce(cfg, size, bytes, NULL != c->elem, supported,
                                      supported && coll_rdma_op_order_independent(c->op, c->elem),
                                      direct, wrong, &c->rescued, why);
}

/*
 * Contiguous views of the call's data: the algorithms move contiguous bytes
 * (decisions use signatures only, coll_rdma_dtype.c).  A contiguous layout
 * is used in place from its true lower bound; any other goes through
 * op->tmp, packed by a PACK action before the plan and unpacked by an
 * UNPACK action after it.
 *   in_bytes    the input's packed bytes (0: no input; in place: inside the
 *               output at in_place_offset)
 *   out_bytes   the output's packed bytes (0: no output on this rank)
 *   fill        the output holds data before the plan (in place, bcast root)
 *   unpack      the output is a result (not at a bcast root)
 */
static int views(coll_rdma_op_t *op, const call_t *c, size_t in_bytes, size_t out_bytes,
                 size_t in_place_offset, bool fill, bool unpack)
{
    bool in_place = MPI_IN_PLACE == c->sbuf;
    bool pack_in = in_bytes > 0 && !in_place && !contiguous(c->sdtype, op->user_scount);
    bool pack_out = out_bytes > 0 && !contiguous(c->rdtype, op->user_rcount);
    size_t at = pack_out ? out_bytes : 0;
    coll_rdma_act_t *a;

    if (pack_in || pack_out) {
        op->tmp = malloc(at + (pack_in ? in_bytes : 0));
        if (NULL == op->tmp) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
    }
    op->rbuf = NULL;
    if (pack_out) {
        op->rbuf = op->tmp;
        if (fill) {
            a = coll_rdma_prog_add(&op->prog, COLL_RDMA_ACT_PACK, 0);
            a->peer = 1;
            a->dst = coll_rdma_buf(COLL_RDMA_BUF_TMP, 0);
            a->len = out_bytes;
        }
        op->unpack_bytes = unpack ? out_bytes : 0;
    } else if (out_bytes > 0) {
        op->rbuf = (char *) c->rbuf + c->rdtype->super.true_lb;
    }
    if (0 == in_bytes) {
        op->sbuf = op->rbuf;
    } else if (in_place) {
        /* the algorithms handle input inside the output */
        op->sbuf = (char *) op->rbuf + in_place_offset;
    } else if (pack_in) {
        a = coll_rdma_prog_add(&op->prog, COLL_RDMA_ACT_PACK, 0);
        a->peer = 0;
        a->dst = coll_rdma_buf(COLL_RDMA_BUF_TMP, at);
        a->len = in_bytes;
        op->sbuf = op->tmp + at;
    } else {
        op->sbuf = (const char *) c->sbuf + c->sdtype->super.true_lb;
    }
    return op->prog.failed ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}

/*
 * A reduce larger than the window's reduce slots (decided only where Open
 * MPI's own reduction of the pair is wrong): one k-nomial instance per chunk
 * of at most the slot payload, in order, in one program.  Every rank cuts the
 * same chunks (count and type match); chunk g's actions take instance
 * first + g and the chunk's part of the user's buffers, so the slot and
 * credit arguments hold as for separate calls.
 */
static int plan_chunks(coll_rdma_op_t *op)
{
    size_t extent = op->dtype->super.size, chunk = op->win->reduce_bytes / extent;
    size_t count = op->count;
    uint32_t g = 0;
    int rc = OMPI_SUCCESS;

    for (size_t done = 0; OMPI_SUCCESS == rc && done < count; done += chunk, ++g) {
        int first = op->prog.n;
        op->count = count - done < chunk ? count - done : chunk;
        op->bytes = op->count * extent;
        rc = coll_rdma_reduce_knomial_plan(op);
        for (int i = first; i < op->prog.n; ++i) {
            coll_rdma_act_t *a = &op->prog.acts[i];
            coll_rdma_buf_t *bufs[2] = {&a->src, &a->dst};
            a->dseq += g;
            for (int b = 0; b < 2; ++b) {
                if (COLL_RDMA_BUF_SBUF == bufs[b]->base || COLL_RDMA_BUF_RBUF == bufs[b]->base) {
                    bufs[b]->off += done * extent;
                }
            }
        }
    }
    op->count = count;
    op->bytes = count * extent;
    op->prog.nseq = g;
    return rc;
}

/*
 * Blocking calls replay their program: a program names buffers, not
 * addresses (coll_rdma_prog.h), so it depends only on the algorithm, the
 * bytes (and, for reductions, the element type and count), the op, the root
 * and whether the call is in place, besides the window and the
 * configuration, which are fixed per module.  Never on a user datatype's
 * handle: a freed datatype's address comes back for another type.
 * The last program per collective is kept; a call with the same key runs it
 * again without planning (what a persistent request does).  Calls that pack
 * (non-contiguous layouts) are planned every time.
 */
typedef struct coll_rdma_plan_key {
    int alg, root;
    bool in_place;
    size_t bytes, nelem;
    const void *elem, *op; /* predefined: never freed */
} plan_key_t;

struct coll_rdma_cached_prog {
    plan_key_t key;
    coll_rdma_act_t *acts;
    int n;
    uint32_t nseq;
};

static void plan_key(plan_key_t *k, const call_t *c, int alg)
{
    memset(k, 0, sizeof(*k)); /* compared with memcmp: no stray padding */
    k->alg = alg;
    k->root = c->root;
    k->in_place = MPI_IN_PLACE == c->sbuf;
    k->bytes = call_bytes(c);
    k->nelem = c->nelem;
    k->elem = c->elem;
    k->op = c->op;
}

/* Run the cached program of this call's key, if there is one. */
static bool replay(coll_rdma_op_t *op, const plan_key_t *k)
{
    struct coll_rdma_cached_prog *cp = op->module->cached[op->coll];

    if (NULL == cp || 0 != memcmp(&cp->key, k, sizeof(*k))) {
        return false;
    }
    op->prog.acts = cp->acts;
    op->prog.n = op->prog.cap = cp->n;
    op->prog.nseq = cp->nseq;
    op->prog.borrowed = true;
    return true;
}

/* Keep the program just planned for the next call with this key. */
static void keep(const coll_rdma_op_t *op, const plan_key_t *k)
{
    struct coll_rdma_cached_prog *cp = op->module->cached[op->coll];
    coll_rdma_act_t *acts = malloc((size_t) (op->prog.n > 0 ? op->prog.n : 1) * sizeof(*acts));

    if (NULL == acts) {
        return;
    }
    if (NULL == cp && NULL == (cp = op->module->cached[op->coll] = calloc(1, sizeof(*cp)))) {
        free(acts);
        return;
    }
    free(cp->acts);
    memcpy(acts, op->prog.acts, (size_t) op->prog.n * sizeof(*acts));
    cp->key = *k;
    cp->acts = acts;
    cp->n = op->prog.n;
    cp->nseq = op->prog.nseq;
}

void coll_rdma_entry_release(mca_coll_rdma_module_t *m)
{
    for (int coll = 0; coll < COLL_RDMA_NCOLLS; ++coll) {
        if (NULL != m->cached[coll]) {
            free(m->cached[coll]->acts);
            free(m->cached[coll]);
            m->cached[coll] = NULL;
        }
    }
}

/*
 * Give `op` the call's arguments and its program: [PACK] plan [UNPACK].
 * An empty call (no bytes) gets an empty program that takes no instance:
 * the parity arguments need every instance to move data through every rank.
 */
static int prepare(coll_rdma_op_t *op, const call_t *c, struct ompi_communicator_t *comm,
                   bool cache)
{
    plan_key_t key;
    int size = ompi_comm_size(comm), rank = ompi_comm_rank(comm);
    size_t bytes = call_bytes(c), all = (size_t) size * bytes;
    bool root = rank == c->root, in_place = MPI_IN_PLACE == c->sbuf;
    int rc = OMPI_SUCCESS;

    op->user_sbuf = c->sbuf;
    op->user_scount = c->scount;
    op->user_sdtype = c->sdtype;
    op->user_rbuf = c->rbuf;
    op->user_rcount = c->rcount;
    op->user_rdtype = c->rdtype;
    op->dtype = c->elem;
    op->count = c->nelem;
    op->op = c->op;
    op->root = c->root;
    op->bytes = bytes;
    op->unpack_bytes = 0;
    if (COLL_RDMA_BARRIER != c->coll && 0 == bytes) {
        op->prog.nseq = 0;
        return OMPI_SUCCESS;
    }
    switch (c->coll) {
    case COLL_RDMA_BCAST:
        rc = views(op, c, 0, bytes, 0, root, !root);
        break;
    case COLL_RDMA_ALLREDUCE:
        rc = views(op, c, bytes, bytes, 0, in_place, true);
        break;
    case COLL_RDMA_REDUCE: /* the output is significant at the root only */
        rc = views(op, c, bytes, root ? bytes : 0, 0, in_place, true);
        break;
    case COLL_RDMA_ALLGATHER:
        op->user_rcount = c->rcount * (size_t) size;
        rc = views(op, c, bytes, all, (size_t) rank * bytes, in_place, true);
        break;
    case COLL_RDMA_ALLTOALL:
        op->user_scount = c->scount * (size_t) size;
        op->user_rcount = c->rcount * (size_t) size;
        rc = views(op, c, all, all, 0, in_place, true);
        break;
    default:
        break;
    }
    cache = cache && OMPI_SUCCESS == rc && NULL == op->tmp;
    if (cache) {
        plan_key(&key, c, op->alg);
        if (replay(op, &key)) {
            return OMPI_SUCCESS;
        }
    }
    if (OMPI_SUCCESS == rc && COLL_RDMA_REDUCE == c->coll && bytes > op->win->reduce_bytes) {
        rc = plan_chunks(op);
    } else if (OMPI_SUCCESS == rc) {
        rc = coll_rdma_plans[c->coll][op->alg](op);
    }
    if (cache && OMPI_SUCCESS == rc) {
        keep(op, &key);
    }
    if (OMPI_SUCCESS == rc && op->unpack_bytes > 0) {
        coll_rdma_act_t *a = coll_rdma_prog_add(&op->prog, COLL_RDMA_ACT_UNPACK, 0);
        a->src = coll_rdma_buf(COLL_RDMA_BUF_TMP, 0);
        a->len = op->unpack_bytes;
        rc = op->prog.failed ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
    }
    return rc;
}

/*
 * Serve the call if coll/rdma does: then *rc is the call's result (and
 * *request the new request of a nonblocking or persistent call) and the
 * return is true.  False: the caller hands it to the previous function.
 */
static bool served(mca_coll_rdma_module_t *m, struct ompi_communicator_t *comm, call_t *c,
                   int kind, ompi_request_t **request, int *rc)
{
    mca_coll_rdma_component_t *cc = &mca_coll_rdma_component;
    coll_rdma_request_t *req = NULL;
    coll_rdma_op_t o, *op = &o;
    int why, alg = decide(m, comm, c, COLL_RDMA_KIND_BLOCKING == kind, &why);
    size_t moved = call_bytes(c);

    if (COLL_RDMA_ALG_FALLBACK == alg) {
        stat_add(&cc->fallback_calls[kind][c->coll][why], 1);
        return false;
    }
    if (COLL_RDMA_ALLGATHER == c->coll || COLL_RDMA_ALLTOALL == c->coll) {
        moved *= (size_t) ompi_comm_size(comm);
    }
    if (c->rescued) {
        stat_rescued(c, alg, comm);
    }
    stat_add(&cc->served_calls[kind][c->coll][alg], 1);
    stat_add(&cc->served_bytes[kind][c->coll][alg], moved);
    if (COLL_RDMA_ALLREDUCE == c->coll && COLL_RDMA_ALG_BRUCK == alg
        && COLL_RDMA_ALG_NWAY == cc->config.alg[COLL_RDMA_ALLREDUCE]) {
        /* forced nway on a (n, P) without a plan: Bruck served it */
        stat_add(&cc->allreduce_nway_not_adaptable, 1);
    }
    if (COLL_RDMA_KIND_BLOCKING != kind) {
        req = coll_rdma_request_alloc(m, comm, COLL_RDMA_KIND_PERSISTENT == kind);
        if (NULL == req) {
            *rc = OMPI_ERR_OUT_OF_RESOURCE;
            return true;
        }
        op = &req->op;
    }
    coll_rdma_op_init(op, m, &cc->config, c->coll, alg);
    *rc = prepare(op, c, comm, COLL_RDMA_KIND_BLOCKING == kind);
    if (COLL_RDMA_KIND_BLOCKING == kind) {
        if (OMPI_SUCCESS == *rc) {
            *rc = coll_rdma_op_run(op);
        } else {
            coll_rdma_op_fini(op);
        }
        return true;
    }
    if (OMPI_SUCCESS != *rc) {
        ompi_request_t *r = &req->super;
        req->super.req_complete = REQUEST_COMPLETED;
        (void) req->super.req_free(&r);
        return true;
    }
    if (COLL_RDMA_KIND_NONBLOCKING == kind) {
        coll_rdma_request_start(req);
    }
    *request = &req->super;
    return true;
}

/* ---- the eighteen entry points ------------------------------------------------ */

#define M(module) ((mca_coll_rdma_module_t *) (module))
/* The saved previous function, or "not supported" where the stack below had none. */
#define PREVIOUS(m, name, ...)                                                                     \
    (NULL == (m)->previous_##name ? OMPI_ERR_NOT_SUPPORTED                                         \
                                  : (m)->previous_##name(__VA_ARGS__, (m)->previous_##name##_module))

#define CALL_BARRIER {COLL_RDMA_BARRIER, NULL, 0, NULL, NULL, 0, NULL, NULL, 0}
#define CALL_BCAST {COLL_RDMA_BCAST, buf, (size_t) count, dtype, buf, (size_t) count, dtype, NULL, root}
#define CALL_ALLREDUCE                                                                             \
    {COLL_RDMA_ALLREDUCE, sbuf, (size_t) count, dtype, rbuf, (size_t) count, dtype, op, 0}
#define CALL_REDUCE {COLL_RDMA_REDUCE, sbuf, (size_t) count, dtype, rbuf, (size_t) count, dtype, op, root}
#define CALL_BLOCKS(coll)                                                                          \
    {coll, sbuf, (size_t) scount, sdtype, rbuf, (size_t) rcount, rdtype, NULL, 0}

static int rdma_barrier(struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    call_t c = CALL_BARRIER;
    int rc;
    return served(M(module), comm, &c, COLL_RDMA_KIND_BLOCKING, NULL, &rc)
               ? rc
               : PREVIOUS(M(module), barrier, comm);
}

static int rdma_ibarrier(struct ompi_communicator_t *comm, ompi_request_t **request,
                         mca_coll_base_module_t *module)
{
    call_t c = CALL_BARRIER;
    int rc;
    return served(M(module), comm, &c, COLL_RDMA_KIND_NONBLOCKING, request, &rc)
               ? rc
               : PREVIOUS(M(module), ibarrier, comm, request);
}

static int rdma_barrier_init(struct ompi_communicator_t *comm, struct ompi_info_t *info,
                             ompi_request_t **request, mca_coll_base_module_t *module)
{
    call_t c = CALL_BARRIER;
    int rc;
    return served(M(module), comm, &c, COLL_RDMA_KIND_PERSISTENT, request, &rc)
               ? rc
               : PREVIOUS(M(module), barrier_init, comm, info, request);
}

static int rdma_bcast(void *buf, int count, ompi_datatype_t *dtype, int root,
                      struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    call_t c = CALL_BCAST;
    int rc;
    return served(M(module), comm, &c, COLL_RDMA_KIND_BLOCKING, NULL, &rc)
               ? rc
               : PREVIOUS(M(module), bcast, buf, count, dtype, root, comm);
}

static int rdma_ibcast(void *buf, int count, ompi_datatype_t *dtype, int root,
                       struct ompi_communicator_t *comm, ompi_request_t **request,
                       mca_coll_base_module_t *module)
{
    call_t c = CALL_BCAST;
    int rc;
    return served(M(module), comm, &c, COLL_RDMA_KIND_NONBLOCKING, request, &rc)
               ? rc
               : PREVIOUS(M(module), ibcast, buf, count, dtype, root, comm, request);
}

static int rdma_bcast_init(void *buf, int count, ompi_datatype_t *dtype, int root,
                           struct ompi_communicator_t *comm, struct ompi_info_t *info,
                           ompi_request_t **request, mca_coll_base_module_t *module)
{
    call_t c = CALL_BCAST;
    int rc;
    return served(M(module), comm, &c, COLL_RDMA_KIND_PERSISTENT, request, &rc)
               ? rc
               : PREVIOUS(M(module), bcast_init, buf, count, dtype, root, comm, info, request);
}

static int rdma_allreduce(const void *sbuf, void *rbuf, int count, ompi_datatype_t *dtype,
                          ompi_op_t *op, struct ompi_communicator_t *comm,
                          mca_coll_base_module_t *module)
{
    call_t c = CALL_ALLREDUCE;
    int rc;
    return served(M(module), comm, &c, COLL_RDMA_KIND_BLOCKING, NULL, &rc)
               ? rc
               : PREVIOUS(M(module), allreduce, sbuf, rbuf, count, dtype, op, comm);
}

static int rdma_iallreduce(const void *sbuf, void *rbuf, int count, ompi_datatype_t *dtype,
                           ompi_op_t *op, struct ompi_communicator_t *comm,
                           ompi_request_t **request, mca_coll_base_module_t *module)
{
    call_t c = CALL_ALLREDUCE;
    int rc;
    return served(M(module), comm, &c, COLL_RDMA_KIND_NONBLOCKING, request, &rc)
               ? rc
               : PREVIOUS(M(module), iallreduce, sbuf, rbuf, count, dtype, op, comm, request);
}

static int rdma_allreduce_init(const void *sbuf, void *rbuf, int count, ompi_datatype_t *dtype,
                               ompi_op_t *op, struct ompi_communicator_t *comm,
                               struct ompi_info_t *info, ompi_request_t **request,
                               mca_coll_base_module_t *module)
{
    call_t c = CALL_ALLREDUCE;
    int rc;
    return served(M(module), comm, &c, COLL_RDMA_KIND_PERSISTENT, request, &rc)
               ? rc
               : PREVIOUS(M(module), allreduce_init, sbuf, rbuf, count, dtype, op, comm, info,
                          request);
}

static int rdma_reduce(const void *sbuf, void *rbuf, int count, ompi_datatype_t *dtype,
                       ompi_op_t *op, int root, struct ompi_communicator_t *comm,
                       mca_coll_base_module_t *module)
{
    call_t c = CALL_REDUCE;
    int rc;
    return served(M(module), comm, &c, COLL_RDMA_KIND_BLOCKING, NULL, &rc)
               ? rc
               : PREVIOUS(M(module), reduce, sbuf, rbuf, count, dtype, op, root, comm);
}

static int rdma_ireduce(const void *sbuf, void *rbuf, int count, ompi_datatype_t *dtype,
                        ompi_op_t *op, int root, struct ompi_communicator_t *comm,
                        ompi_request_t **request, mca_coll_base_module_t *module)
{
    call_t c = CALL_REDUCE;
    int rc;
    return served(M(module), comm, &c, COLL_RDMA_KIND_NONBLOCKING, request, &rc)
               ? rc
               : PREVIOUS(M(module), ireduce, sbuf, rbuf, count, dtype, op, root, comm, request);
}

static int rdma_reduce_init(const void *sbuf, void *rbuf, int count, ompi_datatype_t *dtype,
                            ompi_op_t *op, int root, struct ompi_communicator_t *comm,
                            struct ompi_info_t *info, ompi_request_t **request,
                            mca_coll_base_module_t *module)
{
    call_t c = CALL_REDUCE;
    int rc;
    return served(M(module), comm, &c, COLL_RDMA_KIND_PERSISTENT, request, &rc)
               ? rc
               : PREVIOUS(M(module), reduce_init, sbuf, rbuf, count, dtype, op, root, comm, info,
                          request);
}

/* allgather and alltoall share their signatures: one set of six by macro */
#define BLOCK_ENTRIES(name, COLL)                                                                  \
    static int rdma_##name(const void *sbuf, int scount, ompi_datatype_t *sdtype, void *rbuf,      \
                           int rcount, ompi_datatype_t *rdtype, struct ompi_communicator_t *comm,  \
                           mca_coll_base_module_t *module)                                         \
    {                                                                                              \
        call_t c = CALL_BLOCKS(COLL);                                                              \
        int rc;                                                                                    \
        return served(M(module), comm, &c, COLL_RDMA_KIND_BLOCKING, NULL, &rc)                     \
                   ? rc                                                                            \
                   : PREVIOUS(M(module), name, sbuf, scount, sdtype, rbuf, rcount, rdtype, comm);  \
    }                                                                                              \
    static int rdma_i##name(const void *sbuf, int scount, ompi_datatype_t *sdtype, void *rbuf,     \
                            int rcount, ompi_datatype_t *rdtype, struct ompi_communicator_t *comm, \
                            ompi_request_t **request, mca_coll_base_module_t *module)              \
    {                                                                                              \
        call_t c = CALL_BLOCKS(COLL);                                                              \
        int rc;                                                                                    \
        return served(M(module), comm, &c, COLL_RDMA_KIND_NONBLOCKING, request, &rc)              \
                   ? rc                                                                            \
                   : PREVIOUS(M(module), i##name, sbuf, scount, sdtype, rbuf, rcount, rdtype,      \
                              comm, request);                                                      \
    }                                                                                              \
    static int rdma_##name##_init(const void *sbuf, int scount, ompi_datatype_t *sdtype,           \
                                  void *rbuf, int rcount, ompi_datatype_t *rdtype,                 \
                                  struct ompi_communicator_t *comm, struct ompi_info_t *info,      \
                                  ompi_request_t **request, mca_coll_base_module_t *module)        \
    {                                                                                              \
        call_t c = CALL_BLOCKS(COLL);                                                              \
        int rc;                                                                                    \
        return served(M(module), comm, &c, COLL_RDMA_KIND_PERSISTENT, request, &rc)               \
                   ? rc                                                                            \
                   : PREVIOUS(M(module), name##_init, sbuf, scount, sdtype, rbuf, rcount, rdtype,  \
                              comm, info, request);                                                \
    }

BLOCK_ENTRIES(allgather, COLL_RDMA_ALLGATHER)
BLOCK_ENTRIES(alltoall, COLL_RDMA_ALLTOALL)

void coll_rdma_entry_install(mca_coll_rdma_module_t *m)
{
#define X_INSTALL(name)                                                                            \
    m->super.coll_##name = rdma_##name;                                                            \
    m->super.coll_i##name = rdma_i##name;                                                          \
    m->super.coll_##name##_init = rdma_##name##_init;
    X_INSTALL(barrier)
    X_INSTALL(bcast)
    X_INSTALL(allreduce)
    X_INSTALL(reduce)
    X_INSTALL(allgather)
    X_INSTALL(alltoall)
#undef X_INSTALL
}
