__global__ void mix(double *o, int n, unsigned k)
{
    extern __shared__ __align__(16) char raw[];
    int *q = (int *)raw;
    double2 *v = (double2 *)(q + 2 * n);
    const int lane = threadIdx.x % warpSize;
    for (int j = lane; j < n; j += 32) {
        q[j] = j; v[(j * k) & 63].x = 1.0;
    }
    if (lane < 16) o[lane] = v[lane * 2].y + q[(lane << 1) ^ 1];
    q[lane] += q[lane + 1];
}
