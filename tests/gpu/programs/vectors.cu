// banklab: --grid 4 --block 128
/* vectors.cu: 8- and 16-byte accesses (float2, float4). A 16-byte access needs 4 wavefronts
 * per warp without a conflict, an 8-byte one 2: the ideal. Stride 2 of float4 and stride 16
 * of float2 add conflicts on top. */
#include <cstdio>
#include <cuda_runtime.h>

__global__ void vectors(float *out)
{
    __shared__ float4 v4[256];
    __shared__ float2 v2[256];
    int t = threadIdx.x;
    v4[t] = make_float4(t, t + 1, t + 2, t + 3);
    v2[t] = make_float2(t, t + 1);
    __syncthreads();
    float4 a = v4[t];
    float4 b = v4[(t * 2) & 255];
    float2 c = v2[t];
    float2 d = v2[(t * 16) & 255];
    out[blockIdx.x * blockDim.x + t] = a.x + a.w + b.y + b.z + c.x + d.y;
}

int main()
{
    float *out;
    cudaMalloc(&out, 4 * 128 * sizeof(float));
    vectors<<<4, 128>>>(out);
    cudaError_t e = cudaDeviceSynchronize();
    printf("vectors: %s\n", cudaGetErrorString(e));
    cudaFree(out);
    return e != cudaSuccess;
}
