// banklab: --block 256
/* dev_helpers.cu: a block reduction with its last warp unrolled in a __device__ helper, and
 * a helper that reads a column of a tile through a pointer parameter.
 * By hand, per warp: sdata[tid] and sdata[tid + s] are consecutive words: 1 wavefront each.
 * warpReduce's sdata[tid] += sdata[tid + k] (k = 32..1): consecutive words, 1 each (only
 * warp 0 runs it). column(tile, lane, 0) reads tile[lane * 32]: all 32 lanes on bank 0,
 * 32 distinct words: 32-way (32 wavefronts). */
__device__ void warpReduce(volatile float *sdata, int tid)
{
    sdata[tid] += sdata[tid + 32];
    sdata[tid] += sdata[tid + 16];
    sdata[tid] += sdata[tid + 8];
    sdata[tid] += sdata[tid + 4];
    sdata[tid] += sdata[tid + 2];
    sdata[tid] += sdata[tid + 1];
}

__device__ float column(const float *t, int row, int col)
{
    return t[row * 32 + col];
}

__global__ void dev_helpers(const float *in, float *out)
{
    __shared__ float sdata[256];
    __shared__ float tile[32 * 32];
    int tid = threadIdx.x;
    sdata[tid] = in[blockIdx.x * 256 + tid];
    for (int i = tid; i < 32 * 32; i += 256)
        tile[i] = in[i];
    __syncthreads();
    for (int s = 128; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32)
        warpReduce(sdata, tid);
    float c = column(tile, tid & 31, 0);
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
    out[1024 + blockIdx.x * 256 + tid] = c;
}
