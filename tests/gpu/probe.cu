/* probe.cu: two experiments behind docs/gpu.md, outside the product (built by `make
 * $(BUILD)/tests/gpu_probe` with GPU=cuda, run by tests/gpu/probe.sh on a device).
 *
 *   gpu_probe copy      the copy ceiling (cudaMemcpy device to device, copy kernels) and
 *                       transpose variants with more bytes in flight per thread, in GB/s
 *   gpu_probe offset    where the whole-kernel counter offset comes from: the padded
 *                       transpose (1 wavefront per shared load on one warp) with its global
 *                       traffic changed (bypassing L1, removed, moved), counted through the
 *                       project's own CUPTI code (src/cuda/counters.cu)
 *
 * Every kernel's output is checked against a CPU reference before its numbers are printed. */
#include <cuda_runtime.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/cuda/cudalib.h"

#define TILE 32
#define CK(x)                                                                                  \
    do {                                                                                       \
        cudaError_t e_ = (x);                                                                  \
        if (e_ != cudaSuccess) {                                                               \
            fprintf(stderr, "probe: %s:%d: %s: %s\n", __FILE__, __LINE__, #x,                  \
                    cudaGetErrorString(e_));                                                   \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

static int N = 8192;
static float *d_in, *d_out, *h_in, *h_out;

/* ---- copy kernels ---- */

/* copy_tile: the transposes' access shape (32 x ROWS threads, 32 x 32 tile), no shared memory. */
template <int ROWS> __global__ void copy_tile(float *out, const float *in, int n)
{
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
#pragma unroll
    for (int j = 0; j < TILE; j += ROWS)
        out[(size_t)(y + j) * n + x] = in[(size_t)(y + j) * n + x];
}

/* copy_vec: float4 per thread, U of them in flight, grid-stride. */
template <int U> __global__ void copy_vec(float4 *out, const float4 *in, size_t n4)
{
    size_t i = (size_t)blockIdx.x * blockDim.x * U + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x * U;
    for (; i + (size_t)(U - 1) * blockDim.x < n4; i += stride) {
        float4 v[U];
#pragma unroll
        for (int u = 0; u < U; u++)
            v[u] = in[i + (size_t)u * blockDim.x];
#pragma unroll
        for (int u = 0; u < U; u++)
            out[i + (size_t)u * blockDim.x] = v[u];
    }
    for (; i < n4; i += blockDim.x)
        out[i] = in[i];
}

/* ---- transposes: the taught access (tile[threadIdx.x][threadIdx.y + j]) in every variant ---- */

/* padded (PAD 1) or swizzled, 32 x ROWS threads, K tiles per block side by side (all loads of
 * the K tiles are issued before the first shared store: K * 32 / ROWS floats in flight per
 * thread). */
template <int ROWS, int K, bool SWZ> __global__ void transpose_k(float *out, const float *in, int n)
{
    __shared__ float tile[K][TILE][TILE + (SWZ ? 0 : 1)];
    float v[K][TILE / ROWS];
    int bx = blockIdx.x * K;
#pragma unroll
    for (int k = 0; k < K; k++) {
        int x = (bx + k) * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
#pragma unroll
        for (int j = 0; j < TILE / ROWS; j++)
            v[k][j] = in[(size_t)(y + j * ROWS) * n + x];
    }
#pragma unroll
    for (int k = 0; k < K; k++)
#pragma unroll
        for (int j = 0; j < TILE / ROWS; j++) {
            int r = threadIdx.y + j * ROWS;
            tile[k][r][SWZ ? threadIdx.x ^ r : threadIdx.x] = v[k][j];
        }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < K; k++) {
        int x = blockIdx.y * TILE + threadIdx.x, y = (bx + k) * TILE + threadIdx.y;
#pragma unroll
        for (int j = 0; j < TILE / ROWS; j++) {
            int c = threadIdx.y + j * ROWS;
            out[(size_t)(y + j * ROWS) * n + x] = tile[k][threadIdx.x][SWZ ? c ^ threadIdx.x : c];
        }
    }
}

/* ---- the counter-offset variants of the padded transpose (32 x 8 threads, PAD 1) ---- */

enum { G_L1 = 0, G_CG, G_NC, G_NONE };                             /* global loads */
enum { S_EACH = 0, S_CG, S_ONE };                                     /* global stores */

__device__ __forceinline__ float gen(size_t i) { return (float)(i % 251); }

/* The shared load of the lesson: ld.volatile.shared so nothing is merged or hoisted. */
__device__ __forceinline__ float lds(const float *p)
{
    float v;
    asm volatile("ld.volatile.shared.f32 %0, [%1];" : "=f"(v)
                 : "r"((unsigned)__cvta_generic_to_shared(p)) : "memory");
    return v;
}

template <int LD, int ST, int PAD>
__global__ void offset_k(float *out, const float *in, int n, int tiles_per_block)
{
    __shared__ float tile[TILE][TILE + PAD];
    int ntx = n / TILE;
    for (int t = 0; t < tiles_per_block; t++) {
        int id = blockIdx.x * tiles_per_block + t;
        int tx = id % ntx, ty = id / ntx;
        int x = tx * TILE + threadIdx.x, y = ty * TILE + threadIdx.y;
        for (int j = 0; j < TILE; j += 8) {
            size_t g = (size_t)(y + j) * n + x;
            float *s = &tile[threadIdx.y + j][threadIdx.x];
            if (LD == G_L1)
                *s = in[g];
            else if (LD == G_CG)
                *s = __ldcg(in + g);
            else if (LD == G_NC)
                *s = __ldg(in + g);
            else
                *s = gen(g);
        }
        __syncthreads();
        x = ty * TILE + threadIdx.x;
        y = tx * TILE + threadIdx.y;
        float sum = 0;
        for (int j = 0; j < TILE; j += 8) {
            float v = lds(&tile[threadIdx.x][threadIdx.y + j]);
            size_t g = (size_t)(y + j) * n + x;
            if (ST == S_EACH)
                out[g] = v;
            else if (ST == S_CG)
                __stcg(out + g, v);
            else
                sum += v;
        }
        if (ST == S_ONE)
            out[(size_t)id * 256 + threadIdx.y * 32 + threadIdx.x] = sum;
        __syncthreads();
    }
}

/* ---- interference: what other traffic on the SM adds to a conflict-free load's counters ----
 * Warps 0..3 of each block read the columns of a padded tile[32][33] (one wavefront per load,
 * nothing else: no global access, no shared store) ROUNDS x 32 times; warps 4..7 meanwhile do
 * the same number of OTHER operations. 8 blocks of 256 threads per SM. Only warps 0..3 load
 * from shared memory, so the load counters are theirs alone. */
enum { O_NONE = 0, O_SHARED_ST, O_GLOBAL_LD, O_GLOBAL_LD_CG, O_GLOBAL_ST };
#define I_ROUNDS 64

template <int OTHER>
__global__ void interfere(float *out, float *scratch, const float *in, size_t n_in)
{
    __shared__ float tile[TILE][TILE + 1];
    __shared__ float other[8][TILE];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int i = threadIdx.x; i < TILE * (TILE + 1); i += blockDim.x)
        (&tile[0][0])[i] = (float)(i % 7);
    __syncthreads();
    float acc = 0;
    if (warp < 4) {
        for (int r = 0; r < I_ROUNDS; r++)
            for (int k = 0; k < TILE; k++)
                acc += lds(&tile[lane][k]);
    } else if (OTHER != O_NONE) {
        size_t stride = (size_t)gridDim.x * 4 * 32;
        size_t base = ((size_t)blockIdx.x * 4 + (warp - 4)) * 32 + lane;
        for (int r = 0; r < I_ROUNDS; r++)
#pragma unroll 8
            for (int k = 0; k < TILE; k++) {
                size_t g = (base + (size_t)(r * TILE + k) * stride) % n_in;
                if (OTHER == O_SHARED_ST)
                    asm volatile("st.volatile.shared.f32 [%0], %1;" ::"r"((unsigned)__cvta_generic_to_shared(&other[warp][lane])), "f"((float)k) : "memory");
                else if (OTHER == O_GLOBAL_LD)
                    acc += in[g];
                else if (OTHER == O_GLOBAL_LD_CG)
                    acc += __ldcg(in + g);
                else
                    scratch[g] = (float)k;
            }
    }
    out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

/* ---- helpers ---- */

static cudaEvent_t e0, e1;

template <typename F> static double time_ms(F launch, int reps = 20)
{
    for (int i = 0; i < 3; i++)
        launch();
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    double ms[64];
    for (int i = 0; i < reps; i++) {
        float t;
        CK(cudaEventRecord(e0));
        launch();
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&t, e0, e1));
        ms[i] = t;
    }
    CK(cudaGetLastError());
    for (int i = 0; i < reps; i++) /* median */
        for (int j = i + 1; j < reps; j++)
            if (ms[j] < ms[i]) {
                double s = ms[i];
                ms[i] = ms[j];
                ms[j] = s;
            }
    return ms[reps / 2];
}

