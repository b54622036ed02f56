/* lds.cuh: one 4-byte shared load that the compiler can neither merge, widen nor hoist, so a
 * case kernel's instructions are exactly the access its comment describes. */
#ifndef BANKLAB_LDS_CUH
#define BANKLAB_LDS_CUH

__device__ __forceinline__ float lds_f32(const float *p)
{
    float v;
    asm volatile("ld.volatile.shared.f32 %0, [%1];"
                 : "=f"(v)
                 : "r"((unsigned)__cvta_generic_to_shared(p))
                 : "memory");
    return v;
}

#endif
