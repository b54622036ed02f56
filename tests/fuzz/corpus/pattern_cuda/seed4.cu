#define TILE 32
#define PAD (1)
#define IDX(a, b) ((a) * TILE + (b))
const int ROWS = 8;
template <typename T>
__global__ void k(float *out, const float *in, int n, float scale)
{
    __shared__ float t[TILE][TILE + PAD];
    __shared__ T tt[64];
    int x = threadIdx.x, y = threadIdx.y;
    int g = blockIdx.x * blockDim.x + x;
    int r = y;
    r += 1;
    t[y][x] = in[g];
    t[x][y] += 1.0f;
    out[g] = t[r][x];
    out[g] = t[x][g % 32];
    out[g] = tt[x];
    out[g] = t[IDX(x, y) % 32][0];
    out[g] = t[x % ROWS][y];
    out[g] = t[(int)in[x]][0];
    float v = t[x][n];
    out[g] = t[min(x, n)][0]; out[g] = t[x][(int)scale];
    out[g] = t[t[0][x]][0];
}