/* 0 when out is in (kind 0) or its transpose (kind 1), else prints the first difference. */
static int check(const char *what, int transposed)
{
    size_t bytes = (size_t)N * N * sizeof(float);
    CK(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));
    for (size_t y = 0; y < (size_t)N; y++)
        for (size_t x = 0; x < (size_t)N; x++) {
            float want = transposed ? h_in[x * N + y] : h_in[y * N + x];
            if (h_out[y * N + x] != want) {
                printf("%-44s WRONG OUTPUT at (%zu, %zu)\n", what, y, x);
                return 1;
            }
        }
    return 0;
}

static int fails;

template <typename F> static void report_copy(const char *what, int transposed, F launch,
                                              double ceiling)
{
    CK(cudaMemset(d_out, 0, (size_t)N * N * sizeof(float)));
    launch();
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    if (check(what, transposed)) {
        fails++;
        return;
    }
    double ms = time_ms(launch);
    double gbps = 2.0 * N * (double)N * sizeof(float) / (ms * 1e-3) / 1e9;
    if (ceiling > 0)
        printf("%-44s %9.4f ms %7.0f GB/s %6.1f %% of the ceiling\n", what, ms, gbps,
               gbps / ceiling * 100);
    else
        printf("%-44s %9.4f ms %7.0f GB/s\n", what, ms, gbps);
}

