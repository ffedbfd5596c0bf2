/*
 * Part of tests/unit/test_bounds: the credit reads over the put path, the
 * transport below the arrival protocol stubbed here (a get's value, its
 * flush), and the default window budget.
 */
#include "ompi_config.h"

#include "test_bounds.h"

#include "coll_rdma_layout.h"
#include "coll_rdma_window_protocol.h"

#include <string.h>

/* ---- credits over the put path: the transport stubbed ------------------------------------- */

/* Each peer's consumed word (the stub's remote base is the peer's index);
 * the get in flight: where it goes, the value it will bring, and whether
 * its flush completes when tested. */
static uint64_t words[P_PLAN];
static uint64_t *get_dst, get_value;
static bool get_in_flight, flush_completes;

int coll_rdma_ucx_get(const coll_rdma_ucx_remote_t *remote, size_t off, void *dst, size_t bytes)
{
    (void) off;
    (void) bytes;
    get_dst = dst;
    get_value = words[remote->base];
    get_in_flight = true;
    return OMPI_SUCCESS;
}

int coll_rdma_ucx_flush_test(void **request, bool *done)
{
    (void) request;
    *done = !get_in_flight || flush_completes;
    if (get_in_flight && flush_completes) {
        *get_dst = get_value;
        get_in_flight = false;
    }
    return OMPI_SUCCESS;
}

int coll_rdma_ucx_put_signal(const coll_rdma_ucx_remote_t *remote, size_t payload_off,
                             const void *src, size_t bytes, size_t word_off, const uint64_t *word,
                             bool *in_flight)
{
    (void) remote, (void) payload_off, (void) src, (void) bytes, (void) word_off, (void) word;
    *in_flight = false;
    return OMPI_SUCCESS;
}

int coll_rdma_ucx_fence(void)
{
    return OMPI_SUCCESS;
}

void coll_rdma_ucx_progress(void)
{
}

void coll_rdma_ucx_want_progress(void)
{
}

int coll_rdma_window_attach_late(coll_rdma_window_t *win, int i)
{
    win->peers[i].pending = false;
    return OMPI_SUCCESS;
}

/* opal_progress() returns the number of events it progressed from Open MPI
 * 5.0 on (void before): the stub takes the shape of the installed header. */
#if OMPI_MAJOR_VERSION >= 5
int opal_progress(void)
{
    return 0;
}
#else
void opal_progress(void)
{
}
#endif

void test_credits(void)
{
    coll_rdma_config_t cfg = COLL_RDMA_CONFIG_DEFAULTS;
    static coll_rdma_window_t w;
    static coll_rdma_peer_t peers[P_PLAN];
    static uint64_t credit[P_PLAN], reduce_credit[P_PLAN];
    uint64_t seq = cfg.debug_seq_start + (uint64_t) cfg.bcast_slots; /* needs instance 1 */
    bool granted = true;

    memset(&w, 0, sizeof(w));
    CHECK(OMPI_SUCCESS == coll_rdma_window_layout(&w, &cfg, P_PLAN, 0), "credits: no layout");
    w.peers = peers;
    w.credit = credit;
    w.reduce_credit = reduce_credit;
    w.nremote = P_PLAN - 1; /* no peer mapped: every credit is a get */
    for (int i = 0; i < P_PLAN; ++i) {
        peers[i].remote.base = (uint64_t) i;
        credit[i] = reduce_credit[i] = cfg.debug_seq_start - 1;
    }
    words[1] = 1000; /* peer 1 consumed far ahead */
    words[2] = 0;    /* peer 2 consumed nothing */
    /* an operation asks peer 1's credit; its get stays in flight (the
     * operation then ends with an error elsewhere) */
    flush_completes = false;
    (void) coll_rdma_window_credit_test(&w, COLL_RDMA_CREDIT_BCAST, 1, seq, &granted);
    CHECK(!granted, "credits: granted before the get completed");
    /* the next operation asks peer 2's: the old get completes now */
    flush_completes = true;
    (void) coll_rdma_window_credit_test(&w, COLL_RDMA_CREDIT_BCAST, 2, seq, &granted);
    CHECK(!granted && credit[2] == cfg.debug_seq_start - 1,
          "credits: peer 2's credit %s on peer 1's word (cache %llu)",
          granted ? "granted" : "cached", (unsigned long long) credit[2]);
    for (int i = 0; i < 3; ++i) {
        (void) coll_rdma_window_credit_test(&w, COLL_RDMA_CREDIT_BCAST, 2, seq, &granted);
    }
    CHECK(!granted && credit[2] == 0, "credits: peer 2 granted on a word of 0");
    words[2] = cfg.debug_seq_start; /* now it consumed instance 1 */
    for (int i = 0; i < 3 && !granted; ++i) {
        (void) coll_rdma_window_credit_test(&w, COLL_RDMA_CREDIT_BCAST, 2, seq, &granted);
    }
    CHECK(granted, "credits: peer 2 never granted once it consumed the instance");
}

/* The default window budget (coll_rdma_window_budget_of): unknown sizes,
 * Docker's 64 MiB /dev/shm at 1 to 16 processes, a large directory (review
 * of the budget, B1, B2). */
void test_budget_default(void)
{
    const size_t mib = (size_t) 1 << 20, dir = 64 * mib;

    CHECK(COLL_RDMA_WINDOW_BUDGET_MAX == coll_rdma_window_budget_of(0, 4),
          "budget: an unknown directory size gives the maximum");
    CHECK(COLL_RDMA_WINDOW_BUDGET_MAX == coll_rdma_window_budget_of((size_t) 24 << 30, 2),
          "budget: a 24 GiB directory gives the maximum");
    CHECK(16 * mib == coll_rdma_window_budget_of(dir, 1), "budget: 64 MiB, 1 process");
    CHECK(16 * mib == coll_rdma_window_budget_of(dir, 0), "budget: 0 processes read as 1");
    CHECK(8 * mib == coll_rdma_window_budget_of(dir, 2), "budget: 64 MiB, 2 processes");
    CHECK(4 * mib == coll_rdma_window_budget_of(dir, 4), "budget: 64 MiB, 4 processes");
    CHECK(4 * mib == coll_rdma_window_budget_of(dir, 5), "budget: 64 MiB, 5 processes: the floor");
    CHECK(4 * mib == coll_rdma_window_budget_of(dir, 8), "budget: 64 MiB, 8 processes: the floor");
    CHECK(2 * mib == coll_rdma_window_budget_of(dir, 16),
          "budget: 64 MiB, 16 processes: half the share, below the floor");
    CHECK(mib / 2 == coll_rdma_window_budget_of(4 * mib, 4), "budget: a tiny directory");
    /* that the default holds a window of up to 8 ranks: tests/unit/test_plans
     * (test_plans_window.c), which has the default rules */
}

