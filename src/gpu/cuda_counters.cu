/* cuda_counters.cu: the six shared-memory metrics through CUPTI's Range Profiler (auto range,
 * kernel replay). A measurement enables the range profiler when it is not enabled; the owner
 * gives it back with bl_counters_release (the profiler is then deinitialised too: on the H200
 * a re-enable without that crashed), so the counter hardware, which belongs to one process of
 * the machine at a time, is held only while its owner measures. C++ only because
 * cupti_profiler_host.h includes <string>; the interface is
 * C (cuda_counters.h). libcupti and libcuda are dlopen'ed: nothing here is linked, so the
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
#include "../base/fmt.h"
}
#include "cuda_counters.h"

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

#define FN(name) decltype(&::name) name##_p
struct cupti_api {
    FN(cuptiGetResultString);
    FN(cuptiProfilerInitialize);
    FN(cuptiProfilerDeInitialize);
    FN(cuptiDeviceGetChipName);
    FN(cuptiProfilerGetCounterAvailability);
    FN(cuptiProfilerHostInitialize);
    FN(cuptiProfilerHostDeinitialize);
    FN(cuptiProfilerHostConfigAddMetrics);
    FN(cuptiProfilerHostGetConfigImageSize);
    FN(cuptiProfilerHostGetConfigImage);
    FN(cuptiProfilerHostGetNumOfPasses);
    FN(cuptiProfilerHostEvaluateToGpuValues);
    FN(cuptiRangeProfilerEnable);
    FN(cuptiRangeProfilerDisable);
    FN(cuptiRangeProfilerGetCounterDataSize);
    FN(cuptiRangeProfilerCounterDataImageInitialize);
    FN(cuptiRangeProfilerSetConfig);
    FN(cuptiRangeProfilerStart);
    FN(cuptiRangeProfilerStop);
    FN(cuptiRangeProfilerDecodeData);
    FN(cuptiRangeProfilerGetCounterDataInfo);
    FN(cuCtxGetCurrent);
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
};

static const char *result_name(struct bl_counters *c, CUptiResult r)
{
    const char *s = NULL;
    if (c->f.cuptiGetResultString_p && c->f.cuptiGetResultString_p(r, &s) == CUPTI_SUCCESS && s)
        return s;
    return "unknown CUPTI error";
}

/* 1 for a result that says this device cannot be profiled at all. */
static int device_unsupported(int r)
{
    return r == CUPTI_ERROR_NOT_SUPPORTED || r == CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED ||
           r == CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED || r == CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED ||
           r == CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED ||
           r == CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED;
}

extern "C" void bl_cupti_why(int r, const char *text, const char *call, char *why, size_t n)
{
    if (device_unsupported(r))
        bl_fmt(why, n, "counters not supported on this device: %s: %s", call, text);
    else if (r == CUPTI_ERROR_HARDWARE_BUSY)
        bl_fmt(why, n, "%s: CUPTI_ERROR_HARDWARE_BUSY", call);
    else if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ||
             r == CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES)
        bl_fmt(why, n, "counters not allowed: insufficient privileges (%s; run as root or allow "
                       "profiling for all users)", call);
    else if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
        bl_fmt(why, n, "counters not available: another profiler is active in this process (%s)",
               call);
    else if (r == CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED)
        bl_fmt(why, n, "counters not available on a virtualised GPU (%s)", call);
    else
        bl_fmt(why, n, "counters not available: %s failed: %s (%d)", call, text, r);
}

/* What a failed CUPTI call means, with one line about it (bl_cupti_why): busy (another
 * profiler holds the hardware: try again), unavailable (never here: permission, a virtual or
 * unsupported device, a profiler in this process), or `other` (a failure of this call). */
