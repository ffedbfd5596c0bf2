/*
 * What the MPI tests test_nbsetup.c, test_around.c and test_random*.c check
 * with: FAIL prints one line naming the rank and aborts the job (so a
 * failure on one rank never leaves the others waiting for a timeout); OK
 * fails on any MPI error code.  The including file defines `static int
 * rank;`, or a FAIL of its own before including this.  Included after mpi.h.
 */
#ifndef COLL_RDMA_TESTS_TEST_CHECK_H
#define COLL_RDMA_TESTS_TEST_CHECK_H

#include <stdio.h>

#ifndef FAIL
#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "rank %d: FAIL ", rank);                                                   \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fprintf(stderr, "\n");                                                                     \
        fflush(stderr);                                                                            \
        MPI_Abort(MPI_COMM_WORLD, 1);                                                              \
    } while (0)
#endif

#define OK(call)                                                                                   \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (MPI_SUCCESS != rc_) {                                                                  \
            FAIL("%s returned %d", #call, rc_);                                                    \
        }                                                                                          \
    } while (0)

#endif
