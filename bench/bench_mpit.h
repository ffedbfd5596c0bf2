/*
 * coll_bench's MPI_T readings (bench_mpit.c): a parameter's value, and how
 * many calls of a collective coll/rdma served (its <coll>_served_calls
 * performance variables), so that a run says what it timed.
 */
#ifndef BENCH_MPIT_H
#define BENCH_MPIT_H

/* The value of an integer MCA parameter through MPI_T (max over ranks), or -1
 * where no loaded component registered it.  Collective over MPI_COMM_WORLD. */
int mpit_cvar_int(const char *name);

/* Start counting the calls of collective `coll` (barrier, bcast, ...) that
 * coll/rdma serves in this process; 0 on success, -1 where coll/rdma is not
 * loaded or has no such variable (then mpit_served reads -1). */
int mpit_served_open(const char *coll);

/* The calls served so far, or -1. */
long long mpit_served(void);

/* Stop counting (MPI_T_finalize). */
void mpit_served_close(void);

#endif /* BENCH_MPIT_H */
