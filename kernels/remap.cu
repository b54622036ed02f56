/* remap.cu: thread remapping. Lane l sums row l of a 32 x 32 float matrix either in column
 * order (all lanes on column k at step k) or skewed (lane l on column (l + k) % 32 at step k).
 * Same results, different banks. in: 1024 floats per block; out: 256 floats per block. */
#ifndef __CUDACC_RTC__ /* NVRTC (banklab kernel FILE.cu) compiles the kernels alone */
#include <cuda_runtime.h>

#include "kernels.h"
#endif
#include "lds.cuh"

/* remap: REMAP = 0 reads m[l][k]: 32 words apart, one bank, 32-way. REMAP = 1 reads
 * m[l][(l + k) & 31]: bank (l + k) % 32, all different: conflict free without padding. */
__global__ void remap(float *out, const float *in, int skew, int rounds)
{
    __shared__ float m[32][32];
    const float *src = in + (size_t)blockIdx.x * 1024;
    for (int i = threadIdx.x; i < 1024; i += blockDim.x)
        m[i / 32][i % 32] = src[i];
    __syncthreads();
    int lane = threadIdx.x & 31;
    float acc = 0;
    for (int r = 0; r < rounds; r++)
        for (int k = 0; k < 32; k++)
            acc += lds_f32(&m[lane][skew ? (lane + k) & 31 : k]);
    out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

#ifndef __CUDACC_RTC__
extern "C" int bl_remap_launch(float *out, const float *in, int blocks, int skew, int unused,
                               int rounds)
{
    (void)unused;
    remap<<<blocks, BL_BLOCK_THREADS>>>(out, in, skew, rounds);
    return (int)cudaGetLastError();
}
#endif
