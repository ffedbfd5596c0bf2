/*
 * coll/rdma operations and their interpreter (coll_rdma_exec.h): an
 * operation's life (init, fini) and coll_rdma_exec(), which runs its action
 * program (coll_rdma_prog.h) against the window from where it stands.  The only code
 * of coll/rdma that waits for another rank: every wait is a test that
 * returns OMPI_ERR_WOULD_BLOCK and resumes at the same action.
 */
#include "ompi_config.h"

#include "coll_rdma_exec.h"
#include "coll_rdma_dtype.h"
#include "coll_rdma_op.h"

#include <stdlib.h>
#include <string.h>

void coll_rdma_op_init(coll_rdma_op_t *op, struct coll_rdma_queue *queue, coll_rdma_window_t *win,
                       const coll_rdma_config_t *cfg, int coll, int alg)
{
    op->cfg = cfg;
    op->next = NULL;
    op->queue = queue;
    op->win = win;
    op->done_cb = NULL;
    op->owner = NULL;
    op->coll = coll;
    op->alg = alg;
    op->sbuf = NULL;
    op->rbuf = NULL;
    op->dtype = NULL;
    op->op = NULL;
    op->order_independent = false;
    op->pending = op->pending_inline;
    op->flush_request = NULL;
    op->tmp = NULL;
    op->held[0] = op->held[1] = NULL;
    coll_rdma_prog_init(&op->prog);
}

void coll_rdma_op_fini(coll_rdma_op_t *op)
{
    coll_rdma_prog_fini(&op->prog);
    free(op->tmp);
    op->tmp = NULL;
    for (int i = 0; i < 2; ++i) {
        if (NULL != op->held[i]) {
            OBJ_RELEASE(op->held[i]);
            op->held[i] = NULL;
        }
    }
    if (op->pending != op->pending_inline) {
        free(op->pending);
        op->pending = op->pending_inline;
    }
}

/* ---- buffers ------------------------------------------------------------ */

/* Always inlined: it is on every POST and COPY of every call, and the
 * compiler left it out of line once its slot cases grew (the one-line slots'
 * header), at a call per action. */
static inline __opal_attribute_always_inline__ char *buf_addr(const coll_rdma_op_t *op,
                                                             const coll_rdma_buf_t *b,
                                                             uint64_t seq)
{
    coll_rdma_window_t *win = op->win;

    switch (b->base) {
    case COLL_RDMA_BUF_SBUF:
        return (char *) op->sbuf + b->off;
    case COLL_RDMA_BUF_RBUF:
        return (char *) op->rbuf + b->off;
    case COLL_RDMA_BUF_SCRATCH:
        return win->scratch + b->off;
    case COLL_RDMA_BUF_SLOT:
        return win->base + coll_rdma_slot_off(win, &b->slot, seq) + coll_rdma_slot_head(&b->slot)
               + b->off;
    case COLL_RDMA_BUF_PEER_SLOT:
        return win->peers[b->peer].direct + coll_rdma_slot_off(win, &b->slot, seq)
               + coll_rdma_slot_head(&b->slot) + b->off;
    case COLL_RDMA_BUF_RING:
        return (char *) op->ring_payload + b->off;
    case COLL_RDMA_BUF_TMP:
        return op->tmp + b->off;
    default:
        return NULL;
    }
}

/* Whether the mapped word reached seq; if not, it is the one to poll. */
static inline bool reached(coll_rdma_op_t *op, const char *word, uint64_t seq)
{
    if (coll_rdma_seq_reached(coll_rdma_load_word(word), seq)) {
        return true;
    }
    op->poll_word = word;
    op->poll_seq = seq;
    return false;
}

/* ---- WAIT_ALL and FOLD_ALL ------------------------------------------------ */

