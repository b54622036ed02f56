// banklab: --block 32 --time-limit 3
/* hang.cu: never ends (the flag it waits for is never set): the time limit must stop it. */
__global__ void hang(volatile int *flag)
{
    __shared__ int s[32];
    s[threadIdx.x] = 0;
    while (flag[1] != 12345)
        s[threadIdx.x] += 1;
}
