/*
 * coll/rdma window set-up of one communicator, as a nonblocking operation
 * (coll_rdma_setup.c): agree on the configuration, lay out and allocate this
 * rank's window, exchange the addresses, attach the peers, agree on the
 * result.  One descent, in stages: the local part at start, then two
 * exchanges (coll_rdma_exchange.h: allgathers over the PML on tags of
 * coll/rdma's own), the second started when the first completed, tested
 * without blocking.
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

/* What a set-up is given, and where its agreed results go. */
typedef struct coll_rdma_setup_args {
    struct ompi_communicator_t *comm;
    /* in: this rank's configuration, compared with every rank's; out: its
     * allreduce_staleness, the communicator's agreed value */
    coll_rdma_config_t *cfg;
    /* out: OMPI_OP_BASE_FORTRAN_OP_MAX masks, the union of every rank's op
     * self-test findings (coll_rdma_op_fallback_wrong) */
    uint64_t *fallback_wrong;
    size_t window_max_bytes;    /* this rank's cap on one window (0: none); need not agree */
    size_t window_budget_bytes; /* on all of this process's windows (0: none; the parameter's 0
                                 * arrives as its default); need not agree */
    int window_pool;            /* freed windows kept for reuse (0: none); need not agree */
    int poll_spins;
    bool lazy_connect;
    size_t address_inline;      /* address bytes a record carries itself (coll_rdma_records.h) */
} coll_rdma_setup_args_t;

typedef struct coll_rdma_setup coll_rdma_setup_t;

/**
 * Prepare the set-up of a->comm's window on this rank, without any
 * communication: what is left of starting UCX and the op self-test, this
 * rank's window (about 1 ms at 2 ranks: ucp_mem_map writes the whole shared
 * memory file), its address, and everything the exchanges need, so that
 * nothing after the agreement allocates but the attach.  The module does it
 * at the communicator's last warm-up call, so that the set-up call pays for
 * less.  NULL when out of memory: the module then takes part in the first
 * exchange through coll_rdma_records_refuse(), and every rank agrees on no
 * window.
 */
coll_rdma_setup_t *coll_rdma_setup_prepare(const coll_rdma_setup_args_t *a);

/**
 * Begin the prepared set-up's exchanges: collective over the communicator,
 * every rank must begin it at the same collective call (the module counts
 * them).  Starts the first exchange (posted now, in call order; it takes no
 * tag of the previous component: coll_rdma_exchange.h); never waits for
 * another rank.  Returns OMPI_SUCCESS, or the PML's error when it could not
 * even take part in the first exchange (the job cannot go on then; the
 * set-up is finished, without a window).
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
 * Free a set-up: prepared only (its window with it), or finished by
 * coll_rdma_setup_test().  Not one still exchanging: the module holds a
 * reference on the communicator while its set-up runs, so neither can go
 * before it ended.
 */
void coll_rdma_setup_free(coll_rdma_setup_t *s);

/**
 * At the component's close (MPI_Finalize with a set-up still exchanging,
 * its communicator left alive): free the set-up and its window without
 * touching its exchanges' requests, whose PML Open MPI has already closed.
 */
void coll_rdma_setup_abandon(coll_rdma_setup_t *s);

#endif /* COLL_RDMA_SETUP_H */
