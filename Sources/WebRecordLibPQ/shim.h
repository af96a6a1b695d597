// libpq's header: found through pkg-config (`pkg-config --cflags libpq` adds Debian's
// /usr/include/postgresql), else under the include directory itself.
#if __has_include(<libpq-fe.h>)
#include <libpq-fe.h>
#else
#include <postgresql/libpq-fe.h>
#endif
