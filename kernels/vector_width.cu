/* vector_width.cu: float, float2 and float4 column reads of a 32-row tile whose rows are 128
 * bytes plus PAD vectors. in: 1024 floats per block; out: 256 floats per block. */
#ifndef __CUDACC_RTC__ /* NVRTC (banklab kernel FILE.cu) compiles the kernels alone */
#include <cuda_runtime.h>

#include "kernels.h"
#endif

/* vector_width<T>: lane l reads tile[l][k] as one T (k over the 32 / (sizeof T / 4) vectors
 * of its row). PAD = 0: every lane's row starts in bank 0: float 32-way (32 wavefronts),
 * float2 16 lanes per half-warp pass on one bank pair (32 wavefronts), float4 8 lanes per
 * quarter-warp pass (32 wavefronts). PAD = one vector: float 1, float2 2, float4 4 wavefronts
 * (the passes of a wide access, 0 conflicts). Padding by one float misaligns float2/float4. */
template <typename T>
__global__ void vector_width(float *out, const float *in, int pad, int rounds)
{
    extern __shared__ __align__(16) float vt[];
    const int vec = sizeof(T) / sizeof(float), cols = 32 / vec, pitch = (cols + pad) * vec;
    const float *src = in + (size_t)blockIdx.x * 1024;
    for (int i = threadIdx.x; i < 1024; i += blockDim.x)
        vt[(i / 32) * pitch + i % 32] = src[i];
    __syncthreads();
    int lane = threadIdx.x & 31;
    unsigned row = (unsigned)__cvta_generic_to_shared(vt + lane * pitch);
    float acc = 0;
    for (int r = 0; r < rounds; r++)
        for (int k = 0; k < cols; k++) {
            unsigned a = row + k * (unsigned)sizeof(T);
            float x, y, z, w;
            /* volatile PTX: one access of the full vector width each time, never hoisted */
            if (vec == 1) {
                asm volatile("ld.volatile.shared.f32 %0, [%1];" : "=f"(x) : "r"(a));
                acc += x;
            } else if (vec == 2) {
                asm volatile("ld.volatile.shared.v2.f32 {%0, %1}, [%2];" : "=f"(x), "=f"(y) : "r"(a));
                acc += x + y;
            } else {
                asm volatile("ld.volatile.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
                             : "=f"(x), "=f"(y), "=f"(z), "=f"(w)
                             : "r"(a));
                acc += x + y + z + w;
            }
        }
    out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

#ifndef __CUDACC_RTC__
extern "C" int bl_vector_width_launch(float *out, const float *in, int blocks, int vec, int pad,
                                      int rounds)
{
    size_t smem = (size_t)32 * (32 + (size_t)pad * vec) * sizeof(float);
    switch (vec) {
    case 1: vector_width<float><<<blocks, BL_BLOCK_THREADS, smem>>>(out, in, pad, rounds); break;
    case 2: vector_width<float2><<<blocks, BL_BLOCK_THREADS, smem>>>(out, in, pad, rounds); break;
    case 4: vector_width<float4><<<blocks, BL_BLOCK_THREADS, smem>>>(out, in, pad, rounds); break;
    default: return (int)cudaErrorInvalidValue;
    }
    return (int)cudaGetLastError();
}
#endif
