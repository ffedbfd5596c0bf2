/*
 * coll/rdma set-up records (coll_rdma_records.h): a rank's local part and
 * its record to each peer, what the peers' records teach, and the refusal
 * of a rank that could not prepare.
 */
#include "ompi_config.h"

#include "coll_rdma_records.h"
#include "coll_rdma_exchange.h"
#include "coll_rdma_op.h"
#include "coll_rdma_ucx.h"

#include <stdlib.h>
#include <string.h>

#include "ompi/mca/pml/pml.h"

/* The ranks of comm on this node (this one included): each maps a window of
 * it at about the same time. */
static int local_ranks(struct ompi_communicator_t *comm)
{
    int n = 0, size = ompi_comm_size(comm);

    for (int i = 0; i < size; ++i) {
        n += OPAL_PROC_ON_LOCAL_NODE(ompi_comm_peer_lookup(comm, i)->super.proc_flags) ? 1 : 0;
    }
    return n;
}

struct coll_rdma_window *coll_rdma_records_local(coll_rdma_records_t *r, coll_rdma_config_t *cfg,
                                                 const coll_rdma_records_args_t *a)
{
    coll_rdma_header_t *h = &r->mine.header;
    coll_rdma_window_t *win = NULL;
    int rc;

    /* the window holds the ring this rank's communicator asked for (laid out
     * last: the other regions lie alike whatever ranks asked) */
    h->staleness = coll_rdma_agree_staleness_asked(r->comm);
    cfg->allreduce_staleness = h->staleness > 0 ? (int) h->staleness : 0;
    r->mine.why = NOWIN_SMALL;
    if (r->size >= cfg->min_comm_size) {
        /* what the warm-up calls left of the process's start */
        coll_rdma_ucx_lock();
        rc = coll_rdma_ucx_init();
        coll_rdma_op_selftest();
        coll_rdma_ucx_unlock();
        coll_rdma_op_fallback_wrong(h->wrong);
        r->mine.why = NOWIN_UCX;
        if (OMPI_SUCCESS == rc) {
            coll_rdma_window_limits_t limits = {.max_bytes = a->window_max_bytes,
                                                .budget_bytes = a->window_budget_bytes,
                                                .window_pool = a->window_pool,
                                                .local_ranks = local_ranks(r->comm)};
            coll_rdma_nowin_info_t nowin;
            win = coll_rdma_window_alloc(cfg, &limits, r->size, r->rank, &nowin);
            if (NULL != win) {
                win->poll_spins = a->poll_spins;
            } else {
                r->mine.why = NOWIN_WINDOW + nowin.why;
                r->mine.bytes = nowin.bytes;
                r->mine.limit = COLL_RDMA_NOWIN_CAP == nowin.why ? limits.max_bytes
                                                                 : limits.budget_bytes;
            }
        }
    }
    r->inline_max = a->address_inline < ADDRESS_INLINE ? a->address_inline : ADDRESS_INLINE;
    if (NULL != win) {
        const void *worker;
        size_t worker_bytes = coll_rdma_ucx_worker_address(&worker);
        size_t blob_bytes = coll_rdma_window_blob_size(win);
        char *address = r->mine.address;

        if (blob_bytes + worker_bytes > r->inline_max) {
            address = r->full = malloc(blob_bytes + worker_bytes);
            r->mine.contact = CONTACT_LONG; /* this rank's own place in the exchange */
        }
        h->ok = NULL != address;
        r->mine.why = h->ok ? NOWIN_NONE : NOWIN_MEMORY;
        if (h->ok) {
            h->blob_bytes = (int64_t) blob_bytes;
            coll_rdma_window_pack(win, address);
            r->mine.worker_bytes = (int64_t) worker_bytes;
            memcpy(address + blob_bytes, worker, worker_bytes);
        }
    }
    coll_rdma_agree_config(cfg, h->config);
    return win;
}

void coll_rdma_records_drop(coll_rdma_records_t *r)
{
    for (int v = 0; v < 4; ++v) {
        free(r->to[v]);
        r->to[v] = NULL;
    }
    free(r->contact);
    r->contact = NULL;
    if (NULL != r->long_x.reqs) {
        coll_rdma_exchange_fini(&r->long_x);
    }
    free(r->full);
    free(r->long_in);
    free(r->long_at);
    r->full = r->long_in = NULL;
    r->long_at = NULL;
}

/* The address bytes this rank's record to a peer with contact bits v says:
 * its window's blob and, where it carries it, its worker address. */
static size_t address_bytes(const coll_rdma_records_t *r, int v)
{
    return (size_t) r->mine.header.blob_bytes
           + (v & CONTACT_CARRIES ? (size_t) r->mine.worker_bytes : 0);
}

