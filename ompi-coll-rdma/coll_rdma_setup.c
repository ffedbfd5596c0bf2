/*
 * coll/rdma window set-up of one communicator, as a nonblocking operation
 * (coll_rdma_setup.h).  Every step ends with an agreement, so all ranks
 * leave with the same state:
 *
 *   start    this rank: what is left of starting UCX, the op self-test,
 *            the window (allocated with this rank's configuration and
 *            every sequence word empty), the header {ok, blob size, every
 *            configuration parameter, the staleness asked, the op
 *            self-test's findings} and its address {window base, packed
 *            rkey, worker address}; exchange of these records
 *   records  every rank ok and every parameter equal, else no window on any
 *            rank (every rank sees the same records: all end here alike);
 *            the agreed staleness and op findings; attach the peers
 *            (lazily: those on this node and one off it); exchange of
 *            {connected, maps every peer, emulated puts, the node map's
 *            leader and hash} (a rank that ran out of memory here says "not
 *            connected": the failure travels in the exchange that exists)
 *   attached a peer that failed to connect anywhere means no window
 *            anywhere; else the window, all_direct, emulated and the node map
 *
 * The exchanges are coll/rdma's own (coll_rdma_exchange.h), on the PML with
 * tags no other code uses: they take no tag of the previous component's
 * counter, so that a set-up begun at a blocking call shifts nothing that
 * Open MPI's own nonblocking collectives (made from inside opal_progress at
 * moments that differ between ranks) count on.
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
#include "coll_rdma_exchange.h"
#include "coll_rdma_op.h"
#include "coll_rdma_topo.h"
#include "coll_rdma_ucx.h"
#include "coll_rdma_window.h"

#include <stdlib.h>
#include <string.h>

#include "ompi/mca/pml/pml.h"
#include "opal/runtime/opal_progress.h"

/* Bytes of the address (window base, packed rkey, worker address) a record
 * carries: 160 over shared memory and TCP here, a few hundred over
 * InfiniBand.  Every rank's record has the same size (the exchange's
 * receives are posted before any record is known); an address that does not
 * fit leaves the communicator without a window on every rank, said once. */
#define ADDRESS_MAX 1024

/* Why a rank has no window (a record's `why`), for the one line per job
 * that says so (report()). */
enum {
    NOWIN_NONE = 0,
    NOWIN_SMALL,   /* below coll_rdma_min_comm_size: on purpose, said at verbose 1 only */
    NOWIN_UCX,     /* UCX could not be started in this process */
    NOWIN_ADDRESS, /* its address does not fit a record */
    NOWIN_CONNECT, /* it could not attach a peer, or ran out of memory attaching */
    NOWIN_MEMORY,  /* it ran out of memory preparing its set-up (coll_rdma_setup_refuse) */
    NOWIN_WINDOW,  /* its window was not allocated: + enum coll_rdma_nowin */
    NOWIN_CAUSES = NOWIN_WINDOW + COLL_RDMA_NOWIN_N
};

/* What every rank brings: its header, why it has no window (and, for one not
 * allocated, the bytes it would have taken and the limit it met), its
 * address. */
typedef struct record {
    coll_rdma_header_t header;
    int64_t why;
    uint64_t bytes, limit;
    char address[ADDRESS_MAX];
} record_t;

enum { STAGE_PREPARED, STAGE_RECORDS, STAGE_ATTACHED, STAGE_DONE };

struct coll_rdma_setup {
    coll_rdma_setup_args_t a;
    int size, rank, stage;
    /* the two exchanges (coll_rdma_exchange.h), the second started once the
     * first ended; made at prepare, so that starting them allocates nothing */
    coll_rdma_exchange_t records_x, attached_x;
    coll_rdma_window_t *win;     /* this rank's window (NULL: none) */
    record_t mine, *records;
    coll_rdma_header_t *headers; /* the records' headers, side by side */
    int *displs;
    char *blobs;                 /* every rank's address, packed */
    size_t total;                /* their bytes */
    coll_rdma_attached_t ok, *oks;
    int64_t *leader_of;
    uint64_t *map_hash;
    bool agreed;
    int nowin_rank, nowin_why; /* the first rank without a window, and why */
    uint64_t nowin_bytes, nowin_limit; /* its window's size and the limit it met */
};

