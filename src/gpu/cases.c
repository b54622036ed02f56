/* cases.c: the one table of case kernels (gpu.h struct gpu_case): names, parameters with
 * defaults and ranges, the taught shared access as the model sees it, and the settings
 * `banklab bench` measures. The runner (runner/cuda_cases.c), bench, verify, replay, the lesson
 * checker and the tutorial all read it; the kernels are in kernels/. No CUDA, no curses. */
#include <string.h>

#include "gpu.h"

/* Lane l's byte offset, for every lane, through expression E (of l and the values v[]). */
#define EACH_LANE(acc, E)                                                                       \
    do {                                                                                       \
        for (int l = 0; l < BANK_LANES; l++)                                                   \
            (acc)->offset[l] = (uint64_t)(E);                                                  \
    } while (0)

static void warp_load(struct bank_access *a, unsigned width)
{
    memset(a, 0, sizeof *a);
    a->width = width;
    a->op = BANK_LOAD;
    a->mask = 0xffffffffu;
}

/* tile[threadIdx.x][threadIdx.y] of the 32 x 8 block: lane l reads row l of the tile */
static int m_tile32(const long long *v, struct bank_access *a)
{
    (void)v;
    warp_load(a, 4);
    EACH_LANE(a, l * 32 * 4);
    return 0;
}

static int m_padded(const long long *v, struct bank_access *a)
{
    warp_load(a, 4);
    EACH_LANE(a, l * (32 + v[0]) * 4);
    return 0;
}

static int m_swizzled(const long long *v, struct bank_access *a)   /* tile[l][0 ^ l] */
{
    (void)v;
    warp_load(a, 4);
    EACH_LANE(a, (l * 32 + (0 ^ l)) * 4);
    return 0;
}

static int m_row_col(const long long *v, struct bank_access *a)    /* PAD, COLUMN */
{
    warp_load(a, 4);
    EACH_LANE(a, v[1] ? l * (32 + v[0]) * 4 : l * 4);
    return 0;
}

static int m_vector(const long long *v, struct bank_access *a)     /* VEC, PAD (in vectors) */
{
    warp_load(a, (unsigned)(4 * v[0]));
    EACH_LANE(a, l * (32 + v[1] * v[0]) * 4);
    return 0;
}

static int m_aos(const long long *v, struct bank_access *a)        /* FIELDS, SOA */
{
    warp_load(a, 4);
    EACH_LANE(a, v[1] ? l * 4 : l * v[0] * 4);
    return 0;
}

static int m_remap(const long long *v, struct bank_access *a)      /* m[l][k] or m[l][(l+k)%32] */
{
    warp_load(a, 4);
    EACH_LANE(a, l * 32 * 4 + (v[0] ? l * 4 : 0));
    return 0;
}

static int m_broadcast(const long long *v, struct bank_access *a)  /* GROUP, STRIDE */
{
    warp_load(a, 4);
    EACH_LANE(a, (((l / v[0]) * v[1]) & 1023) * 4);
    return 0;
}

static const struct gpu_case_param p_padded[] = {{"PAD", NULL, 1, 0, 32}};
static const struct gpu_case_param p_row_col[] = {{"PAD", NULL, 0, 0, 32},
                                                  {"COLUMN", "COL", 1, 0, 1}};
static const struct gpu_case_param p_vector[] = {{"VEC", NULL, 4, 1, 4}, {"PAD", NULL, 0, 0, 8}};
static const struct gpu_case_param p_aos[] = {{"FIELDS", NULL, 4, 1, 8},
                                              {"SOA", "LAYOUT", 0, 0, 1}};
static const struct gpu_case_param p_remap[] = {{"REMAP", NULL, 1, 0, 1}};
static const struct gpu_case_param p_bcast[] = {{"GROUP", NULL, 32, 1, 32},
                                                {"STRIDE", NULL, 1, 0, 1024}};
static const struct gpu_case_param p_carve[] = {{"N", NULL, 1024, 32, 4096},
                                                {"PAD_BYTES", "PAD", 0, 0, 64}};

/* The settings bench measures, nparams values a row. */
static const long long b_padded[] = {1};
static const long long b_row_col[] = {0, 0, 0, 1, 1, 1};
static const long long b_vector[] = {1, 0, 1, 1, 2, 0, 2, 1, 4, 0, 4, 1};
static const long long b_aos[] = {2, 0, 3, 0, 4, 0, 4, 1};
static const long long b_remap[] = {0, 1};
static const long long b_bcast[] = {32, 1, 4, 1, 1, 32};
static const long long b_carve[] = {1024, 0, 1000, 0};

