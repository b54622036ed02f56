/* counters.cu: the shared-memory metrics through CUPTI's Range Profiler (auto range,
 * kernel replay). Preparing (at the runner's open) initialises the profiler and builds the
 * configuration; a measurement enables the range profiler when it is not enabled (the
 * runner's first is its warm-up, at open); the owner gives it back with bl_counters_release,
 * which deinitialises the profiler too (a re-enable without that crashes), so the counter
 * hardware, which belongs to one process of the machine at a time, is held only while its
 * owner measures. C++ only because cupti_profiler_host.h includes <string>; the interface is
 * C (cuda/cudalib.h). libcupti and libcuda are dlopen'ed: nothing here is linked, so the
 * program starts without them and says why counters are missing. Never prints, never exits. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>

extern "C" {
#include "../base/err.h"
}
#include "cudalib.h"

static const char *metric_names[BL_NMETRICS] = {
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "smsp__inst_executed_op_shared_ld.sum",
    "smsp__inst_executed_op_shared_st.sum",
    "smsp__inst_executed_op_ldsm.sum",
    "smsp__inst_executed_op_shared_stsm.sum",
    "smsp__inst_executed_op_ldgsts.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
};

/* The CUPTI functions used, each resolved from libcupti (load) into cupti_api. */
#define CUPTI_FUNCTIONS(X) \
    X(cuptiGetResultString) X(cuptiProfilerInitialize) X(cuptiProfilerDeInitialize) \
    X(cuptiDeviceGetChipName) X(cuptiProfilerGetCounterAvailability) \
    X(cuptiProfilerHostInitialize) X(cuptiProfilerHostDeinitialize) \
    X(cuptiProfilerHostConfigAddMetrics) X(cuptiProfilerHostGetConfigImageSize) \
    X(cuptiProfilerHostGetConfigImage) X(cuptiProfilerHostGetNumOfPasses) \
    X(cuptiProfilerHostEvaluateToGpuValues) X(cuptiRangeProfilerEnable) \
    X(cuptiRangeProfilerDisable) X(cuptiRangeProfilerGetCounterDataSize) \
    X(cuptiRangeProfilerCounterDataImageInitialize) X(cuptiRangeProfilerSetConfig) \
    X(cuptiRangeProfilerStart) X(cuptiRangeProfilerStop) X(cuptiRangeProfilerDecodeData) \
    X(cuptiRangeProfilerGetCounterDataInfo)
#define FN(name) decltype(&::name) name##_p;
struct cupti_api {
    CUPTI_FUNCTIONS(FN)
    FN(cuCtxGetCurrent)
};
#undef FN

struct bl_counters {
    void *lib, *libcuda;
    struct cupti_api f;
    int device;
    CUcontext ctx;
    int profiler_initialized;
    const char *chip;            /* CUPTI's own string */
    uint8_t *avail;              /* the host object keeps pointing at it: free at close */
    CUpti_Profiler_Host_Object *host;
    uint8_t *config;
    size_t config_size;
    CUpti_RangeProfiler_Object *rp; /* enabled by a measurement, until bl_counters_release */
    double held_since_ms;        /* when it was enabled (CLOCK_MONOTONIC), 0 when not */
    uint8_t *data;
    size_t data_size;
    const char **names;          /* the metrics read, and how many (at most BL_MAX_METRICS) */
    size_t n;
    size_t n_all;                /* the handle's metrics; n is the first n of them in use */
};

/* fail: CUPTI call `call` answered r (bl_cupti_fail, with CUPTI's name for r). -1. */
static int fail(struct bl_counters *c, struct bl_err *err, int other, CUptiResult r,
                const char *call)
{
    const char *s = NULL;
    if (!c->f.cuptiGetResultString_p || c->f.cuptiGetResultString_p(r, &s) != CUPTI_SUCCESS || !s)
        s = "unknown CUPTI error";
    return bl_cupti_fail(err, other, (int)r, s, call);
}

/* 1 for a result that says this device cannot be profiled at all. */
static int device_unsupported(int r)
{
    return r == CUPTI_ERROR_NOT_SUPPORTED || r == CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED ||
           r == CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED || r == CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED ||
           r == CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED ||
           r == CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED;
}

