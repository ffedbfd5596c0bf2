/*
 * Stand-in for an Open MPI 5.0 header that Debian's libopenmpi-dev (5.0.7)
 * does not install although opal_config.h names it
 * (MCA_threads_mutex_base_include_HEADER) and opal/mca/threads/mutex.h
 * includes it.  Used only where the installed headers lack it: the -I of
 * Open MPI's own include directories comes first.
 *
 * It must describe the pthreads threads component exactly as Open MPI was
 * built with it, because opal_mutex_t (inside communicators, ops and other
 * objects coll/rdma touches) embeds opal_thread_internal_mutex_t.  These
 * are the definitions of Open MPI 5.0's opal/mca/threads/pthreads (BSD-3-
 * Clause, Copyright the Open MPI Project and its contributors), in their
 * non-debug form (Debian builds without --enable-debug).
 */
#ifndef COLL_RDMA_SHIM_THREADS_PTHREADS_MUTEX_H
#define COLL_RDMA_SHIM_THREADS_PTHREADS_MUTEX_H

#include "opal_config.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>

#include "opal/constants.h"

BEGIN_C_DECLS

typedef pthread_mutex_t opal_thread_internal_mutex_t;
typedef pthread_cond_t opal_thread_internal_cond_t;

#define OPAL_THREAD_INTERNAL_MUTEX_INITIALIZER PTHREAD_MUTEX_INITIALIZER
#define OPAL_THREAD_INTERNAL_COND_INITIALIZER PTHREAD_COND_INITIALIZER
#if defined(PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP)
#    define OPAL_THREAD_INTERNAL_RECURSIVE_MUTEX_INITIALIZER PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP
#elif defined(PTHREAD_RECURSIVE_MUTEX_INITIALIZER)
#    define OPAL_THREAD_INTERNAL_RECURSIVE_MUTEX_INITIALIZER PTHREAD_RECURSIVE_MUTEX_INITIALIZER
#endif

static inline int opal_thread_internal_mutex_init(opal_thread_internal_mutex_t *m, bool recursive)
{
    pthread_mutexattr_t attr;
    int ret;

    if (!recursive) {
        ret = pthread_mutex_init(m, NULL);
    } else if (0 != pthread_mutexattr_init(&attr)) {
        return OPAL_ERR_IN_ERRNO;
    } else {
        pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
        ret = pthread_mutex_init(m, &attr);
        pthread_mutexattr_destroy(&attr);
    }
    return 0 == ret ? OPAL_SUCCESS : OPAL_ERR_IN_ERRNO;
}

static inline void opal_thread_internal_mutex_lock(opal_thread_internal_mutex_t *m)
{
    pthread_mutex_lock(m);
}

static inline int opal_thread_internal_mutex_trylock(opal_thread_internal_mutex_t *m)
{
    return 0 == pthread_mutex_trylock(m) ? 0 : 1;
}

static inline void opal_thread_internal_mutex_unlock(opal_thread_internal_mutex_t *m)
{
    pthread_mutex_unlock(m);
}

static inline void opal_thread_internal_mutex_destroy(opal_thread_internal_mutex_t *m)
{
    pthread_mutex_destroy(m);
}

static inline int opal_thread_internal_cond_init(opal_thread_internal_cond_t *c)
{
    return 0 == pthread_cond_init(c, NULL) ? OPAL_SUCCESS : OPAL_ERR_IN_ERRNO;
}

static inline void opal_thread_internal_cond_wait(opal_thread_internal_cond_t *c,
                                                  opal_thread_internal_mutex_t *m)
{
    pthread_cond_wait(c, m);
}

static inline void opal_thread_internal_cond_broadcast(opal_thread_internal_cond_t *c)
{
    pthread_cond_broadcast(c);
}

static inline void opal_thread_internal_cond_signal(opal_thread_internal_cond_t *c)
{
    pthread_cond_signal(c);
}

static inline void opal_thread_internal_cond_destroy(opal_thread_internal_cond_t *c)
{
    pthread_cond_destroy(c);
}

END_C_DECLS

#endif /* COLL_RDMA_SHIM_THREADS_PTHREADS_MUTEX_H */
