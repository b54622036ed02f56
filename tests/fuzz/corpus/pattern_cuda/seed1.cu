// banklab: --grid 8x8 --block 16x16 --arg w=512
#define T 16
__global__ void tr(const float *a, float *b, int w)
{
    __shared__ float t[T][T + 1];
    int c = blockIdx.x * T + threadIdx.x, r = blockIdx.y * T + threadIdx.y;
    t[threadIdx.y][threadIdx.x] = a[r * w + c];
    __syncthreads();
    b[c * w + r] = t[threadIdx.x][threadIdx.y];
}