static void setup_release(coll_rdma_setup_t *s)
{
    coll_rdma_exchange_fini(&s->records_x);
    coll_rdma_exchange_fini(&s->attached_x);
    free(s->records);
    free(s->headers);
    free(s->displs);
    free(s->blobs);
    free(s->oks);
    free(s->leader_of);
    free(s->map_hash);
    s->records = NULL;
    s->headers = NULL;
    s->displs = NULL;
    s->blobs = NULL;
    s->oks = NULL;
    s->leader_of = NULL;
    s->map_hash = NULL;
}

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
    s->mine.why = NOWIN_SMALL;
    if (s->size >= cfg->min_comm_size) {
        /* what the warm-up calls left of the process's start */
        coll_rdma_ucx_lock();
        rc = coll_rdma_ucx_init();
        coll_rdma_op_selftest();
        coll_rdma_ucx_unlock();
        coll_rdma_op_fallback_wrong(h->wrong);
        s->mine.why = NOWIN_UCX;
        if (OMPI_SUCCESS == rc) {
            coll_rdma_window_limits_t limits = {.max_bytes = s->a.window_max_bytes,
                                                .budget_bytes = s->a.window_budget_bytes,
                                                .window_pool = s->a.window_pool,
                                                .local_ranks = local_ranks(s->a.comm)};
            coll_rdma_nowin_info_t nowin;
            s->win = coll_rdma_window_alloc(cfg, &limits, s->size, s->rank, &nowin);
            if (NULL != s->win) {
                s->win->poll_spins = s->a.poll_spins;
            } else {
                s->mine.why = NOWIN_WINDOW + nowin.why;
                s->mine.bytes = nowin.bytes;
                s->mine.limit = COLL_RDMA_NOWIN_CAP == nowin.why ? limits.max_bytes
                                                                 : limits.budget_bytes;
            }
        }
    }
    if (NULL != s->win) {
        h->blob_bytes = (int64_t) coll_rdma_window_blob_size(s->win);
        h->ok = h->blob_bytes <= ADDRESS_MAX;
        s->mine.why = h->ok ? NOWIN_NONE : NOWIN_ADDRESS;
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
    int rc;

    if (NULL == s) {
        return NULL;
    }
    s->a = *a;
    s->size = size;
    s->rank = ompi_comm_rank(a->comm);
    s->stage = STAGE_PREPARED;
    rc = coll_rdma_exchange_init(&s->records_x, a->comm);
    if (OMPI_SUCCESS == rc) {
        rc = coll_rdma_exchange_init(&s->attached_x, a->comm);
    }
    s->records = malloc(size * sizeof(*s->records));
    s->headers = malloc(size * sizeof(*s->headers));
    s->displs = calloc(size, sizeof(int));
    s->oks = calloc(size, sizeof(coll_rdma_attached_t));
    s->leader_of = calloc(size, sizeof(int64_t));
    s->map_hash = calloc(size, sizeof(uint64_t));
    if (OMPI_SUCCESS != rc || NULL == s->records || NULL == s->headers || NULL == s->displs
        || NULL == s->oks || NULL == s->leader_of || NULL == s->map_hash) {
        setup_release(s);
        free(s);
        return NULL;
    }
    local_part(s);
    return s;
}

/*
 * The first exchange starts at the set-up call, on every rank the same
 * call of the communicator; the second once the first ended, inside
 * opal_progress.  Neither takes a tag of the previous component's counter
 * (coll_rdma_exchange.h): the calls the application and Open MPI make of it
 * meanwhile keep their tags on every rank.
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
    if (NULL != s->win) {
        s->win->exposed = true; /* its address goes out now */
    }
    rc = coll_rdma_exchange_start(&s->records_x, COLL_RDMA_TAG_SETUP_RECORDS, &s->mine,
                                  s->records, sizeof(s->mine));
    if (OMPI_SUCCESS != rc) {
        /* cannot even take part in the agreement: the job cannot go on */
        coll_rdma_window_free(s->win);
        s->win = NULL;
        setup_release(s);
        s->stage = STAGE_DONE;
    }
    return rc;
}

/*
 * Records in: agree; then attach the peers and say how it went in the second
 * exchange (*more false: no window anywhere, nothing more to exchange).
 * Every rank sees the same records, so every rank decides alike whether the
 * second exchange happens; after that decision nothing here may keep a rank
 * out of it: a rank that runs out of memory takes part saying "not
 * connected", and every rank then agrees on no window.
 */
