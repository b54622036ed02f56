// banklab: --block 32
/* printf.cu: the kernel's own output must reach the terminal and not spoil the table. */
__global__ void hello(float *out)
{
    __shared__ float s[64];
    s[threadIdx.x * 2] = threadIdx.x;
    __syncthreads();
    if (threadIdx.x == 0)
        printf("hello from the kernel\n");
    out[threadIdx.x] = s[threadIdx.x * 2];
}
