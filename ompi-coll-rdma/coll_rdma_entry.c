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

#include "coll_rdma_entry.h"
#include "coll_rdma_call.h"
#include "coll_rdma_op.h"
#include "coll_rdma_request.h"
#include "coll_rdma_stats.h"

#include <stdlib.h>
#include <string.h>

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/runtime/mpiruntime.h"
#include "opal/runtime/opal_progress.h"

/* The algorithms a call served only because Open MPI's reduction is wrong
 * may take (coll_rdma_decision.c, rescue()), for say_rescued(). */
static const char *rescued_alg(int coll, int alg)
{
    switch (alg) {
    case COLL_RDMA_ALG_RING:
        return "segmented ring";
    case COLL_RDMA_ALG_RSAG:
        return "reduce-scatter and allgather by reading, in segments";
    case COLL_RDMA_ALG_KNOMIAL:
        return COLL_RDMA_REDUCE == coll ? "k-nomial tree, in chunks of its slot" : "k-nomial tree";
    case COLL_RDMA_ALG_HIER:
        return "two levels, in chunks";
    default:
        return "the algorithm auto takes for its size";
    }
}

/*
 * A call served only because Open MPI's own reduction of its (op, type) is
 * wrong (the decision's rescued): said once per collective and pair at
 * verbose >= 1 (by the communicator's rank 0), with the first such call's
 * algorithm.
 */
static void say_rescued(const coll_rdma_call_t *c, int alg, struct ompi_communicator_t *comm)
{
    static uint64_t said[COLL_RDMA_NCOLLS][OMPI_OP_BASE_FORTRAN_OP_MAX];
    int f = c->op->o_f_to_c_index, t = ompi_op_ddt_map[c->elem->id];
    uint64_t bit = (uint64_t) 1 << t;

    if (coll_rdma_verbose(1) && 0 == ompi_comm_rank(comm)
        && 0 == (__atomic_fetch_or(&said[c->coll][f], bit, __ATOMIC_RELAXED) & bit)) {
        coll_rdma_output("%s %s on %s: Open MPI's own reduction computes wrong results on "
                         "this installation (op self-test), so coll/rdma serves such calls at "
                         "every size, beyond its thresholds (first such call: %s; reduced "
                         "with %s)",
                         COLL_RDMA_ALLREDUCE == c->coll ? "MPI_Allreduce" : "MPI_Reduce",
                         c->op->o_name, c->elem->name, rescued_alg(c->coll, alg),
                         coll_rdma_op_reducer(c->op, c->elem));
    }
}

/* A blocking call: its collective's standing operation, replanned when the
 * arguments changed (a stack operation if that cannot be allocated). */
static int run_blocking(mca_coll_rdma_module_t *m, struct ompi_communicator_t *comm,
                        const coll_rdma_call_t *c, int alg, const coll_rdma_stats_t *stats)
{
    coll_rdma_standing_t *s = coll_rdma_call_standing_slot(m, c->coll);
    coll_rdma_op_t stack_op, *op = NULL != s ? &s->op : &stack_op;
    int rc;

    coll_rdma_op_init(op, &m->queue, m->window, m->cfg, c->coll, alg);
    rc = coll_rdma_call_prepare(op, c, comm);
    if (OMPI_SUCCESS == rc) {
        rc = coll_rdma_op_run(op);
    }
    if (NULL == s || OMPI_SUCCESS != rc || !coll_rdma_call_stand(s, c, stats)) {
        coll_rdma_op_fini(op);
    }
    return rc;
}

/*
 * A nonblocking or persistent call of the tag span that coll/rdma hands on
 * (its window ready or failed on this rank): where the previous component's
 * nonblocking function is the one that made the early requests' fallbacks
 * (coll_rdma_call_hands_on_alike), the caller calls it (it takes one tag and
 * sends what an early request's fallback sends on another rank), as the
 * previous component's MPI_*_init for a persistent call; otherwise the call
 * becomes an early request, decided at once, run by its own fallback.
 * Returns _FALLBACK (the caller hands it on) or _SETUP (*rc, *request).
 */
