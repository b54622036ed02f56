// banklab: --grid 4 --block 256 --arg n=1024
/* strided.cu: one warp reads shared floats with strides 1, 2, 32 and 33: conflict free, a
 * 2-way conflict, a 32-way conflict, and padding that removes it. An ordinary CUDA program:
 * banklab kernel strided.cu, or nvcc -lineinfo -o strided strided.cu && banklab run -- ./strided */
#include <cstdio>
#include <cuda_runtime.h>

__global__ void strided(float *out, int n)
{
    __shared__ float s[32 * 33];
    int t = threadIdx.x;
    for (int i = t; i < 32 * 33; i += blockDim.x)
        s[i] = (float)i;
    __syncthreads();
    int lane = t & 31;
    float a = s[lane];
    float b = s[lane * 2];
    float c = s[lane * 32];
    float d = s[lane * 33];
    if (t < n)
        out[blockIdx.x * blockDim.x + t] = a + b + c + d;
}

int main()
{
    float *out;
    cudaMalloc(&out, 4 * 256 * sizeof(float));
    strided<<<4, 256>>>(out, 1024);
    cudaError_t e = cudaDeviceSynchronize();
    printf("strided: %s\n", cudaGetErrorString(e));
    cudaFree(out);
    return e != cudaSuccess;
}
