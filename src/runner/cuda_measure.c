/* cuda_measure.c: pattern requests (kernels/pattern.cu: timing on all SMs, counters on one
 * warp) and the helpers every measurement uses: the error plumbing, timed launches, and the
 * counters through the busy policy (runner/counters.h). Runs on the runner's worker thread while it
 * holds the device lock. No curses, no cJSON; never prints. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/kernels.h"
#include "../base/fmt.h"
#include "cuda_internal.h"
#include "../cuda/cudalib.h"

#define COUNT_ITERS 4                                /* counter launch: 4 x 32 instructions */
#define COUNT_INSTR (COUNT_ITERS * BL_PATTERN_UNROLL)

/* ---- CK's file name (runner/cuda_internal.h) ---- */

const char *runner_base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* ---- timing ---- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int probe_clock(struct runner *R, struct gpu_result *res, long long cycles, double *mhz)
{
    float ms = 0;
    CK(res, cudaEventRecord(R->e0, 0));
    CK(res, bl_clock_probe(cycles, R->d_sink));
    CK(res, cudaEventRecord(R->e1, 0));
    CK(res, cudaEventSynchronize(R->e1));
    CK(res, cudaEventElapsedTime(&ms, R->e0, R->e1));
    *mhz = ms > 0 ? (double)cycles / (ms * 1e3) : R->clock_mhz;
    return 0;
}

/* WARMUP + LAUNCHES launches of launch(arg), timed with events queued between them, so the
 * device never waits for this thread (a loaded CPU, a class on one server, does not lengthen
 * the times); median, min and max. */
