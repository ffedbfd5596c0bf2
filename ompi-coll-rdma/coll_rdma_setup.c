/*
 * coll/rdma window set-up of one communicator, as a nonblocking operation
 * (coll_rdma_setup.h).  Every step ends with an agreement, so all ranks
 * leave with the same state:
 *
 *   start    this rank: what is left of starting UCX, the op self-test,
 *            the window (allocated with this rank's configuration and
 *            every sequence word empty), the header {ok, blob size, every
 *            configuration parameter, the staleness asked, the op
 *            self-test's findings}; iallgather of the headers
 *   headers  every rank ok and every parameter equal, else no window on any
 *            rank; the agreed staleness and op findings; iallgatherv of the
 *            blobs {window base, packed rkey, worker address}
 *   blobs    attach the peers (lazily: those on this node and one off it);
 *            iallgather of {connected, maps every peer, emulated puts, the
 *            node map's leader and hash}
 *   attached a peer that failed to connect anywhere means no window
 *            anywhere; else the window, all_direct, emulated and the node map
 *
 * Below min_comm_size a rank takes part in the agreement without a window:
 * deciding it in comm_query instead would hang the job when the parameter
 * differs between ranks (the others' exchange would meet this rank's plain
 * collective).  docs/design.md, "Set-up of a communicator", says why the
 * exchanges are nonblocking and how the module switches every rank at the
 * same call.
 */
#include "ompi_config.h"

#include "coll_rdma_setup.h"
#include "coll_rdma_agree.h"
#include "coll_rdma_compat.h"
#include "coll_rdma_op.h"
#include "coll_rdma_topo.h"
#include "coll_rdma_ucx.h"
#include "coll_rdma_window.h"

#include <stdlib.h>
#include <string.h>

#include "opal/runtime/opal_progress.h"

/* Bytes of the address (window base, packed rkey, worker address) a record
 * carries: 160 over shared memory and TCP here, a few hundred over
 * InfiniBand.  Every rank's record has the same size (a persistent
 * allgather, made when the set-up starts); an address that does not fit
 * leaves the communicator without a window on every rank, with a warning. */
#define ADDRESS_MAX 1024

/* What every rank brings: its header and its address. */
typedef struct record {
    coll_rdma_header_t header;
    char address[ADDRESS_MAX];
} record_t;

enum { STAGE_PREPARED, STAGE_RECORDS, STAGE_ATTACHED, STAGE_DONE };

struct coll_rdma_setup {
    coll_rdma_setup_args_t a;
    int size, rank, stage;
    /* the two exchanges, persistent requests of the previous component made
     * at its begin (their tags reserved in call order on every rank: see
     * coll_rdma_setup_begin()), the second started once the first ended */
    ompi_request_t *gather_records, *gather_attached;
    coll_rdma_window_t *win;     /* this rank's window (NULL: none) */
    record_t mine, *records;
    int *displs;
    char *blobs;                 /* every rank's address, packed */
    size_t total;                /* their bytes */
    coll_rdma_attached_t ok, *oks;
    int64_t *leader_of;
    uint64_t *map_hash;
    bool agreed;
};

static void free_request(ompi_request_t **req)
{
    if (MPI_REQUEST_NULL != *req) {
        ompi_request_free(req);
        *req = MPI_REQUEST_NULL;
    }
}

static void setup_release(coll_rdma_setup_t *s)
{
    free_request(&s->gather_records);
    free_request(&s->gather_attached);
    free(s->records);
    free(s->displs);
    free(s->blobs);
    free(s->oks);
    free(s->leader_of);
    free(s->map_hash);
    s->records = NULL;
    s->displs = NULL;
    s->blobs = NULL;
    s->oks = NULL;
    s->leader_of = NULL;
    s->map_hash = NULL;
}

/* A persistent allgather of `bytes` bytes per rank. */
static int gather_init(coll_rdma_setup_t *s, const void *mine, void *all, size_t bytes,
                       ompi_request_t **req)
{
    return s->a.exchange.allgather_init(mine, (int) bytes, MPI_BYTE, all, (int) bytes, MPI_BYTE,
                                        s->a.comm, (struct ompi_info_t *) MPI_INFO_NULL, req,
                                        s->a.exchange.allgather_init_module);
}

static int start(ompi_request_t **req)
{
    return (*req)->req_start(1, req);
}

/* The local part: everything this rank brings to the first exchange. */
static void local_part(coll_rdma_setup_t *s)
{
    coll_rdma_config_t *cfg = s->a.cfg;
    coll_rdma_header_t *h = &s->mine.header;
    int rc;

    /* the window holds the ring this rank's communicator asked for (laid out
     * last: the other regions lie alike whatever ranks asked) */
    h->staleness = coll_rdma_agree_staleness_asked(s->a.comm);
    cfg->allreduce_staleness = h->staleness > 0 ? (int) h->staleness : 0;
    if (s->size >= cfg->min_comm_size) {
        /* what the warm-up calls left of the process's start */
        coll_rdma_ucx_lock();
        rc = coll_rdma_ucx_init();
        coll_rdma_op_selftest();
        coll_rdma_ucx_unlock();
        coll_rdma_op_fallback_wrong(h->wrong);
        if (OMPI_SUCCESS == rc) {
            s->win = coll_rdma_window_alloc(cfg, s->a.window_max_bytes, s->size, s->rank);
            if (NULL != s->win) {
                s->win->poll_spins = s->a.poll_spins;
            }
        }
    }
    if (NULL != s->win) {
        h->blob_bytes = (int64_t) coll_rdma_window_blob_size(s->win);
        h->ok = h->blob_bytes <= ADDRESS_MAX;
        if (h->ok) {
            coll_rdma_window_pack(s->win, s->mine.address);
        }
    }
    coll_rdma_agree_config(cfg, h->config);
}

