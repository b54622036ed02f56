// banklab: --block 32
/* vectors.cu: 8- and 16-byte accesses (float2, float4). A warp's float2 access is served in
 * two passes of 16 lanes, a float4 access in four passes of 8 lanes: more wavefronts than a
 * float access, but no conflict. A stride of two vectors is a 2-way conflict inside each
 * pass. When pairs of lanes read the same float2, the two passes fuse into one. Every
 * component is used: the compiler would otherwise load only the ones that are (a float
 * access at a float2's stride, and other conflicts). */
__global__ void vectors(float *out)
{
    __shared__ float4 s4[128];
    float *s = (float *)s4;
    float2 *s2 = (float2 *)s4;
    for (int i = threadIdx.x; i < 128 * 4; i += blockDim.x)
        s[i] = (float)i;
    __syncthreads();
    int lane = threadIdx.x & 31;
    float2 a = s2[lane];          /* float2, consecutive: two passes, no conflict */
    float2 b = s2[lane * 2];      /* float2, stride 2: a 2-way conflict in each pass */
    float4 c = s4[lane];          /* float4, consecutive: four passes, no conflict */
    float4 d = s4[lane * 2];      /* float4, stride 2: a 2-way conflict in each pass */
    float2 e = s2[lane / 2];      /* lanes 2k and 2k+1 share a float2: the passes fuse */
    out[threadIdx.x] = a.x + a.y + b.x + b.y + c.x + c.y + c.z + c.w + d.x + d.y + d.z + d.w +
                       e.x + e.y;
}