/* Whether they go apart (CONTACT_LONG) rather than in the record. */
static bool goes_apart(const coll_rdma_records_t *r, int v)
{
    return address_bytes(r, v) > r->inline_max;
}

/* This rank's address: blob, then worker address. */
static const char *my_address(const coll_rdma_records_t *r)
{
    return NULL != r->full ? r->full : r->mine.address;
}

/* The bytes of this rank's record to a peer with contact bits v. */
static size_t record_bytes(const coll_rdma_records_t *r, int v)
{
    return RECORD_HEAD_BYTES + (goes_apart(r, v) ? 0 : address_bytes(r, v));
}

/* Worker addresses this process sent and received over all its set-ups
 * (UCX lock held): coll_rdma_records_counts(). */
static uint64_t worker_sent, worker_received;

void coll_rdma_records_counts(uint64_t *sent, uint64_t *received)
{
    *sent = worker_sent;
    *received = worker_received;
}

/* The records this rank's window sends, one per kind of peer (its contact
 * bits); room only for what each carries.  Sizes only: begin fills them. */
bool coll_rdma_records_alloc(coll_rdma_records_t *r)
{
    if (!r->mine.header.ok) {
        return true; /* nothing to address: `mine` goes to everyone */
    }
    r->contact = calloc(r->size, 1);
    r->long_at = calloc(r->size, sizeof(size_t));
    for (int v = 0; v < 4; ++v) {
        r->to[v] = malloc(record_bytes(r, v));
    }
    /* the long step's requests too: after the records nothing may keep this
     * rank out of it (coll_rdma_records_long_start) */
    return NULL != r->contact && NULL != r->long_at && NULL != r->to[0] && NULL != r->to[1]
           && NULL != r->to[2] && NULL != r->to[3]
           && OMPI_SUCCESS == coll_rdma_exchange_init(&r->long_x, r->comm);
}

/* Each peer's contact bits from what this process knows now, and the four
 * records filled from `mine`. */
void coll_rdma_records_fill(coll_rdma_records_t *r)
{
    if (NULL == r->contact) {
        return;
    }
    coll_rdma_ucx_lock();
    for (int i = 0; i < r->size; ++i) {
        ompi_proc_t *proc = ompi_comm_peer_lookup(r->comm, i);
        r->contact[i] = (coll_rdma_ucx_peer_holds_mine(proc) ? 0 : CONTACT_CARRIES)
                        | (coll_rdma_ucx_peer_known(proc) ? CONTACT_HOLDS_YOURS : 0);
        r->carried += i != r->rank && (r->contact[i] & CONTACT_CARRIES);
        r->apart += i != r->rank && goes_apart(r, r->contact[i]);
    }
    worker_sent += (uint64_t) r->carried;
    coll_rdma_ucx_unlock();
    for (int v = 0; v < 4; ++v) {
        memcpy(r->to[v], &r->mine, RECORD_HEAD_BYTES);
        memcpy(r->to[v]->address, my_address(r), record_bytes(r, v) - RECORD_HEAD_BYTES);
        r->to[v]->contact = v | (goes_apart(r, v) ? CONTACT_LONG : 0);
        r->to[v]->worker_bytes = v & CONTACT_CARRIES ? r->mine.worker_bytes : 0;
    }
}

/* What goes to `peer` (coll_rdma_exchange_send_fn). */
const void *coll_rdma_records_for(void *ctx, int peer, size_t *len)
{
    coll_rdma_records_t *r = ctx;
    int v;

    if (NULL == r->contact) {
        *len = RECORD_HEAD_BYTES;
        return &r->mine;
    }
    v = r->contact[peer];
    *len = record_bytes(r, v);
    return r->to[v];
}

/* The long step's sides (coll_rdma_exchange_start_pairs): a long address
 * from each peer whose record says so, this rank's to every peer if long. */
typedef struct long_step {
    coll_rdma_records_t *r;
    const record_t *all;
} long_step_t;

static size_t long_bytes(const record_t *rec)
{
    return (size_t) rec->header.blob_bytes
           + (rec->contact & CONTACT_CARRIES ? (size_t) rec->worker_bytes : 0);
}

static void *long_recv(void *ctx, int peer, size_t *len)
{
    static char scratch[ADDRESS_INLINE]; /* what a rank out of memory receives into */
    long_step_t *l = ctx;

    *len = l->all[peer].contact & CONTACT_LONG ? long_bytes(&l->all[peer]) : 0;
    if (NULL == l->r->long_in) {
        *len = *len < sizeof(scratch) ? *len : sizeof(scratch);
        return scratch;
    }
    return l->r->long_in + l->r->long_at[peer];
}

static const void *long_send(void *ctx, int peer, size_t *len)
{
    long_step_t *l = ctx;
    int v = l->r->contact[peer];

    *len = goes_apart(l->r, v) ? address_bytes(l->r, v) : 0;
    return my_address(l->r);
}

