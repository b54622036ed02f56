/* row_col.cu: a 32 x (32 + PAD) float matrix in shared memory, read along rows or columns.
 * in: 1024 floats per block; out: 256 floats per block (each thread's sum). */
#ifndef __CUDACC_RTC__ /* NVRTC (banklab kernel FILE.cu) compiles the kernels alone */
#include <cuda_runtime.h>

#include "kernels.h"
#endif
#include "lds.cuh"

/* row_col: lane l reads m[k][l] (row access: 32 consecutive words, conflict free) or m[l][k]
 * (column access: lanes 32 + PAD words apart: 32-way with PAD = 0, conflict free with PAD = 1,
 * gcd(32 + PAD, 32)-way in general). Every warp of the block does the same reads. */
__global__ void row_col(float *out, const float *in, int pad, int column, int rounds)
{
    extern __shared__ float m[];
    int pitch = 32 + pad;
    const float *src = in + (size_t)blockIdx.x * 1024;
    for (int i = threadIdx.x; i < 1024; i += blockDim.x)
        m[(i / 32) * pitch + i % 32] = src[i];
    __syncthreads();
    int lane = threadIdx.x & 31;
    float acc = 0;
    for (int r = 0; r < rounds; r++)
        for (int k = 0; k < 32; k++)
            acc += lds_f32(column ? &m[lane * pitch + k] : &m[k * pitch + lane]);
    out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

#ifndef __CUDACC_RTC__
extern "C" int bl_row_col_launch(float *out, const float *in, int blocks, int pad, int column,
                                 int rounds)
{
    row_col<<<blocks, BL_BLOCK_THREADS, (size_t)32 * (32 + pad) * sizeof(float)>>>(out, in, pad,
                                                                                 column, rounds);
    return (int)cudaGetLastError();
}
#endif
