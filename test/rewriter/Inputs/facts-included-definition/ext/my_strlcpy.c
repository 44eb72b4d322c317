/* A replacement for a function the C library may lack (Tor's src/ext/strlcpy.c), compiled by
 * being included in compat.c. */
#include <stddef.h>
size_t my_strlcpy(char *dst, const char *src, size_t size)
{
    size_t n = 0;
    while (src[n]) n++;
    if (size) {
        size_t k = n < size - 1 ? n : size - 1;
        for (size_t i = 0; i < k; i++) dst[i] = src[i];
        dst[k] = 0;
    }
    return n;
}