static int span_fallback(mca_coll_rdma_module_t *m, struct ompi_communicator_t *comm,
                         coll_rdma_call_t *c, int kind, struct ompi_info_t *info,
                         ompi_request_t **request, int *rc)
{
    if (COLL_RDMA_KIND_PERSISTENT == kind || coll_rdma_call_hands_on_alike(m, c->coll)) {
        return COLL_RDMA_ADMIT_FALLBACK;
    }
    *rc = coll_rdma_request_early(m, comm, c, kind, info, request);
    return COLL_RDMA_ADMIT_SETUP;
}

/*
 * A call on a module that is not steady: its window not ready (warm-up,
 * set-up under way, none), or the tag span still open.
 *
 * Counted (every call of any kind counts toward the warm-up:
 * coll_rdma_module_admit), handed on during the warm-up, and from the call
 * that starts the set-up on, never handed on before the set-up ended: a
 * blocking call waits for it (a blocking collective may), a nonblocking one
 * is deferred until it ends, a persistent request made before the window
 * decides at its first start after it (coll_rdma_request_early).  So every
 * rank switches at the same call, whatever the timing, and nothing waits
 * inside MPI_I* or MPI_Start.
 *
 * The tag span (docs/design.md, "Tags"): from the set-up call to the first
 * blocking call after it, a nonblocking or persistent call takes one tag of
 * the previous component's counter on every rank, whether this rank's
 * set-up ended or not: where it did not, the call's early request made the
 * previous component's persistent request for it (one tag); where it did,
 * a call served on the window keeps the tag (*span, for the caller), one
 * handed on goes where an early request's fallback would (its one tag).
 * The first blocking call ends the span: it waited for the set-up on every
 * rank.
 *
 * Returns COLL_RDMA_ADMIT_READY (decide now), _FALLBACK (*why) or _SETUP
 * (the call was made an early request: *rc and *request are its result).
 */
static int unsteady(mca_coll_rdma_module_t *m, struct ompi_communicator_t *comm,
                    coll_rdma_call_t *c, int kind, struct ompi_info_t *info,
                    ompi_request_t **request, int *rc, int *why, bool *span)
{
    int admit = COLL_RDMA_ADMIT_READY;

    if (COLL_RDMA_WINDOW_READY != __atomic_load_n(&m->window_state, __ATOMIC_ACQUIRE)) {
        admit = coll_rdma_module_admit(m, comm, coll_rdma_call_suspect(c), why);
        if (COLL_RDMA_ADMIT_SETUP == admit) {
            coll_rdma_request_watch_setup(m);
        }
        if (COLL_RDMA_KIND_PERSISTENT == kind && COLL_RDMA_ADMIT_READY != admit
            && COLL_RDMA_WINDOW_FAILED != m->window_state) {
            *rc = coll_rdma_request_early(m, comm, c, kind, info, request);
            return COLL_RDMA_ADMIT_SETUP;
        }
        if (COLL_RDMA_ADMIT_SETUP == admit && COLL_RDMA_KIND_BLOCKING != kind) {
            *rc = coll_rdma_request_early(m, comm, c, kind, info, request);
            return COLL_RDMA_ADMIT_SETUP;
        }
        if (COLL_RDMA_ADMIT_SETUP == admit) {
            int state;
            while (COLL_RDMA_WINDOW_SETUP == (state = coll_rdma_request_setup_progress(m))) {
                opal_progress();
            }
            *why = COLL_RDMA_WHY_WINDOW;
            admit = COLL_RDMA_WINDOW_READY == state ? COLL_RDMA_ADMIT_READY
                                                    : COLL_RDMA_ADMIT_FALLBACK;
        }
    }
    if (COLL_RDMA_KIND_BLOCKING == kind) {
        if (m->tag_span) {
            coll_rdma_module_end_span(m);
        }
        return admit;
    }
    *span = m->tag_span;
    if (COLL_RDMA_ADMIT_FALLBACK == admit && *span) {
        return span_fallback(m, comm, c, kind, info, request, rc);
    }
    return admit;
}

/*
 * Serve the call if coll/rdma does: then *rc is the call's result (and
 * *request the new request of a nonblocking or persistent call) and the
 * return is true.  False: the caller hands it to the previous function.
 */