extern "C" int bl_cupti_fail(struct bl_err *err, int other, int r, const char *text,
                              const char *call)
{
    const struct bl_place no = BL_NOWHERE;
    if (device_unsupported(r))
        return bl_fail(err, CTR_UNAVAILABLE, no, CNT_NOT_SUPPORTED, call, text);
    if (r == CUPTI_ERROR_HARDWARE_BUSY)
        return bl_fail(err, CTR_BUSY, no, CNT_HARDWARE_BUSY, call);
    if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ||
        r == CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES)
        return bl_fail(err, CTR_UNAVAILABLE, no, CNT_PRIVILEGES, call);
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
        return bl_fail(err, CTR_UNAVAILABLE, no, CNT_OTHER_PROFILER, call);
    if (r == CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED)
        return bl_fail(err, CTR_UNAVAILABLE, no, CNT_VIRTUALISED, call);
    return bl_fail(err, other, no, CNT_FAILED, call, text, r);
}

/* A CUPTI parameter block: zeroed, with its structSize set. */
#define PARAMS(T, v)                                                                           \
    T v;                                                                                       \
    memset(&v, 0, sizeof v);                                                                   \
    v.structSize = T##_STRUCT_SIZE

static int load(struct bl_counters *c, struct bl_err *err)
{
    c->lib = bl_cupti_open();
    if (!c->lib)
        return bl_fail(err, CTR_UNAVAILABLE, BL_NOWHERE, CNT_NO_CUPTI);
    c->libcuda = bl_cuda_open();
    if (!c->libcuda)
        return bl_fail(err, CTR_UNAVAILABLE, BL_NOWHERE, CNT_NO_LIBCUDA);
#define SYM(lib, name)                                                                         \
    do {                                                                                       \
        *(void **)&c->f.name##_p = dlsym((lib), #name);                                        \
        if (!c->f.name##_p)                                                                    \
            return bl_fail(err, CTR_UNAVAILABLE, BL_NOWHERE, CNT_MISSING_SYMBOL, #name);       \
    } while (0)
#define SYM_CUPTI(name) SYM(c->lib, name);
    CUPTI_FUNCTIONS(SYM_CUPTI)
#undef SYM_CUPTI
    SYM(c->libcuda, cuCtxGetCurrent);
#undef SYM
    return 0;
}

extern "C" const char *bl_counters_metric(int i)
{
    return i >= 0 && i < BL_NMETRICS ? metric_names[i] : NULL;
}

extern "C" struct bl_counters *bl_counters_new(int device, const char **names, int n,
                                               struct bl_err *err)
{
    struct bl_counters *c = NULL;
    if (n > BL_MAX_METRICS)
        bl_fail(err, CTR_UNAVAILABLE, BL_NOWHERE, CNT_AT_MOST_METRICS, BL_MAX_METRICS);
    else if (!(c = (struct bl_counters *)calloc(1, sizeof *c)))
        bl_fail(err, CTR_UNAVAILABLE, BL_NOWHERE, CNT_NO_MEMORY);
    if (!c)
        return NULL;
    c->device = device;
    c->names = names ? names : metric_names;
    c->n = names ? (size_t)(n > 0 ? n : 0) : (size_t)BL_NMETRICS;
    c->n_all = c->n;
    if (load(c, err)) {
        bl_counters_close(c);
        return NULL;
    }
    return c;
}

extern "C" struct bl_counters *bl_counters_open_metrics(int device, const char **names, int n,
                                                        struct bl_err *err)
{
    struct bl_counters *c = bl_counters_new(device, names, n, err);
    if (c && bl_counters_prepare(c, err) != CTR_OK) {
        bl_counters_close(c);
        return NULL;
    }
    return c;
}

/* The host object and the configuration image for the six metrics (all or nothing). */
static int build_config(struct bl_counters *c, struct bl_err *err)
{
    CUptiResult r;
    PARAMS(CUpti_Profiler_Host_Initialize_Params, hp);
    hp.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hp.pChipName = c->chip;
    hp.pCounterAvailabilityImage = c->avail;
    if ((r = c->f.cuptiProfilerHostInitialize_p(&hp)) != CUPTI_SUCCESS)
        return fail(c, err, CTR_UNAVAILABLE, r, "cuptiProfilerHostInitialize");
    c->host = hp.pHostObject;

    PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params, mp);
    mp.pHostObject = c->host;
    mp.ppMetricNames = c->names;
    mp.numMetrics = c->n;
    if ((r = c->f.cuptiProfilerHostConfigAddMetrics_p(&mp)) != CUPTI_SUCCESS)
        return fail(c, err, CTR_UNAVAILABLE, r, "cuptiProfilerHostConfigAddMetrics");

    PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params, sp);
    sp.pHostObject = c->host;
    if ((r = c->f.cuptiProfilerHostGetConfigImageSize_p(&sp)) != CUPTI_SUCCESS)
        return fail(c, err, CTR_UNAVAILABLE, r, "cuptiProfilerHostGetConfigImageSize");
    c->config_size = sp.configImageSize;
    c->config = (uint8_t *)malloc(c->config_size ? c->config_size : 1);
    if (!c->config)
        return bl_fail(err, CTR_UNAVAILABLE, BL_NOWHERE, CNT_NO_MEMORY);
    PARAMS(CUpti_Profiler_Host_GetConfigImage_Params, gp);
    gp.pHostObject = c->host;
    gp.configImageSize = c->config_size;
    gp.pConfigImage = c->config;
    if ((r = c->f.cuptiProfilerHostGetConfigImage_p(&gp)) != CUPTI_SUCCESS)
        return fail(c, err, CTR_UNAVAILABLE, r, "cuptiProfilerHostGetConfigImage");

    PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params, pp);
    pp.configImageSize = c->config_size;
    pp.pConfigImage = c->config;
    if ((r = c->f.cuptiProfilerHostGetNumOfPasses_p(&pp)) != CUPTI_SUCCESS)
        return fail(c, err, CTR_UNAVAILABLE, r, "cuptiProfilerHostGetNumOfPasses");
    return 0;
}

