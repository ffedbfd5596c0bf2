/*
 * sched_dump: the rounds of coll/rdma's schedules (and of the reference
 * algorithms coll/tuned and coll/han use), as text for bench/model.py.
 *
 * No MPI: linked with ompi-coll-rdma/coll_rdma_sched.c only.  For every
 * round it walks all ranks through the schedule layer and prints the
 * critical-path summary of the round (max over ranks):
 *
 *   R <round> <level> <rep> <sends> <recvs> <bytes> <reduce_bytes> <node_sends> <phase>
 *
 * level: shm when every message of the round stays inside a node, net
 * otherwise; rep: how many identical rounds the line stands for (ring);
 * sends / recvs: the most messages one rank sends / receives in the round;
 * bytes: the largest message of the round (bytes, for a payload of m bytes);
 * reduce_bytes: the most bytes one rank combines in the round; node_sends:
 * the most messages that leave one node in the round (what its NIC carries).  One block of
 * R lines per payload size, after a "# m=<bytes>" line; "E <rounds>" ends a
 * block.  With -r RANK it also prints that rank's messages for the first
 * size ("S <round> <peer> <bytes>" sent, "V <round> <peer> <bytes>" received;
 * in the two-level form RANK and peers are numbered within each phase: the
 * node's ranks inside a node, the leaders among nodes).
 *
 * Usage: sched_dump [-q ppn] [-H ppn] [-N ppn] [-r rank] ALG P PARAM m[,m...]
 *   P: ranks (flat) or nodes (-H).  -q ppn: ranks per node of a flat run,
 *   block mapping (default 1: every rank on its own node, every round net);
 *   it only classifies rounds as shm/net.  -H ppn: the two-level form:
 *   intra-node fold to the leader (shm), ALG among the P leaders (net), the
 *   node's ranks read the leader's result (shm).  -N ppn: the n-port
 *   two-level allreduce (coll_rdma_allreduce_nport_plan): every rank of a
 *   node carries 1/ppn of the payload: it reads that share of the node's
 *   inputs (shm), ppn groups run ALG among the P nodes side by side on 1/ppn
 *   of the payload each, so a node's NIC carries ppn times the messages of
 *   one group (net), and every rank reads the other ppn - 1 shares (shm).
 *   ALG names begin with the collective: barrier-, allreduce-, bcast-,
 *   reduce- (see run_alg()).
 *
 * sched_dump --lines [options] COLL P BYTES: the cache-line model instead
 * (bench/sched_lines.c, tests/unit/plan_sim_lines.c): per algorithm, the
 * 64-byte lines that move between ranks per call on the real plans.
 */
#include "coll_rdma_sched.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ROUNDS 4096
#define MAX_SIZES 16

/* The kinds of collective an algorithm serves: the payload of a barrier is
 * a flag (0 bytes of user data). */
enum { K_BARRIER, K_ALLREDUCE, K_BCAST, K_REDUCE };

typedef struct round_rec {
    int sends, recvs, cross, rep;
    long num, den;      /* each message carries ceil(m * num / den) bytes */
    long red_msgs;      /* most messages one rank reduces, each num/den of m */
    long node_sends;    /* most messages leaving one node */
    const char *phase;
    int shm_forced;     /* intra-node phase of the two-level form */
} round_rec_t;

typedef struct acc {
    int size, ppn, detail;
    int *ns, *nr, *nred, *nnode;
    round_rec_t rounds[MAX_ROUNDS];
    int nrounds;
    round_rec_t *cur;
    long m0;
} acc_t;

static acc_t A;

/** Bytes of a message that carries num/den of an m-byte payload (bytes). */
static long share_bytes(long m, long num, long den)
{
    return den ? (m * num + den - 1) / den : 0;
}

/** Start a round whose messages carry num/den of the payload; rep copies. */
static void begin(const char *phase, long num, long den, int rep)
{
    if (A.nrounds >= MAX_ROUNDS) {
        fprintf(stderr, "sched_dump: too many rounds\n");
        exit(2);
    }
    A.cur = &A.rounds[A.nrounds];
    memset(A.cur, 0, sizeof(*A.cur));
    A.cur->num = num;
    A.cur->den = den;
    A.cur->rep = rep;
    A.cur->phase = phase;
    memset(A.ns, 0, sizeof(int) * A.size);
    memset(A.nr, 0, sizeof(int) * A.size);
    memset(A.nred, 0, sizeof(int) * A.size);
    memset(A.nnode, 0, sizeof(int) * A.size);
}

