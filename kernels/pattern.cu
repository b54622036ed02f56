/* pattern.cu: the pattern kernel. Runs exactly the warp access the model was given (per-lane
 * byte offsets, width, load or store, active mask) as ld/st.volatile.shared of that width, or
 * as ldmatrix / stmatrix (.x1/.x2/.x4, .trans) or cp.async.ca (4, 8, 16 bytes), so the
 * hardware's wavefronts can be compared with the model's. No host logic here. */
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

/* ldmatrix / stmatrix (.x1/.x2/.x4, .trans; stmatrix needs sm_90): one instruction at a, the
 * lane's row address; every lane executes it (.sync.aligned). */
template <int X, bool T, bool ST> __device__ __forceinline__ void matrix(unsigned a, unsigned &acc)
{
#if __CUDA_ARCH__ >= 900
    if (ST) {
        if (X == 1 && !T) asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" ::"r"(a), "r"(acc) : "memory");
        if (X == 1 && T) asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" ::"r"(a), "r"(acc) : "memory");
        if (X == 2 && !T) asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %1};" ::"r"(a), "r"(acc) : "memory");
        if (X == 2 && T) asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %1};" ::"r"(a), "r"(acc) : "memory");
        if (X == 4 && !T) asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %1, %1, %1};" ::"r"(a), "r"(acc) : "memory");
        if (X == 4 && T) asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %1, %1, %1};" ::"r"(a), "r"(acc) : "memory");
        return;
    }
#endif
    if (!ST) {
        unsigned x = 0, y = 0, z = 0, w = 0;
        if (X == 1 && !T) asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(x) : "r"(a) : "memory");
        if (X == 1 && T) asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(x) : "r"(a) : "memory");
        if (X == 2 && !T) asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "r"(a) : "memory");
        if (X == 2 && T) asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "r"(a) : "memory");
        if (X == 4 && !T) asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];" : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(a) : "memory");
        if (X == 4 && T) asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];" : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(a) : "memory");
        acc ^= x ^ y ^ z ^ w;
    }
}

template <int X, bool T, bool ST>
__global__ void matrix_kernel(struct bl_pattern_args p, int iters, unsigned *sink)
{
    extern __shared__ __align__(16) unsigned char smem[];
    unsigned base = (unsigned)__cvta_generic_to_shared(smem);
    base = (base + 127u) & ~127u;
    unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    unsigned a = base + warp * p.region + p.off[lane];
    unsigned acc = lane * 0x9e3779b9u;
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int k = 0; k < BL_PATTERN_UNROLL; k++)
            matrix<X, T, ST>(ST ? a : a + (acc & p.zero), acc);
    }
    if (acc == 0x7fffffffu && sink)
        sink[0] = acc;
}

/* cp.async.ca of W bytes: lane l copies src + goff[l] to its shared offset. The copies are
 * waited for once, after the loop, so the counters see only the LDGSTS instructions in it. */
template <int W> __global__ void cp_async_kernel(struct bl_pattern_args p, int iters, unsigned *sink)
{
    extern __shared__ __align__(16) unsigned char smem[];
    unsigned base = (unsigned)__cvta_generic_to_shared(smem);
    base = (base + 127u) & ~127u;
    unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    unsigned a = base + warp * p.region + p.off[lane];
    const char *g = (const char *)p.src + p.goff[lane];
#if __CUDA_ARCH__ >= 800
    if (p.mask >> lane & 1u) {
        for (int i = 0; i < iters; i++) {
#pragma unroll
            for (int k = 0; k < BL_PATTERN_UNROLL; k++) {
                if (W == 4) asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(a), "l"(g) : "memory");
                if (W == 8) asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(a), "l"(g) : "memory");
                if (W == 16) asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(a), "l"(g) : "memory");
            }
        }
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group 0;" ::: "memory");
#else
    (void)a, (void)g, (void)iters; /* sm_75 and older have no cp.async (the host refuses) */
#endif
    (void)sink;
}

typedef void (*pattern_fn)(struct bl_pattern_args, int, unsigned *);

static pattern_fn pick_matrix(int x, int trans, int store)
{
    if (x == 1) return store ? (trans ? matrix_kernel<1, true, true> : matrix_kernel<1, false, true>)
                             : (trans ? matrix_kernel<1, true, false> : matrix_kernel<1, false, false>);
    if (x == 2) return store ? (trans ? matrix_kernel<2, true, true> : matrix_kernel<2, false, true>)
                             : (trans ? matrix_kernel<2, true, false> : matrix_kernel<2, false, false>);
    if (x == 4) return store ? (trans ? matrix_kernel<4, true, true> : matrix_kernel<4, false, true>)
                             : (trans ? matrix_kernel<4, true, false> : matrix_kernel<4, false, false>);
    return 0;
}

static pattern_fn pick(const struct bl_pattern_args *a)
{
    int width = a->width, store = a->store;
    if (a->instr == 1 || a->instr == 2)
        return pick_matrix(a->matrices, a->trans, a->instr == 2);
    if (a->instr == 3)
        return width == 4 ? cp_async_kernel<4> : width == 8 ? cp_async_kernel<8>
             : width == 16 ? cp_async_kernel<16> : 0;
    if (a->instr)
        return 0;
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
    pattern_fn f = pick(a);
    if (!f)
        return (int)cudaErrorInvalidValue;
    return (int)cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
}

extern "C" int bl_pattern_launch(const struct bl_pattern_args *a, int blocks, int threads,
                                 int iters, size_t smem, unsigned *sink)
{
    pattern_fn f = pick(a);
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
