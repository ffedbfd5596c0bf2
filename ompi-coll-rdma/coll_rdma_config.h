/*
 * coll/rdma's configuration, ground floor: what layers below the component
 * may know of its parameters without reading the component's global.  The
 * agreed configuration (coll_rdma_config_t, coll_rdma.h) and the local
 * limits reach them as arguments (the module's cfg, the window's
 * allocation); what remains global is how much they say, and the one
 * function they say it with.
 */
#ifndef COLL_RDMA_CONFIG_H
#define COLL_RDMA_CONFIG_H

#include "ompi_config.h"

#include <stdbool.h>

/** Set the verbosity (coll_rdma_verbose) once its MCA parameter is read. */
void coll_rdma_config_set_verbosity(int level);

/** Whether messages of `level` are printed (coll_rdma_verbose >= level). */
bool coll_rdma_verbose(int level);

/** Print one line on stderr, prefixed with the component and world rank. */
void coll_rdma_output(const char *fmt, ...) __opal_attribute_format__(__printf__, 1, 2);

#endif /* COLL_RDMA_CONFIG_H */
