/* pattern.cu: the pattern kernel. Runs exactly the warp access the model was given (per-lane
 * byte offsets, width, load or store, active mask) as ld/st.volatile.shared of that width,
 * so the hardware's wavefronts can be compared with the model's. No host logic here. */
#include <cuda_runtime.h>

#include "kernels.h"

/* One shared access of W bytes at shared address a; loads fold into acc so none is dead. */
template <int W, bool ST> __device__ __forceinline__ void access(unsigned a, unsigned &acc)
{
    if (ST) {
        if (W == 1)
            asm volatile("st.volatile.shared.u8 [%0], %1;" ::"r"(a), "r"(acc) : "memory");
        else if (W == 2)
            asm volatile("st.volatile.shared.u16 [%0], %1;" ::"r"(a), "h"((unsigned short)acc)
                         : "memory");
        else if (W == 4)
            asm volatile("st.volatile.shared.u32 [%0], %1;" ::"r"(a), "r"(acc) : "memory");
        else if (W == 8)
            asm volatile("st.volatile.shared.v2.u32 [%0], {%1, %2};" ::"r"(a), "r"(acc), "r"(acc)
                         : "memory");
        else
            asm volatile("st.volatile.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(a), "r"(acc),
                         "r"(acc), "r"(acc), "r"(acc)
                         : "memory");
    } else {
        unsigned x, y, z, w;
        if (W == 1) {
            asm volatile("ld.volatile.shared.u8 %0, [%1];" : "=r"(x) : "r"(a) : "memory");
            acc ^= x;
        } else if (W == 2) {
            unsigned short h;
            asm volatile("ld.volatile.shared.u16 %0, [%1];" : "=h"(h) : "r"(a) : "memory");
            acc ^= h;
        } else if (W == 4) {
            asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(x) : "r"(a) : "memory");
            acc ^= x;
        } else if (W == 8) {
            asm volatile("ld.volatile.shared.v2.u32 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "r"(a)
                         : "memory");
            acc ^= x ^ y;
        } else {
            asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                         : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
                         : "r"(a)
                         : "memory");
            acc ^= x ^ y ^ z ^ w;
        }
    }
}

/* pattern_kernel: lane l of every warp accesses base + warp*region + off[l], iters * 32 times.
 * Conflicts: exactly those of the model's access (the 128-byte aligned base keeps the banks);
 * inactive lanes branch around the loop, so the instruction runs with the model's mask.
 * Timing launch: all SMs, 8 warps per block. Counter launch: one warp, iters * 32 known
 * instructions (smsp__inst_executed_op_shared_* must equal that). */
template <int W, bool ST>
__global__ void pattern_kernel(struct bl_pattern_args p, int iters, unsigned *sink)
{
    extern __shared__ __align__(16) unsigned char smem[];
    unsigned base = (unsigned)__cvta_generic_to_shared(smem);
    base = (base + 127u) & ~127u;
    unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    unsigned a = base + warp * p.region + p.off[lane];
    unsigned acc = lane * 0x9e3779b9u;
    if (p.mask >> lane & 1u) {
        for (int i = 0; i < iters; i++) {
#pragma unroll
            for (int k = 0; k < BL_PATTERN_UNROLL; k++)
                access<W, ST>(a, acc);
        }
    }
    if (acc == 0x7fffffffu && sink)
        sink[0] = acc; /* never true in practice; keeps the loads observable */
}

typedef void (*pattern_fn)(struct bl_pattern_args, int, unsigned *);

static pattern_fn pick(int width, int store)
{
    switch (width) {
    case 1: return store ? pattern_kernel<1, true> : pattern_kernel<1, false>;
    case 2: return store ? pattern_kernel<2, true> : pattern_kernel<2, false>;
    case 4: return store ? pattern_kernel<4, true> : pattern_kernel<4, false>;
    case 8: return store ? pattern_kernel<8, true> : pattern_kernel<8, false>;
    case 16: return store ? pattern_kernel<16, true> : pattern_kernel<16, false>;
    }
    return 0;
}

extern "C" size_t bl_pattern_smem(const struct bl_pattern_args *a, int threads)
{
    uint32_t span = 0;
    for (int l = 0; l < 32; l++)
        if ((a->mask >> l & 1u) && a->off[l] + (uint32_t)a->width > span)
            span = a->off[l] + (uint32_t)a->width;
    int warps = (threads + 31) / 32;
    return 128 + (size_t)a->region * (size_t)(warps - 1) + span + 16;
}

extern "C" int bl_pattern_attr(const struct bl_pattern_args *a, size_t smem)
{
    pattern_fn f = pick(a->width, a->store);
    if (!f)
        return (int)cudaErrorInvalidValue;
    return (int)cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
}

extern "C" int bl_pattern_launch(const struct bl_pattern_args *a, int blocks, int threads,
                                 int iters, size_t smem, unsigned *sink)
{
    pattern_fn f = pick(a->width, a->store);
    if (!f)
        return (int)cudaErrorInvalidValue;
    f<<<blocks, threads, smem>>>(*a, iters, sink);
    return (int)cudaGetLastError();
}

/* clock_probe: no shared memory; one thread spins on clock64 so the host can time SM cycles. */
__global__ void clock_probe(long long cycles, unsigned *sink)
{
    long long t0 = clock64();
    long long n = 0;
    while (clock64() - t0 < cycles)
        n++;
    if (n == -1 && sink)
        sink[0] = (unsigned)n;
}

extern "C" int bl_clock_probe(long long cycles, unsigned *sink)
{
    clock_probe<<<1, 1>>>(cycles, sink);
    return (int)cudaGetLastError();
}
