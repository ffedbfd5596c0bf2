/*
 * The plan simulator's own declarations (plan_sim.h is what test_plans.c
 * sees): the world it simulates and what its files share.
 *
 *   plan_sim.c          set-up, scheduler, sim_run (and what it checks)
 *   plan_sim_base.c     names, helpers, the map, slots
 *   plan_sim_window.c   readers of every message, window accesses, puts
 *   plan_sim_step.c     inputs and results of calls, the interpreter
 *   plan_sim_lines.c    the cache-line model (its own driver and hook)
 *
 * Units: q, owner, target are ranks (0 .. P-1); i and call index the
 * scenario's calls; slot indexes S->words (every slot's word, ascending);
 * offsets (off, at) and lengths (len) are bytes; word and seq are sequence
 * numbers (instances; ring: ring message numbers).
 */
#ifndef PLAN_SIM_INT_H
#define PLAN_SIM_INT_H

#include "plan_sim.h"

#include "coll_rdma_sched.h"
#include "coll_rdma_topo.h"
#include "coll_rdma_window_protocol.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct elem {
    uint64_t s, h;
} elem_t;

/* What a slot of a window holds. */
typedef struct meta {
    uint64_t word;  /* the message's word (mirrors the window) */
    size_t len;     /* its payload bytes */
    int coll, writer, call;
    int remaining;  /* readers whose last access to it is still to come */
    bool written, flag;
} meta_t;

/* A put in flight (writer q to an unmapped target). */
typedef struct put {
    int q, call, pc, target, slot, coll;
    size_t len;
    uint64_t word;
    const char *src;
    char *snap;     /* the source when posted */
    int src_owner, src_slot; /* a window slot as the source (src_owner >= 0) */
    uint64_t src_word;
    uint64_t fence; /* the writer's FLUSHes before it (copied puts land in that order) */
} put_t;

/* One rank's operation of one call. */
typedef struct sop {
    coll_rdma_op_t op;
    size_t ssize, rsize; /* bytes at op.sbuf, op.rbuf */
    char *smem, *rmem;   /* allocations */
} sop_t;

typedef struct srank {
    coll_rdma_window_t win;
    uint64_t cseq[COLL_RDMA_NCOLLS]; /* the module's counters */
    int cur;                         /* call being run; ncalls: all done */
    bool started;
    uint64_t seq;                    /* its first instance */
    int pc;
    bool pending_set;                /* WAIT_ALL, FOLD_ALL (as the executor) */
    bool *pending;
    int next_rank;
    const char *ring_payload;
    uint64_t ring_m;
    unsigned weight;
    uint64_t blocked;                /* epoch of its last would-block */
    int inflight;
    uint64_t fences;                 /* FLUSHes run (copied puts: fences) */
    bool *direct;                    /* direct[t]: t's window is mapped here */
} srank_t;

typedef struct hent {
    uint64_t a, b;
    int64_t v;
} hent_t;

/* An access to a message: owner's slot holding `word`, access `sub` of its action. */
typedef struct acc {
    int owner, slot, sub;
    uint64_t word;
} acc_t;

/* The ring stream as the executor sees it: messages acknowledged
 * (ring_received) and the one RING_RECV took last (ring_payload). */
typedef struct ringpos {
    uint64_t acked, last;
} ringpos_t;

typedef struct sim {
    const sim_scenario_t *sc;
    int P, ncalls;
    srank_t *r;
    sop_t *ops;                      /* [q * ncalls + i]; a replay uses its original's */
    uint64_t call_seq[SIM_MAX_CALLS];
    elem_t *ref[SIM_MAX_CALLS];      /* expression lane of the first rank done */
    size_t *words;                   /* every slot's word offset, ascending */
    size_t *heads;                   /* [slot]: bytes from its word to its payload */
    int nwords;
    meta_t *meta;                    /* [owner * nwords + slot] */
    hent_t *map;                     /* last accesses and reader counts */
    size_t mapcap, mapn;
    put_t *puts;
    int nputs, capputs;
    uint64_t epoch, rng;
    unsigned deliver_odds;           /* a put in flight lands with odds 1 in this per turn */
    acc_t *acc;                      /* room for one action's accesses */
    sim_stats_t *st;
    jmp_buf fail;
    char *err;
    size_t errlen;
    int q, call, pc;                 /* the action being run, for messages (q < 0: none) */
    /* called by step() after every action that completed (not after a
     * would-block), with the action's instance: the line model's view */
    void (*hook)(struct sim *S, int q, const coll_rdma_act_t *a, uint64_t seq);
    void *hook_ctx;
} sim_t;

/* A scheduler for sim_run_with(): runs every rank's calls to the end
 * through step(), or fails. */
typedef void (*sim_driver_fn)(sim_t *S, void *ctx);

