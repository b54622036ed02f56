/* cuda_cases.c: the case kernels of the table (gpu.h struct gpu_case, src/gpu/cases.c) on the
 * device: their launch configuration, the inputs, timing and counters, and a CPU reference each
 * output is compared with before anything is reported (zeroed before the run, so a kernel that
 * writes nothing cannot pass on old data). Runs on the runner's worker thread; case_measure
 * while it holds the device lock. No curses, no cJSON; never prints. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/kernels.h"
#include "cuda_internal.h"

/* ---- the device's side of the case table: adding a case kernel is its row in cases.c, its
 * row here and its kernel file ---- */

static int matrix_memcpy(const struct case_run *c)
{
    return (int)cudaMemcpyAsync(c->out, c->in, (size_t)c->n * c->n * sizeof(float),
                                cudaMemcpyDeviceToDevice, 0);
}

static int matrix_copy(const struct case_run *c)
{
    return bl_copy_launch(c->out, c->in, (size_t)c->n * c->n, c->blocks);
}

static int matrix_transpose(const struct case_run *c)
{
    return bl_transpose_launch(c->kind, c->out, c->in, c->n, c->a);
}

/* Warp-level shared loads of the taught access per warp round, at the values a, b. */
static double loads_warp(int a) { (void)a; return 32; }
static double loads_vec(int a) { return 32 / (a ? a : 1); }
static double loads_fields(int a) { return a; }

/* The sum thread t (lane l) of block b reads once in its loop (the kernel repeats it). */
static double sum_row_col(const struct case_run *c, const float *in, long b, int t)
{
    double s = 0;
    for (int k = 0; k < 32; k++)
        s += c->b ? in[b * 1024 + (t & 31) * 32 + k] : in[b * 1024 + k * 32 + (t & 31)];
    return s;
}

static double sum_row(const struct case_run *c, const float *in, long b, int t)
{
    double s = 0;
    (void)c;
    for (int k = 0; k < 32; k++)
        s += in[b * 1024 + (t & 31) * 32 + k];
    return s;
}

static double sum_fields(const struct case_run *c, const float *in, long b, int t)
{
    double s = 0;
    for (int f = 0; f < c->a; f++)
        s += in[(size_t)b * BL_BLOCK_THREADS * c->a + (size_t)t * c->a + f];
    return s;
}

static double sum_broadcast(const struct case_run *c, const float *in, long b, int t)
{
    double s = 0;
    int base = ((t & 31) / c->a) * c->b;
    for (int k = 0; k < 32; k++)
        s += in[b * 1024 + ((base + k) & 1023)];
    return s;
}

static int setup_vector(const struct runner *R, struct case_run *c, struct gpu_result *res);
static int setup_carve(const struct runner *R, struct case_run *c, struct gpu_result *res);
static long check_carve(const struct runner *R, const struct case_run *c);

/* A case kernel on the device, by the name of its row in cases.c. A matrix case (8192 x 8192
 * floats) launches through matrix (kind: the enum bl_transpose it runs or checks as), a small
 * one through small with its loads and, to check the output, its per-thread sum or its own
 * check; setup: its own output size and the values the device refuses (NULL: the block's
 * 256 outputs, and the ranges of cases.c suffice). */
static const struct case_kernel {
    const char *name;
    int (*matrix)(const struct case_run *c);
    int kind;
    bl_case_launch small;
    double (*loads)(int a);
    double (*sum)(const struct case_run *c, const float *in, long b, int t);
    long (*check)(const struct runner *R, const struct case_run *c);
    int (*setup)(const struct runner *R, struct case_run *c, struct gpu_result *res);
} kernels[] = {
    {"memcpy", .matrix = matrix_memcpy, .kind = BL_COPY_TILE},
    {"copy", .matrix = matrix_copy, .kind = BL_COPY_TILE},
    {"copy_tile32", .matrix = matrix_transpose, .kind = BL_COPY_TILE},
    {"transpose_naive", .matrix = matrix_transpose, .kind = BL_T_NAIVE},
    {"transpose_tile32", .matrix = matrix_transpose, .kind = BL_T_TILE32},
    {"transpose_padded", .matrix = matrix_transpose, .kind = BL_T_PADDED},
    {"transpose_swizzled", .matrix = matrix_transpose, .kind = BL_T_SWIZZLED},
    {"row_col", .small = bl_row_col_launch, .loads = loads_warp, .sum = sum_row_col},
    {"vector_width", .small = bl_vector_width_launch, .loads = loads_vec, .sum = sum_row,
     .setup = setup_vector},
    {"aos_soa", .small = bl_aos_soa_launch, .loads = loads_fields, .sum = sum_fields},
    {"remap", .small = bl_remap_launch, .loads = loads_warp, .sum = sum_row},
    {"broadcast", .small = bl_broadcast_launch, .loads = loads_warp, .sum = sum_broadcast},
    {"dynamic_carve", .small = bl_dynamic_carve_launch, .check = check_carve, .setup = setup_carve},
};

