// banklab: --block 32
/* reader_struct.cu: a struct of three floats and a typedef at file scope, float3 and
 * make_float3, a whole struct copied (tests/sh/reader_model.sh). One warp, 32 lanes; every
 * access here is 4 bytes (nvcc moves a 12-byte struct or float3 as three 4-byte accesses,
 * its alignment being 4), one pass of 32 lanes, costing the most distinct words one bank
 * serves (bank = word % 32); "wf" is the line's wavefronts.
 *   p[t].x: word 3t: 3 and 32 share no factor, so 32 lanes, 32 banks: 1.
 *   p[t] = p[t + 32]: three loads and three stores, words 3t + m and 3(t + 32) + m: 6 x 1.
 *   v[t] = make_float3(...): three stores at words 3t + m: 3.
 *   w = v[(t * 2) % 64]: element 2t, words 6t + m: 6t % 32 takes 16 values, each for t and
 *   t + 16 (6 * 16 = 96 = 3 * 32), two distinct words: 2-way, 2 for each of x, y, z: 6.
 *   q = p[t]: three loads: 3.
 *   r[t] (real is float): 1; r[(t * 2) % 64]: banks 2t % 32, t and t + 16 share: 2. */
struct Particle { float x, y, z; };
typedef float real;
using index_t = int;

__global__ void reader_struct(float *out)
{
    __shared__ Particle p[64];
    __shared__ float3 v[64];
    __shared__ real r[64];
    index_t t = threadIdx.x;
    p[t].x = t;                                                         // wf 1
    p[t + 32].y = t;                                                    // wf 1
    __syncthreads();
    p[t] = p[t + 32];                                                   // wf 6
    v[t] = make_float3(t, t + 1, t + 2);                                // wf 3
    r[t] = (real)t;                                                     // wf 1
    __syncthreads();
    float3 w = v[(t * 2) % 64];                                         // wf 6
    Particle q = p[t];                                                  // wf 3
    real y = r[(t * 2) % 64];                                           // wf 2
    out[t] = w.x + w.y + w.z + q.x + q.y + q.z + y;
}
