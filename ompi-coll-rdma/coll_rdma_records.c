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
    int rc, local = local_ranks(r->comm);

    /* the window holds the ring this rank's communicator asked for (laid out
     * last: the other regions lie alike whatever ranks asked) */
    h->staleness = coll_rdma_agree_staleness_asked(r->comm);
    cfg->allreduce_staleness = h->staleness > 0 ? (int) h->staleness : 0;
    r->mine.why = COLL_RDMA_SETUP_NOWIN_SMALL;
    /* the bcast rings are sized by it (agreed: ranks that see the
     * communicator's locality differently get no window) */
    cfg->one_node = local == r->size;
    h->one_node = cfg->one_node;
    if (r->size >= cfg->min_comm_size) {
        /* what the warm-up calls left of the process's start */
        coll_rdma_ucx_lock();
        rc = coll_rdma_ucx_init();
        coll_rdma_op_selftest();
        coll_rdma_ucx_unlock();
        coll_rdma_op_fallback_wrong(h->wrong);
        r->mine.why = COLL_RDMA_SETUP_NOWIN_UCX;
        if (OMPI_SUCCESS == rc) {
            coll_rdma_window_limits_t limits = {.max_bytes = a->window_max_bytes,
                                                .budget_bytes = a->window_budget_bytes,
                                                .window_pool = a->window_pool,
                                                .local_ranks = local};
            coll_rdma_nowin_info_t nowin;
            win = coll_rdma_window_alloc(cfg, &limits, r->size, r->rank, &nowin);
            if (NULL != win) {
                win->poll_spins = a->poll_spins;
            } else {
                r->mine.why = COLL_RDMA_SETUP_NOWIN_WINDOW + nowin.why;
                r->mine.bytes = nowin.bytes;
                r->mine.limit = COLL_RDMA_NOWIN_CAP == nowin.why ? limits.max_bytes
                                                                 : limits.budget_bytes;
            }
        }
    }
    r->inline_max = a->address_inline < COLL_RDMA_ADDRESS_INLINE ? a->address_inline
                                                                 : COLL_RDMA_ADDRESS_INLINE;
    if (NULL != win) {
        const void *worker;
        size_t worker_bytes = coll_rdma_ucx_worker_address(&worker);
        size_t blob_bytes = coll_rdma_window_blob_size(win);
        char *address = r->mine.address;

        if (blob_bytes + worker_bytes > r->inline_max) {
            address = r->full = malloc(blob_bytes + worker_bytes);
            r->mine.contact = COLL_RDMA_CONTACT_LONG; /* this rank's own place in the exchange */
        }
        h->ok = NULL != address;
        r->mine.why = h->ok ? COLL_RDMA_SETUP_NOWIN_NONE : COLL_RDMA_SETUP_NOWIN_MEMORY;
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

void coll_rdma_records_drop(coll_rdma_records_t *r, bool in_flight)
{
    in_flight = in_flight || r->long_x.nreqs > 0;
    if (NULL != r->long_x.reqs) {
        coll_rdma_exchange_fini(&r->long_x);
    }
    /* what the PML may still read or write (a set-up given up after an
     * error, its requests not complete) is left to it */
    for (int v = 0; v < 4; ++v) {
        if (!in_flight) {
            free(r->to[v]);
        }
        r->to[v] = NULL;
    }
    if (!in_flight) {
        free(r->full);
        free(r->long_in);
        free(r->sink);
    }
    free(r->contact);
    free(r->long_at);
    r->contact = NULL;
    r->full = r->long_in = NULL;
    r->long_at = NULL;
    r->sink = NULL;
}

/* The address bytes this rank's record to a peer with contact bits v says:
 * its window's blob and, where it carries it, its worker address. */
static size_t address_bytes(const coll_rdma_records_t *r, int v)
{
    return (size_t) r->mine.header.blob_bytes
           + (v & COLL_RDMA_CONTACT_CARRIES ? (size_t) r->mine.worker_bytes : 0);
}

/* Whether they go apart (COLL_RDMA_CONTACT_LONG) rather than in the record. */
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
    return COLL_RDMA_RECORD_HEAD_BYTES + (goes_apart(r, v) ? 0 : address_bytes(r, v));
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
    r->sink = calloc(r->size, 1);
    r->long_at = calloc(r->size, sizeof(size_t));
    for (int v = 0; v < 4; ++v) {
        r->to[v] = malloc(record_bytes(r, v));
    }
    /* the long step's requests too: after the records nothing may keep this
     * rank out of it (coll_rdma_records_long_start) */
    return NULL != r->contact && NULL != r->sink && NULL != r->long_at && NULL != r->to[0]
           && NULL != r->to[1]
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
        r->contact[i] = (coll_rdma_ucx_peer_holds_mine(proc) ? 0 : COLL_RDMA_CONTACT_CARRIES)
                        | (coll_rdma_ucx_peer_known(proc) ? COLL_RDMA_CONTACT_HOLDS_YOURS : 0);
        r->carried += i != r->rank && (r->contact[i] & COLL_RDMA_CONTACT_CARRIES);
        r->apart += i != r->rank && goes_apart(r, r->contact[i]);
    }
    worker_sent += (uint64_t) r->carried;
    coll_rdma_ucx_unlock();
    for (int v = 0; v < 4; ++v) {
        memcpy(r->to[v], &r->mine, COLL_RDMA_RECORD_HEAD_BYTES);
        memcpy(r->to[v]->address, my_address(r), record_bytes(r, v) - COLL_RDMA_RECORD_HEAD_BYTES);
        r->to[v]->contact = v | (goes_apart(r, v) ? COLL_RDMA_CONTACT_LONG : 0);
        r->to[v]->worker_bytes = v & COLL_RDMA_CONTACT_CARRIES ? r->mine.worker_bytes : 0;
    }
}

