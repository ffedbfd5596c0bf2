/*
 * Part of test_coll: MPI_Allreduce and MPI_Reduce (every type, op, count,
 * root, in place), the pairs Open MPI 4.1.4 itself reduces wrong
 * (int8sum, ulongminmax, fbwrong), non-exact float sums.
 */
#include "test_coll.h"

/* ------------------------------------------------------------------ allreduce */

/* The end of a reduction case: the receive buffer's guard intact and, unless
 * in place, the send buffer unchanged with its guard; the buffers freed. */
static void case_end(char *sbuf, char *orig, char *rbuf, size_t nbytes, int inplace,
                     const char *desc)
{
    check_guard(rbuf + nbytes, GUARD, "receive buffer", desc);
    if (!inplace) {
        if (memcmp(sbuf, orig, nbytes) != 0) {
            fail_msg("case [%s]: send buffer was modified", desc);
        }
        check_guard(sbuf + nbytes, GUARD, "send buffer", desc);
    }
    free(orig);
    free(sbuf);
    free(rbuf);
}

void allreduce_case(MPI_Comm comm, const ty_t *t, const op_t *o, size_t count, int inplace,
                    uint64_t tag, const char *label)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    size_t nbytes = count * (size_t)t->size;
    char *sbuf = xmalloc(nbytes + GUARD);
    char *rbuf = xmalloc(nbytes + GUARD);
    char *orig = xmalloc(nbytes + 1);
    fill_input(t, o->k, tag, rank, inplace ? rbuf : sbuf, count, size);
    memcpy(orig, inplace ? rbuf : sbuf, nbytes);
    if (!inplace) {
        memset(rbuf, 0x3c, nbytes);
    }
    set_guard(sbuf + nbytes, GUARD);
    set_guard(rbuf + nbytes, GUARD);
    MPI_CHECK(MPI_Allreduce(inplace ? MPI_IN_PLACE : sbuf, rbuf, (int)count, t->dt, o->op, comm));
    n_allreduce++;
    char desc[200];
    snprintf(desc, sizeof(desc), "%s allreduce %s %s count %zu%s", label, t->name, o->name, count,
             inplace ? " in_place" : "");
    check_reduction(t, o->k, tag, size, rbuf, count, desc);
    case_end(sbuf, orig, rbuf, nbytes, inplace, desc);
}

/* Non-exact float/double SUM of random values: all ranks must get the same
 * bits, within 1e-5 of a double reference relative to sum |x_i| (the
 * scale of rounding errors; relative to |ref| would be meaningless under
 * cancellation). */
void allreduce_float_random(MPI_Comm comm, const ty_t *t, size_t count, int inplace,
                            uint64_t tag, const char *label)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    size_t nbytes = count * (size_t)t->size;
    char *sbuf = xmalloc(nbytes + 1), *rbuf = xmalloc(nbytes + 1);
    for (size_t i = 0; i < count; i++) {
        store_elem(t, inplace ? rbuf : sbuf, i, 0, rnd_input(tag, rank, i));
    }
    MPI_CHECK(MPI_Allreduce(inplace ? MPI_IN_PLACE : sbuf, rbuf, (int)count, t->dt, MPI_SUM, comm));
    n_allreduce++;
    char desc[200];
    snprintf(desc, sizeof(desc), "%s allreduce random %s SUM count %zu%s", label, t->name, count,
             inplace ? " in_place" : "");
    char *all = xmalloc(nbytes * (size_t)size + 1);
    gather_p2p(rbuf, nbytes, all, comm);
    report_t rp = {desc, 0};
    for (int r = 1; r < size && !opt_any_order; r++) {
        if (memcmp(all + (size_t)r * nbytes, all, nbytes) != 0) {
            for (size_t i = 0; i < count; i++) {
                double a = load_flt(t, all, i), b = load_flt(t, all + (size_t)r * nbytes, i);
                if (memcmp(all + i * t->size, all + (size_t)r * nbytes + i * t->size, (size_t)t->size)) {
                    char es[96], gs[96];
                    snprintf(es, sizeof(es), "%.17g (as rank 0)", a);
                    snprintf(gs, sizeof(gs), "%.17g on rank %d (not bitwise identical)", b, r);
                    report_bad(&rp, i, es, gs);
                }
            }
        }
    }
    for (size_t i = 0; i < count; i++) {
        check_random_sum(&rp, t, rbuf, i, tag, size);
    }
    report_end(&rp);
    free(all);
    free(sbuf);
    free(rbuf);
}

