# COLL_RDMA_CHECK_UCX: find UCX (ucp) headers and libraries.
#   --with-ucx=DIR   UCX installation prefix
# Sets UCX_CFLAGS, UCX_LIBS (for the checks and the tests: the component
# does not link UCX, it loads it with dlopen, coll_rdma_ucx.h), DL_LIBS, and
# defines COLL_RDMA_UCP_LIBRARY, the libucp the component loads first, and
# COLL_RDMA_UCS_LIBRARY, the libucs beside it (loaded a step earlier).
AC_DEFUN([COLL_RDMA_CHECK_UCX], [
  AC_ARG_WITH([ucx], [AS_HELP_STRING([--with-ucx=DIR], [UCX installation prefix (default: pkg-config ucx)])])
  AS_IF([test -n "$with_ucx" && test "$with_ucx" != yes && test "$with_ucx" != no], [
      UCX_CFLAGS="-I$with_ucx/include"
      UCX_LIBS="-L$with_ucx/lib -lucp -luct -lucs"
      ucx_libdir="$with_ucx/lib"
    ], [
      PKG_CHECK_MODULES([UCX], [ucx], [],
        [AC_MSG_ERROR([UCX not found by pkg-config: install Debian's libucx-dev (apt-get install libucx-dev), or give --with-ucx=DIR])])
      ucx_libdir=`$PKG_CONFIG --variable=libdir ucx`
    ])
  save_CPPFLAGS="$CPPFLAGS"
  save_LIBS="$LIBS"
  CPPFLAGS="$CPPFLAGS $UCX_CFLAGS"
  LIBS="$LIBS $UCX_LIBS"
  AC_CHECK_HEADER([ucp/api/ucp.h], [],
    [AC_MSG_ERROR([ucp/api/ucp.h not found: install Debian's libucx-dev, or give --with-ucx=DIR])])
  AC_MSG_CHECKING([for ucp_rkey_ptr])
  AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <ucp/api/ucp.h>]], [[return (int) ucp_rkey_ptr(NULL, 0, NULL);]])],
    [AC_MSG_RESULT([yes])], [AC_MSG_RESULT([no]); AC_MSG_ERROR([UCX without ucp_rkey_ptr: UCX 1.9 or newer is needed (Debian's libucx-dev)])])
  AS_IF([test -n "$ucx_libdir" && test -e "$ucx_libdir/libucp.so.0"],
    [AC_DEFINE_UNQUOTED([COLL_RDMA_UCP_LIBRARY], ["$ucx_libdir/libucp.so.0"], [libucp the component loads])
     AS_IF([test -e "$ucx_libdir/libucs.so.0"],
       [AC_DEFINE_UNQUOTED([COLL_RDMA_UCS_LIBRARY], ["$ucx_libdir/libucs.so.0"], [libucs beside it])])])
  LIBS="$save_LIBS"
  AC_SEARCH_LIBS([dlopen], [dl], [], [AC_MSG_ERROR([dlopen not found])])
  AS_IF([test "$ac_cv_search_dlopen" = "none required"], [DL_LIBS=], [DL_LIBS="$ac_cv_search_dlopen"])
  CPPFLAGS="$save_CPPFLAGS"
  LIBS="$save_LIBS"
  AC_SUBST([UCX_CFLAGS])
  AC_SUBST([UCX_LIBS])
  AC_SUBST([DL_LIBS])
])
