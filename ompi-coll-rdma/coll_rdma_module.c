/*
 * coll/rdma module: one per communicator.  Saves the previous component's
 * functions (the fallback of every call), sets the window up at the first
 * collective, asks the decision layer per call and counts what it served.
 */
#include "ompi_config.h"

#include "coll_rdma.h"
#include "coll_rdma_window.h"

#include <stdlib.h>
#include <string.h>

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/base.h"
#include "ompi/runtime/mpiruntime.h"

/* ---- configuration agreement ------------------------------------------- */

/* Parameters whose values every rank must share, with their MCA names. */
#define CONFIG_FIELDS(X)                                     \
    X(min_comm_size, min_comm_size)                          \
    X(barrier_algorithm, alg[COLL_RDMA_BARRIER])             \
    X(bcast_algorithm, alg[COLL_RDMA_BCAST])                 \
    X(allreduce_algorithm, alg[COLL_RDMA_ALLREDUCE])         \
    X(barrier_nway_n, barrier_nway_n)                        \
    X(bcast_radix, bcast_radix)                              \
    X(bcast_slots, bcast_slots)                              \
    X(bcast_segment_bytes, bcast_segment_bytes)              \
    X(bcast_max_bytes, bcast_max_bytes)                      \
    X(allreduce_ktree_degree, allreduce_ktree_degree)        \
    X(allreduce_max_bytes, allreduce_max_bytes)              \
    X(allreduce_read_max_bytes, allreduce_read_max_bytes)    \
    X(allreduce_nway_n, allreduce_nway_n)                    \
    X(allreduce_bruck_n, allreduce_bruck_n)                  \
    X(allreduce_short_max_bytes, allreduce_short_max_bytes)  \
    X(allreduce_ring_max_ranks, allreduce_ring_max_ranks)    \
    X(allreduce_ring_segment_bytes, allreduce_ring_segment_bytes) \
    X(allreduce_ring_slots, allreduce_ring_slots)            \
    X(allgather_algorithm, alg[COLL_RDMA_ALLGATHER])         \
    X(allgather_max_bytes, allgather_max_bytes)              \
    X(alltoall_algorithm, alg[COLL_RDMA_ALLTOALL])           \
    X(alltoall_max_bytes, alltoall_max_bytes)                \
    X(reduce_algorithm, alg[COLL_RDMA_REDUCE])               \
    X(reduce_radix, reduce_radix)                            \
    X(reduce_max_bytes, reduce_max_bytes) \
    X(debug_seq_start, debug_seq_start)

#define X_COUNT(name, field) +1
enum { NCONFIG = 0 CONFIG_FIELDS(X_COUNT) };

typedef struct setup_header {
    int64_t ok;           /* window allocated and UCX up on this rank */
    int64_t blob_bytes;   /* size of this rank's exchange blob */
    int64_t config[NCONFIG];
    /* this process's op self-test: where Open MPI's own reduction is wrong
     * (coll_rdma_op_fallback_wrong), ORed over the ranks */
    uint64_t wrong[OMPI_OP_BASE_FORTRAN_OP_MAX];
} setup_header_t;

static void config_pack(const coll_rdma_config_t *cfg, int64_t *out)
{
    int i = 0;
#define X_PACK(name, field) out[i++] = (int64_t) cfg->field;
    CONFIG_FIELDS(X_PACK)
#undef X_PACK
}

static const char *const config_names[NCONFIG] = {
#define X_NAME(name, field) "coll_rdma_" #name,
    CONFIG_FIELDS(X_NAME)
#undef X_NAME
};

/* ---- window setup -------------------------------------------------------- */

static int exchange(mca_coll_rdma_module_t *m, struct ompi_communicator_t *comm, const void *mine,
                    void *all, size_t bytes)
{
    return m->previous_allgather(mine, (int) bytes, MPI_BYTE, all, (int) bytes, MPI_BYTE, comm,
                                 m->previous_allgather_module);
}

/* Whether every rank reported the same configuration and ok; warns once
 * about a configuration that differs (whatever the oks). */
