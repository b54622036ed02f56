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
__global__ void cpa_pattern(const float4 *in, const int *chunk, const int *src, unsigned mask, float *out)
{
    __shared__ __align__(16) float4 s[1024];
    int t = threadIdx.x;
    if ((mask >> t) & 1) {
        unsigned dst = (unsigned)__cvta_generic_to_shared(&s[chunk[t] & 1023]);
        if (CG)
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(in + (src[t] & 511)) : "memory");
        else
            asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(in + (src[t] & 511)) : "memory");
        asm volatile("cp.async.commit_group;" ::: "memory");
        asm volatile("cp.async.wait_group 0;" ::: "memory");
    }
    __syncthreads();
    if ((mask >> t) & 1)
        out[t] = s[chunk[t] & 1023].x;
}

struct pat { const char *name; unsigned mask; int chunk[32]; int src[32]; };

static int make_patterns(struct pat *P)
{
    static const int perm[32] = {7, 30, 2, 19, 25, 12, 0, 16, 28, 9, 21, 4, 14, 31, 10, 23,
                                 1, 26, 18, 5, 29, 13, 8, 22, 3, 17, 27, 11, 24, 6, 20, 15};
    int n = 0;
    /* lanes of MASK active, lane l writing chunk CHUNK from the 16-byte source SRC of in */
#define PATS(NAME, MASK, CHUNK, SRC) do { P[n].name = NAME; P[n].mask = MASK; \
        for (int l = 0; l < 32; l++) { int q = l / 8; P[n].chunk[l] = (CHUNK) + 0 * q; \
            P[n].src[l] = (SRC); } n++; } while (0)
#define PAT(NAME, ACTIVE, EXPR) PATS(NAME, ACTIVE == 32 ? ~0u : (1u << ACTIVE) - 1, EXPR, l)
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
    /* call 21: the source side apart from the lane, and the pairs and pieces that the 26
     * above left open (docs/model.md) */
    PATS("stride 1, sources xor 1", ~0u, l, l ^ 1);
    PATS("stride 1, sources reversed", ~0u, l, 31 - l);
    PATS("stride 1, sources a permutation", ~0u, l, perm[l]);
    PATS("stride 1, sources at stride 2", ~0u, l, 2 * l);
    PATS("stride 1, sources one chunk on (l + 1)", ~0u, l, l + 1);
    PATS("stride 1, sources four chunks on (l + 4)", ~0u, l, l + 4);
    PATS("stride 1, sources a line on (l + 8)", ~0u, l, l + 8);
    PATS("stride 1, every quarter from the same line (l % 8)", ~0u, l, l % 8);
    PATS("stride 2, sources at stride 2", ~0u, 2 * l, 2 * l);
    PATS("stride 3, sources at stride 3", ~0u, 3 * l, 3 * l);
    PATS("the permutation, sources the same permutation", ~0u, perm[l], perm[l]);
    PATS("xor 1, sources xor 1", ~0u, l ^ 1, l ^ 1);
    {
        static const char *pair_name[4][8] = {
            {0, "lanes 0 1: chunks 0 1", "lanes 0 1: chunks 0 2", "lanes 0 1: chunks 0 3", "lanes 0 1: chunks 0 4",
             "lanes 0 1: chunks 0 5", "lanes 0 1: chunks 0 6", "lanes 0 1: chunks 0 7"},
            {0, "lanes 0 2: chunks 0 1", "lanes 0 2: chunks 0 2", "lanes 0 2: chunks 0 3", "lanes 0 2: chunks 0 4",
             "lanes 0 2: chunks 0 5", "lanes 0 2: chunks 0 6", "lanes 0 2: chunks 0 7"},
            {0, "lanes 0 4: chunks 0 1", "lanes 0 4: chunks 0 2", "lanes 0 4: chunks 0 3", "lanes 0 4: chunks 0 4",
             "lanes 0 4: chunks 0 5", "lanes 0 4: chunks 0 6", "lanes 0 4: chunks 0 7"},
            {0, "lanes 0 7: chunks 0 1", 0, "lanes 0 7: chunks 0 3", 0, 0, 0, "lanes 0 7: chunks 0 7"}};
        static const int other[4] = {1, 2, 4, 7};
        for (int k = 0; k < 4; k++)
            for (int c = 1; c < 8; c++)
                if (pair_name[k][c]) {
                    int o = other[k];
                    PATS(pair_name[k][c], 1u | 1u << o, l == o ? c : 0, l);
                }
    }
    PATS("lanes 0 1: chunks 0 8", 3u, l == 1 ? 8 : 0, l);
    PATS("lanes 0 1: chunks 0 9", 3u, l == 1 ? 9 : 0, l);
    PATS("lanes 0 1: chunks 0 11", 3u, l == 1 ? 11 : 0, l);
    PATS("lanes 0 1: chunks 2 5", 3u, l == 1 ? 5 : 2, l);
    PATS("lanes 0 1: chunks 4 7", 3u, l == 1 ? 7 : 4, l);
    PATS("stride 3, lanes 0-2", 0x7u, 3 * l, l);
    PATS("stride 3, lanes 3-5", 0x38u, 3 * l, l);
    PATS("stride 3, lanes 6-7", 0xc0u, 3 * l, l);
    PATS("stride 3, lanes 0-3", 0xfu, 3 * l, l);
    PATS("stride 3, lanes 4-7", 0xf0u, 3 * l, l);
    PATS("stride 3, lanes 0-7", 0xffu, 3 * l, l);
    PATS("lanes 0 1 8: chunks 0 8 8", 0x103u, l == 0 ? 0 : 8, l);
    PATS("lanes 1 8: chunks 8 8", 0x102u, 8, l);
    PATS("lanes 0-7, lane 1 on chunk 8", 0xffu, l == 1 ? 8 : l, l);
