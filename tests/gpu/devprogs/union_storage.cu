// union_storage.cu: shared memory reused across phases through unions, as CUTLASS kernels do:
// a GEMM whose SharedStorage holds a union of the mainloop's A/B tiles and the epilogue's
// padded C tile (C is written transposed through it), and a tile pass whose 32x32 int tile
// (row scans: 32-way conflicts) shares its storage with a 64-bin histogram.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) \
    { fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(2); } } while (0)

namespace kern
{

struct Mainloop
{
    float a[32][32];
    float b[32][33];
};

struct GemmStorage
{
    union
    {
        Mainloop mainloop;
        float epilogue[32][33];
    } u;
    int k_tiles;
};

// Ct = (A * B)^T; A M x K, B K x N, Ct N x M; block (32, 8), four rows per thread
__global__ void gemm_transposed_out(const float *A, const float *B, float *Ct, int M, int N, int K)
{
    __shared__ GemmStorage smem;
    int tx = threadIdx.x, ty = threadIdx.y;
    int row0 = blockIdx.y * 32, col0 = blockIdx.x * 32;
    if (tx == 0 && ty == 0)
        smem.k_tiles = K / 32;
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    __syncthreads();
    for (int kt = 0; kt < smem.k_tiles; ++kt)
    {
        int k0 = kt * 32;
        for (int j = 0; j < 4; ++j)
        {
            smem.u.mainloop.a[ty + 8 * j][tx] = A[(row0 + ty + 8 * j) * K + k0 + tx];
            smem.u.mainloop.b[ty + 8 * j][tx] = B[(k0 + ty + 8 * j) * N + col0 + tx];
        }
        __syncthreads();
        for (int k = 0; k < 32; ++k)
        {
            float bv = smem.u.mainloop.b[k][tx];
            for (int j = 0; j < 4; ++j)
                acc[j] += smem.u.mainloop.a[ty + 8 * j][k] * bv;
        }
        __syncthreads();
    }
    for (int j = 0; j < 4; ++j)
        smem.u.epilogue[ty + 8 * j][tx] = acc[j];
    __syncthreads();
    for (int j = 0; j < 4; ++j)
        Ct[(col0 + ty + 8 * j) * M + row0 + tx] = smem.u.epilogue[tx][ty + 8 * j];
}

union TileOrHist
{
    int tile[32][32];
    unsigned int bins[64];
};

// per 32x32 tile: rowmax[tile * 32 + r] = max of row r; hist[v % 64] += 1 for each v
__global__ void rowmax_then_hist(const int *in, int *rowmax, unsigned int *hist, int n)
{
    __shared__ TileOrHist s;
    int tx = threadIdx.x, ty = threadIdx.y;
    int r0 = blockIdx.y * 32, c0 = blockIdx.x * 32;
    int vals[4];
    for (int j = 0; j < 4; ++j)
    {
        vals[j] = in[(r0 + ty + 8 * j) * n + c0 + tx];
        s.tile[ty + 8 * j][tx] = vals[j];
    }
    __syncthreads();
    int tile_id = blockIdx.y * gridDim.x + blockIdx.x;
    if (ty == 0)
    {
        int m = s.tile[tx][0];
        for (int k = 1; k < 32; ++k)
            m = max(m, s.tile[tx][k]);
        rowmax[tile_id * 32 + tx] = m;
    }
    __syncthreads();
    int t = ty * 32 + tx;
    if (t < 64)
        s.bins[t] = 0;
    __syncthreads();
    for (int j = 0; j < 4; ++j)
        atomicAdd(&s.bins[vals[j] & 63], 1u);
    __syncthreads();
    if (t < 64)
        atomicAdd(&hist[t], s.bins[t]);
}

} // namespace kern

