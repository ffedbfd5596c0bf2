/*
 * coll/rdma transport, the seam under the window (coll_rdma_ucx.c):
 * endpoints cached per peer process, windows allocated by UCX so that puts
 * are truly one-sided (DESIGN.md section 3), puts, gets, flushes.  Above
 * the process's start (coll_rdma_ucx_start.h).
 */
#ifndef COLL_RDMA_UCX_H
#define COLL_RDMA_UCX_H

#include "ompi_config.h"

#include <stdbool.h>
#include <stddef.h>
#include <ucp/api/ucp.h>
#include <ucs/config/global_opts.h>

#include "coll_rdma_ucx_start.h"

#include "ompi/proc/proc.h"

/* ---- the seam under the window ----------------------------------------------
 * What coll_rdma_window.c asks of the network, and all it asks: memory,
 * the address a peer needs, attaching a peer's window, put-with-signal, get,
 * flush, progress.  A transport beside UCX (libibverbs) would provide these
 * and nothing in the window's callers or the algorithms would change. */

/** This process's registered memory of one window. */
typedef struct coll_rdma_ucx_mem {
    ucp_mem_h memh;
    void *rkey_buf;    /* packed rkey, until coll_rdma_ucx_address_done() */
    size_t rkey_len;
    size_t bytes;      /* mapped (counted in coll_rdma_ucx_mapped()) */
} coll_rdma_ucx_mem_t;

/** A peer's window as this process reaches it by RMA. */
typedef struct coll_rdma_ucx_remote {
    ucp_ep_h ep;
    ucp_rkey_h rkey;
    uint64_t base;     /* the window's address in the peer */
    bool emulated;     /* not mapped, and UCX has no RMA lane to it: puts are active messages */
} coll_rdma_ucx_remote_t;

/**
 * Allocate and register `bytes` of window memory (UCP_MEM_MAP_ALLOCATE; its
 * address at *base) and pack its rkey.  Returns OMPI_SUCCESS or
 * OMPI_ERR_OUT_OF_RESOURCE (reason printed at coll_rdma_verbose >= 1).
 * Call with the UCX lock held.
 */
int coll_rdma_ucx_mem_alloc(size_t bytes, coll_rdma_ucx_mem_t *mem, void **base);

/** Pack the rkey of memory whose packed rkey was released (a window kept
 * for reuse, coll_rdma_window.h, "the pool") again; UCX lock held. */
int coll_rdma_ucx_mem_repack(coll_rdma_ucx_mem_t *mem);

/** Unregister and free window memory, its packed rkey too.  UCX lock held. */
void coll_rdma_ucx_mem_free(coll_rdma_ucx_mem_t *mem);

/** Bytes of window memory this process has mapped now (UCX lock held). */
size_t coll_rdma_ucx_mapped(void);

/** Bytes of the address a peer needs to reach window memory `mem`, besides
 * this process's worker address. */
size_t coll_rdma_ucx_address_size(const coll_rdma_ucx_mem_t *mem);

/**
 * Write that address into `blob` (coll_rdma_ucx_address_size() bytes): the
 * window's base and its rkey.
 */
void coll_rdma_ucx_address_pack(const coll_rdma_ucx_mem_t *mem, const void *base, void *blob);

/** Every peer attached: the packed rkey is not needed any more. */
void coll_rdma_ucx_address_done(coll_rdma_ucx_mem_t *mem);

/*
 * Worker addresses.  A process's worker address goes to a peer process
 * once, not with every communicator: the set-up (coll_rdma_records.c) sends
 * it in its record to a peer until that peer said that it holds it (in a
 * record of its own, or by ending a set-up connected: coll_rdma_records_
 * agreed()); a process keeps every peer's address it learned, for every
 * communicator, until the component closes.  A peer says so only about an
 * address it had stored before it filled the record that says it, so
 * omitting it afterwards is safe whatever order set-ups of different
 * communicators end in.  The first three: UCX lock held.
 */

/** This process holds `proc`'s worker address. */
bool coll_rdma_ucx_peer_known(ompi_proc_t *proc);

