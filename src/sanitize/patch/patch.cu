/* patch.cu: the device side of the sanitizer route, built with
 * `nvcc --fatbin --compile-as-tools-patch` into banklab_patch.fatbin and loaded by
 * libbanklab_sanitize.so (src/kmeasure/san_inject.c) into each context of the program. The
 * Compute Sanitizer calls these functions before every shared-memory instruction it patched
 * (ld/st/atomics, ldmatrix/stmatrix, cp.async), once per thread. The lanes of a warp that
 * reach the same pc together are grouped (__match_any_sync), their addresses gathered to the
 * lowest lane (shuffles), which costs the instruction with the bank model (cost.h) and adds
 * it to the launch's table (table.h): per pc executions, wavefronts, passes and the first
 * distinct patterns. No per-thread trace leaves the GPU. userdata NULL: a launch not
 * measured (its callbacks return at once). Must not use redux (ptxas refuses it in patches). */
#include <stdint.h>

#include <sanitizer_patching.h>

#include "../cost.h"
#include "../table.h"

static __device__ __forceinline__ unsigned lane_id(void)
{
    unsigned r;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));
    return r;
}

/* A hash of the pattern with offsets taken relative to the lowest one's word: warps whose
 * addresses differ by a whole number of words ask the same banks for the same words, rotated,
 * and cost the same (cp.async: both sides relative to their lowest 128-byte row or line, which
 * keeps what .ca's and .cg's rules read: banks, chunks, sectors and lines). */
static __device__ uint64_t pattern_key(const uint32_t *a, const uint32_t *s, uint32_t mask,
                                       unsigned width, unsigned kind, unsigned matrices)
{
    uint32_t lo = 0xffffffffu, slo = 0xffffffffu;
    for (int i = 0; i < 32; i++)
        if (mask >> i & 1u) {
            if (a[i] < lo)
                lo = a[i];
            if (s[i] < slo)
                slo = s[i];
        }
    lo &= kind == SAN_CPASYNC ? ~127u : ~3u;
    slo &= ~127u;
    uint64_t h = 1469598103934665603ull;
    h = (h ^ mask) * 1099511628211ull;
    h = (h ^ (width | kind << 8 | matrices << 16)) * 1099511628211ull;
    for (int i = 0; i < 32; i++) {
        if (!(mask >> i & 1u))
            continue;
        h = (h ^ (a[i] - lo)) * 1099511628211ull;
        if (kind == SAN_CPASYNC)
            h = (h ^ (s[i] - slo)) * 1099511628211ull;
    }
    return h ? h : 1;
}

static __device__ void fill(struct san_pat *p, const uint32_t *a, const uint32_t *s,
                            uint32_t mask, unsigned width, unsigned kind, unsigned matrices,
                            uint32_t wf, uint32_t wf_alt)
{
    for (int i = 0; i < 32; i++) {
        p->addr[i] = a[i];
        p->src[i] = s[i];
    }
    p->mask = mask;
    p->width = width;
    p->kind = kind;
    p->matrices = matrices;
    p->wavefronts = wf;
    p->wavefronts_alt = wf_alt;
    p->block[0] = blockIdx.x;
    p->block[1] = blockIdx.y;
    p->block[2] = blockIdx.z;
    p->warp = (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) / 32u;
    __threadfence();
    atomicExch(&p->ready, 1u);
}

static __device__ struct san_pc *pc_slot(struct san_table *t, uint64_t pc)
{
    uint64_t key = pc + 1;
    unsigned h = (unsigned)((pc >> 4) * 2654435761u) % SAN_PCS;
    for (unsigned k = 0; k < SAN_PCS; k++) {
        struct san_pc *e = &t->pc[(h + k) % SAN_PCS];
        unsigned long long old = atomicCAS((unsigned long long *)&e->pc, 0ull,
                                           (unsigned long long)key);
        if (old == 0 || old == key)
            return e;
    }
    return 0;
}

