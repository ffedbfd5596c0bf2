/*
 * coll/rdma's configuration parameters (coll_rdma_params.h): every
 * algorithm, radix, size and debugging parameter of coll_rdma_config_t
 * registered with its help text, the *_algorithm enumerations from the
 * names of the algorithms that serve each collective.
 */
#include "ompi_config.h"

#include "coll_rdma_params.h"
#include "coll_rdma_names.h"

#include <stdio.h>

void coll_rdma_param(const mca_base_component_t *version, const char *name, const char *help,
                     mca_base_var_type_t type, int level, void *storage)
{
    (void) mca_base_component_var_register(version, name, help, type, NULL, 0, 0, level,
                                           MCA_BASE_VAR_SCOPE_READONLY, storage);
}

static void reg_int(const mca_base_component_t *version, const char *name, const char *help,
                    int level, int *storage)
{
    coll_rdma_param(version, name, help, MCA_BASE_VAR_TYPE_INT, level, storage);
}

static void reg_size(const mca_base_component_t *version, const char *name, const char *help,
                     size_t *storage)
{
    coll_rdma_param(version, name, help, MCA_BASE_VAR_TYPE_SIZE_T, OPAL_INFO_LVL_5, storage);
}

/* An *_algorithm enum parameter: auto, fallback, then the algorithms in
 * `algs` (terminated by COLL_RDMA_ALG_AUTO). */
static void reg_alg(const mca_base_component_t *version, coll_rdma_config_t *cfg, int coll,
                    const int *algs, const char *help)
{
    mca_base_var_enum_value_t values[COLL_RDMA_NALGS + 1] = {{COLL_RDMA_ALG_AUTO, "auto"},
                                                             {COLL_RDMA_ALG_FALLBACK, "fallback"}};
    mca_base_var_enum_t *enumerator = NULL;
    char name[64], enum_name[80];
    int n = 2;

    for (; COLL_RDMA_ALG_AUTO != *algs; ++algs, ++n) {
        values[n].value = *algs;
        values[n].string = coll_rdma_alg_names[*algs];
    }
    values[n].value = 0;
    values[n].string = NULL;
    snprintf(name, sizeof(name), "%s_algorithm", coll_rdma_coll_names[coll]);
    snprintf(enum_name, sizeof(enum_name), "coll_rdma_%s_algorithms", coll_rdma_coll_names[coll]);
    (void) mca_base_var_enum_create(enum_name, values, &enumerator);
    (void) mca_base_component_var_register(version, name, help, MCA_BASE_VAR_TYPE_INT, enumerator,
                                           0, 0, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
                                           &cfg->alg[coll]);
    OBJ_RELEASE(enumerator);
}

