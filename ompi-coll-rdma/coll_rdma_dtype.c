/*
 * coll/rdma datatypes: the signature facts the decisions use, and packing.
 *
 * MPI requires the ranks of a collective to pass matching type signatures,
 * not the same datatypes or layouts (MPI-4.0 section 6.1; the collectives'
 * own sections, e.g. 6.4 for MPI_BCAST), so a decision taken from the local
 * layout can differ between ranks, and ranks that take different protocols
 * hang.  The entry points therefore decide on signature facts only (bytes,
 * the element type of a reduction) and the algorithms move contiguous
 * bytes: a contiguous layout is used in place, from its true lower bound;
 * any other is packed into, or unpacked from, the operation's temporary
 * buffer by PACK and UNPACK actions around the plan, through Open MPI's
 * convertor over the whole message, as MPI_Pack and MPI_Unpack do
 * (docs/design.md, "Datatypes", says why not ompi_datatype_sndrcv).
 */
#include "ompi_config.h"

#include "coll_rdma_dtype.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "mpi.h"
#include "opal/datatype/opal_convertor.h"

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

/* One convertor, one iovec over the whole contiguous side: the convertor's
 * answer is the byte count it reports (max_data); the iovec count it hands
 * back is not used (opal_pack_homogeneous_contig_with_gaps reports 0 iovecs
 * in a call that packed the last element's remainder). */
static int convert(bool pack, void *user, size_t count, ompi_datatype_t *dtype, void *packed,
                   size_t bytes)
{
    opal_convertor_t conv;
    struct iovec iov = {.iov_base = packed, .iov_len = bytes};
    uint32_t iov_count = 1;
    size_t max_data = bytes;

    if (0 == bytes) {
        return OMPI_SUCCESS;
    }
    OBJ_CONSTRUCT(&conv, opal_convertor_t);
    if (pack) {
        opal_convertor_copy_and_prepare_for_send(ompi_mpi_local_convertor, &dtype->super, count,
                                                 user, 0, &conv);
        (void) opal_convertor_pack(&conv, &iov, &iov_count, &max_data);
    } else {
        opal_convertor_copy_and_prepare_for_recv(ompi_mpi_local_convertor, &dtype->super, count,
                                                 user, 0, &conv);
        (void) opal_convertor_unpack(&conv, &iov, &iov_count, &max_data);
    }
    OBJ_DESTRUCT(&conv);
    return max_data == bytes ? OMPI_SUCCESS : MPI_ERR_TRUNCATE;
}

int coll_rdma_dtype_pack(void *dst, size_t bytes, const void *buf, size_t count,
                         ompi_datatype_t *dtype)
{
    /* the send convertor only reads the user's buffer */
    return convert(true, (void *) buf, count, dtype, dst, bytes);
}

int coll_rdma_dtype_unpack(void *buf, size_t count, ompi_datatype_t *dtype, const void *src,
                           size_t bytes)
{
    /* the receive convertor only reads the packed bytes */
    return convert(false, buf, count, dtype, (void *) src, bytes);
}
