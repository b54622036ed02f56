// banklab: --block 64
/* reader_helper.cu: __device__ helpers called with a shared pointer; their accesses are
 * charged to the helper's lines, once per call with that call's arguments, as nvcc's line
 * table charges an inlined helper (tests/sh/reader_model.sh). Two warps, 4-byte accesses,
 * one pass of 32 lanes costing the most distinct words one bank serves; "wf" is the line's
 * wavefronts, summed over the warps and the calls.
 *   fill: tile[i], i = threadIdx.x + 64k, 16 trips of 2 warps, consecutive words: 32.
 *   sums[threadIdx.x] = 0: 2 warps x 1: 2.
 *   pick's row[k * 32], called twice:
 *     pick(tile, lane): tile[lane * 32], all 32 lanes on bank 0, 32 words: 32 a warp, 64;
 *     pick(tile + warp, lane % 2): tile[warp + (lane % 2) * 32]: two words, both on bank
 *     `warp`: 2 a warp, 4. The line: 68 wavefronts in 4 instructions.
 *   add_up's buf[tid] += buf[tid + 32], only warp 0 (tid < 32): two loads and a store of
 *     consecutive words: 3.
 *   sums[lane]: 2 warps x 1: 2. */
__device__ float pick(const float *row, int k)
{
    return row[k * 32];                                                 // wf 68
}

__device__ void add_up(volatile float *buf, int tid)
{
    buf[tid] += buf[tid + 32];                                          // wf 3
}

__global__ void reader_helper(float *out)
{
    __shared__ float tile[32 * 32];
    __shared__ float sums[64];
    int lane = threadIdx.x & 31, warp = threadIdx.x / 32;
    for (int i = threadIdx.x; i < 32 * 32; i += 64)
        tile[i] = i;                                                    // wf 32
    sums[threadIdx.x] = 0;                                              // wf 2
    __syncthreads();
    float a = pick(tile, lane);
    float b = pick(tile + warp, lane % 2);
    if (threadIdx.x < 32)
        add_up(sums, threadIdx.x);
    out[threadIdx.x] = a + b + sums[lane];                              // wf 2
}
