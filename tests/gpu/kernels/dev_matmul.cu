// banklab: --grid 4x4 --block 16x16 --arg n=64
/* dev_matmul.cu: the tiled matrix multiply of the CUDA programming guide, TILE = 16, and a
 * variant that reads B's tile transposed. By hand, per warp (block 16x16: a warp is two rows
 * ty, ty+1 of 16 lanes):
 *   As[ty][tx] = ..., Bs[ty][tx] = ...: 32 consecutive words: 1 wavefront each.
 *   As[ty][k]: two distinct words (one per row), on different banks: a broadcast, 1.
 *   Bs[k][tx]: 16 consecutive words read by both halves: 1.
 *   Bt[tx][k] (the transposed read): rows 16 words apart, lanes tx and tx+2 on one bank,
 *   the two halves read the same words: 8 distinct words on each of 2 banks: 8-way. */
#define TILE 16

__global__ void dev_matmul(const float *A, const float *B, float *C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    __shared__ float Bt[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0, acc2 = 0;
    for (int m = 0; m < n / TILE; m++) {
        As[ty][tx] = A[row * n + m * TILE + tx];
        Bs[ty][tx] = B[(m * TILE + ty) * n + col];
        Bt[ty][tx] = B[(m * TILE + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; k++) {
            acc += As[ty][k] * Bs[k][tx];
            acc2 += Bt[tx][k];
        }
        __syncthreads();
    }
    C[row * n + col] = acc + acc2;
}
