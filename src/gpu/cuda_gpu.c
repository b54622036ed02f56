/* cuda_gpu.c: the CUDA runner. gpu_open finds the device (or says in one line why not) and
 * starts one worker thread that owns the CUDA context; requests wait in a small queue, results
 * in another, and the caller polls. Pattern requests run kernels/pattern.cu (timing on all
 * SMs, counters on one warp through cuda_counters.h); case requests run the case kernels and
 * check their output against a CPU reference before reporting. cudart is linked statically and
 * libcuda is never linked: without a driver the program starts and reports why.
 * No curses, no cJSON; never prints, never exits. */
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "../../kernels/kernels.h"
#include "cuda_counters.h"
#include "gpu.h"
#include "gpu_impl.h"

/* Oldest GPU the kernels run on: CUDA 13 dropped sm_70 (Volta), CUDA 12 still builds it. */
#if CUDART_VERSION >= 13000
#define MIN_SM 75
#else
#define MIN_SM 70
#endif

#define RUNNER_QUEUE 16
#define WARMUP 2
#define LAUNCHES 11
#define PATTERN_TRIPS 1024   /* loop trips x predicted wavefronts per launch: about 1 ms */
#define REF_CACHE 16         /* conflict-free references kept per runner */
#define COUNT_ITERS 4                                /* counter launch: 4 x 32 instructions */
#define COUNT_INSTR (COUNT_ITERS * BL_PATTERN_UNROLL)
#define CASE_ROUNDS 64
#define SMALL_PER_BLOCK 4096  /* floats of input per block, at most: dynamic_carve's N max in gpu_case_info */
#define TRANSPOSE_N 8192

struct runner {
    int device;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv_req, cv_res;
    struct gpu_request q[RUNNER_QUEUE];
    int qhead, qcount;
    struct gpu_result r[RUNNER_QUEUE];
    int rhead, rcount;
    int busy, stop, started;
    int init_done, init_ok;
    char init_err[GPU_TEXT_MAX];
    struct gpu_info info;
    /* worker-only state */
    cudaEvent_t e0, e1;
    unsigned *d_sink;
    float *d_small_in, *d_small_out, *h_small_in, *h_small_out;
    size_t small_floats;
    float *d_big_in, *d_big_out, *h_big_in, *h_big_out;
    int big_n;
    struct bl_counters *ctr;
    char ctr_why[GPU_TEXT_MAX];
    char name[128];
    double clock_mhz, clock_max_mhz;
    int sms, cc_major, cc_minor;
    int light;                  /* BANKLAB_LIGHT: tiny launches (for compute-sanitizer runs) */
    size_t smem_optin, smem_per_sm;
    struct {                    /* clk per access of the conflict-free access of a width, op, mask */
        unsigned width;
        enum bank_op op;
        uint32_t mask;
        double clk;
    } ref[REF_CACHE];
    int nref, ref_next;
};

/* ---- error plumbing: record file:line, the call and cudaGetErrorString, then return ---- */

static void res_fail(struct gpu_result *res, enum gpu_status st, const char *fmt, ...)
{
    va_list ap;
    if (res->status != GPU_OK)
        return; /* first error wins */
    res->status = st;
    va_start(ap, fmt);
    vsnprintf(res->error, sizeof res->error, fmt, ap);
    va_end(ap);
}

/* fmt_line: snprintf that truncates silently (every text here is one bounded line). */
static void fmt_line(char *dst, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, n, fmt, ap);
    va_end(ap);
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

#define CK(res, expr)                                                                          \
    do {                                                                                       \
        cudaError_t e_ = (cudaError_t)(expr);                                                  \
        if (e_ != cudaSuccess) {                                                               \
            res_fail((res), GPU_EFAILED, "%s:%d: %s: %s", base_name(__FILE__), __LINE__, #expr,  \
                     cudaGetErrorString(e_));                                                  \
            return -1;                                                                         \
        }                                                                                      \
    } while (0)

/* ---- timing ---- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* time_launches: WARMUP + LAUNCHES launches of launch(arg), each timed with events; median,
 * min and max into res. */
static int time_launches(struct runner *R, struct gpu_result *res, int (*launch)(void *),
                         void *arg)
{
    double ms[LAUNCHES];
    int warm = R->light ? 1 : WARMUP, nl = R->light ? 3 : LAUNCHES;
    for (int i = 0; i < warm; i++)
        CK(res, launch(arg));
    CK(res, cudaDeviceSynchronize());
    for (int i = 0; i < nl; i++) {
        float t;
        CK(res, cudaEventRecord(R->e0, 0));
        CK(res, launch(arg));
        CK(res, cudaEventRecord(R->e1, 0));
        CK(res, cudaEventSynchronize(R->e1));
        CK(res, cudaEventElapsedTime(&t, R->e0, R->e1));
        ms[i] = t;
    }
    qsort(ms, (size_t)nl, sizeof ms[0], cmp_double);
    res->has_timing = 1;
    res->launches = nl;
    res->ms_median = ms[nl / 2];
    res->ms_min = ms[0];
    res->ms_max = ms[nl - 1];
    return 0;
}

static int sync_launch(void *arg, int (*launch)(void *))
{
    if (launch(arg) != 0)
        return -1;
    return cudaDeviceSynchronize() == cudaSuccess ? 0 : -1;
}

/* ---- pattern requests ---- */

