/*
 * coll/rdma's packing (coll_rdma_dtype.c) against MPI_Pack and MPI_Unpack,
 * and the other calls the component makes into Open MPI's datatype engine
 * (issue 27).  One process: run it under `mpirun -np 1`.
 *
 * For signatures of ints and of (int, int, double) periods at every 64 KiB
 * boundary +- 8 or 16 bytes up to 1 MiB, and every layout of
 * tests/mpi/gaps_layouts.h plus a few odd ones (blocks in reverse order,
 * a lower bound that is not 0, zero-length blocks, a pair type):
 *   - coll_rdma_dtype_pack gives the bytes MPI_Pack gives, which are the
 *     signature's values in order;
 *   - coll_rdma_dtype_unpack writes what MPI_Unpack writes (every element
 *     in its place, every gap and the guard as they were);
 *   - coll_rdma_dtype_contiguous says yes only where the bytes at the true
 *     lower bound are the packed bytes (the in-place path of views());
 *   - coll_rdma_reduce_elem finds MPI_INT in every int layout, nothing in
 *     the mixed ones and in n > 1 pair types with a gap.
 * It also probes Open MPI's ompi_datatype_sndrcv on the same layouts and
 * prints, as information, how many cases lose bytes there (Open MPI 4.1.4:
 * the round that finishes the last element of a resized contiguous type).
 * Prints "test_pack OK ..." on success; exits non-zero on any mismatch.
 */
#include "ompi_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_rdma_dtype.h"
#include "../mpi/gaps_layouts.h"

static int errors, cases, sndrcv_lost;

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond) && errors++ < 20) {                                                            \
            fprintf(stderr, "FAIL ");                                                              \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
        }                                                                                          \
    } while (0)

/* The signature's values in order: what packing must give. */
static unsigned char *packed_image(const gl_sig_t *s, uint64_t tag)
{
    unsigned char *p = gl_xmalloc(gl_sig_bytes(s) + 64), *q = p;
    for (size_t j = 0; j < s->n; j++) {
        uint64_t v = gl_value(tag, 0, -1, j);
        memcpy(q, &v, gl_esize(s, j));
        q += gl_esize(s, j);
    }
    return p;
}

/* Every check on one layout (its buffer spans `span` bytes from its lower bound 0). */
static void check_layout(const char *name, MPI_Datatype dt, int count, const gl_sig_t *s,
                         const size_t *disp, size_t span)
{
    size_t bytes = gl_sig_bytes(s);
    uint64_t tag = (uint64_t)cases * 7919u + bytes;
    unsigned char *user = gl_buffer(span, 0x5a), *expect = packed_image(s, tag);
    unsigned char *mine = gl_buffer(bytes, 0x11), *theirs = gl_buffer(bytes, 0x11);
    int pos = 0;

    cases++;
    for (size_t j = 0; j < s->n; j++) {
        uint64_t v = gl_value(tag, 0, -1, j);
        memcpy(user + disp[j], &v, gl_esize(s, j));
    }
    /* pack */
    EXPECT(OMPI_SUCCESS == coll_rdma_dtype_pack(mine, bytes, user, (size_t)count, dt),
           "%s: coll_rdma_dtype_pack failed", name);
    MPI_Pack(user, count, dt, theirs, (int)bytes, &pos, MPI_COMM_SELF);
    EXPECT((size_t)pos == bytes, "%s: MPI_Pack packed %d of %zu bytes", name, pos, bytes);
    long at = gl_diff(mine, theirs, bytes + 64);
    EXPECT(at < 0, "%s: pack differs from MPI_Pack at byte %ld of %zu", name, at, bytes);
    at = gl_diff(mine, expect, bytes);
    EXPECT(at < 0, "%s: pack differs from the signature's values at byte %ld of %zu", name, at, bytes);

    /* unpack into a buffer with its own pattern: gaps and guard must stay */
    unsigned char *umine = gl_buffer(span, 0x33), *utheirs = gl_buffer(span, 0x33);
    unsigned char *uexp = gl_buffer(span, 0x33);
    size_t off = 0;
    for (size_t j = 0; j < s->n; j++) {
        memcpy(uexp + disp[j], expect + off, gl_esize(s, j));
        off += gl_esize(s, j);
    }
    EXPECT(OMPI_SUCCESS == coll_rdma_dtype_unpack(umine, (size_t)count, dt, expect, bytes),
           "%s: coll_rdma_dtype_unpack failed", name);
    pos = 0;
    MPI_Unpack(expect, (int)bytes, &pos, utheirs, count, dt, MPI_COMM_SELF);
    at = gl_diff(umine, utheirs, span + 64);
    EXPECT(at < 0, "%s: unpack differs from MPI_Unpack at byte %ld of %zu", name, at, span);
    at = gl_diff(umine, uexp, span + 64);
    EXPECT(at < 0, "%s: unpack differs from the expected image at byte %ld of %zu", name, at, span);

    /* the in-place path: contiguous means the packed bytes lie at the true lower bound */
    if (coll_rdma_dtype_contiguous(dt, (size_t)count)) {
        at = gl_diff(user + dt->super.true_lb, expect, bytes);
        EXPECT(at < 0, "%s: called contiguous, but differs from the packed bytes at byte %ld", name, at);
    }

    /* the element type of a reduction */
    size_t n = 0;
    ompi_datatype_t *elem = coll_rdma_reduce_elem(dt, bytes, &n);
    if (SIG_INT == s->sig) {
        EXPECT(elem == MPI_INT && n == s->n, "%s: reduce_elem gives %s x %zu, expected MPI_INT x %zu", name,
               elem ? elem->name : "none", n, s->n);
    } else {
        EXPECT(NULL == elem, "%s: reduce_elem finds %s in a signature of two types", name, elem->name);
    }

    /* Open MPI's own helper, for information (its defect is the issue's) */
    unsigned char *probe = gl_buffer(bytes, 0x11);
    (void) ompi_datatype_sndrcv(user, count, dt, probe, (int)bytes, MPI_BYTE);
    if (gl_diff(probe, expect, bytes) >= 0) {
        sndrcv_lost++;
    }
    free(probe);
    free(user);
    free(expect);
    free(mine);
    free(theirs);
    free(umine);
    free(utheirs);
    free(uexp);
}

