/* cg_rules.cu (tests/gpu/cg_rules.sh): what cp.async.cg's shared side costs, pattern by
 * pattern, beside cp.async.ca's. docs/model.md had two .cg cases (16-byte chunks at stride 1:
 * 4 wavefronts, the ideal; at stride 2: 32, where .ca takes 8), too few for a rule. Here one
 * warp writes 16 bytes a lane with each instruction, lane l to the chunk chunk[l] of a
 * 16-KiB shared array, from consecutive global addresses (the source side never adds), for
 * every pattern of make_patterns below, once with .cg and once with .ca: one launch each, in
 * that order, each pattern its own kernel (an instance of cpa_pattern<CG, P>), measured per SASS
 * instruction
 * by `banklab run --route cupti` without --launch-count (a run of the program for each
 * kernel: CUPTI's SASS metrics count one measured launch in a process), whose SASS metrics
 * count .cg's wavefronts (the range profiler does not). */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

template <int CG, int P>
__global__ void cpa_pattern(const float4 *in, const int *chunk, int active, float *out)
{
    __shared__ __align__(16) float4 s[1024];
    int t = threadIdx.x;
    if (t < active) {
        unsigned dst = (unsigned)__cvta_generic_to_shared(&s[chunk[t] & 1023]);
        if (CG)
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(in + t) : "memory");
        else
            asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(in + t) : "memory");
        asm volatile("cp.async.commit_group;" ::: "memory");
        asm volatile("cp.async.wait_group 0;" ::: "memory");
    }
    __syncthreads();
    if (t < active)
        out[t] = s[chunk[t] & 1023].x;
}

struct pat { const char *name; int active; int chunk[32]; };

static int make_patterns(struct pat *P)
{
    static const int perm[32] = {7, 30, 2, 19, 25, 12, 0, 16, 28, 9, 21, 4, 14, 31, 10, 23,
                                 1, 26, 18, 5, 29, 13, 8, 22, 3, 17, 27, 11, 24, 6, 20, 15};
    int n = 0;
#define PAT(NAME, ACTIVE, EXPR) do { P[n].name = NAME; P[n].active = ACTIVE; \
        for (int l = 0; l < 32; l++) { int q = l / 8; P[n].chunk[l] = (EXPR) + 0 * q; } n++; } while (0)
    PAT("stride 1", 32, l);
    PAT("stride 2", 32, 2 * l);
    PAT("stride 3", 32, 3 * l);
    PAT("stride 4", 32, 4 * l);
    PAT("stride 8", 32, 8 * l);
    PAT("stride 16", 32, 16 * l);
    PAT("stride 32", 32, 32 * l);
    PAT("all one chunk", 32, 0);
    PAT("two lanes a chunk (l/2)", 32, l / 2);
    PAT("four lanes a chunk (l/4)", 32, l / 4);
    PAT("eight lanes a chunk, a quarter each (l/8)", 32, q);
    PAT("xor 1", 32, l ^ 1);
    PAT("reversed", 32, 31 - l);
    PAT("a permutation of 0..31", 32, perm[l]);
    PAT("lane 1 on chunk 8, the rest stride 1", 32, l == 1 ? 8 : l);
    PAT("lane 1 on chunk 0, the rest stride 1", 32, l == 1 ? 0 : l);
    PAT("quarters on the same 8 chunks (l % 8)", 32, l % 8);
    PAT("quarters on the same banks, other rows (l % 8 + 8 * (3 - q))", 32, l % 8 + 8 * (3 - q));
    PAT("2-way in each quarter, 4 chunks a row (l % 4 + 8 * (l / 4))", 32, l % 4 + 8 * (l / 4));
    PAT("4-way in each quarter (l % 2 + 8 * (l / 2))", 32, l % 2 + 8 * (l / 2));
    PAT("stride 2, 16 lanes", 16, 2 * l);
    PAT("stride 2, 8 lanes", 8, 2 * l);
    PAT("stride 1, 8 lanes", 8, l);
    PAT("stride 2, lanes 0 and 1 only", 2, 2 * l);
    PAT("stride 8, 4 lanes", 4, 8 * l);
    PAT("stride 2 within each half, halves 64 chunks apart", 32, 2 * (l % 16) + 64 * (l / 16));
#undef PAT
    return n;
}

typedef void (*kfn)(const float4 *, const int *, int, float *);
#define K4(CG, P) cpa_pattern<CG, P>, cpa_pattern<CG, P + 1>, cpa_pattern<CG, P + 2>, cpa_pattern<CG, P + 3>
#define K32(CG) K4(CG, 0), K4(CG, 4), K4(CG, 8), K4(CG, 12), K4(CG, 16), K4(CG, 20), K4(CG, 24), K4(CG, 28)
static const kfn kernels[2][32] = {{K32(0)}, {K32(1)}};

int main()
{
    static struct pat P[64];
    int n = make_patterns(P);
    if (n > 32)
        return 2;
    float4 *in;
    float *out;
    int *chunk;
    cudaMalloc(&in, 64 * sizeof(float4));
    cudaMalloc(&out, 64 * sizeof(float));
    cudaMalloc(&chunk, 32 * sizeof(int));
    cudaMemset(in, 0, 64 * sizeof(float4));
    for (int cg = 1; cg >= 0; cg--)
        for (int p = 0; p < n; p++) {
            cudaMemcpy(chunk, P[p].chunk, sizeof P[p].chunk, cudaMemcpyHostToDevice);
            kernels[cg][p]<<<1, 32>>>(in, chunk, P[p].active, out);
            cudaError_t e = cudaDeviceSynchronize();
            printf("%s %d %s:", cg ? "cg" : "ca", p, P[p].name);
            for (int l = 0; l < P[p].active; l++)
                printf(" %d", P[p].chunk[l]);
            printf(" | %s\n", cudaGetErrorString(e));
            if (e != cudaSuccess)
                return 1;
        }
    return 0;
}
