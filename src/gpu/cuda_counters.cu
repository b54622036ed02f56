/* cuda_counters.cu: the six shared-memory metrics through CUPTI's Range Profiler (auto range,
 * kernel replay). C++ only because cupti_profiler_host.h includes <string>; the interface is
 * C (cuda_counters.h). libcupti and libcuda are dlopen'ed: nothing here is linked, so the
 * program starts without them and says why counters are missing. Never prints, never exits. */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>

#include "cuda_counters.h"

static const char *metric_names[BL_NMETRICS] = {
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "smsp__inst_executed_op_shared_ld.sum",
    "smsp__inst_executed_op_shared_st.sum",
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
    CUcontext ctx;
    CUpti_Profiler_Host_Object *host;
    CUpti_RangeProfiler_Object *rp;
    uint8_t *config;
    size_t config_size;
    uint8_t *data;
    size_t data_size;
    uint8_t *avail;              /* the host object keeps pointing at it: free at close */
    int profiler_initialized;
    const char **names;          /* the metrics read, and how many */
    size_t n;
};

static void say(char *why, size_t n, const char *fmt, ...)
{
    if (!why || !n)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
}

static const char *result_name(struct bl_counters *c, CUptiResult r)
{
    const char *s = NULL;
    if (c->f.cuptiGetResultString_p && c->f.cuptiGetResultString_p(r, &s) == CUPTI_SUCCESS && s)
        return s;
    return "unknown CUPTI error";
}

extern "C" void bl_cupti_why(int r, const char *text, const char *call, char *why, size_t n)
{
    switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
        say(why, n, "counters not allowed: insufficient privileges (%s; run as root or allow "
                    "profiling for all users)", call);
        return;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
        say(why, n, "counters not available: another profiler is active (%s)", call);
        return;
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
        say(why, n, "counters not available on a virtualised GPU (%s)", call);
        return;
    default:
        say(why, n, "counters not available: %s failed: %s (%d)", call, text, r);
    }
}

static void cupti_fail(struct bl_counters *c, CUptiResult r, const char *call, char *why,
                       size_t n)
{
    bl_cupti_why((int)r, result_name(c, r), call, why, n);
}

/* A CUPTI parameter block: zeroed, with its structSize set. */
#define PARAMS(T, v)                                                                           \
    T v;                                                                                       \
    memset(&v, 0, sizeof v);                                                                   \
    v.structSize = T##_STRUCT_SIZE

