/*
 * coll/rdma resources: descriptors and the shared-memory directory
 * (coll_rdma_resources.h).
 */
#include "coll_rdma_resources.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

bool coll_rdma_resources_fds_exhausted(long *open_fds, long *limit)
{
    struct rlimit rl;
    struct dirent *e;
    DIR *d;

    *open_fds = 0;
    if (0 != getrlimit(RLIMIT_NOFILE, &rl) || RLIM_INFINITY == rl.rlim_cur) {
        return false;
    }
    *limit = (long) rl.rlim_cur;
    if (NULL == (d = opendir("/proc/self/fd"))) {
        *open_fds = *limit;
        return EMFILE == errno || ENFILE == errno;
    }
    while (NULL != (e = readdir(d))) {
        *open_fds += '.' != e->d_name[0];
    }
    closedir(d);
    return *open_fds + COLL_RDMA_RESOURCES_FD_MARGIN > *limit;
}

bool coll_rdma_resources_descriptor_free(void)
{
    for (int std = 0; std < 3; ++std) {
        int fd = fcntl(std, F_DUPFD_CLOEXEC, 0);

        if (fd >= 0) {
            close(fd);
            return true;
        }
        if (EMFILE == errno || ENFILE == errno) {
            return false;
        }
    }
    return true;
}

const char *coll_rdma_resources_shm_dir(void)
{
    const char *dir = getenv("UCX_POSIX_DIR");

    return NULL != dir && '\0' != dir[0] ? dir : "/dev/shm";
}

/* The directory's statvfs and size (0: unreadable, or no size). */
static size_t shm_stat(struct statvfs *st)
{
    if (0 != statvfs(coll_rdma_resources_shm_dir(), st) || 0 == st->f_blocks
        || 0 == st->f_frsize) {
        return 0;
    }
    return (size_t) st->f_blocks * st->f_frsize;
}

size_t coll_rdma_resources_shm_size(void)
{
    struct statvfs st;

    return shm_stat(&st);
}

size_t coll_rdma_resources_shm_need(size_t bytes, int ranks)
{
    return bytes * (size_t) (ranks > 0 ? ranks : 1) + ((size_t) 1 << 20);
}

bool coll_rdma_resources_shm_room(size_t bytes, int ranks, size_t *free_bytes)
{
    struct statvfs st;

    if (0 == shm_stat(&st)) {
        return true; /* unlimited, or not there: UCX maps windows from another domain */
    }
    *free_bytes = (size_t) st.f_bavail * st.f_frsize;
    return *free_bytes >= coll_rdma_resources_shm_need(bytes, ranks);
}
