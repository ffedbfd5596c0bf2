/*
 * Part of test_robust: the section churn (communicator dup/free cycles and
 * many communicators alive at once; /dev/shm mappings, open files and
 * resident memory must return to their level).
 */
#include "test_robust.h"

/* ------------------------------------------------------------------ churn */

typedef struct {
    long shm_maps;      /* mappings of /dev/shm files (deleted or not) */
    long shm_kib;       /* their size */
    long fds;           /* open file descriptors */
    long rss_kib;       /* resident set */
} usage_t;

static usage_t usage_now(void)
{
    usage_t u = {0, 0, 0, 0};
    char line[1024];
    FILE *f = fopen("/proc/self/maps", "r");
    DIR *d;
    struct dirent *e;

    while (f && fgets(line, sizeof(line), f)) {
        unsigned long lo, hi;
        if (strstr(line, "/dev/shm/") && 2 == sscanf(line, "%lx-%lx", &lo, &hi)) {
            ++u.shm_maps;
            u.shm_kib += (long) ((hi - lo) / 1024);
        }
    }
    if (f) {
        fclose(f);
    }
    f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof(line), f)) {
        sscanf(line, "VmRSS: %ld", &u.rss_kib);
    }
    if (f) {
        fclose(f);
    }
    if (NULL != (d = opendir("/proc/self/fd"))) {
        while (NULL != (e = readdir(d))) {
            u.fds += e->d_name[0] != '.';
        }
        closedir(d);
    }
    return u;
}

static void usage_print(const char *when, usage_t u)
{
    printf("rank %d %s: shm_maps=%ld shm_kib=%ld fds=%ld rss_kib=%ld\n", wrank, when, u.shm_maps,
           u.shm_kib, u.fds, u.rss_kib);
}

/* One checked collective on comm, chosen by i. */
static void churn_call(MPI_Comm comm, long i)
{
    int size, rank;
    int64_t v[4], want[4];

    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    switch (i % 3) {
    case 0:
        CHECK_MPI(MPI_Barrier(comm));
        break;
    case 1:
        for (int k = 0; k < 4; ++k) {
            want[k] = (int64_t) val((uint64_t) i, (int) (i % size), k);
            v[k] = rank == (int) (i % size) ? want[k] : 0;
        }
        CHECK_MPI(MPI_Bcast(v, 4, MPI_INT64_T, (int) (i % size), comm));
        expect_i64("churn bcast", v, want, 4);
        break;
    default:
        for (int k = 0; k < 4; ++k) {
            v[k] = (int64_t) (rank + 1) * (i + k);
            want[k] = (int64_t) size * (size + 1) / 2 * (i + k);
        }
        CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_INT64_T, MPI_SUM, comm));
        expect_i64("churn allreduce", v, want, 4);
        break;
    }
}

static void usage_bound(const char *what, usage_t base, usage_t now, long rss_slack_kib)
{
    /* a window or a peer's mapping left behind shows as a /dev/shm map; a
     * few maps of slack for the transport's own FIFOs set up lazily */
    if (now.shm_maps > base.shm_maps + 4 || now.fds > base.fds + 8
        || now.rss_kib > base.rss_kib + rss_slack_kib) {
        usage_print("base", base);
        usage_print(what, now);
        fail("%s: resources not returned (bounds: shm_maps +4, fds +8, rss +%ld KiB)", what,
             rss_slack_kib);
    }
}

void run_churn(void)
{
    long warm = opt_cycles / 10 > 100 ? opt_cycles / 10 : (opt_cycles < 100 ? 0 : 100);
    MPI_Comm *alive = xmalloc(sizeof(MPI_Comm) * (size_t) (opt_alive > 0 ? opt_alive : 1));
    usage_t base, u;
    double t0 = now_s();

    cur = "churn-dup-free";
    {
        /* the transport's one-time set-up happens here, before the baseline */
        MPI_Comm d;
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
        churn_call(d, 0);
        CHECK_MPI(MPI_Comm_free(&d));
        base = usage_now();
    }
    for (long i = 0; i < opt_cycles; ++i) {
        MPI_Comm d;
        if (i == warm) {
            base = usage_now();
        }
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
        churn_call(d, i);
        CHECK_MPI(MPI_Comm_free(&d));
        if (0 == wrank && i > 0 && 0 == i % 2000) {
            /* progress, so that a timeout shows how far it got */
            printf("churn: %ld cycles after %.1f s\n", i, now_s() - t0);
        }
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    u = usage_now();
    usage_print("after-cycles", u);
    /* 9000 cycles: 16 MiB is < 2 KiB a cycle, far below one window (>100 KiB) */
    usage_bound("after dup/free cycles", base, u, 16 * 1024);

    cur = "churn-alive";
    for (long i = 0; i < opt_alive; ++i) {
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &alive[i]));
        churn_call(alive[i], i);
    }
    u = usage_now();
    usage_print("alive", u);
    /* every communicator still works after all are set up */
    for (long i = 0; i < opt_alive; ++i) {
        churn_call(alive[i], i + 1);
        churn_call(alive[i], i + 2);
    }
    for (long i = 0; i < opt_alive; ++i) {
        CHECK_MPI(MPI_Comm_free(&alive[i]));
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    u = usage_now();
    usage_print("after-free", u);
    usage_bound("after freeing the live communicators", base, u, 32 * 1024);
    if (0 == wrank) {
        printf("churn: cycles=%ld alive=%ld seconds=%.1f\n", opt_cycles, opt_alive, now_s() - t0);
    }
    free(alive);
}

