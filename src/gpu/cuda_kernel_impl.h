/* cuda_kernel_impl.h: what the two halves of the CUDA measuring process share: the compile
 * step (cuda_kcompile.c: NVRTC and the cubin cache) as used by the measurement
 * (cuda_kernel.c). Not for use outside src/gpu/cuda_k*.c. */
#ifndef BANKLAB_CUDA_KERNEL_IMPL_H
#define BANKLAB_CUDA_KERNEL_IMPL_H

#include <stddef.h>
#include <stdio.h>

#include "kernel_impl.h"

/* What NVRTC made of a file. */
struct compiled {
    char *log;                   /* NVRTC's log (warnings too) */
    char lowered[GPU_KERNEL_TEXT]; /* the chosen kernel's symbol in the cubin */
    unsigned char *cubin;
    size_t cubin_size;
    int ok;                      /* compiled without errors */
};

void compiled_done(struct compiled *c);

struct kcompile_in {
    const char *src;
    size_t len;
    const char *name;            /* the program's name: the file's real path (line info) */
    const char *dir;             /* its directory: -I */
    const char *name_expr;       /* the kernel to lower (NULL: none chosen yet) */
    int arch;                    /* sm_<arch> */
    const char *cache_dir;       /* NULL or "": no cache */
    FILE *dbg;                   /* debug log or NULL */
};

/* libnvrtc, loaded on first use and kept. */
struct rtc;
struct rtc *krtc_new(void);
void krtc_free(struct rtc *r);

/* kcompile: compile (or take from the cache) into out. Returns 0 with out->ok telling
 * whether it compiled (the log holds the messages), or -1 with why when NVRTC is missing or
 * failed otherwise. *cache_hit is 1 when the cache answered. */
int kcompile(struct rtc *r, const struct kcompile_in *in, struct compiled *out, int *cache_hit,
             char *why, size_t whysz);

#endif
