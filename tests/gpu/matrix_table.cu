/* matrix_table.cu: the measurements behind the matrix-instruction model: one warp
 * executes one shared-memory instruction (ldmatrix, stmatrix, cp.async, or a plain ld/st.shared
 * as a control) REPS times at fixed per-lane byte offsets; Nsight Compute (run by
 * tests/gpu/matrix_table.sh) counts its wavefronts and bank conflicts, one launch per case.
 * Standalone on purpose: it does not use banklab's own CUPTI code.
 *
 *   matrix_table list            the cases as JSON (one object a line), no GPU needed
 *   matrix_table run [FIRST N]   launch the cases (each kernel m_<kind>) in order, then print
 *                                per case the cycles per instruction (clock64, one run without
 *                                ncu) and the data checks of the lane-to-row mapping
 *
 * Build: nvcc -arch=sm_90 -lineinfo -o matrix_table matrix_table.cu */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <cuda_runtime.h>

#define REPS 100
#define SMEM 16384
#define MAXCASES 256

enum kind {
    K_LDSM_X1, K_LDSM_X2, K_LDSM_X4, K_LDSM_X1_T, K_LDSM_X2_T, K_LDSM_X4_T,
    K_STSM_X1, K_STSM_X2, K_STSM_X4, K_STSM_X1_T, K_STSM_X2_T, K_STSM_X4_T,
    K_CPA_CA4, K_CPA_CA8, K_CPA_CA16, K_CPA_CG16,
    K_LD32, K_LD64, K_LD128, K_ST32, K_ST64, K_ST128,
    K_COUNT
};
static const char *kind_instr[K_COUNT] = {
    "ldmatrix", "ldmatrix", "ldmatrix", "ldmatrix", "ldmatrix", "ldmatrix",
    "stmatrix", "stmatrix", "stmatrix", "stmatrix", "stmatrix", "stmatrix",
    "cp.async", "cp.async", "cp.async", "cp.async",
    "ld.shared", "ld.shared", "ld.shared", "st.shared", "st.shared", "st.shared"};
static const char *kind_variant[K_COUNT] = {
    "x1", "x2", "x4", "x1.trans", "x2.trans", "x4.trans",
    "x1", "x2", "x4", "x1.trans", "x2.trans", "x4.trans",
    "ca.4", "ca.8", "ca.16", "cg.16",
    "b32", "v2.b32", "v4.b32", "b32", "v2.b32", "v4.b32"};
static const int kind_width[K_COUNT] = {16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
                                        4,  8,  16, 16, 4,  8,  16, 4,  8,  16};

#define SHARED_ADDR(p) ((unsigned)__cvta_generic_to_shared(p))