struct pattern_run {
    struct bl_pattern_args a;
    int blocks, threads, iters;
    size_t smem;
    unsigned *sink;
};

static int pattern_launch(void *arg)
{
    struct pattern_run *p = arg;
    return bl_pattern_launch(&p->a, p->blocks, p->threads, p->iters, p->smem, p->sink);
}

static int pattern_launch_sync(void *arg) { return sync_launch(arg, pattern_launch); }

static void counters_to_result(struct runner *R, struct gpu_result *res, const double *v,
                               double div_ld, double div_st)
{
    res->has_counters = 1;
    res->inst_ld = v[BL_INST_LD];
    res->inst_st = v[BL_INST_ST];
    res->wavefronts_ld = div_ld > 0 ? v[BL_WAVEFRONTS_LD] / div_ld : 0;
    res->conflicts_ld = div_ld > 0 ? v[BL_CONFLICTS_LD] / div_ld : 0;
    res->wavefronts_st = div_st > 0 ? v[BL_WAVEFRONTS_ST] / div_st : 0;
    res->conflicts_st = div_st > 0 ? v[BL_CONFLICTS_ST] / div_st : 0;
    (void)R;
}

/* pattern_setup: the launch of access acc (offsets checked against the model and the
 * device's shared memory); *wf gets the predicted wavefronts. 0, or -1 with res failed. */
static int pattern_setup(struct runner *R, const struct bank_access *acc, struct pattern_run *p,
                         int *wf, struct gpu_result *res)
{
    struct bank_result model;
    int bad_lane = -1;
    enum bank_status bs = bank_simulate(acc, &model, &bad_lane);
    if (bs != BANK_OK) {
        if (bs == BANK_EALIGN)
            res_fail(res, GPU_EINVAL, "lane %d: offset is not a multiple of the width %u",
                     bad_lane, acc->width);
        else
            res_fail(res, GPU_EINVAL, "%s", bank_status_str(bs));
        return -1;
    }
    memset(p, 0, sizeof *p);
    p->a.mask = acc->mask;
    p->a.width = (int)acc->width;
    p->a.store = acc->op == BANK_STORE;
    uint64_t span = 0;
    for (int l = 0; l < BANK_LANES; l++) {
        if (!(acc->mask >> l & 1u))
            continue;
        if (acc->offset[l] > 0x7fffffffu) {
            res_fail(res, GPU_EINVAL, "lane %d: offset %llu is beyond shared memory", l,
                     (unsigned long long)acc->offset[l]);
            return -1;
        }
        p->a.off[l] = (uint32_t)acc->offset[l];
        if (acc->offset[l] + acc->width > span)
            span = acc->offset[l] + acc->width;
    }
    if (span + 256 > R->smem_optin) {
        res_fail(res, GPU_EINVAL,
                 "the offsets reach byte %llu; this device has %zu bytes of shared memory per "
                 "block", (unsigned long long)span, R->smem_optin);
        return -1;
    }
    p->threads = BL_BLOCK_THREADS;
    p->sink = R->d_sink;
    /* Stores: each warp writes its own copy (128-byte aligned, so banks are unchanged), so
     * warps never race. Loads share one copy. */
    uint32_t region = (uint32_t)((span + 127) & ~(uint64_t)127);
    p->a.region = p->a.store ? region : 0;
    p->smem = bl_pattern_smem(&p->a, p->threads);
    if (p->smem > R->smem_optin) { /* stores of a large span: one copy, warps overlap */
        p->a.region = 0;
        p->smem = bl_pattern_smem(&p->a, p->threads);
    }
    CK(res, bl_pattern_attr(&p->a, p->smem));
    *wf = model.wavefronts > 0 ? model.wavefronts : 1;
    return 0;
}

/* pattern_time: the timing launch of p on all SMs (up to 8 blocks of 256 threads per SM,
 * about PATTERN_TRIPS / wf loop trips); res gets the launch timing and clk_per_request: the
 * SM clocks one warp instruction costs while every SM runs many warps of it. */
static int pattern_time(struct runner *R, struct pattern_run *p, int wf, struct gpu_result *res)
{
    int per_sm = (int)(R->smem_per_sm / (p->smem + 1024));
    per_sm = per_sm > 8 ? 8 : per_sm < 1 ? 1 : per_sm;
    p->blocks = R->sms * per_sm;
    p->iters = PATTERN_TRIPS / wf;
    if (p->iters < 32)
        p->iters = 32;
    if (R->light) {
        p->blocks = 2;
        p->iters = 2;
    }
    if (time_launches(R, res, pattern_launch, p))
        return -1;
    double warps_per_sm = (double)p->blocks * (p->threads / 32) / R->sms;
    double requests = warps_per_sm * p->iters * BL_PATTERN_UNROLL;
    double clk = res->ms_median * 1e-3 * R->clock_mhz * 1e6;
    int nactive = __builtin_popcount(p->a.mask);
    res->clk_per_request = nactive ? clk / requests : 0;
    res->bytes_per_clk_per_sm = res->clk_per_request > 0
                                    ? nactive * (double)p->a.width / res->clk_per_request : 0;
    return 0;
}

/* ref_clk: clk per access of the conflict-free access of acc's width, op and mask (lane l at
 * byte l * width), measured once per runner (process) and kept. */
