/* dynamic_carve.cu: several arrays carved from one extern __shared__ buffer (the third launch
 * parameter): float a[N], then PAD_BYTES, then double b[N], then int c[N]. The double array
 * must start on an 8-byte boundary: the runner refuses other PAD_BYTES before launching.
 * in: N floats per block; out: N floats per block. */
#ifndef __CUDACC_RTC__ /* NVRTC (banklab kernel FILE.cu) compiles the kernels alone */
#include <cuda_runtime.h>

#include "kernels.h"
#endif

/* dynamic_carve: stores a[i], b[i], c[i] and loads a[N-1-i], b[i], c[3i % N]: float and int
 * accesses one word per lane (conflict free, the 3i stride is odd), double accesses two passes
 * of 16 lanes (2 wavefronts per instruction, 0 conflicts). Above 48 KB needs the opt-in
 * attribute (cudaFuncAttributeMaxDynamicSharedMemorySize), set by the launcher. */
__global__ void dynamic_carve(float *out, const float *in, int n, int pad_bytes)
{
    extern __shared__ __align__(16) unsigned char buf[];
    float *a = (float *)buf;
    double *b = (double *)(buf + (size_t)n * sizeof(float) + pad_bytes);
    int *c = (int *)(b + n);
    const float *src = in + (size_t)blockIdx.x * n;
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        a[i] = src[i];
        b[i] = 2.0 * src[i];
        c[i] = i;
    }
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        out[(size_t)blockIdx.x * n + i] = a[n - 1 - i] + (float)b[i] + (float)c[(3 * i) % n];
}

#ifndef __CUDACC_RTC__
extern "C" size_t bl_dynamic_carve_smem(int n, int pad_bytes)
{
    return (size_t)n * (sizeof(float) + sizeof(double) + sizeof(int)) + (size_t)pad_bytes;
}

extern "C" int bl_dynamic_carve_launch(float *out, const float *in, int blocks, int n,
                                       int pad_bytes, int rounds)
{
    (void)rounds;                  /* one pass: the carving is what it shows */
    if ((n * sizeof(float) + pad_bytes) % sizeof(double))
        return (int)cudaErrorInvalidValue;
    size_t smem = bl_dynamic_carve_smem(n, pad_bytes);
    cudaError_t e = cudaFuncSetAttribute(dynamic_carve, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)smem);
    if (e != cudaSuccess)
        return (int)e;
    dynamic_carve<<<blocks, BL_BLOCK_THREADS, smem>>>(out, in, n, pad_bytes);
    return (int)cudaGetLastError();
}
#endif
