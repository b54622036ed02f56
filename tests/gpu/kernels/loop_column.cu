// banklab: --grid 2 --block 128 --arg k=4
/* loop_column.cu (tests/gpu/predict.sh): each warp sums k columns of a 32 x 64 float tile,
 * rows 64 words apart: a 32-way conflict per read, k times (a loop with a count from --arg). */
__global__ void loop_column(float *out, int k)
{
    __shared__ float a[32][64];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int r = warp; r < 32; r += 4)
        a[r][lane] = lane;
    __syncthreads();
    float acc = 0;
    for (int j = 0; j < k; j++)
        acc += a[lane][warp * 8 + j];
    out[blockIdx.x * 128 + threadIdx.x] = acc;
}
