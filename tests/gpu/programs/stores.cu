// banklab: --grid 2 --block 256
/* stores.cu: 1-, 2-, 4- and 8-byte stores to shared memory, packed and strided: bytes and
 * halves of one warp share banks without a conflict; ints 32 apart are a 32-way conflict;
 * doubles take 2 wavefronts ideal, 4 at a stride of two. */
#include <cstdio>
#include <cuda_runtime.h>

__global__ void stores(int *out)
{
    __shared__ unsigned char c[256 * 4];
    __shared__ unsigned short h[256 * 2];
    __shared__ int w[256 * 32];
    __shared__ double d[256 * 2];
    int t = threadIdx.x;
    c[t] = (unsigned char)t;
    c[t * 4] = (unsigned char)(t + 1);
    h[t] = (unsigned short)t;
    w[t] = t;
    w[t * 32] = t + 1;
    d[t] = t;
    d[t * 2] = t + 0.5;
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = c[t] + h[t] + w[t] + (int)d[t];
}

int main()
{
    int *out;
    cudaMalloc(&out, 2 * 256 * sizeof(int));
    stores<<<2, 256>>>(out);
    cudaError_t e = cudaDeviceSynchronize();
    printf("stores: %s\n", cudaGetErrorString(e));
    cudaFree(out);
    return e != cudaSuccess;
}
