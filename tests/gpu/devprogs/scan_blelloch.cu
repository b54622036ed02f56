// scan_blelloch.cu: the work-efficient exclusive scan of GPU Gems 3, chapter 39: an up-sweep
// and a down-sweep over a shared array, the indices ai and bi recomputed every trip. The
// template flag adds the CONFLICT_FREE_OFFSET padding; main launches both instances, then
// scans the block totals with a single block and adds them back.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(2); } } while (0)

#define THREADS 256
#define ELEMS (2 * THREADS)
#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(n) ((n) >> LOG_NUM_BANKS)

template <bool PAD>
__device__ __forceinline__ int pad(int i)
{
    return PAD ? CONFLICT_FREE_OFFSET(i) : 0;
}

// each block scans ELEMS values of in (exclusive) into out and writes its total to sums
template <bool PAD>
__global__ void prescan(int *out, const int *in, int *sums, int n)
{
    __shared__ int temp[ELEMS + ELEMS / 32];
    int thid = threadIdx.x;
    int base = blockIdx.x * ELEMS;
    int ai = thid;
    int bi = thid + THREADS;
    temp[ai + pad<PAD>(ai)] = base + ai < n ? in[base + ai] : 0;
    temp[bi + pad<PAD>(bi)] = base + bi < n ? in[base + bi] : 0;

    int offset = 1;
    for (int d = ELEMS >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (thid < d) {
            ai = offset * (2 * thid + 1) - 1;
            bi = offset * (2 * thid + 2) - 1;
            ai += pad<PAD>(ai);
            bi += pad<PAD>(bi);
            temp[bi] += temp[ai];
        }
        offset *= 2;
    }
    if (thid == 0) {
        int last = ELEMS - 1 + pad<PAD>(ELEMS - 1);
        if (sums) sums[blockIdx.x] = temp[last];
        temp[last] = 0;
    }
    for (int d = 1; d < ELEMS; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (thid < d) {
            ai = offset * (2 * thid + 1) - 1;
            bi = offset * (2 * thid + 2) - 1;
            ai += pad<PAD>(ai);
            bi += pad<PAD>(bi);
            int t = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += t;
        }
    }
    __syncthreads();
    ai = thid;
    bi = thid + THREADS;
    if (base + ai < n) out[base + ai] = temp[ai + pad<PAD>(ai)];
    if (base + bi < n) out[base + bi] = temp[bi + pad<PAD>(bi)];
}

__global__ void add_block_offsets(int *out, const int *offsets, int n)
{
    __shared__ int add;
    if (threadIdx.x == 0) add = offsets[blockIdx.x];
    __syncthreads();
    int i = blockIdx.x * ELEMS + threadIdx.x;
    if (i < n) out[i] += add;
    if (i + THREADS < n) out[i + THREADS] += add;
}

static int check(const char *name, const int *d_out, const std::vector<int> &ref, int n)
{
    std::vector<int> got(n);
    CHECK(cudaMemcpy(got.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        if (got[i] != ref[i]) {
            printf("%s: WRONG at %d (%d, expected %d)\n", name, i, got[i], ref[i]);
            return 1;
        }
    printf("%s: ok\n", name);
    return 0;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 10000;
    if (n < 1 || n > ELEMS * ELEMS) n = 10000;
    std::vector<int> h(n), ref(n);
    int acc = 0;
    for (int i = 0; i < n; i++) {
        h[i] = (i * 17 + 3) % 29 - 9;
        ref[i] = acc;
        acc += h[i];
    }
    int blocks = (n + ELEMS - 1) / ELEMS;
    int *d_in, *d_out, *d_sums, *d_offsets;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, n * sizeof(int)));
    CHECK(cudaMalloc(&d_sums, blocks * sizeof(int)));
    CHECK(cudaMalloc(&d_offsets, blocks * sizeof(int)));
    CHECK(cudaMemcpy(d_in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    dim3 grid(blocks), block(THREADS);
    int bad = 0;

    CHECK(cudaMemset(d_out, 0, n * sizeof(int)));
    prescan<false><<<grid, block>>>(d_out, d_in, d_sums, n);
    prescan<false><<<1, THREADS>>>(d_offsets, d_sums, nullptr, blocks);
    add_block_offsets<<<grid, block>>>(d_out, d_offsets, n);
    CHECK(cudaGetLastError());
    bad |= check("prescan<false>", d_out, ref, n);

    CHECK(cudaMemset(d_out, 0, n * sizeof(int)));
    prescan<true><<<grid, block>>>(d_out, d_in, d_sums, n);
    prescan<true><<<1, THREADS>>>(d_offsets, d_sums, nullptr, blocks);
    add_block_offsets<<<grid, block>>>(d_out, d_offsets, n);
    CHECK(cudaGetLastError());
    bad |= check("prescan<true>", d_out, ref, n);

    cudaFree(d_in); cudaFree(d_out); cudaFree(d_sums); cudaFree(d_offsets);
    return bad;
}