static bool headers_agree(const setup_header_t *headers, int size, int rank)
{
    for (int i = 0; i < size; ++i) {
        for (int f = 0; f < NCONFIG; ++f) {
            if (headers[i].config[f] != headers[0].config[f]) {
                if (0 == rank) {
                    mca_coll_rdma_output("warning: %s differs between ranks (%lld at rank 0, %lld "
                                         "at rank %d); coll/rdma falls back on this communicator",
                                         config_names[f], (long long) headers[0].config[f],
                                         (long long) headers[i].config[f], i);
                }
                return false;
            }
        }
    }
    for (int i = 0; i < size; ++i) {
        if (!headers[i].ok) {
            return false;
        }
    }
    return true;
}

/*
 * Collective over comm: allocate this rank's window and connect to every
 * peer's.  Every step ends with an agreement, so all ranks leave with the
 * same state.  Uses only the saved previous allgather(v).
 */
static int window_setup(mca_coll_rdma_module_t *m, struct ompi_communicator_t *comm)
{
    int size = ompi_comm_size(comm), rank = ompi_comm_rank(comm);
    const coll_rdma_config_t *cfg = &mca_coll_rdma_component.config;
    coll_rdma_window_t *win = NULL;
    setup_header_t mine, *headers = calloc(size, sizeof(*headers));
    int *counts = calloc(size, sizeof(int)), *displs = calloc(size, sizeof(int));
    int64_t ok, *oks = calloc(size, sizeof(int64_t));
    char *blobs = NULL, *blob = NULL;
    size_t total = 0;
    bool agreed = false;
    int rc;

    memset(&mine, 0, sizeof(mine));
    if (NULL == headers || NULL == counts || NULL == displs || NULL == oks) {
        /* cannot even take part in the agreement: the job cannot go on */
        rc = OMPI_ERR_OUT_OF_RESOURCE;
        goto out;
    }
    /* Below min_comm_size this rank takes part in the agreement without a
     * window: deciding it in comm_query instead would hang the job when the
     * parameter differs between ranks (the others' set-up exchange would
     * meet this rank's plain collective). */
    if (size >= cfg->min_comm_size) {
        /* waits for the start-up helper, if it is still at work */
        coll_rdma_ucx_lock();
        rc = coll_rdma_ucx_init();
        coll_rdma_op_selftest();
        coll_rdma_ucx_unlock();
        coll_rdma_op_fallback_wrong(mine.wrong);
        if (OMPI_SUCCESS == rc) {
            win = coll_rdma_window_alloc(cfg, size, rank);
        }
    }
    if (NULL != win) {
        mine.ok = 1;
        mine.blob_bytes = (int64_t) coll_rdma_window_blob_size(win);
    }
    config_pack(cfg, mine.config);
    rc = exchange(m, comm, &mine, headers, sizeof(mine));
    if (OMPI_SUCCESS != rc) {
        goto out;
    }
    if (headers_agree(headers, size, rank)) {
        /* Where the fallback is wrong on any rank, its result is wrong: every
         * rank serves such calls, and decides alike from the same union. */
        for (int i = 0; i < size; ++i) {
            for (int f = 0; f < OMPI_OP_BASE_FORTRAN_OP_MAX; ++f) {
                m->fallback_wrong[f] |= headers[i].wrong[f];
            }
        }
        for (int i = 0; i < size; ++i) {
            counts[i] = (int) headers[i].blob_bytes;
            displs[i] = (int) total;
            total += (size_t) headers[i].blob_bytes;
        }
        blobs = malloc(total);
        blob = malloc(mine.blob_bytes);
        if (NULL == blobs || NULL == blob) {
            /* peers are already in the allgatherv: nothing sane is left */
            rc = OMPI_ERR_OUT_OF_RESOURCE;
            goto out;
        }
        coll_rdma_window_pack(win, blob);
        rc = m->previous_allgatherv(blob, counts[rank], MPI_BYTE, blobs, counts, displs, MPI_BYTE,
                                    comm, m->previous_allgatherv_module);
        if (OMPI_SUCCESS != rc) {
            goto out;
        }
        /* bit 0: connected; bit 1: maps every peer's window */
        ok = OMPI_SUCCESS == coll_rdma_window_attach(win, comm, blobs, displs);
        ok |= ok && 0 == win->nremote ? 2 : 0;
        /* a peer that failed to connect must not be written to by others */
        rc = exchange(m, comm, &ok, oks, sizeof(ok));
        if (OMPI_SUCCESS != rc) {
            goto out;
        }
        agreed = true;
        win->all_direct = true;
        for (int i = 0; i < size; ++i) {
            agreed = agreed && (oks[i] & 1);
            win->all_direct = win->all_direct && (oks[i] & 2);
        }
    }
out:
    if (agreed) {
        m->window = win;
        m->window_state = COLL_RDMA_WINDOW_READY;
        /* the instance before the first: what every window word holds */
        for (int c = 0; c < COLL_RDMA_NCOLLS; ++c) {
            m->seq[c] = cfg->debug_seq_start - 1;
        }
    } else {
        coll_rdma_window_free(win);
        m->window_state = COLL_RDMA_WINDOW_FAILED;
        if (mca_coll_rdma_component.verbose >= 1 && 0 == rank) {
            mca_coll_rdma_output("no window on communicator %s (size %d): every call falls back",
                                 comm->c_name, size);
        }
    }
    free(headers);
    free(counts);
    free(displs);
    free(oks);
    free(blobs);
    free(blob);
    return rc;
}