static enum ctr_status cupti_fail(struct bl_counters *c, CUptiResult r, const char *call,
                                  enum ctr_status other, char *why, size_t n)
{
    bl_cupti_why((int)r, result_name(c, r), call, why, n);
    if (r == CUPTI_ERROR_HARDWARE_BUSY)
        return CTR_BUSY;
    if (device_unsupported(r) || r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ||
        r == CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES ||
        r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED ||
        r == CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED)
        return CTR_UNAVAILABLE;
    return other;
}

/* A CUPTI parameter block: zeroed, with its structSize set. */
#define PARAMS(T, v)                                                                           \
    T v;                                                                                       \
    memset(&v, 0, sizeof v);                                                                   \
    v.structSize = T##_STRUCT_SIZE

/* Call a CUPTI function; on failure return what cupti_fail makes of it. */
#define CUPTI_TRY(c, name, call, other, why, n)                                                \
    do {                                                                                       \
        CUptiResult r_ = (call);                                                               \
        if (r_ != CUPTI_SUCCESS)                                                               \
            return cupti_fail((c), r_, (name), (other), (why), (n));                           \
    } while (0)

static int load(struct bl_counters *c, char *why, size_t n)
{
    c->lib = bl_cupti_open();
    if (!c->lib) {
        bl_fmt(why, n, "counters not available: libcupti.so.13 not found (set BANKLAB_CUPTI)");
        return -1;
    }
    c->libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!c->libcuda) {
        bl_fmt(why, n, "counters not available: libcuda.so.1 not found");
        return -1;
    }
#define SYM(lib, name)                                                                         \
    do {                                                                                       \
        *(void **)&c->f.name##_p = dlsym((lib), #name);                                            \
        if (!c->f.name##_p) {                                                                      \
            bl_fmt(why, n, "counters not available: %s missing from CUPTI (too old?)", #name);    \
            return -1;                                                                         \
        }                                                                                      \
    } while (0)
    SYM(c->lib, cuptiGetResultString);
    SYM(c->lib, cuptiProfilerInitialize);
    SYM(c->lib, cuptiProfilerDeInitialize);
    SYM(c->lib, cuptiDeviceGetChipName);
    SYM(c->lib, cuptiProfilerGetCounterAvailability);
    SYM(c->lib, cuptiProfilerHostInitialize);
    SYM(c->lib, cuptiProfilerHostDeinitialize);
    SYM(c->lib, cuptiProfilerHostConfigAddMetrics);
    SYM(c->lib, cuptiProfilerHostGetConfigImageSize);
    SYM(c->lib, cuptiProfilerHostGetConfigImage);
    SYM(c->lib, cuptiProfilerHostGetNumOfPasses);
    SYM(c->lib, cuptiProfilerHostEvaluateToGpuValues);
    SYM(c->lib, cuptiRangeProfilerEnable);
    SYM(c->lib, cuptiRangeProfilerDisable);
    SYM(c->lib, cuptiRangeProfilerGetCounterDataSize);
    SYM(c->lib, cuptiRangeProfilerCounterDataImageInitialize);
    SYM(c->lib, cuptiRangeProfilerSetConfig);
    SYM(c->lib, cuptiRangeProfilerStart);
    SYM(c->lib, cuptiRangeProfilerStop);
    SYM(c->lib, cuptiRangeProfilerDecodeData);
    SYM(c->lib, cuptiRangeProfilerGetCounterDataInfo);
    SYM(c->libcuda, cuCtxGetCurrent);
#undef SYM
    return 0;
}

extern "C" const char *bl_counters_metric(int i)
{
    return i >= 0 && i < BL_NMETRICS ? metric_names[i] : NULL;
}

extern "C" struct bl_counters *bl_counters_new(int device, const char **names, int n, char *why,
                                               size_t whysize)
{
    if (n > BL_MAX_METRICS) {
        bl_fmt(why, whysize, "counters: at most %d metrics", BL_MAX_METRICS);
        return NULL;
    }
    struct bl_counters *c = (struct bl_counters *)calloc(1, sizeof *c);
    if (!c) {
        bl_fmt(why, whysize, "counters not available: out of memory");
        return NULL;
    }
    c->device = device;
    c->names = names ? names : metric_names;
    c->n = names ? (size_t)(n > 0 ? n : 0) : (size_t)BL_NMETRICS;
    if (load(c, why, whysize)) {
        bl_counters_close(c);
        return NULL;
    }
    return c;
}

