// banklab: --grid 2 --block 256
/* reduce_interleaved.cu (tests/gpu/predict.sh): the interleaved reduction, s[2 k t] += s[2 k t
 * + k] for k = 1, 2, 4, ...: the stride doubles each step, and with it the conflict; a guard
 * takes the threads out one half after another. */
__global__ void reduce_interleaved(float *out)
{
    __shared__ float s[512];
    int t = threadIdx.x;
    s[t] = (float)t;
    s[t + 256] = 1.0f;
    __syncthreads();
    for (int k = 1; k < 256; k *= 2) {
        int i = 2 * k * t;
        if (i < 256)
            s[i] += s[i + k];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = s[0];
}
