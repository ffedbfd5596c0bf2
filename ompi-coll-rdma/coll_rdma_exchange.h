/*
 * coll/rdma set-up exchange (coll_rdma_exchange.c): an allgather of one
 * record of bounded size per rank, nonblocking, over Open MPI's
 * point-to-point layer (the PML) on a tag of coll/rdma's own.
 *
 * Why not the previous component's MPI_Allgather_init (coll/libnbc), which
 * the set-up used before: every libnbc request takes a tag from the
 * communicator's counter when it is made, and Open MPI itself makes
 * nonblocking collectives on a communicator from inside opal_progress, at
 * moments that differ between ranks (MPI_Comm_idup's communicator-ID
 * agreement runs MPI_Iallreduce on the parent).  A set-up begun at a
 * blocking call would then take tags that the agreement takes on another
 * rank: one rank's set-up records meet another rank's agreement, a hang or
 * a message truncated.  Open MPI's own blocking collectives take no such
 * tag, so the set-up must not either (docs/design.md, "Set-up of a
 * communicator"; docs/reliability.md, "Rules around the call").
 *
 * Below the set-up; calls only Open MPI's PML and requests.
 */
#ifndef COLL_RDMA_EXCHANGE_H
#define COLL_RDMA_EXCHANGE_H

#include "ompi_config.h"

#include <stdbool.h>
#include <stddef.h>

#include "ompi/communicator/communicator.h"
#include "ompi/request/request.h"

/*
 * The set-up's tags.  No Open MPI series from 4.1 to 6.0 uses them
 * (ompi/mca/coll/base/coll_tags.h: 4.1 has the blocking collectives at -10
 * to -26 and the communicator code's tags near -31080, 5.0 and 6.0 the
 * communicator code at -7 to -9 and the blocking collectives at -10 to -26;
 * the nonblocking collectives' counter runs below those); MPI_ANY_TAG
 * receives of the application match only tags >= 0 (ob1, pml/ucx).  One per
 * stage: a rank's second record to a peer can never be taken for its first.
 */
#define COLL_RDMA_TAG_SETUP_RECORDS (-3)
#define COLL_RDMA_TAG_SETUP_ATTACHED (-4)
/* addresses too long for a record (coll_rdma_records.h), between the two */
#define COLL_RDMA_TAG_SETUP_ADDRESS (-5)

/* One exchange: its communicator and its 2 (P - 1) requests. */
typedef struct coll_rdma_exchange {
    struct ompi_communicator_t *comm;
    int size;
    int nreqs;              /* requests posted and not yet seen complete */
    int nrecvs;             /* of which the first ones are receives */
    ompi_request_t **reqs;  /* 2 (size - 1): receives, then sends */
    bool truncate_ok;       /* a receive truncated is no error (a rank out of memory) */
} coll_rdma_exchange_t;

/**
 * Make exchange `x` on `comm` (every rank of it takes part): its request
 * array, so that starting it later allocates nothing of its own.  Returns
 * OMPI_SUCCESS or OMPI_ERR_OUT_OF_RESOURCE.
 */
int coll_rdma_exchange_init(coll_rdma_exchange_t *x, struct ompi_communicator_t *comm);

/**
 * Start the allgather: `bytes` bytes of `mine` from every rank into `all`
 * (size * bytes bytes, rank r's at r * bytes; this rank's copied at once),
 * on `tag`.  Flat: a receive from and a send to every other rank, posted
 * now, in call order, never waiting for another rank.  `mine` and `all`
 * must stay until the exchange completed.  Collective: every rank starts
 * it, at the same point of the set-up.  Returns OMPI_SUCCESS or the PML's
 * error (the exchange is then unusable and must be finished).
 */
int coll_rdma_exchange_start(coll_rdma_exchange_t *x, int tag, const void *mine, void *all,
                             size_t bytes);

/** What this rank sends `peer`: *len bytes (in an allgather at most its
 * `bytes`, and set to it on entry) at the address returned, which must stay
 * until the exchange completed. */
typedef const void *(*coll_rdma_exchange_send_fn)(void *ctx, int peer, size_t *len);

/**
 * The same with a record of its own for each peer (send_for(ctx, peer,
 * &len)), which may be shorter than `bytes`: a receiver learns its length
 * from its content (the rest of its `bytes` in `all` is left as it was).
 * `mine` is what lands in this rank's own place of `all`.
 */
int coll_rdma_exchange_start_each(coll_rdma_exchange_t *x, int tag, const void *mine, void *all,
                                  size_t bytes, coll_rdma_exchange_send_fn send_for, void *ctx);

/**
 * Whether the exchange completed, without waiting and without calling
 * opal_progress (it runs inside the progress callback): OMPI_SUCCESS (every
 * record is in `all`), OMPI_ERR_WOULD_BLOCK, or the error a request
 * completed with.  Completed requests are freed as they are seen.
 */
int coll_rdma_exchange_test(coll_rdma_exchange_t *x);

/**
 * Release the exchange.  Requests still in flight (an exchange given up
 * after an error): receives are cancelled, so that nothing lands in `all`
 * afterwards; sends are freed by the PML once they completed.
 */
void coll_rdma_exchange_fini(coll_rdma_exchange_t *x);

/** What this rank receives from `peer`: *len bytes (0 on entry: nothing)
 * into the address returned, which must stay until the exchange completed. */
typedef void *(*coll_rdma_exchange_recv_fn)(void *ctx, int peer, size_t *len);

/**
 * The general step the allgathers above are made of: from each other peer
 * what recv_for(ctx, peer, &len) asks, to each what send_for(ctx, peer,
 * &len) gives (*len 0 on entry; a peer left at 0 gets no request), all
 * posted now, receives first, in call order, never waiting.  The sides must
 * match: a peer sends this rank a message where this rank receives one from
 * it, of at most the receive's length (a shorter one fills its start; a
 * longer one is truncated, an error unless x->truncate_ok).
 * Returns OMPI_SUCCESS or the PML's error, as coll_rdma_exchange_start().
 */
int coll_rdma_exchange_start_pairs(coll_rdma_exchange_t *x, int tag,
                                   coll_rdma_exchange_recv_fn recv_for,
                                   coll_rdma_exchange_send_fn send_for, void *ctx);

#endif /* COLL_RDMA_EXCHANGE_H */
