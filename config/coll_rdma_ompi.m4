# COLL_RDMA_CHECK_OMPI: find Open MPI's devel headers and component directory.
#   --with-ompi=DIR           Open MPI installation prefix (DIR/include, DIR/lib)
#   --with-pmix=DIR           Open MPI 5, 6: external PMIx prefix (default: pkg-config pmix)
#   --with-ompi-compdir=DIR   where `make install` puts mca_coll_rdma.so
# Sets OMPI_CFLAGS, OMPI_SHIM_CFLAGS, OMPI_LIBS, OMPI_COMP_LIBS, OMPI_COMPDIR,
# OMPI_VERSION, OMPI_SERIES, OMPI_COLL_API and OMPI_SHIMS.  Detected: Open MPI
# 4.1, 5.0 and 6.0 (each series has its own coll API version, and Open MPI
# loads only a component of its own: one build per series).  Supported (the
# sources' glue, ompi-coll-rdma/coll_rdma_compat.h): 4.1, 5.0 and 6.0.
AC_DEFUN([COLL_RDMA_CHECK_OMPI], [
  AC_ARG_WITH([ompi],
    [AS_HELP_STRING([--with-ompi=DIR], [Open MPI installation prefix (default: mpicc / pkg-config ompi-c)])])
  AC_ARG_WITH([pmix],
    [AS_HELP_STRING([--with-pmix=DIR], [Open MPI 5 and 6: prefix of the external PMIx its headers include (default: pkg-config pmix)])])
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
  # Open MPI 6.0 split libmpi in two: the MPI API stays in libmpi (and in
  # libmpi_abi, the MPI Forum's ABI), the internals coll/rdma calls (ompi_*,
  # mca_*) moved to libopen_mpi, which both of them load.  The component
  # links the internals only (OMPI_COMP_LIBS), so that it brings no second
  # MPI API library into a program built for the other ABI; programs that
  # call MPI and the internals (tests, benchmarks) link both (OMPI_LIBS).
  AS_IF([test -e "$OMPI_LIBDIR/libopen_mpi.so"],
    [OMPI_COMP_LIBS="-L$OMPI_LIBDIR -lopen_mpi -lopen-pal"
     OMPI_LIBS="-L$OMPI_LIBDIR -lmpi -lopen_mpi -lopen-pal"],
    [OMPI_COMP_LIBS="-L$OMPI_LIBDIR -lmpi -lopen-pal"
     OMPI_LIBS="$OMPI_COMP_LIBS"])

  # The version of the headers we compile against decides the glue
  # (ompi-coll-rdma/coll_rdma_compat.h); read it before anything that needs
  # the rest of the devel headers, so an unsupported version is named.
  save_CPPFLAGS="$CPPFLAGS"
  CPPFLAGS="$CPPFLAGS $OMPI_CFLAGS"
  AC_CHECK_HEADER([ompi_config.h], [],
    [AC_MSG_ERROR([ompi_config.h not found with '$OMPI_CFLAGS': install Debian's libopenmpi-dev, or give --with-ompi=DIR of an Open MPI built with its devel headers])])
  AC_MSG_CHECKING([Open MPI version])
  AC_COMPUTE_INT([ompi_major], [OMPI_MAJOR_VERSION], [#include "ompi_config.h"], [ompi_major=0])
  AC_COMPUTE_INT([ompi_minor], [OMPI_MINOR_VERSION], [#include "ompi_config.h"], [ompi_minor=0])
  AC_COMPUTE_INT([ompi_release], [OMPI_RELEASE_VERSION], [#include "ompi_config.h"], [ompi_release=0])
  OMPI_VERSION="$ompi_major.$ompi_minor.$ompi_release"
  AC_MSG_RESULT([$OMPI_VERSION])
  OMPI_SERIES="$ompi_major.$ompi_minor"
  # each series' coll API: the version macro its ompi/mca/coll/coll.h
  # defines (checked below, once the headers compile) and the module's
  AS_CASE([$OMPI_SERIES],
    [4.1], [coll_rdma_coll_api=2_0_0; OMPI_COLL_API="component 2.0.0, module 2.3.0"],
    [5.0], [coll_rdma_coll_api=2_4_0; OMPI_COLL_API="component 2.4.0, module 2.4.0"],
    [6.0], [coll_rdma_coll_api=3_0_0; OMPI_COLL_API="component 3.0.0, module 3.0.0"],
    [AC_MSG_ERROR([Open MPI $OMPI_VERSION is not supported: coll/rdma builds against Open MPI 4.1, 5.0 and 6.0])])

  # Open MPI 5.0 and 6.0 built with an external PMIx (as Debian's are)
  # include <pmix.h> from their internal headers, which live outside Open
  # MPI's tree (Debian: /usr/lib/<triplet>/pmix2/include, from libpmix-dev,
  # whose pmix.pc is on pkg-config's default path).
  AS_IF([test "$ompi_major" -ge 5], [
      AC_MSG_CHECKING([PMIx headers for Open MPI $OMPI_VERSION])
      AS_IF([test -n "$with_pmix" && test "$with_pmix" != yes && test "$with_pmix" != no],
            [OMPI_PMIX_CFLAGS="-I$with_pmix/include"],
            [test -n "$PKG_CONFIG" && $PKG_CONFIG --exists pmix 2>/dev/null],
            [OMPI_PMIX_CFLAGS=`$PKG_CONFIG --cflags pmix`],
            [OMPI_PMIX_CFLAGS=""])
      AC_MSG_RESULT([${OMPI_PMIX_CFLAGS:-none (Open MPI's own)}])
      OMPI_CFLAGS="$OMPI_CFLAGS $OMPI_PMIX_CFLAGS"
      CPPFLAGS="$CPPFLAGS $OMPI_PMIX_CFLAGS"
    ])

  # Open MPI's internal headers as coll/rdma includes them.  Debian leaves a
  # few out (4.1: ompi/mpi/fortran/base/fint_2_int.h; 5.0 and 6.0: the
  # pthreads headers opal_config.h names); ompi-coll-rdma/shim has stand-ins, searched
  # after Open MPI's own directories.  Check both ways to say which is used.
  coll_rdma_shim_dir='$(top_srcdir)/ompi-coll-rdma/shim'
  m4_pushdef([COLL_RDMA_OMPI_PROBE], [AC_LANG_PROGRAM([[
#include "ompi_config.h"
#include "ompi/mca/coll/coll.h"
#include "ompi/communicator/communicator.h"
#include "ompi/op/op.h"
#include "ompi/mca/op/base/functions.h"
#include "ompi/proc/proc.h"
#include "opal/mca/base/mca_base_var.h"
]], [[return (int) sizeof(mca_coll_base_module_t) + (int) sizeof(ompi_op_t);]])])
  AC_MSG_CHECKING([whether Open MPI's internal headers compile as installed])
  AC_COMPILE_IFELSE([COLL_RDMA_OMPI_PROBE], [AC_MSG_RESULT([yes]); coll_rdma_shims=no],
    [AC_MSG_RESULT([no])
     AC_MSG_CHECKING([whether they compile with coll/rdma's stand-in headers])
     CPPFLAGS="$CPPFLAGS -I$srcdir/ompi-coll-rdma/shim"
     AC_COMPILE_IFELSE([COLL_RDMA_OMPI_PROBE], [AC_MSG_RESULT([yes]); coll_rdma_shims=yes],
       [AC_MSG_RESULT([no])
        AC_MSG_ERROR([Open MPI $OMPI_VERSION's internal headers (ompi/mca/coll/coll.h, ompi/op/op.h, ...) do not compile with '$OMPI_CFLAGS' (see config.log): install Debian's libopenmpi-dev (for 5.0 and 6.0 also libpmix-dev), or give --with-ompi=DIR of an Open MPI built with its devel headers (and --with-pmix=DIR)])])])
  m4_popdef([COLL_RDMA_OMPI_PROBE])

  # The coll API the headers declare must be the series' (a distribution's
  # prerelease could differ): it decides which glue the sources need.
  AC_MSG_CHECKING([coll framework API])
  AC_PREPROC_IFELSE([AC_LANG_SOURCE([[
#include "ompi_config.h"
#include "ompi/mca/coll/coll.h"
#ifndef MCA_COLL_BASE_VERSION_$coll_rdma_coll_api
#error "no MCA_COLL_BASE_VERSION_$coll_rdma_coll_api"
#endif
]])], [AC_MSG_RESULT([$OMPI_COLL_API])],
    [AC_MSG_RESULT([not $OMPI_COLL_API])
     AC_MSG_ERROR([Open MPI $OMPI_VERSION's ompi/mca/coll/coll.h does not define MCA_COLL_BASE_VERSION_$coll_rdma_coll_api, the coll API of Open MPI $OMPI_SERIES (see config.log)])])
  CPPFLAGS="$save_CPPFLAGS"

  AS_IF([test "$coll_rdma_shims" = yes],
    [OMPI_SHIM_CFLAGS="-I$coll_rdma_shim_dir"; OMPI_SHIMS="used (some devel headers are missing)"],
    [OMPI_SHIM_CFLAGS=""; OMPI_SHIMS="not needed"])

  # The series ompi-coll-rdma/coll_rdma_compat.h has the glue for (6.0:
  # coll API 3.0.0, size_t counts, modules that install their own functions).
  AS_CASE([$OMPI_SERIES], [4.1|5.0|6.0], [],
    [AC_MSG_ERROR([Open MPI $OMPI_VERSION found and its headers compile (coll API $OMPI_COLL_API), but coll/rdma's sources do not support Open MPI $OMPI_SERIES: build against Open MPI 4.1, 5.0 or 6.0])])

  AC_MSG_CHECKING([component install directory])
  AS_IF([test -n "$with_ompi_compdir" && test "$with_ompi_compdir" != yes], [OMPI_COMPDIR="$with_ompi_compdir"],
        [test "x$prefix" != xNONE], [OMPI_COMPDIR='${libdir}/openmpi'],
        [OMPI_COMPDIR=`$OMPI_INFO --path pkglibdir --parsable 2>/dev/null | sed 's/^path:pkglibdir://'`])
  AS_IF([test -z "$OMPI_COMPDIR"], [OMPI_COMPDIR='${libdir}/openmpi'])
  AC_MSG_RESULT([$OMPI_COMPDIR])
  AC_SUBST([OMPI_CFLAGS])
  AC_SUBST([OMPI_LIBS])
  AC_SUBST([OMPI_COMP_LIBS])
  AC_SUBST([OMPI_SERIES])
  AC_SUBST([OMPI_COMPDIR])
  AC_SUBST([OMPI_VERSION])
  AC_SUBST([OMPI_SHIM_CFLAGS])
  AC_SUBST([OMPI_COLL_API])
  AC_SUBST([OMPI_SHIMS])
])
