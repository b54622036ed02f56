// dynsmem_template.cu: dynamic shared memory past the 48 KB default (cudaFuncSetAttribute
// with cudaFuncAttributeMaxDynamicSharedMemorySize), a template kernel launched for float and
// for double (64-bit shared words), and a single-warp walk of more than 4096 trips over a
// shared table whose trip count is a kernel parameter.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) \
    { fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(2); } } while (0)

namespace dyn
{

// each block reverses a chunk of `chunk` floats held whole in dynamic shared memory
__global__ void big_reverse(const float *in, float *out, int chunk)
{
    extern __shared__ float buf[];
    const float *src = in + (size_t)blockIdx.x * chunk;
    float *dst = out + (size_t)blockIdx.x * chunk;
    for (int i = threadIdx.x; i < chunk; i += blockDim.x)
        buf[i] = src[i];
    __syncthreads();
    for (int i = threadIdx.x; i < chunk; i += blockDim.x)
        dst[i] = buf[chunk - 1 - i];
}

// each block rotates its row of blockDim.x values left by `shift`, through dynamic shared memory
template <typename T>
__global__ void rotate_rows(const T *in, T *out, int shift)
{
    extern __shared__ __align__(8) unsigned char raw[];
    T *row = reinterpret_cast<T *>(raw);
    int n = blockDim.x;
    int t = threadIdx.x;
    row[t] = in[blockIdx.x * n + t];
    __syncthreads();
    out[blockIdx.x * n + t] = row[(t + shift) % n];
}

#define TABLE 1024

// one warp per block: lane l sums table[(l * stride + i * 37 + blockIdx.x) % TABLE] over `steps` trips
__global__ void table_walk(const int *table, int *out, int steps, int stride)
{
    __shared__ int tab[TABLE];
    for (int i = threadIdx.x; i < TABLE; i += blockDim.x)
        tab[i] = table[i];
    __syncthreads();
    int lane = threadIdx.x;
    int acc = 0;
    for (int i = 0; i < steps; ++i)
        acc += tab[(lane * stride + i * 37 + blockIdx.x) % TABLE];
    out[blockIdx.x * blockDim.x + lane] = acc;
}

} // namespace dyn

template <typename T>
static int check_rotate(const char *name, const T *d_out, const std::vector<T> &in, int rows,
                        int cols, int shift)
{
    std::vector<T> got(in.size());
    CHECK(cudaMemcpy(got.data(), d_out, in.size() * sizeof(T), cudaMemcpyDeviceToHost));
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            if (got[r * cols + c] != in[r * cols + (c + shift) % cols])
            {
                printf("%s: WRONG at %d\n", name, r * cols + c);
                return 1;
            }
    printf("%s: ok\n", name);
    return 0;
}

int main(int argc, char **argv)
{
    const int CHUNK = 16384, BLOCKS = 8;
    const int ROWS = 64, COLS = 256;
    int steps = argc > 1 ? atoi(argv[1]) : 5000;
    if (steps < 1 || steps > 100000)
        steps = 5000;
    int bad = 0;

    // 64 KB of dynamic shared memory per block
    const int N = CHUNK * BLOCKS;
    size_t smem = CHUNK * sizeof(float);
    std::vector<float> h(N), o(N);
    for (int i = 0; i < N; i++)
        h[i] = (float)(i % 5003);
    float *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, N * sizeof(float)));
    CHECK(cudaMalloc(&d_out, N * sizeof(float)));
    CHECK(cudaMemcpy(d_in, h.data(), N * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaFuncSetAttribute(dyn::big_reverse, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    dim3 grid(BLOCKS), block(1024);
    dyn::big_reverse<<<grid, block, smem>>>(d_in, d_out, CHUNK);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(o.data(), d_out, N * sizeof(float), cudaMemcpyDeviceToHost));
    int wrong = -1;
    for (int i = 0; i < N && wrong < 0; i++)
    {
        int b = i / CHUNK, k = i % CHUNK;
        if (o[i] != h[b * CHUNK + CHUNK - 1 - k])
            wrong = i;
    }
    if (wrong >= 0)
    {
        printf("big_reverse: WRONG at %d\n", wrong);
        bad = 1;
    }
    else
        printf("big_reverse: ok\n");

    // the template, for float and for double
    std::vector<float> rf(ROWS * COLS);
    std::vector<double> rd(ROWS * COLS);
    for (int i = 0; i < ROWS * COLS; i++)
    {
        rf[i] = (float)(i * 3 % 1001);
        rd[i] = (double)(i * 7 % 2003) + 0.5;
    }
    float *d_rf, *d_rf_out;
    double *d_rd, *d_rd_out;
    CHECK(cudaMalloc(&d_rf, ROWS * COLS * sizeof(float)));
    CHECK(cudaMalloc(&d_rf_out, ROWS * COLS * sizeof(float)));
    CHECK(cudaMalloc(&d_rd, ROWS * COLS * sizeof(double)));
    CHECK(cudaMalloc(&d_rd_out, ROWS * COLS * sizeof(double)));
    CHECK(cudaMemcpy(d_rf, rf.data(), ROWS * COLS * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_rd, rd.data(), ROWS * COLS * sizeof(double), cudaMemcpyHostToDevice));
    dim3 rgrid(ROWS), rblock(COLS);
    dyn::rotate_rows<float><<<rgrid, rblock, COLS * sizeof(float)>>>(d_rf, d_rf_out, 5);
    CHECK(cudaGetLastError());
    bad |= check_rotate("rotate_rows<float>", d_rf_out, rf, ROWS, COLS, 5);
    dyn::rotate_rows<double><<<rgrid, rblock, COLS * sizeof(double)>>>(d_rd, d_rd_out, 17);
    CHECK(cudaGetLastError());
    bad |= check_rotate("rotate_rows<double>", d_rd_out, rd, ROWS, COLS, 17);

    // the long walk: 4 blocks of one warp
    const int WALK_BLOCKS = 4, STRIDE = 32;
    std::vector<int> table(TABLE), walk(WALK_BLOCKS * 32);
    for (int i = 0; i < TABLE; i++)
        table[i] = (i * 13) % 17 - 8;
    int *d_table, *d_walk;
    CHECK(cudaMalloc(&d_table, TABLE * sizeof(int)));
    CHECK(cudaMalloc(&d_walk, WALK_BLOCKS * 32 * sizeof(int)));
    CHECK(cudaMemcpy(d_table, table.data(), TABLE * sizeof(int), cudaMemcpyHostToDevice));
    dyn::table_walk<<<WALK_BLOCKS, 32>>>(d_table, d_walk, steps, STRIDE);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(walk.data(), d_walk, WALK_BLOCKS * 32 * sizeof(int), cudaMemcpyDeviceToHost));
    wrong = -1;
    for (int b = 0; b < WALK_BLOCKS && wrong < 0; b++)
        for (int lane = 0; lane < 32; lane++)
        {
            int acc = 0;
            for (int i = 0; i < steps; i++)
                acc += table[(lane * STRIDE + i * 37 + b) % TABLE];
            if (walk[b * 32 + lane] != acc)
            {
                wrong = b * 32 + lane;
                break;
            }
        }
    if (wrong >= 0)
    {
        printf("table_walk: WRONG at %d\n", wrong);
        bad = 1;
    }
    else
        printf("table_walk: ok\n");

    cudaFree(d_in); cudaFree(d_out); cudaFree(d_rf); cudaFree(d_rf_out);
    cudaFree(d_rd); cudaFree(d_rd_out); cudaFree(d_table); cudaFree(d_walk);
    return bad;
}
