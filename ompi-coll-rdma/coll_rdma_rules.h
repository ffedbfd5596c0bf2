/*
 * coll/rdma tuning rules: the algorithm `auto` takes per collective,
 * communicator size and message size, read from the file that
 * coll_rdma_tuning_file names (written by bench/tune.sh on the user's
 * machine; docs/tuning.md, "Calibration").  Plain C without MPI: the
 * component reads the file once at open and hands the table to the decision
 * layer in the agreed configuration; the unit test parses files directly.
 *
 * The file, one rule per line, '#' to the end of a line a comment:
 *
 *     # collective  ranks  bytes      algorithm
 *     allreduce     2      0-16K      pairwise
 *     allreduce     2      16K-512K   ring
 *     allreduce     2      512K-      fallback
 *     bcast         4-16   *          read
 *
 * ranks and bytes are an inclusive range: N, N-M, N- (no upper end) or *
 * (any); bytes take an optional K, M or G suffix (powers of 1024).  bytes
 * are those the collective's *_max_bytes parameter limits: the whole message
 * for bcast, allreduce and reduce, one block for allgather and alltoall
 * (barrier: 0).  For a call, the first rule that matches its collective,
 * size and bytes gives the algorithm; a call no rule matches takes the
 * built-in table (as does the algorithm `auto`).
 */
#ifndef COLL_RDMA_RULES_H
#define COLL_RDMA_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most rules a file may hold. */
#define COLL_RDMA_RULES_MAX 1024

/** What a rules file may name: collectives and algorithms by index. */
typedef struct coll_rdma_rules_vocab {
    int ncolls;
    const char *const *coll_names; /* [ncolls] */
    int nalgs;
    const char *const *alg_names;  /* [nalgs] */
    const uint32_t *valid;         /* [ncolls]: bit a set where algorithm a may serve it */
} coll_rdma_rules_vocab_t;

typedef struct coll_rdma_rule {
    int coll;                      /* collective index */
    int alg;                       /* algorithm index */
    int min_ranks, max_ranks;      /* communicator sizes, inclusive */
    size_t min_bytes, max_bytes;   /* message bytes, inclusive */
} coll_rdma_rule_t;

typedef struct coll_rdma_rules {
    uint64_t hash;                 /* of the rules in order, never 0 (0: no rules) */
    int n;
    coll_rdma_rule_t rule[];
} coll_rdma_rules_t;

/**
 * Parse the rules file at `path` against `vocab`.
 * Returns the table (free with coll_rdma_rules_free; a file without rules
 * gives a table of none), or NULL with a message in err[0..errlen) that
 * names the line: "line 7: 'rign' is not an algorithm of allreduce (auto,
 * fallback, ...)", or why the file could not be read.
 */
coll_rdma_rules_t *coll_rdma_rules_parse(const char *path, const coll_rdma_rules_vocab_t *vocab,
                                         char *err, size_t errlen);

/**
 * The same from the text of a rules file (the component's built-in default
 * rules, coll_rdma_defaults.rules, compiled in).
 */
coll_rdma_rules_t *coll_rdma_rules_parse_text(const char *text, const coll_rdma_rules_vocab_t *vocab,
                                              char *err, size_t errlen);

/** Free a table from coll_rdma_rules_parse (NULL: nothing). */
void coll_rdma_rules_free(coll_rdma_rules_t *rules);

/**
 * The algorithm index of the first rule matching (coll, comm_size, bytes),
 * or `none` where no rule matches (rules may be NULL).  Linear in the rules:
 * called where a call's decision is made, which repeated calls skip.
 */
int coll_rdma_rules_find(const coll_rdma_rules_t *rules, int coll, int comm_size, size_t bytes,
                         int none);

/**
 * The largest bytes for which a rule of collective `coll` that holds at
 * `comm_size` ranks names algorithm `alg` (SIZE_MAX: no upper end), or 0
 * where none does (rules may be NULL).  The window layout asks it: regions
 * are laid out for what the rules may ask of them.
 */
size_t coll_rdma_rules_reach(const coll_rdma_rules_t *rules, int coll, int alg, int comm_size);

#endif /* COLL_RDMA_RULES_H */
