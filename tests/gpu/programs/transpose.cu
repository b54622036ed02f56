// banklab: --grid 32x32 --block 32x32 --arg n=1024 --buffer-size 4M
/* transpose.cu: the seed article's matrix transpose (assets/kernels/transpose_seed.cu) as an
 * ordinary CUDA program: the kernel through tile[32][32] and the padded tile[32][33], host
 * code that allocates, fills, launches both and checks the result. Two kernels in one file:
 * banklab kernel transpose.cu --name transpose_padded; banklab run measures both. */
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

__global__ void transpose(float *in, float *out, int n)
{
    __shared__ float tile[32][32];

    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;

    tile[threadIdx.y][threadIdx.x] = in[y * n + x];
    __syncthreads();

    out[x * n + y] = tile[threadIdx.x][threadIdx.y];
}

__global__ void transpose_padded(float *in, float *out, int n)
{
    __shared__ float tile[32][33];

    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;

    tile[threadIdx.y][threadIdx.x] = in[y * n + x];
    __syncthreads();

    out[x * n + y] = tile[threadIdx.x][threadIdx.y];
}

int main()
{
    const int n = 1024;
    std::vector<float> h(n * n), back(n * n);
    for (int i = 0; i < n * n; i++)
        h[i] = (float)(i % 1000);
    float *in, *out;
    cudaMalloc(&in, n * n * sizeof(float));
    cudaMalloc(&out, n * n * sizeof(float));
    cudaMemcpy(in, h.data(), n * n * sizeof(float), cudaMemcpyHostToDevice);
    dim3 grid(n / 32, n / 32), block(32, 32);
    int bad = 0;
    for (int k = 0; k < 2; k++) {
        if (k == 0)
            transpose<<<grid, block>>>(in, out, n);
        else
            transpose_padded<<<grid, block>>>(in, out, n);
        cudaMemcpy(back.data(), out, n * n * sizeof(float), cudaMemcpyDeviceToHost);
        /* the article's kernel as written moves each 32 x 32 tile through shared memory
         * transposed but leaves the tile where it was (no swap of blockIdx.x and .y): what
         * it computes, element (X, Y) of out from in's tile of the same block position */
        for (int Y = 0; Y < n; Y++)
            for (int X = 0; X < n; X++)
                bad += back[X * n + Y] != h[((Y / 32) * 32 + X % 32) * n + (X / 32) * 32 + Y % 32];
    }
    printf("transpose: %s, %d wrong\n", cudaGetErrorString(cudaGetLastError()), bad);
    cudaFree(in);
    cudaFree(out);
    return bad != 0;
}
