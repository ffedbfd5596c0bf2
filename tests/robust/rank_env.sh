#!/bin/sh
# rank_env.sh RANK NAME=VALUE... -- PROGRAM ARGS...: run PROGRAM with the
# NAME=VALUE settings added to its environment only in the MPI_COMM_WORLD
# rank RANK (Open MPI's OMPI_COMM_WORLD_RANK), to give one rank MCA
# parameters that differ from the others' (OMPI_MCA_<name>=<value>).
rank=$1
shift
while [ $# -gt 0 ] && [ "$1" != -- ]; do
    if [ "${OMPI_COMM_WORLD_RANK:-}" = "$rank" ]; then
        export "${1?}"
    fi
    shift
done
[ "${1:-}" = -- ] && shift
exec "$@"
