// transpose.cu: four ways to transpose a 512 x 384 float matrix, the classic progression:
// a naive copy (no shared memory), a 32x32 tile read by columns (32-way conflicts), the same
// tile padded to 33 columns (conflict-free), and an XOR swizzle through a __device__ helper.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define TILE_DIM 32
#define BLOCK_ROWS 8

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(2); } } while (0)

__global__ void transpose_naive(float *out, const float *in, int width, int height)
{
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        if (x < width && y + j < height)
            out[x * height + (y + j)] = in[(y + j) * width + x];
    }
}

__global__ void transpose_tiled(float *out, const float *in, int width, int height)
{
    __shared__ float tile[TILE_DIM][TILE_DIM];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void transpose_padded(float *out, const float *in, int width, int height)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

// row r, column c of a 32x32 tile stored flat, columns XOR-swizzled by the row
__device__ __forceinline__ int swz(int r, int c)
{
    return r * TILE_DIM + (c ^ r);
}

__global__ void transpose_swizzled(float *out, const float *in, int width, int height)
{
    __shared__ float tile[TILE_DIM * TILE_DIM];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        tile[swz(threadIdx.y + j, threadIdx.x)] = in[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        out[(y + j) * height + x] = tile[swz(threadIdx.x, threadIdx.y + j)];
}

static int check(const char *name, const std::vector<float> &got, const std::vector<float> &in,
                 int width, int height)
{
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            size_t i = (size_t)x * height + y;
            if (got[i] != in[(size_t)y * width + x]) {
                printf("%s: WRONG at %zu\n", name, i);
                return 1;
            }
        }
    printf("%s: ok\n", name);
    return 0;
}

int main(int argc, char **argv)
{
    const int NX = 512, NY = 384;
    int reps = argc > 1 ? atoi(argv[1]) : 1;
    if (reps < 1) reps = 1;
    size_t n = (size_t)NX * NY, bytes = n * sizeof(float);
    std::vector<float> h_in(n), h_out(n);
    for (size_t i = 0; i < n; i++) h_in[i] = (float)(i % 9973) - 100.0f;

    float *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, bytes));
    CHECK(cudaMalloc(&d_out, bytes));
    CHECK(cudaMemcpy(d_in, h_in.data(), bytes, cudaMemcpyHostToDevice));

    dim3 grid(NX / TILE_DIM, NY / TILE_DIM), block(TILE_DIM, BLOCK_ROWS);
    int bad = 0;

    CHECK(cudaMemset(d_out, 0, bytes));
    transpose_naive<<<grid, block>>>(d_out, d_in, NX, NY);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_out.data(), d_out, bytes, cudaMemcpyDeviceToHost));
    bad |= check("transpose_naive", h_out, h_in, NX, NY);

    for (int r = 0; r < reps; r++) {
        CHECK(cudaMemset(d_out, 0, bytes));
        transpose_tiled<<<grid, block>>>(d_out, d_in, NX, NY);
    }
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_out.data(), d_out, bytes, cudaMemcpyDeviceToHost));
    bad |= check("transpose_tiled", h_out, h_in, NX, NY);

    CHECK(cudaMemset(d_out, 0, bytes));
    transpose_padded<<<grid, block>>>(d_out, d_in, NX, NY);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_out.data(), d_out, bytes, cudaMemcpyDeviceToHost));
    bad |= check("transpose_padded", h_out, h_in, NX, NY);

    CHECK(cudaMemset(d_out, 0, bytes));
    transpose_swizzled<<<grid, block>>>(d_out, d_in, NX, NY);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_out.data(), d_out, bytes, cudaMemcpyDeviceToHost));
    bad |= check("transpose_swizzled", h_out, h_in, NX, NY);

    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    return bad;
}
