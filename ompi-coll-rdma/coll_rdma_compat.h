/*
 * coll/rdma: everything that depends on the Open MPI version lives here.
 *
 * The version is the one of the headers being compiled against
 * (OMPI_MAJOR_VERSION from ompi_config.h); configure has already checked it
 * and put the shim/ directory behind Open MPI's include directories for the
 * headers a distribution leaves out (docs/design.md, "Open MPI versions").
 *
 *                          Open MPI 4.1               Open MPI 5.0
 * component struct         ..._component_2_0_0_t      ..._component_2_4_0_t
 * component version macro  MCA_COLL_BASE_VERSION_2_0_0  MCA_COLL_BASE_VERSION_2_4_0
 * module struct            ..._module_2_3_0_t         ..._module_2_4_0_t (+ coll_agree, coll_iagree)
 * component symbol export  OMPI_MODULE_DECLSPEC       OMPI_DECLSPEC (the former is gone)
 * opal_mutex_t header      opal/threads/mutex.h       opal/mca/threads/mutex.h
 * opal_info_get            (key, len, buffer, &flag)  (key, &opal_cstring_t, &flag)
 * devel headers missing    ompi/mpi/fortran/base/fint_2_int.h (from ompi/op/op.h)
 *   (Debian)               opal/mca/threads/pthreads/threads_pthreads_{threads,mutex,tsd}.h
 *                          (5.0, named by opal_config.h)
 *
 * Unchanged between the two, and used as is: the unversioned typedefs
 * mca_coll_base_component_t / mca_coll_base_module_t, the function typedefs
 * mca_coll_base_module_<coll>_fn_t (int counts in both), comm->c_coll (a
 * pointer to the table of selected functions and modules, filled lowest
 * priority first, each module's coll_module_enable called before its
 * functions are copied in), OMPI_PROC_MY_NAME, ompi_mpi_thread_multiple,
 * ompi_op_base_functions, ompi_op_ddt_map, ompi_op_reduce, and the MCA
 * variable API (mca_base_component_var_register, mca_base_var_enum_create,
 * MCA_BASE_VAR_TYPE_SIZE_T, OPAL_INFO_LVL_*).
 */
#ifndef COLL_RDMA_COMPAT_H
#define COLL_RDMA_COMPAT_H

#include "ompi_config.h"
#include "ompi/mca/coll/coll.h"

#if OMPI_MAJOR_VERSION == 4 && OMPI_MINOR_VERSION >= 1
#    define COLL_RDMA_OMPI_COLL_API 200 /* component 2.0.0, module 2.3.0 */
#    define COLL_RDMA_COMPONENT_VERSION MCA_COLL_BASE_VERSION_2_0_0
#elif OMPI_MAJOR_VERSION == 5
#    define COLL_RDMA_OMPI_COLL_API 240 /* component and module 2.4.0 */
#    define COLL_RDMA_COMPONENT_VERSION MCA_COLL_BASE_VERSION_2_4_0
#else
#    error "coll/rdma supports Open MPI 4.1 and 5.0 (configure checks this)"
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

/* Function types of this coll API for the collectives coll/rdma saves. */
typedef mca_coll_base_module_barrier_fn_t coll_rdma_barrier_fn_t;
typedef mca_coll_base_module_bcast_fn_t coll_rdma_bcast_fn_t;
typedef mca_coll_base_module_allreduce_fn_t coll_rdma_allreduce_fn_t;
typedef mca_coll_base_module_allgather_fn_t coll_rdma_allgather_fn_t;
typedef mca_coll_base_module_allgatherv_fn_t coll_rdma_allgatherv_fn_t;
typedef mca_coll_base_module_alltoall_fn_t coll_rdma_alltoall_fn_t;
typedef mca_coll_base_module_reduce_fn_t coll_rdma_reduce_fn_t;

#endif /* COLL_RDMA_COMPAT_H */