/*
 * Section persistent-free: what Open MPI does without coll/rdma.  Each cycle
 * duplicates MPI_COMM_WORLD, makes a persistent allgather on the duplicate,
 * starts it once, checks it, frees the request and the communicator.  Run
 * under valgrind with `--mca coll ^rdma` by run_robust_tests.sh: Open MPI
 * 4.1's coll/libnbc frees a persistent request without releasing its
 * schedule, which valgrind reports as lost once the communicator is gone;
 * the proof behind tests/robust/libnbc-persistent.supp.
 */
void run_persistent_free(void)
{
    cur = "persistent-free";
    for (long i = 0; i < opt_cycles; ++i) {
        MPI_Comm d;
        MPI_Request r;
        int64_t mine = (int64_t) (wrank + 1) * (i + 1), *all = xmalloc(sizeof(int64_t) * wsize);

        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
        CHECK_MPI(MPI_Allgather_init(&mine, 1, MPI_INT64_T, all, 1, MPI_INT64_T, d, MPI_INFO_NULL,
                                     &r));
        CHECK_MPI(MPI_Start(&r));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        for (int k = 0; k < wsize; ++k) {
            int64_t want = (int64_t) (k + 1) * (i + 1);
            expect_i64("persistent allgather", &all[k], &want, 1);
        }
        CHECK_MPI(MPI_Request_free(&r));
        CHECK_MPI(MPI_Comm_free(&d));
        free(all);
    }
}

/*
 * Section fdpool: a window taken from the pool where file descriptors run
 * out (review 2026-11-28 of c6875f9).  A first communicator's window is set
 * up and freed, so the pool keeps it; then rank 1 opens /dev/null until it
 * has all but opt_leave descriptors of its RLIMIT_NOFILE taken (with
 * opt_late, only after its set-up call on the second communicator, a
 * nonblocking one, while rank 0 holds back its own), and the second
 * communicator makes 20 checked allreduces, served or handed on.  UCX must
 * not be driven into its failing open of a peer's window (its error path
 * crashes or unmaps a stale address: run_robust_tests.sh checks that no
 * UCX error is printed).
 */
static int fill_fds(int *fds, int max, long leave)
{
    int n = 0;

    while (n < max && (fds[n] = open("/dev/null", O_RDONLY)) >= 0) {
        ++n;
    }
    for (long k = 0; k < leave && n > 0; ++k) {
        close(fds[--n]);
    }
    return n;
}

void run_fdpool(void)
{
    enum { MAX_FDS = 4096 };
    int *fds = xmalloc(sizeof(int) * MAX_FDS), nfds = 0;
    int64_t v[4], want[4];
    MPI_Request req;
    MPI_Comm d;

    cur = "fdpool-first";
    /* MPI_COMM_WORLD's window first (so it takes none from the pool later) */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    for (long i = 0; i < 20; ++i) {
        churn_call(d, 2 + 3 * i); /* allreduces */
    }
    CHECK_MPI(MPI_Comm_free(&d));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    cur = "fdpool-second";
    if (1 == wrank && !opt_late) {
        nfds = fill_fds(fds, MAX_FDS, opt_leave);
    }
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    if (0 == wrank && opt_late) {
        usleep(200000); /* rank 1's records wait for rank 0's: it fills first */
    }
    for (int k = 0; k < 4; ++k) {
        v[k] = (int64_t) (wrank + 1) * (k + 1);
        want[k] = (int64_t) wsize * (wsize + 1) / 2 * (k + 1);
    }
    CHECK_MPI(MPI_Iallreduce(MPI_IN_PLACE, v, 4, MPI_INT64_T, MPI_SUM, d, &req));
    if (1 == wrank && opt_late) {
        nfds = fill_fds(fds, MAX_FDS, opt_leave);
    }
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    expect_i64("fdpool iallreduce", v, want, 4);
    for (long i = 0; i < 20; ++i) {
        churn_call(d, 2 + 3 * i);
    }
    while (nfds > 0) {
        close(fds[--nfds]);
    }
    CHECK_MPI(MPI_Comm_free(&d));
    if (0 == wrank) {
        printf("fdpool: leave=%ld late=%d\n", opt_leave, opt_late);
    }
    free(fds);
}