static void drop_config(struct bl_counters *c)
{
    if (c->host) {
        PARAMS(CUpti_Profiler_Host_Deinitialize_Params, hp);
        hp.pHostObject = c->host;
        c->f.cuptiProfilerHostDeinitialize_p(&hp);
        c->host = NULL;
    }
    free(c->config);
    c->config = NULL;
}

/* The profiler, the chip, and (only when asked) which counters are available now: that query
 * fails with HARDWARE_BUSY while another process profiles the device. */
static int query(struct bl_counters *c, int availability, struct bl_err *err)
{
    CUptiResult r;
    if (!c->ctx && (c->f.cuCtxGetCurrent_p(&c->ctx) != CUDA_SUCCESS || !c->ctx)) {
        c->ctx = NULL;
        return bl_fail(err, CTR_UNAVAILABLE, BL_NOWHERE, CNT_NO_CONTEXT);
    }
    if (!c->profiler_initialized) {
        PARAMS(CUpti_Profiler_Initialize_Params, ip);
        if ((r = c->f.cuptiProfilerInitialize_p(&ip)) != CUPTI_SUCCESS)
            return fail(c, err, CTR_UNAVAILABLE, r, "cuptiProfilerInitialize");
        c->profiler_initialized = 1;
    }
    if (!c->chip) {
        PARAMS(CUpti_Device_GetChipName_Params, cp);
        cp.deviceIndex = (size_t)c->device;
        if ((r = c->f.cuptiDeviceGetChipName_p(&cp)) != CUPTI_SUCCESS)
            return fail(c, err, CTR_UNAVAILABLE, r, "cuptiDeviceGetChipName");
        c->chip = cp.pChipName;
    }
    if (availability && !c->avail) {
        PARAMS(CUpti_Profiler_GetCounterAvailability_Params, ap);
        ap.ctx = c->ctx;
        if ((r = c->f.cuptiProfilerGetCounterAvailability_p(&ap)) != CUPTI_SUCCESS)
            return fail(c, err, CTR_UNAVAILABLE, r, "cuptiProfilerGetCounterAvailability");
        uint8_t *img = (uint8_t *)malloc(ap.counterAvailabilityImageSize ? ap.counterAvailabilityImageSize : 1);
        if (!img)
            return bl_fail(err, CTR_UNAVAILABLE, BL_NOWHERE, CNT_NO_MEMORY);
        ap.pCounterAvailabilityImage = img;
        r = c->f.cuptiProfilerGetCounterAvailability_p(&ap);
        if (r != CUPTI_SUCCESS) {
            free(img);
            return fail(c, err, CTR_UNAVAILABLE, r, "cuptiProfilerGetCounterAvailability");
        }
        c->avail = img;
    }
    return 0;
}

/* Enable the range profiler on the context and size the counter data for it (once: the size
 * depends on the metrics only). */
