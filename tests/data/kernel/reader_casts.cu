// banklab: --block 32
/* reader_casts.cu: a float array written and read through pointer casts, the ways developers
 * spell them, and a float2 pointer made of it (tests/sh/reader_model.sh). One warp, 32 lanes.
 * By hand: bank = (byte / 4) % 32; a 4-byte access is one pass of 32 lanes, an 8-byte one two
 * passes of 16, a 16-byte one four passes of 8; a pass costs the most distinct 4-byte words
 * one bank serves; "wf" is the line's wavefronts.
 *   fill: s[i], i = lane + 32k, 32 trips of one word per lane: 1 each, 32.
 *   Every component of every vector read is used, so nvcc keeps each access as written.
 *   a: float4 index lane*4 = byte 64*lane: in a pass of 8 lanes, the even lanes start at
 *      bank 0, the odd at bank 16: 4 distinct words on banks 0-3 (and 16-19): 4 a pass, 16.
 *   b: float4 index lane ^ 1: the 8 lanes of a pass take 8 consecutive float4: 1 a pass, 4.
 *   c: float index lane*8 = byte 32*lane: banks 0, 8, 16, 24 twice in a pass: 2 a pass, 8.
 *   d: float index lane*4 + 4: consecutive float4 again: 4.
 *   e: float2 index lane*16 = byte 128*lane: all 16 lanes of a pass on banks 0-1: 16 a pass,
 *      32 (the 16-way line the reader once missed).
 *   f: through the local p: float2 index lane*16 + 2 = byte 128*lane + 16: banks 4-5, 32 (not
 *      e's neighbour: e and f side by side, nvcc would load both with one LDS.128).
 *   i: float4 through pointer arithmetic, *(float4 *)(s + 4 * lane + 8): consecutive: 4.
 *   j: *(s + lane * 2), stride 2 words: lanes l and l + 16 on one bank: 2.
 *   g: a float2 store at float2 index lane: 32 consecutive words a pass: 2.
 *   h: a float4 store at float index lane*4: 4. */
__global__ void reader_casts(float *out)
{
    __shared__ float s[2048];
    int lane = threadIdx.x & 31;
    for (int i = lane; i < 1024; i += 32)
        s[i] = (float)i;                                                // wf 32
    __syncthreads();
    float4 a = reinterpret_cast<float4 *>(s)[lane * 4];                 // wf 16
    float4 b = ((float4 *)s)[lane ^ 1];                                 // wf 4
    float4 c = *(float4 *)&s[lane * 8];                                 // wf 8
    float4 d = *reinterpret_cast<const float4 *>(&s[lane * 4 + 4]);     // wf 4
    float2 e = reinterpret_cast<float2 *>(s)[lane * 16];                // wf 32
    float2 *p = (float2 *)s;
    float2 f = p[lane * 16 + 2];                                        // wf 32
    float4 i4 = *(float4 *)(s + 4 * lane + 8);                          // wf 4
    float j = *(s + lane * 2);                                          // wf 2
    __syncthreads();
    reinterpret_cast<float2 *>(s)[lane] = make_float2(a.x, b.y);        // wf 2
    *(float4 *)&s[lane * 4] = c;                                        // wf 4
    out[lane] = a.x + a.y + a.z + a.w + b.x + b.y + b.z + b.w + d.x + d.y + d.z + d.w
              + e.x + e.y + f.x + f.y + i4.x + i4.y + i4.z + i4.w + j;
}
