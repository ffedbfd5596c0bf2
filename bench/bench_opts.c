/*
 * coll_bench's options: the usage text and the parser (bench_opts.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_opts.h"

const char *const mode_names[3] = {"blocking", "nonblocking", "persistent"};

static size_t llc_size(void)
{
    long v = -1;
#ifdef _SC_LEVEL3_CACHE_SIZE
    v = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (v <= 0) v = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    if (v <= 0) v = 32L << 20;
    return (size_t)v;
}

static void usage(FILE *f)
{
    fprintf(f,
"usage: mpirun -np P coll_bench [options]\n"
"  -c COLL      barrier|bcast|reduce|allreduce|allgather|alltoall|commdup|pingpong\n"
"               (default allreduce; pingpong: point-to-point between ranks 0 and 1)\n"
"  -m [MIN:]MAX message sizes in bytes, doubling from MIN (default TYPESIZE:1048576;\n"
"               MIN may be 0; sizes below the datatype size are skipped)\n"
"  -i ITERS     timed calls per size (default 1000, 100 above %d bytes)\n"
"  -x WARMUP    untimed calls per size (default 100, 10 above %d bytes)\n"
"  -W PREWARM   untimed calls before the first size (default\n"
"               coll_rdma_window_setup_calls + %d, %d without coll/rdma or\n"
"               above %d set-up calls):\n"
"               a component's one-time set-up is not timed; -W 0 times it\n"
"  -f           full statistics: Min, Max, Median columns (before CallMin...)\n"
"  -v           validate every call against a locally computed reference;\n"
"               exit status 1 on any mismatch\n"
"  -F           fresh buffers: cycle through a pool larger than the LLC\n"
"  -P MIB       pool size per rank for -F (default 2 x LLC, 64..1024 MiB)\n"
"  -t DTYPE     byte|char|int8|uint8|int|int64|long|float|double\n"
"               (default double for reduce/allreduce, byte otherwise)\n"
"  -o OP        sum|max|min for reductions (default sum)\n"
"  -r ROOT      root of bcast/reduce (default 0)\n"
"  -S           barrier before every call for every collective\n"
"  -A           no barrier before calls, also for bcast/reduce\n"
"  -B           the barrier before a call is a dissemination barrier of\n"
"               zero-byte MPI_Sendrecv, not the collective component under test\n"
"               (whose barrier's exit order would set the skew the call sees)\n"
"  -I           MPI_IN_PLACE (allreduce, allgather, alltoall; reduce at root)\n"
"  -k MODE      blocking|nonblocking|persistent (default blocking): nonblocking\n"
"               times MPI_I<coll> + MPI_Wait, persistent MPI_Start + MPI_Wait of\n"
"               a request made once per size with MPI_<coll>_init (fixed buffers)\n"
"  -L USEC      application loop: USEC microseconds of computation (a spin on\n"
"               the clock) before every call, no barrier (implies -A); a size's\n"
"               Avg is each rank's whole loop (computation and calls) per call,\n"
"               less USEC, the slowest rank's: what an application that calls the\n"
"               collective between two pieces of work loses to it\n"
"  -O           with -k nonblocking|persistent: also the overlap with computation\n"
"               (OSU's method: a compute loop of %d x the pure latency between the\n"
"               start and the wait; overlap %% = max(0, 100 - (overall - compute)\n"
"               / pure x 100)); adds columns Compute, Overall, Overlap%%\n"
"  -h           this help\n", LARGE_MESSAGE_SIZE, LARGE_MESSAGE_SIZE,
            PREWARM_MARGIN, PREWARM_NO_COMPONENT + PREWARM_MARGIN, PREWARM_SETUP_MAX, OVERLAP_FACTOR);
}

static int parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s) return -1;
    if (*end == 'k' || *end == 'K') { v <<= 10; end++; }
    else if (*end == 'm' || *end == 'M') { v <<= 20; end++; }
    if (*end) return -1;
    *out = (size_t)v;
    return 0;
}

int bench_opts_parse(int argc, char **argv, struct opts *o)
{
    int c, iset = 0, xset = 0;
    const char *dtname = NULL;
    long pool_mib = 0;
    memset(o, 0, sizeof(*o));
    o->coll = C_ALLREDUCE;
    o->min_size = (size_t)-1;
    o->max_size = 1 << 20;
    o->iters = 1000; o->warmup = 100;
    o->prewarm = -1;
    o->sync = -1;
    o->op = O_SUM;
    opterr = 0;
    while ((c = getopt(argc, argv, "c:m:i:x:W:fvFP:t:o:r:SABIk:OL:h")) != -1) {
        switch (c) {
        case 'c': {
            int k;
            for (k = 0; k < C_NCOLL; k++)
                if (!strcmp(optarg, coll_names[k])) break;
            if (k == C_NCOLL) { if (!rank) fprintf(stderr, "unknown collective '%s'\n", optarg); return -1; }
            o->coll = (enum coll)k;
            break;
        }
        case 'm': {
            char *colon = strchr(optarg, ':');
            if (colon) {
                *colon = '\0';
                if (parse_size(optarg, &o->min_size) || parse_size(colon + 1, &o->max_size)) goto bad;
            } else if (parse_size(optarg, &o->max_size)) goto bad;
            break;
        }
        case 'i': o->iters = atoi(optarg); iset = 1; if (o->iters < 1) goto bad; break;
        case 'x': o->warmup = atoi(optarg); xset = 1; if (o->warmup < 0) goto bad; break;
        case 'W': o->prewarm = atoi(optarg); if (o->prewarm < 0) goto bad; break;
        case 'f': o->full = 1; break;
        case 'v': o->validate = 1; break;
        case 'F': o->fresh = 1; break;
        case 'P': pool_mib = atol(optarg); if (pool_mib < 1) goto bad; break;
        case 't': dtname = optarg; break;
        case 'o': {
            int k;
            for (k = 0; k < 3; k++) if (!strcmp(optarg, op_names[k])) break;
            if (k == 3) goto bad;
            o->op = (enum opk)k;
            break;
        }
        case 'r': o->root = atoi(optarg); break;
        case 'S': o->sync = 1; break;
        case 'A': o->sync = 0; break;
        case 'B': o->p2p_sync = 1; break;
        case 'I': o->inplace = 1; break;
        case 'k':
            for (o->mode = 2; o->mode >= 0 && strcmp(optarg, mode_names[o->mode]); o->mode--) {}
            if (o->mode < 0) goto bad;
            break;
        case 'O': o->overlap = 1; break;
        case 'L': o->app_us = atof(optarg); if (o->app_us <= 0) goto bad; break;
        case 'h': if (!rank) usage(stdout); return 1;
        default: goto bad;
        }
    }
    if (optind != argc) goto bad;
    o->iters_large = iset ? o->iters : 100;
    o->warmup_large = xset ? o->warmup : 10;
    if (!dtname) dtname = is_reduction(o->coll) ? "double" : "byte";
    for (size_t k = 0; k < ndtypes; k++)
        if (!strcmp(dtname, dtypes[k].name)) o->dt = &dtypes[k];
    if (!o->dt) { if (!rank) fprintf(stderr, "unknown datatype '%s'\n", dtname); return -1; }
    if (is_reduction(o->coll) && o->dt->kind == K_BYTE) {
        if (!rank) fprintf(stderr, "MPI_BYTE cannot be reduced with %s\n", op_names[o->op]);
        return -1;
    }
    if (o->coll == C_PINGPONG && nprocs < 2) { if (!rank) fprintf(stderr, "pingpong needs 2 ranks\n"); return -1; }
    if (o->mode != MODE_BLOCKING && (o->coll == C_COMMDUP || o->coll == C_PINGPONG)) goto bad;
    if (o->overlap && o->mode == MODE_BLOCKING) goto bad;
    if (o->app_us > 0 && (o->overlap || o->sync == 1 || o->p2p_sync || o->coll == C_PINGPONG)) goto bad;
    if (o->app_us > 0) o->sync = 0;
    if (o->mode == MODE_PERSISTENT) o->fresh = 0; /* a persistent request keeps its buffers */
    if (o->min_size == (size_t)-1) o->min_size = o->dt->size;
    if (o->max_size < o->min_size) goto bad;
    if (o->root < 0 || o->root >= nprocs) { if (!rank) fprintf(stderr, "bad root\n"); return -1; }
    if (o->sync < 0) o->sync = (o->coll == C_BCAST || o->coll == C_REDUCE);
    if (pool_mib) o->pool_bytes = (size_t)pool_mib << 20;
    else {
        size_t p = 2 * llc_size();
        if (p < (64u << 20)) p = 64u << 20;
        if (p > (1024u << 20)) p = 1024u << 20;
        o->pool_bytes = p;
    }
    return 0;
bad:
    if (!rank) usage(stderr);
    return -1;
}