static int ref_clk(struct runner *R, const struct bank_access *acc, double *clk,
                   struct gpu_result *res)
{
    for (int i = 0; i < R->nref; i++)
        if (R->ref[i].width == acc->width && R->ref[i].op == acc->op && R->ref[i].mask == acc->mask) {
            *clk = R->ref[i].clk;
            return 0;
        }
    struct bank_access ra;
    memset(&ra, 0, sizeof ra);
    ra.width = acc->width;
    ra.op = acc->op;
    ra.mask = acc->mask;
    for (int l = 0; l < BANK_LANES; l++)
        ra.offset[l] = (uint64_t)l * acc->width;
    struct pattern_run p;
    struct gpu_result rr;
    int wf;
    memset(&rr, 0, sizeof rr);
    if (pattern_setup(R, &ra, &p, &wf, &rr) || pattern_time(R, &p, wf, &rr)) {
        res_fail(res, rr.status, "conflict-free reference: %s", rr.error);
        return -1;
    }
    int k = R->nref < REF_CACHE ? R->nref++ : (R->ref_next++ % REF_CACHE);
    R->ref[k].width = acc->width;
    R->ref[k].op = acc->op;
    R->ref[k].mask = acc->mask;
    R->ref[k].clk = rr.clk_per_request;
    *clk = rr.clk_per_request;
    return 0;
}

/* access_timing: the time of one warp access of acc (clk_per_access from a timing launch
 * whose clk_per_request is clk) and its slowdown against the conflict-free reference. */
static int access_timing(struct runner *R, const struct bank_access *acc, double clk,
                         struct gpu_result *res)
{
    double ref;
    if (ref_clk(R, acc, &ref, res))
        return -1;
    res->has_access_timing = 1;
    res->clk_per_access = clk;
    res->ns_per_access = R->clock_mhz > 0 ? clk / R->clock_mhz * 1e3 : 0;
    res->ref_clk_per_access = ref;
    res->slowdown = ref > 0 ? clk / ref : 0;
    return 0;
}

static void copy_access_timing(struct gpu_result *dst, const struct gpu_result *src)
{
    dst->has_access_timing = src->has_access_timing;
    dst->clk_per_access = src->clk_per_access;
    dst->ns_per_access = src->ns_per_access;
    dst->ref_clk_per_access = src->ref_clk_per_access;
    dst->slowdown = src->slowdown;
}

/* pattern_counters: the counter launch (one warp, COUNT_INSTR instructions) of p. */
static int pattern_counters(struct runner *R, const struct pattern_run *p, char *note,
                            size_t notesize, struct gpu_result *res)
{
    if (!R->ctr) {
        fmt_line(res->counters_note, sizeof res->counters_note, "%s", R->ctr_why);
        return 0;
    }
    struct pattern_run c = *p;
    double v[BL_NMETRICS];
    char why[GPU_TEXT_MAX];
    c.blocks = 1;
    c.threads = 32;
    c.iters = COUNT_ITERS;
    c.a.region = 0;
    c.smem = bl_pattern_smem(&c.a, c.threads);
    CK(res, bl_pattern_attr(&c.a, c.smem)); /* a reference timed since may have lowered it */
    if (bl_counters_measure(R->ctr, pattern_launch_sync, &c, v, why, sizeof why)) {
        CK(res, cudaGetLastError());
        fmt_line(res->counters_note, sizeof res->counters_note, "%s", why);
        return 0;
    }
    double n = COUNT_INSTR;
    counters_to_result(R, res, v, n, n);
    double got = p->a.store ? v[BL_INST_ST] : v[BL_INST_LD];
    if (p->a.mask && fabs(got - n) > 0.5)
        fmt_line(res->counters_note, sizeof res->counters_note,
                 "warning: %.0f shared instructions counted, %d launched", got, COUNT_INSTR);
    fmt_line(note, notesize, "counters: CUPTI, 1 warp x %d instructions", COUNT_INSTR);
    return 0;
}

static int run_pattern(struct runner *R, const struct gpu_request *req, struct gpu_result *res)
{
    struct pattern_run p;
    int wf;
    if (pattern_setup(R, &req->access, &p, &wf, res))
        return -1;
    char timing_note[128] = "", counter_note[64] = "";
    if (req->want_timing) {
        if (pattern_time(R, &p, wf, res) ||
            access_timing(R, &req->access, res->clk_per_request, res))
            return -1;
        fmt_line(timing_note, sizeof timing_note, "timing: median of %d launches x %d x %d "
                 "threads x %d accesses", res->launches, p.blocks, p.threads,
                 p.iters * BL_PATTERN_UNROLL);
    }
    if (req->want_counters && pattern_counters(R, &p, counter_note, sizeof counter_note, res))
        return -1;
    fmt_line(res->provenance, sizeof res->provenance, "%s; %s%s%s", R->info.device, timing_note,
             timing_note[0] && counter_note[0] ? "; " : "", counter_note);
    return 0;
}

/* ---- case kernels ---- */

struct case_run {
    int kind;           /* case-specific selector */
    int a, b, c;        /* case parameters */
    int blocks, n;
    float *out;
    const float *in;
    int (*launch)(struct case_run *cr);
};

static int case_launch(void *arg)
{
    struct case_run *cr = arg;
    return cr->launch(cr);
}

static int case_launch_sync(void *arg) { return sync_launch(arg, case_launch); }

