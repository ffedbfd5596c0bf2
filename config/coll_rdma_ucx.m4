# COLL_RDMA_CHECK_UCX: find UCX (ucp) headers and libraries.
#   --with-ucx=DIR   UCX installation prefix
# Sets UCX_CFLAGS, UCX_LIBS.
AC_DEFUN([COLL_RDMA_CHECK_UCX], [
  AC_ARG_WITH([ucx], [AS_HELP_STRING([--with-ucx=DIR], [UCX installation prefix (default: pkg-config ucx)])])
  AS_IF([test -n "$with_ucx" && test "$with_ucx" != yes && test "$with_ucx" != no], [
      UCX_CFLAGS="-I$with_ucx/include"
      UCX_LIBS="-L$with_ucx/lib -lucp -luct -lucs"
    ], [
      PKG_CHECK_MODULES([UCX], [ucx], [],
        [AC_MSG_ERROR([UCX not found by pkg-config: install Debian's libucx-dev (apt-get install libucx-dev), or give --with-ucx=DIR])])
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
  CPPFLAGS="$save_CPPFLAGS"
  LIBS="$save_LIBS"
  AC_SUBST([UCX_CFLAGS])
  AC_SUBST([UCX_LIBS])
])
