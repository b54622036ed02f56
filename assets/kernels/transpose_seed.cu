// banklab: --grid 32x32 --block 32x32 --arg n=1024 --buffer-size 4M
/* transpose_seed.cu: the matrix transpose of 《Bank Conflict：共享内存的Bank冲突原理与避免策略》
 * (section 4.6) as written there: 32 x 32 threads per block, one element each, tile[32][32].
 * The store tile[threadIdx.y][threadIdx.x] walks a row (conflict free); the load
 * tile[threadIdx.x][threadIdx.y] walks a column: lanes 32 words apart, all in one bank, a
 * 32-way conflict. transpose_seed_padded.cu is the fix. banklab kernel transpose_seed.cu */
__global__ void transpose(float *in, float *out, int n)
{
    __shared__ float tile[32][32];

    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;

    tile[threadIdx.y][threadIdx.x] = in[y * n + x];
    __syncthreads();

    out[x * n + y] = tile[threadIdx.x][threadIdx.y];
}
