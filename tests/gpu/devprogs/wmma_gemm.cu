// wmma_gemm.cu: a small half-precision matmul on the tensor cores through nvcuda::wmma, with
// every fragment loaded from and stored to shared tiles: one warp per 16x16 tile staging
// `__shared__ half a[16 * 16]`, and a 4-warp block staging padded 32x16 / 16x32 tiles and
// storing its accumulators into a padded float tile for a bias-and-ReLU epilogue.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(2); } } while (0)

#define WM 16
#define WN 16
#define WK 16

// one warp per block, one 16x16 tile of C = A * B (A M x K, B K x N, row-major)
__global__ void wmma_tile16(const half *A, const half *B, float *C, int M, int N, int K)
{
    __shared__ __align__(32) half a[16 * 16];
    __shared__ __align__(32) half b[16 * 16];
    __shared__ __align__(32) float c[16 * 16];
    int row0 = blockIdx.y * WM, col0 = blockIdx.x * WN;
    int lane = threadIdx.x;
    wmma::fragment<wmma::matrix_a, WM, WN, WK, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, WM, WN, WK, half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, WM, WN, WK, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k0 = 0; k0 < K; k0 += WK) {
        for (int e = lane; e < 16 * 16; e += 32) {
            int r = e / 16, k = e % 16;
            a[e] = A[(row0 + r) * K + k0 + k];
            b[e] = B[(k0 + r) * N + col0 + k];
        }
        __syncwarp();
        wmma::load_matrix_sync(fa, a, 16);
        wmma::load_matrix_sync(fb, b, 16);
        wmma::mma_sync(acc, fa, fb, acc);
        __syncwarp();
    }
    wmma::store_matrix_sync(c, acc, 16, wmma::mem_row_major);
    __syncwarp();
    for (int e = lane; e < 16 * 16; e += 32)
        C[(row0 + e / 16) * N + col0 + e % 16] = c[e];
}

#define BT 32
#define APAD 8
#define CPAD 4

// four warps per block (2 x 2 tiles of 16x16), C = relu(A * B + bias[col])
__global__ void wmma_block32(const half *A, const half *B, const float *bias, float *C,
                             int M, int N, int K)
{
    __shared__ __align__(32) half as[BT][WK + APAD];
    __shared__ __align__(32) half bs[WK][BT + APAD];
    __shared__ __align__(32) float cs[BT][BT + CPAD];
    int warp = threadIdx.x / 32;
    int wr = warp / 2, wc = warp % 2;
    int row0 = blockIdx.y * BT, col0 = blockIdx.x * BT;
    wmma::fragment<wmma::matrix_a, WM, WN, WK, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, WM, WN, WK, half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, WM, WN, WK, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k0 = 0; k0 < K; k0 += WK) {
        for (int e = threadIdx.x; e < BT * WK; e += blockDim.x) {
            int r = e / WK, k = e % WK;
            as[r][k] = A[(row0 + r) * K + k0 + k];
            int kr = e / BT, c = e % BT;
            bs[kr][c] = B[(k0 + kr) * N + col0 + c];
        }
        __syncthreads();
        wmma::load_matrix_sync(fa, &as[wr * 16][0], WK + APAD);
        wmma::load_matrix_sync(fb, &bs[0][wc * 16], BT + APAD);
        wmma::mma_sync(acc, fa, fb, acc);
        __syncthreads();
    }
    wmma::store_matrix_sync(&cs[wr * 16][wc * 16], acc, BT + CPAD, wmma::mem_row_major);
    __syncthreads();
    for (int e = threadIdx.x; e < BT * BT; e += blockDim.x) {
        int r = e / BT, c = e % BT;
        float v = cs[r][c] + bias[col0 + c];
        C[(row0 + r) * N + col0 + c] = v > 0.0f ? v : 0.0f;
    }
}

int main(int argc, char **argv)
{
    const int M = 64, N = 96, K = 48;
    int bad = 0;
    std::vector<half> hA(M * K), hB(K * N);
    std::vector<float> fA(M * K), fB(K * N), bias(N), ref(M * N), got(M * N);
    for (int i = 0; i < M * K; i++) { fA[i] = (float)((i * 5) % 9 - 4); hA[i] = __float2half(fA[i]); }
    for (int i = 0; i < K * N; i++) { fB[i] = (float)((i * 3) % 7 - 3); hB[i] = __float2half(fB[i]); }
    for (int j = 0; j < N; j++) bias[j] = (float)(j % 11 - 5);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float s = 0.0f;
            for (int k = 0; k < K; k++) s += fA[i * K + k] * fB[k * N + j];
            ref[i * N + j] = s;
        }

    half *dA, *dB;
    float *dC, *dbias;
    CHECK(cudaMalloc(&dA, M * K * sizeof(half)));
    CHECK(cudaMalloc(&dB, K * N * sizeof(half)));
    CHECK(cudaMalloc(&dC, M * N * sizeof(float)));
    CHECK(cudaMalloc(&dbias, N * sizeof(float)));
    CHECK(cudaMemcpy(dA, hA.data(), M * K * sizeof(half), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, hB.data(), K * N * sizeof(half), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dbias, bias.data(), N * sizeof(float), cudaMemcpyHostToDevice));

    dim3 grid(N / WN, M / WM), block(32);
    CHECK(cudaMemset(dC, 0, M * N * sizeof(float)));
    wmma_tile16<<<grid, block>>>(dA, dB, dC, M, N, K);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(got.data(), dC, M * N * sizeof(float), cudaMemcpyDeviceToHost));
    int wrong = -1;
    for (int i = 0; i < M * N && wrong < 0; i++)
        if (got[i] != ref[i]) wrong = i;
    if (wrong >= 0) { printf("wmma_tile16: WRONG at %d (%g, expected %g)\n", wrong, got[wrong], ref[wrong]); bad = 1; }
    else printf("wmma_tile16: ok\n");

    dim3 grid2(N / BT, M / BT), block2(128);
    CHECK(cudaMemset(dC, 0, M * N * sizeof(float)));
    wmma_block32<<<grid2, block2>>>(dA, dB, dbias, dC, M, N, K);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(got.data(), dC, M * N * sizeof(float), cudaMemcpyDeviceToHost));
    wrong = -1;
    for (int i = 0; i < M * N && wrong < 0; i++) {
        float v = ref[i] + bias[i % N];
        if (got[i] != (v > 0.0f ? v : 0.0f)) wrong = i;
    }
    if (wrong >= 0) { printf("wmma_block32: WRONG at %d (%g)\n", wrong, got[wrong]); bad = 1; }
    else printf("wmma_block32: ok\n");

    cudaFree(dA); cudaFree(dB); cudaFree(dC); cudaFree(dbias);
    return bad;
}
