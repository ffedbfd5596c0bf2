/*
 * Timing helpers of the small benchmarks (line_cost, line_check,
 * model_pingpong): a cycle counter shared by the cores (x86: the TSC;
 * elsewhere the monotonic clock in ns, coarser), the fences around a timed
 * access, the monotonic clock in microseconds, and a median.
 */
#ifndef BENCH_TIME_H
#define BENCH_TIME_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#    include <x86intrin.h>
static inline uint64_t ticks(void)
{
    return __rdtsc();
}
static inline uint64_t ticks_ordered(void)
{
    unsigned aux;
    return __rdtscp(&aux);
}
static inline void load_fence(void)
{
    _mm_lfence();
}
static inline void full_fence(void)
{
    _mm_mfence();
}
#else
static inline uint64_t ticks(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t) t.tv_sec * 1000000000u + (uint64_t) t.tv_nsec;
}
static inline uint64_t ticks_ordered(void)
{
    atomic_thread_fence(memory_order_seq_cst);
    return ticks();
}
static inline void load_fence(void)
{
    atomic_thread_fence(memory_order_seq_cst);
}
static inline void full_fence(void)
{
    atomic_thread_fence(memory_order_seq_cst);
}
#endif

/* The monotonic clock, microseconds. */
static inline double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

/* Median of n samples; sorts them. */
static inline double median(double *v, int n)
{
    qsort(v, (size_t) n, sizeof(double), bench_cmp_double);
    return v[n / 2];
}

#endif /* BENCH_TIME_H */
