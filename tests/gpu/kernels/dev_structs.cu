// banklab: --block 256
/* dev_structs.cu: arrays of structs in shared memory, declared at file scope.
 * By hand, per warp (32 lanes, one pass for 4-byte accesses):
 *   Particle (12 bytes): p[t].x, .y, .z are 4-byte accesses 3 words apart: gcd(3, 32) = 1,
 *   every lane on its own bank: 1 wavefront each (stores and loads).
 *   float3 v[t] = make_float3(...): three 4-byte stores 3 words apart: 1 each.
 *   Quad (16 bytes, 4-byte aligned): q[lane].a is 4 words apart: 8 banks, 4 lanes each: 4-way.
 *   real (typedef float) r[lane * 2]: stride 2 words: 2-way. */
struct Particle { float x, y, z; };
struct Quad { float a, b, c, d; };
typedef float real;

__global__ void dev_structs(float *out)
{
    __shared__ Particle p[256];
    __shared__ float3 v[256];
    __shared__ Quad q[256];
    __shared__ real r[512];
    int t = threadIdx.x, lane = t & 31;
    p[t].x = t;
    p[t].y = 2 * t;
    p[t].z = 3 * t;
    v[t] = make_float3(t, t + 1, t + 2);
    q[t].a = t;
    q[t].b = t + 1;
    r[t] = t;
    r[t + 256] = t;
    __syncthreads();
    float sum = p[lane].x + p[lane].y + p[lane].z;
    float3 w = v[lane];
    sum += w.x + w.y + w.z;
    sum += q[lane].a + q[lane].b;
    sum += r[lane * 2];
    out[t] = sum;
}
