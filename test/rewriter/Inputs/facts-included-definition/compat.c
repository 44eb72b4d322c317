/* Where the C library lacks it (Tor's compat_string.c: #include "ext/strlcpy.c"). */
#include "ext/my_strlcpy.c"
