// atomics.cu: shared-memory atomics other than atomicAdd: a byte histogram incremented with an
// atomicCAS loop, a min/max finder (atomicMin/atomicMax on shared scalars), per-block bit masks
// (atomicAnd/atomicOr/atomicXor) and a distinct-value counter marking a shared table with
// atomicExch. Histogram bins collide when lanes read equal bytes.
#include <cstdio>
#include <cstdlib>
#include <climits>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) \
    { fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(2); } } while (0)

#define BINS 256
#define TABLE 1024

__device__ void cas_increment(unsigned int *addr)
{
    unsigned int old = *addr, assumed;
    do
    {
        assumed = old;
        old = atomicCAS(addr, assumed, assumed + 1);
    } while (old != assumed);
}

__global__ void hist_cas(const unsigned char *data, unsigned int *hist, int n)
{
    __shared__ unsigned int bins[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        bins[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        cas_increment(&bins[data[i]]);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        if (bins[b])
            atomicAdd(&hist[b], bins[b]);
}

__global__ void minmax_finder(const int *x, int n, int *gmin, int *gmax)
{
    __shared__ int smin;
    __shared__ int smax;
    if (threadIdx.x == 0)
    {
        smin = INT_MAX;
        smax = INT_MIN;
    }
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
    {
        atomicMin(&smin, x[i]);
        atomicMax(&smax, x[i]);
    }
    __syncthreads();
    if (threadIdx.x == 0)
    {
        atomicMin(gmin, smin);
        atomicMax(gmax, smax);
    }
}

// out[3 * block + 0..2]: AND, OR, XOR of the block's words; warp ORs kept per warp
__global__ void bit_masks(const unsigned int *w, int n, unsigned int *out, unsigned int *warp_out)
{
    __shared__ unsigned int and_m, or_m, xor_m;
    __shared__ unsigned int warp_or[32];
    int warp = threadIdx.x / 32;
    if (threadIdx.x == 0)
    {
        and_m = 0xffffffffu;
        or_m = 0;
        xor_m = 0;
    }
    if (threadIdx.x % 32 == 0)
        warp_or[warp] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int v = i < n ? w[i] : 0;
    atomicAnd(&and_m, i < n ? v : 0xffffffffu);
    atomicOr(&or_m, v);
    atomicXor(&xor_m, v);
    atomicOr(&warp_or[warp], v);
    __syncthreads();
    if (threadIdx.x == 0)
    {
        out[3 * blockIdx.x + 0] = and_m;
        out[3 * blockIdx.x + 1] = or_m;
        out[3 * blockIdx.x + 2] = xor_m;
    }
    if (threadIdx.x % 32 == 0)
        warp_out[blockIdx.x * (blockDim.x / 32) + warp] = warp_or[warp];
}

// counts the distinct values (mod TABLE) each block sees
__global__ void distinct_count(const int *x, int n, int *counts)
{
    __shared__ int seen[TABLE];
    __shared__ int distinct;
    for (int j = threadIdx.x; j < TABLE; j += blockDim.x)
        seen[j] = 0;
    if (threadIdx.x == 0)
        distinct = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
    {
        int prev = atomicExch(&seen[x[i] & (TABLE - 1)], 1);
        if (prev == 0)
            atomicAdd(&distinct, 1);
    }
    __syncthreads();
    if (threadIdx.x == 0)
        counts[blockIdx.x] = distinct;
}

// the first wrong entry of bit_masks' outputs (masks first, then the warp ORs), or -1
static int first_wrong_mask(const std::vector<unsigned int> &words, const std::vector<unsigned int> &masks,
                            const std::vector<unsigned int> &warps, int blocks, int threads)
{
    for (int b = 0; b < blocks; b++)
    {
        unsigned int a = 0xffffffffu, o = 0, x = 0;
        for (int t = 0; t < threads; t++)
        {
            unsigned int v = words[b * threads + t];
            a &= v;
            o |= v;
            x ^= v;
        }
        if (masks[3 * b] != a || masks[3 * b + 1] != o || masks[3 * b + 2] != x)
            return 3 * b;
        for (int w = 0; w < threads / 32; w++)
        {
            unsigned int wo = 0;
            for (int l = 0; l < 32; l++)
                wo |= words[b * threads + w * 32 + l];
            if (warps[b * (threads / 32) + w] != wo)
                return 3 * blocks + b * (threads / 32) + w;
        }
    }
    return -1;
}

// the first block whose distinct count is wrong, or -1
static int first_wrong_count(const std::vector<int> &xs, const std::vector<int> &counts, int blocks,
                             int threads)
{
    for (int b = 0; b < blocks; b++)
    {
        std::vector<char> seen(TABLE, 0);
        int c = 0;
        for (int t = 0; t < threads; t++)
        {
            int k = xs[b * threads + t] & (TABLE - 1);
            if (!seen[k])
            {
                seen[k] = 1;
                c++;
            }
        }
        if (counts[b] != c)
            return b;
    }
    return -1;
}

int main(int argc, char **argv)
{
    const int N = 1 << 16, THREADS = 256;
    const int HIST_BLOCKS = 32;
    int bad = 0;

    std::vector<unsigned char> bytes(N);
    std::vector<int> xs(N);
    std::vector<unsigned int> words(N);
    unsigned int seed = 12345;
    for (int i = 0; i < N; i++)
    {
        seed = seed * 1103515245u + 12345u;
        bytes[i] = (unsigned char)((seed >> 16) % 64 + (i % 3 == 0 ? 100 : 0));
        xs[i] = (int)((seed >> 8) % 200001) - 100000;
        words[i] = seed ^ (0x10001u << (i % 16));
    }

    unsigned char *d_bytes;
    unsigned int *d_hist, *d_words, *d_masks, *d_warp;
    int *d_xs, *d_min, *d_max, *d_counts;
    int blocks = (N + THREADS - 1) / THREADS;
    CHECK(cudaMalloc(&d_bytes, N));
    CHECK(cudaMalloc(&d_hist, BINS * sizeof(unsigned int)));
    CHECK(cudaMalloc(&d_xs, N * sizeof(int)));
    CHECK(cudaMalloc(&d_words, N * sizeof(unsigned int)));
    CHECK(cudaMalloc(&d_masks, 3 * blocks * sizeof(unsigned int)));
    CHECK(cudaMalloc(&d_warp, blocks * (THREADS / 32) * sizeof(unsigned int)));
    CHECK(cudaMalloc(&d_min, sizeof(int)));
    CHECK(cudaMalloc(&d_max, sizeof(int)));
    CHECK(cudaMalloc(&d_counts, blocks * sizeof(int)));
    CHECK(cudaMemcpy(d_bytes, bytes.data(), N, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_xs, xs.data(), N * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_words, words.data(), N * sizeof(unsigned int), cudaMemcpyHostToDevice));

    // histogram
    CHECK(cudaMemset(d_hist, 0, BINS * sizeof(unsigned int)));
    hist_cas<<<HIST_BLOCKS, THREADS>>>(d_bytes, d_hist, N);
    CHECK(cudaGetLastError());
    std::vector<unsigned int> hist(BINS), href(BINS, 0);
    CHECK(cudaMemcpy(hist.data(), d_hist, BINS * sizeof(unsigned int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        href[bytes[i]]++;
    int wrong = -1;
    for (int b = 0; b < BINS && wrong < 0; b++)
        if (hist[b] != href[b])
            wrong = b;
    if (wrong >= 0)
    {
        printf("hist_cas: WRONG at %d (%u, expected %u)\n", wrong, hist[wrong], href[wrong]);
        bad = 1;
    }
    else
        printf("hist_cas: ok\n");

    // min and max
    int init_min = INT_MAX, init_max = INT_MIN;
    CHECK(cudaMemcpy(d_min, &init_min, sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_max, &init_max, sizeof(int), cudaMemcpyHostToDevice));
    dim3 grid((N + 255) / 256), block(THREADS);
    minmax_finder<<<grid, block>>>(d_xs, N, d_min, d_max);
    CHECK(cudaGetLastError());
    int gmin, gmax, rmin = INT_MAX, rmax = INT_MIN;
    CHECK(cudaMemcpy(&gmin, d_min, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&gmax, d_max, sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
    {
        rmin = xs[i] < rmin ? xs[i] : rmin;
        rmax = xs[i] > rmax ? xs[i] : rmax;
    }
    if (gmin != rmin || gmax != rmax)
    {
        printf("minmax_finder: WRONG at %d (min %d max %d, expected %d %d)\n", gmin != rmin ? 0 : 1,
               gmin, gmax, rmin, rmax);
        bad = 1;
    }
    else
        printf("minmax_finder: ok\n");

    // bit masks
    bit_masks<<<grid, block>>>(d_words, N, d_masks, d_warp);
    CHECK(cudaGetLastError());
    std::vector<unsigned int> masks(3 * blocks), warps(blocks * (THREADS / 32));
    CHECK(cudaMemcpy(masks.data(), d_masks, masks.size() * sizeof(unsigned int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(warps.data(), d_warp, warps.size() * sizeof(unsigned int), cudaMemcpyDeviceToHost));
    wrong = first_wrong_mask(words, masks, warps, blocks, THREADS);
    if (wrong >= 0)
    {
        printf("bit_masks: WRONG at %d\n", wrong);
        bad = 1;
    }
    else
        printf("bit_masks: ok\n");

    // distinct values per block
    distinct_count<<<grid, block>>>(d_xs, N, d_counts);
    CHECK(cudaGetLastError());
    std::vector<int> counts(blocks);
    CHECK(cudaMemcpy(counts.data(), d_counts, blocks * sizeof(int), cudaMemcpyDeviceToHost));
    wrong = first_wrong_count(xs, counts, blocks, THREADS);
    if (wrong >= 0)
    {
        printf("distinct_count: WRONG at %d (%d distinct)\n", wrong, counts[wrong]);
        bad = 1;
    }
    else
        printf("distinct_count: ok\n");

    cudaFree(d_bytes); cudaFree(d_hist); cudaFree(d_xs); cudaFree(d_words);
    cudaFree(d_masks); cudaFree(d_warp); cudaFree(d_min); cudaFree(d_max); cudaFree(d_counts);
    return bad;
}