/*
 * Whether this communicator's window is ready; if not, *why says why the call
 * falls back.  Set up at the call after the first window_setup_calls ones:
 * every rank makes the same calls in the same order, so all count alike.
 * `now` (a reduction Open MPI itself may get wrong, coll_rdma_op_suspect())
 * ends the warm-up at this call: it is the same on every rank too.
 */
static inline bool window_ready(mca_coll_rdma_module_t *m, struct ompi_communicator_t *comm,
                                bool now, int *why)
{
    *why = COLL_RDMA_WHY_WINDOW;
    if (OPAL_UNLIKELY(COLL_RDMA_WINDOW_NONE == m->window_state)) {
        if (m->warmup_calls < mca_coll_rdma_component.window_setup_calls && !now) {
            ++m->warmup_calls;
            *why = COLL_RDMA_WHY_WARMUP;
            return false;
        }
        /* The previous allgather(v) may call this communicator's bcast or
         * barrier, which is ours: those nested calls must fall back. */
        m->window_state = COLL_RDMA_WINDOW_SETUP;
        (void) window_setup(m, comm);
    }
    return COLL_RDMA_WINDOW_READY == m->window_state;
}

/* ---- statistics ------------------------------------------------------------ */

/* Threads may run collectives on distinct communicators at once. */
static inline void count(uint64_t *counter, uint64_t n)
{
    if (OPAL_UNLIKELY(ompi_mpi_thread_multiple)) {
        __atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
    } else {
        *counter += n;
    }
}

static inline void count_served(int coll, int alg, size_t bytes)
{
    count(&mca_coll_rdma_component.served_calls[coll][alg], 1);
    count(&mca_coll_rdma_component.served_bytes[coll][alg], bytes);
}

static inline void count_fallback(int coll, int why)
{
    count(&mca_coll_rdma_component.fallback_calls[coll][why], 1);
}

/*
 * A call served only because Open MPI's own reduction of its (op, type) is
 * wrong (the decision's *rescued): counted, and said once per collective and
 * pair at verbose >= 1 (by the communicator's rank 0).
 */
static void count_rescued(int coll, int alg, ompi_op_t *op, ompi_datatype_t *dtype,
                          struct ompi_communicator_t *comm)
{
    static uint64_t said[COLL_RDMA_NCOLLS][OMPI_OP_BASE_FORTRAN_OP_MAX];
    int f = op->o_f_to_c_index, t = ompi_op_ddt_map[dtype->id];
    uint64_t bit = (uint64_t) 1 << t;