static double gbps_of(double ms) { return 2.0 * N * (double)N * sizeof(float) / (ms * 1e-3) / 1e9; }

static void run_copy(int sms)
{
    size_t bytes = (size_t)N * N * sizeof(float), n4 = (size_t)N * N / 4;
    printf("Copy ceiling and transposes, %d x %d floats (GB/s = bytes read + written)\n", N, N);
    double ms_memcpy = time_ms([&] { cudaMemcpyAsync(d_out, d_in, bytes, cudaMemcpyDeviceToDevice); });
    double ceiling = gbps_of(ms_memcpy);
    report_copy("cudaMemcpy device to device", 0,
                [&] { cudaMemcpyAsync(d_out, d_in, bytes, cudaMemcpyDeviceToDevice); }, 0);
    int grids[] = {sms * 4, sms * 8, sms * 16, sms * 32};
    for (int g : grids) {
        char what[64];
        snprintf(what, sizeof what, "copy_vec<1> float4, %d blocks x 256", g);
        report_copy(what, 0, [&] { copy_vec<1><<<g, 256>>>((float4 *)d_out, (const float4 *)d_in, n4); }, ceiling);
        snprintf(what, sizeof what, "copy_vec<4> float4, %d blocks x 256", g);
        report_copy(what, 0, [&] { copy_vec<4><<<g, 256>>>((float4 *)d_out, (const float4 *)d_in, n4); }, ceiling);
    }
    dim3 grid(N / TILE, N / TILE);
    report_copy("copy_tile 32x8 (the transposes' shape)", 0,
                [&] { copy_tile<8><<<grid, dim3(TILE, 8)>>>(d_out, d_in, N); }, ceiling);
    report_copy("copy_tile 32x4", 0, [&] { copy_tile<4><<<grid, dim3(TILE, 4)>>>(d_out, d_in, N); }, ceiling);
    report_copy("padded 32x8, 1 tile per block (before)", 1,
                [&] { transpose_k<8, 1, false><<<grid, dim3(TILE, 8)>>>(d_out, d_in, N); }, ceiling);
    report_copy("padded 32x4, 1 tile per block", 1,
                [&] { transpose_k<4, 1, false><<<grid, dim3(TILE, 4)>>>(d_out, d_in, N); }, ceiling);
    report_copy("padded 32x2, 1 tile per block", 1,
                [&] { transpose_k<2, 1, false><<<grid, dim3(TILE, 2)>>>(d_out, d_in, N); }, ceiling);
    dim3 grid2(N / TILE / 2, N / TILE), grid4(N / TILE / 4, N / TILE);
    report_copy("padded 32x8, 2 tiles per block (as shipped)", 1,
                [&] { transpose_k<8, 2, false><<<grid2, dim3(TILE, 8)>>>(d_out, d_in, N); }, ceiling);
    report_copy("padded 32x8, 4 tiles per block", 1,
                [&] { transpose_k<8, 4, false><<<grid4, dim3(TILE, 8)>>>(d_out, d_in, N); }, ceiling);
    report_copy("padded 32x4, 2 tiles per block", 1,
                [&] { transpose_k<4, 2, false><<<grid2, dim3(TILE, 4)>>>(d_out, d_in, N); }, ceiling);
    report_copy("swizzled 32x8, 1 tile per block", 1,
                [&] { transpose_k<8, 1, true><<<grid, dim3(TILE, 8)>>>(d_out, d_in, N); }, ceiling);
    report_copy("swizzled 32x8, 2 tiles per block (as shipped)", 1,
                [&] { transpose_k<8, 2, true><<<grid2, dim3(TILE, 8)>>>(d_out, d_in, N); }, ceiling);
    report_copy("swizzled 32x4, 1 tile per block", 1,
                [&] { transpose_k<4, 1, true><<<grid, dim3(TILE, 4)>>>(d_out, d_in, N); }, ceiling);
}

