/* libzstd's xxhash: names made by pasting a namespace on (XXH_NAMESPACE ZSTD_). */
#define NS_(a, b) a##b
#define NS(name) NS_(my_, name)
unsigned long NS(hash)(const char *s)
{
    unsigned long h = 5381;
    while (*s)
        h = h * 33 + (unsigned char)*s++;
    return h;
}