    count(&mca_coll_rdma_component.wrong_fallback_calls[coll], 1);
    if (mca_coll_rdma_component.verbose >= 1 && 0 == ompi_comm_rank(comm)
        && 0 == (__atomic_fetch_or(&said[coll][f], bit, __ATOMIC_RELAXED) & bit)) {
        mca_coll_rdma_output("%s %s on %s: Open MPI's own reduction computes wrong results on "
                             "this installation (op self-test), so coll/rdma serves such calls at "
                             "every size, beyond its thresholds (%s)",
                             COLL_RDMA_ALLREDUCE == coll ? "MPI_Allreduce" : "MPI_Reduce",
                             op->o_name, dtype->name,
                             COLL_RDMA_ALG_RING == alg ? "segmented ring"
                                                       : "k-nomial tree in chunks");
    }
}

/* Forced nway on a (n, P) without a plan: Bruck served it. */
static inline void count_nway_not_adaptable(int alg)
{
    if (COLL_RDMA_ALG_BRUCK == alg
        && COLL_RDMA_ALG_NWAY == mca_coll_rdma_component.config.alg[COLL_RDMA_ALLREDUCE]) {
        count(&mca_coll_rdma_component.allreduce_nway_not_adaptable, 1);
    }
}

/* ---- entry points ------------------------------------------------------------ */

static int rdma_barrier(struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    mca_coll_rdma_module_t *m = (mca_coll_rdma_module_t *) module;
    int why;
    int alg = window_ready(m, comm, false, &why)
                  ? coll_rdma_decide_barrier(&mca_coll_rdma_component.config, ompi_comm_size(comm),
                                             m->window->all_direct, &why)
                  : COLL_RDMA_ALG_FALLBACK;

    if (COLL_RDMA_ALG_FALLBACK == alg) {
        count_fallback(COLL_RDMA_BARRIER, why);
        return m->previous_barrier(comm, m->previous_barrier_module);
    }
    count_served(COLL_RDMA_BARRIER, alg, 0);
    if (COLL_RDMA_ALG_READ == alg) {
        return coll_rdma_barrier_read(m, comm);
    }
    if (COLL_RDMA_ALG_PAIRWISE == alg) {
        return coll_rdma_barrier_pairwise(m, comm);
    }
    return coll_rdma_barrier_nway(m, comm);
}

static int rdma_bcast(void *buf, int count, struct ompi_datatype_t *dtype, int root,
                      struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    mca_coll_rdma_module_t *m = (mca_coll_rdma_module_t *) module;
    size_t bytes = (size_t) count * dtype->super.size;
    int why;
    int alg = COLL_RDMA_ALG_FALLBACK;

    if (window_ready(m, comm, false, &why)) {
        alg = coll_rdma_decide_bcast(&mca_coll_rdma_component.config, ompi_comm_size(comm), bytes,
                                     ompi_datatype_is_contiguous_memory_layout(dtype, count),
                                     m->window->all_direct, &why);
    }
    if (COLL_RDMA_ALG_FALLBACK == alg) {
        count_fallback(COLL_RDMA_BCAST, why);
        return m->previous_bcast(buf, count, dtype, root, comm, m->previous_bcast_module);
    }
    count_served(COLL_RDMA_BCAST, alg, bytes);
    if (0 == bytes) {
        return OMPI_SUCCESS;
    }
    if (COLL_RDMA_ALG_READ == alg) {
        return coll_rdma_bcast_read((char *) buf + dtype->super.true_lb, bytes, root, m, comm);
    }
    return coll_rdma_bcast_knomial((char *) buf + dtype->super.true_lb, bytes, root, m, comm);
}

