// banklab: --grid 4 --block 256
/* dev_reduce.cu: the interleaved reduction with a strided index (Harris's second version):
 * index = 2 * s * tid. By hand, per warp of the first round (s = 1): lanes read words
 * 2*tid and 2*tid + 1: stride 2 words, a 2-way conflict (2 wavefronts) for each load and the
 * store; s = 2: stride 4, 4-way; s = 4: 8-way; s = 8: 16-way; s = 16 and above: the lanes
 * that pass the test (index < 256) are fewer, each on bank 0: as many as pass, at most 16. */
__global__ void dev_reduce(const float *in, float *out)
{
    __shared__ float sdata[256];
    unsigned tid = threadIdx.x;
    sdata[tid] = in[blockIdx.x * 256 + tid];
    __syncthreads();
    for (unsigned s = 1; s < 256; s *= 2) {
        unsigned index = 2 * s * tid;
        if (index < 256)
            sdata[index] += sdata[index + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}
