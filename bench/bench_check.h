/*
 * coll_bench's data patterns and validation (bench_check.c): what a call
 * sends and what every rank must find after it.  See bench/README.md.
 */
#ifndef BENCH_CHECK_H
#define BENCH_CHECK_H

#include <mpi.h>
#include <stddef.h>

enum coll { C_BARRIER, C_BCAST, C_REDUCE, C_ALLREDUCE, C_ALLGATHER, C_ALLTOALL, C_COMMDUP, C_PINGPONG,
            C_NCOLL };
extern const char *const coll_names[C_NCOLL];

enum kind { K_BYTE, K_INT8, K_UINT8, K_INT, K_INT64, K_FLOAT, K_DOUBLE };
struct dtype {
    const char *name;
    enum kind kind;
    size_t size;
};
extern const struct dtype dtypes[];
extern const size_t ndtypes;
MPI_Datatype mpi_type(enum kind k);

enum opk { O_SUM, O_MAX, O_MIN };
extern const char *const op_names[3];

static inline int is_reduction(enum coll c) { return c == C_REDUCE || c == C_ALLREDUCE; }

extern int rank, nprocs;
extern unsigned long nerrors;        /* mismatches seen by this rank */
extern unsigned long ncalls_checked;

/* one call of the benchmark, as prepare_call and check_call see it */
struct call {
    enum coll coll;
    enum kind kind;
    enum opk op;
    int root;
    char *sbuf, *rbuf;
    const void *sarg;         /* sbuf or MPI_IN_PLACE */
    size_t count, bytes, size;
    unsigned long t;          /* global call number (the data's seed) */
    MPI_Win win;              /* barrier: the entry counter at rank 0 */
    double dup_out;           /* commdup: the allreduce's result */
};

void prepare_call(const struct call *c);  /* fill send data, poison receive buffers */
void check_call(const struct call *c);    /* compare with the local reference; count mismatches */

#endif