template <int K>
__global__ void m_kernel(const unsigned *off, const uint4 *gsrc, const unsigned *goff,
                         unsigned mask, unsigned *out, long long *cyc)
{
    __shared__ __align__(1024) unsigned char smem[SMEM];
    int lane = threadIdx.x & 31;
    unsigned a = SHARED_ADDR(smem) + off[lane];
    unsigned r0 = lane, r1 = lane * 3, r2 = lane * 5, r3 = lane * 7;
    const char *g = (const char *)gsrc + goff[lane];
    bool on = (mask >> lane) & 1u;
    long long t0 = clock64();
#pragma unroll 1
    for (int i = 0; i < REPS; i++) {
        if (K == K_LDSM_X1)
            asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "+r"(r0) : "r"(a));
        if (K == K_LDSM_X2)
            asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
                         : "+r"(r0), "+r"(r1) : "r"(a));
        if (K == K_LDSM_X4)
            asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                         : "+r"(r0), "+r"(r1), "+r"(r2), "+r"(r3) : "r"(a));
        if (K == K_LDSM_X1_T)
            asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "+r"(r0) : "r"(a));
        if (K == K_LDSM_X2_T)
            asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                         : "+r"(r0), "+r"(r1) : "r"(a));
        if (K == K_LDSM_X4_T)
            asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                         : "+r"(r0), "+r"(r1), "+r"(r2), "+r"(r3) : "r"(a));
        if (K == K_STSM_X1)
            asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" :: "r"(a), "r"(r0) : "memory");
        if (K == K_STSM_X2)
            asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};"
                         :: "r"(a), "r"(r0), "r"(r1) : "memory");
        if (K == K_STSM_X4)
            asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};"
                         :: "r"(a), "r"(r0), "r"(r1), "r"(r2), "r"(r3) : "memory");
        if (K == K_STSM_X1_T)
            asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" :: "r"(a), "r"(r0) : "memory");
        if (K == K_STSM_X2_T)
            asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};"
                         :: "r"(a), "r"(r0), "r"(r1) : "memory");
        if (K == K_STSM_X4_T)
            asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};"
                         :: "r"(a), "r"(r0), "r"(r1), "r"(r2), "r"(r3) : "memory");
        if (K == K_CPA_CA4 && on)
            asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(a), "l"(g) : "memory");
        if (K == K_CPA_CA8 && on)
            asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" :: "r"(a), "l"(g) : "memory");
        if (K == K_CPA_CA16 && on)
            asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" :: "r"(a), "l"(g) : "memory");
        if (K == K_CPA_CG16 && on)
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(a), "l"(g) : "memory");
        if (K >= K_CPA_CA4 && K <= K_CPA_CG16) {
            asm volatile("cp.async.commit_group;" ::: "memory");
            asm volatile("cp.async.wait_group 0;" ::: "memory");
        }
        if (K == K_LD32 && on)
            asm volatile("ld.volatile.shared.b32 %0, [%1];" : "=r"(r1) : "r"(a) : "memory");
        if (K == K_LD64 && on)
            asm volatile("ld.volatile.shared.v2.b32 {%0, %1}, [%2];" : "=r"(r1), "=r"(r2) : "r"(a) : "memory");
        if (K == K_LD128 && on)
            asm volatile("ld.volatile.shared.v4.b32 {%0, %1, %2, %3}, [%4];"
                         : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a) : "memory");
        if (K == K_ST32 && on)
            asm volatile("st.volatile.shared.b32 [%0], %1;" :: "r"(a), "r"(r0) : "memory");
        if (K == K_ST64 && on)
            asm volatile("st.volatile.shared.v2.b32 [%0], {%1, %2};" :: "r"(a), "r"(r0), "r"(r1) : "memory");
        if (K == K_ST128 && on)
            asm volatile("st.volatile.shared.v4.b32 [%0], {%1, %2, %3, %4};"
                         :: "r"(a), "r"(r0), "r"(r1), "r"(r2), "r"(r3) : "memory");
    }
    long long t1 = clock64();
    out[lane] = r0 + r1 + r2 + r3;
    cyc[lane] = t1 - t0;
}

/* The data check (not profiled: ncu is told to profile m_* only): fill a tile with each
 * half-word's own index, ldmatrix it and compare every register with what PTX says lane l
 * receives when lane 8i+j gives the address of row j of matrix i. Returns mismatches. */
__global__ void chk_ldsm(const unsigned *off, int x, int trans, unsigned *bad)
{
    __shared__ __align__(1024) unsigned short t[SMEM / 2];
    for (int i = threadIdx.x; i < SMEM / 2; i += blockDim.x)
        t[i] = (unsigned short)i;
    __syncthreads();
    int l = threadIdx.x & 31;
    unsigned a = SHARED_ADDR(t) + off[l];
    unsigned r[4] = {0, 0, 0, 0};
    if (x == 1 && !trans) asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(a));
    if (x == 2 && !trans) asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(a));
    if (x == 4 && !trans) asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));
    if (x == 1 && trans) asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(a));
    if (x == 2 && trans) asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(a));
    if (x == 4 && trans) asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));
    unsigned nbad = 0;
    for (int i = 0; i < x; i++)
        for (int h = 0; h < 2; h++) {
            unsigned got = (r[i] >> (16 * h)) & 0xffffu;
            int row, col; /* of matrix i, as stored */
            if (!trans) { row = l / 4; col = 2 * (l % 4) + h; }
            else { row = 2 * (l % 4) + h; col = l / 4; }
            unsigned want = (off[8 * i + row] / 2 + col) & 0xffffu;
            nbad += got != want;
        }
    atomicAdd(bad, nbad);
}

/* stmatrix check: each lane stores its fragment (value = 256*matrix + 8*row + col of the
 * fragment, in the layout PTX gives), then every row address is read back with plain loads:
 * memory row j, column c holds fragment (j, c), or (c, j) with .trans. */
