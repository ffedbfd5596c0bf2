/*
 * The random-program checker's steps (test_random.c says what they are):
 * the communicator pool, the outstanding requests, the rank-local delays.
 * Every choice the program makes reads the program's stream and what
 * every rank knows (the pool's states, the requests' states), never
 * this rank's membership or local completions.
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_random.h"

int wrank, wsize, trace, focus = -1, without;
volatile int cur_step;
volatile unsigned long long cur_seed;
char waitdesc[600];
uint64_t prog, local, digest;
slot_t slots[NSLOTS], world_slot;
req_t reqs[NREQS];
const char *rt_kind_name[NK] = {"coll", "start", "complete", "pfree", "dup",
                                "idup", "split", "create",   "free",  "skew"};

static uint64_t lrand(void) { return rnd_next(&local); }

/* spin on MPI_Iprobe (progress) for us microseconds */
static void progress_for(long us)
{
    double until = MPI_Wtime() + us * 1e-6;
    int flag;
    while (MPI_Wtime() < until) {
        OK(MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    }
}

static void check(req_t *q)
{
    char msg[200], what[160];
    if (rt_call_check(&q->call, &digest, msg, sizeof msg)) {
        rt_call_describe(&q->call, what, sizeof what);
        FAIL("%s (called at step %d, %d ranks, rank %d): %s", what, q->step, q->call.csize,
             q->call.crank, msg);
    }
}

/* append request q to waitdesc */
static void say_req(const req_t *q)
{
    size_t n = strlen(waitdesc);
    char what[160];
    if (q->idup >= 0) {
        snprintf(what, sizeof what, "idup of slot %d", q->slot);
    } else {
        rt_call_describe(&q->call, what, sizeof what);
    }
    snprintf(waitdesc + n, sizeof waitdesc - n, "%s[%s, step %d, slot %d%s]", n ? " " : "", what,
             q->step, q->slot, q->gone ? ", communicator freed" : "");
}

/* after this rank's request q completed */
static void completed(req_t *q)
{
    q->done = 1;
    if (q->idup < 0) {
        check(q);
    }
}

/* MPI_Test some of this rank's outstanding requests (rank-local) */
static void test_some(void)
{
    for (int i = 0; i < NREQS; i++) {
        req_t *q = &reqs[i];
        int flag = 0;
        if (R_ACTIVE == q->state && q->mine && !q->done && lrand() % 2) {
            OK(MPI_Test(&q->req, &flag, MPI_STATUS_IGNORE));
            if (flag) {
                completed(q);
            }
        }
    }
}

/* a rank's own delay before a step */
void jitter(void)
{
    uint64_t r = lrand();
    if ((without & X_SKEW) || r % 4) {
        return;
    }
    switch ((r >> 8) % 3) {
    case 0:
        usleep((useconds_t) (1u << (r >> 16) % 11)); /* 1 us .. 1 ms */
        break;
    case 1:
        progress_for((long) (1u << (r >> 16) % 11));
        break;
    default:
        test_some();
    }
}

int free_req(void)
{
    for (int i = 0; i < NREQS; i++) {
        if (R_FREE == reqs[i].state) {
            return i;
        }
    }
    return -1;
}

int free_slot(void)
{
    for (int i = 0; i < NSLOTS; i++) {
        if (S_EMPTY == slots[i].state) {
            return i;
        }
    }
    return -1;
}

/* the n-th slot (mod their number) with a predicate; -1: none */
int pick_slot(uint64_t u, int (*ok)(const slot_t *))
{
    int idx[NSLOTS], n = 0;
    for (int i = 0; i < NSLOTS; i++) {
        if (ok(&slots[i])) {
            idx[n++] = i;
        }
    }
    return n ? idx[u % n] : -1;
}
int live(const slot_t *s) { return S_LIVE == s->state; }
int parent(const slot_t *s) { return S_LIVE == s->state && 0 == s->idups; }
/* MPI_Comm_free with requests outstanding on the communicator: Open MPI
 * 4.1.4's libnbc keeps no reference on it, so a schedule with a later round
 * crashes in MPI_Wait (measured: MPI_Ibarrier at 3+ ranks, MPI_Iallreduce,
 * MPI_Ireduce, MPI_Iscan, in-place MPI_Ialltoall, started persistent
 * requests).  Only libnbc's one-round kinds may be outstanding. */
static int one_round(const req_t *q)
{
    const call_t *c = &q->call;
    if (q->persistent) {
        return R_IDLE == q->state;
    }
    return (C_BARRIER == c->coll && 2 == wsize) || C_ALLGATHER == c->coll || C_GATHER == c->coll ||
           C_GATHERV == c->coll || C_ALLTOALLV == c->coll ||
           (C_ALLTOALL == c->coll && !c->in_place && wsize <= 8);
}
int freeable(const slot_t *s)
{
    for (int i = 0; i < NREQS; i++) {
        const req_t *q = &reqs[i];
        if (R_FREE != q->state && q->idup < 0 && &slots[q->slot] == s && !one_round(q)) {
            return 0;
        }
    }
    return parent(s);
}

int pick_req(uint64_t u, int (*ok)(const req_t *))
{
    int idx[NREQS], n = 0;
    for (int i = 0; i < NREQS; i++) {
        if (ok(&reqs[i])) {
            idx[n++] = i;
        }
    }
    return n ? idx[u % n] : -1;
}
int active(const req_t *q) { return R_ACTIVE == q->state; }
int idle(const req_t *q) { return R_IDLE == q->state; }
int startable(const req_t *q)
{
    return R_IDLE == q->state && !q->gone && 0 == slots[q->slot].idups;
}

void set_world(slot_t *s)
{
    MPI_Group g, wg;
    int *mine;
    s->world = NULL;
    s->size = s->rank = 0;
    if (MPI_COMM_NULL == s->comm) {
        return;
    }
    MPI_Comm_size(s->comm, &s->size);
    MPI_Comm_rank(s->comm, &s->rank);
    mine = malloc(s->size * sizeof(int));
    s->world = malloc(s->size * sizeof(int));
    for (int i = 0; i < s->size; i++) {
        mine[i] = i;
    }
    MPI_Comm_group(s->comm, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_translate_ranks(g, s->size, mine, wg, s->world);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    free(mine);
}

/* sizes around coll/rdma's thresholds (bytes of one block) */
static const int sizes[] = {
    0,     1,     2,     7,     8,     9,     16,    31,     32,     33,     48,     55,   56,
    57,    63,    64,    65,    100,   255,   256,   1000,   1024,   4095,   4096,   4097, 8192,
    16383, 16384, 16385, 32768, 65535, 65536, 65537, 131072, 262144, 262145, 1048576};

static void make_call(call_t *c, const uint64_t *u, const slot_t *s, int nb_ok)
{
    static const int dsize[NTYPES] = {1, 1, 4, 8, 8};
    int tier = u[1] % 20, nsz = (int) (sizeof sizes / sizeof sizes[0]), bytes;
    int handon = !(without & X_HANDON) && u[2] % 4 == 0;
    memset(c, 0, sizeof *c);
    c->coll = handon ? C_SCAN + (int) (u[3] % 4) : (int) (u[3] % 6);
    c->form = F_BLOCKING;
    if (nb_ok && !(without & X_NB) && u[4] % 2) {
        c->form = F_NONBLOCKING;
    } else if (nb_ok && !(without & X_PERSIST) && SERVED(c->coll) && u[4] % 4 == 2) {
        c->form = F_PERSISTENT;
    }
    /* the user-defined op: handed on (allreduce, reduce, scan) */
    c->op = (int) (u[5] % ((without & X_HANDON) ? NOPS - 1 : NOPS));
    if (C_ALLREDUCE == c->coll || C_REDUCE == c->coll || C_SCAN == c->coll) {
        static const int ok[NOPS][3] = {{T_INT8, T_INT, T_DOUBLE},
                                        {T_INT8, T_INT, T_DOUBLE},
                                        {T_INT8, T_INT, T_DOUBLE},
                                        {T_BYTE, T_INT8, T_INT},
                                        {T_INT8, T_INT, T_DOUBLE}};
        c->type = ok[c->op][u[6] % 3];
    } else {
        c->type = (int) (u[6] % (C_GATHERV <= c->coll ? T_VEC : NTYPES));
    }
    /* 0 .. 1 KiB mostly, to 64 KiB often, above rarely */
    bytes = sizes[tier < 12 ? u[7] % 21 : tier < 18 || (without & X_BIG) ? u[7] % 32 : u[7] % nsz];
    c->count = bytes / dsize[c->type];
    c->count += bytes && !c->count;
    if (C_ALLTOALLV == c->coll || C_GATHERV == c->coll) {
        c->count = c->count > 4096 ? 4096 : c->count;
    }
    c->gen[0] = u[8];
    c->in_place = !(without & X_INPLACE) && u[9] % 4 == 0 && C_BARRIER != c->coll &&
                  C_BCAST != c->coll && C_GATHERV != c->coll && C_ALLTOALLV != c->coll;
    c->csize = s->size;
    c->crank = s->rank;
    c->world = s->world;
    c->root = s->size ? (int) (u[10] % (uint64_t) s->size) : 0;
}

void step_coll(const uint64_t *u, int step)
{
    int si = pick_slot(u[11], live), ri = free_req();
    slot_t *s = &slots[si];
    call_t c;
    make_call(&c, u, s, ri >= 0 && 0 == s->idups);
    if (MPI_COMM_NULL == s->comm) {
        if (F_BLOCKING != c.form) { /* the entry exists on every rank */
            reqs[ri] = (req_t){R_ACTIVE, F_PERSISTENT == c.form, si, -1, 0, 1, 0, step};
            reqs[ri].call = c; /* no buffers: what the program knows */
            reqs[ri].state = F_PERSISTENT == c.form && u[12] % 2 ? R_IDLE : R_ACTIVE;
        }
        return;
    }
    c.key = rnd_mix(prog, (uint64_t) step);
    rt_call_prepare(&c);
    if (trace) {
        char what[160];
        rt_call_describe(&c, what, sizeof what);
        fprintf(stderr, "rank %d: step %d: slot %d (%d ranks): %s%s\n", wrank, step, si, s->size,
                what, ri >= 0 && F_BLOCKING != c.form ? "" : "");
    }
    if (F_BLOCKING == c.form) {
        req_t q = {R_ACTIVE, 0, si, -1, 1, 0, 0, step};
        q.call = c;
        waitdesc[0] = 0;
        say_req(&q);
        if (s->idups) {
            strcat(waitdesc, " (an idup of this communicator outstanding)");
        }
        OK(rt_call_post(&q.call, s->comm, NULL));
        completed(&q);
        rt_call_release(&q.call);
        return;
    }
    req_t *q = &reqs[ri];
    *q = (req_t){R_ACTIVE, F_PERSISTENT == c.form, si, -1, 1, 0, 0, step};
    q->call = c;
    OK(rt_call_post(&q->call, s->comm, &q->req));
    if (q->persistent && u[12] % 2) {
        q->state = R_IDLE; /* made, started later */
    } else if (q->persistent) {
        OK(MPI_Start(&q->req));
    }
}

void step_start(const uint64_t *u, int step)
{
    req_t *q = &reqs[pick_req(u[1], startable)];
    q->state = R_ACTIVE;
    q->done = !q->mine;
    q->step = step;
    if (q->mine) {
        rt_call_refill(&q->call, rnd_mix(prog, (uint64_t) step));
        OK(MPI_Start(&q->req));
    }
}

/* the program's selection of outstanding requests, completed by each rank
 * in its own order and way */
void step_complete(const uint64_t *u)
{
    int all[NREQS], sel[NREQS], na = 0, n = 0, how = (int) (lrand() % 5);
    MPI_Request rs[NREQS];
    for (int i = 0; i < NREQS; i++) {
        if (R_ACTIVE == reqs[i].state && ((u[1] >> i & 1) || u[2] % NREQS == (uint64_t) i)) {
            all[na++] = i;
            if (reqs[i].mine && !reqs[i].done) {
                sel[n++] = i;
            }
        }
    }
    for (int i = n - 1; i > 0; i--) { /* this rank's order */
        int j = (int) (lrand() % (uint64_t) (i + 1)), t = sel[i];
        sel[i] = sel[j];
        sel[j] = t;
    }
    waitdesc[0] = 0;
    for (int i = 0; i < n; i++) {
        rs[i] = reqs[sel[i]].req;
        say_req(&reqs[sel[i]]);
    }
    if (0 == how) {
        OK(MPI_Waitall(n, rs, MPI_STATUSES_IGNORE));
    } else if (1 == how) {
        for (int i = 0; i < n; i++) {
            OK(MPI_Wait(&rs[i], MPI_STATUS_IGNORE));
        }
    } else if (2 == how) {
        for (int i = 0, idx; i < n; i++) {
            OK(MPI_Waitany(n, rs, &idx, MPI_STATUS_IGNORE));
        }
    } else if (3 == how) {
        int outc, idx[NREQS];
        for (int left = n; left > 0; left -= outc) {
            OK(MPI_Waitsome(n, rs, &outc, idx, MPI_STATUSES_IGNORE));
        }
    } else {
        int flag[NREQS] = {0};
        for (int left = n; left > 0;) {
            for (int i = 0; i < n; i++) {
                if (!flag[i]) {
                    OK(MPI_Test(&rs[i], &flag[i], MPI_STATUS_IGNORE));
                    left -= flag[i];
                }
            }
        }
    }
    for (int i = 0; i < n; i++) {
        reqs[sel[i]].req = rs[i];
        completed(&reqs[sel[i]]);
    }
    for (int i = 0; i < na; i++) {
        req_t *q = &reqs[all[i]];
        q->state = q->persistent ? R_IDLE : R_FREE;
        if (q->idup >= 0) {
            slots[q->idup].state = S_LIVE;
            slots[q->slot].idups--;
            if (q->mine) {
                set_world(&slots[q->idup]);
            }
        }
        if (!q->persistent && q->mine && q->idup < 0) {
            rt_call_release(&q->call);
        }
    }
}

void step_pfree(const uint64_t *u)
{
    req_t *q = &reqs[pick_req(u[1], idle)];
    if (q->mine) {
        OK(MPI_Request_free(&q->req));
        rt_call_release(&q->call);
    }
    q->state = R_FREE;
}

/* dup, idup, split, create: a new communicator from a live one */
void step_newcomm(int kind, const uint64_t *u, int step)
{
    int si = pick_slot(u[1], parent), ni = free_slot();
    slot_t *s = K_IDUP != kind && (si < 0 || u[5] % 8 == 0) ? &world_slot : &slots[si];
    slot_t *t = &slots[ni];
    if (trace) {
        fprintf(stderr, "rank %d: step %d: %s slot %d (%d ranks) -> slot %d\n", wrank, step,
                rt_kind_name[kind], s == &world_slot ? -1 : si, s->size, ni);
    }
    *t = (slot_t){S_LIVE, 0, 0, 0, MPI_COMM_NULL, NULL};
    if (K_IDUP == kind) {
        req_t *q = &reqs[free_req()];
        *q = (req_t){R_ACTIVE, 0, si, ni, MPI_COMM_NULL != s->comm, 0, 0, step};
        t->state = S_IDUP;
        s->idups++;
        if (q->mine) {
            OK(MPI_Comm_idup(s->comm, &t->comm, &q->req));
        } else {
            q->done = 1;
        }
        return;
    }
    if (MPI_COMM_NULL == s->comm) {
        return;
    }
    if (K_DUP == kind) {
        OK(MPI_Comm_dup(s->comm, &t->comm));
    } else if (K_SPLIT == kind) {
        int ncolors = 1 + (int) (u[2] % 3), w = s->world[s->rank];
        uint64_t h = rnd_mix(u[3], (uint64_t) w);
        int color = h % 5 == 0 ? MPI_UNDEFINED : (int) (h % (uint64_t) ncolors);
        OK(MPI_Comm_split(s->comm, color, (int) (rnd_mix(u[4], (uint64_t) w) % 4), &t->comm));
    } else {
        MPI_Group g, sub;
        int *in = malloc(s->size * sizeof(int)), n = 0;
        for (int i = 0; i < s->size; i++) {
            int r = u[2] % 2 ? s->size - 1 - i : i; /* reversed order: new ranks */
            if (rnd_mix(u[3], (uint64_t) r) % 3) {
                in[n++] = r;
            }
        }
        MPI_Comm_group(s->comm, &g);
        MPI_Group_incl(g, n, in, &sub);
        OK(MPI_Comm_create(s->comm, sub, &t->comm));
        MPI_Group_free(&sub);
        MPI_Group_free(&g);
        free(in);
    }
    set_world(t);
}

/* MPI_Comm_free on its members; its requests stay (completed or freed
 * later, never started again).  Without the free feature, only the end's
 * frees, each after a barrier on the communicator (no set-up under way). */
void step_free(const uint64_t *u)
{
    int si = pick_slot(u[1], freeable);
    slot_t *s = &slots[si];
    for (int i = 0; i < NREQS; i++) {
        if (R_FREE != reqs[i].state && reqs[i].slot == si && reqs[i].idup < 0) {
            reqs[i].gone = 1;
        }
    }
    if (MPI_COMM_NULL != s->comm && (without & X_FREE)) {
        snprintf(waitdesc, sizeof waitdesc, "barrier before the end's free of slot %d", si);
        OK(MPI_Barrier(s->comm));
    }
    snprintf(waitdesc, sizeof waitdesc, "free of slot %d", si);
    if (MPI_COMM_NULL != s->comm) {
        OK(MPI_Comm_free(&s->comm));
    }
    free(s->world);
    s->world = NULL;
    s->state = S_EMPTY;
}

/* each rank its own role: nothing, a brief progress, a sleep then a long
 * progress, or MPI_Test loops */
void step_skew(const uint64_t *u)
{
    uint64_t h = rnd_mix(u[1], (uint64_t) wrank);
    long a = 50 + (long) (h >> 8) % 500, b = 2000 + (long) (h >> 24) % 23000;
    switch (h % 4) {
    case 1:
        progress_for(a);
        break;
    case 2:
        usleep((useconds_t) b);
        progress_for(b);
        break;
    case 3:
        for (int i = 0; i < 1 + (int) (h >> 40) % 20; i++) {
            test_some();
        }
        break;
    }
}
