/*
 * coll/rdma calls: decision, preparation and the standing operations of
 * blocking calls (coll_rdma_call.h).
 */
#include "ompi_config.h"

#include "coll_rdma_call.h"
#include "coll_rdma_decision.h"
#include "coll_rdma_dtype.h"
#include "coll_rdma_op.h"
#include "coll_rdma_plans.h"

#include "ompi/mca/coll/base/coll_base_util.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define contiguous coll_rdma_dtype_contiguous

/* A call without data: no buffers, an empty program that takes no instance
 * (the parity arguments need every instance to move data through every
 * rank).  A barrier is never empty. */
static inline bool empty(const coll_rdma_call_t *c)
{
    return COLL_RDMA_BARRIER != c->coll && 0 == coll_rdma_call_bytes(c);
}

bool coll_rdma_call_suspect(const coll_rdma_call_t *c)
{
    return (COLL_RDMA_REDUCE == c->coll || COLL_RDMA_ALLREDUCE == c->coll)
           && coll_rdma_op_suspect(c->op, c->rdtype);
}

int coll_rdma_call_decide(mca_coll_rdma_module_t *m, struct ompi_communicator_t *comm,
                          coll_rdma_call_t *c, int *why)
{
    const coll_rdma_config_t *cfg = m->cfg;
    int size = ompi_comm_size(comm);
    size_t bytes = coll_rdma_call_bytes(c);
    coll_rdma_reach_t reach;
    bool supported, wrong;

    /* MPI 4's large counts (coll API 3.0.0): the plans count in int */
    if (OPAL_UNLIKELY(c->scount > INT_MAX || c->rcount > INT_MAX)) {
        *why = COLL_RDMA_WHY_TOO_LARGE;
        return COLL_RDMA_ALG_FALLBACK;
    }
    reach.all_direct = m->window->all_direct;
    reach.emulated = m->window->emulated;
    reach.nnodes = m->window->nodes ? m->window->nnodes : 0;
    reach.rsag_allreduce = m->window->rsag_allreduce.segment;
    reach.rsag_reduce = m->window->rsag_reduce.segment;
    reach.bcast_tree_cut = m->window->bcast_tree_cut;
    reach.bcast_read_cut = m->window->bcast_read_cut;
    switch (c->coll) {
    case COLL_RDMA_BARRIER:
        return coll_rdma_decide_barrier(cfg, size, &reach, why);
    case COLL_RDMA_BCAST:
        return coll_rdma_decide_bcast(cfg, size, bytes, &reach, why);
    case COLL_RDMA_ALLGATHER:
        return coll_rdma_decide_allgather(cfg, size, bytes, &reach, why);
    case COLL_RDMA_ALLTOALL:
        return coll_rdma_decide_alltoall(cfg, size, bytes, &reach, why);
    default:
        break;
    }
    c->elem = coll_rdma_reduce_elem(c->rdtype, bytes, &c->nelem);
    supported = NULL != c->elem && coll_rdma_op_supported(c->op, c->elem);
    wrong = supported && coll_rdma_op_is_fallback_wrong(m->fallback_wrong, c->op, c->elem);
    if (COLL_RDMA_REDUCE == c->coll) {
        return coll_rdma_decide_reduce(cfg, size, bytes, NULL != c->elem, supported, &reach,
                                       wrong, &c->rescued, why);
    }
    return coll_rdma_decide_allreduce(cfg, size, bytes, NULL != c->elem, supported,
                                      supported && coll_rdma_op_order_independent(c->op, c->elem),
                                      &reach, wrong, &c->rescued, why);
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
static int views(coll_rdma_op_t *op, const coll_rdma_call_t *c, size_t in_bytes, size_t out_bytes,
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
        /* PACK and UNPACK read the user's types when they run, maybe after
         * the user freed them (MPI_Type_free of a type in use by a pending
         * call is allowed) */
        op->held[0] = pack_in ? c->sdtype : NULL;
        op->held[1] = pack_out ? c->rdtype : NULL;
        for (int i = 0; i < 2; ++i) {
            if (NULL != op->held[i]) {
                OBJ_RETAIN(op->held[i]);
            }
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
 * Bind the call's buffers to `op`: the user's arguments for PACK and
 * UNPACK, and op->sbuf / op->rbuf through views().  For a call whose
 * layouts are contiguous this adds no action, so a standing operation is
 * bound again at every call.
 */
int coll_rdma_call_bind(coll_rdma_op_t *op, const coll_rdma_call_t *c,
                        struct ompi_communicator_t *comm)
{
    int size = ompi_comm_size(comm), rank = ompi_comm_rank(comm);
    size_t bytes = coll_rdma_call_bytes(c), all = (size_t) size * bytes;
    bool root = rank == c->root, in_place = MPI_IN_PLACE == c->sbuf;

    op->user_sbuf = c->sbuf;
    op->user_scount = c->scount;
    op->user_sdtype = c->sdtype;
    op->user_rbuf = c->rbuf;
    op->user_rcount = c->rcount;
    op->user_rdtype = c->rdtype;
    if (empty(c)) {
        return OMPI_SUCCESS;
    }
    switch (c->coll) {
    case COLL_RDMA_BCAST:
        return views(op, c, 0, bytes, 0, root, !root);
    case COLL_RDMA_ALLREDUCE:
        return views(op, c, bytes, bytes, 0, in_place, true);
    case COLL_RDMA_REDUCE: /* the output is significant at the root only */
        return views(op, c, bytes, root ? bytes : 0, 0, in_place, true);
    case COLL_RDMA_ALLGATHER:
        op->user_rcount = c->rcount * (size_t) size;
        return views(op, c, bytes, all, (size_t) rank * bytes, in_place, true);
    case COLL_RDMA_ALLTOALL:
        op->user_scount = c->scount * (size_t) size;
        op->user_rcount = c->rcount * (size_t) size;
        return views(op, c, all, all, 0, in_place, true);
    default:
        return OMPI_SUCCESS;
    }
}

int coll_rdma_call_prepare(coll_rdma_op_t *op, const coll_rdma_call_t *c,
                           struct ompi_communicator_t *comm)
{
    size_t bytes = coll_rdma_call_bytes(c);
    int rc;

    op->dtype = c->elem;
    op->count = c->nelem;
    op->op = c->op;
    /* only the two-level allreduces ask (their algorithm across nodes) */
    op->order_independent = (COLL_RDMA_ALG_HIER == op->alg || COLL_RDMA_ALG_NPORT == op->alg)
                            && NULL != c->elem
                            && coll_rdma_op_order_independent(c->op, c->elem);
    op->root = c->root;
    op->bytes = bytes;
    op->unpack_bytes = 0;
    rc = coll_rdma_call_bind(op, c, comm);
    if (empty(c)) {
        op->prog.nseq = 0;
        return OMPI_SUCCESS;
    }
    if (OMPI_SUCCESS == rc) {
        rc = coll_rdma_plan(op);
    }
    if (OMPI_SUCCESS == rc && op->unpack_bytes > 0) {
        coll_rdma_act_t *a = coll_rdma_prog_add(&op->prog, COLL_RDMA_ACT_UNPACK, 0);
        a->src = coll_rdma_buf(COLL_RDMA_BUF_TMP, 0);
        a->len = op->unpack_bytes;
        rc = op->prog.failed ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
    }
    return rc;
}

/* ---- standing operations of blocking calls ---------------------------------- */

static void key_release(coll_rdma_call_t *k)
{
    ompi_datatype_t *types[2] = {k->sdtype, k->rdtype};

    for (int i = 0; i < 2; ++i) {
        if (NULL != types[i]) {
            OBJ_RELEASE(types[i]);
        }
    }
    if (NULL != k->op) {
        OBJ_RELEASE(k->op);
    }
    memset(k, 0, sizeof(*k));
}

bool coll_rdma_call_matches(const coll_rdma_call_t *k, coll_rdma_call_t *c)
{
    if (k->scount != c->scount || k->sdtype != c->sdtype || k->rcount != c->rcount
        || k->rdtype != c->rdtype || k->op != c->op || k->root != c->root
        || (MPI_IN_PLACE == k->sbuf) != (MPI_IN_PLACE == c->sbuf)) {
        return false;
    }
    c->elem = k->elem;
    c->nelem = k->nelem;
    c->rescued = k->rescued;
    return true;
}

void coll_rdma_call_key(coll_rdma_call_t *k, const coll_rdma_call_t *c)
{
    *k = *c;
    k->sbuf = MPI_IN_PLACE == c->sbuf ? MPI_IN_PLACE : NULL;
    k->rbuf = NULL;
}

coll_rdma_standing_t *coll_rdma_call_standing(mca_coll_rdma_module_t *m, coll_rdma_call_t *c,
                                              struct ompi_communicator_t *comm)
{
    coll_rdma_standing_t *s = m->standing[c->coll];

    if (NULL == s || !s->valid || !coll_rdma_call_matches(&s->key, c)) {
        return NULL;
    }
    return OMPI_SUCCESS == coll_rdma_call_bind(&s->op, c, comm) ? s : NULL;
}

coll_rdma_standing_t *coll_rdma_call_standing_slot(mca_coll_rdma_module_t *m, int coll)
{
    coll_rdma_standing_t *s = m->standing[coll];

    if (NULL == s) {
        s = m->standing[coll] = calloc(1, sizeof(*s));
        if (NULL == s) {
            return NULL;
        }
        coll_rdma_prog_init(&s->op.prog);
    }
    if (s->valid) {
        s->valid = false;
        key_release(&s->key);
    }
    coll_rdma_op_fini(&s->op);
    return s;
}

bool coll_rdma_call_stand(coll_rdma_standing_t *s, const coll_rdma_call_t *c,
                          const coll_rdma_stats_t *stats)
{
    if (NULL != s->op.tmp) {
        return false;
    }
    coll_rdma_call_key(&s->key, c);
    if (NULL != c->sdtype) {
        OBJ_RETAIN(c->sdtype);
    }
    if (NULL != c->rdtype) {
        OBJ_RETAIN(c->rdtype);
    }
    if (NULL != c->op) {
        OBJ_RETAIN(c->op);
    }
    s->stats = *stats;
    s->valid = true;
    return true;
}

void coll_rdma_call_release(mca_coll_rdma_module_t *m)
{
    for (int coll = 0; coll < COLL_RDMA_NCOLLS; ++coll) {
        coll_rdma_standing_t *s = m->standing[coll];
        if (NULL != s) {
            if (s->valid) {
                key_release(&s->key);
            }
            coll_rdma_op_fini(&s->op);
            free(s);
            m->standing[coll] = NULL;
        }
    }
}

bool coll_rdma_call_internal(const coll_rdma_call_t *c)
{
    size_t n = 0;

    if (sizeof(int) != coll_rdma_call_bytes(c)) {
        return false;
    }
    switch (c->coll) {
    case COLL_RDMA_ALLREDUCE:
    case COLL_RDMA_REDUCE:
        /* MPI_MAX and MPI_MIN take predefined types only: the handle is the signature */
        return MPI_INT == c->rdtype && (MPI_MAX == c->op || MPI_MIN == c->op);
    case COLL_RDMA_BCAST:
        return MPI_INT == coll_rdma_reduce_elem(c->rdtype, sizeof(int), &n) && 1 == n;
    default:
        return false;
    }
}

bool coll_rdma_call_hands_on_alike(const mca_coll_rdma_module_t *m, int coll)
{
    switch (coll) {
    case COLL_RDMA_BARRIER:
        return m->previous_ibarrier_module == m->previous_barrier_init_module;
    case COLL_RDMA_BCAST:
        return m->previous_ibcast_module == m->previous_bcast_init_module;
    case COLL_RDMA_ALLREDUCE:
        return m->previous_iallreduce_module == m->previous_allreduce_init_module;
    case COLL_RDMA_REDUCE:
        return m->previous_ireduce_module == m->previous_reduce_init_module;
    case COLL_RDMA_ALLGATHER:
        return m->previous_iallgather_module == m->previous_allgather_init_module;
    default:
        return m->previous_ialltoall_module == m->previous_alltoall_init_module;
    }
}

void coll_rdma_call_keep_tag(struct ompi_communicator_t *comm)
{
    (void) ompi_coll_base_nbc_reserve_tags(comm, 1);
}

int coll_rdma_call_hand_on_init(mca_coll_rdma_module_t *m, struct ompi_communicator_t *comm,
                                const coll_rdma_call_t *c, struct ompi_info_t *info,
                                ompi_request_t **request)
{
    /* the previous component's count type: size_t from coll API 3.0.0 on
     * (large counts), int before (the entry points' counts are int there) */
    coll_rdma_count_t scount = (coll_rdma_count_t) c->scount;
    coll_rdma_count_t rcount = (coll_rdma_count_t) c->rcount;
    ompi_datatype_t *sdtype = c->sdtype;

    if (MPI_IN_PLACE == c->sbuf) {
        /* MPI ignores them, and the call keeps none (coll_rdma_entry.c):
         * give the previous component valid ones, the receive side's
         * (libnbc's alltoall reads the send type even in place) */
        scount = rcount;
        sdtype = c->rdtype;
    }

#define HAND_ON(name, ...)                                                                         \
    (NULL == m->previous_##name##_init                                                             \
         ? OMPI_ERR_NOT_SUPPORTED                                                                  \
         : m->previous_##name##_init(__VA_ARGS__, comm, info, request,                             \
                                     m->previous_##name##_init_module))
    switch (c->coll) {
    case COLL_RDMA_BARRIER:
        return NULL == m->previous_barrier_init
                   ? OMPI_ERR_NOT_SUPPORTED
                   : m->previous_barrier_init(comm, info, request, m->previous_barrier_init_module);
    case COLL_RDMA_BCAST:
        return HAND_ON(bcast, c->rbuf, rcount, c->rdtype, c->root);
    case COLL_RDMA_ALLREDUCE:
        return HAND_ON(allreduce, c->sbuf, c->rbuf, rcount, c->rdtype, c->op);
    case COLL_RDMA_REDUCE:
        return HAND_ON(reduce, c->sbuf, c->rbuf, rcount, c->rdtype, c->op, c->root);
    case COLL_RDMA_ALLGATHER:
        return HAND_ON(allgather, c->sbuf, scount, sdtype, c->rbuf, rcount, c->rdtype);
    default:
        return HAND_ON(alltoall, c->sbuf, scount, sdtype, c->rbuf, rcount, c->rdtype);
    }
#undef HAND_ON
}