/* ---- offset experiment ---- */

struct off_run {
    void (*k)(float *, const float *, int, int);
    int blocks, tiles;
};

static int off_launch(void *arg)
{
    struct off_run *r = (struct off_run *)arg;
    r->k<<<r->blocks, dim3(TILE, 8)>>>(d_out, d_in, N, r->tiles);
    if (cudaGetLastError() != cudaSuccess)
        return -1;
    return cudaDeviceSynchronize() == cudaSuccess ? 0 : -1;
}

/* Output check of one variant: transposed input (loads from `in` or generated), or per-thread
 * sums of the 4 column reads. */
static int off_check(const char *what, int ld, int st, int blocks, int tiles)
{
    size_t ntiles = (size_t)blocks * tiles, ntx = N / TILE;
    CK(cudaMemcpy(h_out, d_out, (size_t)N * N * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t id = 0; id < ntiles; id++) {
        size_t tx = id % ntx, ty = id / ntx;
        for (int t = 0; t < 256; t++) {
            int lx = t % 32, ly = t / 32;
            double sum = 0;
            for (int j = 0; j < TILE; j += 8) {
                /* thread (lx, ly) of tile (tx, ty) reads tile[lx][ly + j], which holds input
                 * (ty*32 + lx, tx*32 + ly + j), and writes output (tx*32 + ly + j, ty*32 + lx) */
                size_t src = (ty * TILE + lx) * (size_t)N + tx * TILE + ly + j;
                size_t dst = (tx * TILE + ly + j) * (size_t)N + ty * TILE + lx;
                float v = ld == G_NONE ? (float)(src % 251) : h_in[src];
                if (st == S_ONE) {
                    sum += v;
                } else if (h_out[dst] != v) {
                    printf("%-44s WRONG OUTPUT (tile %zu, thread %d)\n", what, id, t);
                    return 1;
                }
            }
            if (st == S_ONE && h_out[id * 256 + t] != (float)sum) {
                printf("%-44s WRONG SUM (tile %zu, thread %d)\n", what, id, t);
                return 1;
            }
        }
    }
    return 0;
}

/* One row of the counter tables: launch(arg) once under the profiler, per shared instruction. */
static void count_row(struct bl_counters *c, const char *what, double ms, int (*launch)(void *),
                      void *arg)
{
    double v[BL_NMETRICS];
    struct bl_err why = {};
    if (bl_counters_measure(c, launch, arg, v, &why)) {
        printf("%-44s counters failed: %s\n", what, why.msg);
        fails++;
        return;
    }
    double il = v[BL_INST_LD], is = v[BL_INST_ST];
    printf("%-44s %8.4f ms  ld %.4f wf %.4f cf  st %.4f wf %.4f cf  (%.0f ld, %.0f st instr)\n",
           what, ms, il > 0 ? v[BL_WAVEFRONTS_LD] / il : 0, il > 0 ? v[BL_CONFLICTS_LD] / il : 0,
           is > 0 ? v[BL_WAVEFRONTS_ST] / is : 0, is > 0 ? v[BL_CONFLICTS_ST] / is : 0, il, is);
}

static void offset_row(struct bl_counters *c, const char *what, struct off_run r, int ld, int st)
{
    CK(cudaMemset(d_out, 0, (size_t)N * N * sizeof(float)));
    if (off_launch(&r)) {
        printf("%-44s LAUNCH FAILED: %s\n", what, cudaGetErrorString(cudaGetLastError()));
        fails++;
        return;
    }
    if (off_check(what, ld, st, r.blocks, r.tiles)) {
        fails++;
        return;
    }
    double ms = time_ms([&] { r.k<<<r.blocks, dim3(TILE, 8)>>>(d_out, d_in, N, r.tiles); }, 9);
    count_row(c, what, ms, off_launch, &r);
}

struct int_run {
    void (*k)(float *, float *, const float *, size_t);
    int blocks;
    float *scratch;
};

static int int_launch(void *arg)
{
    struct int_run *r = (struct int_run *)arg;
    r->k<<<r->blocks, 256>>>(d_out, r->scratch, d_in, (size_t)N * N);
    if (cudaGetLastError() != cudaSuccess)
        return -1;
    return cudaDeviceSynchronize() == cudaSuccess ? 0 : -1;
}

/* The reading warps' sums (and the global-loading warps' sums) against the CPU. */
static int int_check(const char *what, int other, int blocks)
{
    size_t n_in = (size_t)N * N, stride = (size_t)blocks * 4 * 32;
    CK(cudaMemcpy(h_out, d_out, (size_t)blocks * 256 * sizeof(float), cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; b++)
        for (int t = 0; t < 256; t++) {
            int lane = t & 31, warp = t >> 5;
            float acc = 0;
            if (warp < 4) {
                for (int r = 0; r < I_ROUNDS; r++)
                    for (int k = 0; k < TILE; k++)
                        acc += (float)((lane * (TILE + 1) + k) % 7);
            } else if (other == O_GLOBAL_LD || other == O_GLOBAL_LD_CG) {
                size_t base = ((size_t)b * 4 + (warp - 4)) * 32 + lane;
                for (int r = 0; r < I_ROUNDS; r++)
                    for (int k = 0; k < TILE; k++)
                        acc += h_in[(base + (size_t)(r * TILE + k) * stride) % n_in];
            }
            if (h_out[(size_t)b * 256 + t] != acc) {
                printf("%-44s WRONG SUM (block %d, thread %d)\n", what, b, t);
                return 1;
            }
        }
    return 0;
}

static void int_row(struct bl_counters *c, const char *what, struct int_run r, int other)
{
    if (int_launch(&r)) {
        printf("%-44s LAUNCH FAILED\n", what);
        fails++;
        return;
    }
    if (int_check(what, other, r.blocks)) {
        fails++;
        return;
    }
    double ms = time_ms([&] { r.k<<<r.blocks, 256>>>(d_out, r.scratch, d_in, (size_t)N * N); }, 9);
    count_row(c, what, ms, int_launch, &r);
}

static void run_interference(struct bl_counters *c, int sms)
{
    float *scratch;
    CK(cudaMalloc((void **)&scratch, (size_t)N * N * sizeof(float)));
    printf("Interference: warps 0-3 read columns of tile[32][33] (1 wavefront each, no other "
           "traffic of their own); warps 4-7 meanwhile do (8 blocks of 256 threads per SM):\n");
    int blocks = sms * 8;
    int_row(c, "nothing", int_run{interfere<O_NONE>, blocks, scratch}, O_NONE);
    int_row(c, "shared stores (st.shared, conflict-free)", int_run{interfere<O_SHARED_ST>, blocks, scratch}, O_SHARED_ST);
    int_row(c, "global loads (ld.global)", int_run{interfere<O_GLOBAL_LD>, blocks, scratch}, O_GLOBAL_LD);
    int_row(c, "global loads, L2 only (ld.global.cg)", int_run{interfere<O_GLOBAL_LD_CG>, blocks, scratch}, O_GLOBAL_LD_CG);
    int_row(c, "global stores (st.global)", int_run{interfere<O_GLOBAL_ST>, blocks, scratch}, O_GLOBAL_ST);
    CK(cudaFree(scratch));
}

static void run_offset(int sms)
{
    struct bl_err why = {};
    struct bl_counters *c = bl_counters_open_metrics(0, NULL, BL_NMETRICS, &why);
    if (!c) {
        printf("offset: no counters: %s\n", why.msg);
        fails++;
        return;
    }
    int tiles = (N / TILE) * (N / TILE);
    printf("Counter offset: padded transpose tile[32][33], %d x %d floats, 32 x 8 threads; per "
           "shared instruction of the whole kernel (one warp alone: ld 1.0000 wf 0.0000 cf)\n", N, N);
#define ROW(what, LD, ST, blocks, per)                                                         \
    offset_row(c, what, off_run{offset_k<LD, ST, 1>, blocks, per}, LD, ST)
    ROW("taught: ld.global, st.global", G_L1, S_EACH, tiles, 1);
    ROW("loads ld.global.cg (L2 only)", G_CG, S_EACH, tiles, 1);
    ROW("loads ld.global.nc (read-only path)", G_NC, S_EACH, tiles, 1);
    ROW("no global loads (values computed)", G_NONE, S_EACH, tiles, 1);
    ROW("stores st.global.cg", G_L1, S_CG, tiles, 1);
    ROW("loads .cg and stores .cg", G_CG, S_CG, tiles, 1);
    ROW("loads as taught, one store per thread", G_L1, S_ONE, tiles, 1);
    ROW("no global loads, one store per thread", G_NONE, S_ONE, tiles, 1);
    ROW("taught, 1 block per SM (loop over tiles)", G_L1, S_EACH, sms, tiles / sms);
    ROW("taught, 1 block in all", G_L1, S_EACH, 1, 64);
    ROW("no global loads, 1 store, 1 block per SM", G_NONE, S_ONE, sms, tiles / sms);
#undef ROW
    printf("tile[32][32] (32-way column read), for comparison (one warp alone: 32 wf 31 cf):\n");
    offset_row(c, "tile32 taught", off_run{offset_k<G_L1, S_EACH, 0>, tiles, 1}, G_L1, S_EACH);
    offset_row(c, "tile32 no global loads, one store", off_run{offset_k<G_NONE, S_ONE, 0>, tiles, 1},
               G_NONE, S_ONE);
    run_interference(c, sms);
    bl_counters_close(c);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "all";
    if (!strcmp(what, "-h") || !strcmp(what, "--help")) {
        printf("usage: gpu_probe [copy|offset|all]\n");
        return 0;
    }
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("SKIP: no GPU\n");
        return 77;
    }
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    CK(cudaSetDevice(0));
    CK(cudaFree(0));
    printf("device: %s (sm_%d%d), %d SMs\n", p.name, p.major, p.minor, p.multiProcessorCount);
    size_t bytes = (size_t)N * N * sizeof(float);
    h_in = (float *)malloc(bytes);
    h_out = (float *)malloc(bytes);
    if (!h_in || !h_out)
        return 1;
    for (size_t i = 0; i < (size_t)N * N; i++)
        h_in[i] = (float)((i * 2654435761u >> 7) % 1000);
    CK(cudaMalloc((void **)&d_in, bytes));
    CK(cudaMalloc((void **)&d_out, bytes));
    CK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    if (!strcmp(what, "copy") || !strcmp(what, "all"))
        run_copy(p.multiProcessorCount);
    if (!strcmp(what, "offset") || !strcmp(what, "all"))
        run_offset(p.multiProcessorCount);
    printf("%s\n", fails ? "probe: FAILED (see above)" : "probe: all outputs checked");
    return fails ? 1 : 0;
}
