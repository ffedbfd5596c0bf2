/*
 * coll/rdma reductions: Open MPI's op framework, guarded by a self-test.
 *
 * Some installations ship op functions that are wrong for some types
 * (Debian's Open MPI 4.1.4 op/avx saturates 8- and 16-bit integer SUM once
 * the count reaches a vector width; DESIGN.md rule 7).  Once per process
 * (the last step of the start at a warm-up call, or at the first window
 * set-up), every installed intrinsic function for an integer type is
 * compared with Open MPI's base (non-vectorized) function on the same
 * inputs; pairs that differ are then reduced with coll/rdma's own kernel
 * where it has one (SUM of 8- and 16-bit integers, coll_rdma_kernels.c:
 * memory speed, where the base function runs at about 1 GB/s) and the
 * kernel agrees with the base function on the same comparisons, else with
 * the base function.  Floating-point types are not compared: vector and
 * scalar code may legitimately differ in NaN payloads.
 *
 * Open MPI 4.1.4 also compares MPI_UNSIGNED_LONG as signed in MIN and MAX,
 * in every op component (open-mpi/ompi#10525, fixed in 4.1.5), so no
 * self-test against the base function of the same type can see it: C long
 * and unsigned long are reduced with the functions of their fixed-width
 * twins instead, and their own functions are compared with the twins'.
 *
 * The same comparisons say where Open MPI's own reduction, which every
 * other component calls, is wrong (coll_rdma_op_fallback_wrong()): there
 * coll/rdma serves the call at every size it can instead of handing it on.
 */
#include "ompi_config.h"

#include "coll_rdma_op.h"
#include "coll_rdma_config.h"
#include "coll_rdma_kernels.h"

#include <string.h>

#include "ompi/mca/op/base/base.h"
#include "ompi/mca/op/base/functions.h"
#include "opal/datatype/opal_datatype_internal.h"

/* Elements per self-test vector: covers 512-bit vectors of 8-bit types
 * several times plus a ragged tail. */
#define SELFTEST_COUNT 301

static bool use_base[OMPI_OP_BASE_FORTRAN_OP_MAX][OMPI_OP_BASE_TYPE_MAX];
/* where use_base is set: coll/rdma's own kernel for the pair, which agreed
 * with the base function (NULL: the base function reduces it) */
static coll_rdma_kernel_fn_t kernel[OMPI_OP_BASE_FORTRAN_OP_MAX][OMPI_OP_BASE_TYPE_MAX];
/* bit t of fallback_wrong[f]: the function Open MPI itself uses for Fortran
 * op index f on op type t (what coll/tuned and every other component call)
 * computes wrong results */
static uint64_t fallback_wrong[OMPI_OP_BASE_FORTRAN_OP_MAX];
static bool selftest_done = false;

#if OMPI_OP_BASE_TYPE_MAX > 64
#error "fallback_wrong holds one bit per op type: widen it"
#endif

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

/* The two operands of every comparison, filled once: filling them anew
 * for each pair and count took most of the 3.4 ms the self-test used to
 * cost at the first window set-up. */
static unsigned char sel_in[SELFTEST_COUNT * 8], sel_inout[SELFTEST_COUNT * 8];

/* Whether `fn` (with its op module) and the reference `ref` give different
 * results for some count of `dtype` on the self-test operands: every count
 * up to one 512-bit vector and one more (each remainder of the vector loops
 * once), then longer ones that run the vector loops several times. */
static bool differs(ompi_op_base_handler_fn_t fn, ompi_op_base_module_t *module,
                    ompi_op_base_handler_fn_t ref, ompi_datatype_t *dtype)
{
    unsigned char mine[SELFTEST_COUNT * 8], want[SELFTEST_COUNT * 8];
    size_t size = dtype->super.size;
    int every = 64 / (int) size + 1;

    for (int count = 1; count <= SELFTEST_COUNT; count += count < every ? 1 : 59) {
        int n = count;
        memcpy(mine, sel_inout, count * size);
        memcpy(want, sel_inout, count * size);
        fn(sel_in, mine, &n, &dtype, module);
        n = count;
        ref(sel_in, want, &n, &dtype, NULL);
        if (0 != memcmp(mine, want, count * size)) {
            return true;
        }
    }
    return false;
}

/* coll/rdma's own kernel for Fortran op index f on op type t, or NULL:
 * wrapping SUM of 8- and 16-bit integers, the pairs op/avx saturates. */
