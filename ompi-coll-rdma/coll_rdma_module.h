/*
 * coll/rdma module (coll_rdma_module.c): one per communicator.  The previous
 * component's functions (the fallback of every call), the count of calls
 * before the window and the set-up it starts, and what the layers above keep
 * per communicator (standing operations, kept requests, the executor's
 * queue, early requests).  Reads no global of the component: what it needs
 * of the parameters is copied into it when it is made.
 */
#ifndef COLL_RDMA_MODULE_H
#define COLL_RDMA_MODULE_H

#include "coll_rdma_compat.h"
#include "coll_rdma_config.h"
#include "coll_rdma_queue.h"

#include "ompi/communicator/communicator.h"
#include "ompi/mca/op/op.h"

enum coll_rdma_window_state {
    COLL_RDMA_WINDOW_NONE = 0,  /* not set up yet: warm-up calls */
    COLL_RDMA_WINDOW_SETUP,     /* its set-up's exchanges in flight (coll_rdma_setup.h) */
    COLL_RDMA_WINDOW_READY,
    COLL_RDMA_WINDOW_FAILED     /* every call falls back on this communicator */
};

/* What a module needs of the component's parameters that need not agree
 * between ranks (copied at comm_query: the module reads no global). */
typedef struct coll_rdma_module_params {
    int window_setup_calls; /* calls left to the fallback before the set-up */
    size_t window_max_bytes; /* cap on this rank's window (0: none) */
    size_t window_budget_bytes; /* cap on all this process's windows at once (0: none; the
                                 * parameter's 0 arrives as its default) */
    int window_pool;        /* freed windows kept for reuse (0: none) */
    int poll_spins;         /* polls of a word between two opal_progress() calls */
    bool lazy_connect;      /* attach off-node peers at their first use */
    size_t address_inline;  /* address bytes a set-up record carries itself */
} coll_rdma_module_params_t;

typedef struct mca_coll_rdma_module_t mca_coll_rdma_module_t;

/* What the layers above keep per module and must drop when it goes: they
 * register it (coll_rdma_entry_install), the module calls it from its
 * destructor, knowing nothing of them. */
typedef void (*coll_rdma_module_teardown_fn_t)(mca_coll_rdma_module_t *m);

/* The collectives whose previous functions a module saves: those it serves
 * (blocking, nonblocking, persistent; allgather_init also sets windows up). */
#define COLL_RDMA_SAVED(X)                                                                     \
    X(barrier) X(bcast) X(allreduce) X(allgather) X(alltoall) X(reduce)                        \
    X(ibarrier) X(ibcast) X(iallreduce) X(iallgather) X(ialltoall) X(ireduce)                  \
    X(barrier_init) X(bcast_init) X(allreduce_init) X(allgather_init) X(alltoall_init)         \
    X(reduce_init)

struct mca_coll_rdma_module_t {
    mca_coll_base_module_t super;
    coll_rdma_module_params_t params;
    coll_rdma_module_teardown_fn_t teardown;

    /* saved previous functions (retained), the fallback for every call:
     * previous_<name> and previous_<name>_module for each name below */
#define X_PREVIOUS(name)                                                                      \
    mca_coll_base_module_##name##_fn_t previous_##name;                                      \
    mca_coll_base_module_t *previous_##name##_module;
    COLL_RDMA_SAVED(X_PREVIOUS)
#undef X_PREVIOUS

    const coll_rdma_config_t *cfg; /* the configuration its ranks agree on: cfg_agreed */
    /* the window is ready and the tag span over: every call decides at once
     * (the one test on the path of a steady call) */
    bool steady;
    int window_state;
    /* from the set-up call to the first blocking call after it, on every
     * rank alike: nonblocking and persistent calls keep the previous
     * component's tag counter in step with the ranks that make early
     * requests (docs/design.md, "Tags") */
    bool tag_span;
    uint64_t calls;             /* collective calls of any kind before the window's set-up */
    struct coll_rdma_setup *setup; /* the set-up in flight (COLL_RDMA_WINDOW_SETUP) */
    /* the communicator, retained while the set-up runs (NULL otherwise) */
    struct ompi_communicator_t *setup_comm;
    struct mca_coll_rdma_module_t *setup_ended_next; /* the request layer's list */
    /* the process's live modules (coll_rdma_module_fini_all) */
    struct mca_coll_rdma_module_t *live_prev, *live_next;
    /* calls made while the set-up runs, in call order, resolved when it ends
     * (coll_rdma_request.c) */
    struct coll_rdma_request *deferred_head;
    struct coll_rdma_request *deferred_tail;
    struct coll_rdma_request *inner_head; /* early requests the previous component runs */
    /* the early requests' turn in the progress callback (coll_rdma_request_early.c):
     * set while a set-up runs or the previous component runs some */
    int (*tick)(struct mca_coll_rdma_module_t *m);
    bool setup_watched;         /* its set-up is progressed from opal_progress */
    bool setup_busy;            /* its set-up is being advanced (no re-entry) */
    struct coll_rdma_window *window;
    /* its executor: operations started and not finished, in start order, the
     * instance counters, the stale-synchronous clock (coll_rdma_exec.h) */
    coll_rdma_queue_t queue;
    bool progress_listed;       /* in the request layer's progress list */
    /* per collective, the last blocking call's operation, run again by the
     * next call with the same arguments but buffers (coll_rdma_call.h) */
    struct coll_rdma_standing *standing[COLL_RDMA_NCOLLS];
    /* per collective, the nonblocking request freed last, kept with its
     * program for the next call with the same arguments (coll_rdma_request.c) */
    struct coll_rdma_request *parked[COLL_RDMA_NCOLLS];
    /* (op, type) pairs whose fallback is wrong on some rank: the union of
     * every rank's op self-test, agreed at window set-up (bit t of entry f,
     * as coll_rdma_op_fallback_wrong()) */
    uint64_t fallback_wrong[OMPI_OP_BASE_FORTRAN_OP_MAX];
    /* last, so the fields every call reads keep their cache lines: the
     * component's configuration, checked at set-up, with this communicator's
     * allreduce_staleness */
    coll_rdma_config_t cfg_agreed;
};

