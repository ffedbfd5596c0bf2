/*
 * Non-contiguous layouts at every 64 KiB boundary, blocking, nonblocking and
 * persistent (issue 27).
 *
 * Open MPI 4.1's ompi_datatype_sndrcv copies through 64 KiB rounds and loses
 * the last one for layouts of contiguous blocks with gaps (a broadcast whose
 * root passed 2 blocks of 8193 ints with a 1-int gap delivered its last 2
 * ints as 0); coll/rdma packed through it.  Here every collective that takes
 * a layout runs with layouts with gaps (blocks resized to a larger extent,
 * a vector, an indexed type, periods of ints and doubles with gaps) on the
 * root only (the send side only), on the other ranks only (the receive side
 * only), on all, and on none, at signatures that straddle every 64 KiB
 * boundary up to 1 MiB (24 B, 64 KiB - 8, 64 KiB + 8, 128 KiB + 8, 1 MiB;
 * multiples of 16 for the ints-and-doubles signature), every root, in the
 * three forms; every byte of every receive buffer (gaps and a guard included)
 * and of every send buffer is checked against an image computed locally.
 *
 * Usage: test_gaps [--colls bcast,allgather,alltoall,allreduce,reduce]
 *                  [--forms b,i,p] [--max-bytes B] [--block-max-bytes B]
 *   --max-bytes        largest signature of bcast, allreduce and reduce
 *   --block-max-bytes  largest block of allgather and alltoall
 * allreduce and reduce (MPI_SUM of ints with layouts that differ between
 * ranks) need `--mca mpi_param_check 0` and an algorithm that serves every
 * size: Open MPI 4.1's own reductions get derived types wrong.
 * Prints "test_gaps OK" (rank 0) on success; exits non-zero on any error.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gaps_layouts.h"

#include "persistent_compat.h"

enum { C_BCAST, C_ALLGATHER, C_ALLTOALL, C_ALLREDUCE, C_REDUCE, NCOLLS };
static const char *coll_names[NCOLLS] = {"bcast", "allgather", "alltoall", "allreduce", "reduce"};
enum { F_BLOCKING, F_NONBLOCKING, F_PERSISTENT, NFORMS };
static const char *form_names[NFORMS] = {"blocking", "nonblocking", "persistent"};
/* where the gaps are: nowhere, at the root (send side), elsewhere (receive side), everywhere */
enum { P_NONE, P_ROOT, P_OTHERS, P_ALL, NPLACES };
static const char *place_names[NPLACES] = {"none", "root/send", "others/recv", "all"};

static int rank, size, errors;
static long calls;

#define MPI_OK(call)                                                                               \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (MPI_SUCCESS != rc_) {                                                                  \
            fprintf(stderr, "rank %d: %s returned %d\n", rank, #call, rc_);                        \
            MPI_Abort(MPI_COMM_WORLD, 2);                                                          \
        }                                                                                          \
    } while (0)

/* One call's arguments. */
typedef struct {
    int coll, form, root;
    gl_lay_t *sl, *rl; /* send layout (NULL: none), receive layout */
    unsigned char *sbuf, *rbuf;
    MPI_Request req;
} call_t;

static void issue(call_t *c, int first)
{
    MPI_Request *r = &c->req;
    int ph = F_PERSISTENT == c->form, nb = F_NONBLOCKING == c->form;
    gl_lay_t *sl = c->sl, *rl = c->rl;

    if (F_BLOCKING == c->form) {
        switch (c->coll) {
        case C_BCAST:
            MPI_OK(MPI_Bcast(c->rbuf, rl->count, rl->dt, c->root, MPI_COMM_WORLD));
            break;
        case C_ALLGATHER:
            MPI_OK(MPI_Allgather(c->sbuf, sl->count, sl->dt, c->rbuf, rl->count, rl->dt, MPI_COMM_WORLD));
            break;
        case C_ALLTOALL:
            MPI_OK(MPI_Alltoall(c->sbuf, sl->count, sl->dt, c->rbuf, rl->count, rl->dt, MPI_COMM_WORLD));
            break;
        case C_ALLREDUCE:
            MPI_OK(MPI_Allreduce(c->sbuf, c->rbuf, rl->count, rl->dt, MPI_SUM, MPI_COMM_WORLD));
            break;
        default:
            MPI_OK(MPI_Reduce(c->sbuf, c->rbuf, rl->count, rl->dt, MPI_SUM, c->root, MPI_COMM_WORLD));
        }
        return;
    }
    if (nb || first) {
        switch (c->coll) {
        case C_BCAST:
            MPI_OK(nb ? MPI_Ibcast(c->rbuf, rl->count, rl->dt, c->root, MPI_COMM_WORLD, r)
                      : MPI_Bcast_init(c->rbuf, rl->count, rl->dt, c->root, MPI_COMM_WORLD, MPI_INFO_NULL, r));
            break;
        case C_ALLGATHER:
            MPI_OK(nb ? MPI_Iallgather(c->sbuf, sl->count, sl->dt, c->rbuf, rl->count, rl->dt, MPI_COMM_WORLD, r)
                      : MPI_Allgather_init(c->sbuf, sl->count, sl->dt, c->rbuf, rl->count, rl->dt,
                                           MPI_COMM_WORLD, MPI_INFO_NULL, r));
            break;
        case C_ALLTOALL:
            MPI_OK(nb ? MPI_Ialltoall(c->sbuf, sl->count, sl->dt, c->rbuf, rl->count, rl->dt, MPI_COMM_WORLD, r)
                      : MPI_Alltoall_init(c->sbuf, sl->count, sl->dt, c->rbuf, rl->count, rl->dt,
                                          MPI_COMM_WORLD, MPI_INFO_NULL, r));
            break;
        case C_ALLREDUCE:
            MPI_OK(nb ? MPI_Iallreduce(c->sbuf, c->rbuf, rl->count, rl->dt, MPI_SUM, MPI_COMM_WORLD, r)
                      : MPI_Allreduce_init(c->sbuf, c->rbuf, rl->count, rl->dt, MPI_SUM, MPI_COMM_WORLD,
                                           MPI_INFO_NULL, r));
            break;
        default:
            MPI_OK(nb ? MPI_Ireduce(c->sbuf, c->rbuf, rl->count, rl->dt, MPI_SUM, c->root, MPI_COMM_WORLD, r)
                      : MPI_Reduce_init(c->sbuf, c->rbuf, rl->count, rl->dt, MPI_SUM, c->root,
                                        MPI_COMM_WORLD, MPI_INFO_NULL, r));
        }
    }
    if (ph) {
        MPI_OK(MPI_Start(r));
    }
    MPI_OK(MPI_Wait(r, MPI_STATUS_IGNORE));
}

