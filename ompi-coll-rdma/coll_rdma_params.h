/*
 * coll/rdma's configuration parameters (coll_rdma_params.c): the MCA
 * parameters of coll_rdma_config_t, registered for the component, which
 * passes its version and the configuration they fill (this room reads no
 * global of the component).  Below the component, above the names.
 */
#ifndef COLL_RDMA_PARAMS_H
#define COLL_RDMA_PARAMS_H

#include "coll_rdma_config.h"

#include "opal/mca/base/mca_base_var.h"

/** Register one read-only parameter `name` of `type` at info `level` for
 * the component `version`, stored at `storage`. */
void coll_rdma_param(const mca_base_component_t *version, const char *name, const char *help,
                     mca_base_var_type_t type, int level, void *storage);

/**
 * Register every parameter of the configuration `cfg` (*_algorithm
 * enumerations, radices, ports, slots, segment and size limits, the
 * debugging ones that must agree) for the component `version`; their
 * defaults are what `cfg` holds.  Ranges are checked at open (the
 * component's clamps and coll_rdma_config.h's size checks).
 */
void coll_rdma_params_register(const mca_base_component_t *version, coll_rdma_config_t *cfg);

#endif /* COLL_RDMA_PARAMS_H */
