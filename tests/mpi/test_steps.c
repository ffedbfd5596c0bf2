/*
 * When coll/rdma starts UCX: not in MPI_Init, and in steps at a
 * communicator's last warm-up calls (docs/design.md, "Starting UCX").  With
 * coll_rdma_window_setup_calls = S, the calls S-4 to S of the first
 * communicator load libucs, then libucp, then create the context, the
 * worker, and run the op self-test; call S+1 sets the window up.  Checked
 * here through /proc/self/maps: libucs is not mapped before call S-4 and is
 * after it; libucp is mapped after call S-3 and not before (where nothing
 * else in the process loaded UCX during MPI_Init: then the order cannot be
 * seen and only the results are checked, unless --strict says that nothing
 * else does).  Every allreduce result is checked.  Prints "test_steps OK"
 * on rank 0.
 *
 * Usage: test_steps S [--expect [--strict]]
 *          --expect: coll/rdma is loaded, so the libraries must appear on time
 *          --strict: nothing else loads UCX in MPI_Init (see --probe), so
 *                    UCX mapped at the end of MPI_Init is an error
 *        test_steps 0 --probe   prints "ucx-at-init 0|1" (run it without coll/rdma)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int mapped(const char *library)
{
    char line[4096];
    int found = 0;
    FILE *maps = fopen("/proc/self/maps", "r");

    if (NULL == maps) {
        return -1;
    }
    while (!found && NULL != fgets(line, sizeof(line), maps)) {
        found = NULL != strstr(line, library);
    }
    fclose(maps);
    return found;
}

int main(int argc, char **argv)
{
    int rank, size, errors = 0, total = 0, setup = argc > 1 ? atoi(argv[1]) : 16;
    int expect = argc > 2 && 0 == strcmp(argv[2], "--expect");
    int strict = expect && argc > 3 && 0 == strcmp(argv[3], "--strict");
    int probe = argc > 2 && 0 == strcmp(argv[2], "--probe");
    int ucs_at_init, ucp_at_init;
    MPI_Comm comm;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ucs_at_init = mapped("/libucs.so");
    ucp_at_init = mapped("/libucp.so");
    if (probe) {
        if (0 == rank) {
            printf("ucx-at-init %d\n", ucs_at_init || ucp_at_init);
        }
        MPI_Finalize();
        return 0;
    }
    if (strict && (ucs_at_init || ucp_at_init)) {
        fprintf(stderr, "FAIL rank %d: UCX mapped at the end of MPI_Init (libucs %d, libucp %d)\n",
                rank, ucs_at_init, ucp_at_init);
        ++errors;
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    for (int call = 1; call <= setup + 20; ++call) {
        long in = rank + call, out = -1, want = (long) size * (size - 1) / 2 + (long) size * call;
        int ucs, ucp;

        MPI_Allreduce(&in, &out, 1, MPI_LONG, MPI_SUM, comm);
        if (out != want) {
            fprintf(stderr, "FAIL rank %d call %d: allreduce %ld, expected %ld\n", rank, call, out,
                    want);
            ++errors;
        }
        if (!expect || ucs_at_init || ucp_at_init || size < 2 || setup < 5) {
            continue;
        }
        ucs = mapped("/libucs.so");
        ucp = mapped("/libucp.so");
        if (ucs != (call >= setup - 4) || ucp != (call >= setup - 3)) {
            fprintf(stderr,
                    "FAIL rank %d after call %d (window_setup_calls %d): libucs %s, libucp %s "
                    "mapped; expected libucs from call %d on, libucp from call %d on\n",
                    rank, call, setup, ucs ? "is" : "not", ucp ? "is" : "not", setup - 4,
                    setup - 3);
            ++errors;
        }
    }
    if (expect && 0 == rank && (ucs_at_init || ucp_at_init)) {
        printf("note: UCX was loaded during MPI_Init by something else (libucs %d, libucp %d): "
               "the order of the steps is not checked\n", ucs_at_init, ucp_at_init);
    }
    MPI_Comm_free(&comm);
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (0 == rank) {
        printf("test_steps %s: np=%d window_setup_calls=%d errors=%d\n", total ? "FAILED" : "OK",
               size, setup, total);
    }
    MPI_Finalize();
    return total ? 1 : 0;
}
