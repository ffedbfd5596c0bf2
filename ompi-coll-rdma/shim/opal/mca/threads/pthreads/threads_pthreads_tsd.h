/*
 * Stand-in for an Open MPI 5.0 header that Debian's libopenmpi-dev (5.0.7)
 * does not install although opal_config.h names it
 * (MCA_threads_tsd_base_include_HEADER).  Same definitions as Open MPI 5.0's
 * opal/mca/threads/pthreads (BSD-3-Clause, the Open MPI Project); see
 * threads_pthreads_mutex.h.
 */
#ifndef COLL_RDMA_SHIM_THREADS_PTHREADS_TSD_H
#define COLL_RDMA_SHIM_THREADS_PTHREADS_TSD_H

#include <pthread.h>

typedef pthread_key_t opal_tsd_key_t;

static inline int opal_tsd_key_delete(opal_tsd_key_t key)
{
    return 0 == pthread_key_delete(key) ? OPAL_SUCCESS : OPAL_ERR_IN_ERRNO;
}

static inline int opal_tsd_set(opal_tsd_key_t key, void *value)
{
    return 0 == pthread_setspecific(key, value) ? OPAL_SUCCESS : OPAL_ERR_IN_ERRNO;
}

static inline int opal_tsd_get(opal_tsd_key_t key, void **valuep)
{
    *valuep = pthread_getspecific(key);
    return OPAL_SUCCESS;
}

#endif /* COLL_RDMA_SHIM_THREADS_PTHREADS_TSD_H */
