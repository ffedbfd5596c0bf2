/*
 * coll/rdma names (coll_rdma_names.h): what parameters, statistics and
 * tuning rules call the collectives, algorithms and reasons.  Pure.
 */
#include "coll_rdma_names.h"

const char *const coll_rdma_coll_names[COLL_RDMA_NCOLLS] = {"barrier",   "bcast",    "allreduce",
                                                         "allgather", "alltoall", "reduce"};
const char *const coll_rdma_alg_names[COLL_RDMA_NALGS] = {
    "auto", "fallback", "nway", "knomial", "ktree", "pairwise", "bruck", "ring", "direct", "read",
    "rsag", "ssp", "hier", "nport"};
const char *const coll_rdma_reason_names[COLL_RDMA_NREASONS] = {
    "forced", "too_large", "datatype", "op", "window", "warmup", "rule", "cid"};

/* The algorithms of each collective besides auto and fallback, as its
 * *_algorithm parameter and the tuning rules name them (ending in AUTO). */
static const int barrier_algs[] = {COLL_RDMA_ALG_NWAY, COLL_RDMA_ALG_PAIRWISE, COLL_RDMA_ALG_READ,
                                   COLL_RDMA_ALG_HIER, COLL_RDMA_ALG_AUTO};
static const int bcast_algs[] = {COLL_RDMA_ALG_KNOMIAL, COLL_RDMA_ALG_READ, COLL_RDMA_ALG_HIER,
                                 COLL_RDMA_ALG_AUTO};
static const int allreduce_algs[] = {COLL_RDMA_ALG_KTREE, COLL_RDMA_ALG_PAIRWISE,
                                     COLL_RDMA_ALG_NWAY,  COLL_RDMA_ALG_BRUCK,
                                     COLL_RDMA_ALG_RING,  COLL_RDMA_ALG_READ,
                                     COLL_RDMA_ALG_RSAG,  COLL_RDMA_ALG_HIER,
                                     COLL_RDMA_ALG_NPORT, COLL_RDMA_ALG_AUTO};
static const int allgather_algs[] = {COLL_RDMA_ALG_BRUCK, COLL_RDMA_ALG_RING, COLL_RDMA_ALG_READ,
                                     COLL_RDMA_ALG_AUTO};
static const int alltoall_algs[] = {COLL_RDMA_ALG_BRUCK, COLL_RDMA_ALG_DIRECT, COLL_RDMA_ALG_READ,
                                    COLL_RDMA_ALG_AUTO};
static const int reduce_algs[] = {COLL_RDMA_ALG_KNOMIAL, COLL_RDMA_ALG_RSAG, COLL_RDMA_ALG_HIER,
                                  COLL_RDMA_ALG_AUTO};
const int *const coll_rdma_coll_algs[COLL_RDMA_NCOLLS] = {
    barrier_algs, bcast_algs, allreduce_algs, allgather_algs, alltoall_algs, reduce_algs};

static uint32_t valid[COLL_RDMA_NCOLLS];
static coll_rdma_rules_vocab_t vocab = {COLL_RDMA_NCOLLS, coll_rdma_coll_names, COLL_RDMA_NALGS,
                                        coll_rdma_alg_names, valid};

const coll_rdma_rules_vocab_t *coll_rdma_names_vocab(void)
{
    for (int c = 0; c < COLL_RDMA_NCOLLS; ++c) {
        valid[c] = 1u << COLL_RDMA_ALG_AUTO | 1u << COLL_RDMA_ALG_FALLBACK;
        for (const int *a = coll_rdma_coll_algs[c]; COLL_RDMA_ALG_AUTO != *a; ++a) {
            valid[c] |= 1u << *a;
        }
    }
    return &vocab;
}
