/*
 * What a communicator costs (issue 36): many communicators alive at once
 * against coll_rdma_window_budget_bytes, and the shared-memory directory's
 * use.  Each round dups --comms communicators of MPI_COMM_WORLD and keeps
 * them, makes --calls checked allreduces on each (more than the warm-up, so
 * that each crosses its window's set-up), then frees them all; the next
 * round does it again.  Which communicators coll/rdma served is read through
 * its MPI_T variable allreduce_served_calls (bench/bench_mpit.c).
 *
 * Checks (rank 0 prints one line per round: how many were served):
 *   - every result right;
 *   - the communicators served form a prefix of each round's (windows of one
 *     size: once one does not fit the budget, none after it does);
 *   - --expect-min K / --expect-max K: bounds on how many were served;
 *   - every round serves as many as the first (the memory of freed
 *     communicators comes back);
 *   - --shm-max PCT: what the communicators of a round take of the
 *     shared-memory directory (UCX_POSIX_DIR, /dev/shm; statvfs) at most PCT %
 *     of its size: its use with every communicator of the round alive less
 *     its use after MPI_Init and a message to and from each neighbour on
 *     MPI_COMM_WORLD (Open MPI's own segments: btl/vader's, UCX's for the
 *     PML);
 *   - --shm-total-max PCT: the directory at most PCT % full then, all
 *     included.
 * A directory that cannot be read (or says no size) fails either check; an
 * unknown option fails the test.  Prints "test_budget OK".
 *
 *     mpicc -O2 -I bench tests/robust/test_budget.c bench/bench_mpit.c -o test_budget
 *     mpirun -np 2 --mca coll_rdma_window_budget_bytes 8000000 ./test_budget --comms 6
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "bench_mpit.h"

static int rank, size;

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "rank %d: FAIL ", rank);                                                   \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fprintf(stderr, "\n");                                                                     \
        MPI_Abort(MPI_COMM_WORLD, 1);                                                              \
    } while (0)

/* Percent of the shared-memory directory in use now; -1 where it cannot be
 * read or says no size. */
static double shm_used_pct(void)
{
    const char *dir = getenv("UCX_POSIX_DIR");
    struct statvfs st;

    if (0 != statvfs(NULL != dir && '\0' != dir[0] ? dir : "/dev/shm", &st) || 0 == st.f_blocks) {
        return -1;
    }
    return 100.0 * (double) (st.f_blocks - st.f_bfree) / (double) st.f_blocks;
}

static void usage(const char *arg)
{
    fprintf(stderr, "test_budget: unknown option, or a missing or malformed value: %s\n"
                    "options: --comms N --calls N --rounds N --expect-min K --expect-max K "
                    "--shm-max PCT --shm-total-max PCT\n", arg);
    exit(2);
}

/* The value of option `opt`, a number to its end, else usage(). */
static double num(const char *opt, const char *v)
{
    char *end;
    double x = strtod(v, &end);

    if (end == v || '\0' != *end) {
        usage(opt);
    }
    return x;
}

int main(int argc, char **argv)
{
    int ncomms = 8, calls = 24, rounds = 2, expect_min = 0, expect_max = -1, first = -1;
    double shm_max = 0, shm_total_max = 0, shm_peak = 0, shm_base, one = 1, sum = 0;

    for (int i = 1; i < argc; i += 2) {
        if (i + 1 == argc) {
            usage(argv[i]);
        }
        if (0 == strcmp(argv[i], "--comms")) {
            ncomms = (int) num(argv[i], argv[i + 1]);
        } else if (0 == strcmp(argv[i], "--calls")) {
            calls = (int) num(argv[i], argv[i + 1]);
        } else if (0 == strcmp(argv[i], "--rounds")) {
            rounds = (int) num(argv[i], argv[i + 1]);
        } else if (0 == strcmp(argv[i], "--expect-min")) {
            expect_min = (int) num(argv[i], argv[i + 1]);
        } else if (0 == strcmp(argv[i], "--expect-max")) {
            expect_max = (int) num(argv[i], argv[i + 1]);
        } else if (0 == strcmp(argv[i], "--shm-max")) {
            shm_max = num(argv[i], argv[i + 1]);
        } else if (0 == strcmp(argv[i], "--shm-total-max")) {
            shm_total_max = num(argv[i], argv[i + 1]);
        } else {
            usage(argv[i]);
        }
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (0 != mpit_served_open("allreduce")) {
        FAIL("no MPI_T variable allreduce_served_calls: coll/rdma not loaded");
    }
    /* Open MPI's own segments in place (point-to-point to both neighbours: a
     * collective would count toward MPI_COMM_WORLD's warm-up, or with
     * window_setup_calls 0 give it a window), then the baseline */
    MPI_Sendrecv(&one, 1, MPI_DOUBLE, (rank + 1) % size, 0, &sum, 1, MPI_DOUBLE,
                 (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&one, 1, MPI_DOUBLE, (rank + size - 1) % size, 1, &sum, 1, MPI_DOUBLE,
                 (rank + 1) % size, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    shm_base = shm_used_pct();
    if ((shm_max > 0 || shm_total_max > 0) && shm_base < 0) {
        FAIL("the shared-memory directory cannot be read or says no size: no --shm-max check");
    }
    MPI_Comm *comms = malloc((size_t) ncomms * sizeof(MPI_Comm));
    for (int r = 0; r < rounds; r++) {
        int served = 0, gap = 0;
        double pct;
        for (int c = 0; c < ncomms; c++) {
            long long before = mpit_served();
            MPI_Comm_dup(MPI_COMM_WORLD, &comms[c]);
            for (int k = 0; k < calls; k++) {
                double x = rank + k + c, y = -1;
                MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, comms[c]);
                if (y != (double) size * (size - 1) / 2 + (double) size * (k + c)) {
                    FAIL("round %d communicator %d call %d: %g", r, c, k, y);
                }
            }
            if (mpit_served() > before) { /* this rank's view: every rank's alike */
                if (gap) {
                    FAIL("round %d: communicator %d served after one that was not", r, c);
                }
                served++;
            } else {
                gap = 1;
            }
        }
        pct = shm_used_pct();
        shm_peak = pct > shm_peak ? pct : shm_peak;
        for (int c = 0; c < ncomms; c++) {
            MPI_Comm_free(&comms[c]);
        }
        if (0 == rank) {
            printf("round %d: %d of %d communicators served; shared memory %.1f %% in use, "
                   "%.1f %% after MPI_Init\n", r, served, ncomms, pct, shm_base);
        }
        if (served < expect_min || (expect_max >= 0 && served > expect_max)) {
            FAIL("round %d: %d served, expected %d to %d", r, served, expect_min, expect_max);
        }
        if (first >= 0 && served != first) {
            FAIL("round %d served %d, the first %d: freed windows did not come back", r, served,
                 first);
        }
        first = served;
    }
    if (shm_max > 0 && shm_peak - shm_base > shm_max) {
        FAIL("the communicators took %.1f %% of the shared memory (%.1f %% in use, %.1f %% after "
             "MPI_Init), more than %.1f %%", shm_peak - shm_base, shm_peak, shm_base, shm_max);
    }
    if (shm_total_max > 0 && shm_peak > shm_total_max) {
        FAIL("shared memory %.1f %% in use, more than %.1f %%", shm_peak, shm_total_max);
    }
    mpit_served_close();
    free(comms);
    MPI_Barrier(MPI_COMM_WORLD);
    if (0 == rank) {
        printf("test_budget OK\n");
    }
    MPI_Finalize();
    return 0;
}
