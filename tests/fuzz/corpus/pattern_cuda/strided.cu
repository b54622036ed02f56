// banklab: --block 256 --arg stride=2
/* strided.cu: lane l reads word l * STRIDE of a shared array. Word w is in bank w % 32, so
 * a stride of s puts the 32 lanes into 32 / gcd(s, 32) banks: a gcd(s, 32)-way conflict.
 * Stride 1 and odd strides are conflict free; 2 is 2-way, 32 is 32-way; 33 (a padded
 * column) is free again. Change the third line with --arg stride=N. */
__global__ void strided(float *out, int stride)
{
    __shared__ float s[32 * 33];
    for (int i = threadIdx.x; i < 32 * 33; i += blockDim.x)
        s[i] = (float)i;
    __syncthreads();
    int lane = threadIdx.x & 31;
    float a = s[lane];                          /* stride 1: conflict free */
    float b = s[lane * 2];                      /* stride 2: 2-way */
    float c = s[(lane * stride) % (32 * 33)];   /* stride from --arg */
    float d = s[lane * 32];                     /* stride 32: 32-way (a column of [32][32]) */
    float e = s[lane * 33];                     /* stride 33: conflict free (padded column) */
    out[threadIdx.x] = a + b + c + d + e;
}