/** `proc` said that it holds this process's worker address. */
bool coll_rdma_ucx_peer_holds_mine(ompi_proc_t *proc);

/**
 * What a record of `proc` said: its worker address (`address`, `len` bytes;
 * NULL where the record omitted it; kept, and replaced where it differs:
 * the process started UCX again, and its old endpoint is closed at the end)
 * and whether it holds this process's (its latest word).  Returns OMPI_SUCCESS,
 * OMPI_ERR_NOT_FOUND (the record omitted an address this process does not
 * hold: a peer that broke the rule above) or OMPI_ERR_OUT_OF_RESOURCE.
 */
int coll_rdma_ucx_peer_learn(ompi_proc_t *proc, const void *address, size_t len, bool holds_mine);

/** This process's worker address (*address) and its bytes (0 before the
 * start); set once by the start, so read without the lock. */
size_t coll_rdma_ucx_worker_address(const void **address);

/**
 * Reach the window of `proc` whose address is `blob`: an endpoint (created
 * at the first attach from the worker address learned, and cached for every
 * communicator), the rkey, and
 * *direct = the window mapped into this process (ucp_rkey_ptr, shared
 * memory on one node) or NULL where only RMA reaches it; remote->emulated
 * where, in addition, the endpoint has no RMA lane (UCX then emulates puts
 * with active messages that the target must progress: TCP).  Returns
 * OMPI_SUCCESS or OMPI_ERROR (also for a peer whose worker address is not
 * known).  Call with the UCX lock held.
 */
int coll_rdma_ucx_attach(ompi_proc_t *proc, const void *blob, coll_rdma_ucx_remote_t *remote,
                         char **direct);

/** Release what coll_rdma_ucx_attach() made (the endpoint stays cached). */
void coll_rdma_ucx_detach(coll_rdma_ucx_remote_t *remote);

/**
 * Put-with-signal: `bytes` from `src` to the peer's window at `payload_off`
 * (none if bytes is 0), then the 8-byte word at *word to `word_off`, which
 * the target sees only after the payload (a worker fence between the two:
 * DESIGN.md rule 1).  *in_flight: UCX still reads a source (a put returned
 * UCS_INPROGRESS); then the sources must stay valid until a flush completed
 * (coll_rdma_ucx_flush_test()); otherwise UCX copied both (UCS_OK: local
 * completion) and they may change at once.  Returns OMPI_SUCCESS or OMPI_ERROR.
 */
int coll_rdma_ucx_put_signal(const coll_rdma_ucx_remote_t *remote, size_t payload_off,
                             const void *src, size_t bytes, size_t word_off, const uint64_t *word,
                             bool *in_flight);

/**
 * Order every put issued so far before every later one (ucp_worker_fence:
 * no waiting), so that a word written by two calls in turn ends with the
 * later value.  Returns OMPI_SUCCESS or OMPI_ERROR.
 */
int coll_rdma_ucx_fence(void);

/**
 * Start reading `bytes` of the peer's window at `off` into `dst`; complete
 * once a flush started after it completed.  Returns OMPI_SUCCESS or OMPI_ERROR.
 */
int coll_rdma_ucx_get(const coll_rdma_ucx_remote_t *remote, size_t off, void *dst, size_t bytes);

/** Progress the worker once (emulated RMA needs its target to progress). */
void coll_rdma_ucx_progress(void);

/**
 * Remote completion of every put and get this process issued, without
 * waiting: the first call (*request NULL) starts a flush of everything
 * issued so far, later calls test it; *done once it
 * completed (*request is NULL again).  Returns OMPI_SUCCESS or OMPI_ERROR.
 */
int coll_rdma_ucx_flush_test(void **request, bool *done);

/**
 * Ask that the worker be progressed from opal_progress(): needed once a
 * call is served over puts that UCX may emulate, whose target must
 * progress.  Takes the UCX lock (call without it).
 */
void coll_rdma_ucx_want_progress(void);

#endif /* COLL_RDMA_UCX_H */
