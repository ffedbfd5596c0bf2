/*
 * MPI correctness tests for coll/rdma (MPI_Barrier, MPI_Bcast, MPI_Allreduce,
 * MPI_Allgather, MPI_Alltoall, MPI_Reduce).
 *
 * Every rank's input is a deterministic function of (seed, case tag, rank,
 * index), so every rank computes the expected result on its own and checks
 * what it received.  The first mismatch prints
 *
 *     FAIL rank R test T case [...] index I expected E got G   (first few)
 *
 * and the job ends with MPI_Abort (exit status != 0).  On success rank 0
 * prints one line "test_coll OK: ...".
 *
 * Nothing here depends on the component: with plain Open MPI every section
 * must pass too (except int8 SUM with Debian's op/avx bug, see --only int8sum
 * and run_mpi_tests.sh).  Data used only to check results (timestamps,
 * results of other ranks) travels by point-to-point messages (gather_p2p)
 * or MPI_Gather, which coll/rdma does not serve.
 *
 * Usage: test_coll [--only LIST] [--iters N] [--max-bytes B] [--seed S]
 *                  [--stress-calls N] [--dup-cycles N] [--light] [--any-order]
 *                  [--sweep-min P] [--ring-seg B] [--layout-derived-reduce B]
 *   LIST: comma separated from barrier, bcast, allreduce, allgather,
 *         alltoall, reduce, mix, comm, stress, fallback, int8sum, ulongminmax,
 *         sweep, large, fbwrong, all (default all = everything but
 *         ulongminmax and fbwrong, which plain Open MPI 4.1.4 always fails,
 *         sweep and large).  allgather and
 *         alltoall use blocks up to --max-bytes; mix: thousands of
 *         back-to-back allgather, alltoall, reduce (and barrier) calls with
 *         random delays on world, a dup and a split.
 *   --light: fewer types/ops/counts in the world bcast and allreduce
 *         sections (what the comm section always uses), for radix sweeps.
 *   --any-order: the allreduce under test combines in rank-dependent orders
 *         (nway, bruck forced): non-exact float sums are checked against the
 *         reference only, not for identical bits on every rank.
 *   sweep: the allreduce on sub-communicators of every size --sweep-min
 *         (default 2) .. np, made by MPI_Comm_split.
 *   large: allreduces up to --max-bytes at counts around the block and
 *         segment boundaries of a ring with --ring-seg B bytes per segment
 *         (default 32768).
 *   layout, layout-bcast, layout-allgather, layout-alltoall,
 *         layout-allreduce, layout-reduce: ranks describe the same data with
 *         different datatypes (test_layout.c, which says what
 *         --layout-derived-reduce does).
 *   bcast-small: bcasts of at most 56 bytes (the read bcast's small ring)
 *         and just past it at every root and size, then --stress-calls of
 *         them back to back with random delays on world, a dup and a split;
 *         not in "all".
 *   fbwrong: allreduce and reduce of the (op, type) pairs that Debian's Open
 *         MPI 4.1.4 itself reduces wrong (SUM on 8- and 16-bit integers with
 *         op/avx, MIN/MAX on MPI_UNSIGNED_LONG), from 1 element to
 *         --max-bytes; not in "all" (plain Open MPI fails it).
 *
 * This file: main and the options; the sections and helpers live in the
 * files test_coll.h lists (tests/mpi/run_mpi_tests.sh compiles them all).
 */
#include "test_coll.h"

/* ------------------------------------------------------------------ main */

static void usage(void)
{
    if (world_rank == 0) {
        fprintf(stderr,
                "usage: test_coll [--only barrier,bcast,allreduce,allgather,alltoall,reduce,mix,\n"
                "                         comm,stress,fallback,int8sum,ulongminmax,sweep,large,\n"
                "                         fbwrong,bcast-small,all]\n"
                "                 [--iters N] [--max-bytes B] [--seed S] [--stress-calls N]\n"
                "                 [--dup-cycles N] [--light] [--any-order] [--sweep-min P]\n"
                "                 [--ring-seg B] [--layout-derived-reduce B]\n"
                "       layout sections: layout (all of:) layout-bcast, layout-allgather,\n"
                "                        layout-alltoall, layout-allreduce, layout-reduce\n");
    }
}

