/* hash.c: the one hash (hash.h). libc only. */
#include "hash.h"

uint64_t bl_hash(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return h;
}