void test_allreduce(MPI_Comm comm, const char *label, int iters, int light)
{
    cur_test = "allreduce";
    size_t counts[128];
    for (int it = 0; it < iters; it++) {
        for (int ti = 0; ti < n_ar_general; ti++) {
            const ty_t *t = &ar_types[ti];
            int ext = ti >= n_ar_main; /* aliases: fewer counts */
            int nc = make_counts(opt_max_bytes / (size_t)t->size, counts, light || ext);
            for (int oi = 0; oi < NOPS; oi++) {
                const op_t *o = &ops[oi];
                if (!op_valid(t, o->k)) {
                    continue;
                }
                if (light && oi % 3 != (ti + it) % 3 && o->k != O_SUM) {
                    continue;
                }
                for (int ci = 0; ci < nc; ci++) {
                    for (int ip = 0; ip < 2; ip++) {
                        if ((light || ext) && ip != (int)((ci + oi + it) % 2)) {
                            continue;
                        }
                        uint64_t tag = mktag(0xa1, (uint64_t)it, (uint64_t)ti * 16 + (uint64_t)oi,
                                             counts[ci], (uint64_t)ip);
                        allreduce_case(comm, t, o, counts[ci], ip, tag, label);
                    }
                }
            }
        }
        /* non-exact sums: bitwise identical on all ranks */
        for (int ti = 0; ti < n_ar_main; ti++) {
            const ty_t *t = &ar_types[ti];
            if (t->kind != K_FLT && t->kind != K_DBL) {
                continue;
            }
            int nc = make_counts(opt_max_bytes / (size_t)t->size, counts, light);
            for (int ci = 0; ci < nc; ci++) {
                uint64_t tag = mktag(0xf1, (uint64_t)it, (uint64_t)ti, counts[ci], 0);
                allreduce_float_random(comm, t, counts[ci], (ci + it) % 2, tag, label);
            }
        }
    }
}

/* Dedicated case: 8-bit (and 16-bit) integer SUM with values that overflow
 * (wrapping), at counts from below to well above a vector width.  Debian's
 * Open MPI 4.1.4 op/avx computes these with saturating adds (int8, uint8,
 * int16, uint16 once count reaches a vector width), so this section fails
 * with plain Open MPI unless run with --mca op ^avx; coll/rdma must get it
 * right without that. */
void test_int8sum(MPI_Comm comm, const char *label, int iters)
{
    cur_test = "int8sum";
    /* the 16-bit types have the same saturation bug in op/avx */
    const char *names[] = {"int8", "uint8", "signed_char", "unsigned_char", "int16", "uint16"};
    size_t counts[128];
    for (int it = 0; it < iters; it++) {
        for (int ni = 0; ni < 6; ni++) {
            const ty_t *t = find_ar_type(names[ni]);
            int nc = make_counts(opt_max_bytes / (size_t)t->size, counts, 0);
            for (int ci = 0; ci < nc; ci++) {
                for (int ip = 0; ip < 2; ip++) {
                    uint64_t tag = mktag(0x18, (uint64_t)it, (uint64_t)ni, counts[ci], (uint64_t)ip);
                    allreduce_case(comm, t, &ops[O_SUM], counts[ci], ip, tag, label);
                }
            }
        }
    }
}

/* Dedicated case: MIN/MAX (and SUM) on MPI_UNSIGNED_LONG with values on both
 * sides of 2^63.  Open MPI 4.1.2-4.1.4 reduce MPI_UNSIGNED_LONG with the
 * signed long functions (open-mpi/ompi#10525, fixed by #10538 in 4.1.5), with
 * or without op/avx, so this fails with plain Open MPI 4.1.4 whatever the
 * flags; a served call must still be right. */
void test_ulong(MPI_Comm comm, const char *label, int iters)
{
    cur_test = "ulongminmax";
    const ty_t *t = find_ar_type("unsigned_long");
    size_t counts[128];
    int nc = make_counts(opt_max_bytes / (size_t)t->size, counts, 0);
    static const opk_t ks[] = {O_MAX, O_MIN, O_SUM};
    for (int it = 0; it < iters; it++) {
        for (int oi = 0; oi < 3; oi++) {
            for (int ci = 0; ci < nc; ci++) {
                for (int ip = 0; ip < 2; ip++) {
                    uint64_t tag = mktag(0x01, (uint64_t)it, (uint64_t)oi, counts[ci], (uint64_t)ip);
                    allreduce_case(comm, t, &ops[ks[oi]], counts[ci], ip, tag, label);
                }
            }
        }
    }
}