/** One message from rank `from` to rank `to`; the receiver combines it if
 * `reduce`.  Ranks are those of the current phase (0 .. size-1). */
static void msg(int from, int to, int reduce)
{
    long b = share_bytes(A.m0, A.cur->num, A.cur->den);

    A.ns[from]++;
    A.nr[to]++;
    if (reduce) {
        A.nred[to]++;
    }
    if (from / A.ppn != to / A.ppn) {
        A.cur->cross = 1;
        A.nnode[from / A.ppn]++;
    }
    if (A.detail == from) {
        printf("S %d %d %ld\n", A.nrounds, to, b);
    }
    if (A.detail == to) {
        printf("V %d %d %ld\n", A.nrounds, from, b);
    }
}

/** Close the current round: keep the max over ranks; drop empty rounds. */
static void end(void)
{
    for (int r = 0; r < A.size; ++r) {
        if (A.ns[r] > A.cur->sends) A.cur->sends = A.ns[r];
        if (A.nr[r] > A.cur->recvs) A.cur->recvs = A.nr[r];
        if (A.nred[r] > A.cur->red_msgs) A.cur->red_msgs = A.nred[r];
        if (A.nnode[r] > A.cur->node_sends) A.cur->node_sends = A.nnode[r];
    }
    if (A.cur->sends > 0) {
        A.nrounds++;
    }
}

/* ---- coll/rdma's schedules (through coll_rdma_sched.h) ---- */

/** n-way dissemination: barrier (flags) or the plain rounds of allreduce. */
static void nway_rounds(int n, int rounds, int reduce, long num)
{
    int to[64], from[64];

    for (int r = 0; r < rounds; ++r) {
        begin("nway", num, 1, 1);
        for (int i = 0; i < A.size; ++i) {
            int c = coll_rdma_nway_peers(i, A.size, n, r, to, from);
            for (int j = 0; j < c; ++j) {
                msg(i, to[j], reduce);
            }
        }
        end();
    }
}

/** Bruck's n-port global combine (allreduce), every message a full vector. */
static void bruck_allreduce(int n)
{
    int to[64], from[64], nfull, k = coll_rdma_sched_rounds(A.size, n + 1);

    for (int r = 0; r < k; ++r) {
        begin("bruck", 1, 1, 1);
        for (int i = 0; i < A.size; ++i) {
            int c = coll_rdma_bruck_round(i, A.size, n, r, to, from, &nfull);
            for (int j = 0; j < c; ++j) {
                msg(i, to[j], 1);
            }
        }
        end();
    }
}

/** End's adapted n-way allreduce; Bruck where (n, P) has no plan (as the
 * component does).  Returns 1 when it fell back. */
static int nway_allreduce(int n)
{
    coll_rdma_nway_plan_t plan;
    int to[64], from[64];

    if (A.size < 2) {
        return 0;
    }
    if (0 != coll_rdma_nway_plan(A.size, n, &plan)) {
        bruck_allreduce(n);
        return 1;
    }
    nway_rounds(n, plan.rounds - 1, 1, 1);
    begin("nway-last", 1, 1, 1);
    for (int i = 0; i < A.size; ++i) {
        int c = coll_rdma_nway_last_peers(&plan, i, A.size, to, from);
        for (int j = 0; j < c; ++j) {
            msg(i, to[j], 1);
        }
    }
    end();
    return 0;
}

/** Recursive doubling with the fold (pairwise exchange); num = 0: barrier. */
static void pairwise(long num)
{
    int p2 = coll_rdma_pow2_floor(A.size), steps = coll_rdma_pairwise_steps(A.size);
    int red = num > 0;

    if (A.size > p2) {
        begin("fold", num, 1, 1);
        for (int i = p2; i < A.size; ++i) {
            msg(i, coll_rdma_pairwise_fold_partner(i, A.size), red);
        }
        end();
    }
    for (int s = 0; s < steps; ++s) {
        begin("exchange", num, 1, 1);
        for (int i = 0; i < p2; ++i) {
            msg(i, coll_rdma_pairwise_partner(i, s), red);
        }
        end();
    }
    if (A.size > p2) {
        begin("unfold", num, 1, 1);
        for (int i = p2; i < A.size; ++i) {
            msg(coll_rdma_pairwise_fold_partner(i, A.size), i, 0);
        }
        end();
    }
}

