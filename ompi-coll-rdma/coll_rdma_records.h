/*
 * coll/rdma set-up records (coll_rdma_records.c): what one rank brings to
 * the first exchange of a communicator's set-up, and what the others'
 * records teach it.  A record holds the rank's header (configuration, op
 * self-test, whether it has a window), why it has none, and its address:
 * its window's base and packed rkey and, to a peer process that lacks it,
 * its worker address (coll_rdma_ucx.h, "Worker addresses"): so the bytes a
 * rank sends in a set-up are (P - 1) (COLL_RDMA_RECORD_HEAD_BYTES + base
 * and rkey), plus one worker address per peer process it has not yet heard
 * hold it (once per pair where set-ups follow one another and end with a
 * window; docs/design.md, "Worker addresses").
 * Below the set-up (coll_rdma_setup.c), above the window and the transport.
 */
#ifndef COLL_RDMA_RECORDS_H
#define COLL_RDMA_RECORDS_H

#include "coll_rdma_agree.h"
#include "coll_rdma_config.h"
#include "coll_rdma_window.h"

#include <stddef.h>

#include "coll_rdma_exchange.h"

#include "ompi/communicator/communicator.h"

/* Bytes of address a record carries itself: the window's base and packed
 * rkey (about 60 over shared memory and TCP here), and to a peer that lacks
 * it the worker address (about 110 here, a few hundred over InfiniBand, more
 * with many rails).  The exchange's receives are posted with room for this
 * much before any record is known; a record is sent with the bytes it uses
 * (a peer that holds the worker address gets the window's part alone).  A
 * longer address goes apart, in a message of its own length after the
 * records (COLL_RDMA_CONTACT_LONG): there is no limit. */
#define COLL_RDMA_ADDRESS_INLINE 1024

/* A record's `contact` bits, for the one peer it goes to. */
#define COLL_RDMA_CONTACT_CARRIES 1     /* the sender's worker address follows its window's blob */
#define COLL_RDMA_CONTACT_HOLDS_YOURS 2 /* the sender holds the receiver's worker address */
#define COLL_RDMA_CONTACT_LONG 4        /* the address (blob, then the worker address if it carries
                               * it) is not in the record: it follows on
                               * COLL_RDMA_TAG_SETUP_ADDRESS */

/* Why a rank has no window (a record's `why`), for the one line per job
 * that says so (coll_rdma_setup.c's report()). */
enum {
    COLL_RDMA_SETUP_NOWIN_NONE = 0,
    COLL_RDMA_SETUP_NOWIN_SMALL,   /* below coll_rdma_min_comm_size: on purpose (verbose 1 only) */
    COLL_RDMA_SETUP_NOWIN_UCX,     /* UCX could not be started in this process */
    COLL_RDMA_SETUP_NOWIN_CONNECT, /* it could not attach a peer, or ran out of memory attaching */
    COLL_RDMA_SETUP_NOWIN_MEMORY,  /* out of memory preparing its set-up (records_refuse) */
    COLL_RDMA_SETUP_NOWIN_WINDOW,  /* its window was not allocated: + enum coll_rdma_nowin */
    COLL_RDMA_SETUP_NOWIN_CAUSES = COLL_RDMA_SETUP_NOWIN_WINDOW + COLL_RDMA_NOWIN_N
};

/* What every rank brings: its header, why it has no window (and, for one not
 * allocated, the bytes it would have taken and the limit it met), what it
 * knows of the receiver (`contact`), its address: header.blob_bytes of its
 * window's, then worker_bytes of its worker address if COLL_RDMA_CONTACT_CARRIES (here,
 * or apart if COLL_RDMA_CONTACT_LONG). */
typedef struct record {
    coll_rdma_header_t header;
    int64_t why;
    uint64_t bytes, limit;
    int64_t contact, worker_bytes;
    char address[COLL_RDMA_ADDRESS_INLINE];
} coll_rdma_record_t;

/* The bytes of a record that carry something. */
#define COLL_RDMA_RECORD_HEAD_BYTES offsetof(coll_rdma_record_t, address)

/* One rank's records of one set-up. */
typedef struct coll_rdma_records {
    struct ompi_communicator_t *comm;
    int size, rank;
    coll_rdma_record_t mine;     /* what this rank brings (its own place in the exchange) */
    /* what goes to each peer (where this rank has a window): one of four
     * records, by the peer's contact bits; made by coll_rdma_records_alloc(),
     * filled by coll_rdma_records_fill() */
    coll_rdma_record_t *to[4];
    unsigned char *contact;      /* the contact bits of each peer's record */
    int carried, received;       /* worker addresses sent in this set-up, and received */
    int apart;                   /* peers this rank's address goes to apart (CONTACT_LONG) */
    size_t inline_max;           /* address bytes a record carries itself (<= ADDRESS_INLINE) */
    char *full;                  /* this rank's address where longer (CONTACT_LONG), else NULL */
    /* the long addresses of the peers (coll_rdma_records_long_start) */
    coll_rdma_exchange_t long_x;
    char *long_in;
    size_t *long_at;             /* rank i's at long_in + long_at[i] */
    bool long_failed;            /* no room for them: this rank cannot attach */
    unsigned char *sink;         /* a byte per peer: where they land then (truncated) */
} coll_rdma_records_t;

