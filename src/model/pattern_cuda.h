/* pattern_cuda.h: one line of a learner's CUDA kernel as a pattern of the pattern language
 * (pattern.h), so the playground can draw that line's bank grid. It finds the shared arrays
 * the line indexes, their declarations in the file, the locals, #define constants and kernel
 * parameters the indices use (parameters take the launch's --arg values; blockIdx is the first
 * block's, 0), and checks the result with the pattern parser. Where the language cannot
 * express the line (an atomic, inline asm, an index that depends on global memory, a value it
 * does not know) it says why in out->err. It reads the file's tokens (clex.h), not a C++
 * parse: it knows kernels as people write them. Pure C: libc and src/base only. */
#ifndef BANKLAB_PATTERN_CUDA_H
#define BANKLAB_PATTERN_CUDA_H

#include <stddef.h>

#include "pattern.h"

#define PATTERN_CUDA_TEXT 1024

/* The launch the line ran under (what the playground needs of it). */
struct pattern_cuda_launch {
    unsigned grid[3];                /* gridDim (blockIdx is taken as 0: the first block) */
    unsigned block[3];               /* blockDim */
    unsigned long long dyn_bytes;    /* dynamic shared memory (extern __shared__ arrays) */
    int nargs;                       /* scalar kernel parameters: --arg NAME=VALUE */
    const char *const *arg_name;
    const char *const *arg_value;
    /* for predicting every warp of a launch (0 / NULL: the playground's first block, one trip) */
    unsigned block_idx[3];           /* the block whose blockIdx the text takes */
    int control;                     /* 1: the ifs and fors around the line become a guard, the
                                        loop variables their values at trip[] */
    int ntrip;
    const long long *trip;           /* the trip of each enclosing for, outermost first */
    /* for a line of a __device__ helper or a template (0 / NULL: the line's own function) */
    const char *name;                /* the kernel as --name gives it, with its template
                                        arguments: "carve4<32>" gives TILE = 32 */
    int kernel_line;                 /* a line of the kernel's body: a line of a helper it
                                        calls is read inlined at the call, with its arguments
                                        (0: the first __global__ function that calls it) */
    int path;                        /* which call path (pattern_cuda_file_paths), from 0 */
};

struct pattern_cuda {
    char decls[PATTERN_CUDA_TEXT];   /* declarations and locals the accesses use, "; " between */
    char accesses[PATTERN_CUDA_TEXT];/* the line's accesses, loads first, "; " between */
    int naccess;
    struct pattern_env env;          /* block, dyn_bytes and the parameters the text uses */
    struct bl_msg note;              /* what was assumed (a loop variable's first trip), a
                                        message of src/base/msg.def; BL_MSG_NONE when nothing */
    struct bl_err err;               /* why not (when pattern_from_cuda returns -1) */
    /* with launch->control: */
    char guard[PATTERN_CUDA_TEXT];   /* the conditions the line runs under ("" = always), as a
                                        pattern expression over the names decls declares */
    int nloops;                      /* enclosing for loops (their trips: launch->trip) */
    int block_dep;                   /* the text uses blockIdx: it differs from block to block */
};

/* pattern_from_cuda: the shared-memory accesses of line `line` (1-based) of the CUDA source
 * src (len bytes) as pattern text, for a launch. Returns 0 with out->decls, out->accesses and
 * out->env filled (the text parses: decls + "; " + accesses), or -1 with out->err filled.
 * Never prints; total for every input. */
int pattern_from_cuda(const char *src, size_t len, int line,
                      const struct pattern_cuda_launch *launch, struct pattern_cuda *out);

/* A file read once for many lines: pattern_cuda_open reads src (kept by the caller, unchanged,
 * until pattern_cuda_close) into its tokens, functions, declarations and their indexes (NULL
 * out of memory); pattern_cuda_line is pattern_from_cuda over it, its cost the line's, not the
 * file's. pattern_cuda_file_paths: the number of call paths (at most 64, 4 calls deep) from
 * the function whose body holds line kernel_line to the function whose body holds line
 * `line`: 1 when it is the same function, 0 when the kernel does not call it (or either line
 * is in none); a helper's accesses count once per path (nvcc inlines each call; the counters
 * charge the helper's line); each function's count is kept in f. */
struct pattern_cuda_file;
struct pattern_cuda_file *pattern_cuda_open(const char *src, size_t len);
void pattern_cuda_close(struct pattern_cuda_file *f);
int pattern_cuda_line(struct pattern_cuda_file *f, int line,
                      const struct pattern_cuda_launch *launch, struct pattern_cuda *out);
int pattern_cuda_file_paths(struct pattern_cuda_file *f, int kernel_line, int line);

#endif
