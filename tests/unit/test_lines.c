/*
 * Unit test of the cache-line model (tests/unit/plan_sim_lines.c, issue
 * 32): counts computed by hand for a few algorithms, asserted exactly.
 * Every case runs the component's real plans on the plan simulator, so a
 * change to a plan that moves a line shows here.  A second or so.
 *
 * Usage: test_lines [-v]   (-v: every case's counts)
 * Exit 0 pass, 1 fail.
 */
#include "plan_sim_lines.h"

#include "coll_rdma_sched.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int failures, verbose;

static void check(const char *what, const char *field, double got, double want)
{
    if (fabs(got - want) > 1e-9) {
        ++failures;
        printf("FAIL %s: %s is %g, not %g\n", what, field, got, want);
    }
}

/* Run one case; its result. */
static lines_result_t run(const char *what, int coll, int alg, int P, size_t bytes,
                          const coll_rdma_config_t *cfg, const lines_cost_t *cost)
{
    static lines_result_t r;
    lines_setup_t ls;
    char err[2048];

    memset(&ls, 0, sizeof(ls));
    ls.coll = coll;
    ls.alg = alg;
    ls.P = P;
    ls.bytes = bytes;
    ls.cfg = *cfg;
    if (NULL != cost) {
        ls.cost = *cost;
    }
    if (0 != lines_run(&ls, &r, err, sizeof(err))) {
        ++failures;
        printf("FAIL %s: %s\n", what, err);
        memset(&r, 0, sizeof(r));
    } else if (verbose) {
        printf("%s: critical %g (worst %g) busiest %g (worst %g) total %g (worst %g) upgrades %g "
               "time %g\n", what, r.critical, r.critical_max, r.busiest, r.busiest_max, r.total,
               r.total_max, r.upgrades, r.time);
    }
    return r;
}