static int l_transpose(struct case_run *c) { return bl_transpose_launch(c->kind, c->out, c->in, c->n, c->a); }
static int l_copy(struct case_run *c) { return bl_copy_launch(c->out, c->in, (size_t)c->n * c->n, c->blocks); }
static int l_memcpy(struct case_run *c)
{
    return (int)cudaMemcpyAsync(c->out, c->in, (size_t)c->n * c->n * sizeof(float),
                                cudaMemcpyDeviceToDevice, 0);
}
static int l_row_col(struct case_run *c) { return bl_row_col_launch(c->out, c->in, c->blocks, c->a, c->b, CASE_ROUNDS); }
static int l_vector(struct case_run *c) { return bl_vector_width_launch(c->out, c->in, c->blocks, c->a, c->b, CASE_ROUNDS); }
static int l_aos(struct case_run *c) { return bl_aos_soa_launch(c->out, c->in, c->blocks, c->a, c->b, CASE_ROUNDS); }
static int l_remap(struct case_run *c) { return bl_remap_launch(c->out, c->in, c->blocks, c->a, CASE_ROUNDS); }
static int l_bcast(struct case_run *c) { return bl_broadcast_launch(c->out, c->in, c->blocks, c->a, c->b, CASE_ROUNDS); }
static int l_carve(struct case_run *c) { return bl_dynamic_carve_launch(c->out, c->in, c->blocks, c->a, c->b); }

/* Parameter i of the request's case kernel (gpu_case_info: by name or alias), else its
 * default; the result fails when the value is outside the kernel's range. */
static long long case_arg(const struct gpu_request *req, int i, struct gpu_result *res)
{
    int n;
    const struct gpu_case_param *p = gpu_case_info(req->case_name, &n);
    if (!p || i >= n)
        return 0;
    p += i;
    for (int k = 0; k < req->nparams && k < GPU_CASE_MAX_PARAMS; k++) {
        if (!strcmp(req->param_name[k], p->name) ||
            (p->alias && !strcmp(req->param_name[k], p->alias))) {
            long long v = req->param_value[k];
            if (v < p->min || v > p->max)
                res_fail(res, GPU_EINVAL, "%s: %s = %lld is outside %lld..%lld", req->case_name,
                         p->name, v, p->min, p->max);
            return v;
        }
    }
    return p->def;
}

static int ensure_big(struct runner *R, struct gpu_result *res)
{
    if (R->d_big_in)
        return 0;
    size_t n = (size_t)TRANSPOSE_N * TRANSPOSE_N; /* the light mode uses the top-left part */
    R->h_big_in = malloc(n * sizeof(float));
    R->h_big_out = malloc(n * sizeof(float));
    if (!R->h_big_in || !R->h_big_out) {
        res_fail(res, GPU_EFAILED, "out of host memory for the %dx%d transpose", TRANSPOSE_N,
                 TRANSPOSE_N);
        return -1;
    }
    uint32_t s = 12345u;
    for (size_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        R->h_big_in[i] = (float)(s >> 8) / 16777216.0f - 0.5f;
    }
    CK(res, cudaMalloc((void **)&R->d_big_in, n * sizeof(float)));
    CK(res, cudaMalloc((void **)&R->d_big_out, n * sizeof(float)));
    CK(res, cudaMemcpy(R->d_big_in, R->h_big_in, n * sizeof(float), cudaMemcpyHostToDevice));
    R->big_n = TRANSPOSE_N;
    return 0;
}

/* CPU references: the expected output of each case, compared exactly (inputs are small
 * integers, so every float sum is exact in any order). Returns the first bad index or -1. */
static long check_transpose(struct runner *R, int kind, int n)
{
    const float *in = R->h_big_in, *out = R->h_big_out;
    for (long y = 0; y < n; y++)
        for (long x = 0; x < n; x++) {
            float want = kind == BL_COPY_TILE ? in[y * n + x] : in[x * n + y];
            if (out[y * n + x] != want)
                return y * n + x;
        }
    return -1;
}

static float small_in(const struct runner *R, size_t i) { return R->h_small_in[i]; }

static long check_small(struct runner *R, const char *name, const struct case_run *c)
{
    const float *out = R->h_small_out;
    int T = BL_BLOCK_THREADS;
    for (long b = 0; b < c->blocks; b++) {
        if (!strcmp(name, "dynamic_carve")) {
            int n = c->a;
            for (int i = 0; i < n; i++) {
                const size_t base = (size_t)b * n;
                float want = small_in(R, base + n - 1 - i) + (float)(2.0 * small_in(R, base + i)) +
                             (float)((3 * i) % n);
                if (out[base + i] != want)
                    return (long)(base + i);
            }
            continue;
        }
        for (int t = 0; t < T; t++) {
            int lane = t & 31;
            double s = 0;
            if (!strcmp(name, "row_col")) {
                for (int k = 0; k < 32; k++)
                    s += c->b ? small_in(R, b * 1024 + lane * 32 + k)
                              : small_in(R, b * 1024 + k * 32 + lane);
            } else if (!strcmp(name, "vector_width") || !strcmp(name, "remap")) {
                for (int k = 0; k < 32; k++)
                    s += small_in(R, b * 1024 + lane * 32 + k);
            } else if (!strcmp(name, "aos_soa")) {
                for (int f = 0; f < c->a; f++)
                    s += small_in(R, (size_t)b * T * c->a + (size_t)t * c->a + f);
            } else if (!strcmp(name, "broadcast")) {
                int base = (lane / c->a) * c->b;
                for (int k = 0; k < 32; k++)
                    s += small_in(R, b * 1024 + ((base + k) & 1023));
            }
            float want = (float)(s * CASE_ROUNDS);
            if (out[b * T + t] != want)
                return b * T + t;
        }
    }
    return -1;
}