#define CUPTI_TRY(c, call, why, n)                                                             \
    do {                                                                                       \
        CUptiResult r_ = (call);                                                               \
        if (r_ != CUPTI_SUCCESS) {                                                             \
            cupti_fail((c), r_, #call, (why), (n));                                            \
            return -1;                                                                         \
        }                                                                                      \
    } while (0)

extern "C" void *bl_cupti_open(void)
{
    static const char *names[] = {
        "libcupti.so.13", "libcupti.so",
#ifdef BANKLAB_CUDA_HOME
        BANKLAB_CUDA_HOME "/lib64/libcupti.so.13", BANKLAB_CUDA_HOME "/extras/CUPTI/lib64/libcupti.so.13",
#endif
        "/usr/local/cuda/lib64/libcupti.so.13", "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13",
        "/usr/local/cuda/lib64/libcupti.so",
    };
    const char *env = getenv("BANKLAB_CUPTI");
    if (env && *env) {
        void *h = dlopen(env, RTLD_NOW | RTLD_LOCAL);
        if (h)
            return h;
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (h)
            return h;
    }
    return NULL;
}

static int load(struct bl_counters *c, char *why, size_t n)
{
    c->lib = bl_cupti_open();
    if (!c->lib) {
        say(why, n, "counters not available: libcupti.so.13 not found (set BANKLAB_CUPTI)");
        return -1;
    }
    c->libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!c->libcuda) {
        say(why, n, "counters not available: libcuda.so.1 not found");
        return -1;
    }
#define SYM(lib, name)                                                                         \
    do {                                                                                       \
        *(void **)&c->f.name##_p = dlsym((lib), #name);                                            \
        if (!c->f.name##_p) {                                                                      \
            say(why, n, "counters not available: %s missing from CUPTI (too old?)", #name);    \
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

static int setup(struct bl_counters *c, int device, char *why, size_t n)
{
    if (load(c, why, n))
        return -1;
    if (c->f.cuCtxGetCurrent_p(&c->ctx) != CUDA_SUCCESS || !c->ctx) {
        say(why, n, "counters not available: no current CUDA context");
        return -1;
    }
    PARAMS(CUpti_Profiler_Initialize_Params, ip);
    CUPTI_TRY(c, c->f.cuptiProfilerInitialize_p(&ip), why, n);
    c->profiler_initialized = 1;

    PARAMS(CUpti_Device_GetChipName_Params, cp);
    cp.deviceIndex = (size_t)device;
    CUPTI_TRY(c, c->f.cuptiDeviceGetChipName_p(&cp), why, n);

    PARAMS(CUpti_Profiler_GetCounterAvailability_Params, ap);
    ap.ctx = c->ctx;
    CUPTI_TRY(c, c->f.cuptiProfilerGetCounterAvailability_p(&ap), why, n);
    uint8_t *avail = (uint8_t *)malloc(ap.counterAvailabilityImageSize ? ap.counterAvailabilityImageSize : 1);
    c->avail = avail;
    if (!avail) {
        say(why, n, "counters not available: out of memory");
        return -1;
    }
    ap.pCounterAvailabilityImage = avail;
    CUptiResult r = c->f.cuptiProfilerGetCounterAvailability_p(&ap);
    if (r != CUPTI_SUCCESS) {
        cupti_fail(c, r, "cuptiProfilerGetCounterAvailability", why, n);
        return -1;
    }

    PARAMS(CUpti_Profiler_Host_Initialize_Params, hp);
    hp.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hp.pChipName = cp.pChipName;
    hp.pCounterAvailabilityImage = avail;
    r = c->f.cuptiProfilerHostInitialize_p(&hp);
    if (r != CUPTI_SUCCESS) {
        cupti_fail(c, r, "cuptiProfilerHostInitialize", why, n);
        return -1;
    }
    c->host = hp.pHostObject;

    PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params, mp);
    mp.pHostObject = c->host;
    mp.ppMetricNames = c->names;
    mp.numMetrics = c->n;
    CUPTI_TRY(c, c->f.cuptiProfilerHostConfigAddMetrics_p(&mp), why, n);

    PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params, sp);
    sp.pHostObject = c->host;
    CUPTI_TRY(c, c->f.cuptiProfilerHostGetConfigImageSize_p(&sp), why, n);
    c->config_size = sp.configImageSize;
    c->config = (uint8_t *)malloc(c->config_size);
    if (!c->config) {
        say(why, n, "counters not available: out of memory");
        return -1;
    }
    PARAMS(CUpti_Profiler_Host_GetConfigImage_Params, gp);
    gp.pHostObject = c->host;
    gp.configImageSize = c->config_size;
    gp.pConfigImage = c->config;
    CUPTI_TRY(c, c->f.cuptiProfilerHostGetConfigImage_p(&gp), why, n);

    PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params, pp);
    pp.configImageSize = c->config_size;
    pp.pConfigImage = c->config;
    CUPTI_TRY(c, c->f.cuptiProfilerHostGetNumOfPasses_p(&pp), why, n);

    PARAMS(CUpti_RangeProfiler_Enable_Params, ep);
    ep.ctx = c->ctx;
    CUPTI_TRY(c, c->f.cuptiRangeProfilerEnable_p(&ep), why, n);
    c->rp = ep.pRangeProfilerObject;

    PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params, dp);
    dp.pRangeProfilerObject = c->rp;
    dp.pMetricNames = c->names;
    dp.numMetrics = c->n;
    dp.maxNumOfRanges = 16;
    dp.maxNumRangeTreeNodes = 16;
    CUPTI_TRY(c, c->f.cuptiRangeProfilerGetCounterDataSize_p(&dp), why, n);
    c->data_size = dp.counterDataSize;
    c->data = (uint8_t *)malloc(c->data_size);
    if (!c->data) {
        say(why, n, "counters not available: out of memory");
        return -1;
    }
    return 0;
}

extern "C" const char *bl_counters_metric(int i)
{
    return i >= 0 && i < BL_NMETRICS ? metric_names[i] : NULL;
}

extern "C" struct bl_counters *bl_counters_open(int device, char *why, size_t whysize)
{
    return bl_counters_open_metrics(device, metric_names, BL_NMETRICS, why, whysize);
}