static int rdma_allreduce(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
                          struct ompi_op_t *op, struct ompi_communicator_t *comm,
                          mca_coll_base_module_t *module)
{
    mca_coll_rdma_module_t *m = (mca_coll_rdma_module_t *) module;
    size_t bytes = (size_t) count * dtype->super.size;
    bool rescued = false;
    int why;
    int alg = COLL_RDMA_ALG_FALLBACK;

    if (window_ready(m, comm, coll_rdma_op_suspect(op, dtype), &why)) {
        bool predefined = ompi_datatype_is_predefined(dtype)
                          && ompi_datatype_is_contiguous_memory_layout(dtype, count);
        bool supported = predefined && coll_rdma_op_supported(op, dtype);
        alg = coll_rdma_decide_allreduce(
            &mca_coll_rdma_component.config, ompi_comm_size(comm), bytes, predefined, supported,
            supported && coll_rdma_op_order_independent(op, dtype), m->window->all_direct,
            supported && coll_rdma_op_is_fallback_wrong(m->fallback_wrong, op, dtype), &rescued,
            &why);
    }
    if (COLL_RDMA_ALG_FALLBACK == alg) {
        count_fallback(COLL_RDMA_ALLREDUCE, why);
        return m->previous_allreduce(sbuf, rbuf, count, dtype, op, comm,
                                     m->previous_allreduce_module);
    }
    count_served(COLL_RDMA_ALLREDUCE, alg, bytes);
    count_nway_not_adaptable(alg);
    if (rescued) {
        count_rescued(COLL_RDMA_ALLREDUCE, alg, op, dtype, comm);
    }
    if (0 == bytes) {
        return OMPI_SUCCESS;
    }
    switch (alg) {
    case COLL_RDMA_ALG_PAIRWISE:
        return coll_rdma_allreduce_pairwise(sbuf, rbuf, (size_t) count, dtype, op, m, comm);
    case COLL_RDMA_ALG_NWAY:
        return coll_rdma_allreduce_nway(sbuf, rbuf, (size_t) count, dtype, op, m, comm);
    case COLL_RDMA_ALG_BRUCK:
        return coll_rdma_allreduce_bruck(sbuf, rbuf, (size_t) count, dtype, op, m, comm);
    case COLL_RDMA_ALG_RING:
        return coll_rdma_allreduce_ring(sbuf, rbuf, (size_t) count, dtype, op, m, comm);
    case COLL_RDMA_ALG_READ:
        return coll_rdma_allreduce_read(sbuf, rbuf, (size_t) count, dtype, op, m, comm);
    default:
        return coll_rdma_allreduce_ktree(sbuf, rbuf, (size_t) count, dtype, op, m, comm);
    }
}

/*
 * Datatypes of allgather and alltoall: the decision is on bytes only (MPI
 * requires matching type signatures, not layouts), and the algorithms move
 * contiguous bytes.  A contiguous layout is used in place (from its true
 * lower bound); any other is packed into, or unpacked from, a temporary
 * buffer with Open MPI's datatype engine (ompi_datatype_sndrcv).
 */
static bool contiguous(ompi_datatype_t *dtype, size_t count)
{
    return ompi_datatype_is_contiguous_memory_layout(dtype, (int32_t) count);
}

/* `bytes` of packed data of count x dtype at buf: the buffer itself or *copy. */
static int packed_view(const void *buf, size_t count, ompi_datatype_t *dtype, size_t bytes,
                       const char **view, char **copy)
{
    int rc;

    *copy = NULL;
    if (contiguous(dtype, count)) {
        *view = (const char *) buf + dtype->super.true_lb;
        return OMPI_SUCCESS;
    }
    *copy = malloc(bytes);
    if (NULL == *copy) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    *view = *copy;
    rc = ompi_datatype_sndrcv(buf, (int32_t) count, dtype, *copy, (int32_t) bytes, MPI_BYTE);
    if (OMPI_SUCCESS != rc) {
        free(*copy);
        *copy = NULL;
    }
    return rc;
}

/*
 * Where the algorithm writes count x dtype's `bytes` at buf: the buffer
 * itself, or *copy (then unpacked by unpack_result()).  With `fill`, the
 * copy starts as the packed current contents of buf (in place).
 */
