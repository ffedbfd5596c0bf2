/*
 * coll/rdma agreement at a window's set-up (coll_rdma_agree.h).
 */
#include "ompi_config.h"

#include "coll_rdma_agree.h"
#include "coll_rdma_compat.h"
#include "coll_rdma_topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void coll_rdma_agree_config(const coll_rdma_config_t *cfg, int64_t *out)
{
    int i = 0;
#define X_PACK(name, field) out[i++] = (int64_t) cfg->field;
    COLL_RDMA_CONFIG_FIELDS(X_PACK)
#undef X_PACK
}

static const char *const config_names[COLL_RDMA_NCONFIG] = {
#define X_NAME(name, field) "coll_rdma_" #name,
    COLL_RDMA_CONFIG_FIELDS(X_NAME)
#undef X_NAME
};

/* ---- bounded staleness: the communicator's info key ------------------------- */

/*
 * The staleness this rank's communicator asks for: the info key's value, an
 * integer in [0, COLL_RDMA_STALENESS_MAX]; -1 for any other value.  Read at
 * set-up, from MPI_Comm_dup_with_info or an MPI_Comm_set_info before it; a
 * later MPI_Comm_set_info cannot change a laid-out window (the MPI_T variable
 * coll_rdma_allreduce_staleness says what is in force).  Not subscribed to:
 * Open MPI 4.1 truncates the keys of its subscribers to 27 characters.
 */
int64_t coll_rdma_agree_staleness_asked(struct ompi_communicator_t *comm)
{
    char value[32], *end;
    long s;

    if (!coll_rdma_info_get(comm->super.s_info, COLL_RDMA_STALENESS_KEY, value, sizeof(value))) {
        return 0;
    }
    s = strtol(value, &end, 10);
    return end == value || '\0' != *end || s < 0 || s > COLL_RDMA_STALENESS_MAX ? -1 : s;
}

/* ---- warnings: once per process and cause ----------------------------------- */

/*
 * The causes this process warned about: a communicator's set-up finding a
 * difference warns only the first time this process sees that difference
 * (what differs, and the two values), however many communicators show it.
 * A racing second set-up may say it twice; past COLL_RDMA_CAUSES causes,
 * new ones are said every time.
 */
#define COLL_RDMA_CAUSES 64
static uint64_t causes[COLL_RDMA_CAUSES];
static int ncauses;

static bool first_time(uint64_t what, uint64_t a, uint64_t b)
{
    uint64_t key = 0xcbf29ce484222325ULL;
    uint64_t parts[3] = {what, a, b};
    int n = __atomic_load_n(&ncauses, __ATOMIC_ACQUIRE);

    for (int i = 0; i < 3; ++i) {
        key = (key ^ parts[i]) * 0x100000001b3ULL;
    }
    key += 0 == key; /* 0: an entry not yet written */
    for (int i = 0; i < n && i < COLL_RDMA_CAUSES; ++i) {
        if (__atomic_load_n(&causes[i], __ATOMIC_RELAXED) == key) {
            return false;
        }
    }
    n = __atomic_fetch_add(&ncauses, 1, __ATOMIC_ACQ_REL);
    if (n < COLL_RDMA_CAUSES) {
        __atomic_store_n(&causes[n], key, __ATOMIC_RELEASE);
    }
    return true;
}

/* How a warning names communicator rank r: with the communicator and the
 * world rank where the caller gave comm, else as a communicator rank. */
static const char *who(char *buf, size_t len, struct ompi_communicator_t *comm, int r)
{
    if (NULL != comm) {
        return coll_rdma_comm_rank(buf, len, comm, r);
    }
    snprintf(buf, len, "communicator rank %d", r);
    return buf;
}

/* ---- what every rank said ------------------------------------------------------ */

/*
 * The staleness every rank uses: what they all asked for, or 0 (exact), with
 * a warning by rank 0 where one asked for an invalid value or ranks differ
 * (once per process and cause).
 */
static int staleness(struct ompi_communicator_t *comm, const coll_rdma_header_t *headers, int size,
                     int rank)
{
    char w0[160], wi[160];

    for (int i = 0; i < size; ++i) {
        int64_t si = headers[i].staleness, s0 = headers[0].staleness;

        if (si >= 0 && si == s0) {
            continue;
        }
        if (0 == rank && si < 0 && first_time(COLL_RDMA_NCONFIG, (uint64_t) si, 0)) {
            coll_rdma_output("warning: %s at %s is not an integer from 0 to %d; MPI_Allreduce "
                             "stays exact on this communicator (said once per process)",
                             COLL_RDMA_STALENESS_KEY, who(wi, sizeof(wi), comm, i),
                             COLL_RDMA_STALENESS_MAX);
        } else if (0 == rank && si >= 0
                   && first_time(COLL_RDMA_NCONFIG + 1, (uint64_t) s0, (uint64_t) si)) {
            coll_rdma_output("warning: %s differs between ranks (%lld at %s, %lld at %s); "
                             "MPI_Allreduce stays exact on this communicator (said once per "
                             "process)",
                             COLL_RDMA_STALENESS_KEY, (long long) s0, who(w0, sizeof(w0), comm, 0),
                             (long long) si, who(wi, sizeof(wi), comm, i));
        }
        return 0;
    }
    return (int) headers[0].staleness;
}

int coll_rdma_agree_staleness(const coll_rdma_header_t *headers, int size, int rank)
{
    return staleness(NULL, headers, size, rank);
}

