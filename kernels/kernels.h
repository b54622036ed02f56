/* kernels.h: the extern "C" launchers of the kernels/ .cu files, for the CUDA runner (src/runner).
 * Every launcher returns a cudaError_t value (0 = cudaSuccess) from the launch itself
 * (cudaGetLastError right after it); it never synchronises. */
#ifndef BANKLAB_KERNELS_H
#define BANKLAB_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BL_BLOCK_THREADS 256   /* threads per block of every timing launch */

/* pattern.cu: one warp access (model offsets) run as real shared-memory instructions. */
struct bl_pattern_args {
    uint32_t off[32];          /* byte offset of each lane (from the model) */
    uint32_t mask;             /* active lanes */
    uint32_t region;           /* bytes between the regions of the warps of a block (0: shared) */
    int width;                 /* 1, 2, 4, 8 or 16 */
    int store;                 /* 1: st.volatile.shared, 0: ld.volatile.shared */
    int instr;                 /* enum bank_instr: 0 ld/st.shared, 1 ldmatrix, 2 stmatrix,
                                  3 cp.async.ca (the source: `src`, lane l at l * width) */
    int matrices;              /* ldmatrix/stmatrix: 1, 2 or 4 */
    int trans;                 /* ldmatrix/stmatrix: .trans */
    const void *src;           /* cp.async: global source (BL_CP_ASYNC_SRC bytes) */
    uint32_t goff[32];         /* cp.async: byte offset of each lane's source in src */
    uint32_t zero;             /* 0, unknown to the compiler: ldmatrix's address depends on the
                                  last result through it, or ptxas merges repeated ldmatrix of
                                  one address (it did: 1 LDSM.x4 a loop trip instead of 32) */
};
#define BL_CP_ASYNC_SRC 65536      /* bytes of cp.async's global source (bank_access.src) */
#define BL_PATTERN_UNROLL 32   /* accesses per loop trip: a launch does iters * 32 per lane */
/* bl_pattern_smem: dynamic shared bytes a launch with `threads` threads needs. */
size_t bl_pattern_smem(const struct bl_pattern_args *a, int threads);
/* bl_pattern_attr: allow `smem` bytes of dynamic shared memory (above 48 KB needs opt-in). */
int bl_pattern_attr(const struct bl_pattern_args *a, size_t smem);
int bl_pattern_launch(const struct bl_pattern_args *a, int blocks, int threads, int iters,
                      size_t smem, unsigned *sink);
/* bl_clock_probe: one thread spins for `cycles` SM clocks (clock64); time it to read the clock. */
int bl_clock_probe(long long cycles, unsigned *sink);

/* transpose.cu: n x n floats (n a multiple of 64), 32 x 8 threads per block, 32 x 32 tiles
 * (the shared-memory transposes: two tiles per block); BL_COPY_TILE copies with the same shape
 * (no shared memory). */
enum bl_transpose { BL_COPY_TILE = 0, BL_T_NAIVE, BL_T_TILE32, BL_T_PADDED, BL_T_SWIZZLED };
int bl_transpose_launch(int kind, float *out, const float *in, int n, int pad);
/* bl_copy_launch: copy n floats (n a multiple of 4, 16-byte aligned) with float4 loads, four
 * in flight per thread, `blocks` blocks of 256 threads (grid-stride): the copy ceiling's
 * kernel, next to cudaMemcpy device to device. */
int bl_copy_launch(float *out, const float *in, size_t n, int blocks);

/* Shared-memory case kernels, one signature (bl_case_launch: the runner's table,
 * src/runner/cuda_cases.c): `blocks` blocks of 256 threads reading parameters a and b (in the
 * order of the case's parameters, src/gpu/cases.c); `rounds` repeats of the access loop so
 * shared memory dominates the time. in/out sizes: see each file. */
typedef int (*bl_case_launch)(float *out, const float *in, int blocks, int a, int b, int rounds);
int bl_row_col_launch(float *out, const float *in, int blocks, int pad, int column, int rounds);
int bl_vector_width_launch(float *out, const float *in, int blocks, int vec, int pad, int rounds);
int bl_aos_soa_launch(float *out, const float *in, int blocks, int fields, int soa, int rounds);
int bl_remap_launch(float *out, const float *in, int blocks, int remap, int unused, int rounds);
int bl_broadcast_launch(float *out, const float *in, int blocks, int group, int stride,
                        int rounds);
/* dynamic_carve: one pass (rounds unused); smem = 16 * n + pad_bytes; returns
 * cudaErrorInvalidValue when the double array would be misaligned (the caller checks first
 * and explains). */
int bl_dynamic_carve_launch(float *out, const float *in, int blocks, int n, int pad_bytes,
                            int rounds);
size_t bl_dynamic_carve_smem(int n, int pad_bytes);

#ifdef __cplusplus
}
#endif

#endif