extern "C" struct bl_counters *bl_counters_open_metrics(int device, const char **names, int n,
                                                        char *why, size_t whysize)
{
    struct bl_counters *c = bl_counters_new(device, names, n, why, whysize);
    if (c && bl_counters_prepare(c, why, whysize) != CTR_OK) {
        bl_counters_close(c);
        return NULL;
    }
    return c;
}

extern "C" struct bl_counters *bl_counters_open(int device, char *why, size_t whysize)
{
    return bl_counters_open_metrics(device, NULL, BL_NMETRICS, why, whysize);
}

/* The host object and the configuration image for the six metrics (all or nothing). */
static enum ctr_status build_config(struct bl_counters *c, char *why, size_t n)
{
    PARAMS(CUpti_Profiler_Host_Initialize_Params, hp);
    hp.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hp.pChipName = c->chip;
    hp.pCounterAvailabilityImage = c->avail;
    CUPTI_TRY(c, "cuptiProfilerHostInitialize", c->f.cuptiProfilerHostInitialize_p(&hp),
              CTR_UNAVAILABLE, why, n);
    c->host = hp.pHostObject;

    PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params, mp);
    mp.pHostObject = c->host;
    mp.ppMetricNames = c->names;
    mp.numMetrics = c->n;
    CUPTI_TRY(c, "cuptiProfilerHostConfigAddMetrics", c->f.cuptiProfilerHostConfigAddMetrics_p(&mp),
              CTR_UNAVAILABLE, why, n);

    PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params, sp);
    sp.pHostObject = c->host;
    CUPTI_TRY(c, "cuptiProfilerHostGetConfigImageSize",
              c->f.cuptiProfilerHostGetConfigImageSize_p(&sp), CTR_UNAVAILABLE, why, n);
    c->config_size = sp.configImageSize;
    c->config = (uint8_t *)malloc(c->config_size ? c->config_size : 1);
    if (!c->config) {
        bl_fmt(why, n, "counters not available: out of memory");
        return CTR_UNAVAILABLE;
    }
    PARAMS(CUpti_Profiler_Host_GetConfigImage_Params, gp);
    gp.pHostObject = c->host;
    gp.configImageSize = c->config_size;
    gp.pConfigImage = c->config;
    CUPTI_TRY(c, "cuptiProfilerHostGetConfigImage", c->f.cuptiProfilerHostGetConfigImage_p(&gp),
              CTR_UNAVAILABLE, why, n);

    PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params, pp);
    pp.configImageSize = c->config_size;
    pp.pConfigImage = c->config;
    CUPTI_TRY(c, "cuptiProfilerHostGetNumOfPasses", c->f.cuptiProfilerHostGetNumOfPasses_p(&pp),
              CTR_UNAVAILABLE, why, n);
    return CTR_OK;
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
static enum ctr_status query(struct bl_counters *c, int availability, char *why, size_t n)
{
    if (!c->ctx && (c->f.cuCtxGetCurrent_p(&c->ctx) != CUDA_SUCCESS || !c->ctx)) {
        c->ctx = NULL;
        bl_fmt(why, n, "counters not available: no current CUDA context");
        return CTR_UNAVAILABLE;
    }
    if (!c->profiler_initialized) {
        PARAMS(CUpti_Profiler_Initialize_Params, ip);
        CUPTI_TRY(c, "cuptiProfilerInitialize", c->f.cuptiProfilerInitialize_p(&ip),
                  CTR_UNAVAILABLE, why, n);
        c->profiler_initialized = 1;
    }
    if (!c->chip) {
        PARAMS(CUpti_Device_GetChipName_Params, cp);
        cp.deviceIndex = (size_t)c->device;
        CUPTI_TRY(c, "cuptiDeviceGetChipName", c->f.cuptiDeviceGetChipName_p(&cp),
                  CTR_UNAVAILABLE, why, n);
        c->chip = cp.pChipName;
    }
    if (availability && !c->avail) {
        PARAMS(CUpti_Profiler_GetCounterAvailability_Params, ap);
        ap.ctx = c->ctx;
        CUPTI_TRY(c, "cuptiProfilerGetCounterAvailability",
                  c->f.cuptiProfilerGetCounterAvailability_p(&ap), CTR_UNAVAILABLE, why, n);
        uint8_t *img = (uint8_t *)malloc(ap.counterAvailabilityImageSize ? ap.counterAvailabilityImageSize : 1);
        if (!img) {
            bl_fmt(why, n, "counters not available: out of memory");
            return CTR_UNAVAILABLE;
        }
        ap.pCounterAvailabilityImage = img;
        CUptiResult r = c->f.cuptiProfilerGetCounterAvailability_p(&ap);
        if (r != CUPTI_SUCCESS) {
            free(img);
            return cupti_fail(c, r, "cuptiProfilerGetCounterAvailability", CTR_UNAVAILABLE, why, n);
        }
        c->avail = img;
    }
    return CTR_OK;
}

