// cub_blocks.cu: CUB block primitives, whose temporary storage is shared memory: a
// BlockLoad(TRANSPOSE) -> BlockScan -> BlockStore(TRANSPOSE) pipeline with the three
// TempStorage types in one __shared__ union, a BlockReduce sum, and a BlockExchange from a
// warp-striped to a blocked arrangement.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include <cub/cub.cuh>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(2); } } while (0)

constexpr int THREADS = 128, ITEMS = 4, TILE_ITEMS = THREADS * ITEMS;

// inclusive prefix sum of each TILE_ITEMS-long tile of in
__global__ void tile_scan(const int *in, int *out, int n)
{
    typedef cub::BlockLoad<int, THREADS, ITEMS, cub::BLOCK_LOAD_TRANSPOSE> Load;
    typedef cub::BlockScan<int, THREADS> Scan;
    typedef cub::BlockStore<int, THREADS, ITEMS, cub::BLOCK_STORE_TRANSPOSE> Store;
    __shared__ union {
        typename Load::TempStorage load;
        typename Scan::TempStorage scan;
        typename Store::TempStorage store;
    } temp;
    int offset = blockIdx.x * TILE_ITEMS;
    int valid = n - offset < TILE_ITEMS ? n - offset : TILE_ITEMS;
    int items[ITEMS];
    Load(temp.load).Load(in + offset, items, valid, 0);
    __syncthreads();
    Scan(temp.scan).InclusiveSum(items, items);
    __syncthreads();
    Store(temp.store).Store(out + offset, items, valid);
}

__global__ void block_sum(const int *in, int *out, int n)
{
    typedef cub::BlockReduce<int, 256> Reduce;
    __shared__ typename Reduce::TempStorage temp;
    int i = blockIdx.x * 256 + threadIdx.x;
    int v = i < n ? in[i] : 0;
    int total = Reduce(temp).Sum(v);
    if (threadIdx.x == 0)
        out[blockIdx.x] = total;
}

// out[t * ITEMS + k] = in[t * ITEMS + k] + in[t * ITEMS] within each tile
__global__ void striped_to_blocked(const int *in, int *out)
{
    typedef cub::BlockExchange<int, THREADS, ITEMS> Exchange;
    __shared__ typename Exchange::TempStorage temp;
    int offset = blockIdx.x * TILE_ITEMS;
    int items[ITEMS];
    cub::LoadDirectWarpStriped(threadIdx.x, in + offset, items);
    Exchange(temp).WarpStripedToBlocked(items, items);
    for (int k = ITEMS - 1; k >= 0; k--)
        items[k] += items[0];
    cub::StoreDirectBlocked(threadIdx.x, out + offset, items);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 30000;
    if (n < 1 || n > (1 << 22)) n = 30000;
    int bad = 0;
    std::vector<int> h(n), got(n);
    for (int i = 0; i < n; i++) h[i] = (i * 31) % 97 - 48;
    int tiles = (n + TILE_ITEMS - 1) / TILE_ITEMS;
    int *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, tiles * TILE_ITEMS * sizeof(int)));
    CHECK(cudaMalloc(&d_out, tiles * TILE_ITEMS * sizeof(int)));
    CHECK(cudaMemset(d_in, 0, tiles * TILE_ITEMS * sizeof(int)));
    CHECK(cudaMemcpy(d_in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));

    dim3 grid(tiles), block(THREADS);
    tile_scan<<<grid, block>>>(d_in, d_out, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(got.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
    int wrong = -1, acc = 0;
    for (int i = 0; i < n && wrong < 0; i++) {
        acc = (i % TILE_ITEMS == 0 ? 0 : acc) + h[i];
        if (got[i] != acc) wrong = i;
    }
    if (wrong >= 0) { printf("tile_scan: WRONG at %d (%d, expected %d)\n", wrong, got[wrong], acc); bad = 1; }
    else printf("tile_scan: ok\n");

    int blocks = (n + 255) / 256;
    block_sum<<<(n + 255) / 256, 256>>>(d_in, d_out, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(got.data(), d_out, blocks * sizeof(int), cudaMemcpyDeviceToHost));
    wrong = -1;
    for (int b = 0; b < blocks && wrong < 0; b++) {
        int s = 0;
        for (int i = b * 256; i < (b + 1) * 256 && i < n; i++) s += h[i];
        if (got[b] != s) wrong = b;
    }
    if (wrong >= 0) { printf("block_sum: WRONG at %d\n", wrong); bad = 1; }
    else printf("block_sum: ok\n");

    // whole tiles only: the padding past n is zeros
    std::vector<int> padded(tiles * TILE_ITEMS, 0), out(tiles * TILE_ITEMS);
    for (int i = 0; i < n; i++) padded[i] = h[i];
    striped_to_blocked<<<grid, block>>>(d_in, d_out);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(int), cudaMemcpyDeviceToHost));
    wrong = -1;
    for (size_t i = 0; i < out.size() && wrong < 0; i++) {
        size_t first = i - i % ITEMS;
        if (out[i] != padded[i] + padded[first]) wrong = (int)i;
    }
    if (wrong >= 0) { printf("striped_to_blocked: WRONG at %d\n", wrong); bad = 1; }
    else printf("striped_to_blocked: ok\n");

    cudaFree(d_in); cudaFree(d_out);
    return bad;
}
