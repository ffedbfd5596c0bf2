/*
 * coll/rdma: everything that depends on the Open MPI version lives here.
 *
 * The version is the one of the headers being compiled against: the coll
 * API's version macro that ompi/mca/coll/coll.h defines (configure has
 * already checked it against OMPI_MAJOR_VERSION and put the shim/ directory
 * behind Open MPI's include directories for the headers a distribution
 * leaves out; docs/design.md, "Open MPI versions").
 *
 *                      Open MPI 4.1            Open MPI 5.0            Open MPI 6.0
 * coll API             component 2.0.0,        2.4.0                   3.0.0
 *                      module 2.3.0
 * counts of the        int                     int                     size_t (MPI 4 large
 *   entry points                                                        counts: above INT_MAX
 *                                                                       coll/rdma hands on)
 * module's functions   copied into the         copied into the         installed by the module's
 *   in the table       table by the base       table by the base       enable, restored by its
 *                                                                       disable
 *                                                                       (MCA_COLL_INSTALL_API)
 * component symbol     OMPI_MODULE_DECLSPEC    OMPI_DECLSPEC (the former is gone)
 * static component     -                       -                       MCA_BASE_COMPONENT_INIT
 *   pointer
 * opal_mutex_t header  opal/threads/mutex.h    opal/mca/threads/mutex.h
 * opal_info_get        (key, len, buf, &flag)  (key, &opal_cstring_t, &flag)
 * internals in         libmpi                  libmpi                  libopen_mpi (configure)
 * devel headers        ompi/mpi/fortran/base/fint_2_int.h (from ompi/op/op.h)
 *   missing (Debian)   opal/mca/threads/pthreads/threads_pthreads_{threads,mutex,tsd}.h
 *                      (5.0 and 6.0, named by opal_config.h)
 *
 * Unchanged in all three, and used as is: the unversioned typedefs
 * mca_coll_base_component_t / mca_coll_base_module_t, the function typedefs
 * mca_coll_base_module_<coll>_fn_t, comm->c_coll (a pointer to the table
 * of selected functions and modules, modules enabled lowest priority
 * first), OMPI_PROC_MY_NAME, ompi_mpi_thread_multiple,
 * ompi_op_base_functions, ompi_op_ddt_map, ompi_op_reduce, and the MCA
 * variable API (mca_base_component_var_register, mca_base_var_enum_create,
 * MCA_BASE_VAR_TYPE_SIZE_T, OPAL_INFO_LVL_*).
 */
#ifndef COLL_RDMA_COMPAT_H
#define COLL_RDMA_COMPAT_H

#include "ompi_config.h"
#include "ompi/mca/coll/coll.h"

/* Keyed on the coll API, not the release: a 5.1 or 6.1 with the same API
 * needs no edit here. */
#if defined(MCA_COLL_BASE_VERSION_3_0_0)
#    define COLL_RDMA_OMPI_COLL_API 300 /* component and module 3.0.0 */
#    define COLL_RDMA_COMPONENT_VERSION MCA_COLL_BASE_VERSION_3_0_0
#elif defined(MCA_COLL_BASE_VERSION_2_4_0)
#    define COLL_RDMA_OMPI_COLL_API 240 /* component and module 2.4.0 */
#    define COLL_RDMA_COMPONENT_VERSION MCA_COLL_BASE_VERSION_2_4_0
#elif defined(MCA_COLL_BASE_VERSION_2_0_0) && OMPI_MAJOR_VERSION == 4 && OMPI_MINOR_VERSION >= 1
#    define COLL_RDMA_OMPI_COLL_API 200 /* component 2.0.0, module 2.3.0 */
#    define COLL_RDMA_COMPONENT_VERSION MCA_COLL_BASE_VERSION_2_0_0
#else
#    error "coll/rdma supports Open MPI 4.1, 5.0 and 6.0 (configure checks this)"
#endif

/* The count of the entry points' signatures: size_t from coll API 3.0.0 on
 * (MPI 4's large counts reach the component), int before. */
#if COLL_RDMA_OMPI_COLL_API >= 300
typedef size_t coll_rdma_count_t;
#else
typedef int coll_rdma_count_t;
#endif

