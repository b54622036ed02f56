// banklab: --grid 4 --block 256 --smem 12288
/* carve.cu: one dynamic shared-memory allocation carved into three arrays (floats, ints,
 * float2s), as real kernels do; the launch gives the bytes (<<<4, 256, 12288>>>). */
#include <cstdio>
#include <cuda_runtime.h>

extern __shared__ unsigned char smem[];

__global__ void carve(float *out)
{
    float *a = (float *)smem;             /* 1024 floats */
    int *b = (int *)(smem + 4096);        /* 1024 ints */
    float2 *c = (float2 *)(smem + 8192);  /* 512 float2 */
    int t = threadIdx.x;
    a[t] = (float)t;
    b[t * 4] = t;
    c[t] = make_float2(t, t);
    __syncthreads();
    int lane = t & 31;
    float x = a[lane * 32];
    int y = b[t * 4];
    float2 z = c[(t * 2) & 511];
    out[blockIdx.x * blockDim.x + t] = x + y + z.x + z.y;
}

int main()
{
    float *out;
    cudaMalloc(&out, 4 * 256 * sizeof(float));
    carve<<<4, 256, 12288>>>(out);
    cudaError_t e = cudaDeviceSynchronize();
    printf("carve: %s\n", cudaGetErrorString(e));
    cudaFree(out);
    return e != cudaSuccess;
}
