// pipeline_async.cu: asynchronous copies into shared memory. A double-buffered
// cuda::pipeline (cuda::memcpy_async over the thread block, read back with a 4-way conflicted
// permutation), a cuda::barrier-completed copy feeding a 3-point stencil, and the older
// __pipeline_memcpy_async / __pipeline_commit / __pipeline_wait_prior primitives.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include <cuda/pipeline>
#include <cuda/barrier>
#include <cuda_pipeline.h>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

// shared pipeline states and barriers are initialised by hand (init, make_pipeline), as in
// the CUDA samples
#pragma nv_diag_suppress static_var_with_dynamic_init

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) \
    { fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(2); } } while (0)

#define BATCH 256
#define STAGES 2

// block b, thread t: out[b * BATCH + t] = sum over k of in[(b * batches + k) * BATCH + perm(t)]
__global__ void pipeline_sum(const float *in, float *out, int batches)
{
    __shared__ alignas(16) float buf[STAGES][BATCH];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
    cg::thread_block block = cg::this_thread_block();
    auto pipe = cuda::make_pipeline(block, &state);
    const float *base = in + (size_t)blockIdx.x * batches * BATCH;
    int t = threadIdx.x;
    int p = (t * 4) % BATCH + t / 64;
    float acc = 0.0f;
    for (int fetch = 0, compute = 0; compute < batches; ++compute)
    {
        for (; fetch < batches && fetch < compute + STAGES; ++fetch)
        {
            pipe.producer_acquire();
            cuda::memcpy_async(block, buf[fetch % STAGES], base + (size_t)fetch * BATCH,
                               sizeof(float) * BATCH, pipe);
            pipe.producer_commit();
        }
        pipe.consumer_wait();
        acc += buf[compute % STAGES][p];
        pipe.consumer_release();
    }
    out[blockIdx.x * BATCH + t] = acc;
}

// out[i] = in[i - 1] + in[i] + in[i + 1] inside each block's tile (the tile's ends see zeros)
__global__ void barrier_stencil(const float *in, float *out)
{
    __shared__ alignas(16) float tile[BATCH + 2];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    cg::thread_block block = cg::this_thread_block();
    if (block.thread_rank() == 0)
    {
        init(&bar, block.size());
        tile[0] = 0.0f;
        tile[BATCH + 1] = 0.0f;
    }
    block.sync();
    cuda::memcpy_async(block, tile + 1, in + blockIdx.x * BATCH, sizeof(float) * BATCH, bar);
    bar.arrive_and_wait();
    int t = block.thread_rank();
    out[blockIdx.x * BATCH + t] = tile[t] + tile[t + 1] + tile[t + 2];
}

// out[i] = 2 * the value at the mirrored position of the block
__global__ void primitive_mirror(const float *in, float *out, int n)
{
    __shared__ alignas(16) float s[BATCH];
    int t = threadIdx.x;
    int i = blockIdx.x * BATCH + t;
    if (i < n)
        __pipeline_memcpy_async(&s[t], &in[i], sizeof(float));
    else
        s[t] = 0.0f;
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    if (i < n)
        out[i] = 2.0f * s[BATCH - 1 - t];
}

int main(int argc, char **argv)
{
    const int BLOCKS = 24, BATCHES = 12;
    const int N = BLOCKS * BATCHES * BATCH;
    int bad = 0;
    std::vector<float> h(N), o(N);
    for (int i = 0; i < N; i++)
        h[i] = (float)((i * 11) % 37 - 18);
    float *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, N * sizeof(float)));
    CHECK(cudaMalloc(&d_out, N * sizeof(float)));
    CHECK(cudaMemcpy(d_in, h.data(), N * sizeof(float), cudaMemcpyHostToDevice));

    dim3 grid(BLOCKS), block(BATCH);
    pipeline_sum<<<grid, block>>>(d_in, d_out, BATCHES);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(o.data(), d_out, BLOCKS * BATCH * sizeof(float), cudaMemcpyDeviceToHost));
    int wrong = -1;
    for (int b = 0; b < BLOCKS && wrong < 0; b++)
        for (int t = 0; t < BATCH; t++)
        {
            int p = (t * 4) % BATCH + t / 64;
            float s = 0.0f;
            for (int k = 0; k < BATCHES; k++)
                s += h[(b * BATCHES + k) * BATCH + p];
            if (o[b * BATCH + t] != s)
            {
                wrong = b * BATCH + t;
                break;
            }
        }
    if (wrong >= 0)
    {
        printf("pipeline_sum: WRONG at %d\n", wrong);
        bad = 1;
    }
    else
        printf("pipeline_sum: ok\n");

    dim3 sgrid(N / BATCH), sblock(BATCH);
    barrier_stencil<<<sgrid, sblock>>>(d_in, d_out);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(o.data(), d_out, N * sizeof(float), cudaMemcpyDeviceToHost));
    wrong = -1;
    for (int i = 0; i < N && wrong < 0; i++)
    {
        int t = i % BATCH;
        float s = (t > 0 ? h[i - 1] : 0.0f) + h[i] + (t < BATCH - 1 ? h[i + 1] : 0.0f);
        if (o[i] != s)
            wrong = i;
    }
    if (wrong >= 0)
    {
        printf("barrier_stencil: WRONG at %d\n", wrong);
        bad = 1;
    }
    else
        printf("barrier_stencil: ok\n");

    const int M = N - 100;
    CHECK(cudaMemset(d_out, 0, N * sizeof(float)));
    dim3 mgrid((M + 255) / 256), mblock(BATCH);
    primitive_mirror<<<mgrid, mblock>>>(d_in, d_out, M);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(o.data(), d_out, N * sizeof(float), cudaMemcpyDeviceToHost));
    wrong = -1;
    for (int i = 0; i < M && wrong < 0; i++)
    {
        int mi = (i / BATCH) * BATCH + BATCH - 1 - i % BATCH;
        float want = mi < M ? 2.0f * h[mi] : 0.0f;
        if (o[i] != want)
            wrong = i;
    }
    if (wrong >= 0)
    {
        printf("primitive_mirror: WRONG at %d\n", wrong);
        bad = 1;
    }
    else
        printf("primitive_mirror: ok\n");

    cudaFree(d_in);
    cudaFree(d_out);
    return bad;
}
