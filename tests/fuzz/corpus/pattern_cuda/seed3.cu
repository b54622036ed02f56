#include "lds.cuh"
typedef unsigned short u16;
struct P { float x, y, z; };
__device__ int f(int x) { return x * 3; }
template <int N> __global__ void g(int *o, size_t s)
{
    __shared__ u16 h[N];
    __shared__ P p[64];
    __shared__ int4 w[32];
    int i = threadIdx.x;
    i = i + 1;
    o[i] = h[f(i)] + (int)p[i].y + w[min(i, 31)].z + h[(int)s];
    asm volatile("bar.sync 0;");
    atomicAdd((int *)&w[i & 31], 1);
}
