/* launches.cu (tests/sh/kernel_model.sh): three kernels and the launches a developer writes in
 * main: a #define, a dim3 local, arithmetic of constants and the dynamic shared memory in the
 * <<<>>>. No // banklab: line: the model takes each kernel's launch from main. */
#include <cstdio>
#include <cuda_runtime.h>

#define TILE 32
#define ROWS 8
const int N = 1024;

__global__ void copy_rows(float *out)
{
    __shared__ float t[TILE][TILE];
    int x = threadIdx.x, y = threadIdx.y;
    for (int j = y; j < TILE; j += ROWS)
        t[j][x] = x;
    __syncthreads();
    out[blockIdx.x * TILE + x] = t[x][y];
}

__global__ void stride2(float *out)
{
    __shared__ float s[512];
    int t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    out[t] = s[(t * 2) & 511];
}

__global__ void dyn(float *out)
{
    extern __shared__ float d[];
    int t = threadIdx.x;
    d[t * 4] = t;
    __syncthreads();
    out[t] = d[(t * 4) ^ 4];
}

int main()
{
    float *out;
    cudaMalloc(&out, N * sizeof(float));
    dim3 block(TILE, ROWS);
    copy_rows<<<N / TILE, block>>>(out);
    stride2<<<2, dim3(64)>>>(out);
    dyn<<<1, 2 * TILE, 4 * TILE * 2 * sizeof(float)>>>(out);
    cudaDeviceSynchronize();
    printf("done\n");
    return 0;
}
