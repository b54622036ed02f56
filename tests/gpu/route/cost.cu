/* cost.cu: the sanitizer route's cost. argv[1] "launches": 1000 launches of a one-block kernel
 * with one LDS and one STS (what each measured launch costs: the table's reset, copy back and
 * mapping); "warps": one launch of 32768 blocks of 1024 threads, one LDS and one STS each
 * (a million warps: what each patched warp instruction costs). Timed by sanroute.sh plain and
 * under `banklab run --route sanitizer --launch-count 1000`. */
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void touch(float *out)
{
    __shared__ float s[1024];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[(threadIdx.x * 33) & 1023];
}

int main(int argc, char **argv)
{
    int many = argc > 1 && !strcmp(argv[1], "launches");
    int blocks = many ? 1 : 32768, launches = many ? 1000 : 1;
    float *out;
    cudaMalloc(&out, (size_t)blocks * 1024 * sizeof(float));
    for (int i = 0; i < launches; i++)
        touch<<<blocks, 1024>>>(out);
    cudaError_t e = cudaDeviceSynchronize();
    printf("cost %s: %d launches of %d blocks: %s\n", many ? "launches" : "warps", launches,
           blocks, cudaGetErrorString(e));
    cudaFree(out);
    return e != cudaSuccess;
}