static int after_records(coll_rdma_setup_t *s, bool *more)
{
    int rc = OMPI_ERR_OUT_OF_RESOURCE;

    *more = false;
    for (int i = 0; i < s->size; ++i) {
        s->headers[i] = s->records[i].header;
    }
    if (!coll_rdma_agree_headers_on(s->a.comm, s->headers)) {
        for (int i = 0; i < s->size && NOWIN_NONE == s->nowin_why; ++i) {
            s->nowin_rank = i;
            s->nowin_why = (int) s->records[i].why;
            s->nowin_bytes = s->records[i].bytes;
            s->nowin_limit = s->records[i].limit;
        }
        return OMPI_SUCCESS;
    }
    s->a.cfg->allreduce_staleness = coll_rdma_agree_staleness_on(s->a.comm, s->headers);
    /* Where the fallback is wrong on any rank, its result is wrong: every
     * rank serves such calls, and decides alike from the same union. */
    for (int i = 0; i < s->size; ++i) {
        for (int f = 0; f < OMPI_OP_BASE_FORTRAN_OP_MAX; ++f) {
            s->a.fallback_wrong[f] |= s->headers[i].wrong[f];
        }
        s->displs[i] = (int) s->total;
        s->total += (size_t) s->headers[i].blob_bytes;
    }
    /* the addresses packed: the window keeps them while peers are left for
     * their first use (coll_rdma_window_attach) */
    s->blobs = malloc(s->total);
    if (NULL != s->blobs) {
        for (int i = 0; i < s->size; ++i) {
            memcpy(s->blobs + s->displs[i], s->records[i].address,
                   (size_t) s->records[i].header.blob_bytes);
        }
        rc = coll_rdma_window_attach(s->win, s->a.comm, &s->blobs, &s->displs,
                                     s->a.lazy_connect);
    }
    free(s->records);
    s->records = NULL;
    /* a peer that failed to connect (or ran out of memory) must not be
     * written to by others: it says so, and every rank goes without */
    coll_rdma_agree_attached(s->win, s->a.cfg->debug_node_ranks, OMPI_SUCCESS == rc, &s->ok);
    *more = true;
    return coll_rdma_exchange_start(&s->attached_x, COLL_RDMA_TAG_SETUP_ATTACHED, &s->ok, s->oks,
                                    sizeof(s->ok));
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
        if (s->agreed && !(s->oks[i].ok & 1)) {
            s->nowin_rank = i;
            s->nowin_why = NOWIN_CONNECT;
        }
        s->agreed = s->agreed && (s->oks[i].ok & 1);
        win->all_direct = win->all_direct && (s->oks[i].ok & 2);
        win->emulated = win->emulated || (s->oks[i].ok & 4);
    }
    if (s->agreed) {
        coll_rdma_agree_nodes(win, s->oks, s->leader_of, s->map_hash);
    }
    /* every rank maps every window: each retires the others' at its free,
     * so each may keep its own for reuse (coll_rdma_window.h, "the pool") */
    win->poolable = s->agreed && win->all_direct;
}

/*
 * A communicator left without a window by a rank that could not have one is
 * said at verbose 0, once per job and cause, by world rank 0 where it is a
 * member (a user who turned coll/rdma on learns that it does nothing here,
 * and why); below min_comm_size, and every communicator, at verbose 1.
 */