int coll_rdma_records_long_start(coll_rdma_records_t *r, const record_t *all, bool *started)
{
    long_step_t l = {.r = r, .all = all};
    size_t total = 0;

    /* between the pairs it concerns: a rank that sends or receives no long
     * address takes no part (the records say which) */
    *started = false;
    for (int i = 0; i < r->size; ++i) {
        *started = *started || (i != r->rank && ((all[i].contact & CONTACT_LONG)
                                                 || goes_apart(r, r->contact[i])));
    }
    if (!*started) {
        return OMPI_SUCCESS;
    }
    for (int i = 0; i < r->size; ++i) {
        r->long_at[i] = total;
        total += i != r->rank && (all[i].contact & CONTACT_LONG) ? long_bytes(&all[i]) : 0;
    }
    r->long_in = malloc(total > 0 ? total : 1);
    /* out of memory: the peers' sends still complete (received truncated
     * into a scratch line, the truncation not an error), and this rank then
     * says "not connected" (r->long_failed) */
    r->long_failed = NULL == r->long_in;
    r->long_x.truncate_ok = r->long_failed;
    return coll_rdma_exchange_start_pairs(&r->long_x, COLL_RDMA_TAG_SETUP_ADDRESS, long_recv,
                                          long_send, &l);
}

const char *coll_rdma_records_address(const coll_rdma_records_t *r, const record_t *all, int i)
{
    if (!(all[i].contact & CONTACT_LONG)) {
        return all[i].address;
    }
    return i == r->rank ? r->full : r->long_in + r->long_at[i];
}

/* What the peers' records say of their worker addresses, kept for every
 * communicator; OMPI_SUCCESS, or the first failure (a peer not reachable). */
int coll_rdma_records_learn(coll_rdma_records_t *r, const record_t *all)
{
    int rc = OMPI_SUCCESS;

    if (NULL == r->contact) {
        return OMPI_SUCCESS; /* no window here: nothing to reach */
    }
    coll_rdma_ucx_lock();
    for (int i = 0; i < r->size; ++i) {
        const record_t *peer = &all[i];
        bool carries = peer->contact & CONTACT_CARRIES;
        int rci;

        if (i == r->rank || !peer->header.ok) {
            continue;
        }
        r->received += carries ? 1 : 0;
        rci = coll_rdma_ucx_peer_learn(ompi_comm_peer_lookup(r->comm, i),
                                       carries ? coll_rdma_records_address(r, all, i)
                                                     + peer->header.blob_bytes
                                               : NULL,
                                       (size_t) peer->worker_bytes,
                                       0 != (peer->contact & CONTACT_HOLDS_YOURS));
        rc = OMPI_SUCCESS == rc ? rci : rc;
    }
    worker_received += (uint64_t) r->received;
    coll_rdma_ucx_unlock();
    return rc;
}

/*
 * A rank that cannot prepare its part (out of memory) still takes part in
 * the first exchange, so that its peers learn it has no window instead of
 * waiting for its record: one record saying so, made once per process
 * (the configuration is the process's), sent to every peer, and every
 * peer's record received into one scratch record nobody reads.  Requests
 * are freed at once (the PML frees them when they complete): nothing here
 * allocates but the PML's requests.
 */
int coll_rdma_records_refuse(struct ompi_communicator_t *comm, coll_rdma_config_t *cfg)
{
    static record_t refusal, scratch;
    static int made = 0;
    int size = ompi_comm_size(comm), rank = ompi_comm_rank(comm), rc = OMPI_SUCCESS;

    coll_rdma_ucx_lock();
    if (!made) {
        refusal.why = NOWIN_MEMORY; /* refusal.bytes, .limit: 0 */
        coll_rdma_agree_config(cfg, refusal.header.config);
        made = 1;
    }
    coll_rdma_ucx_unlock();
    for (int i = 1; i < size && OMPI_SUCCESS == rc; ++i) {
        ompi_request_t *req;
        rc = MCA_PML_CALL(irecv(&scratch, sizeof(scratch), MPI_BYTE, (rank + size - i) % size,
                                COLL_RDMA_TAG_SETUP_RECORDS, comm, &req));
        if (OMPI_SUCCESS == rc) {
            ompi_request_free(&req);
            rc = MCA_PML_CALL(isend(&refusal, sizeof(refusal), MPI_BYTE, (rank + i) % size,
                                    COLL_RDMA_TAG_SETUP_RECORDS, MCA_PML_BASE_SEND_STANDARD,
                                    comm, &req));
        }
        if (OMPI_SUCCESS == rc) {
            ompi_request_free(&req);
        }
    }
    return rc;
}
