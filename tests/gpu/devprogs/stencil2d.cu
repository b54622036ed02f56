// stencil2d.cu: a 5-point Jacobi step on a 512 x 512 grid with a 16x16 tile and a one-cell
// halo in shared memory, and a horizontal box blur whose radius is a kernel parameter bounding
// the loop over a shared row segment; both in a namespace, launched repeatedly (ping-pong).
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(2); } } while (0)

namespace stencil {

const int BX = 16, BY = 16;
const int RMAX = 16, ROWSEG = 128;

// out = (n + s + e + w) / 4 inside, the boundary copied; nx, ny multiples of 16
__global__ void jacobi_step(const float *in, float *out, int nx, int ny)
{
    __shared__ float t[BY + 2][BX + 2];
    int tx = threadIdx.x, ty = threadIdx.y;
    int x = blockIdx.x * BX + tx, y = blockIdx.y * BY + ty;
    t[ty + 1][tx + 1] = in[y * nx + x];
    if (tx == 0) t[ty + 1][0] = x > 0 ? in[y * nx + x - 1] : 0.0f;
    if (tx == BX - 1) t[ty + 1][BX + 1] = x < nx - 1 ? in[y * nx + x + 1] : 0.0f;
    if (ty == 0) t[0][tx + 1] = y > 0 ? in[(y - 1) * nx + x] : 0.0f;
    if (ty == BY - 1) t[BY + 1][tx + 1] = y < ny - 1 ? in[(y + 1) * nx + x] : 0.0f;
    __syncthreads();
    float v = t[ty + 1][tx + 1];
    if (x > 0 && y > 0 && x < nx - 1 && y < ny - 1)
        v = 0.25f * (t[ty][tx + 1] + t[ty + 2][tx + 1] + t[ty + 1][tx] + t[ty + 1][tx + 2]);
    out[y * nx + x] = v;
}

// out[y][x] = sum of in[y][x - radius .. x + radius] (zeros outside the row)
__global__ void row_blur(const float *in, float *out, int nx, int radius)
{
    __shared__ float seg[ROWSEG + 2 * RMAX];
    int y = blockIdx.y;
    int x0 = blockIdx.x * ROWSEG;
    const float *row = in + (size_t)y * nx;
    for (int i = threadIdx.x; i < ROWSEG + 2 * RMAX; i += blockDim.x) {
        int x = x0 - RMAX + i;
        seg[i] = x >= 0 && x < nx ? row[x] : 0.0f;
    }
    __syncthreads();
    int x = x0 + threadIdx.x;
    float s = 0.0f;
    for (int k = -radius; k <= radius; k++)
        s += seg[RMAX + threadIdx.x + k];
    if (x < nx) out[(size_t)y * nx + x] = s;
}

} // namespace stencil

int main(int argc, char **argv)
{
    const int NX = 512, NY = 512;
    int iters = argc > 1 ? atoi(argv[1]) : 4;
    int radius = argc > 2 ? atoi(argv[2]) : 3;
    if (iters < 1 || iters > 64) iters = 4;
    if (radius < 0 || radius > stencil::RMAX) radius = 3;
    int bad = 0;
    size_t n = (size_t)NX * NY;
    // multiples of 1/4 with small magnitude: a few Jacobi steps stay exact in float
    std::vector<float> h(n), ref(n), tmp(n), got(n);
    for (size_t i = 0; i < n; i++) h[i] = (float)((i * 7919) % 64);

    ref = h;
    for (int it = 0; it < iters; it++) {
        for (int y = 0; y < NY; y++)
            for (int x = 0; x < NX; x++) {
                float v = ref[y * NX + x];
                if (x > 0 && y > 0 && x < NX - 1 && y < NY - 1)
                    v = 0.25f * (ref[(y - 1) * NX + x] + ref[(y + 1) * NX + x] +
                                 ref[y * NX + x - 1] + ref[y * NX + x + 1]);
                tmp[y * NX + x] = v;
            }
        ref.swap(tmp);
    }

    float *d_a, *d_b;
    CHECK(cudaMalloc(&d_a, n * sizeof(float)));
    CHECK(cudaMalloc(&d_b, n * sizeof(float)));
    CHECK(cudaMemcpy(d_a, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    dim3 grid(NX / stencil::BX, NY / stencil::BY), block(stencil::BX, stencil::BY);
    for (int it = 0; it < iters; it++) {
        stencil::jacobi_step<<<grid, block>>>(d_a, d_b, NX, NY);
        float *sw = d_a; d_a = d_b; d_b = sw;
    }
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(got.data(), d_a, n * sizeof(float), cudaMemcpyDeviceToHost));
    int wrong = -1;
    for (size_t i = 0; i < n && wrong < 0; i++)
        if (got[i] != ref[i]) wrong = (int)i;
    if (wrong >= 0) { printf("jacobi_step: WRONG at %d (%g, expected %g)\n", wrong, got[wrong], ref[wrong]); bad = 1; }
    else printf("jacobi_step: ok\n");

    CHECK(cudaMemcpy(d_a, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    dim3 bgrid((NX + stencil::ROWSEG - 1) / stencil::ROWSEG, NY), bblock(stencil::ROWSEG);
    stencil::row_blur<<<bgrid, bblock>>>(d_a, d_b, NX, radius);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(got.data(), d_b, n * sizeof(float), cudaMemcpyDeviceToHost));
    wrong = -1;
    for (int y = 0; y < NY && wrong < 0; y++)
        for (int x = 0; x < NX; x++) {
            float s = 0.0f;
            for (int k = -radius; k <= radius; k++)
                if (x + k >= 0 && x + k < NX) s += h[y * NX + x + k];
            if (got[y * NX + x] != s) { wrong = y * NX + x; break; }
        }
    if (wrong >= 0) { printf("row_blur: WRONG at %d\n", wrong); bad = 1; }
    else printf("row_blur: ok\n");

    cudaFree(d_a); cudaFree(d_b);
    return bad;
}
