// cg_tiles.cu: cooperative groups in the ordinary places: a block sum through
// cg::tiled_partition<32> shuffles and shared per-warp partials, a tile transpose whose shared
// tile is read through an accessor lambda (column reads: conflicts, then the padded variant),
// and a 1D stencil whose radius is a kernel parameter bounding the loop over shared memory.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(2); } } while (0)

#define RMAX 8
#define SBLOCK 256

__global__ void cg_block_sum(const int *in, int *out, int n)
{
    __shared__ int partial[32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int i = blockIdx.x * block.size() + block.thread_rank();
    int v = i < n ? in[i] : 0;
    for (int off = warp.size() / 2; off > 0; off /= 2)
        v += warp.shfl_down(v, off);
    if (warp.thread_rank() == 0)
        partial[warp.meta_group_rank()] = v;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        v = warp.thread_rank() < warp.meta_group_size() ? partial[warp.thread_rank()] : 0;
        for (int off = warp.size() / 2; off > 0; off /= 2)
            v += warp.shfl_down(v, off);
        if (block.thread_rank() == 0)
            out[blockIdx.x] = v;
    }
}

// block (32, 8): a 32x32 tile per block; `pitch` 32 (conflicting) or 33 (padded)
template <int PITCH>
__global__ void cg_transpose(float *out, const float *in, int n)
{
    __shared__ float tile[32 * PITCH];
    cg::thread_block block = cg::this_thread_block();
    auto at = [&](int r, int c) -> float & { return tile[r * PITCH + c]; };
    int tx = threadIdx.x, ty = threadIdx.y;
    int x = blockIdx.x * 32 + tx, y = blockIdx.y * 32 + ty;
    for (int j = 0; j < 32; j += 8)
        at(ty + j, tx) = in[(y + j) * n + x];
    block.sync();
    x = blockIdx.y * 32 + tx;
    y = blockIdx.x * 32 + ty;
    for (int j = 0; j < 32; j += 8)
        out[(y + j) * n + x] = at(tx, ty + j);
}

__global__ void cg_stencil(const float *in, float *out, int n, int radius)
{
    __shared__ float s[SBLOCK + 2 * RMAX];
    cg::thread_block block = cg::this_thread_block();
    int t = block.thread_rank();
    int g = blockIdx.x * SBLOCK + t;
    s[RMAX + t] = g < n ? in[g] : 0.0f;
    if (t < RMAX) {
        int left = g - RMAX, right = g + SBLOCK;
        s[t] = left >= 0 && left < n ? in[left] : 0.0f;
        s[RMAX + SBLOCK + t] = right < n ? in[right] : 0.0f;
    }
    block.sync();
    float sum = 0.0f;
    for (int k = -radius; k <= radius; k++)
        sum += s[RMAX + t + k];
    if (g < n)
        out[g] = sum;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 50000;
    int radius = argc > 2 ? atoi(argv[2]) : 5;
    if (n < 1 || n > (1 << 22)) n = 50000;
    if (radius < 0 || radius > RMAX) radius = 5;
    const int TN = 256;
    int bad = 0;

    // block sum
    std::vector<int> hi(n);
    for (int i = 0; i < n; i++) hi[i] = (i % 41) - 20 + (i % 7);
    int blocks = (n + 255) / 256;
    int *d_i, *d_sums;
    CHECK(cudaMalloc(&d_i, n * sizeof(int)));
    CHECK(cudaMalloc(&d_sums, blocks * sizeof(int)));
    CHECK(cudaMemcpy(d_i, hi.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    dim3 grid((n + 255) / 256), block(256);
    cg_block_sum<<<grid, block>>>(d_i, d_sums, n);
    CHECK(cudaGetLastError());
    std::vector<int> sums(blocks);
    CHECK(cudaMemcpy(sums.data(), d_sums, blocks * sizeof(int), cudaMemcpyDeviceToHost));
    int wrong = -1;
    for (int b = 0; b < blocks && wrong < 0; b++) {
        int s = 0;
        for (int i = b * 256; i < n && i < (b + 1) * 256; i++) s += hi[i];
        if (sums[b] != s) wrong = b;
    }
    if (wrong >= 0) { printf("cg_block_sum: WRONG at %d\n", wrong); bad = 1; }
    else printf("cg_block_sum: ok\n");

    // transposes
    std::vector<float> hm((size_t)TN * TN), ht(hm.size());
    for (size_t i = 0; i < hm.size(); i++) hm[i] = (float)(i % 4099);
    float *d_m, *d_t;
    CHECK(cudaMalloc(&d_m, hm.size() * sizeof(float)));
    CHECK(cudaMalloc(&d_t, hm.size() * sizeof(float)));
    CHECK(cudaMemcpy(d_m, hm.data(), hm.size() * sizeof(float), cudaMemcpyHostToDevice));
    dim3 tgrid(TN / 32, TN / 32), tblock(32, 8);
    for (int pass = 0; pass < 2; pass++) {
        const char *name = pass == 0 ? "cg_transpose<32>" : "cg_transpose<33>";
        CHECK(cudaMemset(d_t, 0, hm.size() * sizeof(float)));
        if (pass == 0)
            cg_transpose<32><<<tgrid, tblock>>>(d_t, d_m, TN);
        else
            cg_transpose<33><<<tgrid, tblock>>>(d_t, d_m, TN);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(ht.data(), d_t, ht.size() * sizeof(float), cudaMemcpyDeviceToHost));
        wrong = -1;
        for (int r = 0; r < TN && wrong < 0; r++)
            for (int c = 0; c < TN; c++)
                if (ht[(size_t)c * TN + r] != hm[(size_t)r * TN + c]) { wrong = c * TN + r; break; }
        if (wrong >= 0) { printf("%s: WRONG at %d\n", name, wrong); bad = 1; }
        else printf("%s: ok\n", name);
    }

    // stencil: integer-valued inputs, sums exact
    std::vector<float> hs(n), hso(n);
    for (int i = 0; i < n; i++) hs[i] = (float)((i * 3) % 19 - 9);
    float *d_s, *d_so;
    CHECK(cudaMalloc(&d_s, n * sizeof(float)));
    CHECK(cudaMalloc(&d_so, n * sizeof(float)));
    CHECK(cudaMemcpy(d_s, hs.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    dim3 sgrid((n + SBLOCK - 1) / SBLOCK), sblock(SBLOCK);
    cg_stencil<<<sgrid, sblock>>>(d_s, d_so, n, radius);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hso.data(), d_so, n * sizeof(float), cudaMemcpyDeviceToHost));
    wrong = -1;
    for (int i = 0; i < n && wrong < 0; i++) {
        float s = 0.0f;
        for (int k = -radius; k <= radius; k++)
            if (i + k >= 0 && i + k < n) s += hs[i + k];
        if (hso[i] != s) wrong = i;
    }
    if (wrong >= 0) { printf("cg_stencil: WRONG at %d (%g)\n", wrong, hso[wrong]); bad = 1; }
    else printf("cg_stencil: ok\n");

    cudaFree(d_i); cudaFree(d_sums); cudaFree(d_m); cudaFree(d_t); cudaFree(d_s); cudaFree(d_so);
    return bad;
}