static __device__ void add_pattern(struct san_pc *e, const uint32_t *a, const uint32_t *s,
                                   uint32_t mask, unsigned width, unsigned kind,
                                   unsigned matrices, uint32_t wf, uint32_t wf_alt)
{
    uint64_t key = pattern_key(a, s, mask, width, kind, matrices);
    int placed = 0;
    for (int i = 0; i < SAN_PATS && !placed; i++) {
        struct san_pat *p = &e->pat[i];
        /* a plain read first: the slot of a common pattern is counted without a compare-and-
           swap (every warp of a hot loop would otherwise queue on that one word) */
        unsigned long long seen = *(volatile unsigned long long *)&p->key;
        if (seen == key) {
            atomicAdd(&p->count, 1u);
            placed = 1;
            continue;
        }
        if (seen != 0)
            continue;
        unsigned long long old = atomicCAS((unsigned long long *)&p->key, 0ull,
                                           (unsigned long long)key);
        if (old == 0) {
            fill(p, a, s, mask, width, kind, matrices, wf, wf_alt);
            atomicAdd(&p->count, 1u);
            placed = 1;
        } else if (old == key) {
            atomicAdd(&p->count, 1u);
            placed = 1;
        }
    }
    if (!placed)
        atomicAdd(&e->others, 1u);
    struct san_pat *w = &e->pat[SAN_WORST];
    if (*(volatile uint32_t *)&w->wavefronts < wf && atomicMax(&w->wavefronts, wf) < wf) { /* a costlier warp: keep it (last writer wins) */
        w->key = key;
        fill(w, a, s, mask, width, kind, matrices, wf, wf_alt);
    }
    if (kind != SAN_ATOM && !(kind == SAN_CPASYNC && width == 16))
        return;
    w = &e->pat[SAN_WORST_ALT]; /* the same by the other rule (the host keeps the one its SASS names) */
    if (*(volatile uint32_t *)&w->wavefronts_alt < wf_alt && atomicMax(&w->wavefronts_alt, wf_alt) < wf_alt) {
        w->key = key;
        fill(w, a, s, mask, width, kind, matrices, wf, wf_alt);
    }
}

/* One thread's part of a warp instruction: addr (shared offset), src (cp.async's global
 * source), what the instruction is. */
static __device__ void record(void *ud, uint64_t pc, uint32_t addr, uint32_t src,
                              unsigned width, unsigned kind, unsigned matrices)
{
    struct san_table *t = (struct san_table *)ud;
    unsigned active = __activemask();
    unsigned grp = __match_any_sync(active, pc);
    unsigned lane = lane_id();
    unsigned leader = __ffs(grp) - 1;
    uint32_t a[32], s[32];
    for (int i = 0; i < 32; i++) {
        a[i] = 0;
        s[i] = 0;
    }
    for (int i = 0; i < 32; i++) {
        if (!(grp >> i & 1u)) /* the same for every lane of grp */
            continue;
        uint32_t v = __shfl_sync(grp, addr, i);
        uint32_t w = __shfl_sync(grp, src, i);
        a[i] = v;
        s[i] = w;
    }
    if (lane != leader)
        return;
    t->magic = SAN_MAGIC;
    struct san_cost c = san_cost_of(kind, width, grp, a, s, matrices);
    /* by the other rule, which the SASS (read on the host) may name: an atomic lane by lane
       (ATOMS), a 16-byte cp.async as .cg (LDGSTS.BYPASS) */
    uint32_t ideal = san_ideal(kind, width, grp, c.passes), ideal_alt = ideal;
    uint32_t alt = kind == SAN_ATOM
                       ? san_cost_of(SAN_ATOM_EACH, width, grp, a, s, matrices).wavefronts
                   : kind == SAN_CPASYNC && width == 16 ? san_cg_cost(a, s, grp, &ideal_alt)
                                                        : c.wavefronts;
    struct san_pc *e = pc_slot(t, pc);
    if (!e) {
        atomicAdd(&t->overflow, 1u);
        return;
    }
    e->kind = kind;
    e->width = width;
    e->matrices = matrices;
    atomicAdd(&e->inst, 1ull);
    atomicAdd(&e->wavefronts, (unsigned long long)c.wavefronts);
    atomicAdd(&e->ideal, (unsigned long long)ideal);
    atomicAdd(&e->wavefronts_alt, (unsigned long long)alt);
    atomicAdd(&e->ideal_alt, (unsigned long long)ideal_alt);
    add_pattern(e, a, s, grp, width, kind, matrices, c.wavefronts, alt);
}

extern "C" __device__ __noinline__ SanitizerPatchResult
bl_shared_access(void *ud, uint64_t pc, void *ptr, uint32_t size, uint32_t flags,
                 const void *data)
{
    if (!ud)
        return SANITIZER_PATCH_SUCCESS;
    unsigned kind = (flags & SANITIZER_MEMORY_DEVICE_FLAG_WRITE)
                        ? ((flags & SANITIZER_MEMORY_DEVICE_FLAG_READ) ? SAN_ATOM : SAN_ST)
                        : SAN_LD;
    record(ud, pc, (uint32_t)(uintptr_t)ptr, 0, san_width(size), kind, 0);
    return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult
bl_matrix_access(void *ud, uint64_t pc, uint32_t address, uint32_t size, uint32_t flags,
                 uint32_t count, const void *data)
{
    if (!ud)
        return SANITIZER_PATCH_SUCCESS;
    unsigned kind = (flags & SANITIZER_MEMORY_DEVICE_FLAG_WRITE) ? SAN_STSM : SAN_LDSM;
    record(ud, pc, address, 0, size ? size : 16, kind, count);
    return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult
bl_memcpy_async(void *ud, uint64_t pc, void *src, uint32_t dst, uint32_t size)
{
    if (!ud)
        return SANITIZER_PATCH_SUCCESS;
    record(ud, pc, dst, (uint32_t)(uintptr_t)src, size, SAN_CPASYNC, 0);
    return SANITIZER_PATCH_SUCCESS;
}
