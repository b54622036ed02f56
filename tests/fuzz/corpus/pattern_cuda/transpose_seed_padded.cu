// banklab: --grid 32x32 --block 32x32 --arg n=1024 --buffer-size 4M
/* transpose_seed_padded.cu: the same transpose with one float of padding per row,
 * tile[32][33]: the column read tile[threadIdx.x][threadIdx.y] now has lanes 33 words
 * apart, so every lane has its own bank: 1 wavefront per load, no excess. The row store is
 * still conflict free. Compare with transpose_seed.cu, line by line. */
__global__ void transpose(float *in, float *out, int n)
{
    __shared__ float tile[32][33];

    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;

    tile[threadIdx.y][threadIdx.x] = in[y * n + x];
    __syncthreads();

    out[x * n + y] = tile[threadIdx.x][threadIdx.y];
}
