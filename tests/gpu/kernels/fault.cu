// banklab: --block 32 --buffer-size 4K
/* fault.cu: writes far past its 4 KB buffer: an illegal address, which banklab kernel must
 * report in one line (exit 1) without taking anything else down. */
__global__ void fault(int *p)
{
    __shared__ int s[32];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    p[threadIdx.x * (1 << 26)] = s[31 - threadIdx.x];
}