/* What run_case needs to know about a case beyond its launch. */
struct case_plan {
    int big;                      /* the n x n matrices (copies, transposes) */
    double shared_ld_per_launch;  /* warp-level shared loads of the taught access */
    double global_bytes;          /* bytes read + written per launch (GB/s), 0: not shown */
    int per_block_out;            /* floats of output per block (small cases) */
};

/* case_select: c's launch and parameters for req, and its plan; 0, or -1 with res failed. */
static int case_select(struct runner *R, const struct gpu_request *req, struct case_run *c,
                       struct case_plan *pl, struct gpu_result *res)
{
    const char *name = req->case_name;
    int T = BL_BLOCK_THREADS;
    memset(pl, 0, sizeof *pl);
    pl->per_block_out = T;
    c->blocks = R->light ? 4 : R->sms * 8;
    c->n = R->light ? 512 : TRANSPOSE_N;
    if (!strcmp(name, "memcpy") || !strcmp(name, "copy") || !strcmp(name, "copy_tile32") ||
        !strncmp(name, "transpose_", 10)) {
        pl->big = 1;
        c->launch = l_transpose;
        if (!strcmp(name, "memcpy")) {
            c->launch = l_memcpy;
        } else if (!strcmp(name, "copy")) {
            c->launch = l_copy;
            c->blocks = R->light ? 4 : R->sms * 16;
        } else if (!strcmp(name, "copy_tile32")) {
            c->kind = BL_COPY_TILE;
        } else if (!strcmp(name, "transpose_naive")) {
            c->kind = BL_T_NAIVE;
        } else if (!strcmp(name, "transpose_tile32")) {
            c->kind = BL_T_TILE32;
        } else if (!strcmp(name, "transpose_padded")) {
            c->kind = BL_T_PADDED;
            c->a = (int)case_arg(req, 0, res);
        } else if (!strcmp(name, "transpose_swizzled")) {
            c->kind = BL_T_SWIZZLED;
        } else {
            c->launch = NULL;
        }
        pl->global_bytes = 2.0 * c->n * (double)c->n * sizeof(float);
        if (c->launch == l_transpose && c->kind >= BL_T_TILE32)
            pl->shared_ld_per_launch = (double)c->n * c->n / 32;
    } else if (!strcmp(name, "row_col")) {
        c->launch = l_row_col;
        c->a = (int)case_arg(req, 0, res);
        c->b = (int)case_arg(req, 1, res);
        pl->shared_ld_per_launch = (double)c->blocks * (T / 32) * CASE_ROUNDS * 32;
    } else if (!strcmp(name, "vector_width")) {
        c->launch = l_vector;
        c->a = (int)case_arg(req, 0, res);
        if (c->a == 3)
            res_fail(res, GPU_EINVAL, "vector_width: VEC must be 1, 2 or 4");
        c->b = (int)case_arg(req, 1, res);
        pl->shared_ld_per_launch = (double)c->blocks * (T / 32) * CASE_ROUNDS * (32 / (c->a ? c->a : 1));
    } else if (!strcmp(name, "aos_soa")) {
        c->launch = l_aos;
        c->a = (int)case_arg(req, 0, res);
        c->b = (int)case_arg(req, 1, res);
        pl->shared_ld_per_launch = (double)c->blocks * (T / 32) * CASE_ROUNDS * c->a;
    } else if (!strcmp(name, "remap")) {
        c->launch = l_remap;
        c->a = (int)case_arg(req, 0, res);
        pl->shared_ld_per_launch = (double)c->blocks * (T / 32) * CASE_ROUNDS * 32;
    } else if (!strcmp(name, "broadcast")) {
        c->launch = l_bcast;
        c->a = (int)case_arg(req, 0, res);
        c->b = (int)case_arg(req, 1, res);
        pl->shared_ld_per_launch = (double)c->blocks * (T / 32) * CASE_ROUNDS * 32;
    } else if (!strcmp(name, "dynamic_carve")) {
        c->launch = l_carve;
        c->a = (int)case_arg(req, 0, res);
        c->b = (int)case_arg(req, 1, res);
        pl->per_block_out = c->a;
        if (res->status == GPU_OK && (c->a * 4 + c->b) % 8)
            res_fail(res, GPU_EINVAL,
                     "dynamic_carve: the double array would start at byte %d, not a multiple of "
                     "8 (misaligned address); make 4*N + PAD_BYTES a multiple of 8", c->a * 4 + c->b);
        if (res->status == GPU_OK && bl_dynamic_carve_smem(c->a, c->b) > R->smem_optin)
            res_fail(res, GPU_EINVAL, "dynamic_carve: %zu bytes of shared memory per block, the "
                     "device allows %zu", bl_dynamic_carve_smem(c->a, c->b), R->smem_optin);
    }
    if (!c->launch) {
        res_fail(res, GPU_EINVAL, "unknown case kernel \"%s\"", name);
        return -1;
    }
    return res->status == GPU_OK ? 0 : -1;
}