/* Enable the range profiler on the context and size the counter data for it (once: the size
 * depends on the metrics only). */
static enum ctr_status enable(struct bl_counters *c, char *why, size_t n)
{
    if (c->rp)
        return CTR_OK;
    if (!c->config) {
        bl_fmt(why, n, "counters: not prepared");
        return CTR_FAILED;
    }
    PARAMS(CUpti_RangeProfiler_Enable_Params, ep);
    ep.ctx = c->ctx;
    CUPTI_TRY(c, "cuptiRangeProfilerEnable", c->f.cuptiRangeProfilerEnable_p(&ep), CTR_FAILED, why, n);
    c->rp = ep.pRangeProfilerObject;
    if (!c->data) {
        PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params, dp);
        dp.pRangeProfilerObject = c->rp;
        dp.pMetricNames = c->names;
        dp.numMetrics = c->n;
        dp.maxNumOfRanges = 16;
        dp.maxNumRangeTreeNodes = 16;
        CUPTI_TRY(c, "cuptiRangeProfilerGetCounterDataSize",
                  c->f.cuptiRangeProfilerGetCounterDataSize_p(&dp), CTR_FAILED, why, n);
        c->data = (uint8_t *)malloc(dp.counterDataSize ? dp.counterDataSize : 1);
        if (!c->data) {
            bl_fmt(why, n, "counters: out of memory");
            return CTR_FAILED;
        }
        c->data_size = dp.counterDataSize;
    }
    return CTR_OK;
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

extern "C" double bl_counters_held_since(const struct bl_counters *c)
{
    return c ? c->held_since_ms : 0;
}

extern "C" enum ctr_status bl_counters_prepare(struct bl_counters *c, char *why, size_t n)
{
    if (c->config)
        return CTR_OK;
    enum ctr_status st = query(c, 0, why, n);
    if (st != CTR_OK)
        return st;
    /* The availability image is "required for future chip support" only (cupti_profiler_host.h):
     * for chips CUPTI knows the configuration is built without it, so no query of the hardware
     * (which fails while another process profiles). Else ask, and build again with it. */
    st = build_config(c, why, n);
    if (st != CTR_OK) {
        drop_config(c);
        st = query(c, 1, why, n);
        if (st == CTR_OK)
            st = build_config(c, why, n);
        if (st != CTR_OK)
            drop_config(c);
    }
    return st;
}