static int enable(struct bl_counters *c, struct bl_err *err)
{
    CUptiResult r;
    if (c->rp)
        return 0;
    if (!c->config)
        return bl_fail(err, CTR_FAILED, BL_NOWHERE, CNT_NOT_PREPARED);
    PARAMS(CUpti_RangeProfiler_Enable_Params, ep);
    ep.ctx = c->ctx;
    if ((r = c->f.cuptiRangeProfilerEnable_p(&ep)) != CUPTI_SUCCESS)
        return fail(c, err, CTR_FAILED, r, "cuptiRangeProfilerEnable");
    c->rp = ep.pRangeProfilerObject;
    if (!c->data) {
        PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params, dp);
        dp.pRangeProfilerObject = c->rp;
        dp.pMetricNames = c->names;
        dp.numMetrics = c->n;
        dp.maxNumOfRanges = 16;
        dp.maxNumRangeTreeNodes = 16;
        if ((r = c->f.cuptiRangeProfilerGetCounterDataSize_p(&dp)) != CUPTI_SUCCESS)
            return fail(c, err, CTR_FAILED, r, "cuptiRangeProfilerGetCounterDataSize");
        c->data = (uint8_t *)malloc(dp.counterDataSize ? dp.counterDataSize : 1);
        if (!c->data)
            return bl_fail(err, CTR_FAILED, BL_NOWHERE, CNT_OUT_OF_MEMORY);
        c->data_size = dp.counterDataSize;
    }
    return 0;
}

/* Disable the range profiler and deinitialise the profiler (set up again by the next
 * measurement): the counter hardware is free for other processes again. */
static void release(struct bl_counters *c)
{
    if (c->rp) {
        PARAMS(CUpti_RangeProfiler_Disable_Params, dp);
        dp.pRangeProfilerObject = c->rp;
        c->f.cuptiRangeProfilerDisable_p(&dp);
        c->rp = NULL;
    }
    c->held_since_ms = 0;
    drop_config(c);
    if (c->profiler_initialized) {
        PARAMS(CUpti_Profiler_DeInitialize_Params, dp);
        c->f.cuptiProfilerDeInitialize_p(&dp);
        c->profiler_initialized = 0;
    }
    c->chip = NULL;
    free(c->data);
    c->data = NULL;
}

extern "C" void bl_counters_release(struct bl_counters *c)
{
    if (c && (c->rp || c->config || c->profiler_initialized))
        release(c);
}

extern "C" void bl_counters_use(struct bl_counters *c, int n)
{
    if (!c)
        return;
    size_t want = n > 0 && (size_t)n < c->n_all ? (size_t)n : c->n_all;
    if (want == c->n)
        return;
    release(c);
    c->n = want;
}

extern "C" double bl_counters_held_since(const struct bl_counters *c)
{
    return c ? c->held_since_ms : 0;
}

/* The status of a step that answered rc (0, or -1 with err failed). */
static enum ctr_status status(int rc, const struct bl_err *err)
{
    return rc ? (enum ctr_status)err->status : CTR_OK;
}

extern "C" enum ctr_status bl_counters_prepare(struct bl_counters *c, struct bl_err *err)
{
    if (c->config)
        return CTR_OK;
    if (query(c, 0, err))
        return status(-1, err);
    /* The availability image is "required for future chip support" only (cupti_profiler_host.h):
     * for chips CUPTI knows the configuration is built without it, so no query of the hardware
     * (which fails while another process profiles). Else ask, and build again with it. */
    struct bl_err first = {};
    if (build_config(c, &first) == 0)
        return CTR_OK;
    drop_config(c);
    int rc = query(c, 1, err) || build_config(c, err) ? -1 : 0;
    if (rc)
        drop_config(c);
    return status(rc, err);
}