extern "C" struct bl_counters *bl_counters_open_metrics(int device, const char **names, int n,
                                                        char *why, size_t whysize)
{
    struct bl_counters *c = (struct bl_counters *)calloc(1, sizeof *c);
    if (!c) {
        say(why, whysize, "counters not available: out of memory");
        return NULL;
    }
    c->names = names;
    c->n = n > 0 ? (size_t)n : 0;
    if (setup(c, device, why, whysize)) {
        bl_counters_close(c);
        return NULL;
    }
    return c;
}

extern "C" int bl_counters_measure(struct bl_counters *c, int (*launch)(void *arg), void *arg,
                                   double *vals, char *why, size_t n)
{
    for (size_t i = 0; i < c->n; i++)
        vals[i] = 0;
    PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params, ip);
    ip.pRangeProfilerObject = c->rp;
    ip.counterDataSize = c->data_size;
    ip.pCounterData = c->data;
    CUPTI_TRY(c, c->f.cuptiRangeProfilerCounterDataImageInitialize_p(&ip), why, n);

    PARAMS(CUpti_RangeProfiler_SetConfig_Params, sp);
    sp.pRangeProfilerObject = c->rp;
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
    CUPTI_TRY(c, c->f.cuptiRangeProfilerSetConfig_p(&sp), why, n);

    PARAMS(CUpti_RangeProfiler_Start_Params, st);
    st.pRangeProfilerObject = c->rp;
    CUPTI_TRY(c, c->f.cuptiRangeProfilerStart_p(&st), why, n);
    int lrc = launch(arg);
    PARAMS(CUpti_RangeProfiler_Stop_Params, sq);
    sq.pRangeProfilerObject = c->rp;
    CUPTI_TRY(c, c->f.cuptiRangeProfilerStop_p(&sq), why, n);
    if (lrc) {
        say(why, n, "the profiled launch failed");
        return -1;
    }
    PARAMS(CUpti_RangeProfiler_DecodeData_Params, dp);
    dp.pRangeProfilerObject = c->rp;
    CUPTI_TRY(c, c->f.cuptiRangeProfilerDecodeData_p(&dp), why, n);
    if (dp.numOfRangeDropped) {
        say(why, n, "counters: %zu ranges dropped", dp.numOfRangeDropped);
        return -1;
    }
    PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params, gi);
    gi.pCounterDataImage = c->data;
    gi.counterDataImageSize = c->data_size;
    CUPTI_TRY(c, c->f.cuptiRangeProfilerGetCounterDataInfo_p(&gi), why, n);
    if (gi.numTotalRanges == 0) {
        say(why, n, "counters: no kernel was profiled");
        return -1;
    }
    for (size_t r = 0; r < gi.numTotalRanges; r++) {
        double v[64];
        if (c->n > 64) {
            say(why, n, "counters: at most 64 metrics");
            return -1;
        }
        PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params, ev);
        ev.pHostObject = c->host;
        ev.pCounterDataImage = c->data;
        ev.counterDataImageSize = c->data_size;
        ev.rangeIndex = r;
        ev.ppMetricNames = c->names;
        ev.numMetrics = c->n;
        ev.pMetricValues = v;
        CUPTI_TRY(c, c->f.cuptiProfilerHostEvaluateToGpuValues_p(&ev), why, n);
        for (size_t i = 0; i < c->n; i++)
            vals[i] += v[i];
    }
    return 0;
}

extern "C" void bl_counters_close(struct bl_counters *c)
{
    if (!c)
        return;
    if (c->rp) {
        PARAMS(CUpti_RangeProfiler_Disable_Params, dp);
        dp.pRangeProfilerObject = c->rp;
        c->f.cuptiRangeProfilerDisable_p(&dp);
    }
    if (c->host) {
        PARAMS(CUpti_Profiler_Host_Deinitialize_Params, hp);
        hp.pHostObject = c->host;
        c->f.cuptiProfilerHostDeinitialize_p(&hp);
    }
    if (c->profiler_initialized) {
        PARAMS(CUpti_Profiler_DeInitialize_Params, dp);
        c->f.cuptiProfilerDeInitialize_p(&dp);
    }
    free(c->config);
    free(c->data);
    free(c->avail);
    /* libcupti stays loaded: unloading it under a live context is not safe. */
    free(c);
}
