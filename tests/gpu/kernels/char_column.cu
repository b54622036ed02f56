// banklab: --block 32
/* char_column.cu (tests/gpu/predict.sh): rows of 128 bytes read down a column, one byte per
 * lane: 32 words apart, one bank, 32-way. Padding by one byte is not enough (4 lanes share a
 * bank); the model proposes the smallest that is: 4 bytes. */
__global__ void char_column(int *out)
{
    __shared__ unsigned char c[32][128];
    int lane = threadIdx.x & 31;
    for (int j = 0; j < 128; j += 4)
        c[lane][j] = (unsigned char)(lane + j);
    __syncthreads();
    out[lane] = c[lane][lane % 4];
}