/* With the range profiler enabled: profile launch(arg) and evaluate the metrics. */
static int session(struct bl_counters *c, CUpti_RangeProfiler_Object *rp,
                   int (*launch)(void *arg), void *arg, double *vals, struct bl_err *err)
{
    CUptiResult r;
    PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params, ip);
    ip.pRangeProfilerObject = rp;
    ip.counterDataSize = c->data_size;
    ip.pCounterData = c->data;
    if ((r = c->f.cuptiRangeProfilerCounterDataImageInitialize_p(&ip)) != CUPTI_SUCCESS)
        return fail(c, err, CTR_FAILED, r, "cuptiRangeProfilerCounterDataImageInitialize");

    PARAMS(CUpti_RangeProfiler_SetConfig_Params, sp);
    sp.pRangeProfilerObject = rp;
    sp.configSize = c->config_size;
    sp.pConfig = c->config;
    sp.counterDataImageSize = c->data_size;
    sp.pCounterDataImage = c->data;
    sp.range = CUPTI_AutoRange;
    sp.replayMode = CUPTI_KernelReplay;
    sp.maxRangesPerPass = 16;
    sp.numNestingLevels = 1;
    sp.minNestingLevel = 1;
    sp.passIndex = 0;
    sp.targetNestingLevel = 1;
    if ((r = c->f.cuptiRangeProfilerSetConfig_p(&sp)) != CUPTI_SUCCESS)
        return fail(c, err, CTR_FAILED, r, "cuptiRangeProfilerSetConfig");

    PARAMS(CUpti_RangeProfiler_Start_Params, st);
    st.pRangeProfilerObject = rp;
    if ((r = c->f.cuptiRangeProfilerStart_p(&st)) != CUPTI_SUCCESS)
        return fail(c, err, CTR_FAILED, r, "cuptiRangeProfilerStart");
    int lrc = launch(arg);
    PARAMS(CUpti_RangeProfiler_Stop_Params, sq);
    sq.pRangeProfilerObject = rp;
    if ((r = c->f.cuptiRangeProfilerStop_p(&sq)) != CUPTI_SUCCESS)
        return fail(c, err, CTR_FAILED, r, "cuptiRangeProfilerStop");
    if (lrc)
        return bl_fail(err, CTR_FAILED, BL_NOWHERE, CNT_LAUNCH_FAILED);
    PARAMS(CUpti_RangeProfiler_DecodeData_Params, dp);
    dp.pRangeProfilerObject = rp;
    if ((r = c->f.cuptiRangeProfilerDecodeData_p(&dp)) != CUPTI_SUCCESS)
        return fail(c, err, CTR_FAILED, r, "cuptiRangeProfilerDecodeData");
    if (dp.numOfRangeDropped)
        return bl_fail(err, CTR_FAILED, BL_NOWHERE, CNT_RANGES_DROPPED, dp.numOfRangeDropped);
    PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params, gi);
    gi.pCounterDataImage = c->data;
    gi.counterDataImageSize = c->data_size;
    if ((r = c->f.cuptiRangeProfilerGetCounterDataInfo_p(&gi)) != CUPTI_SUCCESS)
        return fail(c, err, CTR_FAILED, r, "cuptiRangeProfilerGetCounterDataInfo");
    if (gi.numTotalRanges == 0)
        return bl_fail(err, CTR_FAILED, BL_NOWHERE, CNT_NO_KERNEL);
    for (size_t i = 0; i < gi.numTotalRanges; i++) {
        double v[BL_MAX_METRICS];
        PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params, ev);
        ev.pHostObject = c->host;
        ev.pCounterDataImage = c->data;
        ev.counterDataImageSize = c->data_size;
        ev.rangeIndex = i;
        ev.ppMetricNames = c->names;
        ev.numMetrics = c->n;
        ev.pMetricValues = v;
        if ((r = c->f.cuptiProfilerHostEvaluateToGpuValues_p(&ev)) != CUPTI_SUCCESS)
            return fail(c, err, CTR_FAILED, r, "cuptiProfilerHostEvaluateToGpuValues");
        for (size_t m = 0; m < c->n; m++)
            vals[m] += v[m];
    }
    return 0;
}

extern "C" enum ctr_status bl_counters_measure(struct bl_counters *c, int (*launch)(void *arg),
                                               void *arg, double *vals, struct bl_err *err)
{
    for (size_t i = 0; i < c->n; i++)
        vals[i] = 0;
    if (!c->config && bl_counters_prepare(c, err) != CTR_OK)
        return status(-1, err);
    if (!c->rp) {
        if (enable(c, err)) {
            release(c);
            return status(-1, err);
        }
        c->held_since_ms = bl_now_ms();
    }
    return status(session(c, c->rp, launch, arg, vals, err), err);
}

extern "C" void bl_counters_close(struct bl_counters *c)
{
    if (!c)
        return;
    release(c);
    free(c->avail);
    /* libcupti stays loaded: unloading it under a live context is not safe. */
    free(c);
}