static int result_view(void *buf, size_t count, ompi_datatype_t *dtype, size_t bytes, bool fill,
                       char **view, char **copy)
{
    if (fill || contiguous(dtype, count)) {
        return packed_view(buf, count, dtype, bytes, (const char **) view, copy);
    }
    *view = *copy = malloc(bytes);
    return NULL == *copy ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}

static int unpack_result(void *buf, size_t count, ompi_datatype_t *dtype, size_t bytes,
                         char *copy)
{
    int rc = OMPI_SUCCESS;

    if (NULL != copy) {
        rc = ompi_datatype_sndrcv(copy, (int32_t) bytes, MPI_BYTE, buf, (int32_t) count, dtype);
        free(copy);
    }
    return rc;
}

/* An allgather or alltoall algorithm on contiguous bytes: `in` holds this
 * rank's input (one block or one per rank), `out` P blocks. */
typedef int (*block_alg_fn_t)(const void *in, void *out, size_t block,
                              mca_coll_rdma_module_t *module, struct ompi_communicator_t *comm);

/*
 * Run `alg` for an allgather or alltoall of `block` bytes per rank on
 * contiguous views of the buffers: the input is in_count x sdtype at sbuf
 * (in_bytes packed), or, with MPI_IN_PLACE, in the output from byte
 * in_place_offset; the output is rcount_total x rdtype at rbuf (size *
 * block packed).  Non-contiguous layouts go through temporary buffers.
 */
static int serve_blocks(block_alg_fn_t alg, const void *sbuf, size_t in_count,
                        ompi_datatype_t *sdtype, size_t in_bytes, size_t in_place_offset,
                        void *rbuf, size_t rcount_total, ompi_datatype_t *rdtype, size_t block,
                        mca_coll_rdma_module_t *m, struct ompi_communicator_t *comm)
{
    size_t out_bytes = (size_t) ompi_comm_size(comm) * block;
    const char *in;
    char *out, *rcopy, *scopy = NULL;
    int rc;

    rc = result_view(rbuf, rcount_total, rdtype, out_bytes, MPI_IN_PLACE == sbuf, &out, &rcopy);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (MPI_IN_PLACE == sbuf) {
        in = out + in_place_offset; /* the algorithms handle input inside the output */
    } else {
        rc = packed_view(sbuf, in_count, sdtype, in_bytes, &in, &scopy);
    }
    if (OMPI_SUCCESS == rc) {
        rc = alg(in, out, block, m, comm);
    }
    free(scopy);
    if (OMPI_SUCCESS == rc) {
        rc = unpack_result(rbuf, rcount_total, rdtype, out_bytes, rcopy);
    } else {
        free(rcopy);
    }
    return rc;
}

static int rdma_allgather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,
                          int rcount, struct ompi_datatype_t *rdtype,
                          struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    mca_coll_rdma_module_t *m = (mca_coll_rdma_module_t *) module;
    int size = ompi_comm_size(comm), rank = ompi_comm_rank(comm);
    size_t block = (size_t) rcount * rdtype->super.size;
    int why;
    int alg = COLL_RDMA_ALG_FALLBACK;

    if (window_ready(m, comm, false, &why)) {
        alg = coll_rdma_decide_allgather(&mca_coll_rdma_component.config, size, block, &why);
    }
    if (COLL_RDMA_ALG_FALLBACK == alg) {
        count_fallback(COLL_RDMA_ALLGATHER, why);
        return m->previous_allgather(sbuf, scount, sdtype, rbuf, rcount, rdtype, comm,
                                     m->previous_allgather_module);
    }
    count_served(COLL_RDMA_ALLGATHER, alg, (size_t) size * block);
    if (0 == block) {
        return OMPI_SUCCESS;
    }
    /* in place: this rank's block is already in rbuf */
    return serve_blocks(COLL_RDMA_ALG_RING == alg ? coll_rdma_allgather_ring
                                                  : coll_rdma_allgather_bruck,
                        sbuf, (size_t) scount, sdtype, block, (size_t) rank * block, rbuf,
                        (size_t) rcount * size, rdtype, block, m, comm);
}