static int parse_sections(const char *s)
{
    int m = 0;
    char *dup = strdup(s), *save = NULL;
    for (char *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (!strcmp(tok, "barrier")) m |= S_BARRIER;
        else if (!strcmp(tok, "bcast")) m |= S_BCAST;
        else if (!strcmp(tok, "allreduce")) m |= S_ALLREDUCE;
        else if (!strcmp(tok, "comm")) m |= S_COMM;
        else if (!strcmp(tok, "stress")) m |= S_STRESS;
        else if (!strcmp(tok, "fallback")) m |= S_FALLBACK;
        else if (!strcmp(tok, "int8sum")) m |= S_INT8SUM;
        else if (!strcmp(tok, "allgather")) m |= S_ALLGATHER;
        else if (!strcmp(tok, "alltoall")) m |= S_ALLTOALL;
        else if (!strcmp(tok, "reduce")) m |= S_REDUCE;
        else if (!strcmp(tok, "mix")) m |= S_MIX;
        else if (!strcmp(tok, "ulongminmax")) m |= S_ULONG;
        else if (!strcmp(tok, "sweep")) m |= S_SWEEP;
        else if (!strcmp(tok, "large")) m |= S_LARGE;
        else if (!strcmp(tok, "layout")) m |= S_LAYOUT;
        else if (!strcmp(tok, "layout-bcast")) m |= S_LAYOUT_BCAST;
        else if (!strcmp(tok, "layout-allgather")) m |= S_LAYOUT_ALLGATHER;
        else if (!strcmp(tok, "layout-alltoall")) m |= S_LAYOUT_ALLTOALL;
        else if (!strcmp(tok, "layout-allreduce")) m |= S_LAYOUT_ALLREDUCE;
        else if (!strcmp(tok, "layout-reduce")) m |= S_LAYOUT_REDUCE;
        else if (!strcmp(tok, "fbwrong")) m |= S_FBWRONG;
        else if (!strcmp(tok, "bcast-small")) m |= S_BSMALL;
        else if (!strcmp(tok, "all")) m |= S_ALL;
        else {
            free(dup);
            return -1;
        }
    }
    free(dup);
    return m;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    setvbuf(stdout, NULL, _IOLBF, 0);

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;
        if (!strcmp(a, "--only") && v) {
            opt_sections = parse_sections(v);
            bad = opt_sections <= 0;
            i++;
        } else if (!strcmp(a, "--iters") && v) {
            opt_iters = atoi(v);
            bad = opt_iters < 1;
            i++;
        } else if (!strcmp(a, "--max-bytes") && v) {
            opt_max_bytes = (size_t)strtoull(v, NULL, 0);
            bad = opt_max_bytes < 8 || opt_max_bytes > (1u << 26);
            i++;
        } else if (!strcmp(a, "--seed") && v) {
            opt_seed = strtoull(v, NULL, 0);
            i++;
        } else if (!strcmp(a, "--stress-calls") && v) {
            opt_stress_calls = atol(v);
            bad = opt_stress_calls < 0;
            i++;
        } else if (!strcmp(a, "--light")) {
            opt_light = 1;
        } else if (!strcmp(a, "--ring-seg") && v) {
            opt_ring_seg = (size_t)strtoull(v, NULL, 0);
            bad = opt_ring_seg < 1;
            i++;
        } else if (!strcmp(a, "--layout-derived-reduce") && v) {
            opt_layout_derived_reduce = (size_t)strtoull(v, NULL, 0);
            i++;
        } else if (!strcmp(a, "--any-order")) {
            opt_any_order = 1;
        } else if (!strcmp(a, "--sweep-min") && v) {
            opt_sweep_min = atoi(v);
            bad = opt_sweep_min < 1;
            i++;
        } else if (!strcmp(a, "--dup-cycles") && v) {
            opt_dup_cycles = atol(v);
            bad = opt_dup_cycles < 0;
            i++;
        } else {
            bad = 1;
        }
        if (bad) {
            usage();
            MPI_Finalize();
            return 2;
        }
    }
    init_types();
    init_ops();

    double t0 = (double)now_ns();
    enum { NSEC = 17 };
    struct { int bit; const char *name; double secs; } sec[NSEC] = {
        {S_BARRIER, "barrier", 0}, {S_BCAST, "bcast", 0},       {S_ALLREDUCE, "allreduce", 0},
        {S_INT8SUM, "int8sum", 0}, {S_ULONG, "ulongminmax", 0}, {S_FALLBACK, "fallback", 0},
        {S_ALLGATHER, "allgather", 0}, {S_ALLTOALL, "alltoall", 0}, {S_REDUCE, "reduce", 0},
        {S_MIX, "mix", 0},         {S_COMM, "comm", 0},         {S_STRESS, "stress", 0},
        {S_SWEEP, "sweep", 0},     {S_LARGE, "large", 0},       {S_LAYOUT, "layout", 0},
        {S_FBWRONG, "fbwrong", 0}, {S_BSMALL, "bcast-small", 0}};
    for (int s = 0; s < NSEC; s++) {
        if (!(opt_sections & sec[s].bit)) {
            continue;
        }
        double ts = (double)now_ns();
        switch (sec[s].bit) {
        case S_BARRIER:
            test_barrier(MPI_COMM_WORLD, "world", opt_iters, 1000);
            break;
        case S_BCAST:
            test_bcast(MPI_COMM_WORLD, "world", opt_iters, opt_light);
            break;
        case S_ALLREDUCE:
            test_allreduce(MPI_COMM_WORLD, "world", opt_iters, opt_light);
            break;
        case S_INT8SUM:
            test_int8sum(MPI_COMM_WORLD, "world", opt_iters);
            break;
        case S_ULONG:
            test_ulong(MPI_COMM_WORLD, "world", opt_iters);
            break;
        case S_FALLBACK:
            test_fallback(MPI_COMM_WORLD, "world", opt_iters);
            test_inter_self();
            break;
        case S_ALLGATHER:
            test_blocks(MPI_COMM_WORLD, 0, "world", opt_iters, opt_light);
            break;
        case S_ALLTOALL:
            test_blocks(MPI_COMM_WORLD, 1, "world", opt_iters, opt_light);
            break;
        case S_REDUCE:
            test_reduce(MPI_COMM_WORLD, "world", opt_iters, opt_light);
            break;
        case S_MIX:
            test_mix();
            break;
        case S_COMM:
            test_comm(opt_iters);
            break;
        case S_STRESS:
            test_stress();
            break;
        case S_SWEEP:
            test_sweep();
            break;
        case S_LARGE:
            test_large(MPI_COMM_WORLD, "world");
            break;
        case S_LAYOUT:
            test_layout(opt_sections);
            break;
        case S_FBWRONG:
            test_fbwrong(MPI_COMM_WORLD, "world");
            break;
        case S_BSMALL:
            test_bcast_small();
            break;
        }
        sec[s].secs = ((double)now_ns() - ts) / 1e9;
        /* everyone finished the section before the next one starts */
        MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    }
    /* totals over all ranks, for the summary line */
    uint64_t mine[5] = {n_checks, n_barrier, n_bcast, n_allreduce, n_other}, tot[5];
    MPI_CHECK(MPI_Reduce(mine, tot, 5, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD));
    if (world_rank == 0) {
        char secs[512] = "";
        size_t l = 0;
        for (int s = 0; s < NSEC; s++) {
            if (opt_sections & sec[s].bit) {
                l += (size_t)snprintf(secs + l, sizeof(secs) - l, "%s%s=%.2fs", l ? "," : "",
                                      sec[s].name, sec[s].secs);
            }
        }
        printf("test_coll OK: np=%d sections=%s max_bytes=%zu iters=%d checks=%" PRIu64
               " calls(barrier=%" PRIu64 " bcast=%" PRIu64 " allreduce=%" PRIu64
               " allgather+alltoall+reduce=%" PRIu64 ") rank0 time=%.2fs\n",
               world_size, secs, opt_max_bytes, opt_iters, tot[0], tot[1], tot[2], tot[3], tot[4],
               ((double)now_ns() - t0) / 1e9);
    }
    MPI_Finalize();
    return 0;
}