/** k-nomial tree rooted at 0, bottom-up (reduce: children combine into the
 * parent, level 0 first) when `up`, else top-down (bcast). */
static void knomial(int k, int up, long num)
{
    int rounds = coll_rdma_sched_rounds(A.size, k);

    for (int t = 0; t < rounds; ++t) {
        int level = up ? t : rounds - 1 - t;
        begin(up ? "kreduce" : "kbcast", num, 1, 1);
        for (int v = 1; v < A.size; ++v) {
            if (coll_rdma_knomial_level(v, A.size, k) != level) {
                continue;
            }
            int p = coll_rdma_knomial_parent(v, A.size, k);
            if (up) {
                msg(v, p, num > 0);
            } else {
                msg(p, v, 0);
            }
        }
        end();
    }
}

/** Ring allreduce: P-1 reduce-scatter and P-1 allgather steps of m/P. */
static void ring_allreduce(void)
{
    if (A.size < 2) {
        return;
    }
    begin("ring-rs", 1, A.size, A.size - 1);
    for (int i = 0; i < A.size; ++i) {
        msg(i, (i + 1) % A.size, 1);
    }
    end();
    begin("ring-ag", 1, A.size, A.size - 1);
    for (int i = 0; i < A.size; ++i) {
        msg(i, (i + 1) % A.size, 0);
    }
    end();
}

/* ---- reference algorithms of coll/tuned and libnbc (not coll/rdma's) ---- */

/** Linear: everyone to rank 0 (fan-in, combined if reduce), 0 to everyone. */
static void linear(int in, int out, long num, int reduce)
{
    if (A.size < 2) {
        return;
    }
    if (in) {
        begin("lin-in", num, 1, 1);
        for (int i = 1; i < A.size; ++i) msg(i, 0, reduce);
        end();
    }
    if (out) {
        begin("lin-out", num, 1, 1);
        for (int i = 1; i < A.size; ++i) msg(0, i, 0);
        end();
    }
}

/** Binary tree bcast (tuned's bintree, unsegmented): v -> 2v+1, 2v+2. */
static void bintree(void)
{
    for (long lo = 0, w = 1; lo < A.size; lo += w, w *= 2) {
        begin("bintree", 1, 1, 1);
        for (long v = lo; v < lo + w && v < A.size; ++v) {
            if (2 * v + 1 < A.size) msg((int) v, (int) (2 * v + 1), 0);
            if (2 * v + 2 < A.size) msg((int) v, (int) (2 * v + 2), 0);
        }
        end();
    }
}

/** Chain bcast, one segment: P-1 hops. */
static void chain(void)
{
    if (A.size < 2) {
        return;
    }
    for (int i = 0; i + 1 < A.size; ++i) {
        begin("chain", 1, 1, 1);
        msg(i, i + 1, 0);
        end();
    }
}

/** Rabenseifner (tuned alg 6) / scatter-allgather bcast (tuned alg 8) on
 * the p2 ranks, with the fold for the rest: halving then doubling shares. */
static void halving_doubling(int allreduce)
{
    int p2 = coll_rdma_pow2_floor(A.size), steps = coll_rdma_pairwise_steps(A.size);

    if (allreduce && A.size > p2) {
        begin("fold", 1, 1, 1);
        for (int i = p2; i < A.size; ++i) msg(i, i - p2, 1);
        end();
    }
    for (int s = 0; s < steps; ++s) {     /* reduce-scatter or binomial scatter */
        begin(allreduce ? "rs-halving" : "scatter", 1, 2L << s, 1);
        for (int i = 0; i < p2; ++i) {
            if (allreduce) {
                msg(i, i ^ (p2 >> (s + 1)), 1);
            } else if (i % (p2 >> s) == 0) {
                msg(i, i + (p2 >> (s + 1)), 0);
            }
        }
        end();
    }
    for (int s = steps - 1; s >= 0; --s) { /* recursive-doubling allgather */
        begin("ag-doubling", 1, 2L << s, 1);
        for (int i = 0; i < p2; ++i) msg(i, i ^ (p2 >> (s + 1)), 0);
        end();
    }
    if (A.size > p2) {
        begin("unfold", 1, 1, 1);
        for (int i = p2; i < A.size; ++i) msg(i - p2, i, 0);
        end();
    }
}

/* ---- driver ---- */

