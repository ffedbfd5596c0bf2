/*
 * coll/rdma reductions: Open MPI's op framework, guarded by a self-test.
 *
 * Some installations ship op functions that are wrong for some types
 * (Debian's Open MPI 4.1.4 op/avx saturates 8-bit integer SUM once the count
 * reaches a vector width; DESIGN.md rule 7).  Once per process, every
 * installed intrinsic function for an integer type is compared with Open
 * MPI's base (non-vectorized) function on the same inputs; pairs that differ
 * are then reduced with the base function.  Floating-point types are not
 * compared: vector and scalar code may legitimately differ in NaN payloads.
 *
 * Open MPI 4.1.4 also compares MPI_UNSIGNED_LONG as signed in MIN and MAX,
 * in every op component (open-mpi/ompi#10525, fixed in 4.1.5), so no
 * self-test against the base function can see it: C long and unsigned long
 * are reduced with the functions of their fixed-width twins instead.
 */
#include "ompi_config.h"

#include "coll_rdma.h"

#include <string.h>

#include "ompi/mca/op/base/base.h"
#include "ompi/mca/op/base/functions.h"

/* Elements per self-test vector: covers 512-bit vectors of 8-bit types
 * several times plus a ragged tail. */
#define SELFTEST_COUNT 301

static bool use_base[OMPI_OP_BASE_FORTRAN_OP_MAX][OMPI_OP_BASE_TYPE_MAX];
static bool selftest_done = false;

/* The op framework's type index of predefined `dtype`, C long types mapped
 * to their fixed-width twins (see above); -1 when it has none. */
static int op_type(const ompi_datatype_t *dtype)
{
    int t = ompi_op_ddt_map[dtype->id];

    if (OMPI_OP_BASE_TYPE_UNSIGNED_LONG == t) {
        return 8 == sizeof(unsigned long) ? OMPI_OP_BASE_TYPE_UINT64_T : OMPI_OP_BASE_TYPE_UINT32_T;
    }
    if (OMPI_OP_BASE_TYPE_LONG == t) {
        return 8 == sizeof(long) ? OMPI_OP_BASE_TYPE_INT64_T : OMPI_OP_BASE_TYPE_INT32_T;
    }
    return t;
}

/* Indices (Fortran op index, op type) of an intrinsic op on predefined
 * `dtype` when Open MPI has a function for the pair; false otherwise. */
static bool op_indices(ompi_op_t *op, ompi_datatype_t *dtype, int *f, int *t)
{
    *f = op->o_f_to_c_index;
    *t = op_type(dtype);
    return *f > 0 && *f < OMPI_OP_BASE_FORTRAN_OP_MAX && *t >= 0
           && NULL != op->o_func.intrinsic.fns[*t];
}

/* Pseudo-random bytes, deterministic (xorshift64). */
static void fill(unsigned char *buf, size_t bytes, uint64_t seed)
{
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;

    for (size_t i = 0; i < bytes; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        buf[i] = (unsigned char) x;
    }
}

static void selftest_pair(ompi_op_t *op, ompi_datatype_t *dtype)
{
    int f, t;
    ompi_op_base_handler_fn_t base;
    unsigned char in[SELFTEST_COUNT * 8], mine[SELFTEST_COUNT * 8], ref[SELFTEST_COUNT * 8];
    size_t size = dtype->super.size;

    if (!op_indices(op, dtype, &f, &t) || size > 8) {
        return;
    }
    base = ompi_op_base_functions[f][t];
    if (NULL == base || (void *) base == (void *) op->o_func.intrinsic.fns[t]) {
        return;
    }
    for (int count = 1; count <= SELFTEST_COUNT && !use_base[f][t]; count += count < 80 ? 1 : 37) {
        int n = count;
        fill(in, count * size, (uint64_t) count * 131 + t);
        fill(mine, count * size, (uint64_t) count * 71 + f);
        memcpy(ref, mine, count * size);
        ompi_op_reduce(op, in, mine, count, dtype);
        base(in, ref, &n, &dtype, NULL);
        if (0 != memcmp(mine, ref, count * size)) {
            use_base[f][t] = true;
            if (mca_coll_rdma_component.verbose >= 2) {
                mca_coll_rdma_output("op %s on %s fails the self-test at count %d: using the base "
                                     "function",
                                     op->o_name, dtype->name, count);
            }
        }
    }
}

