// reduce.cu: sum reductions the way the tutorials and libraries write them: interleaved
// addressing (s[2 * stride * tid], conflicting), sequential addressing (conflict-free), the
// blockReduceSum of warp shuffles then shared partials read back as `lane < nwarps ? s[lane] : 0`,
// and a mean-centering pass whose mean sits in a __shared__ scalar written by thread 0.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(2); } } while (0)

#define BLOCK 256

__global__ void reduce_interleaved(const int *in, int *out, int n)
{
    __shared__ int s[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + tid;
    s[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        unsigned idx = 2 * stride * tid;
        if (idx < blockDim.x)
            s[idx] += s[idx + stride];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}

__global__ void reduce_sequential(const int *in, int *out, int n)
{
    __shared__ int s[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (blockDim.x * 2) + tid;
    int v = i < n ? in[i] : 0;
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    s[tid] = v;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride)
            s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}

__inline__ __device__ float warpReduceSum(float val)
{
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
        val += __shfl_down_sync(0xffffffff, val, offset);
    return val;
}

__inline__ __device__ float blockReduceSum(float val)
{
    static __shared__ float shared[32];
    int lane = threadIdx.x % warpSize;
    int wid = threadIdx.x / warpSize;
    val = warpReduceSum(val);
    if (lane == 0) shared[wid] = val;
    __syncthreads();
    val = (threadIdx.x < blockDim.x / warpSize) ? shared[lane] : 0;
    if (wid == 0) val = warpReduceSum(val);
    return val;
}

// grid-stride loop: each block sums its share, then one atomicAdd per block
__global__ void sum_grid_stride(const float *in, float *out, int n)
{
    float sum = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        sum += in[i];
    sum = blockReduceSum(sum);
    if (threadIdx.x == 0) atomicAdd(out, sum);
}

// one block per row of `cols` values: subtract the row's mean, kept in a shared scalar
__global__ void center_rows(float *x, int cols)
{
    __shared__ float mean;
    float *row = x + (size_t)blockIdx.x * cols;
    float sum = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        sum += row[c];
    sum = blockReduceSum(sum);
    if (threadIdx.x == 0) mean = sum / cols;
    __syncthreads();
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        row[c] -= mean;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100000;
    if (n < 1 || n > (1 << 24)) n = 100000;
    const int ROWS = 64, COLS = 1000;

    std::vector<int> hi(n);
    std::vector<float> hf(n);
    long long want = 0;
    double wantf = 0;
    for (int i = 0; i < n; i++) {
        hi[i] = (i * 37) % 101 - 50;
        hf[i] = (float)((i * 13) % 17 - 8);
        want += hi[i];
        wantf += hf[i];
    }

    int *d_in, *d_part;
    float *d_f, *d_sum;
    int blocks = (n + BLOCK - 1) / BLOCK;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_part, blocks * sizeof(int)));
    CHECK(cudaMalloc(&d_f, n * sizeof(float)));
    CHECK(cudaMalloc(&d_sum, sizeof(float)));
    CHECK(cudaMemcpy(d_in, hi.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_f, hf.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    int bad = 0;

    dim3 grid((n + 255) / 256), block(BLOCK);
    reduce_interleaved<<<grid, block>>>(d_in, d_part, n);
    CHECK(cudaGetLastError());
    std::vector<int> part(blocks);
    CHECK(cudaMemcpy(part.data(), d_part, blocks * sizeof(int), cudaMemcpyDeviceToHost));
    long long got = 0;
    for (int b = 0; b < blocks; b++) got += part[b];
    if (got != want) { printf("reduce_interleaved: WRONG at 0 (%lld, expected %lld)\n", got, want); bad = 1; }
    else printf("reduce_interleaved: ok\n");

    dim3 grid2((n + 2 * BLOCK - 1) / (2 * BLOCK));
    reduce_sequential<<<grid2, block>>>(d_in, d_part, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(part.data(), d_part, grid2.x * sizeof(int), cudaMemcpyDeviceToHost));
    got = 0;
    for (unsigned b = 0; b < grid2.x; b++) got += part[b];
    if (got != want) { printf("reduce_sequential: WRONG at 0 (%lld, expected %lld)\n", got, want); bad = 1; }
    else printf("reduce_sequential: ok\n");

    // integer-valued floats with a small total: exact in any summation order
    CHECK(cudaMemset(d_sum, 0, sizeof(float)));
    sum_grid_stride<<<32, 256>>>(d_f, d_sum, n);
    CHECK(cudaGetLastError());
    float gotf;
    CHECK(cudaMemcpy(&gotf, d_sum, sizeof(float), cudaMemcpyDeviceToHost));
    if ((double)gotf != wantf) { printf("sum_grid_stride: WRONG at 0 (%g, expected %g)\n", gotf, wantf); bad = 1; }
    else printf("sum_grid_stride: ok\n");

    std::vector<float> hx((size_t)ROWS * COLS), ref(hx.size());
    for (int r = 0; r < ROWS; r++) {
        long s = 0;
        for (int c = 0; c < COLS; c++) {
            hx[(size_t)r * COLS + c] = (float)(((r + 3) * (c + 1)) % 23);
            s += ((r + 3) * (c + 1)) % 23;
        }
        // the kernel's mean is float(sum) / COLS; the sum is an exact integer
        float mean = (float)s / COLS;
        for (int c = 0; c < COLS; c++) ref[(size_t)r * COLS + c] = hx[(size_t)r * COLS + c] - mean;
    }
    float *d_x;
    CHECK(cudaMalloc(&d_x, hx.size() * sizeof(float)));
    CHECK(cudaMemcpy(d_x, hx.data(), hx.size() * sizeof(float), cudaMemcpyHostToDevice));
    center_rows<<<ROWS, 128>>>(d_x, COLS);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hx.data(), d_x, hx.size() * sizeof(float), cudaMemcpyDeviceToHost));
    int wrong = -1;
    for (size_t i = 0; i < hx.size() && wrong < 0; i++)
        if (hx[i] != ref[i]) wrong = (int)i;
    if (wrong >= 0) { printf("center_rows: WRONG at %d (%g, expected %g)\n", wrong, hx[wrong], ref[wrong]); bad = 1; }
    else printf("center_rows: ok\n");

    cudaFree(d_in); cudaFree(d_part); cudaFree(d_f); cudaFree(d_sum); cudaFree(d_x);
    return bad;
}
