/* kernel_cache.h: the cache of compiled kernels behind `banklab kernel` (kernel_cache.c):
 * the key (everything that goes into a cubin, the quoted includes found in time linear in
 * what they hold), and entries read and written in a directory that must be this user's
 * alone, never through a link (docs/security.md). Plain C, no CUDA: used by cuda_kcompile.c
 * and the unit tests. Never prints. */
#ifndef BANKLAB_KERNEL_CACHE_H
#define BANKLAB_KERNEL_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "../base/err.h"

/* A growing byte string: the cache key. s is NULL until something was added, and again
 * (with len 0) after running out of memory. */
struct keybuf {
    char *s;
    size_t len, cap;
    int failed;                  /* out of memory, or over a limit: do not cache */
};

int kcache_key_add(struct keybuf *k, const void *p, size_t n);
/* kbuf_add: p[n] appended to k (NUL-terminated) while it stays under max bytes; 0, or -1 (k
 * failed: out of memory or over max). kcache_key_add: under KCACHE_KEY_MAX. */
int kbuf_add(struct keybuf *k, const void *p, size_t n, size_t max);

#define KCACHE_INCLUDE_MAX (1u << 20)     /* bytes read of one included file */
#define KCACHE_INCLUDES_MAX 4096          /* distinct included files */
#define KCACHE_KEY_MAX (64u << 20)        /* bytes of a whole key */

/* kcache_key_includes: the quoted includes of src (len bytes, in directory dir), and theirs,
 * each distinct file (by device and inode) once, added to k as "\ninclude PATH\n" and its
 * bytes: editing a header must not bring back a stale cubin, and a header included many times
 * (guarded, #pragma once, including itself) is read once. Only regular files are read. Over
 * the limits above k->failed is set (the caller then compiles without the cache). Returns 0,
 * or -1 when k->failed. */
int kcache_key_includes(struct keybuf *k, const char *dir, const char *src, size_t len);

/* kcache_dir_open: dir (made with its parents, 0700, when missing) opened as a directory
 * without following a link at its last step, and accepted only when it is this user's and no
 * one else may enter or write it (as the measuring server's socket directory). Returns the
 * descriptor, or -1 with err ("... is open to others", "... belongs to uid N"). */
int kcache_dir_open(const char *dir, struct bl_err *err);

/* kernel_cache_refused: 0 when dir can be the cache (kcache_dir_open accepts it, made when
 * missing), else 1 with err: what the command line says before it runs without the cache. */
int kernel_cache_refused(const char *dir, struct bl_err *err);

/* One cached compile: what kcache_load fills (malloc'ed; free them) and kcache_store writes. */
struct kcache_entry {
    char *log;
    char *lowered;
    unsigned char *cubin;
    size_t cubin_size;
};

/* kcache_load: the entry name in directory dfd when it is a regular file of this user's (no
 * link followed) whose key equals key. 0, or -1 (no entry, not ours, another key). */
int kcache_load(int dfd, const char *name, const struct keybuf *key, struct kcache_entry *e);

/* kcache_store: writes the entry under a temporary name made exclusively (O_EXCL, never
 * through a link) in dfd, then renames it to name. 0, or -1 with errno (the temporary file
 * is removed). Temporary files of killed stores (untouched for 10 minutes) go first. */
int kcache_store(int dfd, const char *name, const struct keybuf *key,
                 const struct kcache_entry *e);

#endif
