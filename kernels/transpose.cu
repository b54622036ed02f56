/* transpose.cu: matrix transpose of n x n floats, the classic case study (32 x 32 tiles,
 * 32 x 8 threads, each thread moves 4 elements per tile), a copy with the same access shape,
 * and the copy that reaches the device's bandwidth (the ceiling the transposes are compared
 * with). */
#ifndef __CUDACC_RTC__ /* NVRTC (banklab kernel FILE.cu) compiles the kernels alone */
#include <cuda_runtime.h>

#include "kernels.h"
#endif

#define TILE 32
#define ROWS 8

/* copy_tile32: coalesced read and write in the transposes' shape, no shared memory. */
__global__ void copy_tile32(float *out, const float *in, int n)
{
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        out[(size_t)(y + j) * n + x] = in[(size_t)(y + j) * n + x];
}

/* transpose_naive: coalesced read, write with a stride of n floats: no shared memory, so no
 * bank conflicts, but 32 sectors per warp store. */
__global__ void transpose_naive(float *out, const float *in, int n)
{
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        out[(size_t)x * n + (y + j)] = in[(size_t)(y + j) * n + x];
}

/* The three shared-memory transposes. Each block moves TILES tiles of 32 x 32 side by side
 * (tile k of the block at word k * 32 * pitch, a multiple of 32: every tile has the same banks),
 * and each thread issues all its TILES x 4 global loads before its first shared store: twice
 * the bytes in flight of one tile per block, which brings the padded transpose from 88 % to
 * 91 % of the copy ceiling on the H200 (tests/gpu/probe.cu, docs/gpu.md). The access each
 * lesson draws is unchanged: the store tile[threadIdx.y + j][threadIdx.x] (a row) and the load
 * tile[threadIdx.x][threadIdx.y + j] (a column).
 *
 *   TILE32    tile[32][32]: the column load has lanes 32 words apart, all in one bank:
 *             32-way (32 wavefronts, 31 conflicts per load instruction).
 *   PADDED    tile[32][32 + PAD]: with PAD = 1 the rows are 33 words, every lane its own
 *             bank, 1 wavefront; PAD = 0 is TILE32 again; even PAD gives gcd(32 + PAD, 32)-way.
 *   SWIZZLED  tile[32][32] with column c of row r stored at c ^ r: the row store and the
 *             column load both touch 32 distinct banks, no padding needed. */
#define TILES 2
enum { M_TILE32, M_PADDED, M_SWIZZLED };

template <int MODE> __global__ void transpose_shared(float *out, const float *in, int n, int pad)
{
    extern __shared__ float tiles[];
    const int pitch = TILE + (MODE == M_PADDED ? pad : 0);
    float v[TILES][TILE / ROWS];
#pragma unroll
    for (int k = 0; k < TILES; k++) {
        int x = (blockIdx.x * TILES + k) * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
#pragma unroll
        for (int j = 0; j < TILE / ROWS; j++)
            v[k][j] = in[(size_t)(y + j * ROWS) * n + x];
    }
#pragma unroll
    for (int k = 0; k < TILES; k++) {
        float *tile = tiles + k * TILE * pitch;
#pragma unroll
        for (int j = 0; j < TILE / ROWS; j++) {
            int r = threadIdx.y + j * ROWS;      /* tile[threadIdx.y + j][threadIdx.x] */
            tile[r * pitch + (MODE == M_SWIZZLED ? threadIdx.x ^ r : threadIdx.x)] = v[k][j];
        }
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILES; k++) {
        const float *tile = tiles + k * TILE * pitch;
        int x = blockIdx.y * TILE + threadIdx.x, y = (blockIdx.x * TILES + k) * TILE + threadIdx.y;
#pragma unroll
        for (int j = 0; j < TILE / ROWS; j++) {
            int c = threadIdx.y + j * ROWS;      /* tile[threadIdx.x][threadIdx.y + j] */
            out[(size_t)(y + j * ROWS) * n + x] =
                tile[threadIdx.x * pitch + (MODE == M_SWIZZLED ? c ^ threadIdx.x : c)];
        }
    }
}

#ifndef __CUDACC_RTC__
extern "C" int bl_transpose_launch(int kind, float *out, const float *in, int n, int pad)
{
    dim3 grid(n / TILE, n / TILE), block(TILE, ROWS), tgrid(n / TILE / TILES, n / TILE);
    size_t smem = (size_t)TILES * TILE * TILE * sizeof(float);
    if (n % (TILE * TILES) || pad < 0 || pad > TILE)
        return (int)cudaErrorInvalidValue;
    switch (kind) {
    case BL_COPY_TILE: copy_tile32<<<grid, block>>>(out, in, n); break;
    case BL_T_NAIVE: transpose_naive<<<grid, block>>>(out, in, n); break;
    case BL_T_TILE32: transpose_shared<M_TILE32><<<tgrid, block, smem>>>(out, in, n, 0); break;
    case BL_T_PADDED:
        transpose_shared<M_PADDED><<<tgrid, block, (size_t)TILES * TILE * (TILE + pad) *
                                                       sizeof(float)>>>(out, in, n, pad);
        break;
    case BL_T_SWIZZLED: transpose_shared<M_SWIZZLED><<<tgrid, block, smem>>>(out, in, n, 0); break;
    default: return (int)cudaErrorInvalidValue;
    }
    return (int)cudaGetLastError();
}
#endif

/* copy_vec4: 16-byte loads, four in flight per thread before the first store, grid-stride: as
 * fast as cudaMemcpy device to device (measured: docs/gpu.md). */
#define COPY_U 4
__global__ void copy_vec4(float4 *out, const float4 *in, size_t n4)
{
    size_t i = (size_t)blockIdx.x * blockDim.x * COPY_U + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x * COPY_U;
    for (; i + (size_t)(COPY_U - 1) * blockDim.x < n4; i += stride) {
        float4 v[COPY_U];
#pragma unroll
        for (int u = 0; u < COPY_U; u++)
            v[u] = in[i + (size_t)u * blockDim.x];
#pragma unroll
        for (int u = 0; u < COPY_U; u++)
            out[i + (size_t)u * blockDim.x] = v[u];
    }
    for (; i < n4; i += blockDim.x) /* the tail: fewer than COPY_U x 256 vectors */
        out[i] = in[i];
}

#ifndef __CUDACC_RTC__
extern "C" int bl_copy_launch(float *out, const float *in, size_t n, int blocks)
{
    if (n % 4 || ((uintptr_t)out | (uintptr_t)in) % 16 || blocks < 1)
        return (int)cudaErrorInvalidValue;
    copy_vec4<<<blocks, 256>>>((float4 *)out, (const float4 *)in, n / 4);
    return (int)cudaGetLastError();
}
#endif
