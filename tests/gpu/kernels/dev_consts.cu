// banklab: --block 32x8
/* dev_consts.cu: sizes from #define, constexpr and a typedef, the way a header would give
 * them. By hand, block 32x8, per warp (ty fixed, tx = lane):
 *   tile[ty + k][tx] = ...: a row: 1 wavefront per store.
 *   tile[tx][ty]: rows of TILE + PAD = 33 words: all banks distinct: 1.
 *   dbl[tx * 2] (double, 8 bytes, stride 16 bytes): in a pass of 16 lanes, lane k on word
 *   4k, bank 4k % 32: k and k + 8 share a bank: 2 per pass, 4 wavefronts. */
#define TILE 32
constexpr int PAD = 1;
typedef float real;

__global__ void dev_consts(real *out)
{
    __shared__ real tile[TILE][TILE + PAD];
    __shared__ double dbl[2 * TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    for (int k = 0; k < TILE; k += 8)
        tile[ty + k][tx] = tx + k;
    if (ty == 0) {
        dbl[tx] = tx;
        dbl[tx + TILE] = -tx;
    }
    __syncthreads();
    real v = tile[tx][ty];
    double w = dbl[tx * 2];
    out[ty * TILE + tx] = v + (real)w;
}
