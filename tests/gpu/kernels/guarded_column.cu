// banklab: --grid 3 --block 64
/* guarded_column.cu (tests/gpu/predict.sh): only lanes 0-15 of warp 0 pass the guard and
 * read down a column of int m[16][16]: 16 words apart, two banks: 8-way; warp 1 skips it. */
__global__ void guarded_column(int *out)
{
    __shared__ int m[16][16];
    for (int i = threadIdx.x; i < 256; i += blockDim.x)
        m[i / 16][i % 16] = i;
    __syncthreads();
    if (threadIdx.x < 16)
        out[blockIdx.x * 64 + threadIdx.x] = m[threadIdx.x][blockIdx.x % 16];
}