/* case_counters: the whole kernel once under the profiler, per executed shared instruction. */
static int case_counters(struct runner *R, struct case_run *c, char *note, size_t notesize,
                         struct gpu_result *res)
{
    if (!R->ctr) {
        fmt_line(res->counters_note, sizeof res->counters_note, "%s", R->ctr_why);
        return 0;
    }
    double v[BL_NMETRICS];
    char why[GPU_TEXT_MAX];
    if (bl_counters_measure(R->ctr, case_launch_sync, c, v, why, sizeof why)) {
        CK(res, cudaGetLastError());
        fmt_line(res->counters_note, sizeof res->counters_note, "%s", why);
        return 0;
    }
    counters_to_result(R, res, v, v[BL_INST_LD], v[BL_INST_ST]);
    fmt_line(note, notesize, "CUPTI range profiler, per executed shared instruction");
    return 0;
}

/* case_access_timing: the time per access of the scene's drawn access (a case request's
 * access, when it has one), measured as a pattern; a refused access is noted, not fatal. */
static int case_access_timing(struct runner *R, const struct gpu_request *req, char *note,
                              size_t notesize, struct gpu_result *res)
{
    struct pattern_run p;
    struct gpu_result pr;
    int wf;
    memset(&pr, 0, sizeof pr);
    if (pattern_setup(R, &req->access, &p, &wf, &pr) || pattern_time(R, &p, wf, &pr) ||
        access_timing(R, &req->access, pr.clk_per_request, &pr)) {
        if (pr.status == GPU_EFAILED) {
            res_fail(res, GPU_EFAILED, "%s", pr.error);
            return -1;
        }
        fmt_line(note, notesize, "time per access not measured: %s", pr.error);
        return 0;
    }
    copy_access_timing(res, &pr);
    fmt_line(note, notesize, "time per access of the drawn access: median of %d launches",
             pr.launches);
    return 0;
}

static int run_case(struct runner *R, const struct gpu_request *req, struct gpu_result *res)
{
    struct case_run c;
    struct case_plan pl;
    memset(&c, 0, sizeof c);
    const char *name = req->case_name;
    if (case_select(R, req, &c, &pl, res))
        return -1;
    size_t out_floats;
    if (pl.big) {
        if (ensure_big(R, res))
            return -1;
        c.in = R->d_big_in;
        c.out = R->d_big_out;
        out_floats = (size_t)c.n * c.n;
    } else {
        c.in = R->d_small_in;
        c.out = R->d_small_out;
        out_floats = (size_t)c.blocks * pl.per_block_out;
    }
    /* Zero the output so a kernel that writes nothing cannot pass on the last one's data. */
    CK(res, cudaMemset(c.out, 0, out_floats * sizeof(float)));
    char timing_note[96] = "", counter_note[64] = "", access_note[96] = "";
    if (req->want_timing || !req->want_counters) {
        if (time_launches(R, res, case_launch, &c))
            return -1;
        if (pl.global_bytes > 0)
            res->gbps = pl.global_bytes / (res->ms_median * 1e-3) / 1e9;
        if (pl.shared_ld_per_launch > 0)
            res->clk_per_request = res->ms_median * 1e-3 * R->clock_mhz * 1e6 /
                                   (pl.shared_ld_per_launch / R->sms);
        fmt_line(timing_note, sizeof timing_note, "kernel time: median of %d launches",
                 res->launches);
    } else {
        CK(res, case_launch(&c));
    }
    CK(res, cudaDeviceSynchronize());
    float *host = pl.big ? R->h_big_out : R->h_small_out;
    CK(res, cudaMemcpy(host, c.out, out_floats * sizeof(float), cudaMemcpyDeviceToHost));
    long bad = pl.big ? check_transpose(R, c.launch == l_transpose ? c.kind : BL_COPY_TILE, c.n)
                      : check_small(R, name, &c);
    if (bad >= 0) {
        res_fail(res, GPU_EVERIFY, "%s: output element %ld differs from the CPU reference (%g)",
                 name, bad, (double)host[bad]);
        return -1;
    }
    res->verified = 1;
    if (req->want_counters && case_counters(R, &c, counter_note, sizeof counter_note, res))
        return -1;
    if (req->want_timing && req->access.mask &&
        case_access_timing(R, req, access_note, sizeof access_note, res))
        return -1;
    fmt_line(res->provenance, sizeof res->provenance, "%s; %s: %s%s%s%s%s", R->info.device, name,
             timing_note, timing_note[0] && counter_note[0] ? "; " : "", counter_note,
             access_note[0] ? "; " : "", access_note);
    return 0;
}

/* ---- worker ---- */