__global__ void chk_stsm(const unsigned *off, int x, int trans, unsigned *bad)
{
    __shared__ __align__(1024) unsigned short t[SMEM / 2];
    for (int i = threadIdx.x; i < SMEM / 2; i += blockDim.x)
        t[i] = 0xffff;
    __syncthreads();
    int l = threadIdx.x & 31;
    unsigned r[4];
    for (int i = 0; i < 4; i++) {
        unsigned v[2];
        for (int h = 0; h < 2; h++) /* fragment row l/4, column 2(l%4)+h */
            v[h] = 256 * i + 8 * (l / 4) + 2 * (l % 4) + h;
        r[i] = v[0] | (v[1] << 16);
    }
    unsigned a = SHARED_ADDR(t) + off[l];
    if (x == 1 && !trans) asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" :: "r"(a), "r"(r[0]) : "memory");
    if (x == 2 && !trans) asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1,%2};" :: "r"(a), "r"(r[0]), "r"(r[1]) : "memory");
    if (x == 4 && !trans) asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};" :: "r"(a), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]) : "memory");
    if (x == 1 && trans) asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" :: "r"(a), "r"(r[0]) : "memory");
    if (x == 2 && trans) asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1,%2};" :: "r"(a), "r"(r[0]), "r"(r[1]) : "memory");
    if (x == 4 && trans) asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1,%2,%3,%4};" :: "r"(a), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]) : "memory");
    __syncwarp();
    unsigned nbad = 0;
    if (l < 8 * x)
        for (int c = 0; c < 8; c++)
            nbad += t[off[l] / 2 + c] != (unsigned short)(trans ? 256 * (l / 8) + 8 * c + l % 8
                                                                : 256 * (l / 8) + 8 * (l % 8) + c);
    atomicAdd(bad, nbad);
}

/* ---- the cases ---- */
struct mcase {
    char name[64];
    int kind;
    unsigned mask;
    unsigned off[32];
    unsigned goff[32];
    char layout[160];
};
static struct mcase cases[MAXCASES];
static int ncases;

/* CuTe's Swizzle<B,M,S> on a byte offset: x ^ ((x & (((1<<B)-1) << (M+S))) >> S). */
static unsigned swz(int b, int m, int s, unsigned x)
{
    if (b == 0)
        return x;
    unsigned yyy = ((1u << b) - 1u) << (m + s);
    return x ^ ((x & yyy) >> s);
}

/* rowmap: which tile row and 16-byte chunk lane l addresses. */
enum rowmap { RM_ROW = 0, RM_FRAG, RM_PAIR, RM_SAME, RM_MOD8, RM_UPPER_BAD, RM_LOWER_BAD, RM_MOD4CHUNK };
static const char *rowmap_text[] = {
    "lane l -> row l, chunk 0",
    "lane l -> row l%16, chunk l/16 (an A fragment of a 16x16 tile)",
    "lane l -> row l/2, chunk 0 (two lanes per row address)",
    "every lane -> row 0, chunk 0",
    "lane l -> row l%8, chunk 0 (all four matrices the same 8 rows)",
    "lanes 0-7 -> rows 0-7 at pitch 144; lanes 8-31 -> row l, chunk 0 at pitch 128",
    "lanes 0-7 -> row l, chunk 0 at pitch 128; lanes 8-31 -> rows 8-31 at pitch 144",
    "lane l -> row l, chunk (l%4)",
};

static void add_case(const char *name, int kind, unsigned mask, const unsigned *off,
                     const unsigned *goff, const char *layout)
{
    if (ncases >= MAXCASES) {
        fprintf(stderr, "too many cases\n");
        exit(2);
    }
    struct mcase *c = &cases[ncases++];
    snprintf(c->name, sizeof c->name, "%s", name);
    c->kind = kind;
    c->mask = mask;
    memcpy(c->off, off, sizeof c->off);
    for (int l = 0; l < 32; l++) {
        c->goff[l] = goff ? goff[l] : (unsigned)(l * kind_width[kind]);
        if (off[l] % kind_width[kind] || off[l] + kind_width[kind] > SMEM) {
            fprintf(stderr, "case %s: lane %d offset %u not legal\n", name, l, off[l]);
            exit(2);
        }
    }
    snprintf(c->layout, sizeof c->layout, "%s", layout);
}

