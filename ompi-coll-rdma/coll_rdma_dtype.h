/*
 * coll/rdma datatypes (coll_rdma_dtype.c): the signature facts decisions use,
 * and the packing of non-contiguous layouts through Open MPI's convertor.
 * Calls only into Open MPI's datatype engine: any layer may use it.
 */
#ifndef COLL_RDMA_DTYPE_H
#define COLL_RDMA_DTYPE_H

#include "ompi_config.h"

#include <stdbool.h>
#include <stddef.h>

#include "ompi/datatype/ompi_datatype.h"

/** Whether count x dtype lies contiguously in memory (and count fits Open MPI's int). */
bool coll_rdma_dtype_contiguous(ompi_datatype_t *dtype, size_t count);

/**
 * The element type of a reduction: the one predefined type of every basic
 * element of dtype's type signature, with *n = bytes / its size elements,
 * when n of them lie contiguously in memory; NULL otherwise.  dtype itself
 * when predefined, else Open MPI's
 * ompi_datatype_get_single_predefined_type_from_args() (dup, contiguous,
 * vector, indexed, struct, resized, ... built from one predefined type).
 * NULL for a second basic type (even in blocks of length 0), for n > 1
 * elements of a pair type with a gap (MPI_DOUBLE_INT: 12 bytes in 16, which
 * the op functions need), and for types Open MPI built without a
 * construction record.  So every datatype built from one predefined type
 * gets the same answer as that type with the same signature.
 */
ompi_datatype_t *coll_rdma_reduce_elem(ompi_datatype_t *dtype, size_t bytes, size_t *n);

/**
 * Pack count x dtype at buf (any layout, buf as the user passed it) into the
 * `bytes` contiguous bytes at dst, as MPI_Pack does: one convertor over the
 * whole message (opal_convertor_pack), its progress read from the bytes it
 * reports, never from the iovec count it returns.  bytes must be the
 * signature's size (count x the type's size).
 * Returns OMPI_SUCCESS, or MPI_ERR_TRUNCATE when the convertor packed
 * another number of bytes (nothing is read past dtype's extent either way).
 * Not ompi_datatype_sndrcv: in Open MPI 4.1.4 (and every later release read,
 * main included) it copies through 64 KiB rounds and hands the unpacking
 * convertor the iovec count the packing one returned, which
 * opal_pack_homogeneous_contig_with_gaps reports as 0 in the round that
 * finishes the last element: that round's bytes are never copied
 * (docs/design.md, "Datatypes").
 */
int coll_rdma_dtype_pack(void *dst, size_t bytes, const void *buf, size_t count,
                         ompi_datatype_t *dtype);

/**
 * Unpack the `bytes` contiguous bytes at src into count x dtype at buf, as
 * MPI_Unpack does (one convertor over the whole message).  Bytes outside the
 * type's data (gaps) are not written.  Returns OMPI_SUCCESS, or
 * MPI_ERR_TRUNCATE when the convertor took another number of bytes.
 */
int coll_rdma_dtype_unpack(void *buf, size_t count, ompi_datatype_t *dtype, const void *src,
                           size_t bytes);

#endif /* COLL_RDMA_DTYPE_H */
