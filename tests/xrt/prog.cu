// prog.cu: a whole CUDA program for tests/sh/xrt.sh (banklab's CUDA runtime, no GPU): two
// kernels whose launches main computes, a cudaMemcpy round trip through a kernel (its results
// checked), a dynamic-shared launch past 48 KB after cudaFuncSetAttribute, the errors a real
// runtime returns, the device's properties. It prints what it saw; XRT_TEST_CALL=graph or
// =symbol first calls an entry point the runtime does not support, =oob first launches a
// kernel that reads past its allocation.
#include <cstdio>
#include <cstdlib>
#include <cstring>

__constant__ float coef[4];

__global__ void scale(float *a, int n, float f)
{
    __shared__ float s[32][33];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x % 32][threadIdx.x / 32] = i < n ? a[i] : 0.0f;
    __syncthreads();
    if (i < n)
        a[i] = s[threadIdx.x % 32][threadIdx.x / 32] * f;
}

template <int STRIDE>
__global__ void spread(int *out)
{
    extern __shared__ int dyn[];
    dyn[threadIdx.x * STRIDE] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = dyn[threadIdx.x * STRIDE];
}

#define SAY(call) printf("%s: %s\n", #call, cudaGetErrorName(call))

int main(int argc, char **argv)
{
    const char *call = getenv("XRT_TEST_CALL");
    if (call && !strcmp(call, "graph")) {
        cudaGraph_t g;
        SAY(cudaGraphCreate(&g, 0));
    }
    if (call && !strcmp(call, "symbol")) {
        float c[4] = {1, 2, 3, 4};
        SAY(cudaMemcpyToSymbol(coef, c, sizeof c));
    }
    if (call && !strcmp(call, "oob")) {
        float *small = nullptr;
        SAY(cudaMalloc(&small, 16 * sizeof(float)));
        scale<<<1, 128>>>(small, 128, 1.0f);
        SAY(cudaDeviceSynchronize());
        SAY(cudaMalloc(&small, 16));
        return 1;
    }
    int n = 1;
    for (int i = 0; i < 10; i++)
        n *= 2;
    n += 37;                                 // 1061 elements: main computes the grid
    float *h = new float[n], *back = new float[n], *d = nullptr;
    for (int i = 0; i < n; i++)
        h[i] = (float)i;
    SAY(cudaMalloc(&d, n * sizeof(float)));
    SAY(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
    int threads = 64 * (argc > 0 ? 2 : 1);   // 128
    int blocks = (n + threads - 1) / threads; // 9
    scale<<<blocks, threads>>>(d, n, 2.0f);
    SAY(cudaGetLastError());
    SAY(cudaMemcpy(back, d, n * sizeof(float), cudaMemcpyDeviceToHost));
    int twice = 1;
    for (int i = 0; i < n; i++)
        twice &= back[i] == 2 * h[i];
    printf("round trip: %s\n", twice ? "every element doubled" : "wrong");

    int *o = nullptr;
    SAY(cudaMalloc(&o, 256 * sizeof(int)));
    size_t big = 64 * 1024;
    spread<2><<<1, 256, big>>>(o);
    SAY(cudaGetLastError());                 // past 48 KB without the attribute
    SAY(cudaFuncSetAttribute(spread<2>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)big));
    spread<2><<<dim3(3, 2), 256, big>>>(o);
    SAY(cudaGetLastError());
    int ho[256], right = 1;
    SAY(cudaMemcpy(ho, o, sizeof ho, cudaMemcpyDeviceToHost));
    for (int t = 0; t < 256; t++)
        right &= ho[t] == t;
    printf("spread: %s\n", right ? "right" : "wrong");
    SAY(cudaFuncSetAttribute(spread<2>, cudaFuncAttributeMaxDynamicSharedMemorySize, 300 * 1024));
    scale<<<1, 2048>>>(d, n, 1.0f);           // more threads than a block may have
    SAY(cudaGetLastError());
    SAY(cudaGetLastError());                 // read once: cleared
    SAY(cudaMemcpy(back, h, 16, cudaMemcpyHostToDevice)); // a host pointer as the device side
    SAY(cudaMemset(o, 0, 256 * sizeof(int)));
    SAY(cudaFree(o));
    SAY(cudaFree(o));                        // twice

    cudaDeviceProp p;
    SAY(cudaGetDeviceProperties(&p, 0));
    printf("sm_%d%d %d SMs, warp %d, %zu shared per block, %zu opt-in, %zu per SM, %d threads\n",
           p.major, p.minor, p.multiProcessorCount, p.warpSize, p.sharedMemPerBlock,
           p.sharedMemPerBlockOptin, p.sharedMemPerMultiprocessor, p.maxThreadsPerBlock);
    int v = 0, count = 0;
    SAY(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
    SAY(cudaGetDeviceCount(&count));
    SAY(cudaSetDevice(1));
    printf("opt-in %d, %d device\n", v, count);
    cudaEvent_t e0, e1;
    float ms = -1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    cudaEventRecord(e0);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    SAY(cudaEventElapsedTime(&ms, e0, e1));
    printf("elapsed %s\n", ms >= 0 ? "measured" : "missing");
    printf("%s\n", cudaGetErrorString(cudaErrorInvalidConfiguration));
    SAY(cudaDeviceSynchronize());
    return 0;
}