static void say_no_window(const coll_rdma_setup_t *s)
{
    static bool said[NOWIN_CAUSES];
    struct ompi_communicator_t *comm = s->a.comm;
    int r = s->nowin_rank, why = s->nowin_why;
    unsigned world = (unsigned) ompi_comm_peer_lookup(comm, r)->super.proc_name.vpid;
    char cause[384], who[64];
    bool first = coll_rdma_job_speaker() && why > NOWIN_SMALL && why < NOWIN_CAUSES
                 && !said[why];

    if (!first && !(0 == s->rank && coll_rdma_verbose(1))) {
        return;
    }
    snprintf(who, sizeof(who), "its rank %d (world rank %u)", r, world);
    switch (why) {
    case NOWIN_SMALL:
        snprintf(cause, sizeof(cause), "%d ranks, below coll_rdma_min_comm_size", s->size);
        break;
    case NOWIN_UCX:
        snprintf(cause, sizeof(cause), "UCX could not be started at %s", who);
        break;
    case NOWIN_ADDRESS:
        snprintf(cause, sizeof(cause), "the UCX address of %s is longer than the %d bytes the "
                 "set-up exchanges", who, ADDRESS_MAX);
        break;
    case NOWIN_CONNECT:
        snprintf(cause, sizeof(cause), "%s could not attach a peer's window", who);
        break;
    case NOWIN_MEMORY:
        snprintf(cause, sizeof(cause), "%s ran out of memory preparing its set-up", who);
        break;
    case NOWIN_WINDOW + COLL_RDMA_NOWIN_LAYOUT:
        snprintf(cause, sizeof(cause), "%s has no window geometry (size parameters beyond their "
                 "ranges)", who);
        break;
    case NOWIN_WINDOW + COLL_RDMA_NOWIN_FDS:
        snprintf(cause, sizeof(cause), "%s is near its file-descriptor limit", who);
        break;
    case NOWIN_WINDOW + COLL_RDMA_NOWIN_CAP:
        snprintf(cause, sizeof(cause), "the window of %s would take %llu bytes, more than "
                 "coll_rdma_window_max_bytes = %llu", who, (unsigned long long) s->nowin_bytes,
                 (unsigned long long) s->nowin_limit);
        break;
    case NOWIN_WINDOW + COLL_RDMA_NOWIN_BUDGET:
        snprintf(cause, sizeof(cause), "a window of %llu bytes would take the windows of %s past "
                 "coll_rdma_window_budget_bytes = %llu (by default from the size of the "
                 "shared-memory directory and the node's processes: set it, or give the "
                 "directory more room)",
                 (unsigned long long) s->nowin_bytes, who, (unsigned long long) s->nowin_limit);
        break;
    case NOWIN_WINDOW + COLL_RDMA_NOWIN_SHM:
        snprintf(cause, sizeof(cause), "the shared-memory directory of %s's node (UCX_POSIX_DIR, "
                 "/dev/shm) has not room for its windows of %llu bytes", who,
                 (unsigned long long) s->nowin_bytes);
        break;
    case NOWIN_WINDOW + COLL_RDMA_NOWIN_MEMORY:
        snprintf(cause, sizeof(cause), "%s ran out of memory allocating its window", who);
        break;
    case NOWIN_WINDOW + COLL_RDMA_NOWIN_MAP:
        snprintf(cause, sizeof(cause), "UCX could not map the window of %s (verbose 1 says why)",
                 who);
        break;
    default:
        snprintf(cause, sizeof(cause), "the ranks' configurations differ (said above)");
        break;
    }
    if (why > NOWIN_NONE && why < NOWIN_CAUSES) {
        said[why] = true;
    }
    coll_rdma_output("no window on communicator %s (size %d): %s; its collectives go to the "
                     "previous component%s", comm->c_name, s->size, cause,
                     first && !coll_rdma_verbose(1) ? " (said once per job and cause; "
                                                      "coll_rdma_verbose 1 names each communicator)"
                                                    : "");
}

/* What rank 0 says about the result. */
static void report(const coll_rdma_setup_t *s)
{
    const coll_rdma_window_t *win = s->win;
    struct ompi_communicator_t *comm = s->a.comm;

    if (!s->agreed) {
        say_no_window(s);
    }
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
}

int coll_rdma_setup_test(coll_rdma_setup_t *s, coll_rdma_window_t **win)
{
    int rc = OMPI_SUCCESS;
    bool more = true;

    *win = NULL;
    if (STAGE_DONE == s->stage) {
        return OMPI_SUCCESS; /* finished before: the window went to the first caller */
    }
    while (STAGE_DONE != s->stage && OMPI_SUCCESS == rc) {
        /* without waiting or calling opal_progress: this runs inside it (the
         * request layer's callback) */
        rc = coll_rdma_exchange_test(STAGE_RECORDS == s->stage ? &s->records_x : &s->attached_x);
        if (OMPI_ERR_WOULD_BLOCK == rc) {
            return rc;
        }
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

/*
 * A rank that cannot prepare its part (out of memory) still takes part in
 * the first exchange, so that its peers learn it has no window instead of
 * waiting for its record: one record saying so, made once per process
 * (the configuration is the process's), sent to every peer, and every
 * peer's record received into one scratch record nobody reads.  Requests
 * are freed at once (the PML frees them when they complete): nothing here
 * allocates but the PML's requests.
 */
int coll_rdma_setup_refuse(struct ompi_communicator_t *comm, coll_rdma_config_t *cfg)
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

void coll_rdma_setup_abandon(coll_rdma_setup_t *s)
{
    if (NULL == s) {
        return;
    }
    /* the PML is gone: its requests can be neither tested nor freed */
    s->records_x.nreqs = s->attached_x.nreqs = 0;
    coll_rdma_setup_free(s);
}

void coll_rdma_setup_free(coll_rdma_setup_t *s)
{
    if (NULL == s) {
        return;
    }
    /* prepared and never begun, or finished; one still exchanging cannot
     * be here (the module holds its communicator while it runs), and would
     * have its receives cancelled by setup_release */
    coll_rdma_window_free(s->win);
    setup_release(s);
    free(s);
}