/* A tile of 16-byte rows: lane l's offset for a row map, pitch and swizzle. */
static void tile_offsets(int rm, unsigned pitch, int sb, int sm, int ss, unsigned *off)
{
    for (int l = 0; l < 32; l++) {
        unsigned row = l, chunk = 0;
        switch (rm) {
        case RM_FRAG: row = l % 16; chunk = l / 16; break;
        case RM_PAIR: row = l / 2; break;
        case RM_SAME: row = 0; break;
        case RM_MOD8: row = l % 8; break;
        case RM_MOD4CHUNK: chunk = l % 4; break;
        case RM_UPPER_BAD: if (l < 8) { off[l] = l * 144; continue; } break;
        case RM_LOWER_BAD: if (l >= 8) { off[l] = l * 144; continue; } break;
        default: break;
        }
        off[l] = swz(sb, sm, ss, row * pitch + chunk * 16);
    }
}

static void add_tile(const char *base, int kind, int rm, unsigned pitch, int sb, int sm, int ss)
{
    unsigned off[32];
    char name[64], lay[160];
    tile_offsets(rm, pitch, sb, sm, ss, off);
    if (sb)
        snprintf(name, sizeof name, "%s_%s_p%u_sw%d%d%d", kind_instr[kind][0] == 'l' ? "ldsm" : "stsm",
                 kind_variant[kind], pitch, sb, sm, ss);
    else
        snprintf(name, sizeof name, "%s_%s_p%u", kind_instr[kind][0] == 'l' ? "ldsm" : "stsm",
                 kind_variant[kind], pitch);
    if (base)
        snprintf(name + strlen(name), sizeof name - strlen(name), "_%s", base);
    for (char *p = name; *p; p++)
        if (*p == '.')
            *p = '_';
    if (sb)
        snprintf(lay, sizeof lay, "%s; pitch %u bytes; Swizzle<%d,%d,%d> on the byte offset",
                 rowmap_text[rm], pitch, sb, sm, ss);
    else
        snprintf(lay, sizeof lay, "%s; pitch %u bytes", rowmap_text[rm], pitch);
    add_case(name, kind, 0xffffffffu, off, NULL, lay);
}

/* lane offsets l*stride (+ base), for cp.async and the controls. */
static void add_strided(const char *name, int kind, unsigned mask, unsigned stride, const char *lay,
                        const unsigned *goff)
{
    unsigned off[32];
    for (int l = 0; l < 32; l++)
        off[l] = (l * stride) % SMEM;
    add_case(name, kind, mask, off, goff, lay);
}

static void build_x4_cases(void);
static void build_cp_async_cases(void);

static void build_cases(void)
{
    /* ldmatrix and stmatrix: the six variants at the five main layouts */
    static const int mat[] = {K_LDSM_X1, K_LDSM_X2, K_LDSM_X4, K_LDSM_X1_T, K_LDSM_X2_T, K_LDSM_X4_T,
                              K_STSM_X1, K_STSM_X2, K_STSM_X4, K_STSM_X1_T, K_STSM_X2_T, K_STSM_X4_T};
    for (int k = 0; k < 12; k++) {
        int kind = mat[k];
        add_tile(NULL, kind, RM_ROW, 128, 0, 0, 0);   /* 8 rows in one bank group: 8-way */
        add_tile(NULL, kind, RM_ROW, 144, 0, 0, 0);   /* padded by one chunk */
        add_tile(NULL, kind, RM_ROW, 128, 3, 4, 3);   /* TMA 128B swizzle */
        if (kind < K_STSM_X1 || kind == K_STSM_X4 || kind == K_STSM_X4_T) {
            add_tile(NULL, kind, RM_ROW, 128, 2, 4, 3);   /* 64B swizzle on 128-byte rows */
            add_tile(NULL, kind, RM_ROW, 128, 1, 4, 3);   /* 32B swizzle on 128-byte rows */
        }
    }
    build_x4_cases();
    build_cp_async_cases();
}

