// banklab: --block 32 --arg stride=4
/* stores.cu: shared-memory stores of 1, 2, 4 and 8 bytes. Stores follow the same bank rule
 * as loads: a char or short per lane shares a word with its neighbours (never a conflict);
 * an int stride of s is a gcd(s, 32)-way conflict; stores never fuse passes. */
__global__ void stores(float *out, int stride)
{
    __shared__ int w[32 * 33];
    __shared__ unsigned char c[128];
    __shared__ short h[128];
    __shared__ double d[64];
    int lane = threadIdx.x & 31;
    c[lane] = (unsigned char)lane;            /* 1 byte: 4 lanes per word, conflict free */
    h[lane] = (short)lane;                    /* 2 bytes: 2 lanes per word, conflict free */
    w[lane] = lane;                           /* 4 bytes, stride 1: conflict free */
    w[(lane * stride) % (32 * 33)] = lane;    /* stride from --arg: gcd(stride, 32)-way */
    w[lane * 32] = lane;                      /* stride 32: 32-way */
    d[lane] = lane;                           /* 8 bytes: two passes of 16 lanes */
    __syncthreads();
    out[threadIdx.x] = (float)(c[lane] + h[lane] + w[lane] + w[lane * 32]) + (float)d[lane];
}