/**
 * sim_run() with another scheduler than the random one: `driver` (with
 * ctx) runs the ranks after the world is built; the checks at the end are
 * the same.  Returns 0, or -1 with the first failure in err.
 */
int sim_run_with(const sim_scenario_t *sc, sim_stats_t *st, char *err, size_t errlen,
                 sim_driver_fn driver, void *ctx);

/* Names of action kinds, collectives and algorithms, by their enums. */
extern const char *const kind_names[];
extern const char *const coll_names[];
extern const char *const alg_names[];

/* ---- plan_sim_base.c: small helpers ---- */

/* splitmix64 finaliser of x. */
uint64_t mix64(uint64_t x);
/* The next value of the simulator's random stream (S->rng). */
uint64_t rnd(sim_t *S);
/* Element e of rank r's input in call i. */
elem_t in_elem(int i, int r, size_t e);
/* Bytes [from, from + n) of rank r's data in call i (tag 3), or of its garbage (tag 4), into dst. */
void data_bytes(char *dst, int i, int r, size_t from, size_t n, int tag);
/* dst = src op dst: the sum, and a hash that tells the operands' order and association. */
elem_t combine(elem_t src, elem_t dst);
/* The element (SIM_ELEM bytes) at p. */
elem_t load_elem(const char *p);
/* Store e (SIM_ELEM bytes) at p. */
void store_elem(char *p, elem_t e);
/* Sequence number a has reached b (wrapping). */
bool reached(uint64_t a, uint64_t b);
/* Rank q's operation of call i (a replay: its original's). */
sop_t *sop(sim_t *S, int q, int i);
/* What owner's slot holds. */
meta_t *meta(sim_t *S, int owner, int slot);
/* The 64-bit word at byte off of owner's window. */
uint64_t word_at(sim_t *S, int owner, size_t off);
/* Describe the failure (with the action being run, if any) in S->err and longjmp out. */
void fail(sim_t *S, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));
/* calloc of n x size bytes (at least 1), or fail. */
void *xcalloc(sim_t *S, size_t n, size_t size);

/* ---- plan_sim_base.c: the map, slots ---- */

/* The value of (a, b) (a != 0); NULL if absent unless insert (then 0, inserted). */
int64_t *map_find(sim_t *S, uint64_t a, uint64_t b, bool insert);
/* Map key: rank q's last access of (owner, slot), or with q = -1 the reader count. */
uint64_t key(int q, int owner, int slot);
/* Map value: access sub of action pc of call `call`. */
int64_t pos(int call, int pc, int sub);
/* Payload bytes of slot before the next word (or the window's end). */
size_t slot_room(sim_t *S, int slot);
/* The slot whose word is at byte off, or fail. */
int slot_at(sim_t *S, size_t off);
/* The slot at byte off as a plan names it (geom), or fail: also where its payload is. */
int slot_geom_at(sim_t *S, const coll_rdma_slot_t *geom, size_t off);
/* The slot a buffer of rank q names at instance seq (ring: message ring_m); false for other bases. */
bool buf_slot(sim_t *S, int q, const coll_rdma_buf_t *b, uint64_t seq, uint64_t ring_m,
              int *owner, int *slot, uint64_t *word);

/* ---- plan_sim_window.c ---- */

/* The slot accesses of action a of rank q at instance seq into out (at most P + 2); advances *ring. */
int accesses(sim_t *S, int q, const coll_rdma_act_t *a, uint64_t seq, ringpos_t *ring,
             acc_t *out);
/* For every rank, its last access to every message; per message, how many ranks read it. */
void plan_readers(sim_t *S);

/* How touch() looks at a message: its word, its word as a wait's last access, its payload. */
enum { OBSERVE, WAITED, DATA };

/* Rank q (access sub) looks at message word in owner's slot (DATA: payload bytes [at, at + len)). */
void touch(sim_t *S, int q, int sub, int owner, int slot, uint64_t word, size_t at,
           size_t len, int mode);
/* Memory of rank q's buffer b, len bytes at instance seq, checked (slots: touched as access sub). */
char *buf_mem(sim_t *S, int q, const coll_rdma_buf_t *b, uint64_t seq, size_t len,
              bool write, int sub);
/* Rank q posts len bytes at src with word into target's slot at byte off (srcb: its buffer). */
void post(sim_t *S, int q, int target, size_t off, const char *src, size_t len,
          uint64_t word, int coll, const coll_rdma_buf_t *srcb, uint64_t src_seq);
/* Put in flight k (index into S->puts) lands. */
void deliver(sim_t *S, int k);
/* FLUSH: every put of rank q completes, in a random order. */
void flush(sim_t *S, int q);

/* ---- plan_sim_step.c ---- */

/* What step() did. */
enum { PROGRESS, BLOCK, DONE };

/* Run one action of rank q (or finish its call): PROGRESS, BLOCK (would block) or DONE. */
int step(sim_t *S, int q);

#endif /* PLAN_SIM_INT_H */
