/* broadcast.cu: lanes that read the same word are served together (broadcast / multicast).
 * in: 1024 floats per block; out: 256 floats per block. */
#ifndef __CUDACC_RTC__ /* NVRTC (banklab kernel FILE.cu) compiles the kernels alone */
#include <cuda_runtime.h>

#include "kernels.h"
#endif
#include "lds.cuh"

/* broadcast: lane l reads s[((l / GROUP) * STRIDE + k) % 1024]. GROUP = 32: one word for the
 * whole warp, 1 wavefront. GROUP = 4, STRIDE = 1: 8 distinct words in 8 banks, multicast,
 * 1 wavefront. GROUP = 1, STRIDE = 32: 32 words in one bank, 32-way. */
__global__ void broadcast(float *out, const float *in, int group, int stride, int rounds)
{
    __shared__ float s[1024];
    const float *src = in + (size_t)blockIdx.x * 1024;
    for (int i = threadIdx.x; i < 1024; i += blockDim.x)
        s[i] = src[i];
    __syncthreads();
    int lane = threadIdx.x & 31, base = (lane / group) * stride;
    float acc = 0;
    for (int r = 0; r < rounds; r++)
        for (int k = 0; k < 32; k++)
            acc += lds_f32(&s[(base + k) & 1023]);
    out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

#ifndef __CUDACC_RTC__
extern "C" int bl_broadcast_launch(float *out, const float *in, int blocks, int group,
                                   int stride, int rounds)
{
    broadcast<<<blocks, BL_BLOCK_THREADS>>>(out, in, group, stride, rounds);
    return (int)cudaGetLastError();
}
#endif
