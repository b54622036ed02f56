/* dev_multi.cu: a program of three kernels, each launched from main with constants.
 * By hand, per warp:
 *   row_read (block 32x32): tile[ty][tx] reads a row: 1 wavefront; the store too.
 *   col_read (block 32x32): tile[tx][ty] reads a column of 32-word rows: 32-way.
 *   padded_col (block 32x32): tile[tx][ty] with rows of 33 words: 1. */
#include <cstdio>
#include <cuda_runtime.h>

#define N 32
#define BLOCKS 4

__global__ void row_read(const float *in, float *out)
{
    __shared__ float tile[N][N];
    tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * N + threadIdx.x];
    __syncthreads();
    out[blockIdx.x * N * N + threadIdx.y * N + threadIdx.x] = tile[threadIdx.y][threadIdx.x];
}

__global__ void col_read(const float *in, float *out)
{
    __shared__ float tile[N][N];
    tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * N + threadIdx.x];
    __syncthreads();
    out[blockIdx.x * N * N + threadIdx.y * N + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}

__global__ void padded_col(const float *in, float *out)
{
    __shared__ float tile[N][N + 1];
    tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * N + threadIdx.x];
    __syncthreads();
    out[blockIdx.x * N * N + threadIdx.y * N + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}

int main()
{
    float *in, *out;
    cudaMalloc(&in, N * N * sizeof(float));
    cudaMalloc(&out, BLOCKS * N * N * sizeof(float));
    cudaMemset(in, 0, N * N * sizeof(float));
    row_read<<<BLOCKS, dim3(N, N)>>>(in, out);
    col_read<<<4, dim3(32, 32)>>>(in, out);
    padded_col<<<BLOCKS, dim3(N, N)>>>(in, out);
    cudaError_t e = cudaDeviceSynchronize();
    printf("dev_multi: %s\n", cudaGetErrorString(e));
    cudaFree(in);
    cudaFree(out);
    return e != cudaSuccess;
}