/* ldmatrix.x4 and stmatrix.x4: more layouts, and lanes that give no address */
static void build_x4_cases(void)
{
    static const int x4[] = {K_LDSM_X4, K_STSM_X4};
    for (int k = 0; k < 2; k++) {
        int kind = x4[k];
        add_tile(NULL, kind, RM_ROW, 64, 0, 0, 0);
        add_tile(NULL, kind, RM_ROW, 64, 2, 4, 3);
        add_tile(NULL, kind, RM_ROW, 32, 0, 0, 0);
        add_tile(NULL, kind, RM_ROW, 32, 1, 4, 3);
        add_tile(NULL, kind, RM_ROW, 16, 0, 0, 0);
        add_tile("frag", kind, RM_FRAG, 128, 0, 0, 0);
        add_tile("frag", kind, RM_FRAG, 128, 3, 4, 3);
        add_tile("pair", kind, RM_PAIR, 128, 0, 0, 0);
        add_tile("pair", kind, RM_PAIR, 144, 0, 0, 0);
        add_tile("same", kind, RM_SAME, 128, 0, 0, 0);
        add_tile("mod8", kind, RM_MOD8, 144, 0, 0, 0);
        add_tile("mod8", kind, RM_MOD8, 128, 0, 0, 0);
        add_tile("chunk4", kind, RM_MOD4CHUNK, 128, 0, 0, 0);
        add_tile(NULL, kind, RM_ROW, 144, 3, 4, 3);   /* padding and a swizzle together */
        add_tile(NULL, kind, RM_ROW, 256, 0, 0, 0);
    }
    /* lanes that supply no address for .x1/.x2: their offsets should not count */
    add_tile("upperbad", K_LDSM_X1, RM_UPPER_BAD, 128, 0, 0, 0);
    add_tile("lowerbad", K_LDSM_X1, RM_LOWER_BAD, 128, 0, 0, 0);
    add_tile("upperbad", K_LDSM_X2, RM_UPPER_BAD, 128, 0, 0, 0);
    add_tile("upperbad", K_STSM_X1, RM_UPPER_BAD, 128, 0, 0, 0);
    add_tile("lowerbad", K_STSM_X1, RM_LOWER_BAD, 128, 0, 0, 0);
}