int coll_rdma_agree_staleness_on(struct ompi_communicator_t *comm,
                                 const coll_rdma_header_t *headers)
{
    return staleness(comm, headers, ompi_comm_size(comm), ompi_comm_rank(comm));
}

/* The rules a configuration field hashes, as a warning names them, and what
 * a hash of 0 means there; NULL where the field is a plain value. */
static const char *rules_differ(const char *name, const char **zero)
{
    if (0 == strcmp(name, "coll_rdma_tuning_file")) {
        *zero = "no rules, the file unnamed, unreadable or malformed";
        return "the rules of coll_rdma_tuning_file";
    }
    if (0 == strcmp(name, "coll_rdma_default_rules")) {
        *zero = "coll_rdma_default_rules=0; else builds of two versions?";
        return "the default rules compiled into coll/rdma";
    }
    return NULL;
}

/* Warn (rank 0, once per process and cause) that field f differs between
 * communicator ranks 0 and i. */
static void say_differs(struct ompi_communicator_t *comm, const coll_rdma_header_t *headers, int f,
                        int i)
{
    const char *zero = NULL, *rules = rules_differ(config_names[f], &zero);
    int64_t v0 = headers[0].config[f], vi = headers[i].config[f];
    char w0[160], wi[160];

    if (!first_time((uint64_t) f, (uint64_t) v0, (uint64_t) vi)) {
        return;
    }
    who(w0, sizeof(w0), comm, 0);
    who(wi, sizeof(wi), comm, i);
    if (NULL != rules) {
        coll_rdma_output("warning: %s differ between ranks (hash %016llx at %s, %016llx at %s; "
                         "0: %s); coll/rdma falls back on every communicator where they do "
                         "(said once per process)",
                         rules, (unsigned long long) v0, w0, (unsigned long long) vi, wi, zero);
    } else {
        coll_rdma_output("warning: %s differs between ranks (%lld at %s, %lld at %s); coll/rdma "
                         "falls back on every communicator where it does (said once per process)",
                         config_names[f], (long long) v0, w0, (long long) vi, wi);
    }
}

/* Whether every rank reported the same configuration and ok, and (every
 * rank ok) the same locality; rank 0 warns about the first field that
 * differs (whatever the oks), and about the locality once per process. */
static bool headers_agree(struct ompi_communicator_t *comm, const coll_rdma_header_t *headers,
                          int size, int rank)
{
    for (int i = 0; i < size; ++i) {
        for (int f = 0; f < COLL_RDMA_NCONFIG; ++f) {
            if (headers[i].config[f] != headers[0].config[f]) {
                if (0 == rank) {
                    say_differs(comm, headers, f, i);
                }
                return false;
            }
        }
    }
    for (int i = 0; i < size; ++i) {
        if (!headers[i].ok) {
            return false;
        }
    }
    for (int i = 1; i < size; ++i) {
        if (headers[i].one_node != headers[0].one_node) {
            if (0 == rank && first_time(COLL_RDMA_NCONFIG + 2, 0, 0)) {
                char w0[160], wi[160];
                coll_rdma_output("warning: ranks see the communicator's locality differently (%s "
                                 "finds every rank on its node: %s; %s: %s); coll/rdma falls "
                                 "back on every communicator where they do (said once per "
                                 "process)", who(w0, sizeof(w0), comm, 0),
                                 headers[0].one_node ? "yes" : "no", who(wi, sizeof(wi), comm, i),
                                 headers[i].one_node ? "yes" : "no");
            }
            return false;
        }
    }
    return true;
}

bool coll_rdma_agree_headers(const coll_rdma_header_t *headers, int size, int rank)
{
    return headers_agree(NULL, headers, size, rank);
}

bool coll_rdma_agree_headers_on(struct ompi_communicator_t *comm, const coll_rdma_header_t *headers)
{
    return headers_agree(comm, headers, ompi_comm_size(comm), ompi_comm_rank(comm));
}

/* The node of rank i as coll_rdma_debug_node_ranks = k splits them (0: one). */
static int debug_node(int k, int i)
{
    return k > 0 ? i / k : k < 0 ? i % -k : 0;
}

void coll_rdma_agree_attached(const coll_rdma_window_t *win, int debug_node_ranks, bool connected,
                     coll_rdma_attached_t *a)
{
    bool *mapped = calloc(win->comm_size, sizeof(bool));
    int node = debug_node(debug_node_ranks, win->rank);

    a->ok = connected ? 1 : 0;
    a->ok |= connected && 0 == win->nremote ? 2 : 0;
    a->ok |= connected && win->nemulated > 0 ? 4 : 0;
    a->leader = win->rank;
    a->map_hash = 0;
    if (NULL == mapped) {
        a->leader = -1; /* no node map anywhere */
        return;
    }
    for (int i = 0; connected && i < win->comm_size; ++i) {
        mapped[i] = i == win->rank
                    || (NULL != win->peers[i].direct && node == debug_node(debug_node_ranks, i));
        a->leader = mapped[i] && i < a->leader ? i : a->leader;
    }
    a->map_hash = coll_rdma_topo_map_hash(mapped, win->comm_size);
    free(mapped);
}

/* The node map from what every rank said (the same on every rank); leader_of
 * and hash: comm_size entries to unpack it into. */
void coll_rdma_agree_nodes(coll_rdma_window_t *win, const coll_rdma_attached_t *all, int64_t *leader_of,
                  uint64_t *hash)
{
    for (int i = 0; i < win->comm_size; ++i) {
        leader_of[i] = all[i].leader;
        hash[i] = all[i].map_hash;
    }
    coll_rdma_topo_set_nodes(win, leader_of, hash);
}
