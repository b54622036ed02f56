// banklab: --block 32
/* reader_fix1d.cu: fixes for one-dimensional arrays (tests/sh/reader_model.sh). One warp;
 * bank = word % 32; "wf" is the line's wavefronts.
 *   a[lane * 32]: 32 lanes on bank 0: 32. The swizzle a[i ^ ((i / 32) % 32)] puts lane l on
 *   bank l: proposed.
 *   b (1040 floats, not whole 128-byte rows: no swizzle) b[lane * 32]: 32. Padding the index,
 *   b[i + i / 32], makes it word 33 * lane: proposed, the array 1073 floats.
 *   c read as float4 at index lane * 4 (byte 64 * lane: 4 a pass of 8 lanes, 16) and as floats
 *   c[(lane / 4) * 32 + lane % 4] (8 rows, columns 0-3: banks 0-3, 8 lanes each: 8). The
 *   swizzle in whole 16-byte chunks, c[i ^ ((i / 32) % 8 * 4)], moves chunk k of row r to
 *   k ^ (r % 8): both lines conflict free; proposed for both.
 *   d[lane * 32] (32) beside d[lane * 33] (1): the swizzle would make the second 32-way,
 *   the index padding 2-way (word 34 * lane): no fix found, both named.
 *   The stores a[lane], b[lane], c[lane], d[lane]: 1 each. */
__global__ void reader_fix1d(float *out)
{
    __shared__ float a[1024];
    __shared__ float b[32 * 32 + 16];
    __shared__ float c[1024];
    __shared__ float d[1024];
    int lane = threadIdx.x & 31;
    a[lane] = lane;                                                     // wf 1
    b[lane] = lane;                                                     // wf 1
    c[lane] = lane;                                                     // wf 1
    d[lane] = lane;                                                     // wf 1
    __syncthreads();
    float x = a[lane * 32];                                             // wf 32
    x += b[lane * 32];                                                  // wf 32
    float4 y = reinterpret_cast<float4 *>(c)[lane * 4];                 // wf 16
    x += c[(lane / 4) * 32 + lane % 4];                                 // wf 8
    x += d[lane * 32];                                                  // wf 32
    x += d[lane * 33];                                                  // wf 1
    out[lane] = x + y.x + y.y + y.z + y.w;
}
