// banklab: --grid 64 --block 256
/* many.cu: six kernels in one program, each launched once by main: a row read, a column
 * read (32-way), the padded column, float2 and float4 reads, and shared atomics. The
 * program of the speed comparison: banklab run -- ./many against ncu --section
 * SourceCounters ./many, end to end (tests/gpu/own_code.sh). */
#include <cstdio>
#include <cuda_runtime.h>

__global__ void row(float *out)
{
    __shared__ float s[32][32];
    int x = threadIdx.x & 31, y = threadIdx.x >> 5;
    s[y][x] = x;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[y][x];
}

__global__ void column(float *out)
{
    __shared__ float s[32][32];
    int x = threadIdx.x & 31, y = threadIdx.x >> 5;
    s[y][x] = x;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[x][y];
}

__global__ void column_padded(float *out)
{
    __shared__ float s[32][33];
    int x = threadIdx.x & 31, y = threadIdx.x >> 5;
    s[y][x] = x;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[x][y];
}

__global__ void pairs(float *out)
{
    __shared__ float2 s[512];
    int t = threadIdx.x;
    s[t] = make_float2(t, t);
    s[t + 256] = make_float2(t, t);
    __syncthreads();
    float2 v = s[(t * 4) & 511];
    out[blockIdx.x * blockDim.x + t] = v.x + v.y;
}

__global__ void quads(float *out)
{
    __shared__ float4 s[256];
    int t = threadIdx.x;
    s[t] = make_float4(t, t, t, t);
    __syncthreads();
    float4 v = s[t ^ 1];
    out[blockIdx.x * blockDim.x + t] = v.x + v.w;
}

__global__ void histogram(float *out)
{
    __shared__ int bins[64];
    int t = threadIdx.x;
    if (t < 64)
        bins[t] = 0;
    __syncthreads();
    atomicAdd(&bins[t & 7], 1);
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = (float)bins[t & 63];
}

int main()
{
    float *out;
    cudaMalloc(&out, 64 * 256 * sizeof(float));
    row<<<64, 256>>>(out);
    column<<<64, 256>>>(out);
    column_padded<<<64, 256>>>(out);
    pairs<<<64, 256>>>(out);
    quads<<<64, 256>>>(out);
    histogram<<<64, 256>>>(out);
    cudaError_t e = cudaDeviceSynchronize();
    printf("many: %s\n", cudaGetErrorString(e));
    cudaFree(out);
    return e != cudaSuccess;
}