/* With the range profiler enabled: profile launch(arg) and evaluate the metrics. */
static enum ctr_status session(struct bl_counters *c, CUpti_RangeProfiler_Object *rp,
                               int (*launch)(void *arg), void *arg, double *vals, char *why,
                               size_t n)
{
    PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params, ip);
    ip.pRangeProfilerObject = rp;
    ip.counterDataSize = c->data_size;
    ip.pCounterData = c->data;
    CUPTI_TRY(c, "cuptiRangeProfilerCounterDataImageInitialize",
              c->f.cuptiRangeProfilerCounterDataImageInitialize_p(&ip), CTR_FAILED, why, n);

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
    CUPTI_TRY(c, "cuptiRangeProfilerSetConfig", c->f.cuptiRangeProfilerSetConfig_p(&sp),
              CTR_FAILED, why, n);

    PARAMS(CUpti_RangeProfiler_Start_Params, st);
    st.pRangeProfilerObject = rp;
    CUPTI_TRY(c, "cuptiRangeProfilerStart", c->f.cuptiRangeProfilerStart_p(&st), CTR_FAILED, why, n);
    int lrc = launch(arg);
    PARAMS(CUpti_RangeProfiler_Stop_Params, sq);
    sq.pRangeProfilerObject = rp;
    CUPTI_TRY(c, "cuptiRangeProfilerStop", c->f.cuptiRangeProfilerStop_p(&sq), CTR_FAILED, why, n);
    if (lrc) {
        bl_fmt(why, n, "the profiled launch failed");
        return CTR_FAILED;
    }
    PARAMS(CUpti_RangeProfiler_DecodeData_Params, dp);
    dp.pRangeProfilerObject = rp;
    CUPTI_TRY(c, "cuptiRangeProfilerDecodeData", c->f.cuptiRangeProfilerDecodeData_p(&dp),
              CTR_FAILED, why, n);
    if (dp.numOfRangeDropped) {
        bl_fmt(why, n, "counters: %zu ranges dropped", dp.numOfRangeDropped);
        return CTR_FAILED;
    }
    PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params, gi);
    gi.pCounterDataImage = c->data;
    gi.counterDataImageSize = c->data_size;
    CUPTI_TRY(c, "cuptiRangeProfilerGetCounterDataInfo",
              c->f.cuptiRangeProfilerGetCounterDataInfo_p(&gi), CTR_FAILED, why, n);
    if (gi.numTotalRanges == 0) {
        bl_fmt(why, n, "counters: no kernel was profiled");
        return CTR_FAILED;
    }
    for (size_t r = 0; r < gi.numTotalRanges; r++) {
        double v[BL_MAX_METRICS];
        PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params, ev);
        ev.pHostObject = c->host;
        ev.pCounterDataImage = c->data;
        ev.counterDataImageSize = c->data_size;
        ev.rangeIndex = r;
        ev.ppMetricNames = c->names;
        ev.numMetrics = c->n;
        ev.pMetricValues = v;
        CUPTI_TRY(c, "cuptiProfilerHostEvaluateToGpuValues",
                  c->f.cuptiProfilerHostEvaluateToGpuValues_p(&ev), CTR_FAILED, why, n);
        for (size_t i = 0; i < c->n; i++)
            vals[i] += v[i];
    }
    return CTR_OK;
}

extern "C" enum ctr_status bl_counters_measure(struct bl_counters *c, int (*launch)(void *arg),
                                               void *arg, double *vals, char *why, size_t n)
{
    for (size_t i = 0; i < c->n; i++)
        vals[i] = 0;
    if (!c->config) {
        enum ctr_status st = bl_counters_prepare(c, why, n);
        if (st != CTR_OK)
            return st;
    }
    if (!c->rp) {
        enum ctr_status st = enable(c, why, n);
        if (st != CTR_OK) {
            release(c);
            return st;
        }
        c->held_since_ms = ctr_now_ms();
    }
    return session(c, c->rp, launch, arg, vals, why, n);
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
