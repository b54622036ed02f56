// banklab: --grid 4x4 --block 32x8 --arg n=128 --buffer-size 1M
/* transpose_rows.cu (tests/gpu/predict.sh): the classic transpose with 32 x 8 threads and a
 * loop of 4 rows each: the column read in the second loop is a 32-way conflict; the model
 * proposes tile[32][33]. */
#define TILE 32
#define ROWS 8
__global__ void transpose_rows(const float *in, float *out, int n)
{
    __shared__ float tile[TILE][TILE];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
    __syncthreads();
    int ox = blockIdx.y * TILE + threadIdx.x;
    int oy = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        out[(oy + j) * n + ox] = tile[threadIdx.x][threadIdx.y + j];
}
