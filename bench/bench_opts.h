/*
 * coll_bench's options (bench/coll_bench.c): what one run measures and how,
 * read from the command line.  bench_opts.c parses them and prints the usage.
 */
#ifndef BENCH_OPTS_H
#define BENCH_OPTS_H

#include <stddef.h>

#include "bench_check.h"

#define LARGE_MESSAGE_SIZE 8192
/* -k: blocking calls, nonblocking (MPI_I<coll> + MPI_Wait), persistent
 * (MPI_<coll>_init once per size, MPI_Start + MPI_Wait per call) */
enum { MODE_BLOCKING, MODE_NONBLOCKING, MODE_PERSISTENT };
extern const char *const mode_names[3];
#define OVERLAP_FACTOR 10 /* -O: computation = 10 x the pure latency */
#define PREWARM_MARGIN 8          /* calls past coll_rdma_window_setup_calls */
#define PREWARM_NO_COMPONENT 16   /* as coll_rdma_window_setup_calls' default */
#define PREWARM_SETUP_MAX 100000  /* larger set-up delays: no set-up within a run */

struct opts {
    enum coll coll;
    size_t min_size, max_size;
    int iters, warmup, iters_large, warmup_large, prewarm, setup_calls;
    int full, validate, fresh, sync, inplace, root;
    int p2p_sync;             /* -B: the barrier before a call by point-to-point */
    int mode;                 /* MODE_*: how the collective is called */
    int overlap;              /* -O: measure overlap with computation too */
    double app_us;            /* -L: computation before every call, us (application loop) */
    size_t pool_bytes;
    const struct dtype *dt;
    enum opk op;
};

/**
 * Parse coll_bench's command line into *o (defaults first; sizes in bytes,
 * pool_bytes from -P MiB or twice the last-level cache, 64 MiB to 1 GiB).
 * Reads the globals rank and nprocs (bench_check.h): only rank 0 prints.
 * Returns 0, 1 after -h (the usage printed on stdout), or -1 on a bad option
 * or combination (the usage or the reason printed on stderr).
 */
int bench_opts_parse(int argc, char **argv, struct opts *o);

#endif
