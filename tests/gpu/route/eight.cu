/* eight.cu: ten kernels in one program, each launched once by main with a launch main
 * computes: a row read, a column read (32-way), the padded column, float2 at stride 2, float4,
 * a broadcast, char neighbours, shared atomics, ldmatrix.x4 unswizzled (8 wavefronts a
 * matrix) and cp.async of 16-byte chunks. The program of the sanitizer route's check: every
 * kernel measured in one run, each instruction against CUPTI's figures, each line against
 * ncu --section SourceCounters, and its time against the plain run (tests/gpu/sanroute.sh). */
#include <cstdio>
#include <cstdlib>
#include <cuda_pipeline.h>
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

__global__ void pairs_stride2(float *out)
{
    __shared__ float2 s[512];
    int t = threadIdx.x;
    s[t] = make_float2(t, t);
    s[t + 256] = make_float2(t, t);
    __syncthreads();
    float2 v = s[(t * 2) & 511];
    out[blockIdx.x * blockDim.x + t] = v.x + v.y;
}

__global__ void quads(float *out)
{
    __shared__ float4 s[256];
    int t = threadIdx.x;
    s[t] = make_float4(t, t, t, t);
    __syncthreads();
    float4 v = s[t];
    out[blockIdx.x * blockDim.x + t] = v.x + v.w;
}

__global__ void broadcast(float *out, int k)
{
    __shared__ float s[256];
    int t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = s[k];
}

__global__ void chars(float *out)
{
    __shared__ char s[1024];
    int t = threadIdx.x;
    s[t] = (char)t;
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = s[t ^ 1];
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

__global__ void ldm(float *out)
{
    __shared__ __align__(128) unsigned short tile[32 * 64];
    for (int i = threadIdx.x; i < 32 * 64; i += blockDim.x)
        tile[i] = (unsigned short)i;
    __syncthreads();
    int lane = threadIdx.x & 31;
    unsigned addr = (unsigned)__cvta_generic_to_shared(&tile[lane * 64]);
    unsigned r0, r1, r2, r3;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
    out[blockIdx.x * blockDim.x + threadIdx.x] = (float)(r0 + r1 + r2 + r3);
}

__global__ void copy_async(const float4 *in, float *out)
{
    __shared__ float4 s[256];
    int t = threadIdx.x;
    __pipeline_memcpy_async(&s[t], &in[blockIdx.x * blockDim.x + t], sizeof(float4));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = s[t].x;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1 << 14;   /* threads */
    int block = 256, grid = (n + block - 1) / block;
    float *out;
    float4 *in;
    cudaMalloc(&out, (size_t)grid * block * sizeof(float));
    cudaMalloc(&in, (size_t)grid * block * sizeof(float4));
    cudaMemset(in, 0, (size_t)grid * block * sizeof(float4));
    row<<<grid, block>>>(out);
    column<<<grid, block>>>(out);
    column_padded<<<grid, block>>>(out);
    pairs_stride2<<<grid, block>>>(out);
    quads<<<grid, block>>>(out);
    broadcast<<<grid, block>>>(out, 7);
    chars<<<grid, block>>>(out);
    histogram<<<grid, block>>>(out);
    ldm<<<grid, 32>>>(out);
    copy_async<<<grid, block>>>(in, out);
    cudaError_t e = cudaDeviceSynchronize();
    printf("eight: %d kernels, grid %d: %s\n", 10, grid, cudaGetErrorString(e));
    cudaFree(out);
    cudaFree(in);
    return e != cudaSuccess;
}
