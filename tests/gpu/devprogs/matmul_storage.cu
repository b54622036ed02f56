// matmul_storage.cu: a tiled SGEMM C = A * B whose shared tiles live in a CUTLASS-style
// SharedStorage struct: A's tile unpadded (read along rows: broadcast), B's tile padded to 33
// columns. A second kernel reads the same struct out of an extern __shared__ buffer, and a
// third stores B's tile transposed into the unpadded member (a 32-way conflicted column write).
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) \
    { fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(2); } } while (0)

namespace gemm
{

constexpr int TILE = 32;

struct SharedStorage
{
    float a[TILE][TILE];
    float b[TILE][TILE + 1];
};

__device__ void mma_tile(const SharedStorage &s, float &acc)
{
    #pragma unroll 8
    for (int k = 0; k < TILE; ++k)
    {
        acc += s.a[threadIdx.y][k] * s.b[k][threadIdx.x];
    }
}

// block (32, 32); grid (N / 32, M / 32); M, N, K multiples of 32
__global__ void sgemm_struct(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ SharedStorage smem;
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE)
    {
        smem.a[threadIdx.y][threadIdx.x] = A[row * K + k0 + threadIdx.x];
        smem.b[threadIdx.y][threadIdx.x] = B[(k0 + threadIdx.y) * N + col];
        __syncthreads();
        mma_tile(smem, acc);
        __syncthreads();
    }
    C[row * N + col] = acc;
}

__global__ void sgemm_extern(const float *A, const float *B, float *C, int M, int N, int K)
{
    extern __shared__ __align__(16) unsigned char smem_raw[];
    SharedStorage &smem = *reinterpret_cast<SharedStorage *>(smem_raw);
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE)
    {
        smem.a[threadIdx.y][threadIdx.x] = A[row * K + k0 + threadIdx.x];
        smem.b[threadIdx.y][threadIdx.x] = B[(k0 + threadIdx.y) * N + col];
        __syncthreads();
        mma_tile(smem, acc);
        __syncthreads();
    }
    C[row * N + col] = acc;
}

// B's tile is stored transposed into the unpadded member, then read along rows
__global__ void sgemm_bt(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ SharedStorage smem;
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE)
    {
        smem.b[threadIdx.y][threadIdx.x] = A[row * K + k0 + threadIdx.x];
        smem.a[threadIdx.x][threadIdx.y] = B[(k0 + threadIdx.y) * N + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
        {
            acc += smem.b[threadIdx.y][k] * smem.a[threadIdx.x][k];
        }
        __syncthreads();
    }
    C[row * N + col] = acc;
}

} // namespace gemm

static int check(const char *name, const std::vector<float> &got, const std::vector<float> &ref)
{
    for (size_t i = 0; i < ref.size(); ++i)
    {
        if (got[i] != ref[i])
        {
            printf("%s: WRONG at %zu (%g, expected %g)\n", name, i, got[i], ref[i]);
            return 1;
        }
    }
    printf("%s: ok\n", name);
    return 0;
}

int main()
{
    const int M = 128, N = 96;
    const int K = 64;
    std::vector<float> hA(M * K), hB(K * N), hC(M * N), ref(M * N, 0.0f);
    // small integers: every product and partial sum is exact in float, in any order
    for (int i = 0; i < M * K; ++i) hA[i] = (float)((i * 7) % 11 - 5);
    for (int i = 0; i < K * N; ++i) hB[i] = (float)((i * 5) % 13 - 6);
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j)
        {
            float s = 0.0f;
            for (int k = 0; k < K; ++k) s += hA[i * K + k] * hB[k * N + j];
            ref[i * N + j] = s;
        }

    float *dA, *dB, *dC;
    CHECK(cudaMalloc(&dA, hA.size() * sizeof(float)));
    CHECK(cudaMalloc(&dB, hB.size() * sizeof(float)));
    CHECK(cudaMalloc(&dC, hC.size() * sizeof(float)));
    CHECK(cudaMemcpy(dA, hA.data(), hA.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, hB.data(), hB.size() * sizeof(float), cudaMemcpyHostToDevice));

    dim3 grid(N / gemm::TILE, M / gemm::TILE), block(gemm::TILE, gemm::TILE);
    size_t smem_bytes = sizeof(gemm::SharedStorage);
    int bad = 0;

    CHECK(cudaMemset(dC, 0, hC.size() * sizeof(float)));
    gemm::sgemm_struct<<<grid, block>>>(dA, dB, dC, M, N, K);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hC.data(), dC, hC.size() * sizeof(float), cudaMemcpyDeviceToHost));
    bad |= check("sgemm_struct", hC, ref);

    CHECK(cudaMemset(dC, 0, hC.size() * sizeof(float)));
    gemm::sgemm_extern<<<grid, block, smem_bytes>>>(dA, dB, dC, M, N, K);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hC.data(), dC, hC.size() * sizeof(float), cudaMemcpyDeviceToHost));
    bad |= check("sgemm_extern", hC, ref);

    CHECK(cudaMemset(dC, 0, hC.size() * sizeof(float)));
    gemm::sgemm_bt<<<grid, block>>>(dA, dB, dC, M, N, K);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hC.data(), dC, hC.size() * sizeof(float), cudaMemcpyDeviceToHost));
    bad |= check("sgemm_bt", hC, ref);

    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    return bad;
}
