/*
 * test_robust: what its files share (tests/robust/test_robust.c says what
 * the program tests and how it is used).
 *
 *   test_robust.c         state, helpers, main
 *   test_robust_mix.c     sections mix and burst
 *   test_robust_churn.c   section churn
 *   test_robust_edge.c    section edge
 */
#ifndef TEST_ROBUST_H
#define TEST_ROBUST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <mpi.h>
#include "../mpi/persistent_compat.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* World rank and size; the test running (in FAIL lines). */
extern int wrank, wsize;
extern const char *cur;
/* Options (test_robust.c says what they mean). */
extern uint64_t opt_seed;
extern long opt_calls, opt_cycles, opt_alive, opt_count;
extern int opt_skew, opt_kill_rank;
extern long opt_kill_at;
extern long opt_leave;
extern int opt_late;

typedef struct {
    uint64_t s;
} rng_t;

/* Input value of element i of rank r in call `tag`. */
uint64_t val(uint64_t tag, int r, size_t i);
/* Uniform in 0 .. n-1 of the stream g (0 when n is 0). */
uint64_t rng_below(rng_t *g, uint64_t n);
/* CLOCK_MONOTONIC in seconds. */
double now_s(void);
/* Print a FAIL line (printf format) and MPI_Abort. */
void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* call must return MPI_SUCCESS, else fail. */
#define CHECK_MPI(call)                                                                  \
    do {                                                                                 \
        int rc_ = (call);                                                                \
        if (MPI_SUCCESS != rc_) {                                                        \
            fail("%s returned %d at line %d", #call, rc_, __LINE__);                      \
        }                                                                                \
    } while (0)

/* malloc of n bytes (at least 1), or fail. */
void *xmalloc(size_t n);
/* Compare `n` int64 elements; first mismatch fails (one check). */
void expect_i64(const char *what, const int64_t *got, const int64_t *want, size_t n);
/* Compare `n` bytes; first mismatch fails (one check). */
void expect_bytes(const char *what, const void *got, const void *want, size_t n);

/* The sections, on MPI_COMM_WORLD (and communicators of their own). */
void run_mix(void);
void run_burst(void);
void run_churn(void);
void run_edge(void);
void run_persistent_free(void);
void run_fdpool(void);

#endif /* TEST_ROBUST_H */
