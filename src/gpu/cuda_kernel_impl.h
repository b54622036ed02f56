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
    const char *nvcc;            /* NULL: NVRTC; else the nvcc to run (kernel_nvcc.c) */
    int nflags;                  /* the request's -I, -D and --nvcc-flag words */
    const char (*flags)[GPU_KERNEL_TEXT];
    int ptx;                     /* nvcc only: -ptx instead of -cubin (out->cubin holds the
                                    PTX text, out->lowered stays empty) */
};

/* libnvrtc, loaded on first use and kept. */
struct rtc;
struct rtc *krtc_new(void);
void krtc_free(struct rtc *r);

/* kcompile: compile (or take from the cache) into out. Returns 0 with out->ok telling
 * whether it compiled (the log holds the messages), or -1 with err (GPU_KERNEL_ESYSTEM) when
 * NVRTC is missing or failed otherwise. *cache_hit is 1 when the cache answered. */
int kcompile(struct rtc *r, const struct kcompile_in *in, struct compiled *out, int *cache_hit,
             struct bl_err *err);

/* ---- kernel_nvcc.c: the toolkit's nvcc, for files with host code (no CUDA headers) ---- */

/* knvcc_find: the nvcc to use: $BANKLAB_NVCC, $CUDA_HOME/bin/nvcc, the build's CUDA home,
 * nvcc on $PATH, /usr/local/cuda/bin/nvcc; the first that is an executable file. 0 with its
 * path, -1 when there is none. */
int knvcc_find(char *path, size_t size);

/* knvcc_id: what identifies that nvcc in a cache key (path, size, modification time). */
void knvcc_id(const char *nvcc, char *id, size_t size);

/* knvcc_compile: the device side of in->src's file (in->name) with nvcc -cubin -lineinfo
 * -arch=sm_<arch>, its -I, -D and flags; run as a process (an argv, no shell) in a private
 * temporary directory. out->log holds the messages in NVRTC's form (file(line): error: ...,
 * the line and an exact caret: ksrc_parse_log reads both), out->lowered the symbol of
 * in->name_expr found among the cubin's functions. Returns 0 with out->ok telling whether it
 * compiled, or -1 with err (GPU_KERNEL_ESYSTEM) when nvcc could not be run. */
int knvcc_compile(const struct kcompile_in *in, struct compiled *out, struct bl_err *err);

/* knvcc_symbol: the cubin's function for name_expr ("k", "ns::k", "k<float4, 4>", "k<MODE_A>"
 * with MODE_A an enumerator, #define or const int of src), by the demangled names of its
 * ".text." sections: the exact instance, else the only function of that name. 0 with the
 * symbol in sym, -1 when none (or several) match. src may be NULL. */
/* kdemangle: the name of a mangled symbol with its template arguments ("ns::k<float4, 4>");
 * an unmangled one is its own name. 0, or -1 when it cannot be read. */
int kdemangle(const char *sym, char *out, size_t n);

int knvcc_symbol(const void *cubin, size_t size, const char *name_expr, const char *src,
                 size_t srclen, char *sym, size_t symsz);

#endif
