# COLL_RDMA_CHECK_OMPI: find Open MPI's devel headers and component directory.
#   --with-ompi=DIR           Open MPI installation prefix (DIR/include, DIR/lib)
#   --with-ompi-compdir=DIR   where `make install` puts mca_coll_rdma.so
# Sets OMPI_CFLAGS, OMPI_LIBS, OMPI_COMPDIR, OMPI_VERSION.
AC_DEFUN([COLL_RDMA_CHECK_OMPI], [
  AC_ARG_WITH([ompi],
    [AS_HELP_STRING([--with-ompi=DIR], [Open MPI installation prefix (default: mpicc / pkg-config ompi-c)])])
  AC_ARG_WITH([ompi-compdir],
    [AS_HELP_STRING([--with-ompi-compdir=DIR], [install directory of mca_coll_rdma.so (default: Open MPI's pkglibdir; with --prefix: PREFIX/lib/openmpi)])])

  AS_IF([test -n "$with_ompi" && test "$with_ompi" != yes && test "$with_ompi" != no], [
      OMPI_INCDIR="$with_ompi/include"
      AS_IF([test -d "$with_ompi/include/openmpi/ompi"], [OMPI_CFLAGS="-I$with_ompi/include -I$with_ompi/include/openmpi"],
            [OMPI_CFLAGS="-I$with_ompi/include"])
      OMPI_LIBDIR="$with_ompi/lib"
      AS_IF([test -x "$with_ompi/bin/ompi_info"], [OMPI_INFO="$with_ompi/bin/ompi_info"], [OMPI_INFO=ompi_info])
    ], [
      AS_IF([test -n "$PKG_CONFIG" && $PKG_CONFIG --exists ompi-c 2>/dev/null], [
          OMPI_CFLAGS=`$PKG_CONFIG --cflags ompi-c`
          OMPI_LIBDIR=`$PKG_CONFIG --variable=libdir ompi-c`
        ], [
          AC_PATH_PROG([MPICC_PATH], [mpicc])
          AS_IF([test -z "$MPICC_PATH"],
            [AC_MSG_ERROR([Open MPI devel files not found: install Debian's libopenmpi-dev and openmpi-bin (apt-get install libopenmpi-dev openmpi-bin), or give --with-ompi=DIR])])
          for d in `$MPICC_PATH --showme:incdirs`; do OMPI_CFLAGS="$OMPI_CFLAGS -I$d"; done
          OMPI_LIBDIR=`$MPICC_PATH --showme:libdirs | cut -d' ' -f1`
        ])
      OMPI_INFO=ompi_info
    ])
  OMPI_LIBS="-L$OMPI_LIBDIR -lmpi -lopen-pal"

  save_CPPFLAGS="$CPPFLAGS"
  CPPFLAGS="$CPPFLAGS $OMPI_CFLAGS"
  AC_CHECK_HEADER([ompi/mca/coll/coll.h], [],
    [AC_MSG_ERROR([Open MPI's internal headers (ompi/mca/coll/coll.h) not found with '$OMPI_CFLAGS': install Debian's libopenmpi-dev, or give --with-ompi=DIR of an Open MPI built with its devel headers])],
    [#include "ompi_config.h"])
  AC_MSG_CHECKING([Open MPI version])
  AC_COMPUTE_INT([ompi_major], [OMPI_MAJOR_VERSION], [#include "ompi_config.h"], [ompi_major=0])
  AC_COMPUTE_INT([ompi_minor], [OMPI_MINOR_VERSION], [#include "ompi_config.h"], [ompi_minor=0])
  AC_COMPUTE_INT([ompi_release], [OMPI_RELEASE_VERSION], [#include "ompi_config.h"], [ompi_release=0])
  OMPI_VERSION="$ompi_major.$ompi_minor.$ompi_release"
  AC_MSG_RESULT([$OMPI_VERSION])
  AS_IF([test "$ompi_major" != 4],
    [AC_MSG_ERROR([Open MPI $OMPI_VERSION is not supported: coll/rdma builds against Open MPI 4.1])])
  CPPFLAGS="$save_CPPFLAGS"

  AC_MSG_CHECKING([component install directory])
  AS_IF([test -n "$with_ompi_compdir" && test "$with_ompi_compdir" != yes], [OMPI_COMPDIR="$with_ompi_compdir"],
        [test "x$prefix" != xNONE], [OMPI_COMPDIR='${libdir}/openmpi'],
        [OMPI_COMPDIR=`$OMPI_INFO --path pkglibdir --parsable 2>/dev/null | sed 's/^path:pkglibdir://'`])
  AS_IF([test -z "$OMPI_COMPDIR"], [OMPI_COMPDIR='${libdir}/openmpi'])
  AC_MSG_RESULT([$OMPI_COMPDIR])
  AC_SUBST([OMPI_CFLAGS])
  AC_SUBST([OMPI_LIBS])
  AC_SUBST([OMPI_COMPDIR])
  AC_SUBST([OMPI_VERSION])
])