static bool served(mca_coll_rdma_module_t *m, struct ompi_communicator_t *comm,
                   coll_rdma_call_t *c, int kind, struct ompi_info_t *info,
                   ompi_request_t **request, int *rc)
{
    coll_rdma_standing_t *s;
    coll_rdma_request_t *req;
    coll_rdma_stats_t stats;
    int why, alg;
    bool span = false;

    if (COLL_RDMA_KIND_NONBLOCKING == kind
        && OPAL_UNLIKELY(sizeof(int) == coll_rdma_call_bytes(c) && coll_rdma_call_internal(c))) {
        /* Open MPI's own, made from inside opal_progress: not ours to order */
        coll_rdma_stats_fallback(kind, c->coll, COLL_RDMA_WHY_CID);
        return false;
    }
    if (OPAL_UNLIKELY(!__atomic_load_n(&m->steady, __ATOMIC_ACQUIRE))) {
        switch (unsteady(m, comm, c, kind, info, request, rc, &why, &span)) {
        case COLL_RDMA_ADMIT_SETUP:
            return true;
        case COLL_RDMA_ADMIT_FALLBACK:
            coll_rdma_stats_fallback(kind, c->coll, why);
            return false;
        default:
            break;
        }
    }
    if (COLL_RDMA_KIND_BLOCKING == kind && NULL != (s = coll_rdma_call_standing(m, c, comm))) {
        /* the last call of this collective again, but for the buffers */
        coll_rdma_stats_apply(&s->stats);
        *rc = coll_rdma_op_run(&s->op);
        return true;
    }
    if (COLL_RDMA_KIND_NONBLOCKING == kind && NULL != (req = coll_rdma_request_reuse(m, c, comm))) {
        if (OPAL_UNLIKELY(span)) {
            coll_rdma_call_keep_tag(comm);
        }
        coll_rdma_stats_apply(&req->stats);
        coll_rdma_request_start(req);
        *request = &req->super.super;
        *rc = OMPI_SUCCESS;
        return true;
    }
    alg = coll_rdma_call_decide(m, comm, c, &why);
    if (COLL_RDMA_ALG_FALLBACK == alg) {
        if (OPAL_UNLIKELY(span)
            && COLL_RDMA_ADMIT_SETUP == span_fallback(m, comm, c, kind, info, request, rc)) {
            return true;
        }
        coll_rdma_stats_fallback(kind, c->coll, why);
        return false;
    }
    coll_rdma_stats_served(&stats, kind, c->coll, alg, coll_rdma_call_moved(c, comm), c->rescued,
                           m->cfg->alg[c->coll]);
    coll_rdma_stats_apply(&stats);
    if (c->rescued) {
        say_rescued(c, alg, comm);
    }
    if (COLL_RDMA_KIND_BLOCKING == kind) {
        *rc = run_blocking(m, comm, c, alg, &stats);
        return true;
    }
    if (OPAL_UNLIKELY(span)) {
        coll_rdma_call_keep_tag(comm);
    }
    req = coll_rdma_request_alloc(m, comm, COLL_RDMA_KIND_PERSISTENT == kind);
    if (NULL == req) {
        *rc = OMPI_ERR_OUT_OF_RESOURCE;
        return true;
    }
    coll_rdma_op_init(&req->op, &m->queue, m->window, m->cfg, c->coll, alg);
    *rc = coll_rdma_call_prepare(&req->op, c, comm);
    if (OMPI_SUCCESS != *rc) {
        ompi_request_t *r = &req->super.super;
        req->super.super.req_complete = REQUEST_COMPLETED;
        (void) req->super.super.req_free(&r);
        return true;
    }
    if (COLL_RDMA_KIND_NONBLOCKING == kind) {
        coll_rdma_request_keep(req, c, &stats);
        coll_rdma_request_start(req);
    }
    *request = &req->super.super;
    return true;
}

/* ---- the eighteen entry points ------------------------------------------------ */