static int l_case(void *arg)
{
    const struct case_run *c = arg;
    return c->k->matrix ? c->k->matrix(c)
                        : c->k->small(c->out, c->in, c->blocks, c->a, c->b, CASE_ROUNDS);
}

static int l_case_sync(void *arg) { return sync_launch(arg, l_case); }

/* The inputs on the host, made once (before the device lock: the transposes' take a while). */
static int host_inputs(struct runner *R, int big, struct gpu_result *res)
{
    if (big && !R->h_big_in) {
        size_t n = (size_t)TRANSPOSE_N * TRANSPOSE_N; /* the light mode uses the top-left part */
        R->h_big_in = malloc(n * sizeof(float));
        R->h_big_out = malloc(n * sizeof(float));
        if (!R->h_big_in || !R->h_big_out) {
            free(R->h_big_in);
            free(R->h_big_out);
            R->h_big_in = R->h_big_out = NULL;
            bl_fail(&res->err, GPU_EFAILED, BL_NOWHERE, GPU_OUT_OF_HOST_MEMORY_FOR, TRANSPOSE_N,
                     TRANSPOSE_N);
            return -1;
        }
        uint32_t s = 12345u;
        for (size_t i = 0; i < n; i++) {
            s = s * 1664525u + 1013904223u;
            R->h_big_in[i] = (float)(s >> 8) / 16777216.0f - 0.5f;
        }
    }
    if (!big && !R->h_small_in) {
        R->small_floats = (size_t)R->sms * 8 * SMALL_PER_BLOCK;
        R->h_small_in = malloc(R->small_floats * sizeof(float));
        R->h_small_out = malloc(R->small_floats * sizeof(float));
        if (!R->h_small_in || !R->h_small_out) {
            free(R->h_small_in);
            free(R->h_small_out);
            R->h_small_in = R->h_small_out = NULL;
            bl_fail(&res->err, GPU_EFAILED, BL_NOWHERE, GPU_OUT_OF_HOST_MEMORY);
            return -1;
        }
        for (size_t i = 0; i < R->small_floats; i++)
            R->h_small_in[i] = (float)(1 + (uint32_t)(i * 2654435761u >> 13) % 7);
    }
    return 0;
}

/* The inputs on the device, copied once. */
static int device_inputs(struct runner *R, int big, struct gpu_result *res)
{
    if (big && !R->d_big_in) {
        size_t n = (size_t)TRANSPOSE_N * TRANSPOSE_N;
        CK(res, cudaMalloc((void **)&R->d_big_in, n * sizeof(float)));
        CK(res, cudaMalloc((void **)&R->d_big_out, n * sizeof(float)));
        CK(res, cudaMemcpy(R->d_big_in, R->h_big_in, n * sizeof(float), cudaMemcpyHostToDevice));
        R->big_n = TRANSPOSE_N;
    }
    if (!big && !R->d_small_in) {
        CK(res, cudaMalloc((void **)&R->d_small_in, R->small_floats * sizeof(float)));
        CK(res, cudaMalloc((void **)&R->d_small_out, R->small_floats * sizeof(float)));
        CK(res, cudaMemcpy(R->d_small_in, R->h_small_in, R->small_floats * sizeof(float),
                           cudaMemcpyHostToDevice));
    }
    return 0;
}

void case_free(struct runner *R)
{
    cudaFree(R->d_small_in);
    cudaFree(R->d_small_out);
    cudaFree(R->d_big_in);
    cudaFree(R->d_big_out);
    free(R->h_small_in);
    free(R->h_small_out);
    free(R->h_big_in);
    free(R->h_big_out);
}