#undef PATS
#undef PAT
    return n;
}

typedef void (*kfn)(const float4 *, const int *, const int *, unsigned, float *);
#define K4(CG, P) cpa_pattern<CG, P>, cpa_pattern<CG, P + 1>, cpa_pattern<CG, P + 2>, cpa_pattern<CG, P + 3>
#define K32(CG) K4(CG, 0), K4(CG, 4), K4(CG, 8), K4(CG, 12), K4(CG, 16), K4(CG, 20), K4(CG, 24), K4(CG, 28)
#define K96(CG) K32(CG), K4(CG, 32), K4(CG, 36), K4(CG, 40), K4(CG, 44), K4(CG, 48), K4(CG, 52), \
        K4(CG, 56), K4(CG, 60), K4(CG, 64), K4(CG, 68), K4(CG, 72), K4(CG, 76), K4(CG, 80), K4(CG, 84), \
        K4(CG, 88), K4(CG, 92)
#define NKERN 96
static const kfn kernels[2][NKERN] = {{K96(0)}, {K96(1)}};

int main()
{
    static struct pat P[NKERN + 1];
    int n = make_patterns(P);
    if (n > NKERN)
        return 2;
    float4 *in;
    float *out;
    int *chunk, *src;
    cudaMalloc(&in, 512 * sizeof(float4));
    cudaMalloc(&out, 64 * sizeof(float));
    cudaMalloc(&chunk, 32 * sizeof(int));
    cudaMalloc(&src, 32 * sizeof(int));
    cudaMemset(in, 0, 512 * sizeof(float4));
    for (int cg = 1; cg >= 0; cg--)
        for (int p = 0; p < n; p++) {
            cudaMemcpy(chunk, P[p].chunk, sizeof P[p].chunk, cudaMemcpyHostToDevice);
            cudaMemcpy(src, P[p].src, sizeof P[p].src, cudaMemcpyHostToDevice);
            kernels[cg][p]<<<1, 32>>>(in, chunk, src, P[p].mask, out);
            cudaError_t e = cudaDeviceSynchronize();
            printf("%s %d %s | lanes", cg ? "cg" : "ca", p, P[p].name);
            for (int l = 0; l < 32; l++)
                if ((P[p].mask >> l) & 1)
                    printf(" %d", l);
            printf(" | chunks");
            for (int l = 0; l < 32; l++)
                if ((P[p].mask >> l) & 1)
                    printf(" %d", P[p].chunk[l]);
            printf(" | sources");
            for (int l = 0; l < 32; l++)
                if ((P[p].mask >> l) & 1)
                    printf(" %d", P[p].src[l]);
            printf(" | %s\n", cudaGetErrorString(e));
            if (e != cudaSuccess)
                return 1;
        }
    return 0;
}
