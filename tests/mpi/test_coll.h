/*
 * test_coll: what its files share (tests/mpi/test_coll.c says what the
 * program tests and how it is used).
 *
 *   test_coll.c            main: options, sections, the summary line
 *   test_coll_common.c     state, helpers, types, ops, guards, counts
 *   test_coll_values.c     inputs, stored elements, reference reductions
 *   test_coll_bcast.c      barrier, bcast
 *   test_coll_reduce.c     allreduce, int8sum, ulongminmax, fbwrong, reduce
 *   test_coll_blocks.c     allgather, alltoall
 *   test_coll_comm.c       communicators, large, sweep
 *   test_coll_stress.c     mix, stress
 *   test_coll_fallback.c   fallbacks, intercommunicator, MPI_COMM_SELF
 *   test_layout.c          layouts differing between ranks
 *
 * Sizes: counts are in elements of the datatype passed, bytes say bytes;
 * tags are any 64-bit values (mktag), ranks are ranks of the communicator
 * passed unless they say world.
 */
#ifndef TEST_COLL_H
#define TEST_COLL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <mpi.h>

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------ options */

enum {
    S_BARRIER = 1 << 0,
    S_BCAST = 1 << 1,
    S_ALLREDUCE = 1 << 2,
    S_COMM = 1 << 3,
    S_STRESS = 1 << 4,
    S_FALLBACK = 1 << 5,
    S_INT8SUM = 1 << 6,
    S_ULONG = 1 << 7, /* not in "all": plain Open MPI 4.1.4 always fails it */
    S_ALLGATHER = 1 << 8,
    S_ALLTOALL = 1 << 9,
    S_REDUCE = 1 << 10,
    S_MIX = 1 << 11,
    S_SWEEP = 1 << 12, /* not in "all": the allreduce on every size 2..np by split */
    S_LARGE = 1 << 13, /* not in "all": large allreduces around ring segment boundaries */
    /* not in "all": ranks pass different layouts of one signature (test_layout.c) */
    S_LAYOUT_BCAST = 1 << 14,
    S_LAYOUT_ALLGATHER = 1 << 15,
    S_LAYOUT_ALLTOALL = 1 << 16,
    S_LAYOUT_ALLREDUCE = 1 << 17,
    S_LAYOUT_REDUCE = 1 << 18,
    S_LAYOUT = S_LAYOUT_BCAST | S_LAYOUT_ALLGATHER | S_LAYOUT_ALLTOALL | S_LAYOUT_ALLREDUCE
               | S_LAYOUT_REDUCE,
    S_FBWRONG = 1 << 19, /* not in "all": plain Open MPI 4.1.4 fails it (op/avx, ompi#10525) */
    S_BSMALL = 1 << 20,  /* not in "all": the read bcast's small ring (bcast-small) */
    S_ALL = 0x7f | S_ALLGATHER | S_ALLTOALL | S_REDUCE | S_MIX
};

/* Options (test_coll_common.c; set by main from the command line). */
extern int opt_sections;          /* S_* bits of --only */
extern int opt_iters;             /* --iters: repetitions of each section */
extern size_t opt_max_bytes;      /* --max-bytes: largest buffer, bytes */
extern uint64_t opt_seed;         /* --seed of every input */
extern long opt_stress_calls;     /* --stress-calls: calls of stress (a quarter in mix) */
extern long opt_dup_cycles;       /* --dup-cycles of the comm section */
extern int opt_light;             /* fewer counts/types/ops in bcast and allreduce */
extern int opt_any_order;         /* float sums may differ in the last bits between ranks */
extern int opt_sweep_min;         /* smallest communicator of the sweep section */
extern size_t opt_ring_seg;       /* ring segment bytes the large section aims at */
extern size_t opt_layout_derived_reduce; /* test_layout.c: derived int layouts up to B bytes */

/* State: world rank and size, the section running, checks and calls done. */
extern int world_rank, world_size;
extern const char *cur_test;
extern uint64_t n_checks, n_barrier, n_bcast, n_allreduce, n_other;

/* ------------------------------------------------------------------ helpers */

/* Shared PRNG (xorshift64*): same seed on every rank gives the same stream. */
typedef struct { uint64_t s; } rng_t;

/* Mismatch collector: prints the first few, then aborts in report_end(). */
typedef struct {
    const char *desc;
    long nbad;
} report_t;

/* splitmix64 finaliser of x. */
uint64_t mix64(uint64_t x);
/* Hash of (opt_seed, tag, rank, idx): every input value comes from it. */
uint64_t hash3(uint64_t tag, uint64_t rank, uint64_t idx);
/* Tag from the 5 parameters of one call, so different calls differ. */
uint64_t mktag(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e);
/* Next 64 bits of r. */
uint64_t rng_next(rng_t *r);
/* Uniform in 0 .. n-1 (0 when n is 0). */
uint64_t rng_below(rng_t *r, uint64_t n);
/* CLOCK_MONOTONIC in ns: one clock for all processes of the node. */
int64_t now_ns(void);
/* Sleep ns nanoseconds (restarted on EINTR). */
void sleep_ns(int64_t ns);
/* Busy-wait ns nanoseconds. */
void spin_ns(int64_t ns);
/* malloc of n bytes (at least 1) or MPI_Abort. */
void *xmalloc(size_t n);
/* Flush and MPI_Abort(3): how every failure ends. */
void die(void);