OBJ_CLASS_DECLARATION(mca_coll_rdma_module_t);

/**
 * A module for a communicator: `cfg` is this rank's configuration (agreed
 * with the other ranks at the window's set-up), `params` the local ones.
 * Its enable function saves the previous component's functions; the caller
 * installs the entry points.  NULL when out of memory.
 */
mca_coll_rdma_module_t *coll_rdma_module_new(const coll_rdma_config_t *cfg,
                                             const coll_rdma_module_params_t *params);

/* What a call may do on a communicator whose window is not ready (coll_rdma_module_admit). */
enum coll_rdma_admit {
    COLL_RDMA_ADMIT_FALLBACK = 0, /* hand it on: warm-up, or no window (*why) */
    COLL_RDMA_ADMIT_SETUP,        /* the set-up runs: wait for it (blocking) or defer */
    COLL_RDMA_ADMIT_READY         /* the window is ready: decide */
};

/**
 * Count one collective call of any kind (blocking, MPI_I*, MPI_*_init,
 * MPI_Start of a request made before the window) and say what it may do
 * (enum coll_rdma_admit; *why for a fallback).  The call after the first
 * window_setup_calls ones starts the window's set-up, which never waits for
 * another rank (coll_rdma_setup.h); `now` (a reduction Open MPI may get
 * wrong) skips the rest of the warm-up.  Every rank makes the same calls in
 * the same order, so every rank starts the set-up at the same call, as long
 * as window_setup_calls is the same on every rank: it is not agreed (it
 * cannot be: the agreement happens at the set-up, whose call it decides),
 * and a rank with another value hangs the job at the set-up (docs/reliability.md).
 * Calls Open MPI makes on its own behalf from inside opal_progress are not
 * counted (coll_rdma_call_internal()): their place among the application's
 * calls differs between ranks.
 */
int coll_rdma_module_admit(mca_coll_rdma_module_t *m, struct ompi_communicator_t *comm, bool now,
                           int *why);

/**
 * Advance the module's set-up in flight without waiting; returns the window
 * state it leads to (enum coll_rdma_window_state): still SETUP, or READY /
 * FAILED once it ended (then every rank's is the same), with m->window set
 * for READY.  The state is not published: the caller starts what waited
 * for the set-up first, then calls coll_rdma_module_publish(), so that no
 * call that reads the state can overtake them (another thread's blocking
 * call, MPI_THREAD_MULTIPLE).  One caller at a time.  m->setup_comm, the
 * reference the set-up held, is the caller's to release once it ended.
 */
int coll_rdma_module_setup_test(mca_coll_rdma_module_t *m);

/** Make the set-up's outcome `state` (READY or FAILED) visible to every call. */
void coll_rdma_module_publish(mca_coll_rdma_module_t *m, int state);

/**
 * The first blocking call after the set-up call (every rank's same call;
 * it waited for the set-up): the tag span ends.
 */
void coll_rdma_module_end_span(mca_coll_rdma_module_t *m);

/**
 * Component close: give back the windows (and set-ups in flight, their
 * exchanges cancelled) of every module still alive.  A communicator that
 * outlives Open MPI's own release at MPI_Finalize (the application freed
 * neither it nor a persistent request on it, which holds a reference) keeps
 * its module; its window must still go before UCX is cleaned up (UCX asserts
 * on memory still mapped).  The modules themselves stay, as their
 * communicators do.
 */
void coll_rdma_module_fini_all(void);

#endif /* COLL_RDMA_MODULE_H */
