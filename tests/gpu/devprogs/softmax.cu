// softmax.cu: row-wise softmax and layer norm, one block per row, the way inference code
// writes them: warp-shuffle reductions, per-warp partials in shared memory read back as
// `lane < nwarps ? partial[lane] : identity`, and the row's max / sum / mean / rstd kept in
// __shared__ scalars that thread 0 writes and every thread reads.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cfloat>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(2); } } while (0)

__device__ __forceinline__ float warp_max(float v)
{
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

__device__ __forceinline__ float warp_sum(float v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__global__ void softmax_rows(const float *x, float *y, int cols)
{
    __shared__ float partial[32];
    __shared__ float row_max, row_sum;
    const float *in = x + (size_t)blockIdx.x * cols;
    float *out = y + (size_t)blockIdx.x * cols;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;

    float m = -FLT_MAX;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, in[c]);
    m = warp_max(m);
    if (lane == 0) partial[warp] = m;
    __syncthreads();
    if (warp == 0) {
        m = lane < nwarps ? partial[lane] : -FLT_MAX;
        m = warp_max(m);
        if (lane == 0) row_max = m;
    }
    __syncthreads();

    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += __expf(in[c] - row_max);
    s = warp_sum(s);
    if (lane == 0) partial[warp] = s;
    __syncthreads();
    if (warp == 0) {
        s = lane < nwarps ? partial[lane] : 0.0f;
        s = warp_sum(s);
        if (lane == 0) row_sum = s;
    }
    __syncthreads();
    float inv = 1.0f / row_sum;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) out[c] = __expf(in[c] - row_max) * inv;
}

__global__ void layernorm_rows(const float *x, const float *gamma, const float *beta, float *y,
                               int cols, float eps)
{
    __shared__ float partial[32];
    __shared__ float mean, rstd;
    const float *in = x + (size_t)blockIdx.x * cols;
    float *out = y + (size_t)blockIdx.x * cols;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;

    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += in[c];
    s = warp_sum(s);
    if (lane == 0) partial[warp] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.0f;
        for (int w = 0; w < nwarps; w++) t += partial[w];
        mean = t / cols;
    }
    __syncthreads();

    float v = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        float d = in[c] - mean;
        v += d * d;
    }
    v = warp_sum(v);
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.0f;
        for (int w = 0; w < nwarps; w++) t += partial[w];
        rstd = rsqrtf(t / cols + eps);
    }
    __syncthreads();
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        out[c] = (in[c] - mean) * rstd * gamma[c] + beta[c];
}

// softmax values are small (about 1 / COLS): a tiny absolute slack; layer norm's are O(1)
static int close_enough(float got, double want, double abs_tol)
{
    return fabs(got - want) <= abs_tol + 1e-3 * fabs(want);
}

int main(int argc, char **argv)
{
    const int ROWS = 128, COLS = 1000;
    const int THREADS = 256;
    const float EPS = 1e-5f;
    int bad = 0;
    size_t n = (size_t)ROWS * COLS;
    std::vector<float> x(n), y(n), gamma(COLS), beta(COLS);
    for (size_t i = 0; i < n; i++) x[i] = (float)((i * 7) % 23) * 0.25f - 3.0f + (float)(i / COLS % 5);
    for (int c = 0; c < COLS; c++) {
        gamma[c] = 1.0f + (float)(c % 7) * 0.125f;
        beta[c] = (float)(c % 5) * 0.5f - 1.0f;
    }
    float *dx, *dy, *dg, *db;
    CHECK(cudaMalloc(&dx, n * sizeof(float)));
    CHECK(cudaMalloc(&dy, n * sizeof(float)));
    CHECK(cudaMalloc(&dg, COLS * sizeof(float)));
    CHECK(cudaMalloc(&db, COLS * sizeof(float)));
    CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dg, gamma.data(), COLS * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, beta.data(), COLS * sizeof(float), cudaMemcpyHostToDevice));

    dim3 grid(ROWS), block(THREADS);
    softmax_rows<<<grid, block>>>(dx, dy, COLS);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
    int wrong = -1;
    for (int r = 0; r < ROWS && wrong < 0; r++) {
        const float *row = &x[(size_t)r * COLS];
        double m = row[0], s = 0.0;
        for (int c = 1; c < COLS; c++) m = row[c] > m ? row[c] : m;
        for (int c = 0; c < COLS; c++) s += exp(row[c] - m);
        for (int c = 0; c < COLS; c++)
            if (!close_enough(y[(size_t)r * COLS + c], exp(row[c] - m) / s, 1e-9)) { wrong = r * COLS + c; break; }
    }
    if (wrong >= 0) { printf("softmax_rows: WRONG at %d (%g)\n", wrong, y[wrong]); bad = 1; }
    else printf("softmax_rows: ok\n");

    layernorm_rows<<<grid, block>>>(dx, dg, db, dy, COLS, EPS);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
    wrong = -1;
    for (int r = 0; r < ROWS && wrong < 0; r++) {
        const float *row = &x[(size_t)r * COLS];
        double mean = 0.0, var = 0.0;
        for (int c = 0; c < COLS; c++) mean += row[c];
        mean /= COLS;
        for (int c = 0; c < COLS; c++) var += (row[c] - mean) * (row[c] - mean);
        double rstd = 1.0 / sqrt(var / COLS + EPS);
        for (int c = 0; c < COLS; c++) {
            double want = (row[c] - mean) * rstd * gamma[c] + beta[c];
            if (!close_enough(y[(size_t)r * COLS + c], want, 1e-4)) { wrong = r * COLS + c; break; }
        }
    }
    if (wrong >= 0) { printf("layernorm_rows: WRONG at %d (%g)\n", wrong, y[wrong]); bad = 1; }
    else printf("layernorm_rows: ok\n");

    cudaFree(dx); cudaFree(dy); cudaFree(dg); cudaFree(db);
    return bad;
}