/* cp.async at several layouts (the global side contiguous unless said), then the controls */
static void build_cp_async_cases(void)
{
    static const int cpk[] = {K_CPA_CA4, K_CPA_CA8, K_CPA_CA16, K_CPA_CG16};
    static const char *cpn[] = {"cpa_ca4", "cpa_ca8", "cpa_ca16", "cpa_cg16"};
    for (int k = 0; k < 4; k++) {
        int kind = cpk[k];
        unsigned w = kind_width[kind];
        char name[64], lay[160];
        snprintf(name, sizeof name, "%s_stride1", cpn[k]);
        snprintf(lay, sizeof lay, "lane l -> byte %u*l (contiguous)", w);
        add_strided(name, kind, 0xffffffffu, w, lay, NULL);
        snprintf(name, sizeof name, "%s_stride2", cpn[k]);
        snprintf(lay, sizeof lay, "lane l -> byte %u*l", 2 * w);
        add_strided(name, kind, 0xffffffffu, 2 * w, lay, NULL);
        snprintf(name, sizeof name, "%s_pitch128", cpn[k]);
        add_strided(name, kind, 0xffffffffu, 128, "lane l -> byte 128*l (one column of 128-byte rows)", NULL);
        snprintf(name, sizeof name, "%s_same", cpn[k]);
        add_strided(name, kind, 0xffffffffu, 0, "every lane -> byte 0", NULL);
        snprintf(name, sizeof name, "%s_half", cpn[k]);
        snprintf(lay, sizeof lay, "lanes 0-15 active, lane l -> byte %u*l", w);
        add_strided(name, kind, 0x0000ffffu, w, lay, NULL);
        if (w == 16) {
            unsigned off[32];
            tile_offsets(RM_ROW, 128, 3, 4, 3, off);
            snprintf(name, sizeof name, "%s_p128_sw343", cpn[k]);
            add_case(name, kind, 0xffffffffu, off, NULL, "lane l -> row l, chunk 0; pitch 128 bytes; Swizzle<3,4,3> on the byte offset");
            snprintf(name, sizeof name, "%s_pitch144", cpn[k]);
            add_strided(name, kind, 0xffffffffu, 144, "lane l -> byte 144*l", NULL);
            unsigned g[32];
            for (int l = 0; l < 32; l++)
                g[l] = l * 128;
            snprintf(name, sizeof name, "%s_stride1_gscatter", cpn[k]);
            add_strided(name, kind, 0xffffffffu, 16, "lane l -> byte 16*l; global source 128*l bytes (uncoalesced)", g);
            snprintf(name, sizeof name, "%s_even", cpn[k]);
            add_strided(name, kind, 0x55555555u, 16, "even lanes active, lane l -> byte 16*l", NULL);
        }
        if (w == 4) {
            snprintf(name, sizeof name, "%s_stride33w", cpn[k]);
            add_strided(name, kind, 0xffffffffu, 132, "lane l -> byte 132*l (a padded column)", NULL);
        }
        if (w == 8) {
            snprintf(name, sizeof name, "%s_pitch136", cpn[k]);
            add_strided(name, kind, 0xffffffffu, 136, "lane l -> byte 136*l", NULL);
        }
    }
    /* cp.async: which global lines (or sectors) the source lies in, the shared side the same */
    {
        unsigned g[32];
        for (int l = 0; l < 32; l++) g[l] = 8 * l;                /* 2 lines, 8 sectors */
        add_strided("cpa_ca4_stride1_g8", K_CPA_CA4, 0xffffffffu, 4, "lane l -> byte 4*l; global source 8*l bytes (2 lines, 8 sectors)", g);
        for (int l = 0; l < 32; l++) g[l] = 4 * l + 128 * (l % 2); /* interleaved lines */
        add_strided("cpa_ca4_stride1_gpair", K_CPA_CA4, 0xffffffffu, 4, "lane l -> byte 4*l; global source 4*l + 128*(l%2) (even and odd lanes in 2 lines)", g);
        for (int l = 0; l < 32; l++) g[l] = 0;                    /* one source word */
        add_strided("cpa_ca4_stride1_gsame", K_CPA_CA4, 0xffffffffu, 4, "lane l -> byte 4*l; every lane's source at byte 0", g);
        for (int l = 0; l < 32; l++) g[l] = 64 + 16 * l;           /* lines straddle the passes */
        add_strided("cpa_ca16_stride1_g64", K_CPA_CA16, 0xffffffffu, 16, "lane l -> byte 16*l; global source 64 + 16*l (5 lines)", g);
        for (int l = 0; l < 32; l++) g[l] = (7 - l % 8) * 16 + (l / 8) * 128; /* permuted */
        add_strided("cpa_ca16_stride1_grev", K_CPA_CA16, 0xffffffffu, 16, "lane l -> byte 16*l; global source reversed within each 128-byte line", g);
        for (int l = 0; l < 32; l++) g[l] = 128 * l;
        add_strided("cpa_ca8_stride1_gscatter", K_CPA_CA8, 0xffffffffu, 8, "lane l -> byte 8*l; global source 128*l bytes (uncoalesced)", g);
        for (int l = 0; l < 32; l++) g[l] = 32 * l;                /* a sector a lane, 4 lines */
        add_strided("cpa_ca4_stride1_g32", K_CPA_CA4, 0xffffffffu, 4, "lane l -> byte 4*l; global source 32*l bytes (a sector a lane, 8 lines)", g);
    }
    /* controls: plain loads and stores at the same offsets, which tests/data/h200-wavefronts.json
     * and the bank model already know */
    static const int ctl[] = {K_LD32, K_LD64, K_LD128, K_ST32, K_ST64, K_ST128};
    static const char *ctn[] = {"lds32", "lds64", "lds128", "sts32", "sts64", "sts128"};
    for (int k = 0; k < 6; k++) {
        unsigned w = kind_width[ctl[k]];
        char name[64], lay[160];
        snprintf(name, sizeof name, "%s_stride1", ctn[k]);
        snprintf(lay, sizeof lay, "lane l -> byte %u*l (contiguous)", w);
        add_strided(name, ctl[k], 0xffffffffu, w, lay, NULL);
        snprintf(name, sizeof name, "%s_stride2", ctn[k]);
        snprintf(lay, sizeof lay, "lane l -> byte %u*l", 2 * w);
        add_strided(name, ctl[k], 0xffffffffu, 2 * w, lay, NULL);
        if (w == 16) {
            snprintf(name, sizeof name, "%s_pitch128", ctn[k]);
            add_strided(name, ctl[k], 0xffffffffu, 128, "lane l -> byte 128*l (one column of 128-byte rows)", NULL);
        }
    }
}

static void print_case_json(const struct mcase *c, int idx)
{
    printf("{\"index\":%d,\"name\":\"%s\",\"kernel\":\"m_kernel<%d>\",\"instruction\":\"%s\","
           "\"variant\":\"%s\",\"width\":%d,\"mask\":\"%08x\",\"layout\":\"%s\",\"offsets\":[",
           idx, c->name, c->kind, kind_instr[c->kind], kind_variant[c->kind], kind_width[c->kind],
           c->mask, c->layout);
    for (int l = 0; l < 32; l++)
        printf("%s%u", l ? "," : "", c->off[l]);
    printf("]");
    if (c->kind >= K_CPA_CA4 && c->kind <= K_CPA_CG16) {
        printf(",\"global_offsets\":[");
        for (int l = 0; l < 32; l++)
            printf("%s%u", l ? "," : "", c->goff[l]);
        printf("]");
    }
    printf("}\n");
}

