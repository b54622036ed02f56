// banklab: --block 256 --arg stride=1
/* cp_async.cu: cp.async (LDGSTS, sm_80 and newer) copies 16 bytes per thread from global
 * to shared memory without passing through registers. The shared side obeys the bank rule
 * of a 16-byte store: four passes of 8 lanes, 4 wavefronts per warp when consecutive;
 * --arg stride=2 puts lane l on vector 2l: a 2-way conflict, 8 wavefronts. */
__global__ void cp_async_copy(const float4 *in, float *out, int stride)
{
    __shared__ __align__(16) float4 s[512];
    int t = threadIdx.x;
    unsigned dst = (unsigned)__cvta_generic_to_shared(&s[(t * stride) % 512]);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(in + t));
    asm volatile("cp.async.commit_group;");
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    __syncthreads();
    float4 v = s[(t * stride) % 512];
    out[t] = v.x + v.y + v.z + v.w;
}