int main(int argc, char **argv)
{
    coll_rdma_config_t cfg, seg;
    lines_result_t r;

    verbose = argc > 1 && 0 == strcmp(argv[1], "-v");
    lines_config(&cfg);
    seg = cfg;
    seg.bcast_small_slots = 0; /* 8 B through the segment ring, as bcasts above 56 B */

    /*
     * Flat read bcast by the segment ring (no small ring: what bcasts of
     * more than 56 bytes take), P = 4, 8 B, root 0, 8 slots (the default;
     * the period is 8 calls, all measured).  Every call: the root stores the 8 bytes
     * and the word into slot seq % 8 of its own window, one line that the
     * 3 readers last held 8 calls ago: an upgrade, no transfer; each reader
     * polls that word and copies the payload out of the same line: 1
     * transfer each, 3 in all; each reader then publishes its consumed word
     * in its own line (no transfer).  Every 8th call the root's cached
     * credits run out (they grant seq - 8 and older): it loads the 3
     * consumed lines, 3 transfers, and stores the slot only after them.
     * Per call: total (7 * 3 + 6) / 8 = 27/8; busiest: a reader's 1, and
     * the root's 3 in the credit call, (7 * 1 + 3) / 8 = 10/8; critical: 1
     * (the store at entry, which the readers poll from entry on and have
     * one transfer later), and in the credit call 2 (the 3 credit loads at
     * once, the words stored in calls before; then the store; then the
     * readers), (7 + 2) / 8 = 9/8.
     * Upgrades: the root's store every call, and in the credit call the 3
     * readers' publications of the lines the root just read: 1 + 3/8.
     */
    r = run("read bcast P=4 8 B", COLL_RDMA_BCAST, COLL_RDMA_ALG_READ, 4, 8, &seg, NULL);
    check("read bcast P=4", "total", r.total, 27.0 / 8);
    check("read bcast P=4", "busiest", r.busiest, 10.0 / 8);
    check("read bcast P=4", "critical", r.critical, 9.0 / 8);
    check("read bcast P=4", "worst total", r.total_max, 6);
    check("read bcast P=4", "worst busiest", r.busiest_max, 3);
    check("read bcast P=4", "worst critical", r.critical_max, 2);
    check("read bcast P=4", "upgrades", r.upgrades, 1 + 3.0 / 8);
    check("read bcast P=4", "calls", r.calls, 8);

    /* The same with 2 slots: the credits run out every other call (period
     * 4 calls: lcm of 2 slots, parity and 2 reduce rings): total 3 + 3/2,
     * busiest (1 + 3) / 2, critical (1 + 2) / 2. */
    {
        coll_rdma_config_t two = seg;
        two.bcast_slots = 2;
        r = run("read bcast P=4 8 B, 2 slots", COLL_RDMA_BCAST, COLL_RDMA_ALG_READ, 4, 8, &two,
                NULL);
        check("read bcast P=4 2 slots", "total", r.total, 4.5);
        check("read bcast P=4 2 slots", "busiest", r.busiest, 2);
        check("read bcast P=4 2 slots", "critical", r.critical, 1.5);
        check("read bcast P=4 2 slots", "calls", r.calls, 4);
    }

    /*
     * The same 8 B by the small ring (the default: 64 one-line slots; the
     * period is 64 calls, all measured).  Every call as above: the root's
     * store into slot seq % 64, one line with its word, an upgrade; each
     * reader's load of that line, 1 transfer, 3 in all.  The root's cached
     * credits grant seq - 64 and older: every 64th call it loads the 3
     * consumed lines first.  Per call: total 3 + 3/64; busiest (63 * 1 +
     * 3) / 64; critical (63 * 1 + 2) / 64; upgrades 1 + 3/64.  56 bytes,
     * the most the line holds with its word, alike.
     */
    for (size_t bytes = 8; bytes <= COLL_RDMA_BCAST_SMALL_BYTES; bytes += 48) {
        r = run("read bcast P=4 small ring", COLL_RDMA_BCAST, COLL_RDMA_ALG_READ, 4, bytes, &cfg,
                NULL);
        check("read bcast P=4 small ring", "total", r.total, 3 + 3.0 / 64);
        check("read bcast P=4 small ring", "busiest", r.busiest, 66.0 / 64);
        check("read bcast P=4 small ring", "critical", r.critical, 65.0 / 64);
        check("read bcast P=4 small ring", "worst total", r.total_max, 6);
        check("read bcast P=4 small ring", "worst busiest", r.busiest_max, 3);
        check("read bcast P=4 small ring", "worst critical", r.critical_max, 2);
        check("read bcast P=4 small ring", "upgrades", r.upgrades, 1 + 3.0 / 64);
        check("read bcast P=4 small ring", "calls", r.calls, 64);
    }
    /* 57 bytes do not fit: the segment ring, the payload's last byte in a second line
     * (16-byte header): the readers load 2 lines each, the root stores 2 */
    r = run("read bcast P=4 57 B", COLL_RDMA_BCAST, COLL_RDMA_ALG_READ, 4, 57, &cfg, NULL);
    check("read bcast P=4 57 B", "total", r.total, 6 + 3.0 / 8);

    /* 2 small slots: the credits run out every other call (period 8: the
     * segment ring's 8 slots), as with 2 segment slots above. */
    {
        coll_rdma_config_t two = cfg;
        two.bcast_small_slots = 2;
        r = run("read bcast P=4 8 B, 2 small slots", COLL_RDMA_BCAST, COLL_RDMA_ALG_READ, 4, 8,
                &two, NULL);
        check("read bcast P=4 2 small slots", "total", r.total, 4.5);
        check("read bcast P=4 2 small slots", "busiest", r.busiest, 2);
        check("read bcast P=4 2 small slots", "critical", r.critical, 1.5);
        check("read bcast P=4 2 small slots", "calls", r.calls, 8);
    }

    /*
     * Dissemination (n-way) barrier, P = 8, n = 3 (the default): rounds
     * ceil(log_4 8) = 2.  Round 0: every rank stores a flag into the line
     * (0, j) of the ranks j = 1, 2, 3 above it; round 1: one flag, to the
     * rank 4 above.  A flag line has one writer for ever, and its reader
     * held it since the last call: every store is an upgrade (4 per rank,
     * 32 in all), every wait a transfer (4 per rank).  Round 0's flags are
     * stored at entry, when every rank starts waiting for the first of
     * them: not there yet (a store is not seen by a load at the same
     * moment), the rank spins and has it at 1; it waits for the other two
     * only then, and loads them at 2 (the executor waits on one word at a
     * time).  Round 1's flag is stored at 2 and read at 3.  Critical 3,
     * busiest 4, total 32, every call alike.
     */
    r = run("nway barrier P=8 n=3", COLL_RDMA_BARRIER, COLL_RDMA_ALG_NWAY, 8, 0, &cfg, NULL);
    check("nway barrier P=8 n=3", "critical", r.critical, 3);
    check("nway barrier P=8 n=3", "busiest", r.busiest, 4);
    check("nway barrier P=8 n=3", "total", r.total, 32);
    check("nway barrier P=8 n=3", "upgrades", r.upgrades, 32);
    check("nway barrier P=8 n=3", "worst critical", r.critical_max, 3);

    /* n = 1, the classic dissemination barrier: 3 rounds of one flag each,
     * each round's store after the wait before: critical 3, 3 per rank. */
    {
        coll_rdma_config_t one = cfg;
        one.barrier_nway_n = 1;
        r = run("nway barrier P=8 n=1", COLL_RDMA_BARRIER, COLL_RDMA_ALG_NWAY, 8, 0, &one, NULL);
        check("nway barrier P=8 n=1", "critical", r.critical, 3);
        check("nway barrier P=8 n=1", "busiest", r.busiest, 3);
        check("nway barrier P=8 n=1", "total", r.total, 24);
    }

    /*
     * Read barrier, P = 16: every rank stores its own word (an upgrade: all
     * others read it last call) and tests the 15 others in one pass, at
     * entry: none there yet; it polls the last one found short (rank 15's;
     * rank 15 polls rank 14's), has it at 1, then loads the other 14 in a
     * second pass, overlapping, at 2.  15 transfers per rank, a path of 2.
     */
    r = run("read barrier P=16", COLL_RDMA_BARRIER, COLL_RDMA_ALG_READ, 16, 0, &cfg, NULL);
    check("read barrier P=16", "critical", r.critical, 2);
    check("read barrier P=16", "busiest", r.busiest, 15);
    check("read barrier P=16", "total", r.total, 240);

    /*
     * Pairwise allreduce, P = 4, 8 B: 2 steps.  In each, both partners
     * store into the other's slot (instance parity) and wait for their own.
     * The lower rank then reduces into its own slot, which its partner
     * stored: it holds that line (it just read it), so no transfer, but
     * two calls later, when the partner stores there again, the partner
     * must take the line back: a transfer.  Per step: the higher rank 2
     * (its store, its wait), the lower 1; 2 pairs x 2 steps x 3 = 12.  Rank
     * 3 is the higher in both steps: busiest 4.  The path per step: the
     * higher's store takes the line (1), the lower's wait (1): rank 0, the
     * lower in both steps, has its first at 2 and its second at 4.
     */
    r = run("pairwise allreduce P=4", COLL_RDMA_ALLREDUCE, COLL_RDMA_ALG_PAIRWISE, 4, 8, &cfg,
            NULL);
    check("pairwise allreduce P=4", "critical", r.critical, 4);
    check("pairwise allreduce P=4", "busiest", r.busiest, 4);
    check("pairwise allreduce P=4", "total", r.total, 12);

    /*
     * Costs: read barrier, P = 2, a transfer 10, an upgrade 3.  Each rank's
     * store becomes visible at 3 (the other holds the line), the other,
     * polling since 0, has it at 3 + 10: the last exit at 13.
     */
    {
        lines_cost_t cost = {10, 3, 0, 0, 0};
        r = run("read barrier P=2 costs", COLL_RDMA_BARRIER, COLL_RDMA_ALG_READ, 2, 0, &cfg,
                &cost);
        check("read barrier P=2 costs", "time", r.time, 13);
        check("read barrier P=2 costs", "total", r.total, 2);
    }

    /*
     * One line read by 3 at once, each 4 more than the one before: the read
     * bcast at P = 4, a transfer 10, fan 4, no upgrade cost.  The root's
     * slot, stored at entry, polled by the 3 readers from entry: they have
     * it at 10, 14, 18.  In the credit call the root first loads 3
     * consumed lines (3 lines, no queue: all at 10), stores at 10, and the
     * readers have it at 20, 24, 28.  Mean of the last exits: (7 * 18 +
     * 28) / 8 (segment ring), (63 * 18 + 28) / 64 (small ring).
     */
    {
        lines_cost_t cost = {10, 0, 4, 0, 0};
        r = run("read bcast P=4 fan", COLL_RDMA_BCAST, COLL_RDMA_ALG_READ, 4, 8, &seg, &cost);
        check("read bcast P=4 fan", "time", r.time, (7 * 18 + 28) / 8.0);
        r = run("read bcast P=4 fan, small ring", COLL_RDMA_BCAST, COLL_RDMA_ALG_READ, 4, 8, &cfg,
                &cost);
        check("read bcast P=4 fan, small ring", "time", r.time, (63 * 18 + 28) / 64.0);
    }

    /*
     * A rank's transfers at least 2 apart: the read barrier at P = 4, a
     * transfer 10.  The first pass at entry finds no word; rank 0 polls
     * rank 3's from 0, has it at 10 (its next transfer may start at 2);
     * the second pass at 10 loads ranks 1 and 2, starting at 10 and 12,
     * done at 20 and 22.
     */
    {
        lines_cost_t cost = {10, 0, 0, 2, 0};
        r = run("read barrier P=4 gap", COLL_RDMA_BARRIER, COLL_RDMA_ALG_READ, 4, 0, &cfg, &cost);
        check("read barrier P=4 gap", "time", r.time, 22);
    }

    printf("test_lines: %s\n", failures ? "FAILED" : "PASS");
    return failures ? 1 : 0;
}
