// banklab: --grid 1 --block 32x32 --buffer-size 64K
/* half2_pad.cu: a __half tile's first column read by a warp (line 16: rows of 64 bytes put
 * lanes x and x + 2 in one bank, 16-way), and the tile read as one __half2 at a place the file
 * reads from memory (line 17: the reading cannot predict it). Padding each row by one half
 * makes line 16 conflict free as the reading sees it, but makes the rows 66 bytes, which
 * leaves every odd row's __half2 on a 2-byte boundary: executed, line 17's load is misaligned.
 * The fix is a pad that keeps 4-byte rows: t[32][34]. */
#include <cuda_fp16.h>

__global__ void half_column(const __half *in, const int *at, float *out)
{
    __shared__ __half t[32][32];
    int x = threadIdx.x, y = threadIdx.y;
    t[y][x] = in[y * 32 + x];
    __syncthreads();
    float a = __half2float(t[x][0]);
    __half2 w = *(__half2 *)&t[y][2 * (at[x] & 15)];
    out[y * 32 + x] = a + __half2float(w.x) + __half2float(w.y);
}
