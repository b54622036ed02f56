// banklab: --block 32
/* ldmatrix.cu: ldmatrix.x4 loads four 8 x 8 matrices of 16-bit values; lane l gives the
 * address of one 16-byte row. The rows are 128 bytes apart, so without a swizzle the 8 rows
 * of a matrix start in the same bank (8 wavefronts per matrix); XOR-ing the 16-byte chunk
 * with the row (ldm<1>) gives 1 wavefront per matrix. Two instances, launched by main. */
#include <cstdio>
#include <cuda_runtime.h>

template <int SWIZZLE>
__global__ void ldm(float *out)
{
    __shared__ __align__(128) unsigned short tile[32 * 64];
    for (int i = threadIdx.x; i < 32 * 64; i += blockDim.x)
        tile[i] = (unsigned short)i;
    __syncthreads();
    int lane = threadIdx.x & 31;
    int chunk = SWIZZLE ? (lane & 7) : 0;
    unsigned addr = (unsigned)__cvta_generic_to_shared(&tile[lane * 64 + chunk * 8]);
    unsigned r0, r1, r2, r3;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
    out[threadIdx.x] = (float)(r0 + r1 + r2 + r3);
}

int main()
{
    float *out;
    cudaMalloc(&out, 32 * sizeof(float));
    ldm<0><<<1, 32>>>(out);
    ldm<1><<<1, 32>>>(out);
    cudaError_t e = cudaDeviceSynchronize();
    printf("ldmatrix: %s\n", cudaGetErrorString(e));
    cudaFree(out);
    return e != cudaSuccess;
}
