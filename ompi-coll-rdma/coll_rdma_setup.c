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
 *            rkey}, and to a peer process that lacks it its worker address
 *            (coll_rdma_ucx.h, "Worker addresses"); exchange of these
 *            records (coll_rdma_records.h)
 *   records  every rank ok and every parameter equal, else no window on any
 *            rank (every rank sees the same records: all end here alike);
 *            the agreed staleness and op findings; addresses too long for
 *            a record fetched, between the pairs whose records say so
 *   addresses  the worker addresses learned; attach the peers
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
#include "coll_rdma_records.h"
#include "coll_rdma_topo.h"
#include "coll_rdma_window.h"

#include <stdlib.h>
#include <string.h>

#include "opal/runtime/opal_progress.h"

enum { STAGE_PREPARED, STAGE_RECORDS, STAGE_ADDRESSES, STAGE_ATTACHED, STAGE_DONE };

struct coll_rdma_setup {
    coll_rdma_setup_args_t a;
    int size, rank, stage;
    /* the two exchanges (coll_rdma_exchange.h), the second started once the
     * first ended; made at prepare, so that starting them allocates nothing */
    coll_rdma_exchange_t records_x, attached_x;
    coll_rdma_window_t *win;     /* this rank's window (NULL: none) */
    coll_rdma_records_t recs;    /* this rank's records (coll_rdma_records.h) */
    coll_rdma_record_t *records;           /* every rank's, as received */
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
    /* requests not complete (a set-up given up after an error): the records
     * they send and receive are left to the PML */
    bool in_flight = s->records_x.nreqs > 0;