coll_rdma_setup_t *coll_rdma_setup_prepare(const coll_rdma_setup_args_t *a)
{
    coll_rdma_setup_t *s = calloc(1, sizeof(*s));
    int size = ompi_comm_size(a->comm);

    if (NULL == s) {
        return NULL;
    }
    s->a = *a;
    s->size = size;
    s->rank = ompi_comm_rank(a->comm);
    s->stage = STAGE_PREPARED;
    s->gather_records = s->gather_attached = MPI_REQUEST_NULL;
    s->records = malloc(size * sizeof(*s->records));
    s->displs = calloc(size, sizeof(int));
    s->oks = calloc(size, sizeof(coll_rdma_attached_t));
    s->leader_of = calloc(size, sizeof(int64_t));
    s->map_hash = calloc(size, sizeof(uint64_t));
    if (NULL == s->records || NULL == s->displs || NULL == s->oks || NULL == s->leader_of
        || NULL == s->map_hash) {
        setup_release(s);
        free(s);
        return NULL;
    }
    local_part(s);
    return s;
}

/*
 * Both exchanges are made here, as persistent requests, though the second
 * starts only once the first ended: Open MPI's nonblocking collectives take
 * a tag from the communicator's counter when they are made (libnbc,
 * ompi_coll_base_nbc_reserve_tags), so one made later, inside opal_progress,
 * could take its tag before or after an MPI_Igatherv the application makes
 * on the same communicator meanwhile, depending on timing, and the ranks'
 * tags would no longer match.  Made at this call, the same on every rank,
 * they hold their tags; starting a persistent request takes none.
 */
int coll_rdma_setup_begin(coll_rdma_setup_t *s)
{
    int rc;

    if (coll_rdma_agree_staleness_asked(s->a.comm) != s->mine.header.staleness) {
        /* the info key changed since the window was laid out: again */
        coll_rdma_window_free(s->win);
        s->win = NULL;
        memset(&s->mine, 0, sizeof(s->mine));
        local_part(s);
    }
    s->stage = STAGE_RECORDS;
    rc = gather_init(s, &s->mine, s->records, sizeof(s->mine), &s->gather_records);
    if (OMPI_SUCCESS == rc) {
        rc = gather_init(s, &s->ok, s->oks, sizeof(s->ok), &s->gather_attached);
    }
    if (OMPI_SUCCESS == rc) {
        rc = start(&s->gather_records);
    }
    if (OMPI_SUCCESS != rc) {
        /* cannot even take part in the agreement: the job cannot go on */
        coll_rdma_window_free(s->win);
        s->win = NULL;
        setup_release(s);
        s->stage = STAGE_DONE;
    }
    return rc;
}

/* Records gathered: agree; then attach the peers and say how it went
 * (*more false: no window anywhere, nothing more to exchange). */