/* What goes to `peer` (coll_rdma_exchange_send_fn). */
const void *coll_rdma_records_for(void *ctx, int peer, size_t *len)
{
    coll_rdma_records_t *r = ctx;
    int v;

    if (NULL == r->contact) {
        *len = COLL_RDMA_RECORD_HEAD_BYTES;
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
    const coll_rdma_record_t *all;
} long_step_t;

static size_t long_bytes(const coll_rdma_record_t *rec)
{
    return (size_t) rec->header.blob_bytes
           + (rec->contact & COLL_RDMA_CONTACT_CARRIES ? (size_t) rec->worker_bytes : 0);
}

static void *long_recv(void *ctx, int peer, size_t *len)
{
    long_step_t *l = ctx;

    *len = l->all[peer].contact & COLL_RDMA_CONTACT_LONG ? long_bytes(&l->all[peer]) : 0;
    if (NULL == l->r->long_in) {
        /* out of memory: one byte of each address, the rest truncated */
        *len = *len < 1 ? *len : 1;
        return l->r->sink + peer;
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

int coll_rdma_records_long_start(coll_rdma_records_t *r, const coll_rdma_record_t *all,
                                 bool *started)
{
    long_step_t l = {.r = r, .all = all};
    size_t total = 0;

    /* between the pairs it concerns: a rank that sends or receives no long
     * address takes no part (the records say which) */
    *started = false;
    for (int i = 0; i < r->size; ++i) {
        *started = *started || (i != r->rank && ((all[i].contact & COLL_RDMA_CONTACT_LONG)
                                                 || goes_apart(r, r->contact[i])));
    }
    if (!*started) {
        return OMPI_SUCCESS;
    }
    for (int i = 0; i < r->size; ++i) {
        r->long_at[i] = total;
        total += i != r->rank && (all[i].contact & COLL_RDMA_CONTACT_LONG) ? long_bytes(&all[i])
                                                                          : 0;
    }
    r->long_in = malloc(total > 0 ? total : 1);
    /* out of memory: the peers' sends still complete (received truncated
     * into a byte each of r->sink, the truncation not an error), and this
     * rank then says "not connected" (r->long_failed) */
    r->long_failed = NULL == r->long_in;
    r->long_x.truncate_ok = r->long_failed;
    return coll_rdma_exchange_start_pairs(&r->long_x, COLL_RDMA_TAG_SETUP_ADDRESS, long_recv,
                                          long_send, &l);
}

const char *coll_rdma_records_address(const coll_rdma_records_t *r, const coll_rdma_record_t *all,
                                      int i)
{
    if (!(all[i].contact & COLL_RDMA_CONTACT_LONG)) {
        return all[i].address;
    }
    return i == r->rank ? r->full : r->long_in + r->long_at[i];
}

int coll_rdma_records_learn(coll_rdma_records_t *r, const coll_rdma_record_t *all)
{
    int rc = OMPI_SUCCESS;

    if (NULL == r->contact) {
        return OMPI_SUCCESS; /* no window here: nothing to reach */
    }
    coll_rdma_ucx_lock();
    for (int i = 0; i < r->size; ++i) {
        const coll_rdma_record_t *peer = &all[i];
        const char *address = NULL;
        int rci;

        if (i == r->rank || !peer->header.ok) {
            continue;
        }
        /* a long address only where the long step brought it */
        if ((peer->contact & COLL_RDMA_CONTACT_CARRIES)
            && (!(peer->contact & COLL_RDMA_CONTACT_LONG) || NULL != r->long_in)) {
            address = coll_rdma_records_address(r, all, i) + peer->header.blob_bytes;
            r->received += 1;
        }
        rci = coll_rdma_ucx_peer_learn(ompi_comm_peer_lookup(r->comm, i), address,
                                       (size_t) peer->worker_bytes,
                                       0 != (peer->contact & COLL_RDMA_CONTACT_HOLDS_YOURS));
        rc = OMPI_SUCCESS == rc ? rci : rc;
    }
    worker_received += (uint64_t) r->received;
    coll_rdma_ucx_unlock();
    return rc;
}

void coll_rdma_records_agreed(coll_rdma_records_t *r)
{
    coll_rdma_ucx_lock();
    for (int i = 0; i < r->size; ++i) {
        if (i != r->rank) {
            (void) coll_rdma_ucx_peer_learn(ompi_comm_peer_lookup(r->comm, i), NULL, 0, true);
        }
    }
    coll_rdma_ucx_unlock();
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
    static coll_rdma_record_t refusal, scratch;
    static int made = 0;
    int size = ompi_comm_size(comm), rank = ompi_comm_rank(comm), rc = OMPI_SUCCESS;

    coll_rdma_ucx_lock();
    if (!made) {
        refusal.why = COLL_RDMA_SETUP_NOWIN_MEMORY; /* refusal.bytes, .limit: 0 */
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
            rc = MCA_PML_CALL(isend(&refusal, COLL_RDMA_RECORD_HEAD_BYTES, MPI_BYTE,
                                    (rank + i) % size,
                                    COLL_RDMA_TAG_SETUP_RECORDS, MCA_PML_BASE_SEND_STANDARD,
                                    comm, &req));
        }
        if (OMPI_SUCCESS == rc) {
            ompi_request_free(&req);
        }
    }
    return rc;
}