/* Mark every other rank as awaited. */
static int pending_set(coll_rdma_op_t *op)
{
    int size = op->win->comm_size, nwords = (size + 63) / 64;

    if (nwords > (int) (sizeof(op->pending_inline) / sizeof(uint64_t))
        && op->pending == op->pending_inline) {
        op->pending = malloc((size_t) nwords * sizeof(uint64_t));
        if (NULL == op->pending) {
            op->pending = op->pending_inline;
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
    }
    /* the last word's ranks, then whole words of ones below it (no memset
     * call at P <= 64: this is on every call's path) */
    op->pending[nwords - 1] = 0 == size % 64 ? ~(uint64_t) 0 : ((uint64_t) 1 << (size % 64)) - 1;
    for (int w = 0; w < nwords - 1; ++w) {
        op->pending[w] = ~(uint64_t) 0;
    }
    op->pending[op->win->rank / 64] &= ~((uint64_t) 1 << (op->win->rank % 64));
    op->next_rank = 0;
    op->pending_set = true;
    return OMPI_SUCCESS;
}

/*
 * Test every awaited peer's word at `a`'s slot in one pass, so the cache
 * misses of words that arrive together overlap; with FOLD_ALL, fold the
 * payloads of the ranks that arrived in rank order, each as soon as it and
 * every rank below it are in, so the reductions overlap the wait for late
 * ranks and every rank computes the same expression.  Whether all are in.
 */
static bool test_all(coll_rdma_op_t *op, const coll_rdma_act_t *a, uint64_t seq)
{
    coll_rdma_window_t *win = op->win;
    int size = win->comm_size, nwords = (size + 63) / 64;
    size_t off = coll_rdma_slot_off(win, &a->slot, seq);
    bool all = true;

    for (int w = op->next_rank / 64; w < nwords; ++w) {
        for (uint64_t left = op->pending[w]; 0 != left; left &= left - 1) {
            int peer = w * 64 + __builtin_ctzll(left);
            if (reached(op, win->peers[peer].direct + off, seq)) {
                op->pending[w] &= ~((uint64_t) 1 << (peer % 64));
            } else {
                all = false;
            }
        }
    }
    if (COLL_RDMA_ACT_FOLD_ALL == a->kind) {
        char *dst = buf_addr(op, &a->dst, seq);
        while (op->next_rank < size
               && 0 == (op->pending[op->next_rank / 64] & ((uint64_t) 1 << (op->next_rank % 64)))) {
            const char *c = win->peers[op->next_rank].direct + off + coll_rdma_slot_head(&a->slot);
            if (0 == op->next_rank) {
                memcpy(dst, c, a->len * op->dtype->super.size);
            } else {
                coll_rdma_op_reduce(op->op, c, dst, a->len, op->dtype);
            }
            ++op->next_rank;
        }
    } else {
        /* words of ranks below next_rank need no second look */
        while (op->next_rank < size
               && 0 == (op->pending[op->next_rank / 64] & ((uint64_t) 1 << (op->next_rank % 64)))) {
            ++op->next_rank;
        }
    }
    return all;
}

/* ---- FOLD_FRESH ---------------------------------------------------------------- */

/*
 * The newest instance in [lo, seq] whose contribution rank `r`'s ring at `a`'s
 * slot holds (a slot holds instance c when its word is c), with that slot's
 * offset; false when it holds none yet.  Newest first: every instance a rank
 * wrote stays in its slot while this call reads (coll_rdma_ssp.c), so the
 * first match is the newest.
 */
static bool ssp_find(const coll_rdma_op_t *op, const coll_rdma_act_t *a, const char *base,
                     uint64_t lo, uint64_t seq, uint64_t *found, size_t *off)
{
    for (uint64_t c = seq;; --c) {
        *off = coll_rdma_slot_off(op->win, &a->slot, c);
        if (coll_rdma_load_word(base + *off) == c) {
            *found = c;
            return true;
        }
        if (c == lo) {
            return false;
        }
    }
}

/*
 * dst = c[P-1] op (... op c[0]) in rank order, c[r] the newest contribution of
 * rank r of an instance in [lo, seq], lo = seq - S or the first instance of
 * the call's shape, whichever is later; waits (polling the slot of lo, the
 * next instance the rank can write that would do) for a rank that has none.
 * Once all are in, op->ssp_age is the call's age.
 */
static bool fold_fresh(coll_rdma_op_t *op, const coll_rdma_act_t *a, uint64_t seq)
{
    coll_rdma_window_t *win = op->win;
    char *dst = buf_addr(op, &a->dst, seq);
    uint64_t lo = seq - (uint64_t) op->cfg->allreduce_staleness, age;

    if ((int64_t) (op->ssp_first - lo) > 0) {
        lo = op->ssp_first;
    }
    if (!op->pending_set) {
        op->next_rank = 0;
        op->ssp_oldest = seq;
        op->pending_set = true;
    }
    for (; op->next_rank < win->comm_size; ++op->next_rank) {
        int r = op->next_rank;
        const char *base = r == win->rank ? win->base : win->peers[r].direct;
        uint64_t c;
        size_t off;

        if (!ssp_find(op, a, base, lo, seq, &c, &off)) {
            op->poll_word = base + coll_rdma_slot_off(win, &a->slot, lo);
            op->poll_seq = lo;
            return false;
        }
        if (0 == r) {
            memcpy(dst, base + off + coll_rdma_slot_head(&a->slot), a->len * op->dtype->super.size);
        } else {
            coll_rdma_op_reduce(op->op, base + off + coll_rdma_slot_head(&a->slot), dst, a->len,
                                op->dtype);
        }
        if ((int64_t) (c - op->ssp_oldest) < 0) {
            op->ssp_oldest = c;
        }
    }
    age = seq - op->ssp_oldest;
    op->ssp_age = age;
    return true;
}

/* ---- ring stream ------------------------------------------------------------ */

/*
 * Ring messages to the right neighbour are numbered over every ring call of
 * the communicator (the window's counters): message m goes to slot m %
 * ring_slots, once the ack line says m - ring_slots was consumed.
 */
static int ring_send(coll_rdma_op_t *op, const coll_rdma_act_t *a, uint64_t seq, bool *sent)
{
    coll_rdma_window_t *win = op->win;
    uint64_t m = win->ring_sent + 1;
    int rc;

    *sent = coll_rdma_window_arrived(win, win->off_ring_ack, m - (uint64_t) win->ring_slots);
    if (!*sent) {
        return OMPI_SUCCESS;
    }
    rc = coll_rdma_window_post(win, a->peer, coll_rdma_ring_slot(win, m), COLL_RDMA_SLOT_HEADER,
                               buf_addr(op, &a->src, seq), a->len, m);
    win->ring_sent = m;
    return rc;
}

/* ---- the executor ------------------------------------------------------------- */

int coll_rdma_exec(coll_rdma_op_t *op)
{
    coll_rdma_window_t *win = op->win;
    int rc = OMPI_SUCCESS;

    op->poll_word = NULL;
    while (op->pc < op->prog.n) {
        const coll_rdma_act_t *a = &op->prog.acts[op->pc];
        uint64_t seq = op->seq + a->dseq;
        bool ok = true;

        switch (a->kind) {
        case COLL_RDMA_ACT_POST:
            rc = coll_rdma_window_post(win, a->peer, coll_rdma_slot_off(win, &a->slot, seq),
                                       coll_rdma_slot_head(&a->slot), buf_addr(op, &a->src, seq),
                                       a->len, seq);
            break;
        case COLL_RDMA_ACT_WAIT:
            ok = reached(op, win->base + coll_rdma_slot_off(win, &a->slot, seq), seq);
            break;
        case COLL_RDMA_ACT_WAIT_PEER:
            ok = reached(op, win->peers[a->peer].direct + coll_rdma_slot_off(win, &a->slot, seq),
                         seq);
            break;
        case COLL_RDMA_ACT_WAIT_ALL:
        case COLL_RDMA_ACT_FOLD_ALL:
            if (!op->pending_set) {
                rc = pending_set(op);
                if (OMPI_SUCCESS != rc) {
                    break;
                }
            }
            ok = test_all(op, a, seq);
            break;
        case COLL_RDMA_ACT_FOLD_FRESH:
            ok = fold_fresh(op, a, seq);
            break;
        case COLL_RDMA_ACT_COPY:
            memcpy(buf_addr(op, &a->dst, seq), buf_addr(op, &a->src, seq), a->len);
            break;
        case COLL_RDMA_ACT_REDUCE:
            coll_rdma_op_reduce(op->op, buf_addr(op, &a->src, seq), buf_addr(op, &a->dst, seq),
                                a->len, op->dtype);
            break;
        case COLL_RDMA_ACT_CREDIT:
            rc = coll_rdma_window_credit_test(win, a->credit, a->peer, seq, &ok);
            break;
        case COLL_RDMA_ACT_PUBLISH:
            coll_rdma_window_publish(win, a->credit, seq);
            break;
        case COLL_RDMA_ACT_FLUSH:
            rc = coll_rdma_window_flush_test(win, &op->flush_request, &ok);
            break;
        case COLL_RDMA_ACT_RING_SEND:
            rc = ring_send(op, a, seq, &ok);
            break;
        case COLL_RDMA_ACT_RING_RECV: {
            uint64_t m = win->ring_received + 1;
            size_t off = coll_rdma_ring_slot(win, m);
            ok = reached(op, win->base + off, m);
            op->ring_payload = win->base + off + COLL_RDMA_SLOT_HEADER;
            break;
        }
        case COLL_RDMA_ACT_RING_ACK:
            rc = coll_rdma_window_post(win, a->peer, win->off_ring_ack, COLL_RDMA_SLOT_HEADER,
                                       NULL, 0, ++win->ring_received);
            break;
        case COLL_RDMA_ACT_PACK:
            rc = 0 == a->peer ? coll_rdma_dtype_pack(buf_addr(op, &a->dst, seq), a->len,
                                                     op->user_sbuf, op->user_scount,
                                                     op->user_sdtype)
                              : coll_rdma_dtype_pack(buf_addr(op, &a->dst, seq), a->len,
                                                     op->user_rbuf, op->user_rcount,
                                                     op->user_rdtype);
            break;
        case COLL_RDMA_ACT_UNPACK:
            rc = coll_rdma_dtype_unpack(op->user_rbuf, op->user_rcount, op->user_rdtype,
                                        buf_addr(op, &a->src, seq), a->len);
            break;
        default:
            rc = OMPI_ERR_BAD_PARAM;
        }
        if (OPAL_UNLIKELY(OMPI_SUCCESS != rc)) {
            return rc;
        }
        if (!ok) {
            return OMPI_ERR_WOULD_BLOCK;
        }
        op->pending_set = false;
        ++op->pc;
    }
    return OMPI_SUCCESS;
}
