/*
 * The random-program checker (tests/mpi/test_random.c): one collective
 * call's data, its reference and its digest (test_random_data.c).
 */
#ifndef COLL_RDMA_TESTS_RANDOM_H
#define COLL_RDMA_TESTS_RANDOM_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* splitmix64: the program's stream (the same on every rank) and each
 * rank's own stream (delays, completion orders) */
static inline uint64_t rnd_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline uint64_t rnd_mix(uint64_t a, uint64_t b)
{
    uint64_t s = a ^ (b * 0xd1342543de82ef95ull);
    return rnd_next(&s);
}

/* datatypes: the vector type is 2 ints of every 3 (a gap that must stay) */
enum { T_BYTE, T_INT8, T_INT, T_DOUBLE, T_VEC, NTYPES };
/* operations: O_USER is a commutative user-defined sum (handed on) */
enum { O_SUM, O_MAX, O_MIN, O_BAND, O_USER, NOPS };
/* the six coll/rdma serves, then four it never serves */
enum {
    C_BARRIER,
    C_BCAST,
    C_ALLREDUCE,
    C_REDUCE,
    C_ALLGATHER,
    C_ALLTOALL,
    C_SCAN,
    C_GATHER,
    C_GATHERV,
    C_ALLTOALLV,
    NCOLLS
};
#define SERVED(c) ((c) <= C_ALLTOALL)
/* how a call is made */
enum { F_BLOCKING, F_NONBLOCKING, F_PERSISTENT };

typedef struct {
    int coll, type, op, root, count, in_place, form;
    uint64_t key;     /* inputs are a function of (key, world rank, index) */
    uint64_t gen[2];  /* the program's draws for counts of the v variants */
    int csize, crank; /* the communicator's */
    int *world;       /* its members' world ranks, in rank order (a copy) */
    void *sbuf, *rbuf;
    size_t sunits, runits;  /* buffer lengths in units of the base type */
    int *sc, *sd, *rc, *rd; /* the v variants' counts and displacements */
} call_t;

extern MPI_Datatype rt_types[NTYPES];
extern MPI_Op rt_ops[NOPS];
extern const char *rt_coll_name[NCOLLS];
extern const char *rt_type_name[NTYPES];
extern const char *rt_op_name[NOPS];

void rt_data_init(void);
void rt_data_fini(void);
/* allocate and fill the buffers of c (after c's fields are set) */
void rt_call_prepare(call_t *c);
/* refill the inputs and the outputs' sentinels for a new key */
void rt_call_refill(call_t *c, uint64_t key);
/* make the call: form F_BLOCKING (r unused), F_NONBLOCKING, or the
 * persistent request (F_PERSISTENT: *_init, not started) */
int rt_call_post(call_t *c, MPI_Comm comm, MPI_Request *r);
/* check c's results against the local reference; 0 or an error message
 * in msg; folds the results into *digest */
int rt_call_check(call_t *c, uint64_t *digest, char *msg, size_t len);
void rt_call_release(call_t *c);
void rt_call_describe(const call_t *c, char *buf, size_t len);

/* the program (test_random_prog.c) */
#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "rank %d: FAIL seed %llu step %d: ", wrank, (unsigned long long) cur_seed, \
                (int) cur_step);                                                                   \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fprintf(stderr, "\n");                                                                     \
        fflush(stderr);                                                                            \
        MPI_Abort(MPI_COMM_WORLD, 1);                                                              \
    } while (0)
#include "test_check.h" /* OK */

enum { K_COLL, K_START, K_COMPLETE, K_PFREE, K_DUP, K_IDUP, K_SPLIT, K_CREATE, K_FREE, K_SKEW, NK };
/* features (--without, --focus) */
enum {
    X_IDUP = 1,
    X_FREE = 2,
    X_SKEW = 4,
    X_PERSIST = 8,
    X_NB = 16,
    X_COMM = 32,
    X_HANDON = 64,
    X_BIG = 128,
    X_INPLACE = 256
};

#define NSLOTS 6
#define NREQS 12
enum { S_EMPTY, S_LIVE, S_IDUP };
typedef struct {
    int state, size, rank, idups; /* idups: outstanding idups of it */
    MPI_Comm comm;                /* MPI_COMM_NULL on non-members */
    int *world;
} slot_t;
enum { R_FREE, R_ACTIVE, R_IDLE };
typedef struct {
    int state, persistent, slot, idup, mine, done, gone, step;
    call_t call;
    MPI_Request req;
} req_t;

extern int wrank, wsize, trace, focus, without;
extern volatile int cur_step;
extern volatile unsigned long long cur_seed;
extern char waitdesc[600];               /* what this rank waits for (the watchdog says it) */
extern uint64_t prog, local, digest;     /* the program's stream, this rank's */
extern slot_t slots[NSLOTS], world_slot; /* world: a parent when no slot is */
extern req_t reqs[NREQS];

void set_world(slot_t *s);
void jitter(void);
int free_req(void);
int free_slot(void);
int pick_slot(uint64_t u, int (*ok)(const slot_t *));
int pick_req(uint64_t u, int (*ok)(const req_t *));
int live(const slot_t *s);
int parent(const slot_t *s);
int freeable(const slot_t *s);
int active(const req_t *q);
int idle(const req_t *q);
int startable(const req_t *q);
void step_coll(const uint64_t *u, int step);
void step_start(const uint64_t *u, int step);
void step_complete(const uint64_t *u);
void step_pfree(const uint64_t *u);
void step_newcomm(int kind, const uint64_t *u, int step);
void step_free(const uint64_t *u);
void step_skew(const uint64_t *u);
extern const char *rt_kind_name[NK];

#endif
