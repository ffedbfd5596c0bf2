/*
 * coll/rdma names (coll_rdma_names.c): the names of the collectives,
 * algorithms and fallback reasons, as the *_algorithm parameters, the
 * statistics and the tuning rules write them, and which algorithms serve
 * which collective.  Pure (no MPI): the unit tests check rules files with it.
 */
#ifndef COLL_RDMA_NAMES_H
#define COLL_RDMA_NAMES_H

#include "coll_rdma_config.h"
#include "coll_rdma_rules.h"

extern const char *const coll_rdma_coll_names[COLL_RDMA_NCOLLS];
extern const char *const coll_rdma_alg_names[COLL_RDMA_NALGS];
extern const char *const coll_rdma_reason_names[COLL_RDMA_NREASONS];

/* The algorithms of each collective besides auto and fallback, as its
 * *_algorithm parameter and the tuning rules name them (ending in AUTO). */
extern const int *const coll_rdma_coll_algs[COLL_RDMA_NCOLLS];

/** What a rules file may name: these collectives and algorithms, each
 * algorithm for the collectives it serves (and auto, fallback for every one). */
const coll_rdma_rules_vocab_t *coll_rdma_names_vocab(void);

/* The text of coll_rdma_defaults.rules (auto's default rules on one node,
 * measured: docs/tuning.md, "The default rules"), compiled in by make. */
extern const char coll_rdma_defaults_text[];

#endif /* COLL_RDMA_NAMES_H */
