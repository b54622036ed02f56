// half_tiles.cu: 16-bit tiles. A __half transpose (two halves per bank word; the tile padded
// by two halves so a column read is conflict-free), a saxpy-like pass that stages __half2
// pairs in shared memory (a __half2 store) and reads them back reversed, and __nv_bfloat16
// row and column sums of a 32x32 tile (row sums walk a 16-word pitch: conflicts).
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) \
    { fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(2); } } while (0)

#define T 32

__global__ void transpose_half(__half *out, const __half *in, int n)
{
    __shared__ __half tile[T][T + 2];
    int x = blockIdx.x * T + threadIdx.x;
    int y = blockIdx.y * T + threadIdx.y;
    for (int j = 0; j < T; j += 8)
        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * T + threadIdx.x;
    y = blockIdx.x * T + threadIdx.y;
    for (int j = 0; j < T; j += 8)
        out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

// y[i] = a * x[i] + y[mirror of i within the block], over __half2 pairs
__global__ void axpy_half2_reverse(const __half2 *x, __half2 *y, __half2 a, int npairs)
{
    __shared__ __half2 buf[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    buf[t] = i < npairs ? y[i] : __floats2half2_rn(0.0f, 0.0f);
    __syncthreads();
    int m = blockDim.x - 1 - t;
    __half2 r = __hfma2(a, i < npairs ? x[i] : buf[t], buf[m]);
    __syncthreads();
    buf[t] = r;
    __syncthreads();
    if (i < npairs)
        y[i] = buf[t];
}

// one block per 32x32 tile; sums[tile * 64 + r] row sums, sums[tile * 64 + 32 + c] column sums
__global__ void bf16_row_sums(const __nv_bfloat16 *m, float *sums, int n)
{
    __shared__ __nv_bfloat16 tile[T][T];
    int tiles_x = n / T;
    int tx = threadIdx.x, ty = threadIdx.y;
    int r0 = blockIdx.y * T, c0 = blockIdx.x * T;
    for (int j = 0; j < T; j += 8)
        tile[ty + j][tx] = m[(r0 + ty + j) * n + c0 + tx];
    __syncthreads();
    if (ty == 0)
    {
        float s = 0.0f;
        for (int k = 0; k < T; k++)
            s += __bfloat162float(tile[tx][k]);
        sums[(blockIdx.y * tiles_x + blockIdx.x) * 64 + tx] = s;
    }
}

__global__ void bf16_col_sums(const __nv_bfloat16 *m, float *sums, int n)
{
    __shared__ __nv_bfloat16 tile[T][T];
    int tiles_x = n / T;
    int tx = threadIdx.x, ty = threadIdx.y;
    int r0 = blockIdx.y * T, c0 = blockIdx.x * T;
    for (int j = 0; j < T; j += 8)
        tile[ty + j][tx] = m[(r0 + ty + j) * n + c0 + tx];
    __syncthreads();
    if (ty == 1)
    {
        float s = 0.0f;
        for (int k = 0; k < T; k++)
            s += __bfloat162float(tile[k][tx]);
        sums[(blockIdx.y * tiles_x + blockIdx.x) * 64 + 32 + tx] = s;
    }
}

int main(int argc, char **argv)
{
    const int N = 256, PAIRS = 10000;
    int bad = 0;

    // half transpose: small integers are exact in half
    std::vector<__half> hm(N * N), ht(N * N);
    for (int i = 0; i < N * N; i++)
        hm[i] = __float2half((float)(i % 1999 - 999));
    __half *d_m, *d_t;
    CHECK(cudaMalloc(&d_m, N * N * sizeof(__half)));
    CHECK(cudaMalloc(&d_t, N * N * sizeof(__half)));
    CHECK(cudaMemcpy(d_m, hm.data(), N * N * sizeof(__half), cudaMemcpyHostToDevice));
    dim3 grid(N / T, N / T), block(T, 8);
    transpose_half<<<grid, block>>>(d_t, d_m, N);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(ht.data(), d_t, N * N * sizeof(__half), cudaMemcpyDeviceToHost));
    int wrong = -1;
    for (int r = 0; r < N && wrong < 0; r++)
        for (int c = 0; c < N; c++)
            if (__half2float(ht[c * N + r]) != __half2float(hm[r * N + c]))
            {
                wrong = c * N + r;
                break;
            }
    if (wrong >= 0)
    {
        printf("transpose_half: WRONG at %d\n", wrong);
        bad = 1;
    }
    else
        printf("transpose_half: ok\n");

    // half2 axpy with a block-reversed y: a = 2, integers in [-8, 8]: results exact
    std::vector<__half2> hx(PAIRS), hy(PAIRS), hr(PAIRS);
    for (int i = 0; i < PAIRS; i++)
    {
        hx[i] = __floats2half2_rn((float)(i % 17 - 8), (float)(i % 5 - 2));
        hy[i] = __floats2half2_rn((float)(i % 13 - 6), (float)(i % 3));
    }
    __half2 *d_x, *d_y;
    CHECK(cudaMalloc(&d_x, PAIRS * sizeof(__half2)));
    CHECK(cudaMalloc(&d_y, PAIRS * sizeof(__half2)));
    CHECK(cudaMemcpy(d_x, hx.data(), PAIRS * sizeof(__half2), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_y, hy.data(), PAIRS * sizeof(__half2), cudaMemcpyHostToDevice));
    dim3 agrid((PAIRS + 255) / 256), ablock(256);
    axpy_half2_reverse<<<agrid, ablock>>>(d_x, d_y, __floats2half2_rn(2.0f, 2.0f), PAIRS);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hr.data(), d_y, PAIRS * sizeof(__half2), cudaMemcpyDeviceToHost));
    wrong = -1;
    for (int i = 0; i < PAIRS && wrong < 0; i++)
    {
        int b = i / 256, t = i % 256, mi = b * 256 + 255 - t;
        float ylo = mi < PAIRS ? __low2float(hy[mi]) : 0.0f;
        float yhi = mi < PAIRS ? __high2float(hy[mi]) : 0.0f;
        float lo = 2.0f * __low2float(hx[i]) + ylo;
        float hi = 2.0f * __high2float(hx[i]) + yhi;
        if (__low2float(hr[i]) != lo || __high2float(hr[i]) != hi)
            wrong = i;
    }
    if (wrong >= 0)
    {
        printf("axpy_half2_reverse: WRONG at %d\n", wrong);
        bad = 1;
    }
    else
        printf("axpy_half2_reverse: ok\n");

    // bf16 tile sums: integers in [-50, 50] are exact in bf16, sums exact in float
    std::vector<__nv_bfloat16> hb(N * N);
    for (int i = 0; i < N * N; i++)
        hb[i] = __float2bfloat16((float)((i * 7) % 101 - 50));
    const int TILES = (N / T) * (N / T);
    __nv_bfloat16 *d_b;
    float *d_sums;
    CHECK(cudaMalloc(&d_b, N * N * sizeof(__nv_bfloat16)));
    CHECK(cudaMalloc(&d_sums, TILES * 64 * sizeof(float)));
    CHECK(cudaMemcpy(d_b, hb.data(), N * N * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_sums, 0, TILES * 64 * sizeof(float)));
    bf16_row_sums<<<grid, block>>>(d_b, d_sums, N);
    bf16_col_sums<<<grid, block>>>(d_b, d_sums, N);
    CHECK(cudaGetLastError());
    std::vector<float> sums(TILES * 64);
    CHECK(cudaMemcpy(sums.data(), d_sums, TILES * 64 * sizeof(float), cudaMemcpyDeviceToHost));
    int wrong_row = -1, wrong_col = -1;
    for (int ty = 0; ty < N / T; ty++)
        for (int tx = 0; tx < N / T; tx++)
            for (int k = 0; k < T; k++)
            {
                float rs = 0.0f, cs = 0.0f;
                for (int j = 0; j < T; j++)
                {
                    rs += __bfloat162float(hb[(ty * T + k) * N + tx * T + j]);
                    cs += __bfloat162float(hb[(ty * T + j) * N + tx * T + k]);
                }
                int base = (ty * (N / T) + tx) * 64;
                if (wrong_row < 0 && sums[base + k] != rs)
                    wrong_row = base + k;
                if (wrong_col < 0 && sums[base + 32 + k] != cs)
                    wrong_col = base + 32 + k;
            }
    if (wrong_row >= 0)
    {
        printf("bf16_row_sums: WRONG at %d\n", wrong_row);
        bad = 1;
    }
    else
        printf("bf16_row_sums: ok\n");
    if (wrong_col >= 0)
    {
        printf("bf16_col_sums: WRONG at %d\n", wrong_col);
        bad = 1;
    }
    else
        printf("bf16_col_sums: ok\n");

    cudaFree(d_m); cudaFree(d_t); cudaFree(d_x); cudaFree(d_y); cudaFree(d_b); cudaFree(d_sums);
    return bad;
}