void coll_rdma_params_register(const mca_base_component_t *version, coll_rdma_config_t *cfg)
{
    reg_alg(version, cfg, COLL_RDMA_BARRIER, coll_rdma_coll_algs[COLL_RDMA_BARRIER],
            "MPI_Barrier algorithm: auto (read where every rank maps every window, i.e. one "
            "node; hier across nodes where some node has several ranks; else nway), fallback "
            "(previous component), nway (n-way dissemination), pairwise (pairwise exchange), read "
            "(each rank writes its own word and reads everyone's; one node only), hier (two "
            "levels: each node's lowest rank reads its node's arrivals, the n-way barrier among "
            "those leaders, the node reads its leader's release)");
    reg_int(version, "barrier_nway_n",
            "n of the n-way dissemination barrier: signals per rank and round; ceil(log_{n+1} P) "
            "rounds",
            OPAL_INFO_LVL_5, &cfg->barrier_nway_n);
    reg_alg(version, cfg, COLL_RDMA_BCAST, coll_rdma_coll_algs[COLL_RDMA_BCAST],
            "MPI_Bcast algorithm: auto (read where every rank maps every window, i.e. one node; "
            "across nodes, up to one segment, hier where some node has several ranks, else "
            "knomial), fallback (previous component), knomial (k-nomial tree of puts, segments "
            "pipelined), read (every rank copies from the root's slots, segmented; one node "
            "only), hier (two levels: the k-nomial tree among the root and the other nodes' "
            "leaders, then each node's ranks copy from that rank's slot; segments pipelined)");
    reg_int(version, "bcast_radix", "Radix k of the k-nomial bcast tree (>= 2)", OPAL_INFO_LVL_5,
            &cfg->bcast_radix);
    reg_int(version, "bcast_slots",
            "Bcast slots per rank and communicator (>= 2): a root may run this many bcasts ahead "
            "of the slowest receiver before it waits for credit",
            OPAL_INFO_LVL_6, &cfg->bcast_slots);
    reg_int(version, "bcast_small_slots",
            "One-line slots of the read bcast's small ring (0 to 4096; 0: none): a bcast of at "
            "most 56 bytes travels in one cache line with its sequence word, and its root reads "
            "the receivers' credits once per this many such bcasts. Window memory: 64 bytes "
            "per slot",
            OPAL_INFO_LVL_6, &cfg->bcast_small_slots);
    reg_size(version, "bcast_segment_bytes",
             "Payload bytes of one bcast slot (64 to 2^30): the segment of every bcast (read, "
             "knomial, hier), one instance each; up to bcast_slots of them in flight. Window "
             "memory for bcast: at most 2 * bcast_slots * min(this, bcast_max_bytes); on one "
             "node (unless auto_emulated is 1) each ring's slots hold only what may come "
             "through them (under auto the read ring 16 KiB on 2 ranks, the k-nomial ring one "
             "line unless a rule or bcast_algorithm names knomial or hier)",
             &cfg->bcast_segment_bytes);
    reg_size(version, "bcast_max_bytes",
             "Largest MPI_Bcast (bytes, at most 2^31 - 1) that forced algorithms and tuning or "
             "default rules serve; larger ones fall back. auto's built-in table stops below "
             "it: at 1 MiB, at 16 KiB on 2 ranks of one node, at one segment across nodes (and "
             "on one node the default rules decide first: on 2 ranks they hand on above 4 KiB)",
             &cfg->bcast_max_bytes);
    reg_alg(version, cfg, COLL_RDMA_ALLREDUCE, coll_rdma_coll_algs[COLL_RDMA_ALLREDUCE],
            "MPI_Allreduce algorithm: auto, fallback (previous component), ktree (Gupta's "
            "degree-k tree: reduce to rank 0, then the result down the same tree), pairwise "
            "(recursive doubling with a fold, one canonical operand order), nway (End's adapted "
            "n-way dissemination; Bruck where (n, P) is not adaptable), bruck (Bruck's n-port "
            "global combine), ring (segmented pipelined ring: reduce-scatter then allgather), "
            "read (each rank reads every contribution and combines them in rank order; one node "
            "only, up to allreduce_read_max_bytes), rsag (one node: in segments, each rank "
            "reduces its 1/P share by reading it from every rank's window, then copies every "
            "rank's reduced share; any size up to allreduce_max_bytes), hier (two levels: each "
            "node's lowest rank folds its node's inputs by reading, in rank order, the leaders "
            "run pairwise among themselves, or nway/bruck for integer, logical and byte types, "
            "and the node copies the result from its leader; auto up to "
            "allreduce_short_max_bytes, forced any size up to allreduce_max_bytes, in chunks of "
            "allreduce_short_max_bytes), nport (forced only: two levels, the vector cut in "
            "L shares, L the ranks of the smallest node; each node's i-th rank, i < L, folds "
            "share i of its node's inputs by reading, runs hier's leaders' algorithm on it with "
            "the i-th ranks of the other nodes, and its node copies the share from it; any size "
            "up to allreduce_max_bytes, in chunks of allreduce_short_max_bytes). nway and bruck "
            "combine in "
            "rank-dependent orders: auto uses them only for integer, logical and byte types; "
            "forced on floating-point SUM or PROD they may give results that differ in the last "
            "bits between ranks");
    reg_int(version, "allreduce_ktree_degree",
            "Degree k of the allreduce tree (>= 1): a (k+1)-nomial tree, k children per node "
            "and round",
            OPAL_INFO_LVL_5, &cfg->allreduce_ktree_degree);
    reg_int(version, "allreduce_nway_n",
            "n of the adapted n-way dissemination allreduce (>= 1): peers per rank and round. "
            "Some (n, P) are not adaptable (n = 1: P = 13, 21, 25, ...; n = 2: P = 40, 41, "
            "64, ...): there Bruck's algorithm with allreduce_bruck_n serves forced nway calls",
            OPAL_INFO_LVL_5, &cfg->allreduce_nway_n);
    reg_int(version, "allreduce_bruck_n", "Ports n of Bruck's n-port allreduce (>= 1)", OPAL_INFO_LVL_5,
            &cfg->allreduce_bruck_n);
    reg_size(version, "allreduce_max_bytes",
             "Largest MPI_Allreduce (bytes, at most 2^31 - 1) that forced algorithms and tuning "
             "or default rules serve; larger ones fall back (but for the (op, type) pairs Open "
             "MPI reduces wrong, served at every size). auto's built-in table stops below it, at "
             "1 MiB (the ring: one node, at most allreduce_ring_max_ranks ranks, 512 KiB on 2); "
             "on one node the default rules decide first (rsag from a few KiB; on 2 ranks they "
             "hand on above 512 KiB). Caps the slots of the slot algorithms and of read too",
             &cfg->allreduce_max_bytes);
    reg_size(version, "allreduce_short_max_bytes",
             "Largest MPI_Allreduce (bytes, 64 to 2^30: at least one element of every type) "
             "served by ktree, pairwise, nway, bruck, and by hier under auto; each of their "
             "window slots holds min(this, allreduce_max_bytes). A forced slot algorithm falls "
             "back above it; forced hier and nport serve larger ones in chunks of it. Above it "
             "auto takes the segmented ring only on one node, on at most "
             "allreduce_ring_max_ranks ranks and up to 1 MiB (512 KiB on 2 ranks), and there "
             "the default rules give most sizes to rsag; elsewhere it falls back",
             &cfg->allreduce_short_max_bytes);
    reg_size(version, "allreduce_ring_segment_bytes",
             "Bytes per message of the segmented ring allreduce (64 to 2^30): each ring slot "
             "holds one segment",
             &cfg->allreduce_ring_segment_bytes);
    reg_int(version, "allreduce_ring_max_ranks",
            "auto takes the ring above allreduce_short_max_bytes only on communicators of at "
            "most this many ranks on one node; larger ones and those across nodes fall back "
            "there (on one node the ring beat the built-in components at 4 and 8 ranks, not at "
            "16)",
            OPAL_INFO_LVL_6, &cfg->allreduce_ring_max_ranks);
    reg_int(version, "allreduce_ring_slots",
            "Ring allreduce slots per rank and communicator (>= 2): segments a rank may have "
            "in flight to its right neighbour; the ring region is slots * segment bytes",
            OPAL_INFO_LVL_6, &cfg->allreduce_ring_slots);
    reg_size(version, "allreduce_read_max_bytes",
             "Largest MPI_Allreduce (bytes, 0 to 2^30) served by read. auto picks read up to "
             "here (and allreduce_short_max_bytes) only on one node and on more than 4 ranks (on "
             "2 and 4, pairwise is as fast); forced read serves up to here on one node. Each "
             "rank's window holds two slots of min(this, allreduce_max_bytes)",
             &cfg->allreduce_read_max_bytes);
    reg_size(version, "allreduce_rsag_segment_bytes",
             "Segment of the four algorithms by reading (64 to 2^30; despite the name, not "
             "allreduce's alone): bytes of each rank's input per round of the pipeline of the "
             "rsag allreduce and of the rsag reduce, of each rank's block per round of the read "
             "allgather, and, shared among the destinations (whole cache lines), of its blocks "
             "per round of the read alltoall. Each rank's window holds two segments for each of "
             "the four that is forced or named by a tuning or default rule, none for the others; "
             "the default rules name all four (at 2 ranks about 2.1 MB of a 3.6 MB window)",
             &cfg->allreduce_rsag_segment_bytes);
    reg_size(version, "allreduce_ssp_max_bytes",
             "Largest MPI_Allreduce (bytes, 8 to 2^30) served with bounded staleness on a "
             "communicator that asked for it (info key coll_rdma_allreduce_staleness = S >= 1; "
             "larger ones are exact): each rank's window on such a communicator holds 2S + 2 "
             "slots of this size",
             &cfg->allreduce_ssp_max_bytes);
    reg_alg(version, cfg, COLL_RDMA_ALLGATHER, coll_rdma_coll_algs[COLL_RDMA_ALLGATHER],
            "MPI_Allgather algorithm: auto, fallback (previous component), bruck (Bruck's "
            "concatenation), ring, read (one node: in segments of allreduce_rsag_segment_bytes, "
            "each rank copies its block into its window and every rank copies every block out; "
            "any block size up to allgather_max_bytes)");
    reg_size(version, "allgather_max_bytes",
             "Largest MPI_Allgather block (bytes contributed per rank, at most 2^31 - 1) that "
             "forced algorithms and rules serve; larger ones fall back. bruck and ring also "
             "within 512 KiB / 2P, auto's built-in table to 4 KiB",
             &cfg->allgather_max_bytes);
    reg_alg(version, cfg, COLL_RDMA_ALLTOALL, coll_rdma_coll_algs[COLL_RDMA_ALLTOALL],
            "MPI_Alltoall algorithm: auto, fallback (previous component), bruck (Bruck's index "
            "algorithm), direct (every rank writes each block into its destination's window), "
            "read (one node: in segments, each rank copies its blocks into its window and every "
            "rank copies out the ones meant for it; any block size up to alltoall_max_bytes)");
    reg_size(version, "alltoall_max_bytes",
             "Largest MPI_Alltoall block (bytes per destination, at most 2^31 - 1) that forced "
             "algorithms and rules serve; larger ones fall back. direct also within 512 KiB / "
             "2P, bruck within 512 KiB / (2 x its blocks per half), auto's built-in table to "
             "4 KiB",
             &cfg->alltoall_max_bytes);
    reg_alg(version, cfg, COLL_RDMA_REDUCE, coll_rdma_coll_algs[COLL_RDMA_REDUCE],
            "MPI_Reduce algorithm: auto (knomial), fallback (previous component), knomial "
            "(k-nomial tree to the root), "
            "rsag (one node: the rsag allreduce's reduce-scatter, then the root reads the "
            "shares; segments of allreduce_rsag_segment_bytes, up to reduce_max_bytes), hier "
            "(two levels: each node's carrier, the root on its node, else the leader, folds its "
            "node's inputs by reading, then the k-nomial tree among the carriers to the root)");
    reg_int(version, "reduce_radix", "Radix k of the k-nomial reduce tree (>= 2)", OPAL_INFO_LVL_5,
            &cfg->reduce_radix);
    reg_size(version, "reduce_max_bytes",
             "Largest MPI_Reduce (bytes, at most 2^31 - 1) that forced algorithms and rules "
             "serve; larger ones fall back (but for the (op, type) pairs Open MPI reduces "
             "wrong). knomial and hier also within 512 KiB / (2 * the tree's most children), "
             "auto's built-in table to 4 KiB",
             &cfg->reduce_max_bytes);
    coll_rdma_param(version, "debug_seq_start",
            "Debugging: first sequence number of every collective on a new communicator (default "
            "1). A value near 2^64 (e.g. 18446744073709551000) makes the counters wrap after a "
            "few hundred calls, to test the wrap-safe protocol. Must be the same on every rank",
            MCA_BASE_VAR_TYPE_UINT64_T, OPAL_INFO_LVL_9, &cfg->debug_seq_start);
    reg_int(version, "auto_emulated",
            "Whether auto serves communicators on which UCX emulates some rank's puts with "
            "active messages (no RMA lane: TCP between nodes): 0 (default) hands every call there "
            "to the previous component (reason window), where Open MPI's point-to-point "
            "collectives are faster; 1 serves them as over RDMA (and keeps both bcast rings "
            "whole on one node). Forced *_algorithm parameters and tuning rules serve either "
            "way. Must be the same on every rank",
            OPAL_INFO_LVL_5, &cfg->auto_emulated);
    reg_int(version, "debug_node_ranks",
            "Debugging: split the nodes the two-level algorithms see (ranks that map each "
            "other's windows) further: k > 0, into nodes of k consecutive ranks of the "
            "communicator (the last one smaller); -N, into N nodes, rank i on node i mod N "
            "(round-robin). Tests the two-level algorithms on one machine. 0 (default): the "
            "nodes as found. Must be the same on every rank",
            OPAL_INFO_LVL_9, &cfg->debug_node_ranks);
}
