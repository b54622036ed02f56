/* cg_probe.cu (tests/gpu/cg_probe.sh): does any Nsight Compute counter count the shared side
 * of cp.async.cg (LDGSTS.BYPASS) on this GPU? docs/runs/h200-2026-12-01-matrix.txt (one warp,
 * 100 instructions in a loop, each followed by commit and wait) read 0 on every shared
 * wavefront metric, while docs/runs/h200-2026-12-01-kernel.txt (assets/kernels/cp_async.cu:
 * 256 threads, one instruction each) read 256 wavefronts, ideal 32, on the cp.async.cg line.
 * The kernels below tell the two apart: .cg and .ca, 16 bytes, one warp or eight, one
 * instruction or REPS in a loop, lane l writing vector l * STRIDE. */
#include <cstdio>
#include <cuda_runtime.h>

template <int CG, int STRIDE, int REPS>
__global__ void cpa(const float4 *in, float *out)
{
    __shared__ __align__(16) float4 s[1024];
    int t = threadIdx.x;
    unsigned dst = (unsigned)__cvta_generic_to_shared(&s[(t * STRIDE) % 1024]);
    for (int r = 0; r < REPS; r++) {
        if (CG)
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(in + t + r) : "memory");
        else
            asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(in + t + r) : "memory");
        asm volatile("cp.async.commit_group;" ::: "memory");
        asm volatile("cp.async.wait_group 0;" ::: "memory");
    }
    __syncthreads();
    float4 v = s[(t * STRIDE) % 1024];
    out[t] = v.x + v.y + v.z + v.w;
}

#define RUN(CG, STRIDE, REPS, THREADS) do { \
    cpa<CG, STRIDE, REPS><<<1, THREADS>>>(in, out); \
    cudaError_t e = cudaDeviceSynchronize(); \
    printf("cpa<%s, stride %d, reps %d> x %d threads: %s\n", CG ? "cg" : "ca", STRIDE, REPS, \
           THREADS, cudaGetErrorString(e)); \
    if (e != cudaSuccess) return 1; } while (0)

int main()
{
    float4 *in;
    float *out;
    cudaMalloc(&in, 4096 * sizeof(float4));
    cudaMalloc(&out, 4096 * sizeof(float));
    cudaMemset(in, 0, 4096 * sizeof(float4));
    RUN(1, 1, 1, 32);
    RUN(1, 2, 1, 32);
    RUN(1, 2, 1, 256);
    RUN(1, 2, 100, 32);
    RUN(0, 1, 1, 32);
    RUN(0, 2, 1, 32);
    RUN(0, 2, 1, 256);
    RUN(0, 2, 100, 32);
    return 0;
}