static int rdma_alltoall(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,
                         int rcount, struct ompi_datatype_t *rdtype,
                         struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    mca_coll_rdma_module_t *m = (mca_coll_rdma_module_t *) module;
    int size = ompi_comm_size(comm);
    size_t block = (size_t) rcount * rdtype->super.size;
    int why;
    int alg = COLL_RDMA_ALG_FALLBACK;

    if (window_ready(m, comm, false, &why)) {
        alg = coll_rdma_decide_alltoall(&mca_coll_rdma_component.config, size, block, &why);
    }
    if (COLL_RDMA_ALG_FALLBACK == alg) {
        count_fallback(COLL_RDMA_ALLTOALL, why);
        return m->previous_alltoall(sbuf, scount, sdtype, rbuf, rcount, rdtype, comm,
                                    m->previous_alltoall_module);
    }
    count_served(COLL_RDMA_ALLTOALL, alg, (size_t) size * block);
    if (0 == block) {
        return OMPI_SUCCESS;
    }
    return serve_blocks(COLL_RDMA_ALG_BRUCK == alg ? coll_rdma_alltoall_bruck
                                                   : coll_rdma_alltoall_direct,
                        sbuf, (size_t) scount * size, sdtype, (size_t) size * block, 0, rbuf,
                        (size_t) rcount * size, rdtype, block, m, comm);
}

static int rdma_reduce(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
                       struct ompi_op_t *op, int root, struct ompi_communicator_t *comm,
                       mca_coll_base_module_t *module)
{
    mca_coll_rdma_module_t *m = (mca_coll_rdma_module_t *) module;
    size_t bytes = (size_t) count * dtype->super.size, extent = dtype->super.size, chunk;
    bool rescued = false, is_root = ompi_comm_rank(comm) == root;
    int why, rc = OMPI_SUCCESS;
    int alg = COLL_RDMA_ALG_FALLBACK;

    if (window_ready(m, comm, coll_rdma_op_suspect(op, dtype), &why)) {
        bool predefined = ompi_datatype_is_predefined(dtype)
                          && ompi_datatype_is_contiguous_memory_layout(dtype, count);
        bool supported = predefined && coll_rdma_op_supported(op, dtype);
        alg = coll_rdma_decide_reduce(
            &mca_coll_rdma_component.config, ompi_comm_size(comm), bytes, predefined, supported,
            supported && coll_rdma_op_is_fallback_wrong(m->fallback_wrong, op, dtype), &rescued,
            &why);
    }
    if (COLL_RDMA_ALG_FALLBACK == alg) {
        count_fallback(COLL_RDMA_REDUCE, why);
        return m->previous_reduce(sbuf, rbuf, count, dtype, op, root, comm,
                                  m->previous_reduce_module);
    }
    count_served(COLL_RDMA_REDUCE, alg, bytes);
    if (rescued) {
        count_rescued(COLL_RDMA_REDUCE, alg, op, dtype, comm);
    }
    if (0 == bytes) {
        return OMPI_SUCCESS;
    }
    if (MPI_IN_PLACE != sbuf) {
        sbuf = (const char *) sbuf + dtype->super.true_lb;
    }
    if (is_root) {
        rbuf = (char *) rbuf + dtype->super.true_lb;
    }
    /*
     * Larger than the window's reduce slots (only where the decision says
     * the fallback would be wrong): one k-nomial instance per chunk of at
     * most the slot payload, in order.  Every rank cuts the same chunks
     * (count and type match), and each instance is a complete reduce with
     * its own sequence number, so the slot and credit arguments hold as for
     * separate calls.
     */
    chunk = m->window->reduce_bytes / extent;
    for (size_t done = 0; OMPI_SUCCESS == rc && done < (size_t) count; done += chunk) {
        size_t n = (size_t) count - done < chunk ? (size_t) count - done : chunk;
        rc = coll_rdma_reduce_knomial(MPI_IN_PLACE == sbuf ? sbuf
                                                           : (const char *) sbuf + done * extent,
                                      is_root ? (char *) rbuf + done * extent : rbuf, n, dtype, op,
                                      root, m, comm);
    }
    return rc;
}

