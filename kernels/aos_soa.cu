/* aos_soa.cu: 256 structs of FIELDS floats per block, stored as an array of structs or as a
 * structure of arrays; thread t sums the fields of struct t. in: 256 * FIELDS floats per block
 * (struct-major); out: 256 floats per block. */
#ifndef __CUDACC_RTC__ /* NVRTC (banklab kernel FILE.cu) compiles the kernels alone */
#include <cuda_runtime.h>

#include "kernels.h"
#endif
#include "lds.cuh"

/* aos_soa: AoS reads p[t].f: lanes FIELDS words apart, gcd(FIELDS, 32)-way (2 floats: 2-way,
 * 3 floats: conflict free, 4 floats: 4-way). SoA reads f[t]: consecutive words, conflict free. */
__global__ void aos_soa(float *out, const float *in, int fields, int soa, int rounds)
{
    extern __shared__ float s[];
    int n = blockDim.x * fields;
    const float *src = in + (size_t)blockIdx.x * n;
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        int st = i / fields, f = i % fields;
        s[soa ? f * blockDim.x + st : i] = src[i];
    }
    __syncthreads();
    float acc = 0;
    /* No unrolling of the runtime-length field loop: an unrolled copy runs predicated-off
     * loads, which smsp__inst_executed counts and which make no wavefronts. */
    for (int r = 0; r < rounds; r++)
#pragma unroll 1
        for (int f = 0; f < fields; f++)
            acc += lds_f32(soa ? &s[f * blockDim.x + threadIdx.x] : &s[threadIdx.x * fields + f]);
    out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

#ifndef __CUDACC_RTC__
extern "C" int bl_aos_soa_launch(float *out, const float *in, int blocks, int fields, int soa,
                                 int rounds)
{
    size_t smem = (size_t)BL_BLOCK_THREADS * fields * sizeof(float);
    aos_soa<<<blocks, BL_BLOCK_THREADS, smem>>>(out, in, fields, soa, rounds);
    return (int)cudaGetLastError();
}
#endif