/* What this rank's window may take (its part of coll_rdma_setup_args_t),
 * and how much address a record carries itself (COLL_RDMA_ADDRESS_INLINE; less only
 * to test the long path: coll_rdma_debug_address_inline). */
typedef struct coll_rdma_records_args {
    size_t window_max_bytes, window_budget_bytes, address_inline;
    int window_pool, poll_spins;
} coll_rdma_records_args_t;

/**
 * The local part: what is left of starting UCX, the op self-test, this
 * rank's window (allocated here: NULL where it has none, r->mine.why says
 * why) and `mine` (header, address with the worker address after the
 * window's blob, in the record or, longer than a->address_inline, in
 * r->full).  r->comm, size and rank set, the rest zero.  `cfg`: this
 * rank's configuration; its allreduce_staleness becomes what the
 * communicator asks.
 */
struct coll_rdma_window *coll_rdma_records_local(coll_rdma_records_t *r, coll_rdma_config_t *cfg,
                                                 const coll_rdma_records_args_t *a);

/** Room for the four records of a rank with a window (nothing otherwise);
 * false when out of memory (then coll_rdma_records_drop()). */
bool coll_rdma_records_alloc(coll_rdma_records_t *r);

/** Each peer's contact bits from what this process knows now, the records
 * filled from `mine`.  Takes the UCX lock. */
void coll_rdma_records_fill(coll_rdma_records_t *r);

/** What goes to `peer` (a coll_rdma_exchange_send_fn; ctx: the records). */
const void *coll_rdma_records_for(void *ctx, int peer, size_t *len);

/**
 * The records `all` (one per rank, all ok: agreed) are in: where an address
 * did not fit a record (COLL_RDMA_CONTACT_LONG), start the step that brings it, on
 * COLL_RDMA_TAG_SETUP_ADDRESS, between the pairs concerned (the records say
 * which on both sides): this rank receives each long address sent to it (as
 * long as the record said) and sends its own to each peer whose record from
 * it said long.  *started: this rank takes part (then test r->long_x until
 * it completed).  Allocates the room for the addresses; without it the step
 * still completes and r->long_failed says that this rank cannot attach.
 * Returns OMPI_SUCCESS or the PML's error.
 */
int coll_rdma_records_long_start(coll_rdma_records_t *r, const coll_rdma_record_t *all,
                                 bool *started);

/** Rank i's address (its window's blob, then its worker address where its
 * record to this rank carried it), from its record or the long step. */
const char *coll_rdma_records_address(const coll_rdma_records_t *r, const coll_rdma_record_t *all,
                                      int i);

/**
 * What the peers' records `all` (one per rank) say of worker addresses,
 * kept for every communicator (where this rank has a window: otherwise
 * nothing is to be reached), whether the set-up goes on or not: the
 * addresses they carry (a long one only where the long step brought it) and
 * whether they hold this process's.  Returns OMPI_SUCCESS, or the first
 * failure (a peer that cannot be reached: out of memory, or a record that
 * omits an address this process lacks).  Takes the UCX lock.
 */
int coll_rdma_records_learn(coll_rdma_records_t *r, const coll_rdma_record_t *all);

/**
 * Every rank ended the set-up connected, which each says only after it
 * learned every peer's worker address: every peer holds this process's
 * (so the next set-up carries it to none of them).  Takes the UCX lock.
 */
void coll_rdma_records_agreed(coll_rdma_records_t *r);

/** The four records and the long step freed (what requests still in flight
 * may use, `in_flight` or the long step's, is left to the PML): `mine`
 * goes to every peer, bare. */
void coll_rdma_records_drop(coll_rdma_records_t *r, bool in_flight);

/**
 * This rank cannot prepare its part of comm's set-up (out of memory): take
 * part in the first exchange anyway, saying "no window" with this process's
 * configuration `cfg`, so that every rank agrees on none instead of waiting
 * for this rank's record.  Call it at the set-up call, where every rank
 * begins.  Allocates nothing but the PML's requests; returns OMPI_SUCCESS or
 * the PML's error.
 */
int coll_rdma_records_refuse(struct ompi_communicator_t *comm, coll_rdma_config_t *cfg);

/**
 * Worker addresses this process sent to peers and received from them in
 * all its set-ups so far (once per pair of processes where set-ups follow
 * one another and end with a window, whatever the number of
 * communicators).  Call with the UCX lock held.
 */
void coll_rdma_records_counts(uint64_t *sent, uint64_t *received);

#endif /* COLL_RDMA_RECORDS_H */