static coll_rdma_kernel_fn_t own_kernel(int f, int t)
{
    if (OMPI_OP_BASE_FORTRAN_SUM != f) {
        return NULL;
    }
    switch (t) {
    case OMPI_OP_BASE_TYPE_INT8_T:
    case OMPI_OP_BASE_TYPE_UINT8_T:
        return coll_rdma_kernel_sum8;
    case OMPI_OP_BASE_TYPE_INT16_T:
    case OMPI_OP_BASE_TYPE_UINT16_T:
        return coll_rdma_kernel_sum16;
    default:
        return NULL;
    }
}

/* Whether `kern` and the reference `ref` give different results for some
 * count of `dtype` on the self-test operands: count 0 and the counts of
 * differs(), with both operands at the start of a vector and with each at
 * another offset (the kernels' loops start wherever the buffers do); the
 * output's next elements must stay untouched. */
static bool kernel_differs(coll_rdma_kernel_fn_t kern, ompi_op_base_handler_fn_t ref,
                           ompi_datatype_t *dtype)
{
    unsigned char mine[sizeof(sel_inout)], want[sizeof(sel_inout)];
    size_t size = dtype->super.size;
    int every = 64 / (int) size + 1;
    /* element offsets of the input and the output */
    const int offsets[][2] = {{0, 0}, {1, 3}, {5, 2}};

    for (size_t o = 0; o < sizeof(offsets) / sizeof(offsets[0]); ++o) {
        const unsigned char *in = sel_in + offsets[o][0] * size;
        size_t at = offsets[o][1] * size;
        /* up to the counts of differs() where the operands hold them (the
         * kernels' types: 2 bytes at most), with a guard of 8 elements */
        for (int count = 0; count <= SELFTEST_COUNT
                            && (size_t) (count + offsets[o][0] + 8) * size <= sizeof(sel_in)
                            && (size_t) (count + offsets[o][1] + 8) * size <= sizeof(sel_in);
             count += count < every ? 1 : 59) {
            size_t bytes = at + (count + 8) * size;
            int n = count;
            memcpy(mine, sel_inout, bytes);
            memcpy(want, sel_inout, bytes);
            kern(in, mine + at, (size_t) count);
            if (count > 0) {
                ref((void *) in, want + at, &n, &dtype, NULL);
            }
            if (0 != memcmp(mine, want, bytes)) {
                return true;
            }
        }
    }
    return false;
}

static void selftest_pair(ompi_op_t *op, ompi_datatype_t *dtype)
{
    int f, t, raw = ompi_op_ddt_map[dtype->id];
    ompi_op_base_handler_fn_t base, installed;

    if (!op_indices(op, dtype, &f, &t) || dtype->super.size > 8) {
        return;
    }
    /* the reference: the base function of the (fixed-width twin) type */
    base = ompi_op_base_functions[f][t];
    if (NULL == base) {
        return;
    }
    /* what coll/rdma itself uses; the same function is the fallback's,
     * except for the long types (below) */
    installed = op->o_func.intrinsic.fns[t];
    if ((void *) base != (void *) installed && !use_base[f][t]
        && differs(installed, op->o_func.intrinsic.modules[t], base, dtype)) {
        coll_rdma_kernel_fn_t own = own_kernel(f, t);
        bool own_wrong = NULL != own && kernel_differs(own, base, dtype);

        use_base[f][t] = true;
        kernel[f][t] = own_wrong ? NULL : own;
        if (raw == t) {
            fallback_wrong[f] |= (uint64_t) 1 << t;
        }
        if (coll_rdma_verbose(2)) {
            coll_rdma_output("op %s on %s fails the self-test: coll/rdma reduces it with %s%s, "
                             "and serves such calls at every size it can",
                             op->o_name, dtype->name,
                             NULL != kernel[f][t] ? "its own kernel, for " : "the base function",
                             NULL != kernel[f][t] ? coll_rdma_kernel_isa() : "");
            if (own_wrong) {
                coll_rdma_output("op %s on %s: coll/rdma's own kernel (%s) disagrees with Open "
                                 "MPI's base function and is not used",
                                 op->o_name, dtype->name, coll_rdma_kernel_isa());
            }
        }
    }
    /* The long types: the fallback uses their own functions, which
     * open-mpi/ompi#10525 made wrong in base too, so only the comparison
     * with the twin's base function shows it. */
    if (raw == t || raw < 0 || NULL == op->o_func.intrinsic.fns[raw]) {
        return;
    }
    installed = op->o_func.intrinsic.fns[raw];
    if ((void *) base != (void *) installed && 0 == (fallback_wrong[f] & ((uint64_t) 1 << raw))
        && differs(installed, op->o_func.intrinsic.modules[raw], base, dtype)) {
        fallback_wrong[f] |= (uint64_t) 1 << raw;
        if (coll_rdma_verbose(2)) {
            coll_rdma_output("op %s on %s: Open MPI's own function is wrong here; coll/rdma "
                             "serves such calls at every size it can",
                             op->o_name, dtype->name);
        }
    }
}