static int worker_init(struct runner *R, struct gpu_result *res)
{
    CK(res, cudaSetDevice(R->device));
    CK(res, cudaFree(0));
    CK(res, cudaEventCreate(&R->e0));
    CK(res, cudaEventCreate(&R->e1));
    CK(res, cudaMalloc((void **)&R->d_sink, 64));
    R->small_floats = (size_t)R->sms * 8 * SMALL_PER_BLOCK;
    R->h_small_in = malloc(R->small_floats * sizeof(float));
    R->h_small_out = malloc(R->small_floats * sizeof(float));
    if (!R->h_small_in || !R->h_small_out) {
        res_fail(res, GPU_EFAILED, "out of host memory");
        return -1;
    }
    for (size_t i = 0; i < R->small_floats; i++)
        R->h_small_in[i] = (float)(1 + (uint32_t)(i * 2654435761u >> 13) % 7);
    CK(res, cudaMalloc((void **)&R->d_small_in, R->small_floats * sizeof(float)));
    CK(res, cudaMalloc((void **)&R->d_small_out, R->small_floats * sizeof(float)));
    CK(res, cudaMemcpy(R->d_small_in, R->h_small_in, R->small_floats * sizeof(float),
                       cudaMemcpyHostToDevice));
    /* Read the SM clock: time a kernel that spins for a known number of clock64 cycles. */
    const long long cycles = 20000000;
    float ms = 0;
    CK(res, bl_clock_probe(cycles / 10, R->d_sink));
    CK(res, cudaEventRecord(R->e0, 0));
    CK(res, bl_clock_probe(cycles, R->d_sink));
    CK(res, cudaEventRecord(R->e1, 0));
    CK(res, cudaEventSynchronize(R->e1));
    CK(res, cudaEventElapsedTime(&ms, R->e0, R->e1));
    R->clock_mhz = ms > 0 ? cycles / (ms * 1e3) : R->clock_max_mhz;
    if (getenv("BANKLAB_NO_COUNTERS")) {
        fmt_line(R->ctr_why, sizeof R->ctr_why, "counters off (BANKLAB_NO_COUNTERS is set)");
    } else {
        R->ctr = bl_counters_open(R->device, R->ctr_why, sizeof R->ctr_why);
        cudaGetLastError(); /* a failed CUPTI setup leaves no CUDA error behind */
    }
    fmt_line(R->info.device, sizeof R->info.device, "%s (sm_%d%d), %d SMs, SM clock %.0f MHz",
             R->name, R->cc_major, R->cc_minor, R->sms, R->clock_mhz);
    R->info.clock_khz = (int)(R->clock_mhz * 1000 + 0.5);
    R->info.counters = R->ctr != NULL;
    fmt_line(R->info.counters_reason, sizeof R->info.counters_reason, "%s",
             R->ctr ? "" : R->ctr_why);
    return 0;
}

static void *worker(void *arg)
{
    struct runner *R = arg;
    struct gpu_result ires;
    memset(&ires, 0, sizeof ires);
    int ok = worker_init(R, &ires) == 0;
    pthread_mutex_lock(&R->mu);
    R->init_done = 1;
    R->init_ok = ok;
    if (!ok)
        fmt_line(R->init_err, sizeof R->init_err, "%s", ires.error);
    pthread_cond_broadcast(&R->cv_res);
    while (ok) {
        while (!R->stop && R->qcount == 0)
            pthread_cond_wait(&R->cv_req, &R->mu);
        if (R->stop)
            break;
        struct gpu_request req = R->q[R->qhead];
        R->qhead = (R->qhead + 1) % RUNNER_QUEUE;
        R->qcount--;
        R->busy = 1;
        pthread_mutex_unlock(&R->mu);

        struct gpu_result res;
        memset(&res, 0, sizeof res);
        res.id = req.id;
        if (req.kind == GPU_REQ_PATTERN)
            run_pattern(R, &req, &res);
        else if (req.kind == GPU_REQ_CASE)
            run_case(R, &req, &res);
        else
            res_fail(&res, GPU_EINVAL, "unknown request kind %d", (int)req.kind);
        if (!res.provenance[0])
            fmt_line(res.provenance, sizeof res.provenance, "%s", R->info.device);

        pthread_mutex_lock(&R->mu);
        R->r[(R->rhead + R->rcount) % RUNNER_QUEUE] = res;
        R->rcount++;
        R->busy = 0;
        pthread_cond_broadcast(&R->cv_res);
    }
    pthread_mutex_unlock(&R->mu);
    /* The context stays for the process; free what this runner allocated. */
    cudaFree(R->d_sink);
    cudaFree(R->d_small_in);
    cudaFree(R->d_small_out);
    cudaFree(R->d_big_in);
    cudaFree(R->d_big_out);
    if (R->e0)
        cudaEventDestroy(R->e0);
    if (R->e1)
        cudaEventDestroy(R->e1);
    bl_counters_close(R->ctr);
    R->ctr = NULL;
    return NULL;
}

/* ---- gpu_ops ---- */

static enum gpu_status r_submit(void *impl, const struct gpu_request *req)
{
    struct runner *R = impl;
    enum gpu_status st = GPU_OK;
    pthread_mutex_lock(&R->mu);
    if (R->qcount + R->rcount + R->busy >= RUNNER_QUEUE) {
        st = GPU_EBUSY;
    } else {
        R->q[(R->qhead + R->qcount) % RUNNER_QUEUE] = *req;
        R->qcount++;
        pthread_cond_signal(&R->cv_req);
    }
    pthread_mutex_unlock(&R->mu);
    return st;
}

static int take_result(struct runner *R, struct gpu_result *out)
{
    if (R->rcount == 0)
        return 0;
    *out = R->r[R->rhead];
    R->rhead = (R->rhead + 1) % RUNNER_QUEUE;
    R->rcount--;
    return 1;
}

static int r_poll(void *impl, struct gpu_result *out)
{
    struct runner *R = impl;
    pthread_mutex_lock(&R->mu);
    int got = take_result(R, out);
    pthread_mutex_unlock(&R->mu);
    return got;
}

