/*
 * coll/rdma configuration, ground floor: verbosity and output
 * (coll_rdma_config.h).
 */
#include "ompi_config.h"

#include "coll_rdma_config.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "ompi/communicator/communicator.h"
#include "ompi/proc/proc.h"

static int verbosity = 0;

void coll_rdma_config_set_verbosity(int level)
{
    verbosity = level;
}

bool coll_rdma_verbose(int level)
{
    return verbosity >= level;
}

void coll_rdma_output(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    int n;

    n = snprintf(line, sizeof(line), "[coll/rdma] rank %u: ", (unsigned) OMPI_PROC_MY_NAME->vpid);
    va_start(ap, fmt);
    n += vsnprintf(line + n, sizeof(line) - (size_t) n - 1, fmt, ap);
    va_end(ap);
    if (n > (int) sizeof(line) - 2) {
        n = (int) sizeof(line) - 2;
    }
    line[n++] = '\n';
    /* one write per line (at most PIPE_BUF bytes: atomic on the launcher's
     * pipe): stdio may split an unbuffered stderr line, and lines of ranks
     * printing at once then interleave mid-line */
    (void) !write(STDERR_FILENO, line, (size_t) n);
}

bool coll_rdma_job_speaker(void)
{
    return 0 == OMPI_PROC_MY_NAME->vpid;
}

const char *coll_rdma_comm_rank(char *buf, size_t len, struct ompi_communicator_t *comm, int r)
{
    ompi_proc_t *proc = ompi_comm_peer_lookup(comm, r);

    snprintf(buf, len, "communicator %s rank %d (world rank %u)", comm->c_name, r,
             NULL != proc ? (unsigned) proc->super.proc_name.vpid : 0u);
    return buf;
}