int time_launches(struct runner *R, struct gpu_result *res, int (*launch)(void *), void *arg)
{
    double ms[LAUNCHES];
    int warm = R->light ? 1 : WARMUP, nl = R->light ? 3 : LAUNCHES;
    for (int i = 0; i < warm; i++)
        CK(res, launch(arg));
    CK(res, cudaDeviceSynchronize());
    CK(res, launch(arg));                            /* keeps the device busy while we queue */
    CK(res, cudaEventRecord(R->ev[0], 0));
    for (int i = 0; i < nl; i++) {
        CK(res, launch(arg));
        CK(res, cudaEventRecord(R->ev[i + 1], 0));
    }
    CK(res, cudaEventSynchronize(R->ev[nl]));
    for (int i = 0; i < nl; i++) {
        float t;
        CK(res, cudaEventElapsedTime(&t, R->ev[i], R->ev[i + 1]));
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

int sync_launch(void *arg, int (*launch)(void *))
{
    if (launch(arg) != 0)
        return -1;
    return cudaDeviceSynchronize() == cudaSuccess ? 0 : -1;
}

/* ---- counters ---- */

int read_counters(struct runner *R, struct gpu_result *res, int (*launch)(void *), void *arg,
                  int nmetrics, double *v)
{
    if (!R->ctr) {
        gpu_note_err(res, &R->info.counters_err);
        return -1;
    }
    struct bl_err why = {0};
    bl_counters_use(R->ctr, nmetrics);
    enum ctr_status st = ctr_policy_measure(&R->retry, launch, arg, v, &why);
    if (st == CTR_OK)
        return 0;
    CK(res, cudaGetLastError());      /* a launch that failed under the profiler */
    gpu_note_err(res, &why);
    res->counters_busy = st == CTR_BUSY;
    return -1;
}

void counters_to_result(struct gpu_result *res, const double *v, double div_ld, double div_st)
{
    res->has_counters = 1;
    res->inst_ld = v[BL_INST_LD];
    res->inst_st = v[BL_INST_ST];
    res->wavefronts_ld = div_ld > 0 ? v[BL_WAVEFRONTS_LD] / div_ld : 0;
    res->conflicts_ld = div_ld > 0 ? v[BL_CONFLICTS_LD] / div_ld : 0;
    res->wavefronts_st = div_st > 0 ? v[BL_WAVEFRONTS_ST] / div_st : 0;
    res->conflicts_st = div_st > 0 ? v[BL_CONFLICTS_ST] / div_st : 0;
}

/* ---- pattern requests ---- */

static int pattern_launch(void *arg)
{
    struct pattern_run *p = arg;
    return bl_pattern_launch(&p->a, p->blocks, p->threads, p->iters, p->smem, p->sink);
}

static int pattern_launch_sync(void *arg) { return sync_launch(arg, pattern_launch); }

int pattern_setup(struct runner *R, const struct bank_access *acc, struct pattern_run *p,
                  int *wf, struct gpu_result *res)
{
    struct bank_result model;
    int bad_lane = -1;
    enum bank_status bs = bank_simulate(acc, &model, &bad_lane);
    if (bs != BANK_OK) {
        if (bs == BANK_EALIGN)
            bl_fail(&res->err, GPU_EINVAL, BL_NOWHERE, GPU_LANE_OFFSET_IS_NOT_A,
                     bad_lane, acc->width);
        else
            bl_fail(&res->err, GPU_EINVAL, BL_NOWHERE, GPU_TEXT, bank_status_str(bs));
        return -1;
    }
    memset(p, 0, sizeof *p);
    /* ldmatrix/stmatrix: the lanes that give rows (every lane executes it); the others
     * stay at offset 0 */
    uint32_t used = bank_address_lanes(acc);
    p->a.mask = used;
    p->a.width = (int)acc->width;
    p->a.store = acc->op == BANK_STORE;
    p->a.instr = acc->instr;
    p->a.matrices = acc->matrices;
    p->a.trans = acc->trans;
    p->a.src = R->d_src;
    /* cp.async's source: lane l at l * width (coalesced) unless the access gives them */
    for (int l = 0; l < BANK_LANES; l++) {
        p->a.goff[l] = acc->has_src ? acc->src[l] : (uint32_t)l * acc->width;
        if (acc->instr == BANK_CPASYNC && p->a.goff[l] + acc->width > BL_CP_ASYNC_SRC) {
            bl_fail(&res->err, GPU_EINVAL, BL_NOWHERE, GPU_CP_ASYNC_SRC_PAST, l, p->a.goff[l], BL_CP_ASYNC_SRC);
            return -1;
        }
    }
    if (acc->instr == BANK_STMATRIX && R->cc_major < 9) {
        bl_fail(&res->err, GPU_EINVAL, BL_NOWHERE, GPU_STMATRIX_NEEDS_SM90, R->cc_major,
                 R->cc_minor);
        return -1;
    }
    if (acc->instr == BANK_CPASYNC && R->cc_major < 8) {
        bl_fail(&res->err, GPU_EINVAL, BL_NOWHERE, GPU_CP_ASYNC_NEEDS_SM80, R->cc_major,
                 R->cc_minor);
        return -1;
    }
    uint64_t span = 0;
    for (int l = 0; l < BANK_LANES; l++) {
        if (!(used >> l & 1u))
            continue;
        if (acc->offset[l] > 0x7fffffffu) {
            bl_fail(&res->err, GPU_EINVAL, BL_NOWHERE, GPU_LANE_OFFSET_IS_BEYOND_SHARED, l,
                     (unsigned long long)acc->offset[l]);
            return -1;
        }
        p->a.off[l] = (uint32_t)acc->offset[l];
        if (acc->offset[l] + acc->width > span)
            span = acc->offset[l] + acc->width;
    }
    if (span + 256 > R->smem_optin) {
        bl_fail(&res->err, GPU_EINVAL, BL_NOWHERE,
                 GPU_THE_OFFSETS_REACH_BYTE_THIS, (unsigned long long)span, R->smem_optin);
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
    p->passes = model.passes;
    return 0;
}

/* All SMs (up to 8 blocks of 256 threads per SM, about PATTERN_TRIPS / wf loop trips): the
 * SM clocks one warp instruction costs while every SM runs many warps of it. */
int pattern_time(struct runner *R, struct pattern_run *p, int wf, struct gpu_result *res)
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

/* clk per access of the conflict-free access of acc's width, op and mask (lane l at byte
 * l * width), measured once per runner (process) and kept. */
static int ref_clk(struct runner *R, const struct bank_access *acc, double *clk,
                   struct gpu_result *res)
{
    for (int i = 0; i < R->nref; i++)
        if (R->ref[i].width == acc->width && R->ref[i].op == acc->op && R->ref[i].mask == acc->mask &&
            R->ref[i].instr == acc->instr && R->ref[i].matrices == acc->matrices) {
            *clk = R->ref[i].clk;
            return 0;
        }
    struct bank_access ra;
    memset(&ra, 0, sizeof ra);
    ra.width = acc->width;
    ra.op = acc->op;
    ra.mask = acc->mask;
    ra.instr = acc->instr;       /* the same instruction, conflict-free: lane l at l * width */
    ra.matrices = acc->matrices;
    ra.trans = acc->trans;
    for (int l = 0; l < BANK_LANES; l++)
        ra.offset[l] = (uint64_t)l * acc->width;
    struct pattern_run p;
    struct gpu_result rr;
    int wf;
    memset(&rr, 0, sizeof rr);
    if (pattern_setup(R, &ra, &p, &wf, &rr) || pattern_time(R, &p, wf, &rr)) {
        bl_fail(&res->err, rr.err.status, BL_NOWHERE, GPU_CONFLICT_FREE_REFERENCE, rr.err.msg);
        return -1;
    }
    int k = R->nref < REF_CACHE ? R->nref++ : (R->ref_next++ % REF_CACHE);
    R->ref[k].width = acc->width;
    R->ref[k].op = acc->op;
    R->ref[k].mask = acc->mask;
    R->ref[k].instr = acc->instr;
    R->ref[k].matrices = acc->matrices;
    R->ref[k].clk = rr.clk_per_request;
    *clk = rr.clk_per_request;
    return 0;
}

int access_timing(struct runner *R, const struct bank_access *acc, double clk,
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

/* The counter launch (one warp, COUNT_INSTR instructions) of p. ldmatrix/stmatrix: LDSM's
 * and STSM's wavefronts are in the _op_ld/_op_st figures. cp.async: GH100's range profiler
 * counts LDGSTS's bank conflicts (exact) but its wavefronts only in the all-kinds figure,
 * which read 0.02 a instruction above the SASS counters on the H200 (docs/gpu.md) even as the
 * difference of two launches (twice the instructions, minus once); so the wavefronts shown
 * are the conflicts plus the passes, and the all-kinds figure goes into the note. */
static int pattern_counters(struct runner *R, const struct pattern_run *p, char *note,
                            size_t notesize, struct gpu_result *res)
{
    struct pattern_run c = *p;
    double v[BL_NMETRICS] = {0}, v2[BL_NMETRICS] = {0};
    c.blocks = 1;
    c.threads = 32;
    c.iters = COUNT_ITERS;
    c.a.region = 0;
    c.smem = bl_pattern_smem(&c.a, c.threads);
    CK(res, bl_pattern_attr(&c.a, c.smem)); /* a reference timed since may have lowered it */
    if (p->a.instr != BANK_PLAIN && R->ctr && R->ctr_nmetrics < BL_NMETRICS) {
        gpu_note(res, CTR_NO_MATRIX_METRICS);
        return 0;
    }
    /* a plain load or store needs the six metrics alone: fewer counter passes */
    int nm = p->a.instr == BANK_PLAIN ? BL_INST_ST + 1 : BL_NMETRICS;
    if (read_counters(R, res, pattern_launch_sync, &c, nm, v))
        return res->err.status == GPU_OK ? 0 : -1;
    double n = COUNT_INSTR;
    counters_to_result(res, v, n, n);
    double got = p->a.store ? v[BL_INST_ST] : v[BL_INST_LD];
    if (p->a.instr == BANK_LDMATRIX)
        got = res->inst_ld = v[BL_INST_LDSM];
    else if (p->a.instr == BANK_STMATRIX)
        got = res->inst_st = v[BL_INST_STSM];
    else if (p->a.instr == BANK_CPASYNC) {
        c.iters = 2 * COUNT_ITERS;
        if (read_counters(R, res, pattern_launch_sync, &c, nm, v2)) {
            res->has_counters = 0;
            return res->err.status == GPU_OK ? 0 : -1;
        }
        double d_all = v2[BL_WAVEFRONTS_ALL] - v[BL_WAVEFRONTS_ALL];
        double d_lds = v2[BL_WAVEFRONTS_LD] - v[BL_WAVEFRONTS_LD] +
                       v2[BL_WAVEFRONTS_ST] - v[BL_WAVEFRONTS_ST];
        res->wavefronts_ld = res->conflicts_ld = 0;
        res->conflicts_st = (v2[BL_CONFLICTS_LDGSTS] - v[BL_CONFLICTS_LDGSTS]) / n;
        res->wavefronts_st = res->conflicts_st + p->passes;
        got = res->inst_st = v2[BL_INST_LDGSTS] - v[BL_INST_LDGSTS];
        gpu_note(res, CTR_CPASYNC_NOTE, p->passes, (d_all - d_lds) / n);
    }
    if (p->a.mask && fabs(got - n) > 0.5)
        gpu_note(res, CTR_INSTR_WARNING, got, COUNT_INSTR);
    if (p->a.instr == BANK_CPASYNC)
        bl_fmt(note, notesize, "counters: CUPTI, 1 warp x %d and x %d instructions, the "
               "difference", COUNT_INSTR, 2 * COUNT_INSTR);
    else
        bl_fmt(note, notesize, "counters: CUPTI, 1 warp x %d instructions", COUNT_INSTR);
    return 0;
}

void runner_warm_up(struct runner *R)
{
    struct pattern_run c;
    double v[BL_NMETRICS];
    struct bl_err why = {0};
    memset(&c, 0, sizeof c);
    c.a.mask = 0xffffffffu;
    c.a.width = 4;
    for (int l = 0; l < BANK_LANES; l++)
        c.a.off[l] = (uint32_t)l * 4;
    c.blocks = 1;
    c.threads = 32;
    c.iters = 1;
    c.smem = bl_pattern_smem(&c.a, c.threads);
    c.sink = R->d_sink;
    if (bl_pattern_attr(&c.a, c.smem) == 0) {
        if (R->ctr && R->retry.prepared) {
            bl_counters_use(R->ctr, BL_INST_ST + 1);
            bl_counters_measure(R->ctr, pattern_launch_sync, &c, v, &why);
        }
        else
            pattern_launch_sync(&c);
    }
    cudaGetLastError();
}

int run_pattern(struct runner *R, const struct gpu_request *req, struct gpu_result *res)
{
    struct pattern_run p;
    int wf;
    if (pattern_setup(R, &req->access, &p, &wf, res))
        return -1;
    char timing_note[128] = "", counter_note[128] = "";
    if (req->want_timing) {
        if (pattern_time(R, &p, wf, res) ||
            access_timing(R, &req->access, res->clk_per_request, res))
            return -1;
        bl_fmt(timing_note, sizeof timing_note, "timing: median of %d launches x %d x %d "
               "threads x %d accesses", res->launches, p.blocks, p.threads,
               p.iters * BL_PATTERN_UNROLL);
    }
    if (req->want_counters && pattern_counters(R, &p, counter_note, sizeof counter_note, res))
        return -1;
    bl_fmt(res->provenance, sizeof res->provenance, "%s; %s%s%s", R->info.device, timing_note,
           timing_note[0] && counter_note[0] ? "; " : "", counter_note);
    return 0;
}