/*
 * Dedicated case: the pairs whose reduction Open MPI 4.1.4 itself gets wrong
 * (op/avx saturates 8- and 16-bit SUM; MPI_UNSIGNED_LONG MIN/MAX compare as
 * signed, ompi#10525), at sizes from 1 element past every threshold of
 * coll/rdma up to --max-bytes, for allreduce and reduce (both roots at the
 * ends, in place every other call).  coll/rdma must serve them all (its
 * fallback would be wrong); every element is checked.  The 4 MiB end runs
 * for one 8-bit, one 16-bit and the unsigned long pairs, the aliases stop
 * at 1 MiB + 1 byte (beyond allreduce_max_bytes) to keep the case short.
 */
void test_fbwrong(MPI_Comm comm, const char *label)
{
    static const struct {
        const char *type;
        opk_t op;
        int full; /* up to --max-bytes, else up to 1 MiB + 1 */
    } pairs[] = {{"int8", O_SUM, 1},           {"uint8", O_SUM, 0},
                 {"signed_char", O_SUM, 0},    {"unsigned_char", O_SUM, 0},
                 {"char", O_SUM, 0},           {"int16", O_SUM, 0},
                 {"uint16", O_SUM, 1},         {"short", O_SUM, 0},
                 {"unsigned_short", O_SUM, 0}, {"unsigned_long", O_MAX, 1},
                 {"unsigned_long", O_MIN, 0}};
    /* bytes: around a vector width, the reduce slot (4 KiB), where the
     * failures began (8 KiB), the short allreduce limit (16 KiB), the ring
     * segment, allreduce_max_bytes (1 MiB), and the end */
    static const size_t bytes[] = {1,    2,     3,         63,        64,          65,
                                   255,  4095,  4096,      4097,      8192,        16385,
                                   65539, 262139, 1048577, 2097152 + 5, (size_t)-1};
    static const ty_t char_type = {MPI_CHAR, "char", 1, K_SINT};
    int size;
    MPI_Comm_size(comm, &size);
    cur_test = "fbwrong";
    for (size_t pi = 0; pi < sizeof(pairs) / sizeof(pairs[0]); pi++) {
        const ty_t *t = strcmp(pairs[pi].type, "char") ? find_ar_type(pairs[pi].type) : &char_type;
        size_t limit = pairs[pi].full ? opt_max_bytes : 1048577;
        for (size_t bi = 0; bi < sizeof(bytes) / sizeof(bytes[0]); bi++) {
            size_t b = bytes[bi] == (size_t)-1 ? opt_max_bytes : bytes[bi];
            size_t count = b / (size_t)t->size;
            if (b > limit || count == 0 || (bytes[bi] == (size_t)-1 && !pairs[pi].full)) {
                continue;
            }
            int root = (int)(bi % 2) ? size - 1 : 0, ip = (int)((bi / 2 + pi) % 2);
            uint64_t tag = mktag(0xfb, (uint64_t)pi, (uint64_t)bi, count, 0);
            allreduce_case(comm, t, &ops[pairs[pi].op], count, ip, tag, label);
            tag = mktag(0xfc, (uint64_t)pi, (uint64_t)bi, count, 0);
            reduce_case(comm, t, &ops[pairs[pi].op], count, root, ip, tag, label);
        }
    }
}

/* ------------------------------------------------------------------ reduce */

/* One MPI_Reduce to `root`: the root checks the result, every rank its send
 * buffer; non-root receive buffers must stay untouched. */
void reduce_case(MPI_Comm comm, const ty_t *t, const op_t *o, size_t count, int root,
                 int inplace, uint64_t tag, const char *label)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    size_t nbytes = count * (size_t)t->size;
    char *sbuf = xmalloc(nbytes + GUARD), *rbuf = xmalloc(nbytes + GUARD);
    char *orig = xmalloc(nbytes + 1);
    int ip = inplace && rank == root;
    fill_input(t, o->k, tag, rank, ip ? rbuf : sbuf, count, size);
    memcpy(orig, ip ? rbuf : sbuf, nbytes);
    if (!ip) {
        memset(rbuf, 0x3c, nbytes);
    }
    set_guard(sbuf + nbytes, GUARD);
    set_guard(rbuf + nbytes, GUARD);
    /* half the calls: NULL as the receive buffer of the ranks but the root
     * (MPI: significant at the root only; Open MPI 6.0's API layer passes
     * NULL there itself) */
    int null_rbuf = rank != root && (tag >> 7) & 1;
    MPI_CHECK(MPI_Reduce(ip ? MPI_IN_PLACE : sbuf, null_rbuf ? NULL : rbuf, (int)count, t->dt,
                         o->op, root, comm));
    n_other++;
    char desc[200];
    snprintf(desc, sizeof(desc), "%s reduce %s %s count %zu root %d%s%s", label, t->name, o->name,
             count, root, inplace ? " in_place" : "", null_rbuf ? " (NULL rbuf)" : "");
    if (rank == root) {
        check_reduction(t, o->k, tag, size, rbuf, count, desc);
    } else {
        for (size_t j = 0; j < nbytes; j++) {
            if ((unsigned char)rbuf[j] != 0x3c) {
                fail_msg("case [%s]: receive buffer of a non-root rank was written", desc);
            }
        }
    }
    case_end(sbuf, orig, rbuf, nbytes, ip, desc);
}

