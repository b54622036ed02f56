// banklab: --grid 4 --block 256 --arg n=4096 --fill int
/* dev_histogram.cu: a shared-memory histogram with atomicAdd. Which bank a lane hits depends
 * on the data (the bin of in[i]), which no reading of the source can know: the model must
 * say so, not stay silent. The clearing and the final read are one word per lane: 1 each.
 * With --fill int, in[i] = i: bins i % 256 are consecutive per warp: 1 wavefront per atomic. */
__global__ void dev_histogram(const int *in, int *out, int n)
{
    __shared__ int hist[256];
    hist[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&hist[in[i] & 255], 1);
    __syncthreads();
    atomicAdd(&out[threadIdx.x], hist[threadIdx.x]);
}
