// banklab: --grid 4 --block 256 --arg bins=32 --fill int
/* atomics.cu: a histogram in shared memory with atomicAdd (ATOMS). With --fill int the
 * input is 0, 1, 2, ...: lane l adds to bin l % bins. 32 bins: every lane its own bank.
 * Fewer bins make lanes collide on one word, which the atomic unit serialises; more bins
 * than 32 with a stride put lanes on one bank. */
__global__ void histogram(const int *in, int *out, int bins)
{
    __shared__ int h[1024];
    for (int i = threadIdx.x; i < 1024; i += blockDim.x)
        h[i] = 0;
    __syncthreads();
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    atomicAdd(&h[v % bins], 1);
    __syncthreads();
    for (int i = threadIdx.x; i < bins; i += blockDim.x)
        atomicAdd(&out[i], h[i]);
}