/* The static component pointer Open MPI 6.0 declares for every component
 * (used only where it is built into Open MPI; harmless in a DSO). */
#if COLL_RDMA_OMPI_COLL_API >= 300
#    define COLL_RDMA_COMPONENT_INIT MCA_BASE_COMPONENT_INIT(ompi, coll, rdma)
#else
#    define COLL_RDMA_COMPONENT_INIT
#endif

/* opal_mutex_t, OPAL_MUTEX_STATIC_INIT, OPAL_THREAD_LOCK: a plain directory in
 * 4.1, the threads framework in 5.0 (whose pthreads headers shim/ may supply). */
#if OMPI_MAJOR_VERSION >= 5
#    include "opal/mca/threads/mutex.h"
#else
#    include "opal/threads/mutex.h"
#endif

/* The component structure must be visible to the MCA loader's dlsym(). */
#ifndef OMPI_MODULE_DECLSPEC /* removed in Open MPI 5.0 */
#    define OMPI_MODULE_DECLSPEC OMPI_DECLSPEC
#endif

/* Info values (opal_info_get): a string object in 5.0, a buffer in 4.1. */
#include <stdbool.h>
#include <stdio.h>

#include "opal/util/info.h"

/* The value of `key` in `info` into buf (at most len - 1 characters); whether it is set. */
static inline bool coll_rdma_info_get(opal_info_t *info, const char *key, char *buf, int len)
{
    int flag = 0;
#if OMPI_MAJOR_VERSION >= 5
    opal_cstring_t *value = NULL;

    if (NULL == info || OPAL_SUCCESS != opal_info_get(info, key, &value, &flag) || !flag) {
        return false;
    }
    snprintf(buf, (size_t) len, "%s", value->string);
    OBJ_RELEASE(value);
#else
    if (NULL == info || OPAL_SUCCESS != opal_info_get(info, key, len - 1, buf, &flag) || !flag) {
        return false;
    }
    buf[len - 1] = '\0';
#endif
    return true;
}

/* The communicator's table of selected functions and their modules. */
#define COLL_RDMA_COMM_TABLE(comm) ((comm)->c_coll)

/*
 * Put a module's function for collective slot `name` into the
 * communicator's table (its enable), and put the saved previous one back
 * (its disable, where the slot still holds the module's).  From coll API
 * 3.0.0 on the base no longer copies a module's functions into the table:
 * the module installs them; before, the base copies them after the enable,
 * and these do nothing.
 */
#if COLL_RDMA_OMPI_COLL_API >= 300
#    define COLL_RDMA_INSTALL(comm, name, fn, module)                                         \
        MCA_COLL_INSTALL_API(comm, name, fn, module, "rdma")
#    define COLL_RDMA_UNINSTALL(comm, name, module, previous_fn, previous_module)             \
        do {                                                                                  \
            if ((module) == COLL_RDMA_COMM_TABLE(comm)->coll_##name##_module) {               \
                MCA_COLL_INSTALL_API(comm, name, previous_fn, previous_module, "rdma");       \
            }                                                                                 \
        } while (0)
#    define COLL_RDMA_MODULE_INSTALLS 1
#else
#    define COLL_RDMA_INSTALL(comm, name, fn, module) ((void) 0)
#    define COLL_RDMA_UNINSTALL(comm, name, module, previous_fn, previous_module) ((void) 0)
#    define COLL_RDMA_MODULE_INSTALLS 0
#endif

/* Function types of this coll API for the collectives coll/rdma saves. */
typedef mca_coll_base_module_barrier_fn_t coll_rdma_barrier_fn_t;
typedef mca_coll_base_module_bcast_fn_t coll_rdma_bcast_fn_t;
typedef mca_coll_base_module_allreduce_fn_t coll_rdma_allreduce_fn_t;
typedef mca_coll_base_module_allgather_fn_t coll_rdma_allgather_fn_t;
typedef mca_coll_base_module_allgatherv_fn_t coll_rdma_allgatherv_fn_t;
typedef mca_coll_base_module_alltoall_fn_t coll_rdma_alltoall_fn_t;
typedef mca_coll_base_module_reduce_fn_t coll_rdma_reduce_fn_t;

#endif /* COLL_RDMA_COMPAT_H */