/* The layout kind of this rank's side `recv_side` for placement p: gapped
 * kinds differ between ranks and calls (variant v). */
static int pick_kind(int coll, int p, int is_root, int recv_side, int v)
{
    int gapped;
    if (C_ALLGATHER == coll || C_ALLTOALL == coll) {
        gapped = P_ALL == p || (P_ROOT == p && !recv_side) || (P_OTHERS == p && recv_side);
    } else if (C_BCAST == coll || C_REDUCE == coll) {
        gapped = P_ALL == p || (P_ROOT == p && is_root) || (P_OTHERS == p && !is_root);
    } else { /* allreduce: "root" is rank 0 */
        gapped = P_ALL == p || (P_ROOT == p && 0 == rank) || (P_OTHERS == p && 0 != rank);
    }
    return gapped ? L_BLOCKS + (rank + v + recv_side) % 3 : L_CONTIG;
}

/* Compare buf with exp (bytes + guard); report the first difference. */
static void check(const unsigned char *buf, const unsigned char *exp, size_t bytes, const char *what,
                  const char *desc)
{
    long at = gl_diff(buf, exp, bytes + 64);
    if (at >= 0 && errors++ < 10) {
        fprintf(stderr, "rank %d: FAIL %s: %s differs at byte %ld of %zu (got 0x%02x, expected 0x%02x)\n",
                rank, desc, what, at, bytes, buf[at], exp[at]);
    }
}

/* One collective at one signature, placement, form and root: two rounds
 * (the persistent request started twice, with new contents). */