/* call must return MPI_SUCCESS, else FAIL line and die(). */
#define MPI_CHECK(call)                                                                 \
    do {                                                                                \
        int rc_ = (call);                                                               \
        if (rc_ != MPI_SUCCESS) {                                                       \
            char s_[MPI_MAX_ERROR_STRING];                                              \
            int l_ = 0;                                                                 \
            MPI_Error_string(rc_, s_, &l_);                                             \
            printf("FAIL rank %d test %s: %s returned %d (%s) at %s:%d\n", world_rank,  \
                   cur_test, #call, rc_, s_, __FILE__, __LINE__);                       \
            die();                                                                      \
        }                                                                               \
    } while (0)

/* Every rank's `bytes` at `mine` into all (size x bytes, rank r's at r * bytes), by
 * point-to-point messages. */
void gather_p2p(const void *mine, size_t bytes, void *all, MPI_Comm comm);
/* Record a mismatch at element (or byte) idx; prints the first 5. */
void report_bad(report_t *rp, size_t idx, const char *exp, const char *got);
/* Count one check; die() if rp recorded mismatches. */
void report_end(report_t *rp);
/* Compare nbytes at buf with the expected image exp, byte by byte (one check). */
void compare_image(const unsigned char *buf, const unsigned char *exp, size_t nbytes,
                   const char *desc);
/* Print a FAIL line (printf format) and die(). */
void fail_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ------------------------------------------------------------------ types */

typedef enum { K_SINT, K_UINT, K_FLT, K_DBL, K_BYTE } kind_t;

/* A predefined datatype: size in bytes of one element, kind of its values. */
typedef struct {
    MPI_Datatype dt;
    const char *name;
    int size;
    kind_t kind;
} ty_t;

enum { MAX_TYPES = 32 };
/* Reduction types: [0, n_ar_main) fixed width, float, double; up to
 * n_ar_general C aliases and byte; then unsigned_long (ulongminmax only). */
extern ty_t ar_types[MAX_TYPES];
extern int n_ar_types, n_ar_main, n_ar_general;
/* Bcast (and allgather, alltoall) types: the main ones, byte, char, int, long double. */
extern ty_t bc_types[MAX_TYPES];
extern int n_bc_types;

/* Fill ar_types and bc_types (after MPI_Init). */
void init_types(void);
/* The ar_types entry called name (MPI_Abort if none). */
ty_t *find_ar_type(const char *name);

/* ------------------------------------------------------------------ ops */

typedef enum { O_SUM, O_PROD, O_MIN, O_MAX, O_LAND, O_LOR, O_LXOR, O_BAND, O_BOR, O_BXOR, NOPS } opk_t;

typedef struct {
    MPI_Op op;
    const char *name;
    opk_t k;
} op_t;

/* The predefined ops, indexed by opk_t. */
extern op_t ops[NOPS];

/* Fill ops (after MPI_Init). */
void init_ops(void);
/* Whether MPI defines op k on type t. */
int op_valid(const ty_t *t, opk_t k);

/* ------------------------------------------------------------------ values */

/* Non-exact float SUM input of rank r, element i: random, mixed magnitude. */
double rnd_input(uint64_t tag, int r, size_t i);
/* Store element i of buf: ival (integer kinds, low t->size bytes) or fval (float kinds). */
void store_elem(const ty_t *t, void *buf, size_t i, uint64_t ival, double fval);
/* Element i of buf (float or double kind) as a double. */
double load_flt(const ty_t *t, const void *buf, size_t i);
/* Element i of buf against the sum of rnd_input over size ranks, within 1e-5 of sum |x|. */
void check_random_sum(report_t *rp, const ty_t *t, const void *buf, size_t i, uint64_t tag,
                      int size);
/* Fill buf (count elements of t) with rank r's input for (op k, tag) among nranks. */
void fill_input(const ty_t *t, opk_t k, uint64_t tag, int r, void *buf, size_t count, int nranks);
/* a k b for integer kinds, wrapped to t->size bytes. */
uint64_t int_combine(const ty_t *t, opk_t k, uint64_t a, uint64_t b);
/* got (count elements of t) against the reduction by k of ranks 0..n-1's inputs (one check). */
void check_reduction(const ty_t *t, opk_t k, uint64_t tag, int n, const void *got,
                     size_t count, const char *desc);

/* ------------------------------------------------------------------ guards */

enum { GUARD = 64 }; /* bytes of guard after a buffer */
#define GUARD_BYTE 0xA5

/* Write n guard bytes at p. */
void set_guard(void *p, size_t n);
/* The n bytes at p must still be guard bytes, else fail_msg. */
void check_guard(const void *p, size_t n, const char *what, const char *desc);

/* ------------------------------------------------------------------ counts */

/* Counts (elements) 0 .. max_count into out (128 at most), sorted; light: fewer. */
int make_counts(size_t max_count, size_t *out, int light);

/* ------------------------------------------------------------------ sections */

/* test_coll_bcast.c */
/* iters x (nplain back-to-back barriers, each rank late in turn, random late subsets). */
void test_barrier(MPI_Comm comm, const char *label, int iters, int nplain);
/* One bcast of count elements of t from root, buffer offset bytes past an aligned one. */
void bcast_case(MPI_Comm comm, const ty_t *t, int root, size_t count, size_t offset,
                uint64_t tag, const char *label);
/* Bcast of every type, root and count up to opt_max_bytes; light: fewer. */
void test_bcast(MPI_Comm comm, const char *label, int iters, int light);
/* Bcasts of at most 56 bytes (the read bcast's small ring) and past it: every root and size,
 * then opt_stress_calls back to back with random delays on 3 communicators. */
void test_bcast_small(void);

/* test_coll_reduce.c */
/* One allreduce of count elements of t with o, in place or not, checked exactly. */
void allreduce_case(MPI_Comm comm, const ty_t *t, const op_t *o, size_t count, int inplace,
                    uint64_t tag, const char *label);
/* One non-exact float SUM allreduce of count elements: same bits on every rank (unless
 * opt_any_order), within rounding of a reference. */
void allreduce_float_random(MPI_Comm comm, const ty_t *t, size_t count, int inplace,
                            uint64_t tag, const char *label);
/* Allreduce of every general type, op and count up to opt_max_bytes; light: fewer. */
void test_allreduce(MPI_Comm comm, const char *label, int iters, int light);
/* 8- and 16-bit integer SUM that wraps (Open MPI 4.1.4's op/avx saturates). */
void test_int8sum(MPI_Comm comm, const char *label, int iters);
/* MIN/MAX/SUM on MPI_UNSIGNED_LONG across 2^63 (ompi#10525). */
void test_ulong(MPI_Comm comm, const char *label, int iters);
/* The pairs Open MPI 4.1.4 reduces wrong, 1 byte to opt_max_bytes, allreduce and reduce. */
void test_fbwrong(MPI_Comm comm, const char *label);
/* One reduce of count elements of t with o to root, in place at the root or not. */
void reduce_case(MPI_Comm comm, const ty_t *t, const op_t *o, size_t count, int root,
                 int inplace, uint64_t tag, const char *label);
/* Reduce to every root, general types and ops, counts up to opt_max_bytes. */
void test_reduce(MPI_Comm comm, const char *label, int iters, int light);

/* test_coll_blocks.c */
/* Block layouts of allgather and alltoall (test_coll_blocks.c says which). */
enum { L_CONTIG, L_STRIDED, L_LB, NLAYOUTS };
/* One allgather or alltoall of n elements of t per block, send/receive layouts skind/rkind. */
void blocks_case(MPI_Comm comm, int alltoall, const ty_t *t, int n, int skind, int rkind,
                 int inplace, uint64_t tag, const char *label);
/* Allgather or alltoall of every type up to opt_max_bytes per block, then mixed layouts. */
void test_blocks(MPI_Comm comm, int alltoall, const char *label, int iters, int light);

/* test_coll_comm.c */
/* Barrier, bcast, allreduce, allgather, alltoall, reduce on comm, light. */
void comm_suite(MPI_Comm comm, const char *label, int iters);
/* Allreduces up to opt_max_bytes around the ring's opt_ring_seg segment boundaries. */
void test_large(MPI_Comm comm, const char *label);
/* The allreduce on world's ranks 0..P-1 for every P from opt_sweep_min to world_size. */
void test_sweep(void);
/* Splits, partial split, interleaved communicators, dup/free cycles, live dups. */
void test_comm(int iters);

/* test_coll_stress.c */
/* opt_stress_calls / 4 random allgather, alltoall, reduce, barrier calls on 3 communicators. */
void test_mix(void);
/* opt_stress_calls random barrier, bcast, allreduce calls; barrier semantics checked after. */
void test_stress(void);

/* test_coll_fallback.c */
/* User ops, non-commutative ops, derived, resized and pair types on comm. */
void test_fallback(MPI_Comm comm, const char *label, int iters);
/* comm_suite on MPI_COMM_SELF; allreduce, barrier, bcast on an intercommunicator. */
void test_inter_self(void);

/* test_layout.c */
/* The layout sections (S_LAYOUT_* bits of sections) on world. */
void test_layout(int sections);

#endif
