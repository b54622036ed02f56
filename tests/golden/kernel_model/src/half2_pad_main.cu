/* half2_pad_main.cu: half2_pad.cu's kernel launched from a main() (a program): a __half
 * tile's first column read by a warp (line 16: rows of 64 bytes put lanes x and x + 2 in one
 * bank, 16-way), and the tile read as one __half2 at a place the program reads from memory
 * (line 17). Padding each row by one half makes line 16 conflict free as the source reading
 * sees it, but leaves every odd row's __half2 on a 2-byte boundary: executed, line 17's load
 * is misaligned. The fix is a pad that keeps 4-byte rows: t[32][34]. The lines are
 * half2_pad.cu's. */
#include <cuda_fp16.h>

__global__ void half_column(const __half *in, const int *at, float *out)
{
    __shared__ __half t[32][32];
    int x = threadIdx.x, y = threadIdx.y;
    t[y][x] = in[y * 32 + x];
    __syncthreads();
    float a = __half2float(t[x][0]);
    __half2 w = *(__half2 *)&t[y][2 * (at[x] & 15)];
    out[y * 32 + x] = a + __half2float(w.x) + __half2float(w.y);
}

int main()
{
    __half *in;
    int *at;
    float *out;
    cudaMalloc(&in, 1024 * sizeof(__half));
    cudaMalloc(&at, 32 * sizeof(int));
    cudaMalloc(&out, 1024 * sizeof(float));
    cudaMemset(in, 0, 1024 * sizeof(__half));
    cudaMemset(at, 0, 32 * sizeof(int));
    half_column<<<1, dim3(32, 32)>>>(in, at, out);
    cudaDeviceSynchronize();
    cudaFree(in);
    cudaFree(at);
    cudaFree(out);
    return 0;
}
