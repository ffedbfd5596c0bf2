/*
 * coll/rdma agreement at a window's set-up (coll_rdma_agree.h).
 */
#include "ompi_config.h"

#include "coll_rdma_agree.h"
#include "coll_rdma_compat.h"
#include "coll_rdma_topo.h"

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

/*
 * The staleness every rank uses: what they all asked for, or 0 (exact), with
 * a warning by rank 0 where one asked for an invalid value or ranks differ.
 */
int coll_rdma_agree_staleness(const coll_rdma_header_t *headers, int size, int rank)
{
    for (int i = 0; i < size; ++i) {
        if (headers[i].staleness < 0 || headers[i].staleness != headers[0].staleness) {
            if (0 == rank && headers[i].staleness < 0) {
                coll_rdma_output("warning: %s at rank %d is not an integer from 0 to %d; "
                                 "MPI_Allreduce stays exact on this communicator",
                                 COLL_RDMA_STALENESS_KEY, i, COLL_RDMA_STALENESS_MAX);
            } else if (0 == rank) {
                coll_rdma_output("warning: %s differs between ranks (%lld at rank 0, %lld at "
                                 "rank %d); MPI_Allreduce stays exact on this communicator",
                                 COLL_RDMA_STALENESS_KEY, (long long) headers[0].staleness,
                                 (long long) headers[i].staleness, i);
            }
            return 0;
        }
    }
    return (int) headers[0].staleness;
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

/* Whether every rank reported the same configuration and ok; warns once
 * about a configuration that differs (whatever the oks). */
bool coll_rdma_agree_headers(const coll_rdma_header_t *headers, int size, int rank)
{
    for (int i = 0; i < size; ++i) {
        for (int f = 0; f < COLL_RDMA_NCONFIG; ++f) {
            if (headers[i].config[f] != headers[0].config[f]) {
                const char *zero = NULL, *rules = rules_differ(config_names[f], &zero);
                if (0 == rank && NULL != rules) {
                    coll_rdma_output("warning: %s differ between ranks (hash %016llx at rank 0, "
                                     "%016llx at rank %d; 0: %s); coll/rdma falls back on this "
                                     "communicator",
                                     rules, (unsigned long long) headers[0].config[f],
                                     (unsigned long long) headers[i].config[f], i, zero);
                } else if (0 == rank) {
                    coll_rdma_output("warning: %s differs between ranks (%lld at rank 0, %lld "
                                     "at rank %d); coll/rdma falls back on this communicator",
                                     config_names[f], (long long) headers[0].config[f],
                                     (long long) headers[i].config[f], i);
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
    return true;
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