#define M(module) ((mca_coll_rdma_module_t *) (module))
/* The saved previous function, or "not supported" where the stack below had none. */
#define PREVIOUS(m, name, ...)                                                                     \
    (NULL == (m)->previous_##name ? OMPI_ERR_NOT_SUPPORTED                                         \
                                  : (m)->previous_##name(__VA_ARGS__, (m)->previous_##name##_module))

/*
 * The call's arguments, every field stored: an initializer that zeroes the
 * whole struct costs a `rep stos` (x86, -O2) on the path of every call.
 */
static inline void call_set(coll_rdma_call_t *c, int coll, const void *sbuf, size_t scount,
                            ompi_datatype_t *sdtype, void *rbuf, size_t rcount,
                            ompi_datatype_t *rdtype, ompi_op_t *op, int root)
{
    c->coll = coll;
    c->sbuf = sbuf;
    c->scount = scount;
    c->sdtype = sdtype;
    c->rbuf = rbuf;
    c->rcount = rcount;
    c->rdtype = rdtype;
    c->op = op;
    c->root = root;
    c->elem = NULL;
    c->nelem = 0;
    c->rescued = false;
}

#define CALL_BARRIER(c) call_set(&c, COLL_RDMA_BARRIER, NULL, 0, NULL, NULL, 0, NULL, NULL, 0)
#define CALL_BCAST(c)                                                                              \
    call_set(&c, COLL_RDMA_BCAST, buf, (size_t) count, dtype, buf, (size_t) count, dtype, NULL,     \
             root)
#define CALL_ALLREDUCE(c)                                                                          \
    call_set(&c, COLL_RDMA_ALLREDUCE, sbuf, (size_t) count, dtype, rbuf, (size_t) count, dtype, op, \
             0)
#define CALL_REDUCE(c)                                                                             \
    call_set(&c, COLL_RDMA_REDUCE, sbuf, (size_t) count, dtype, rbuf, (size_t) count, dtype, op,    \
             root)
/* MPI ignores the send count and type with MPI_IN_PLACE: they may differ
 * between ranks (or be garbage), so no decision may see them */
#define CALL_BLOCKS(c, coll)                                                                       \
    call_set(&c, coll, sbuf, MPI_IN_PLACE == sbuf ? 0 : (size_t) scount,                           \
             MPI_IN_PLACE == sbuf ? NULL : sdtype, rbuf, (size_t) rcount, rdtype, NULL, 0)

static int rdma_barrier(struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    coll_rdma_call_t c;
    int rc;
    CALL_BARRIER(c);
    return served(M(module), comm, &c, COLL_RDMA_KIND_BLOCKING, NULL, NULL, &rc)
               ? rc
               : PREVIOUS(M(module), barrier, comm);
}

static int rdma_ibarrier(struct ompi_communicator_t *comm, ompi_request_t **request,
                         mca_coll_base_module_t *module)
{
    coll_rdma_call_t c;
    int rc;
    CALL_BARRIER(c);
    return served(M(module), comm, &c, COLL_RDMA_KIND_NONBLOCKING, NULL, request, &rc)
               ? rc
               : PREVIOUS(M(module), ibarrier, comm, request);
}

static int rdma_barrier_init(struct ompi_communicator_t *comm, struct ompi_info_t *info,
                             ompi_request_t **request, mca_coll_base_module_t *module)
{
    coll_rdma_call_t c;
    int rc;
    CALL_BARRIER(c);
    return served(M(module), comm, &c, COLL_RDMA_KIND_PERSISTENT, info, request, &rc)
               ? rc
               : PREVIOUS(M(module), barrier_init, comm, info, request);
}

static int rdma_bcast(void *buf, coll_rdma_count_t count, ompi_datatype_t *dtype, int root,
                      struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    coll_rdma_call_t c;
    int rc;
    CALL_BCAST(c);
    return served(M(module), comm, &c, COLL_RDMA_KIND_BLOCKING, NULL, NULL, &rc)
               ? rc
               : PREVIOUS(M(module), bcast, buf, count, dtype, root, comm);
}

static int rdma_ibcast(void *buf, coll_rdma_count_t count, ompi_datatype_t *dtype, int root,
                       struct ompi_communicator_t *comm, ompi_request_t **request,
                       mca_coll_base_module_t *module)
{
    coll_rdma_call_t c;
    int rc;
    CALL_BCAST(c);
    return served(M(module), comm, &c, COLL_RDMA_KIND_NONBLOCKING, NULL, request, &rc)
               ? rc
               : PREVIOUS(M(module), ibcast, buf, count, dtype, root, comm, request);
}

static int rdma_bcast_init(void *buf, coll_rdma_count_t count, ompi_datatype_t *dtype, int root,
                           struct ompi_communicator_t *comm, struct ompi_info_t *info,
                           ompi_request_t **request, mca_coll_base_module_t *module)
{
    coll_rdma_call_t c;
    int rc;
    CALL_BCAST(c);
    return served(M(module), comm, &c, COLL_RDMA_KIND_PERSISTENT, info, request, &rc)
               ? rc
               : PREVIOUS(M(module), bcast_init, buf, count, dtype, root, comm, info, request);
}

static int rdma_allreduce(const void *sbuf, void *rbuf, coll_rdma_count_t count,
                          ompi_datatype_t *dtype, ompi_op_t *op, struct ompi_communicator_t *comm,
                          mca_coll_base_module_t *module)
{
    coll_rdma_call_t c;
    int rc;
    CALL_ALLREDUCE(c);
    return served(M(module), comm, &c, COLL_RDMA_KIND_BLOCKING, NULL, NULL, &rc)
               ? rc
               : PREVIOUS(M(module), allreduce, sbuf, rbuf, count, dtype, op, comm);
}

static int rdma_iallreduce(const void *sbuf, void *rbuf, coll_rdma_count_t count,
                           ompi_datatype_t *dtype, ompi_op_t *op, struct ompi_communicator_t *comm,
                           ompi_request_t **request, mca_coll_base_module_t *module)
{
    coll_rdma_call_t c;
    int rc;
    CALL_ALLREDUCE(c);
    return served(M(module), comm, &c, COLL_RDMA_KIND_NONBLOCKING, NULL, request, &rc)
               ? rc
               : PREVIOUS(M(module), iallreduce, sbuf, rbuf, count, dtype, op, comm, request);
}

static int rdma_allreduce_init(const void *sbuf, void *rbuf, coll_rdma_count_t count,
                               ompi_datatype_t *dtype, ompi_op_t *op,
                               struct ompi_communicator_t *comm, struct ompi_info_t *info,
                               ompi_request_t **request, mca_coll_base_module_t *module)
{
    coll_rdma_call_t c;
    int rc;
    CALL_ALLREDUCE(c);
    return served(M(module), comm, &c, COLL_RDMA_KIND_PERSISTENT, info, request, &rc)
               ? rc
               : PREVIOUS(M(module), allreduce_init, sbuf, rbuf, count, dtype, op, comm, info,
                          request);
}

static int rdma_reduce(const void *sbuf, void *rbuf, coll_rdma_count_t count,
                       ompi_datatype_t *dtype, ompi_op_t *op, int root,
                       struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    coll_rdma_call_t c;
    int rc;
    CALL_REDUCE(c);
    return served(M(module), comm, &c, COLL_RDMA_KIND_BLOCKING, NULL, NULL, &rc)
               ? rc
               : PREVIOUS(M(module), reduce, sbuf, rbuf, count, dtype, op, root, comm);
}

static int rdma_ireduce(const void *sbuf, void *rbuf, coll_rdma_count_t count,
                        ompi_datatype_t *dtype, ompi_op_t *op, int root,
                        struct ompi_communicator_t *comm, ompi_request_t **request,
                        mca_coll_base_module_t *module)
{
    coll_rdma_call_t c;
    int rc;
    CALL_REDUCE(c);
    return served(M(module), comm, &c, COLL_RDMA_KIND_NONBLOCKING, NULL, request, &rc)
               ? rc
               : PREVIOUS(M(module), ireduce, sbuf, rbuf, count, dtype, op, root, comm, request);
}

static int rdma_reduce_init(const void *sbuf, void *rbuf, coll_rdma_count_t count,
                            ompi_datatype_t *dtype, ompi_op_t *op, int root,
                            struct ompi_communicator_t *comm,
                            struct ompi_info_t *info, ompi_request_t **request,
                            mca_coll_base_module_t *module)
{
    coll_rdma_call_t c;
    int rc;
    CALL_REDUCE(c);
    return served(M(module), comm, &c, COLL_RDMA_KIND_PERSISTENT, info, request, &rc)
               ? rc
               : PREVIOUS(M(module), reduce_init, sbuf, rbuf, count, dtype, op, root, comm, info,
                          request);
}

/* allgather and alltoall share their signatures: one set of six by macro */
#define BLOCK_ENTRIES(name, COLL)                                                                  \
    static int rdma_##name(const void *sbuf, coll_rdma_count_t scount, ompi_datatype_t *sdtype,    \
                           void *rbuf, coll_rdma_count_t rcount, ompi_datatype_t *rdtype,          \
                           struct ompi_communicator_t *comm, mca_coll_base_module_t *module)       \
    {                                                                                              \
        coll_rdma_call_t c;                                                                        \
        int rc;                                                                                    \
        CALL_BLOCKS(c, COLL);                                                                      \
        return served(M(module), comm, &c, COLL_RDMA_KIND_BLOCKING, NULL, NULL, &rc)               \
                   ? rc                                                                            \
                   : PREVIOUS(M(module), name, sbuf, scount, sdtype, rbuf, rcount, rdtype, comm);  \
    }                                                                                              \
    static int rdma_i##name(const void *sbuf, coll_rdma_count_t scount, ompi_datatype_t *sdtype,   \
                            void *rbuf, coll_rdma_count_t rcount, ompi_datatype_t *rdtype,         \
                            struct ompi_communicator_t *comm, ompi_request_t **request,            \
                            mca_coll_base_module_t *module)                                        \
    {                                                                                              \
        coll_rdma_call_t c;                                                                        \
        int rc;                                                                                    \
        CALL_BLOCKS(c, COLL);                                                                      \
        return served(M(module), comm, &c, COLL_RDMA_KIND_NONBLOCKING, NULL, request, &rc)         \
                   ? rc                                                                            \
                   : PREVIOUS(M(module), i##name, sbuf, scount, sdtype, rbuf, rcount, rdtype,      \
                              comm, request);                                                      \
    }                                                                                              \
    static int rdma_##name##_init(const void *sbuf, coll_rdma_count_t scount,                      \
                                  ompi_datatype_t *sdtype, void *rbuf, coll_rdma_count_t rcount,   \
                                  ompi_datatype_t *rdtype, struct ompi_communicator_t *comm,       \
                                  struct ompi_info_t *info, ompi_request_t **request,              \
                                  mca_coll_base_module_t *module)                                  \
    {                                                                                              \
        coll_rdma_call_t c;                                                                        \
        int rc;                                                                                    \
        CALL_BLOCKS(c, COLL);                                                                      \
        return served(M(module), comm, &c, COLL_RDMA_KIND_PERSISTENT, info, request, &rc)          \
                   ? rc                                                                            \
                   : PREVIOUS(M(module), name##_init, sbuf, scount, sdtype, rbuf, rcount, rdtype,  \
                              comm, info, request);                                                \
    }

BLOCK_ENTRIES(allgather, COLL_RDMA_ALLGATHER)
BLOCK_ENTRIES(alltoall, COLL_RDMA_ALLTOALL)

/* The module goes: what the calls and requests keep of it. */
static void teardown(mca_coll_rdma_module_t *m)
{
    coll_rdma_request_module_gone(m);
    coll_rdma_call_release(m);
}

void coll_rdma_entry_install(mca_coll_rdma_module_t *m)
{
    m->teardown = teardown;
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

mca_coll_rdma_module_t *coll_rdma_entry_module(struct ompi_communicator_t *comm)
{
    if (NULL == comm || NULL == COLL_RDMA_COMM_TABLE(comm)
        || rdma_allreduce != COLL_RDMA_COMM_TABLE(comm)->coll_allreduce) {
        return NULL;
    }
    return M(COLL_RDMA_COMM_TABLE(comm)->coll_allreduce_module);
}
