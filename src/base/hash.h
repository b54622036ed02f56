/* hash.h: the one hash of banklab: 64-bit FNV-1a (cache keys, socket names, the text the
 * model reads). libc only. */
#ifndef BANKLAB_HASH_H
#define BANKLAB_HASH_H

#include <stddef.h>
#include <stdint.h>

/* bl_hash: FNV-1a over p[n], continuing from h (start with BL_HASH_SEED). */
#define BL_HASH_SEED 0xcbf29ce484222325ull
uint64_t bl_hash(uint64_t h, const void *p, size_t n);

#endif
