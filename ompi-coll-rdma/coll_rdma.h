/*
 * coll/rdma: one-sided collectives over pre-registered RDMA windows.  The
 * component (coll_rdma_component.c): its MCA parameters, open and close, the
 * statistics it prints, comm_query.  docs/design.md, "Layers", has the
 * rooms below it and what each may call.
 */
#ifndef MCA_COLL_RDMA_H
#define MCA_COLL_RDMA_H

#include "coll_rdma_compat.h"
#include "coll_rdma_config.h"

#include <stdint.h>

BEGIN_C_DECLS

/* ---- component ----------------------------------------------------------- */

typedef struct mca_coll_rdma_component_t {
    mca_coll_base_component_t super;
    int priority;
    int verbose;
    int poll_spins;             /* polls of a sequence word between two opal_progress() calls */
    int window_setup_calls;     /* calls a communicator leaves to the fallback before set-up */
    size_t window_max_bytes;    /* cap on this rank's window (0: none); need not agree */
    size_t window_budget_bytes; /* cap on all of this process's windows (0: the default) */
    int window_pool;            /* freed windows kept mapped for reuse (0: none) */
    int lazy_connect;           /* 1: attach off-node peers at their first use; need not agree */
    int debug_address_inline;   /* address bytes a set-up record carries itself (testing) */
    char *tuning_file;          /* coll_rdma_tuning_file: the rules file's path, or NULL */
    int default_rules;          /* coll_rdma_default_rules: 1, auto takes the measured rules */
    coll_rdma_config_t config;
} mca_coll_rdma_component_t;

OMPI_MODULE_DECLSPEC extern mca_coll_rdma_component_t mca_coll_rdma_component;

END_C_DECLS

#endif /* MCA_COLL_RDMA_H */