    coll_rdma_exchange_fini(&s->records_x);
    coll_rdma_exchange_fini(&s->attached_x);
    if (!in_flight) {
        free(s->records);
    }
    coll_rdma_records_drop(&s->recs, in_flight);
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

/* The local part (coll_rdma_records_local), with this set-up's limits, and
 * room for the records to the peers; false when out of memory for those
 * (the records dropped: `mine` goes to every peer, bare). */
static bool local_part(coll_rdma_setup_t *s)
{
    coll_rdma_records_args_t ra = {.window_max_bytes = s->a.window_max_bytes,
                                   .window_budget_bytes = s->a.window_budget_bytes,
                                   .address_inline = s->a.address_inline,
                                   .window_pool = s->a.window_pool,
                                   .poll_spins = s->a.poll_spins};

    memset(&s->recs, 0, sizeof(s->recs));
    s->recs.comm = s->a.comm;
    s->recs.size = s->size;
    s->recs.rank = s->rank;
    s->win = coll_rdma_records_local(&s->recs, s->a.cfg, &ra);
    if (coll_rdma_records_alloc(&s->recs)) {
        return true;
    }
    coll_rdma_records_drop(&s->recs, false);
    return false;
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
    if (!local_part(s)) {
        coll_rdma_setup_free(s);
        return NULL;
    }
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

    if (coll_rdma_agree_staleness_asked(s->a.comm) != s->recs.mine.header.staleness) {
        /* the info key changed since the window was laid out: again */
        coll_rdma_window_free(s->win);
        s->win = NULL;
        coll_rdma_records_drop(&s->recs, false);
        if (!local_part(s)) {
            s->recs.mine.header.ok = 0;
            s->recs.mine.why = COLL_RDMA_SETUP_NOWIN_MEMORY;
        }
    }
    s->stage = STAGE_RECORDS;
    if (NULL != s->win) {
        s->win->exposed = true; /* its address goes out now */
    }
    coll_rdma_records_fill(&s->recs);
    rc = coll_rdma_exchange_start_each(&s->records_x, COLL_RDMA_TAG_SETUP_RECORDS, &s->recs.mine,
                                       s->records, sizeof(coll_rdma_record_t),
                                       coll_rdma_records_for, &s->recs);
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
 * Every address in: learn the worker addresses, attach the peers and say
 * how it went in the second exchange.  After the agreement nothing here
 * may keep a rank out of that exchange: a rank that runs out of memory (or
 * could not receive a long address) takes part saying "not connected", and
 * every rank then agrees on no window.
 */
static int attach_and_say(coll_rdma_setup_t *s)
{
    int rc = OMPI_ERR_OUT_OF_RESOURCE;
    int learnt = coll_rdma_records_learn(&s->recs, s->records);

    learnt = s->recs.long_failed ? OMPI_ERR_OUT_OF_RESOURCE : learnt;

    /* the addresses packed: the window keeps them while peers are left for
     * their first use (coll_rdma_window_attach) */
    s->blobs = s->recs.long_failed ? NULL : malloc(s->total);
    if (NULL != s->blobs) {
        for (int i = 0; i < s->size; ++i) {
            memcpy(s->blobs + s->displs[i], coll_rdma_records_address(&s->recs, s->records, i),
                   (size_t) s->records[i].header.blob_bytes);
        }
        rc = coll_rdma_window_attach(s->win, s->a.comm, &s->blobs, &s->displs,
                                     s->a.lazy_connect);
    }
    rc = OMPI_SUCCESS == rc ? learnt : rc;
    free(s->records);
    s->records = NULL;
    /* a peer that failed to connect (or ran out of memory) must not be
     * written to by others: it says so, and every rank goes without */
    coll_rdma_agree_attached(s->win, s->a.cfg->debug_node_ranks, OMPI_SUCCESS == rc, &s->ok);
    return coll_rdma_exchange_start(&s->attached_x, COLL_RDMA_TAG_SETUP_ATTACHED, &s->ok, s->oks,
                                    sizeof(s->ok));
}

/*
 * Records in: agree (every rank sees the same records, so every rank decides
 * alike what follows); the next stage: STAGE_DONE (no window anywhere),
 * STAGE_ADDRESSES (some rank's address is too long for a record: it comes
 * apart) or STAGE_ATTACHED (attach_and_say() done).
 */
static int after_records(coll_rdma_setup_t *s, int *next)
{
    bool started;
    int rc;

    *next = STAGE_DONE;
    for (int i = 0; i < s->size; ++i) {
        s->headers[i] = s->records[i].header;
    }
    if (!coll_rdma_agree_headers_on(s->a.comm, s->headers)) {
        (void) coll_rdma_records_learn(&s->recs, s->records); /* for the next set-up */
        for (int i = 0; i < s->size && COLL_RDMA_SETUP_NOWIN_NONE == s->nowin_why; ++i) {
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
    rc = coll_rdma_records_long_start(&s->recs, s->records, &started);
    if (OMPI_SUCCESS == rc && started) {
        *next = STAGE_ADDRESSES;
        return OMPI_SUCCESS;
    }
    *next = STAGE_ATTACHED;
    return OMPI_SUCCESS == rc ? attach_and_say(s) : rc;
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
            s->nowin_why = COLL_RDMA_SETUP_NOWIN_CONNECT;
        }
        s->agreed = s->agreed && (s->oks[i].ok & 1);
        win->all_direct = win->all_direct && (s->oks[i].ok & 2);
        win->emulated = win->emulated || (s->oks[i].ok & 4);
    }
    if (s->agreed) {
        coll_rdma_agree_nodes(win, s->oks, s->leader_of, s->map_hash);
        coll_rdma_records_agreed(&s->recs);
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
    static bool said[COLL_RDMA_SETUP_NOWIN_CAUSES];
    struct ompi_communicator_t *comm = s->a.comm;
    int r = s->nowin_rank, why = s->nowin_why;
    unsigned world = (unsigned) ompi_comm_peer_lookup(comm, r)->super.proc_name.vpid;
    char cause[384], who[64];
    bool first = coll_rdma_job_speaker() && why > COLL_RDMA_SETUP_NOWIN_SMALL
                 && why < COLL_RDMA_SETUP_NOWIN_CAUSES
                 && !said[why];

    if (!first && !(0 == s->rank && coll_rdma_verbose(1))) {
        return;
    }
    snprintf(who, sizeof(who), "its rank %d (world rank %u)", r, world);
    switch (why) {
    case COLL_RDMA_SETUP_NOWIN_SMALL:
        snprintf(cause, sizeof(cause), "%d ranks, below coll_rdma_min_comm_size", s->size);
        break;
    case COLL_RDMA_SETUP_NOWIN_UCX:
        snprintf(cause, sizeof(cause), "UCX could not be started at %s", who);
        break;
    case COLL_RDMA_SETUP_NOWIN_CONNECT:
        snprintf(cause, sizeof(cause), "%s could not attach a peer's window (or had no memory "
                 "for the peers' addresses)", who);
        break;
    case COLL_RDMA_SETUP_NOWIN_MEMORY:
        snprintf(cause, sizeof(cause), "%s ran out of memory preparing its set-up", who);
        break;
    case COLL_RDMA_SETUP_NOWIN_WINDOW + COLL_RDMA_NOWIN_LAYOUT:
        snprintf(cause, sizeof(cause), "%s has no window geometry (size parameters beyond their "
                 "ranges)", who);
        break;
    case COLL_RDMA_SETUP_NOWIN_WINDOW + COLL_RDMA_NOWIN_FDS:
        snprintf(cause, sizeof(cause), "%s is near its file-descriptor limit", who);
        break;
    case COLL_RDMA_SETUP_NOWIN_WINDOW + COLL_RDMA_NOWIN_CAP:
        snprintf(cause, sizeof(cause), "the window of %s would take %llu bytes, more than "
                 "coll_rdma_window_max_bytes = %llu", who, (unsigned long long) s->nowin_bytes,
                 (unsigned long long) s->nowin_limit);
        break;
    case COLL_RDMA_SETUP_NOWIN_WINDOW + COLL_RDMA_NOWIN_BUDGET:
        snprintf(cause, sizeof(cause), "a window of %llu bytes would take the windows of %s past "
                 "coll_rdma_window_budget_bytes = %llu (by default from the size of the "
                 "shared-memory directory and the node's processes: set it, or give the "
                 "directory more room)",
                 (unsigned long long) s->nowin_bytes, who, (unsigned long long) s->nowin_limit);
        break;
    case COLL_RDMA_SETUP_NOWIN_WINDOW + COLL_RDMA_NOWIN_SHM:
        snprintf(cause, sizeof(cause), "the shared-memory directory of %s's node (UCX_POSIX_DIR, "
                 "/dev/shm) has not room for its windows of %llu bytes", who,
                 (unsigned long long) s->nowin_bytes);
        break;
    case COLL_RDMA_SETUP_NOWIN_WINDOW + COLL_RDMA_NOWIN_MEMORY:
        snprintf(cause, sizeof(cause), "%s ran out of memory allocating its window", who);
        break;
    case COLL_RDMA_SETUP_NOWIN_WINDOW + COLL_RDMA_NOWIN_MAP:
        snprintf(cause, sizeof(cause), "UCX could not map the window of %s (verbose 1 says why)",
                 who);
        break;
    default:
        snprintf(cause, sizeof(cause), "the ranks' configurations differ (said above)");
        break;
    }
    if (why > COLL_RDMA_SETUP_NOWIN_NONE && why < COLL_RDMA_SETUP_NOWIN_CAUSES) {
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
    if (s->agreed && !win->all_direct && (win->bcast_tree_cut || win->bcast_read_cut)
        && coll_rdma_verbose(1)) {
        coll_rdma_output("communicator %s (size %d): on one node, but UCX does not map every "
                         "window: auto hands on its k-nomial bcast where that ring is cut (%s) "
                         "and its two-level one where either ring is (read ring %s); the rings "
                         "hold what rules and bcast_algorithm send",
                         comm->c_name, s->size, win->bcast_tree_cut ? "cut" : "whole",
                         win->bcast_read_cut ? "cut" : "whole");
    }
    if (s->agreed && coll_rdma_verbose(2)) {
        coll_rdma_output("communicator %s (size %d): window of %zu bytes; addresses %zu bytes in "
                         "all; worker address of %lld bytes sent to %d peers, received from %d; "
                         "address apart (too long for a record) to %d peers; rank 0 attached %d "
                         "peers at set-up (%d mapped), %d left for their first put or get; "
                         "set-up headers of %zu bytes",
                         comm->c_name, s->size, win->size, s->total,
                         (long long) s->recs.mine.worker_bytes, s->recs.carried, s->recs.received,
                         s->recs.apart, win->nattached, s->size - 1 - win->nremote,
                         win->npending, sizeof(coll_rdma_header_t));
    }
}

/* The exchange the stage waits for. */
static coll_rdma_exchange_t *stage_exchange(coll_rdma_setup_t *s)
{
    switch (s->stage) {
    case STAGE_RECORDS:
        return &s->records_x;
    case STAGE_ADDRESSES:
        return &s->recs.long_x;
    default:
        return &s->attached_x;
    }
}

int coll_rdma_setup_test(coll_rdma_setup_t *s, coll_rdma_window_t **win)
{
    int rc = OMPI_SUCCESS;

    *win = NULL;
    if (STAGE_DONE == s->stage) {
        return OMPI_SUCCESS; /* finished before: the window went to the first caller */
    }
    while (STAGE_DONE != s->stage && OMPI_SUCCESS == rc) {
        /* without waiting or calling opal_progress: this runs inside it (the
         * request layer's callback) */
        rc = coll_rdma_exchange_test(stage_exchange(s));
        if (OMPI_ERR_WOULD_BLOCK == rc) {
            return rc;
        }
        if (OMPI_SUCCESS != rc) {
            break;
        }
        if (STAGE_RECORDS == s->stage) {
            rc = after_records(s, &s->stage);
        } else if (STAGE_ADDRESSES == s->stage) {
            s->stage = STAGE_ATTACHED;
            rc = attach_and_say(s);
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

void coll_rdma_setup_abandon(coll_rdma_setup_t *s)
{
    if (NULL == s) {
        return;
    }
    /* the PML is gone: its requests can be neither tested nor freed */
    s->records_x.nreqs = s->attached_x.nreqs = s->recs.long_x.nreqs = 0;
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
