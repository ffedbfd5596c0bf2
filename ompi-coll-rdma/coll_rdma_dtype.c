/*
 * coll/rdma datatypes: contiguous views of the user's buffers, and the
 * signature facts the decisions use.
 *
 * MPI requires the ranks of a collective to pass matching type signatures,
 * not the same datatypes or layouts (MPI-4.0 section 6.1; the collectives'
 * own sections, e.g. 6.4 for MPI_BCAST), so a decision taken from the local
 * layout can differ between ranks, and ranks that take different protocols
 * hang.  The module therefore decides on signature facts only (bytes, the
 * element type of a reduction) and the algorithms move contiguous bytes: a
 * contiguous layout is used in place, from its true lower bound; any other
 * is packed into, or unpacked from, a temporary buffer with Open MPI's
 * datatype engine (ompi_datatype_sndrcv).
 */
#include "ompi_config.h"

#include "coll_rdma.h"

#include <stdlib.h>
#include <string.h>

#include "ompi/datatype/ompi_datatype.h"

static bool contiguous(ompi_datatype_t *dtype, size_t count)
{
    return count <= INT32_MAX && ompi_datatype_is_contiguous_memory_layout(dtype, (int32_t) count);
}

int coll_rdma_view_input(coll_rdma_views_t *v, const void *buf, size_t count,
                         ompi_datatype_t *dtype, size_t bytes)
{

    if (contiguous(dtype, count)) {
        v->in = (const char *) buf + dtype->super.true_lb;
        return OMPI_SUCCESS;
    }
    v->in_copy = malloc(bytes);
    if (NULL == v->in_copy) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    v->in = v->in_copy;
    return ompi_datatype_sndrcv(buf, (int32_t) count, dtype, v->in_copy, (int32_t) bytes, MPI_BYTE);
}

int coll_rdma_view_output(coll_rdma_views_t *v, void *buf, size_t count, ompi_datatype_t *dtype,
                          size_t bytes, bool fill)
{
    v->rbuf = buf;
    v->rcount = count;
    v->rdtype = dtype;
    v->rbytes = bytes;
    if (contiguous(dtype, count)) {
        v->out = (char *) buf + dtype->super.true_lb;
        return OMPI_SUCCESS;
    }
    v->out = v->out_copy = malloc(bytes);
    if (NULL == v->out_copy) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    return fill ? ompi_datatype_sndrcv(buf, (int32_t) count, dtype, v->out_copy, (int32_t) bytes,
                                       MPI_BYTE)
                : OMPI_SUCCESS;
}

int coll_rdma_views_end(coll_rdma_views_t *v, int rc)
{
    if (OMPI_SUCCESS == rc && NULL != v->out_copy) {
        rc = ompi_datatype_sndrcv(v->out_copy, (int32_t) v->rbytes, MPI_BYTE, v->rbuf,
                                  (int32_t) v->rcount, v->rdtype);
    }
    free(v->in_copy);
    free(v->out_copy);
    v->in_copy = v->out_copy = NULL;
    return rc;
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
    return contiguous(elem, *n) ? elem : NULL;
}
