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
        for (int y = 0; y < n; y++)
            for (int x = 0; x < n; x++)
                bad += back[x * n + y] != h[y * n + x];
    }
    printf("transpose: %s, %d wrong\n", cudaGetErrorString(cudaGetLastError()), bad);
    cudaFree(in);
    cudaFree(out);
    return bad != 0;
}
