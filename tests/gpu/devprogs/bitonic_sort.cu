// bitonic_sort.cu: sorting 1024-key segments in shared memory three ways: the pair-index
// bitonic network (512 threads, pos = 2t - (t & (stride - 1))), the classic `ixj = tid ^ j`
// formulation (1024 threads), and a rank sort whose inner loop reads the whole segment
// (a broadcast per trip) and scatters each key to its rank.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(2); } } while (0)

#define SEG 1024

__global__ void bitonic_pairs(int *keys)
{
    __shared__ int s[SEG];
    int t = threadIdx.x;
    int *seg = keys + blockIdx.x * SEG;
    s[t] = seg[t];
    s[t + SEG / 2] = seg[t + SEG / 2];
    __syncthreads();
    for (int size = 2; size <= SEG; size <<= 1) {
        for (int stride = size / 2; stride > 0; stride >>= 1) {
            int pos = 2 * t - (t & (stride - 1));
            int partner = pos + stride;
            bool ascending = (pos & size) == 0;
            int a = s[pos], b = s[partner];
            if ((a > b) == ascending) {
                s[pos] = b;
                s[partner] = a;
            }
            __syncthreads();
        }
    }
    seg[t] = s[t];
    seg[t + SEG / 2] = s[t + SEG / 2];
}

__global__ void bitonic_xor(int *keys)
{
    __shared__ int s[SEG];
    unsigned tid = threadIdx.x;
    int *seg = keys + blockIdx.x * SEG;
    s[tid] = seg[tid];
    __syncthreads();
    for (unsigned k = 2; k <= SEG; k <<= 1) {
        for (unsigned j = k >> 1; j > 0; j >>= 1) {
            unsigned ixj = tid ^ j;
            if (ixj > tid) {
                int a = s[tid], b = s[ixj];
                if ((tid & k) == 0 ? a > b : a < b) {
                    s[tid] = b;
                    s[ixj] = a;
                }
            }
            __syncthreads();
        }
    }
    seg[tid] = s[tid];
}

// out[rank] = key, rank = keys smaller + equal keys earlier in the segment
__global__ void rank_sort(const int *keys, int *out)
{
    __shared__ int s[SEG];
    int t = threadIdx.x;
    const int *seg = keys + blockIdx.x * SEG;
    s[t] = seg[t];
    __syncthreads();
    int mine = s[t], rank = 0;
    for (int i = 0; i < SEG; i++) {
        int v = s[i];
        rank += v < mine || (v == mine && i < t);
    }
    __syncthreads();
    s[rank] = mine;
    __syncthreads();
    out[blockIdx.x * SEG + t] = s[t];
}

int main(int argc, char **argv)
{
    int segs = argc > 1 ? atoi(argv[1]) : 8;
    if (segs < 1 || segs > 1024) segs = 8;
    int n = segs * SEG;
    std::vector<int> h(n), ref(n), got(n);
    unsigned x = 2463534242u;
    for (int i = 0; i < n; i++) {
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        h[i] = (int)(x % 5000) - 2500;
    }
    ref = h;
    for (int s = 0; s < segs; s++) std::sort(ref.begin() + s * SEG, ref.begin() + (s + 1) * SEG);

    int *d_keys, *d_out;
    CHECK(cudaMalloc(&d_keys, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, n * sizeof(int)));
    int bad = 0;
    const char *names[3] = {"bitonic_pairs", "bitonic_xor", "rank_sort"};
    dim3 grid(segs), half_block(SEG / 2), full_block(SEG);
    for (int k = 0; k < 3; k++) {
        CHECK(cudaMemcpy(d_keys, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
        CHECK(cudaMemset(d_out, 0, n * sizeof(int)));
        int *result = d_keys;
        if (k == 0) bitonic_pairs<<<grid, half_block>>>(d_keys);
        else if (k == 1) bitonic_xor<<<grid, full_block>>>(d_keys);
        else { rank_sort<<<grid, full_block>>>(d_keys, d_out); result = d_out; }
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(got.data(), result, n * sizeof(int), cudaMemcpyDeviceToHost));
        int wrong = -1;
        for (int i = 0; i < n && wrong < 0; i++)
            if (got[i] != ref[i]) wrong = i;
        if (wrong >= 0) { printf("%s: WRONG at %d (%d, expected %d)\n", names[k], wrong, got[wrong], ref[wrong]); bad = 1; }
        else printf("%s: ok\n", names[k]);
    }
    cudaFree(d_keys); cudaFree(d_out);
    return bad;
}
