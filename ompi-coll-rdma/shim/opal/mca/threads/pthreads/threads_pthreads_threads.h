/*
 * Stand-in for an Open MPI 5.0 header that Debian's libopenmpi-dev (5.0.7)
 * does not install although opal_config.h names it
 * (MCA_threads_base_include_HEADER).  Same definitions as Open MPI 5.0's
 * opal/mca/threads/pthreads (BSD-3-Clause, the Open MPI Project); see
 * threads_pthreads_mutex.h.
 */
#ifndef COLL_RDMA_SHIM_THREADS_PTHREADS_THREADS_H
#define COLL_RDMA_SHIM_THREADS_PTHREADS_THREADS_H

#include <pthread.h>
#include <signal.h>

#include "opal/mca/threads/threads.h"

BEGIN_C_DECLS

/* Pthreads do not need to yield when idle. */
#define OPAL_THREAD_YIELD_WHEN_IDLE_DEFAULT false

typedef void(opal_threads_pthreads_yield_fn_t)(void);
OPAL_DECLSPEC extern opal_threads_pthreads_yield_fn_t *opal_threads_pthreads_yield_fn;

static inline void opal_thread_yield(void)
{
    opal_threads_pthreads_yield_fn();
}

END_C_DECLS

#endif /* COLL_RDMA_SHIM_THREADS_PTHREADS_THREADS_H */