/* Non-exact float/double SUM: the root gets the same bits from the same
 * inputs twice (a fixed combine order), within rounding of a reference. */
static void reduce_float_repeat(MPI_Comm comm, const ty_t *t, size_t count, int root, uint64_t tag,
                                const char *label)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    size_t nbytes = count * (size_t)t->size;
    char *sbuf = xmalloc(nbytes + 1), *r1 = xmalloc(nbytes + 1), *r2 = xmalloc(nbytes + 1);
    for (size_t i = 0; i < count; i++) {
        store_elem(t, sbuf, i, 0, rnd_input(tag, rank, i));
    }
    MPI_CHECK(MPI_Reduce(sbuf, r1, (int)count, t->dt, MPI_SUM, root, comm));
    MPI_CHECK(MPI_Reduce(sbuf, r2, (int)count, t->dt, MPI_SUM, root, comm));
    n_other += 2;
    char desc[200];
    snprintf(desc, sizeof(desc), "%s reduce random %s SUM count %zu root %d", label, t->name, count,
             root);
    if (rank == root) {
        report_t rp = {desc, 0};
        for (size_t i = 0; i < count; i++) {
            if (memcmp(r1 + i * t->size, r2 + i * t->size, (size_t)t->size) != 0) {
                char es[96], gs[96];
                snprintf(es, sizeof(es), "%.17g (first call)", load_flt(t, r1, i));
                snprintf(gs, sizeof(gs), "%.17g (second call, same inputs)", load_flt(t, r2, i));
                report_bad(&rp, i, es, gs);
            }
            check_random_sum(&rp, t, r1, i, tag, size);
        }
        report_end(&rp);
    }
    free(sbuf);
    free(r1);
    free(r2);
}

/* Every root; the general types and ops (thinned out by root), counts up to
 * --max-bytes, in place at the root on alternate cases. */
void test_reduce(MPI_Comm comm, const char *label, int iters, int light)
{
    int size;
    MPI_Comm_size(comm, &size);
    cur_test = "reduce";
    size_t counts[128];
    for (int it = 0; it < iters; it++) {
        for (int root = 0; root < size; root++) {
            for (int ti = 0; ti < n_ar_general; ti++) {
                const ty_t *t = &ar_types[ti];
                if ((ti + root + it) % (light ? 6 : 3) != 0 && ti != root % n_ar_main) {
                    continue;
                }
                int nc = make_counts(opt_max_bytes / (size_t)t->size, counts, 1);
                for (int oi = 0; oi < NOPS; oi++) {
                    const op_t *o = &ops[oi];
                    if (!op_valid(t, o->k) || (oi + root) % 2 != 0) {
                        continue;
                    }
                    for (int ci = 0; ci < nc; ci++) {
                        if ((ci + oi) % 3 != 0 && ci != nc - 1) {
                            continue;
                        }
                        uint64_t tag = mktag(0x7ed, (uint64_t)it,
                                             (uint64_t)root * 64 + (uint64_t)ti, (uint64_t)oi,
                                             counts[ci]);
                        reduce_case(comm, t, o, counts[ci], root, (int)((ci + oi + it) % 2), tag,
                                    label);
                    }
                }
            }
            for (int ti = 0; ti < n_ar_main; ti++) {
                const ty_t *t = &ar_types[ti];
                if (t->kind == K_FLT || t->kind == K_DBL) {
                    size_t count = 1 + (size_t)(root * 37 + ti) % (opt_max_bytes / (size_t)t->size);
                    uint64_t tag = mktag(0x7ee, (uint64_t)it, (uint64_t)root, (uint64_t)ti, 0);
                    reduce_float_repeat(comm, t, count, root, tag, label);
                }
            }
        }
    }
}