void coll_rdma_op_selftest(void)
{
    ompi_op_t *ops[] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND,
                        MPI_BAND, MPI_LOR, MPI_BOR, MPI_LXOR, MPI_BXOR};
    ompi_datatype_t *types[] = {MPI_INT8_T,  MPI_UINT8_T,  MPI_INT16_T, MPI_UINT16_T,
                                MPI_INT32_T, MPI_UINT32_T, MPI_INT64_T, MPI_UINT64_T,
                                MPI_BYTE,    MPI_LONG,     MPI_UNSIGNED_LONG};

    if (selftest_done) {
        return;
    }
    selftest_done = true;
    fill(sel_in, sizeof(sel_in), 131);
    fill(sel_inout, sizeof(sel_inout), 71);
    for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); ++o) {
        for (size_t d = 0; d < sizeof(types) / sizeof(types[0]); ++d) {
            selftest_pair(ops[o], types[d]);
        }
    }
}

void coll_rdma_op_fallback_wrong(uint64_t *masks)
{
    memcpy(masks, fallback_wrong, sizeof(fallback_wrong));
}

bool coll_rdma_op_is_fallback_wrong(const uint64_t *masks, ompi_op_t *op, ompi_datatype_t *dtype)
{
    int f = op->o_f_to_c_index, t;

    if (!ompi_op_is_intrinsic(op) || f <= 0 || f >= OMPI_OP_BASE_FORTRAN_OP_MAX
        || !ompi_datatype_is_predefined(dtype)) {
        return false;
    }
    t = ompi_op_ddt_map[dtype->id];
    return t >= 0 && 0 != (masks[f] & ((uint64_t) 1 << t));
}

bool coll_rdma_op_suspect(ompi_op_t *op, ompi_datatype_t *dtype)
{
    /* basic types of the signature: MPI requires them to match on every rank */
    uint32_t used = dtype->super.bdt_used;
    const uint32_t narrow = (1u << OPAL_DATATYPE_INT1) | (1u << OPAL_DATATYPE_UINT1)
                            | (1u << OPAL_DATATYPE_INT2) | (1u << OPAL_DATATYPE_UINT2);
    uint32_t u64 = 1u << OPAL_DATATYPE_UINT8;
#ifdef OPAL_DATATYPE_UNSIGNED_LONG
    u64 |= 1u << OPAL_DATATYPE_UNSIGNED_LONG;
#endif

    if (!ompi_op_is_intrinsic(op) || 0 == used) {
        return false;
    }
    switch (op->o_f_to_c_index) {
    case OMPI_OP_BASE_FORTRAN_SUM:
        return 0 == (used & ~narrow);
    case OMPI_OP_BASE_FORTRAN_MIN:
    case OMPI_OP_BASE_FORTRAN_MAX:
        return 0 == (used & ~u64);
    default:
        return false;
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

const char *coll_rdma_op_reducer(ompi_op_t *op, ompi_datatype_t *dtype)
{
    int f, t;

    if (!coll_rdma_op_supported(op, dtype) || !op_indices(op, dtype, &f, &t) || !use_base[f][t]) {
        return "Open MPI's installed function";
    }
    return NULL != kernel[f][t] ? "coll/rdma's own kernel" : "Open MPI's base function";
}

void coll_rdma_op_reduce(ompi_op_t *op, const void *source, void *target, size_t count,
                         ompi_datatype_t *dtype)
{
    int f = op->o_f_to_c_index, t = op_type(dtype);
    size_t extent = dtype->super.size;

    if (OPAL_UNLIKELY(use_base[f][t]) && NULL != kernel[f][t]) {
        kernel[f][t](source, target, count);
        return;
    }
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