static int r_wait(void *impl, struct gpu_result *out, int timeout_ms)
{
    struct runner *R = impl;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += timeout_ms / 1000;
    until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&R->mu);
    int got;
    while (!(got = take_result(R, out))) {
        if (pthread_cond_timedwait(&R->cv_res, &R->mu, &until) == ETIMEDOUT) {
            got = take_result(R, out);
            break;
        }
    }
    pthread_mutex_unlock(&R->mu);
    return got;
}

static void r_close(void *impl)
{
    struct runner *R = impl;
    if (!R)
        return;
    if (R->started) {
        pthread_mutex_lock(&R->mu);
        R->stop = 1;
        pthread_cond_broadcast(&R->cv_req);
        pthread_mutex_unlock(&R->mu);
        pthread_join(R->thread, NULL);
    }
    pthread_mutex_destroy(&R->mu);
    pthread_cond_destroy(&R->cv_req);
    pthread_cond_destroy(&R->cv_res);
    free(R->h_small_in);
    free(R->h_small_out);
    free(R->h_big_in);
    free(R->h_big_out);
    free(R);
}

static const struct gpu_ops runner_ops = {r_submit, r_poll, r_wait, r_close};

/* The reason no device can be used, in one line; "" when device `device` is usable. */
static void probe(int device, char *why, size_t n, struct cudaDeviceProp *prop)
{
    void *libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!libcuda) {
        fmt_line(why, n, "no CUDA driver (libcuda.so.1 not found)");
        return;
    }
    dlclose(libcuda);
    int drv = 0, count = 0;
    cudaError_t e = cudaDriverGetVersion(&drv);
    if (e == cudaSuccess && drv > 0 && drv < CUDART_VERSION) {
        fmt_line(why, n, "driver too old for this build (driver supports CUDA %d.%d, built with "
                 "%d.%d)", drv / 1000, drv % 1000 / 10, CUDART_VERSION / 1000,
                 CUDART_VERSION % 1000 / 10);
        return;
    }
    e = cudaGetDeviceCount(&count);
    if (e == cudaErrorNoDevice || (e == cudaSuccess && count == 0)) {
        fmt_line(why, n, "no CUDA device");
        return;
    }
    if (e == cudaErrorInsufficientDriver) {
        fmt_line(why, n, "driver too old for this build (%s)", cudaGetErrorString(e));
        return;
    }
    if (e != cudaSuccess) {
        fmt_line(why, n, "CUDA unavailable: %s", cudaGetErrorString(e));
        return;
    }
    if (device < 0 || device >= count) {
        fmt_line(why, n, "no CUDA device %d (found %d: 0..%d)", device, count, count - 1);
        return;
    }
    e = cudaGetDeviceProperties(prop, device);
    if (e != cudaSuccess) {
        fmt_line(why, n, "CUDA device %d: %s", device, cudaGetErrorString(e));
        return;
    }
    if (prop->major * 10 + prop->minor < MIN_SM) {
        fmt_line(why, n, "%s is sm_%d%d; this build's kernels need sm_%d or newer", prop->name,
                 prop->major, prop->minor, MIN_SM);
        return;
    }
    why[0] = '\0';
}

struct gpu *gpu_open(int device, struct gpu_info *info)
{
    char why[GPU_TEXT_MAX];
    struct cudaDeviceProp prop;
    memset(&prop, 0, sizeof prop);
    probe(device, why, sizeof why, &prop);
    if (why[0])
        return gpu_unavailable_new(why, info);
    struct runner *R = calloc(1, sizeof *R);
    if (!R)
        return NULL;
    R->device = device;
    R->light = getenv("BANKLAB_LIGHT") != NULL;
    fmt_line(R->name, sizeof R->name, "%s", prop.name);
    R->cc_major = prop.major;
    R->cc_minor = prop.minor;
    R->sms = prop.multiProcessorCount;
    R->smem_optin = prop.sharedMemPerBlockOptin ? prop.sharedMemPerBlockOptin : prop.sharedMemPerBlock;
    R->smem_per_sm = prop.sharedMemPerMultiprocessor;
    int khz = 0;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device) == cudaSuccess)
        R->clock_max_mhz = khz / 1000.0;
    pthread_mutex_init(&R->mu, NULL);
    pthread_cond_init(&R->cv_req, NULL);
    pthread_cond_init(&R->cv_res, NULL);
    R->info.backend = GPU_BACKEND_CUDA;
    R->info.cc_major = prop.major;
    R->info.cc_minor = prop.minor;
    R->info.sm_count = prop.multiProcessorCount;
    if (pthread_create(&R->thread, NULL, worker, R)) {
        r_close(R);
        return gpu_unavailable_new("cannot start the GPU worker thread", info);
    }
    R->started = 1;
    /* Wait for the worker to set up the context (once, at open). */
    pthread_mutex_lock(&R->mu);
    while (!R->init_done)
        pthread_cond_wait(&R->cv_res, &R->mu);
    int ok = R->init_ok;
    pthread_mutex_unlock(&R->mu);
    if (!ok) {
        fmt_line(why, sizeof why, "CUDA device %d unusable: %s", device, R->init_err);
        r_close(R);
        return gpu_unavailable_new(why, info);
    }
    R->info.available = 1;
    if (info)
        *info = R->info;
    return gpu_wrap_new(&runner_ops, R, GPU_BACKEND_CUDA);
}