/** Run algorithm `alg` with parameter `param` over A.size ranks.  Returns
 * the collective kind, or -1 for an unknown name. */
static int run_alg(const char *alg, int param)
{
    if (!strcmp(alg, "barrier-nway")) { nway_rounds(param, coll_rdma_sched_rounds(A.size, param + 1), 0, 0); return K_BARRIER; }
    if (!strcmp(alg, "barrier-pairwise")) { pairwise(0); return K_BARRIER; }
    if (!strcmp(alg, "barrier-linear")) { linear(1, 1, 0, 0); return K_BARRIER; }
    if (!strcmp(alg, "barrier-tree")) { knomial(param, 1, 0); knomial(param, 0, 0); return K_BARRIER; }
    if (!strcmp(alg, "allreduce-nway")) { if (nway_allreduce(param)) printf("# fallback bruck\n"); return K_ALLREDUCE; }
    if (!strcmp(alg, "allreduce-bruck")) { bruck_allreduce(param); return K_ALLREDUCE; }
    if (!strcmp(alg, "allreduce-pairwise")) { pairwise(1); return K_ALLREDUCE; }
    if (!strcmp(alg, "allreduce-ktree")) { knomial(param, 1, 1); knomial(param, 0, 1); return K_ALLREDUCE; }
    if (!strcmp(alg, "allreduce-ring")) { ring_allreduce(); return K_ALLREDUCE; }
    if (!strcmp(alg, "allreduce-rabenseifner")) { halving_doubling(1); return K_ALLREDUCE; }
    if (!strcmp(alg, "allreduce-linear")) { linear(1, 1, 1, 1); return K_ALLREDUCE; }
    if (!strcmp(alg, "reduce-ktree")) { knomial(param, 1, 1); return K_REDUCE; }
    if (!strcmp(alg, "reduce-linear")) { linear(1, 0, 1, 1); return K_REDUCE; }
    if (!strcmp(alg, "bcast-knomial")) { knomial(param, 0, 1); return K_BCAST; }
    if (!strcmp(alg, "bcast-linear")) { linear(0, 1, 1, 0); return K_BCAST; }
    if (!strcmp(alg, "bcast-bintree")) { bintree(); return K_BCAST; }
    if (!strcmp(alg, "bcast-chain")) { chain(); return K_BCAST; }
    if (!strcmp(alg, "bcast-scatter-allgather")) { halving_doubling(0); return K_BCAST; }
    return -1;
}

/** Intra-node phase of the two-level form over `ppn` ranks (leader 0):
 * fold (every rank posts, the leader reads and combines them) or release
 * (the leader's result or flag is read by the other ranks). */
static void intra(int ppn, int fold, int kind)
{
    long num = kind == K_BARRIER ? 0 : 1;

    if (ppn < 2) {
        return;
    }
    A.size = ppn;
    begin(fold ? "intra-fold" : "intra-read", num, 1, 1);
    A.cur->shm_forced = 1;
    for (int i = 1; i < ppn; ++i) {
        if (fold) {
            msg(i, 0, kind == K_ALLREDUCE || kind == K_REDUCE);
        } else {
            msg(0, i, 0);
        }
    }
    /* a release is one store read by all: the leader's side is one message */
    if (!fold) {
        A.ns[0] = 1;
    }
    end();
}

/*
 * The n-port form's phases inside a node (-N): every rank a carrier of 1/ppn
 * of the payload.  fold: each carrier reads its share of every other rank's
 * input and combines it; else each rank reads every other carrier's share
 * (a share posted once, read by all: one message on the carrier's side).
 */
static void intra_ports(int ppn, int fold)
{
    if (ppn < 2) {
        return;
    }
    A.size = ppn;
    begin(fold ? "port-fold" : "port-read", 1, ppn, 1);
    A.cur->shm_forced = 1;
    for (int c = 0; c < ppn; ++c) {
        for (int i = 0; i < ppn; ++i) {
            if (i != c) {
                fold ? msg(i, c, 1) : msg(c, i, 0);
            }
        }
    }
    for (int c = 0; c < ppn && !fold; ++c) {
        A.ns[c] = 1;
    }
    end();
}

static void usage(void)
{
    fprintf(stderr, "usage: sched_dump [-q ppn] [-H ppn] [-N ppn] [-r rank] ALG P PARAM m[,m...]\n"
                    "       sched_dump --lines [options] COLL P BYTES (sched_lines.c)\n");
    exit(2);
}

