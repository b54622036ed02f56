/* transpose.cu: matrix transpose of n x n floats, the classic case study (32 x 32 tiles,
 * 32 x 8 threads, each thread moves 4 elements), a copy with the same access shape, and the
 * copy that reaches the device's bandwidth (the ceiling the transposes are compared with). */
#include <cuda_runtime.h>

#include "kernels.h"

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

/* transpose_tile32: __shared__ float tile[32][32]. The store tile[ty+j][tx] is a row (conflict
 * free); the load tile[tx][ty+j] walks a column: lanes 32 words apart, one bank: 32-way
 * (32 wavefronts, 31 conflicts per load instruction). */
__global__ void transpose_tile32(float *out, const float *in, int n)
{
    __shared__ float tile[TILE][TILE];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        out[(size_t)(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

/* transpose_padded: tile[32][32 + PAD] (dynamic, PAD from the scene). With PAD = 1 the column
 * load has a 33-word stride: every lane its own bank, 1 wavefront. PAD = 0 is tile32 again;
 * even PAD gives gcd(32 + PAD, 32)-way conflicts. */
__global__ void transpose_padded(float *out, const float *in, int n, int pad)
{
    extern __shared__ float ptile[];
    int pitch = TILE + pad;
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        ptile[(threadIdx.y + j) * pitch + threadIdx.x] = in[(size_t)(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        out[(size_t)(y + j) * n + x] = ptile[threadIdx.x * pitch + threadIdx.y + j];
}

/* transpose_swizzled: tile[32][32] with column c of row r stored at c ^ r. Row stores and
 * column loads both touch 32 distinct banks: 1 wavefront each, no padding needed. */
__global__ void transpose_swizzled(float *out, const float *in, int n)
{
    __shared__ float tile[TILE][TILE];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) {
        int r = threadIdx.y + j;
        tile[r][threadIdx.x ^ r] = in[(size_t)(y + j) * n + x];
    }
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) {
        int c = threadIdx.y + j;
        out[(size_t)(y + j) * n + x] = tile[threadIdx.x][c ^ threadIdx.x];
    }
}

extern "C" int bl_transpose_launch(int kind, float *out, const float *in, int n, int pad)
{
    dim3 grid(n / TILE, n / TILE), block(TILE, ROWS);
    switch (kind) {
    case BL_COPY_TILE: copy_tile32<<<grid, block>>>(out, in, n); break;
    case BL_T_NAIVE: transpose_naive<<<grid, block>>>(out, in, n); break;
    case BL_T_TILE32: transpose_tile32<<<grid, block>>>(out, in, n); break;
    case BL_T_PADDED:
        transpose_padded<<<grid, block, (size_t)TILE * (TILE + pad) * sizeof(float)>>>(out, in, n,
                                                                                     pad);
        break;
    case BL_T_SWIZZLED: transpose_swizzled<<<grid, block>>>(out, in, n); break;
    default: return (int)cudaErrorInvalidValue;
    }
    return (int)cudaGetLastError();
}

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

extern "C" int bl_copy_launch(float *out, const float *in, size_t n, int blocks)
{
    if (n % 4 || ((uintptr_t)out | (uintptr_t)in) % 16 || blocks < 1)
        return (int)cudaErrorInvalidValue;
    copy_vec4<<<blocks, 256>>>((float4 *)out, (const float4 *)in, n / 4);
    return (int)cudaGetLastError();
}