void coll_rdma_op_selftest(void)
{
    ompi_op_t *ops[] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND,
                        MPI_BAND, MPI_LOR, MPI_BOR, MPI_LXOR, MPI_BXOR};
    ompi_datatype_t *types[] = {MPI_INT8_T,  MPI_UINT8_T, MPI_INT16_T, MPI_UINT16_T,
                                MPI_INT32_T, MPI_UINT32_T, MPI_INT64_T, MPI_UINT64_T,
                                MPI_BYTE};

    if (selftest_done) {
        return;
    }
    selftest_done = true;
    for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); ++o) {
        for (size_t d = 0; d < sizeof(types) / sizeof(types[0]); ++d) {
            selftest_pair(ops[o], types[d]);
        }
    }
}

bool coll_rdma_op_supported(ompi_op_t *op, ompi_datatype_t *dtype)
{
    int f, t;

    return ompi_op_is_intrinsic(op) && ompi_op_is_commute(op)
           && ompi_datatype_is_predefined(dtype) && op_indices(op, dtype, &f, &t);
}

bool coll_rdma_op_order_independent(ompi_op_t *op, ompi_datatype_t *dtype)
{
    int f, t;

    if (!coll_rdma_op_supported(op, dtype) || !op_indices(op, dtype, &f, &t)) {
        return false;
    }
    /* Exact arithmetic: integers (wrapping), logical values, bytes, and the
     * MINLOC/MAXLOC pairs of integers.  Not floating point, whatever the op:
     * MIN and MAX keep one of two equal operands (-0.0 and +0.0) or a NaN by
     * position, so even they depend on the order. */
    switch (t) {
    case OMPI_OP_BASE_TYPE_INT8_T:
    case OMPI_OP_BASE_TYPE_UINT8_T:
    case OMPI_OP_BASE_TYPE_INT16_T:
    case OMPI_OP_BASE_TYPE_UINT16_T:
    case OMPI_OP_BASE_TYPE_INT32_T:
    case OMPI_OP_BASE_TYPE_UINT32_T:
    case OMPI_OP_BASE_TYPE_INT64_T:
    case OMPI_OP_BASE_TYPE_UINT64_T:
    case OMPI_OP_BASE_TYPE_INTEGER:
    case OMPI_OP_BASE_TYPE_INTEGER1:
    case OMPI_OP_BASE_TYPE_INTEGER2:
    case OMPI_OP_BASE_TYPE_INTEGER4:
    case OMPI_OP_BASE_TYPE_INTEGER8:
    case OMPI_OP_BASE_TYPE_INTEGER16:
    case OMPI_OP_BASE_TYPE_LOGICAL:
    case OMPI_OP_BASE_TYPE_BOOL:
    case OMPI_OP_BASE_TYPE_BYTE:
    case OMPI_OP_BASE_TYPE_2INTEGER:
    case OMPI_OP_BASE_TYPE_LONG_INT:
    case OMPI_OP_BASE_TYPE_2INT:
    case OMPI_OP_BASE_TYPE_SHORT_INT:
    case OMPI_OP_BASE_TYPE_LONG:
    case OMPI_OP_BASE_TYPE_UNSIGNED_LONG:
    case OMPI_OP_BASE_TYPE_WCHAR:
        return true;
    default:
        return false;
    }
}

void coll_rdma_op_reduce(ompi_op_t *op, const void *source, void *target, size_t count,
                         ompi_datatype_t *dtype)
{
    int f = op->o_f_to_c_index, t = op_type(dtype);
    size_t extent = dtype->super.size;

    /* the op functions count in int */
    while (count > 0) {
        int n = count > INT_MAX ? INT_MAX : (int) count;
        if (OPAL_UNLIKELY(use_base[f][t])) {
            ompi_op_base_functions[f][t]((void *) source, target, &n, &dtype, NULL);
        } else {
            op->o_func.intrinsic.fns[t]((void *) source, target, &n, &dtype,
                                        op->o_func.intrinsic.modules[t]);
        }
        source = (const char *) source + (size_t) n * extent;
        target = (char *) target + (size_t) n * extent;
        count -= (size_t) n;
    }
}
