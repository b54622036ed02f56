// banklab: --block 256 --name reduce6<256>
/* reader_reduce.cu: the unrolled block reduction as CUDA samples write it: the block size a
 * template parameter given by --name, the last warp in a template __device__ helper called
 * as warpReduce<blockSize>(sdata, tid) (tests/sh/reader_model.sh). One block of 256 threads,
 * 8 warps; 4-byte accesses, one pass of 32 lanes costing the most distinct words one bank
 * serves; "wf" is the line's wavefronts.
 *   sdata[tid] = ...: 8 warps, consecutive words: 8.
 *   tid < 128: sdata[tid] += sdata[tid + 128]: two loads and a store of consecutive words for
 *   warps 0-3: 4 x 3 = 12. tid < 64: warps 0-1: 6. (blockSize >= 512 is false: none.)
 *   warpReduce, warp 0 only (tid < 32): each line two loads and a store, consecutive: 3.
 *   sdata[0] for thread 0: one warp, one lane: 1. */
template <unsigned int blockSize>
__device__ void warpReduce(volatile float *sdata, unsigned int tid)
{
    if (blockSize >= 64) sdata[tid] += sdata[tid + 32];                // wf 3
    if (blockSize >= 32) sdata[tid] += sdata[tid + 16];                // wf 3
    if (blockSize >= 16) sdata[tid] += sdata[tid + 8];                 // wf 3
    if (blockSize >= 8) sdata[tid] += sdata[tid + 4];                  // wf 3
}

template <unsigned int blockSize>
__global__ void reduce6(const float *g_idata, float *g_odata)
{
    __shared__ float sdata[blockSize];
    unsigned int tid = threadIdx.x;
    sdata[tid] = g_idata[blockIdx.x * blockSize + tid];                 // wf 8
    __syncthreads();
    if (blockSize >= 512) { if (tid < 256) { sdata[tid] += sdata[tid + 256]; } __syncthreads(); }
    if (blockSize >= 256) { if (tid < 128) sdata[tid] += sdata[tid + 128]; __syncthreads(); } // wf 12
    if (blockSize >= 128) { if (tid < 64) sdata[tid] += sdata[tid + 64]; __syncthreads(); } // wf 6
    if (tid < 32)
        warpReduce<blockSize>(sdata, tid);
    if (tid == 0)
        g_odata[blockIdx.x] = sdata[0];                                 // wf 1
}