int main(int argc, char **argv)
{
    const int M = 96, N = 64, K = 128;
    const int NT = 128;
    int bad = 0;

    std::vector<float> A(M * K), B(K * N), Ct(N * M), ref(N * M);
    for (int i = 0; i < M * K; i++)
        A[i] = (float)((i * 3) % 7 - 3);
    for (int i = 0; i < K * N; i++)
        B[i] = (float)((i * 11) % 9 - 4);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
        {
            float s = 0.0f;
            for (int k = 0; k < K; k++)
                s += A[i * K + k] * B[k * N + j];
            ref[j * M + i] = s;
        }
    float *dA, *dB, *dCt;
    CHECK(cudaMalloc(&dA, M * K * sizeof(float)));
    CHECK(cudaMalloc(&dB, K * N * sizeof(float)));
    CHECK(cudaMalloc(&dCt, N * M * sizeof(float)));
    CHECK(cudaMemcpy(dA, A.data(), M * K * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, B.data(), K * N * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dCt, 0, N * M * sizeof(float)));
    dim3 grid(N / 32, M / 32), block(32, 8);
    kern::gemm_transposed_out<<<grid, block>>>(dA, dB, dCt, M, N, K);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(Ct.data(), dCt, N * M * sizeof(float), cudaMemcpyDeviceToHost));
    int wrong = -1;
    for (int i = 0; i < N * M && wrong < 0; i++)
        if (Ct[i] != ref[i])
            wrong = i;
    if (wrong >= 0)
    {
        printf("gemm_transposed_out: WRONG at %d (%g, expected %g)\n", wrong, Ct[wrong], ref[wrong]);
        bad = 1;
    }
    else
        printf("gemm_transposed_out: ok\n");

    std::vector<int> m(NT * NT);
    for (int i = 0; i < NT * NT; i++)
        m[i] = (int)((i * 2654435761u) % 1000u) - 500;
    const int TILES = (NT / 32) * (NT / 32);
    int *d_m, *d_rowmax;
    unsigned int *d_hist;
    CHECK(cudaMalloc(&d_m, NT * NT * sizeof(int)));
    CHECK(cudaMalloc(&d_rowmax, TILES * 32 * sizeof(int)));
    CHECK(cudaMalloc(&d_hist, 64 * sizeof(unsigned int)));
    CHECK(cudaMemcpy(d_m, m.data(), NT * NT * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_hist, 0, 64 * sizeof(unsigned int)));
    dim3 tgrid(NT / 32, NT / 32), tblock(32, 8);
    kern::rowmax_then_hist<<<tgrid, tblock>>>(d_m, d_rowmax, d_hist, NT);
    CHECK(cudaGetLastError());
    std::vector<int> rowmax(TILES * 32);
    std::vector<unsigned int> hist(64), href(64, 0);
    CHECK(cudaMemcpy(rowmax.data(), d_rowmax, TILES * 32 * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hist.data(), d_hist, 64 * sizeof(unsigned int), cudaMemcpyDeviceToHost));
    wrong = -1;
    for (int ty = 0; ty < NT / 32 && wrong < 0; ty++)
        for (int tx = 0; tx < NT / 32 && wrong < 0; tx++)
            for (int r = 0; r < 32; r++)
            {
                int mx = m[(ty * 32 + r) * NT + tx * 32];
                for (int k = 1; k < 32; k++)
                    mx = mx > m[(ty * 32 + r) * NT + tx * 32 + k] ? mx : m[(ty * 32 + r) * NT + tx * 32 + k];
                int id = (ty * (NT / 32) + tx) * 32 + r;
                if (rowmax[id] != mx)
                {
                    wrong = id;
                    break;
                }
            }
    for (int i = 0; i < NT * NT; i++)
        href[m[i] & 63]++;
    for (int b = 0; b < 64 && wrong < 0; b++)
        if (hist[b] != href[b])
            wrong = TILES * 32 + b;
    if (wrong >= 0)
    {
        printf("rowmax_then_hist: WRONG at %d\n", wrong);
        bad = 1;
    }
    else
        printf("rowmax_then_hist: ok\n");

    cudaFree(dA); cudaFree(dB); cudaFree(dCt); cudaFree(d_m); cudaFree(d_rowmax); cudaFree(d_hist);
    return bad;
}