/* ---- module life ------------------------------------------------------------- */

#define SAVE_PREVIOUS(m, comm, name)                                                    \
    do {                                                                                \
        (m)->previous_##name = COLL_RDMA_COMM_TABLE(comm)->coll_##name;                \
        (m)->previous_##name##_module = COLL_RDMA_COMM_TABLE(comm)->coll_##name##_module; \
        if (NULL == (m)->previous_##name || NULL == (m)->previous_##name##_module) {    \
            return OMPI_ERROR;                                                          \
        }                                                                               \
        OBJ_RETAIN((m)->previous_##name##_module);                                      \
    } while (0)

/* Modules are enabled lowest priority first: the table now holds what the
 * components below us chose, which is our fallback. */
static int rdma_module_enable(mca_coll_base_module_t *module, struct ompi_communicator_t *comm)
{
    mca_coll_rdma_module_t *m = (mca_coll_rdma_module_t *) module;

    SAVE_PREVIOUS(m, comm, barrier);
    SAVE_PREVIOUS(m, comm, bcast);
    SAVE_PREVIOUS(m, comm, allreduce);
    SAVE_PREVIOUS(m, comm, allgather);
    SAVE_PREVIOUS(m, comm, allgatherv);
    SAVE_PREVIOUS(m, comm, alltoall);
    SAVE_PREVIOUS(m, comm, reduce);
    /* MPI_COMM_WORLD's coll selection is MPI_Init's last step: from here on
     * the start-up helper must not take the application's cores */
    if (&ompi_mpi_comm_world.comm == comm) {
        coll_rdma_ucx_prestart_give_way();
    }
    return OMPI_SUCCESS;
}

static void rdma_module_construct(mca_coll_rdma_module_t *m)
{
    memset((char *) m + sizeof(m->super), 0, sizeof(*m) - sizeof(m->super));
}

static void rdma_module_destruct(mca_coll_rdma_module_t *m)
{
    coll_rdma_window_free(m->window);
    m->window = NULL;
    if (NULL != m->previous_barrier_module) OBJ_RELEASE(m->previous_barrier_module);
    if (NULL != m->previous_bcast_module) OBJ_RELEASE(m->previous_bcast_module);
    if (NULL != m->previous_allreduce_module) OBJ_RELEASE(m->previous_allreduce_module);
    if (NULL != m->previous_allgather_module) OBJ_RELEASE(m->previous_allgather_module);
    if (NULL != m->previous_allgatherv_module) OBJ_RELEASE(m->previous_allgatherv_module);
    if (NULL != m->previous_alltoall_module) OBJ_RELEASE(m->previous_alltoall_module);
    if (NULL != m->previous_reduce_module) OBJ_RELEASE(m->previous_reduce_module);
}

OBJ_CLASS_INSTANCE(mca_coll_rdma_module_t, mca_coll_base_module_t, rdma_module_construct,
                   rdma_module_destruct);

mca_coll_base_module_t *mca_coll_rdma_comm_query(struct ompi_communicator_t *comm, int *priority)
{
    mca_coll_rdma_component_t *c = &mca_coll_rdma_component;
    mca_coll_rdma_module_t *m;

    if (OMPI_COMM_IS_INTER(comm) || ompi_comm_size(comm) < 2 || c->priority < 0) {
        return NULL;
    }
    m = OBJ_NEW(mca_coll_rdma_module_t);
    if (NULL == m) {
        return NULL;
    }
    m->super.coll_module_enable = rdma_module_enable;
    m->super.coll_barrier = rdma_barrier;
    m->super.coll_bcast = rdma_bcast;
    m->super.coll_allreduce = rdma_allreduce;
    m->super.coll_allgather = rdma_allgather;
    m->super.coll_alltoall = rdma_alltoall;
    m->super.coll_reduce = rdma_reduce;
    *priority = c->priority;
    return &m->super;
}
