// banklab: --grid 1 --block 32x32 --buffer-size 64K
/* float4_pad.cu: half2_pad.cu with the tile also read as a float4 (line 15, at a place read
 * from memory, which the reading cannot predict). Every pad the reading accepts for line 14
 * (33, 34, 38 halves a row) leaves odd rows off a 16-byte boundary: executed, line 15's load
 * is misaligned, so no fix is proposed and each run's failure is named. */
#include <cuda_fp16.h>

__global__ void half_column(const __half *in, const int *at, float *out)
{
    __shared__ __half t[32][32];
    int x = threadIdx.x, y = threadIdx.y;
    t[y][x] = in[y * 32 + x];
    __syncthreads();
    float a = __half2float(t[x][0]);
    float4 w = *(float4 *)&t[y][8 * (at[x] & 3)];
    out[y * 32 + x] = a + w.x + w.w;
}