/* The launch shape and what one launch does, from the kernel and its parameter values v. */
static void case_shape(struct runner *R, struct case_run *c, const long long *v)
{
    c->a = c->gc->nparams > 0 ? (int)v[0] : 0;
    c->b = c->gc->nparams > 1 ? (int)v[1] : 0;
    c->per_block_out = BL_BLOCK_THREADS;
    c->kind = c->k->kind;
    if (c->k->small) {
        if (c->k->loads)
            c->shared_ld_per_launch = (double)c->blocks * (BL_BLOCK_THREADS / 32) * CASE_ROUNDS *
                                      c->k->loads(c->a);
        c->out_floats = (size_t)c->blocks * c->per_block_out;
        return;
    }
    if (c->k->matrix == matrix_copy)
        c->blocks = R->light ? 4 : R->sms * 16;
    c->global_bytes = 2.0 * c->n * (double)c->n * sizeof(float);
    c->shared_ld_per_launch = c->k->matrix == matrix_transpose && c->kind >= BL_T_TILE32
                                  ? (double)c->n * c->n / 32 : 0;
    c->out_floats = (size_t)c->n * c->n;
}

static int setup_vector(const struct runner *R, struct case_run *c, struct gpu_result *res)
{
    (void)R;
    return c->a == 3 ? bl_fail(&res->err, GPU_EINVAL, BL_NOWHERE, GPU_VECTOR_WIDTH_VEC_MUST_BE)
                     : 0;
}

static int setup_carve(const struct runner *R, struct case_run *c, struct gpu_result *res)
{
    c->per_block_out = c->a;
    c->out_floats = (size_t)c->blocks * c->per_block_out;
    if ((c->a * 4 + c->b) % 8)
        return bl_fail(&res->err, GPU_EINVAL, BL_NOWHERE, GPU_DYNAMIC_CARVE_THE_DOUBLE_ARRAY,
                       c->a * 4 + c->b);
    if (bl_dynamic_carve_smem(c->a, c->b) > R->smem_optin)
        return bl_fail(&res->err, GPU_EINVAL, BL_NOWHERE, GPU_DYNAMIC_CARVE_BYTES_OF_SHARED,
                       bl_dynamic_carve_smem(c->a, c->b), R->smem_optin);
    return 0;
}

int case_setup(struct runner *R, const struct gpu_request *req, struct case_run *c,
               struct gpu_result *res)
{
    memset(c, 0, sizeof *c);
    c->gc = gpu_case_find(req->case_name);
    for (size_t i = 0; c->gc && !c->k && i < sizeof kernels / sizeof kernels[0]; i++)
        if (!strcmp(kernels[i].name, c->gc->name))
            c->k = &kernels[i];
    if (!c->k)
        return bl_fail(&res->err, GPU_EINVAL, BL_NOWHERE, GPU_UNKNOWN_CASE_KERNEL,
                       req->case_name);
    long long v[GPU_CASE_MAX_PARAMS];
    gpu_case_values(req, v);
    int bad = gpu_case_check(c->gc, v);
    if (bad >= 0) {
        const struct gpu_case_param *p = &c->gc->params[bad];
        return bl_fail(&res->err, GPU_EINVAL, BL_NOWHERE, GPU_IS_OUTSIDE, c->gc->name, p->name,
                       v[bad], p->min, p->max);
    }
    c->blocks = R->light ? 4 : R->sms * 8;
    c->n = R->light ? 512 : TRANSPOSE_N;
    case_shape(R, c, v);
    if (c->k->setup && c->k->setup(R, c, res))
        return -1;
    return host_inputs(R, c->gc->matrix, res);
}

/* The time per access of the scene's drawn access (a case request's access, when it has
 * one), measured as a pattern; a refused access is noted, not fatal. */
static int case_access_timing(struct runner *R, const struct gpu_request *req, char *note,
                              size_t notesize, struct gpu_result *res)
{
    struct pattern_run p;
    struct gpu_result pr;
    int wf;
    memset(&pr, 0, sizeof pr);
    if (pattern_setup(R, &req->access, &p, &wf, &pr) || pattern_time(R, &p, wf, &pr) ||
        access_timing(R, &req->access, pr.clk_per_request, &pr)) {
        if (pr.err.status == GPU_EFAILED) {
            bl_fail(&res->err, GPU_EFAILED, BL_NOWHERE, GPU_TEXT, pr.err.msg);
            return -1;
        }
        bl_fmt(note, notesize, "time per access not measured: %s", pr.err.msg);
        return 0;
    }
    copy_access_timing(res, &pr);
    bl_fmt(note, notesize, "time per access of the drawn access: median of %d launches",
           pr.launches);
    return 0;
}

