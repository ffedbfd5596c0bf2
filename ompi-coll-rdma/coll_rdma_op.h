/*
 * coll/rdma reductions (coll_rdma_op.c): Open MPI's op framework guarded by a
 * start-up self-test, and what that self-test says of Open MPI's own
 * reductions.  Ground floor: calls only into Open MPI.
 */
#ifndef COLL_RDMA_OP_H
#define COLL_RDMA_OP_H

#include "ompi_config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/op/op.h"

/**
 * target[i] = source[i] op target[i] for `count` elements of predefined
 * `dtype`, with Open MPI's op framework, except for (op, type) pairs whose
 * installed function failed the self-test of coll_rdma_op_selftest(): those
 * use coll/rdma's own kernel where it has one that passed the same test
 * (wrapping SUM of 8- and 16-bit integers, coll_rdma_kernels.h), else Open
 * MPI's base (non-vectorized) function.  DESIGN.md rule 7.
 */
void coll_rdma_op_reduce(ompi_op_t *op, const void *source, void *target, size_t count,
                         ompi_datatype_t *dtype);

/**
 * What coll_rdma_op_reduce() reduces `op` on predefined `dtype` with in this
 * process, for messages: "coll/rdma's own kernel" or "Open MPI's base
 * function" (the self-test found the installed function wrong), else "Open
 * MPI's installed function".
 */
const char *coll_rdma_op_reducer(ompi_op_t *op, ompi_datatype_t *dtype);

/**
 * Compare every installed intrinsic op function on integer types against
 * the base one (0.3 ms at 2 ranks here); the first call does it, later ones return at
 * once.  Not thread-safe: call it from one thread, before any reduction
 * (a warm-up step or the window set-up, under the UCX lock).
 */
void coll_rdma_op_selftest(void);

/**
 * This process's findings of coll_rdma_op_selftest(), to be agreed between
 * ranks: masks[f] (f a Fortran op index, OMPI_OP_BASE_FORTRAN_OP_MAX
 * entries) has bit t set when Open MPI's own function for op type t, the
 * one every other component calls, computes wrong results.
 */
void coll_rdma_op_fallback_wrong(uint64_t *masks);

/**
 * Whether `masks` (as from coll_rdma_op_fallback_wrong(), possibly ORed over
 * ranks) marks Open MPI's own reduction of intrinsic `op` on predefined
 * `dtype` as wrong.  False for user-defined ops and derived datatypes.
 */
bool coll_rdma_op_is_fallback_wrong(const uint64_t *masks, ompi_op_t *op, ompi_datatype_t *dtype);

/**
 * Whether a reduction of `op` on `dtype` (any layout) is one that Open MPI
 * releases are known to get wrong on some installations: SUM on 8- and
 * 16-bit integers (4.1.x op/avx), MIN and MAX on 64-bit unsigned integers
 * (4.1.2-4.1.4, open-mpi/ompi#10525).  A static rule on what MPI requires
 * to match on every rank (the op and the type signature's basic types), so
 * that such a call may end a communicator's warm-up on every rank alike:
 * only a window lets coll/rdma serve it.  Whether the fallback is really
 * wrong is the self-test's finding, agreed at set-up.
 */
bool coll_rdma_op_suspect(ompi_op_t *op, ompi_datatype_t *dtype);

/** Whether coll/rdma reduces `op` on `dtype` itself (predefined, commutative). */
bool coll_rdma_op_supported(ompi_op_t *op, ompi_datatype_t *dtype);

/**
 * Whether the result of `op` on `dtype` is the same bits in every order of
 * combination: supported, and the type is an integer, logical or byte type
 * (or a MINLOC/MAXLOC pair of integers).  False for every floating-point
 * type, MIN and MAX included (signed zeros and NaNs).  Algorithms that
 * combine in rank-dependent orders (nway, bruck) are chosen by `auto` only
 * when this holds.
 */
bool coll_rdma_op_order_independent(ompi_op_t *op, ompi_datatype_t *dtype);


#endif /* COLL_RDMA_OP_H */