static void one(int coll, int form, const gl_sig_t *s, int p, int root, int v)
{
    int blocks = C_BCAST == coll || C_ALLREDUCE == coll || C_REDUCE == coll ? 1 : size;
    int sblocks = C_ALLTOALL == coll ? size : 1, is_root = rank == root;
    gl_lay_t sl, rl;
    call_t c = {coll, form, root, NULL, &rl, NULL, NULL, MPI_REQUEST_NULL};
    char desc[256];

    gl_make(&rl, s, pick_kind(coll, p, is_root, 1, v), v);
    if (C_BCAST != coll) {
        /* reductions: one layout per rank for both buffers (send = receive
         * side, so "root"/"others" place the gaps by rank) */
        gl_make(&sl, s, C_ALLREDUCE == coll || C_REDUCE == coll ? rl.kind : pick_kind(coll, p, is_root, 0, v), v);
        c.sl = &sl;
    }
    size_t rbytes = gl_bytes(&rl, blocks), sbytes = c.sl ? gl_bytes(&sl, sblocks) : 0;
    snprintf(desc, sizeof(desc), "%s %s %zu B %s gaps on %s root %d (this rank: send %s, receive %s)",
             form_names[form], coll_names[coll], gl_sig_bytes(s), SIG_MIX == s->sig ? "int/double" : "int",
             place_names[p], root, c.sl ? gl_kind_names[sl.kind] : "-", gl_kind_names[rl.kind]);
    c.rbuf = gl_buffer(rbytes, 0x5a);
    c.sbuf = c.sl ? gl_buffer(sbytes, 0x77) : NULL;
    unsigned char *rexp = gl_xmalloc(rbytes + 64), *sexp = gl_xmalloc(sbytes + 64);

    for (int round = 0; round < (F_PERSISTENT == form ? 2 : 1); round++) {
        uint64_t tag = gl_hash(0x27, (uint64_t)coll << 40 | (uint64_t)p << 32 | (uint64_t)root << 16 | (uint64_t)v,
                               gl_sig_bytes(s) * 4 + (uint64_t)round * 2 + (uint64_t)s->sig);
        /* receive buffer: the previous contents stay in the gaps */
        memcpy(rexp, c.rbuf, rbytes + 64);
        switch (coll) {
        case C_BCAST:
            if (is_root) {
                gl_put(&rl, s, c.rbuf, 0, tag, root, -1);
            }
            gl_put(&rl, s, rexp, 0, tag, root, -1);
            break;
        case C_ALLGATHER:
        case C_ALLTOALL:
            for (int b = 0; b < sblocks; b++) {
                gl_put(&sl, s, c.sbuf, b, tag, rank, C_ALLTOALL == coll ? b : -1);
            }
            for (int src = 0; src < size; src++) {
                gl_put(&rl, s, rexp, src, tag, src, C_ALLTOALL == coll ? rank : -1);
            }
            break;
        default: /* MPI_SUM of ints, wrapping */
            gl_put(&sl, s, c.sbuf, 0, tag, rank, -1);
            if (C_ALLREDUCE == coll || is_root) {
                for (size_t j = 0; j < s->n; j++) {
                    uint32_t acc = 0;
                    for (int q = 0; q < size; q++) {
                        acc += (uint32_t)gl_value(tag, q, -1, j);
                    }
                    memcpy(rexp + rl.disp[j], &acc, 4);
                }
            }
        }
        if (c.sl) {
            memcpy(sexp, c.sbuf, sbytes + 64);
        }
        issue(&c, 0 == round);
        calls++;
        check(c.rbuf, rexp, rbytes, "receive buffer", desc);
        if (c.sl) {
            check(c.sbuf, sexp, sbytes, "send buffer", desc);
        }
        if (errors) {
            /* the ranks would go on differently: end the job here */
            fflush(stderr);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    if (F_PERSISTENT == form) {
        MPI_OK(MPI_Request_free(&c.req));
    }
    free(c.rbuf);
    free(c.sbuf);
    free(rexp);
    free(sexp);
    gl_free(&rl);
    if (c.sl) {
        gl_free(&sl);
    }
}

int main(int argc, char **argv)
{
    /* the signatures straddle every 64 KiB boundary up to 1 MiB */
    static const size_t int_sizes[] = {24, 65536 - 8, 65536 + 8, 131072 + 8, 1048576};
    static const size_t mix_sizes[] = {32, 65536 - 16, 65536 + 16, 131072 + 16, 1048576};
    const char *colls = "bcast,allgather,alltoall", *forms = "b,i,p";
    size_t max_bytes = 1048576, block_max = 1048576;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--colls") && i + 1 < argc) {
            colls = argv[++i];
        } else if (!strcmp(argv[i], "--forms") && i + 1 < argc) {
            forms = argv[++i];
        } else if (!strcmp(argv[i], "--max-bytes") && i + 1 < argc) {
            max_bytes = strtoull(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--block-max-bytes") && i + 1 < argc) {
            block_max = strtoull(argv[++i], NULL, 0);
        } else {
            if (0 == rank) {
                fprintf(stderr, "test_gaps: unknown option %s\n", argv[i]);
            }
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    /* a blocking call first: it sets the window up (nonblocking and
     * persistent calls are served once it exists) */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int coll = 0; coll < NCOLLS && !errors; coll++) {
        if (!strstr(colls, coll_names[coll])) {
            continue;
        }
        int reduction = C_ALLREDUCE == coll || C_REDUCE == coll, rooted = C_BCAST == coll || C_REDUCE == coll;
        size_t limit = C_ALLGATHER == coll || C_ALLTOALL == coll ? block_max : max_bytes;
        for (int form = 0; form < NFORMS && !errors; form++) {
            if (!strchr(forms, "bip"[form])) {
                continue;
            }
            for (int sig = SIG_INT; sig <= (reduction ? SIG_INT : SIG_MIX); sig++) {
                for (int si = 0; si < 5; si++) {
                    size_t bytes = SIG_MIX == sig ? mix_sizes[si] : int_sizes[si];
                    if (bytes > limit) {
                        continue;
                    }
                    gl_sig_t s = gl_sig(sig, bytes);
                    int roots[3] = {0, size - 1, size > 2 ? 1 : -1};
                    for (int ri = 0; ri < (rooted ? 3 : 1); ri++) {
                        if (roots[ri] < 0 || (ri > 0 && roots[ri] == roots[0])) {
                            continue;
                        }
                        for (int p = 0; p < NPLACES && !errors; p++) {
                            one(coll, form, &s, p, roots[ri], (int)(si + p + ri) % 2);
                        }
                    }
                }
            }
        }
    }
    int all;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (0 == rank) {
        if (all) {
            printf("FAIL test_gaps: %d errors\n", all);
        } else {
            printf("test_gaps OK (%ld calls per rank)\n", calls);
        }
    }
    MPI_Finalize();
    return all ? 1 : 0;
}
