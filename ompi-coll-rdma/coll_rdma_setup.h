/*
 * coll/rdma window set-up of one communicator, as a nonblocking operation
 * (coll_rdma_setup.c): agree on the configuration, lay out and allocate this
 * rank's window, exchange the addresses, attach the peers, agree on the
 * result.  One descent, in stages: the local part at start, then two
 * exchanges through the previous component's persistent allgather, the
 * second started when the first completed, tested without blocking.
 * Below the module, above the window and the transport; reads no global of
 * the component (everything it needs comes in coll_rdma_setup_args_t).
 */
#ifndef COLL_RDMA_SETUP_H
#define COLL_RDMA_SETUP_H

#include "coll_rdma_config.h"

#include "ompi/communicator/communicator.h"
#include "ompi/mca/coll/coll.h"
#include "ompi/mca/op/op.h"

#include "ompi/request/request.h"

struct coll_rdma_window;

/* The exchanges a set-up runs: the previous component's persistent allgather
 * on the communicator (coll/libnbc in Open MPI 4.1, 5.0 and 6.0), made at
 * the set-up's start and started one after the other. */
typedef struct coll_rdma_setup_exchange {
    mca_coll_base_module_allgather_init_fn_t allgather_init;
    mca_coll_base_module_t *allgather_init_module;
} coll_rdma_setup_exchange_t;

/* What a set-up is given, and where its agreed results go. */
typedef struct coll_rdma_setup_args {
    struct ompi_communicator_t *comm;
    /* in: this rank's configuration, compared with every rank's; out: its
     * allreduce_staleness, the communicator's agreed value */
    coll_rdma_config_t *cfg;
    /* out: OMPI_OP_BASE_FORTRAN_OP_MAX masks, the union of every rank's op
     * self-test findings (coll_rdma_op_fallback_wrong) */
    uint64_t *fallback_wrong;
    size_t window_max_bytes; /* this rank's cap (0: none); need not agree */
    int poll_spins;
    bool lazy_connect;
    coll_rdma_setup_exchange_t exchange;
} coll_rdma_setup_args_t;

typedef struct coll_rdma_setup coll_rdma_setup_t;

/**
 * Prepare the set-up of a->comm's window on this rank, without any
 * communication: what is left of starting UCX and the op self-test, this
 * rank's window (about 1 ms at 2 ranks: ucp_mem_map writes the whole shared
 * memory file), its address.  The module does it at the communicator's last
 * warm-up call, so that the set-up call pays for less.  NULL when out of
 * memory (the caller goes on without a window... on every rank alike, since
 * it then fails the agreement: see coll_rdma_setup_begin()).
 */
coll_rdma_setup_t *coll_rdma_setup_prepare(const coll_rdma_setup_args_t *a);

/**
 * Begin the prepared set-up's exchanges: collective over the communicator,
 * every rank must begin it at the same collective call (the module counts
 * them).  Makes both exchanges and starts the first; never waits for
 * another rank.  Returns OMPI_SUCCESS, or an error when it could not even
 * take part in the first exchange (the job cannot go on then; the set-up is
 * finished, without a window).
 */
int coll_rdma_setup_begin(coll_rdma_setup_t *s);

/**
 * Advance the set-up as far as it goes without waiting: where the exchange
 * in flight completed, the next local step and the next exchange.  Returns
 * OMPI_ERR_WOULD_BLOCK while an exchange is in flight; OMPI_SUCCESS once
 * done, with *win the attached window, or NULL where the ranks agreed that
 * this communicator has none (a rank without a window, a configuration that
 * differs, a peer that could not connect): every rank ends alike.  Another
 * error: an exchange failed (the job cannot go on).  The caller progresses
 * Open MPI (opal_progress) between tests.  Not thread-safe: one caller at a
 * time per set-up.
 */
int coll_rdma_setup_test(coll_rdma_setup_t *s, struct coll_rdma_window **win);

/**
 * Free a set-up: prepared only, finished by coll_rdma_setup_test(), or
 * still exchanging, which is driven to its end first (a communicator freed
 * while its set-up runs: MPI_Comm_free is collective, every rank comes).
 */
void coll_rdma_setup_free(coll_rdma_setup_t *s);

#endif /* COLL_RDMA_SETUP_H */
