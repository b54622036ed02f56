// banklab: --block 256 --arg stride=1
/* cp_async.cu: cp.async (LDGSTS, sm_80 and newer) copies 16 bytes per thread from global
 * to shared memory without passing through registers. Its shared side has its own cost:
 * with --arg stride=2 (lane l writes vector 2l) the H200 took 8 times the ideal wavefronts
 * on the cp.async line, while the float4 read-back of the same layout is a plain 2-way
 * conflict (docs/kernel.md has the run). --arg stride=1 is the conflict-free layout. */
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
