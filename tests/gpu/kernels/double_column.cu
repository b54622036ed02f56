// banklab: --grid 2 --block 32x32
/* double_column.cu (tests/gpu/predict.sh): a 32 x 32 tile of doubles read down a column:
 * each half-warp pass puts 16 lanes 64 words apart, all in bank 0 and 1: 16-way. */
__global__ void double_column(double *out)
{
    __shared__ double d[32][32];
    d[threadIdx.y][threadIdx.x] = threadIdx.x + threadIdx.y;
    __syncthreads();
    out[blockIdx.x * 1024 + threadIdx.y * 32 + threadIdx.x] = d[threadIdx.x][threadIdx.y];
}