static int after_records(coll_rdma_setup_t *s, bool *more)
{
    coll_rdma_header_t *headers = malloc(s->size * sizeof(*headers));
    int rc;

    *more = false;
    if (NULL == headers) {
        return OMPI_ERR_OUT_OF_RESOURCE; /* the peers wait for the second exchange */
    }
    for (int i = 0; i < s->size; ++i) {
        headers[i] = s->records[i].header;
        if (0 == s->rank && headers[i].blob_bytes > ADDRESS_MAX) {
            coll_rdma_output("warning: rank %d's UCX address takes %lld bytes, more than the "
                             "%d the set-up exchanges: coll/rdma hands communicator %s on",
                             i, (long long) headers[i].blob_bytes, ADDRESS_MAX,
                             s->a.comm->c_name);
        }
    }
    if (!coll_rdma_agree_headers(headers, s->size, s->rank)) {
        free(headers);
        return OMPI_SUCCESS;
    }
    s->a.cfg->allreduce_staleness = coll_rdma_agree_staleness(headers, s->size, s->rank);
    /* Where the fallback is wrong on any rank, its result is wrong: every
     * rank serves such calls, and decides alike from the same union. */
    for (int i = 0; i < s->size; ++i) {
        for (int f = 0; f < OMPI_OP_BASE_FORTRAN_OP_MAX; ++f) {
            s->a.fallback_wrong[f] |= headers[i].wrong[f];
        }
        s->displs[i] = (int) s->total;
        s->total += (size_t) headers[i].blob_bytes;
    }
    free(headers);
    /* the addresses packed: the window keeps them while peers are left for
     * their first use (coll_rdma_window_attach) */
    s->blobs = malloc(s->total);
    if (NULL == s->blobs) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    for (int i = 0; i < s->size; ++i) {
        memcpy(s->blobs + s->displs[i], s->records[i].address,
               (size_t) s->records[i].header.blob_bytes);
    }
    free(s->records);
    s->records = NULL;
    rc = coll_rdma_window_attach(s->win, s->a.comm, &s->blobs, &s->displs, s->a.lazy_connect);
    coll_rdma_agree_attached(s->win, s->a.cfg->debug_node_ranks, OMPI_SUCCESS == rc, &s->ok);
    /* a peer that failed to connect must not be written to by others */
    *more = true;
    return start(&s->gather_attached);
}
/* Every rank said how attaching went: the window, or none anywhere. */
static void after_attached(coll_rdma_setup_t *s)
{
    coll_rdma_window_t *win = s->win;

    s->agreed = true;
    /* Where Open MPI yields the core in its progress loop (oversubscribed,
     * or mpi_yield_when_idle), yield at every poll of a window whose peers
     * are reached by UCX puts: each such poll progresses UCX (a system call
     * over TCP), so poll_spins of them would hold the core for up to a
     * millisecond while the rank that must send runs on it. */
    if (opal_progress_yield_when_idle && win->nremote > 0) {
        win->poll_spins = 1;
    }
    win->all_direct = true;
    for (int i = 0; i < s->size; ++i) {
        s->agreed = s->agreed && (s->oks[i].ok & 1);
        win->all_direct = win->all_direct && (s->oks[i].ok & 2);
        win->emulated = win->emulated || (s->oks[i].ok & 4);
    }
    if (s->agreed) {
        coll_rdma_agree_nodes(win, s->oks, s->leader_of, s->map_hash);
    }
}

/* What rank 0 says about the result. */
static void report(const coll_rdma_setup_t *s)
{
    const coll_rdma_window_t *win = s->win;
    struct ompi_communicator_t *comm = s->a.comm;

    if (0 != s->rank) {
        return;
    }
    if (s->agreed && win->emulated && !s->a.cfg->auto_emulated && coll_rdma_verbose(1)) {
        coll_rdma_output("communicator %s (size %d): UCX emulates puts to some peer (no RMA "
                         "lane, e.g. TCP): auto hands its calls on (coll_rdma_auto_emulated=1 "
                         "serves them)", comm->c_name, s->size);
    }
    if (s->agreed && coll_rdma_verbose(2)) {
        coll_rdma_output("communicator %s (size %d): window of %zu bytes; addresses %zu bytes in "
                         "all; rank 0 attached %d peers at set-up (%d mapped), %d left for their "
                         "first put or get", comm->c_name, s->size, win->size, s->total,
                         win->nattached, s->size - 1 - win->nremote, win->npending);
    }
    if (!s->agreed && coll_rdma_verbose(1)) {
        coll_rdma_output("no window on communicator %s (size %d): every call falls back",
                         comm->c_name, s->size);
    }
}

int coll_rdma_setup_test(coll_rdma_setup_t *s, coll_rdma_window_t **win)
{
    ompi_request_t **req;
    int rc = OMPI_SUCCESS;
    bool more = true;

    *win = NULL;
    if (STAGE_DONE == s->stage) {
        return OMPI_SUCCESS; /* finished before: the window went to the first caller */
    }
    while (STAGE_DONE != s->stage && OMPI_SUCCESS == rc) {
        req = STAGE_RECORDS == s->stage ? &s->gather_records : &s->gather_attached;
        /* only the flag: ompi_request_test would call opal_progress, and
         * this runs inside it (the request layer's callback) */
        if (!REQUEST_COMPLETE(*req)) {
            return OMPI_ERR_WOULD_BLOCK;
        }
        rc = (*req)->req_status.MPI_ERROR;
        if (OMPI_SUCCESS != rc) {
            break;
        }
        if (STAGE_RECORDS == s->stage) {
            rc = after_records(s, &more);
            s->stage = more ? STAGE_ATTACHED : STAGE_DONE;
        } else {
            after_attached(s);
            s->stage = STAGE_DONE;
        }
    }
    s->stage = STAGE_DONE;
    if (OMPI_SUCCESS == rc) {
        report(s);
    }
    if (s->agreed && OMPI_SUCCESS == rc) {
        *win = s->win;
    } else {
        s->a.cfg->allreduce_staleness = 0;
        coll_rdma_window_free(s->win);
    }
    s->win = NULL;
    setup_release(s);
    return rc;
}

void coll_rdma_setup_free(coll_rdma_setup_t *s)
{
    coll_rdma_window_t *win = NULL;

    if (NULL == s) {
        return;
    }
    /* the communicator goes: its window, if the set-up ends with one, too */
    while (STAGE_PREPARED != s->stage && OMPI_ERR_WOULD_BLOCK == coll_rdma_setup_test(s, &win)) {
        opal_progress();
    }
    coll_rdma_window_free(win);
    coll_rdma_window_free(s->win); /* prepared, never begun */
    setup_release(s);
    free(s);
}
