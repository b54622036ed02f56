// banklab: --block 32
/* reader_width.cu: a wider or a narrower element as the fix (tests/sh/reader_model.sh). One
 * warp; bank = word % 32; "wf" is the line's wavefronts.
 *   s[4 * lane + j], j = 0..3 in a loop nvcc must not unroll: each trip word 4 * lane, lanes
 *   0, 8, 16, 24 on one bank: 4-way, 4 trips: 16. As one float4, reinterpret_cast<const
 *   float4 *>(s)[lane]: 512 bytes in 4 passes of 8 lanes, each 128 bytes on 32 banks: 4.
 *   Proposed.
 *   u[2 * lane + j], j = 0..1: each trip lanes 0 and 16 on one bank: 2-way, 2 trips: 4. As
 *   one float2: 2 passes of 16 lanes, 128 bytes each: 2. Proposed.
 *   t[2 * lane] * t[2 * lane + 1] on one line: nvcc merges them into one LDS.64 (2 passes of
 *   16 lanes, 128 bytes each): 2, no conflict, nothing to fix.
 *   r read as float4 at index lane * 4 (byte 64 * lane: a pass of 8 lanes, lanes 0, 2, 4, 6
 *   on banks 0-3, 1, 3, 5, 7 on banks 16-19: 4-way, 4 passes: 16). Read as 4 floats,
 *   r[(lane * 4) * 4 + m]: word 16 * lane + m, 16 lanes on a bank: 16 each, 64: no better;
 *   a pointer is made of r: no padding, no swizzle: no fix found, the widths named.
 *   The stores s[lane], u[lane], t[lane], rp[lane]: 1 each. */
__global__ void reader_width(float *out)
{
    __shared__ float s[1024];
    __shared__ float u[1024];
    __shared__ float t[1024];
    __shared__ float r[1024];
    float *rp = r;
    int lane = threadIdx.x & 31;
    s[lane] = lane;                                                     // wf 1
    u[lane] = lane;                                                     // wf 1
    t[lane] = lane;                                                     // wf 1
    rp[lane] = lane;                                                    // wf 1
    __syncthreads();
    float x = 0;
#pragma unroll 1
    for (int j = 0; j < 4; j++)
        x += s[4 * lane + j];                                           // wf 16
#pragma unroll 1
    for (int j = 0; j < 2; j++)
        x += u[2 * lane + j];                                           // wf 4
    x += t[2 * lane] * t[2 * lane + 1];                                 // wf 2
    float4 y = reinterpret_cast<float4 *>(r)[lane * 4];                 // wf 16
    out[lane] = x + y.x + y.y + y.z + y.w;
}