/* Layouts Open MPI's contiguity flags could get wrong, on n ints. */
static void odd_layouts(size_t n)
{
    gl_sig_t s = gl_sig(SIG_INT, n * 4);
    size_t *disp = gl_xmalloc(n * sizeof(size_t));
    MPI_Datatype dt, tmp;
    char name[96];

    /* two halves, adjacent, the second first in memory: one span, out of order */
    {
        int bl[2] = {(int)(n - n / 2), (int)(n / 2)};
        MPI_Aint bd[2] = {(MPI_Aint)(4 * (n / 2)), 0};
        MPI_Type_create_hindexed(2, bl, bd, MPI_INT, &dt);
        MPI_Type_commit(&dt);
        for (size_t j = 0; j < n; j++) {
            disp[j] = j < (size_t)bl[0] ? 4 * (n / 2) + 4 * j : 4 * (j - (size_t)bl[0]);
        }
        snprintf(name, sizeof(name), "reversed halves, %zu B", n * 4);
        check_layout(name, dt, 1, &s, disp, 4 * n);
        MPI_Type_free(&dt);
    }
    /* n ints from byte 12 of a type whose lower bound is 12, resized larger */
    {
        int bl = (int)n;
        MPI_Aint d = 12;
        MPI_Datatype it = MPI_INT;
        MPI_Type_create_struct(1, &bl, &d, &it, &tmp);
        MPI_Type_create_resized(tmp, 0, (MPI_Aint)(4 * n + 20), &dt);
        MPI_Type_commit(&dt);
        MPI_Type_free(&tmp);
        for (size_t j = 0; j < n; j++) {
            disp[j] = 12 + 4 * j;
        }
        snprintf(name, sizeof(name), "count 1 from byte 12, extent + 20, %zu B", n * 4);
        check_layout(name, dt, 1, &s, disp, 4 * n + 20);
        MPI_Type_free(&dt);
    }
    /* blocks of length 0 between the data */
    {
        int bl[4] = {(int)(n / 2), 0, 0, (int)(n - n / 2)};
        int bd[4] = {0, 3, (int)n + 7, (int)(n / 2) + 1};
        MPI_Type_indexed(4, bl, bd, MPI_INT, &dt);
        MPI_Type_commit(&dt);
        for (size_t j = 0; j < n; j++) {
            disp[j] = j < n / 2 ? 4 * j : 4 * (j + 1);
        }
        snprintf(name, sizeof(name), "zero-length blocks, %zu B", n * 4);
        /* span: the extent reaches the empty block at n + 7 ints */
        check_layout(name, dt, 1, &s, disp, 4 * (n + 8));
        MPI_Type_free(&dt);
    }
    free(disp);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    for (int sig = SIG_INT; sig <= SIG_MIX; sig++) {
        size_t d = SIG_MIX == sig ? 16 : 8;
        for (size_t k = 0; k <= 16; k++) {
            for (int side = -1; side <= 1; side += 2) {
                size_t bytes = 0 == k ? (SIG_MIX == sig ? 48 : 24) : k * 65536 + (size_t)side * d;
                if (bytes > 1048576 || (0 == k && side > 0)) {
                    continue;
                }
                gl_sig_t s = gl_sig(sig, bytes);
                for (int kind = 0; kind < L_NKINDS; kind++) {
                    for (int variant = 0; variant < 2; variant++) {
                        gl_lay_t l;
                        char name[96];
                        gl_make(&l, &s, kind, variant);
                        snprintf(name, sizeof(name), "%s x %d (variant %d), %zu B %s", gl_kind_names[kind],
                                 l.count, variant, bytes, SIG_MIX == sig ? "int/double" : "int");
                        check_layout(name, l.dt, l.count, &s, l.disp, gl_bytes(&l, 1));
                        gl_free(&l);
                    }
                }
            }
        }
    }
    odd_layouts(6);
    odd_layouts(16386);
    odd_layouts(262144);
    /* n > 1 pairs of a type with a gap are not n x 12 packed bytes */
    {
        size_t n = 0;
        EXPECT(NULL == coll_rdma_reduce_elem(MPI_DOUBLE_INT, 2 * 12, &n),
               "reduce_elem takes 2 x MPI_DOUBLE_INT as contiguous");
    }
    if (errors) {
        printf("FAIL test_pack: %d errors in %d layouts\n", errors, cases);
    } else {
        printf("test_pack OK (%d layouts; for information: Open MPI's ompi_datatype_sndrcv "
               "lost bytes in %d of them)\n", cases, sndrcv_lost);
    }
    MPI_Finalize();
    return errors ? 1 : 0;
}
