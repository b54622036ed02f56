/* dev_template.cu: a tile size as a template parameter, instantiated by main's launch.
 * By hand for TILE = 32, block 32x8, per warp (threadIdx.y fixed, x = lane):
 *   t[threadIdx.y + k][threadIdx.x] = ...: a row, consecutive words: 1 wavefront.
 *   t[threadIdx.x][threadIdx.y]: rows of TILE = 32 words: all lanes on one bank: 32-way.
 *   u[threadIdx.x][threadIdx.y] with TILE + 1 words a row: banks all distinct: 1. */
#include <cstdio>
#include <cuda_runtime.h>

template <int TILE>
__global__ void carve4(float *out)
{
    __shared__ float t[TILE][TILE];
    __shared__ float u[TILE][TILE + 1];
    for (int k = 0; k < TILE; k += blockDim.y) {
        t[threadIdx.y + k][threadIdx.x] = threadIdx.x + k;
        u[threadIdx.y + k][threadIdx.x] = threadIdx.x - k;
    }
    __syncthreads();
    out[threadIdx.y * TILE + threadIdx.x] = t[threadIdx.x][threadIdx.y] + u[threadIdx.x][threadIdx.y];
}

int main()
{
    float *out;
    cudaMalloc(&out, 32 * 32 * sizeof(float));
    carve4<32><<<1, dim3(32, 8)>>>(out);
    cudaError_t e = cudaDeviceSynchronize();
    printf("carve4<32>: %s\n", cudaGetErrorString(e));
    cudaFree(out);
    return e != cudaSuccess;
}
