/*
 * coll/rdma datatypes: the signature facts the decisions use.
 *
 * MPI requires the ranks of a collective to pass matching type signatures,
 * not the same datatypes or layouts (MPI-4.0 section 6.1; the collectives'
 * own sections, e.g. 6.4 for MPI_BCAST), so a decision taken from the local
 * layout can differ between ranks, and ranks that take different protocols
 * hang.  The entry points therefore decide on signature facts only (bytes,
 * the element type of a reduction) and the algorithms move contiguous
 * bytes: a contiguous layout is used in place, from its true lower bound;
 * any other is packed into, or unpacked from, the operation's temporary
 * buffer by PACK and UNPACK actions around the plan (Open MPI's datatype
 * engine, ompi_datatype_sndrcv).
 */
#include "ompi_config.h"

#include "coll_rdma.h"

#include <stdlib.h>
#include <string.h>

#include "ompi/datatype/ompi_datatype.h"

bool coll_rdma_dtype_contiguous(ompi_datatype_t *dtype, size_t count)
{
    return count <= INT32_MAX && ompi_datatype_is_contiguous_memory_layout(dtype, (int32_t) count);
}

ompi_datatype_t *coll_rdma_reduce_elem(ompi_datatype_t *dtype, size_t bytes, size_t *n)
{
    ompi_datatype_t *elem = dtype;

    *n = 0;
    if (!ompi_datatype_is_predefined(dtype)) {
        /* Open MPI records how every user datatype was built (for
         * MPI_Type_get_contents); types built inside Open MPI may lack the
         * record, and then nobody can tell the element type. */
        elem = NULL == dtype->args ? NULL
                                   : ompi_datatype_get_single_predefined_type_from_args(dtype);
    }
    /* size 0: MPI_LB and MPI_UB, markers without data */
    if (NULL == elem || 0 == elem->super.size || 0 != bytes % elem->super.size) {
        return NULL;
    }
    *n = bytes / elem->super.size;
    /* n elements of a pair type with a gap (MPI_DOUBLE_INT: 12 bytes in 16)
     * are not n x size packed bytes: the op functions need the gaps */
    return coll_rdma_dtype_contiguous(elem, *n) ? elem : NULL;
}