/** The collective an algorithm name serves, from its prefix; -1 unknown. */
static int kind_of(const char *alg)
{
    if (!strncmp(alg, "barrier-", 8)) return K_BARRIER;
    if (!strncmp(alg, "allreduce-", 10)) return K_ALLREDUCE;
    if (!strncmp(alg, "bcast-", 6)) return K_BCAST;
    if (!strncmp(alg, "reduce-", 7)) return K_REDUCE;
    return -1;
}

int sched_lines_main(int argc, char **argv); /* sched_lines.c */

int main(int argc, char **argv)
{
    int ppn = 1, hier = 0, a = 1, size, param, kind, nm = 0;
    long sizes[MAX_SIZES], cap;
    char *s, *tok;

    if (argc > 1 && 0 == strcmp(argv[1], "--lines")) {
        return sched_lines_main(argc - 1, argv + 1);
    }
    A.detail = -1;
    while (a < argc && argv[a][0] == '-') {
        if (a + 1 >= argc) usage();
        if (!strcmp(argv[a], "-q")) ppn = atoi(argv[a + 1]);
        else if (!strcmp(argv[a], "-H")) { ppn = atoi(argv[a + 1]); hier = 1; }
        else if (!strcmp(argv[a], "-N")) { ppn = atoi(argv[a + 1]); hier = 2; }
        else if (!strcmp(argv[a], "-r")) A.detail = atoi(argv[a + 1]);
        else usage();
        a += 2;
    }
    if (argc - a != 4) usage();
    size = atoi(argv[a + 1]);
    param = atoi(argv[a + 2]);
    kind = kind_of(argv[a]);
    if (kind < 0 || size < 1 || ppn < 1 || param < 1 || param > 63 || size > (1 << 24)) usage();
    if (2 == hier && kind != K_ALLREDUCE) usage();
    for (s = argv[a + 3]; nm < MAX_SIZES && (tok = strtok(s, ",")); s = NULL) {
        sizes[nm++] = atol(tok);
    }
    if (0 == nm) usage();
    A.m0 = kind == K_BARRIER ? 0 : sizes[0];
    cap = hier && ppn > size ? ppn : size;
    A.ns = calloc(cap, sizeof(int));
    A.nr = calloc(cap, sizeof(int));
    A.nred = calloc(cap, sizeof(int));
    A.nnode = calloc(cap, sizeof(int));
    if (!A.ns || !A.nr || !A.nred || !A.nnode) return 2;
    if (hier) {
        int first, ports = 2 == hier ? ppn : 1;
        /* fold inside the node (not for bcast), the leaders, then release */
        A.ppn = ppn;
        if (ports > 1) intra_ports(ppn, 1);
        else if (kind != K_BCAST) intra(ppn, 1, kind);
        A.size = size;
        A.ppn = 1;
        first = A.nrounds;
        if (-1 == run_alg(argv[a], param)) usage();
        for (int i = first; i < A.nrounds; ++i) {
            A.rounds[i].cross = 1;
            /* ports groups side by side, each on 1/ports of the payload */
            A.rounds[i].den *= ports;
            A.rounds[i].node_sends *= ports;
        }
        A.ppn = ppn;
        if (ports > 1) intra_ports(ppn, 0);
        else if (kind != K_REDUCE) intra(ppn, 0, kind);
    } else {
        A.size = size;
        A.ppn = ppn;
        if (-1 == run_alg(argv[a], param)) usage();
    }
    for (int j = 0; j < nm; ++j) {
        long m = kind == K_BARRIER ? 0 : sizes[j];
        printf("# m=%ld alg=%s P=%d param=%d ppn=%d hier=%d\n", sizes[j], argv[a], size, param, ppn, hier);
        for (int i = 0; i < A.nrounds; ++i) {
            round_rec_t *r = &A.rounds[i];
            long b = share_bytes(m, r->num, r->den);
            int net = r->cross && !r->shm_forced;
            printf("R %d %s %d %d %d %ld %ld %ld %s\n", i, net ? "net" : "shm", r->rep, r->sends,
                   r->recvs, b, r->red_msgs * b, net ? r->node_sends : 0, r->phase);
        }
        printf("E %d\n", A.nrounds);
    }
    free(A.ns);
    free(A.nr);
    free(A.nred);
    free(A.nnode);
    return 0;
}
