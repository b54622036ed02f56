// banklab: --block 32
/* vectors.cu: 8- and 16-byte accesses (float2, float4). A warp's float2 access is served in
 * two passes of 16 lanes (2 wavefronts without a conflict), a float4 access in four passes
 * of 8 lanes (4 wavefronts): more wavefronts, but no conflict. A stride of two vectors
 * doubles them (a 2-way conflict inside each pass). When pairs of lanes read the same
 * float2, the two passes fuse into one: fewer wavefronts than the width needs. */
__global__ void vectors(float *out)
{
    __shared__ float4 s4[128];
    float *s = (float *)s4;
    float2 *s2 = (float2 *)s4;
    for (int i = threadIdx.x; i < 128 * 4; i += blockDim.x)
        s[i] = (float)i;
    __syncthreads();
    int lane = threadIdx.x & 31;
    float2 a = s2[lane];          /* float2, consecutive: 2 wavefronts */
    float2 b = s2[lane * 2];      /* float2, stride 2: 4 wavefronts (2-way) */
    float4 c = s4[lane];          /* float4, consecutive: 4 wavefronts */
    float4 d = s4[lane * 2];      /* float4, stride 2: 8 wavefronts (2-way) */
    float2 e = s2[lane / 2];      /* lanes 2k and 2k+1 share a float2: passes fuse */
    out[threadIdx.x] = a.x + b.y + c.z + d.w + e.x;
}
