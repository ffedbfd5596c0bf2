/*
 * coll/rdma resources: what this process and its node have left for
 * windows, read from the system at the moment of asking (no state, no
 * UCX): file descriptors below RLIMIT_NOFILE, and the size and room of the
 * shared-memory directory UCX's posix memory domain maps windows from.
 * Used by the window (coll_rdma_window.c) before it maps one and before it
 * attaches a peer's.
 */
#ifndef COLL_RDMA_RESOURCES_H
#define COLL_RDMA_RESOURCES_H

#include <stdbool.h>
#include <stddef.h>

/* Descriptors a window set-up may need: UCX's posix transport keeps one open
 * per window and opens one per peer's window while attaching. */
#define COLL_RDMA_RESOURCES_FD_MARGIN 32

/**
 * Whether fewer than COLL_RDMA_RESOURCES_FD_MARGIN file descriptors are left
 * below the soft limit (none left at all where /proc/self/fd cannot be
 * opened for want of one).  *open_fds and *limit: the count and the limit
 * (both unset where the limit is infinite or unreadable: false).  At the
 * limit, UCX 1.13's ucp_ep_rkey_unpack crashes in its own error path
 * (uct_posix_rkey_release after a failed open of the peer's segment), so a
 * new window is not attempted there.  Costs about 15 us with 30
 * descriptors open, 80 with 200 (it reads the directory).
 */
bool coll_rdma_resources_fds_exhausted(long *open_fds, long *limit);

/**
 * Whether a descriptor is free now for UCX to open a peer's window with
 * (its posix transport opens one for a moment while it unpacks the rkey).
 * One is taken and given back at once (about 0.3 us); where none of the
 * standard descriptors can be duplicated for another reason than the
 * limit, true.
 */
bool coll_rdma_resources_descriptor_free(void);

/** The directory UCX's posix memory domain maps windows from: UCX_POSIX_DIR, else /dev/shm. */
const char *coll_rdma_resources_shm_dir(void);

/** That directory's size in bytes; 0 where it cannot be read or says none (an unlimited tmpfs). */
size_t coll_rdma_resources_shm_size(void);

/** What the directory must have free for `ranks` windows of `bytes` each: them and 1 MiB. */
size_t coll_rdma_resources_shm_need(size_t bytes, int ranks);

/**
 * Whether the directory has room for `ranks` windows of `bytes` each and a
 * margin of 1 MiB (*free_bytes: what it has free); a directory that cannot
 * be read or says no size (an unlimited tmpfs) has.
 */
bool coll_rdma_resources_shm_room(size_t bytes, int ranks, size_t *free_bytes);

#endif