typedef void (*mfn)(const unsigned *, const uint4 *, const unsigned *, unsigned, unsigned *, long long *);
static mfn kernels[K_COUNT] = {
    m_kernel<0>,  m_kernel<1>,  m_kernel<2>,  m_kernel<3>,  m_kernel<4>,  m_kernel<5>,
    m_kernel<6>,  m_kernel<7>,  m_kernel<8>,  m_kernel<9>,  m_kernel<10>, m_kernel<11>,
    m_kernel<12>, m_kernel<13>, m_kernel<14>, m_kernel<15>, m_kernel<16>, m_kernel<17>,
    m_kernel<18>, m_kernel<19>, m_kernel<20>, m_kernel<21>};

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(3); } } while (0)

static void run_checks(unsigned *d_off, unsigned *d_bad)
{
    /* lane-to-row mapping at the A-fragment layout with a swizzle (distinct rows everywhere) */
    unsigned off[32];
    tile_offsets(RM_FRAG, 128, 3, 4, 3, off);
    CK(cudaMemcpy(d_off, off, sizeof off, cudaMemcpyHostToDevice));
    for (int st = 0; st < 2; st++)
        for (int x = 1; x <= 4; x *= 2)
            for (int tr = 0; tr < 2; tr++) {
                unsigned bad = 0;
                CK(cudaMemset(d_bad, 0, sizeof bad));
                if (st)
                    chk_stsm<<<1, 32>>>(d_off, x, tr, d_bad);
                else
                    chk_ldsm<<<1, 32>>>(d_off, x, tr, d_bad);
                CK(cudaDeviceSynchronize());
                CK(cudaMemcpy(&bad, d_bad, sizeof bad, cudaMemcpyDeviceToHost));
                printf("{\"check\":\"%s.x%d%s\",\"mismatches\":%u}\n", st ? "stmatrix" : "ldmatrix", x,
                       tr ? ".trans" : "", bad);
            }
}

int main(int argc, char **argv)
{
    build_cases();
    if (argc >= 2 && strcmp(argv[1], "list") == 0) {
        for (int i = 0; i < ncases; i++)
            print_case_json(&cases[i], i);
        return 0;
    }
    if (argc < 2 || strcmp(argv[1], "run") != 0) {
        fprintf(stderr, "usage: %s list | run [FIRST N]\n", argv[0]);
        return 2;
    }
    int first = argc >= 3 ? atoi(argv[2]) : 0;
    int n = argc >= 4 ? atoi(argv[3]) : ncases - first;
    if (first < 0 || first > ncases || n < 0)
        first = n = 0;
    if (first + n > ncases)
        n = ncases - first;
    unsigned *d_off, *d_goff, *d_out, *d_bad;
    long long *d_cyc;
    uint4 *d_src;
    CK(cudaMalloc(&d_off, 32 * sizeof(unsigned)));
    CK(cudaMalloc(&d_goff, 32 * sizeof(unsigned)));
    CK(cudaMalloc(&d_out, 32 * sizeof(unsigned)));
    CK(cudaMalloc(&d_bad, sizeof(unsigned)));
    CK(cudaMalloc(&d_cyc, 32 * sizeof(long long)));
    CK(cudaMalloc(&d_src, 8192));
    CK(cudaMemset(d_src, 0, 8192));
    for (int i = first; i < first + n; i++) {
        const struct mcase *c = &cases[i];
        CK(cudaMemcpy(d_off, c->off, sizeof c->off, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(d_goff, c->goff, sizeof c->goff, cudaMemcpyHostToDevice));
        kernels[c->kind]<<<1, 32>>>(d_off, d_src, d_goff, c->mask, d_out, d_cyc);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        long long cyc[32];
        CK(cudaMemcpy(cyc, d_cyc, sizeof cyc, cudaMemcpyDeviceToHost));
        printf("{\"index\":%d,\"name\":\"%s\",\"cycles_per_instruction\":%.2f}\n", i, c->name,
               (double)cyc[0] / REPS);
    }
    if (argc < 3)
        run_checks(d_off, d_bad);
    return 0;
}