int case_measure(struct runner *R, const struct gpu_request *req, struct case_run *c,
                 struct gpu_result *res)
{
    if (device_inputs(R, c->gc->matrix, res))
        return -1;
    c->in = c->gc->matrix ? R->d_big_in : R->d_small_in;
    c->out = c->gc->matrix ? R->d_big_out : R->d_small_out;
    /* Zero the output so a kernel that writes nothing cannot pass on the last one's data. */
    CK(res, cudaMemset(c->out, 0, c->out_floats * sizeof(float)));
    char timing_note[96] = "", counter_note[64] = "", access_note[96] = "";
    if (req->want_timing || !req->want_counters) {
        if (time_launches(R, res, l_case, c))
            return -1;
        if (c->global_bytes > 0)
            res->gbps = c->global_bytes / (res->ms_median * 1e-3) / 1e9;
        if (c->shared_ld_per_launch > 0)
            res->clk_per_request = res->ms_median * 1e-3 * R->clock_mhz * 1e6 /
                                   (c->shared_ld_per_launch / R->sms);
        bl_fmt(timing_note, sizeof timing_note, "kernel time: median of %d launches",
               res->launches);
    } else {
        CK(res, l_case(c));
    }
    CK(res, cudaDeviceSynchronize());
    /* The output before the profiler runs the kernel again (kernel replay restores memory
     * between its passes, but nothing more is needed of it). */
    float *host = c->gc->matrix ? R->h_big_out : R->h_small_out;
    CK(res, cudaMemcpy(host, c->out, c->out_floats * sizeof(float), cudaMemcpyDeviceToHost));
    if (req->want_counters && !c->gc->uncounted) {
        double v[BL_NMETRICS];
        if (read_counters(R, res, l_case_sync, c, BL_INST_ST + 1, v) == 0) {
            counters_to_result(res, v, v[BL_INST_LD], v[BL_INST_ST]);
            bl_fmt(counter_note, sizeof counter_note,
                   "CUPTI range profiler, per executed shared instruction");
        } else if (res->err.status != GPU_OK) {
            return -1;
        }
    }
    if (req->want_timing && req->access.mask &&
        case_access_timing(R, req, access_note, sizeof access_note, res))
        return -1;
    bl_fmt(res->provenance, sizeof res->provenance, "%s; %s: %s%s%s%s%s", R->info.device,
           c->gc->name, timing_note, timing_note[0] && counter_note[0] ? "; " : "", counter_note,
           access_note[0] ? "; " : "", access_note);
    return 0;
}

/* ---- CPU references: compared exactly (inputs are small integers, so every float sum is
 * exact in any order). Each returns the first bad index or -1. ---- */

static long check_transpose(const struct runner *R, const struct case_run *c)
{
    const float *in = R->h_big_in, *out = R->h_big_out;
    long n = c->n;
    for (long y = 0; y < n; y++)
        for (long x = 0; x < n; x++) {
            float want = c->kind == BL_COPY_TILE ? in[y * n + x] : in[x * n + y];
            if (out[y * n + x] != want)
                return y * n + x;
        }
    return -1;
}

static long check_carve(const struct runner *R, const struct case_run *c)
{
    const float *in = R->h_small_in, *out = R->h_small_out;
    int n = c->a;
    for (long b = 0; b < c->blocks; b++) {
        const size_t base = (size_t)b * n;
        for (int i = 0; i < n; i++) {
            float want = in[base + n - 1 - i] + (float)(2.0 * in[base + i]) + (float)((3 * i) % n);
            if (out[base + i] != want)
                return (long)(base + i);
        }
    }
    return -1;
}

static long check_small(const struct runner *R, const struct case_run *c)
{
    int T = BL_BLOCK_THREADS;
    for (long b = 0; b < c->blocks; b++)
        for (int t = 0; t < T; t++) {
            float want = (float)(c->k->sum(c, R->h_small_in, b, t) * CASE_ROUNDS);
            if (R->h_small_out[b * T + t] != want)
                return b * T + t;
        }
    return -1;
}

int case_check(struct runner *R, struct case_run *c, struct gpu_result *res)
{
    long bad = c->k->check ? c->k->check(R, c) : c->k->matrix ? check_transpose(R, c)
                                                              : check_small(R, c);
    if (bad >= 0) {
        const float *host = c->gc->matrix ? R->h_big_out : R->h_small_out;
        bl_fail(&res->err, GPU_EVERIFY, BL_NOWHERE, GPU_OUTPUT_ELEMENT_DIFFERS_FROM_THE,
                 c->gc->name, bad, (double)host[bad]);
        return -1;
    }
    res->verified = 1;
    return 0;
}
