// banklab: --block 32
/* reader_merge.cu: accesses of one line that nvcc loads as one wider instruction
 * (tests/sh/reader_model.sh). One warp. By hand: bank = (byte / 4) % 32; a 4-byte access is
 * one pass of 32 lanes, 8 bytes two passes of 16, 16 bytes four passes of 8; a pass costs the
 * most distinct words one bank serves.
 *   fill: s[i], i = lane + 32k, 32 trips of one word per lane: 1 each, 32.
 *   four: s[4*lane .. 4*lane + 3], four side by side, the first 16-byte aligned: nvcc loads
 *         them with one LDS.128 at byte 16*lane: consecutive 16-byte chunks, 1 a pass, 4.
 *         (Read as four LDS they would be 4-way each: 16.)
 *   two:  s[2*lane + 256], s[2*lane + 257]: one LDS.64 at byte 8*lane + 1024: 1 a pass, 2.
 */
__global__ void reader_merge(float *out)
{
    __shared__ float s[1024];
    int lane = threadIdx.x & 31;
    for (int i = lane; i < 1024; i += 32)
        s[i] = (float)i;                                                       // wf 32
    __syncthreads();
    float a = s[4 * lane] + s[4 * lane + 1] + s[4 * lane + 2] + s[4 * lane + 3]; // wf 4
    float b = s[2 * lane + 256] * s[2 * lane + 257];                           // wf 2
    out[lane] = a + b;
}
