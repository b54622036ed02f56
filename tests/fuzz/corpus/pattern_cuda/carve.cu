// banklab: --block 256 --smem 4096 --arg n=256
/* carve.cu: three arrays carved from one extern __shared__ buffer (dynamic shared memory,
 * the third launch parameter, here --smem): float a[n], then double b[n], then int c[n].
 * The double array starts 4n bytes in: a multiple of 8 only because n is even (an odd n
 * would misalign it). a[(t * 33) % n] is conflict free, b[t] takes two passes of 16 lanes,
 * c[(t * 2) % n] is a 2-way conflict. */
__global__ void carve(float *out, const float *in, int n)
{
    extern __shared__ __align__(16) unsigned char buf[];
    float *a = (float *)buf;
    double *b = (double *)(a + n);
    int *c = (int *)(b + n);
    int t = threadIdx.x;
    if (t < n) {
        a[t] = in[t];
        b[t] = 2.0 * in[t];
        c[t] = t;
    }
    __syncthreads();
    if (t < n)
        out[t] = a[(t * 33) % n] + (float)b[t] + (float)c[(t * 2) % n];
}
