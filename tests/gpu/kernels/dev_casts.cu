// banklab: --block 32
/* dev_casts.cu: vectorised shared loads written the ways developers write them, each of a
 * float array through a cast. By hand (bank = (byte / 4) % 32; a 16-byte load is served in
 * four passes of 8 lanes, an 8-byte load in two passes of 16; a pass costs the most distinct
 * words one bank must give):
 *   a: float4 at float index lane*4*4 = byte 64*lane: in a pass of 8 lanes, lanes k and k+2
 *      start at banks 0 and 16 alternately, so 4 distinct words per bank: 4 per pass, 16.
 *   b: float4 at float4 index lane*2+1 = byte 32*lane+16: banks (8k+4)%32: k and k+4 share:
 *      2 per pass, 8.
 *   c: float4 at float index lane*4+128 = consecutive float4: 1 per pass, 4.
 *   d: float4 at float index lane*16+4 = byte 64*lane+16: like a, 16.
 *   e: float2 at float2 index lane*16 = byte 128*lane: all 16 lanes of a pass on banks 0-1,
 *      16 distinct words: 16 per pass, 32.
 *   the stores fill s: float index i = threadIdx.x + 32*r, one word per lane: 1 each. */
__global__ void dev_casts(float *out)
{
    __shared__ float s[4096];
    int lane = threadIdx.x & 31;
    for (int i = threadIdx.x; i < 4096; i += blockDim.x)
        s[i] = (float)i;
    __syncthreads();
    float4 a = reinterpret_cast<float4 *>(s)[lane * 4];
    float4 b = ((float4 *)s)[lane * 2 + 1];
    float4 c = *(float4 *)&s[lane * 4 + 128];
    float4 d = *reinterpret_cast<const float4 *>(&s[lane * 16 + 4]);
    float2 *p = (float2 *)s;
    float2 e = p[lane * 16];
    out[threadIdx.x] = a.x + a.y + a.z + a.w + b.x + b.y + b.z + b.w + c.x + c.y + c.z + c.w +
                       d.x + d.y + d.z + d.w + e.x + e.y;
}