#define N(t) (int)(sizeof t / sizeof t[0])
static const struct gpu_case cases[] = {
    {"memcpy", 1, NULL, 0,
     "cudaMemcpy device to device: the copy ceiling", NULL, NULL, 1, 1},
    {"copy", 1, NULL, 0,
     "a float4 copy kernel, no shared memory: the GB/s a transpose should reach", NULL, NULL, 1,
     0},
    {"copy_tile32", 1, NULL, 0,
     "a copy through `tile[32][32]` with the transposes' shape", NULL, NULL, 1, 0},
    {"transpose_naive", 1, NULL, 0,
     "strided global writes, no shared memory", NULL, NULL, 1, 0},
    {"transpose_tile32", 1, NULL, 0,
     "`tile[32][32]`, column read: 32-way", m_tile32, NULL, 1, 0},
    {"transpose_padded", 1, p_padded, N(p_padded),
     "`tile[32][32+PAD]`", m_padded, b_padded, 1, 0},
    {"transpose_swizzled", 1, NULL, 0,
     "`tile[r][c ^ r]`", m_swizzled, NULL, 1, 0},
    {"row_col", 0, p_row_col, N(p_row_col),
     "`m[32][32+PAD]`, row or column read", m_row_col, b_row_col, N(b_row_col) / 2, 0},
    {"vector_width", 0, p_vector, N(p_vector),
     "float/float2/float4 column of 128-byte rows", m_vector, b_vector, N(b_vector) / 2, 0},
    {"aos_soa", 0, p_aos, N(p_aos), "`p[t].f` vs `f[t]`", m_aos, b_aos,
     N(b_aos) / 2, 0},
    {"remap", 0, p_remap, N(p_remap),
     "row sums: `m[l][k]` vs skewed `m[l][(l+k)%32]`", m_remap, b_remap, N(b_remap), 0},
    {"broadcast", 0, p_bcast, N(p_bcast), "`s[(l/GROUP)*STRIDE + k]`",
     m_broadcast, b_bcast, N(b_bcast) / 2, 0},
    {"dynamic_carve", 0, p_carve, N(p_carve),
     "float/double/int arrays carved from one `extern __shared__` buffer; a misaligned double "
     "array is refused before launch", NULL, b_carve, N(b_carve) / 2, 0},
};

int gpu_case_count(void)
{
    return N(cases);
}
#undef N

const struct gpu_case *gpu_case_at(int i)
{
    return i >= 0 && i < GPU_CASE_COUNT ? &cases[i] : NULL;
}

const struct gpu_case *gpu_case_find(const char *name)
{
    for (int i = 0; name && i < GPU_CASE_COUNT; i++)
        if (!strcmp(cases[i].name, name))
            return &cases[i];
    return NULL;
}

const struct gpu_case_param *gpu_case_info(const char *name, int *n)
{
    const struct gpu_case *c = gpu_case_find(name);
    *n = c ? c->nparams : 0;
    return c ? c->params : NULL;
}

int gpu_case_param_index(const char *case_name, const char *scene_name)
{
    const struct gpu_case *c = gpu_case_find(case_name);
    for (int i = 0; c && i < c->nparams; i++)
        if (!strcmp(c->params[i].name, scene_name) ||
            (c->params[i].alias && !strcmp(c->params[i].alias, scene_name)))
            return i;
    return -1;
}

int gpu_case_values(const struct gpu_request *q, long long v[GPU_CASE_MAX_PARAMS])
{
    const struct gpu_case *c = gpu_case_find(q->case_name);
    if (!c)
        return -1;
    for (int i = 0; i < c->nparams && i < GPU_CASE_MAX_PARAMS; i++) {
        const struct gpu_case_param *p = &c->params[i];
        v[i] = p->def;
        for (int k = 0; k < q->nparams && k < GPU_CASE_MAX_PARAMS; k++)
            if (!strcmp(q->param_name[k], p->name) ||
                (p->alias && !strcmp(q->param_name[k], p->alias)))
                v[i] = q->param_value[k];
    }
    return c->nparams;
}

int gpu_case_check(const struct gpu_case *c, const long long *v)
{
    for (int i = 0; i < c->nparams; i++)
        if (v[i] < c->params[i].min || v[i] > c->params[i].max)
            return i;
    return -1;
}

int gpu_case_model(const struct gpu_request *req, struct bank_access *acc)
{
    const struct gpu_case *c = gpu_case_find(req->case_name);
    long long v[GPU_CASE_MAX_PARAMS];
    if (!c || !c->model || gpu_case_values(req, v) < 0 || gpu_case_check(c, v) >= 0)
        return -1;
    return c->model(v, acc);
}
