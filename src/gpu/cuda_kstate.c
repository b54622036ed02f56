/* cuda_kstate.c: what the CUDA measuring process keeps between requests (cuda_kstate.h): libcuda
 * and libcupti, dlopen'ed (the binary starts without them); the device, opened once, with its
 * limits and its turns (devlock.h); the primary context and CUPTI, made ready once. The bottom
 * of the cuda_k*.c files: calls none of them. No curses, no cJSON; never prints (except the
 * debug log BANKLAB_KERNEL_DEBUG). */
#include <dlfcn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_counters.h"
#include "cuda_kstate.h"
#include "cuda_sassm.h"
#include "devlock.h"

static int drv_load(struct drv *d, char *why, size_t n)
{
    memset(d, 0, sizeof *d);
    d->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!d->lib) {
        bl_fmt(why, n, "no CUDA driver (libcuda.so.1 not found)");
        return -1;
    }
    static const struct ksym syms[] = {
#define S(field, name, opt) {offsetof(struct drv, field), name, opt}
        S(init, "cuInit", 0), S(driver_version, "cuDriverGetVersion", 0),
        S(device_count, "cuDeviceGetCount", 0), S(device_get, "cuDeviceGet", 0),
        S(device_name, "cuDeviceGetName", 0), S(device_attr, "cuDeviceGetAttribute", 0),
        S(device_uuid, "cuDeviceGetUuid_v2", 1),
        S(ctx_retain, "cuDevicePrimaryCtxRetain", 0), S(ctx_set, "cuCtxSetCurrent", 0),
        S(ctx_sync, "cuCtxSynchronize", 0), S(module_load, "cuModuleLoadData", 0),
        S(module_unload, "cuModuleUnload", 0),
        S(module_function, "cuModuleGetFunction", 0), S(func_attr, "cuFuncGetAttribute", 0),
        S(func_set_attr, "cuFuncSetAttribute", 0), S(func_param_info, "cuFuncGetParamInfo", 1),
        S(mem_alloc, "cuMemAlloc_v2", 0), S(mem_free, "cuMemFree_v2", 0),
        S(htod, "cuMemcpyHtoD_v2", 0), S(launch, "cuLaunchKernel", 0),
        S(error_name, "cuGetErrorName", 0), S(error_string, "cuGetErrorString", 0),
#undef S
    };
    const char *missing = ksyms(d->lib, syms, sizeof syms / sizeof syms[0], d);
    if (missing) {
        bl_fmt(why, n, "CUDA driver too old: %s missing from libcuda.so.1", missing);
        return -1;
    }
    return 0;
}

const char *kcu_name(const struct drv *d, CUresult r)
{
    const char *s = NULL;
    if (d->error_name && d->error_name(r, &s) == CUDA_SUCCESS && s)
        return s;
    return "CUDA_ERROR_UNKNOWN";
}

const char *kcu_text(const struct drv *d, CUresult r)
{
    const char *s = NULL;
    if (d->error_string && d->error_string(r, &s) == CUDA_SUCCESS && s)
        return s;
    return "unknown error";
}

static int cupti_load(struct cupti *c, char *why, size_t n)
{
    memset(c, 0, sizeof *c);
    c->lib = bl_cupti_open();
    if (!c->lib) {
        bl_fmt(why, n, "counters not available: libcupti.so.13 not found (set BANKLAB_CUPTI)");
        return -1;
    }
    const char *missing = sassm_cupti_syms(c->lib, c);
    if (missing) {
        bl_fmt(why, n, "counters not available: %s missing from CUPTI (CUDA 12.4 or newer is "
             "needed)", missing);
        return -1;
    }
    return 0;
}

void kcupti_why(const struct cupti *c, CUptiResult r, const char *call, char *why, size_t n)
{
    const char *s = NULL;
    if (!c->result_string || c->result_string(r, &s) != CUPTI_SUCCESS || !s)
        s = "unknown CUPTI error";
    bl_cupti_why((int)r, s, call, why, n);
}

void kdbg(struct kstate *st, const char *fmt, ...)
{
    if (!st->dbg)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(st->dbg, fmt, ap);
    va_end(ap);
    fflush(st->dbg);
}
/* The device's turns, shared with every banklab process (devlock.h): measurements of a
 * learner's kernel take turns with the tutorials and `sim --gpu` of a class. Without a usable
 * lock file the process measures without turns and the result says so. */
static void open_turns(struct kstate *st)
{
    CUuuid u;
    char key[64], err[DEVLOCK_TEXT_MAX];
    if (getenv("BANKLAB_NO_LOCK")) {
        bl_fmt(st->lock_note, sizeof st->lock_note, "without turns (BANKLAB_NO_LOCK is set)");
        return;
    }
    if (!st->d.device_uuid || st->d.device_uuid(&u, st->dev) != CUDA_SUCCESS) {
        bl_fmt(st->lock_note, sizeof st->lock_note, "without turns: the device's UUID is unknown");
        return;
    }
    devlock_key((const unsigned char *)u.bytes, key, sizeof key);
    if (devlock_open(key, &st->lock, err, sizeof err))
        bl_fmt(st->lock_note, sizeof st->lock_note, "without turns: %s", err);
}

static void open_device(struct kstate *st)
{
    struct drv *d = &st->d;
    if (drv_load(d, st->nogpu, sizeof st->nogpu))
        return;
    CUresult r = d->init(0);
    int count = 0;
    if (r == CUDA_SUCCESS)
        r = d->device_count(&count);
    if (r == CUDA_ERROR_NO_DEVICE || (r == CUDA_SUCCESS && count == 0)) {
        bl_fmt(st->nogpu, sizeof st->nogpu, "no CUDA device");
        return;
    }
    if (r != CUDA_SUCCESS) {
        bl_fmt(st->nogpu, sizeof st->nogpu, "CUDA unavailable: %s", kcu_text(d, r));
        return;
    }
    if (st->device >= count) {
        bl_fmt(st->nogpu, sizeof st->nogpu, "no CUDA device %d (found %d: 0..%d)", st->device, count,
              count - 1);
        return;
    }
    char name[128] = "";
    int major = 0, minor = 0;
    if (d->device_get(&st->dev, st->device) != CUDA_SUCCESS ||
        d->device_name(name, sizeof name, st->dev) != CUDA_SUCCESS ||
        d->device_attr(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, st->dev) ||
        d->device_attr(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, st->dev) ||
        d->device_attr(&st->smem_optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                       st->dev) ||
        d->device_attr(&st->max_threads, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, st->dev) ||
        d->device_attr(&st->grid_max[0], CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, st->dev) ||
        d->device_attr(&st->grid_max[1], CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, st->dev) ||
        d->device_attr(&st->grid_max[2], CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, st->dev)) {
        bl_fmt(st->nogpu, sizeof st->nogpu, "CUDA device %d cannot be queried", st->device);
        return;
    }
    st->sm = major * 10 + minor;
    bl_fmt(st->name, sizeof st->name, "%s (sm_%d)", name, st->sm);
    st->have_gpu = 1;
    open_turns(st);
}

struct kstate *kstate_new(int device, struct gpu_kernel_result *res)
{
    struct kstate *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    st->rtc = krtc_new();
    st->fill = malloc(FILL_CHUNK);
    if (!st->rtc || !st->fill) {
        kstate_free(st);
        return NULL;
    }
    st->device = device;
    const char *dbgpath = getenv("BANKLAB_KERNEL_DEBUG");
    if (dbgpath && *dbgpath) {
        snprintf(st->dbgpath, sizeof st->dbgpath, "%s", dbgpath);
        st->dbg = fopen(dbgpath, "a");
    }
    double t0 = kclock_ms();
    open_device(st);
    res->timing.init = kclock_ms() - t0;
    kdbg(st, "device: %s %s\n", st->have_gpu ? st->name : "none", st->nogpu);
    return st;
}

int kstate_can_serve(const struct kstate *st)
{
    /* without a GPU a server still saves loading NVRTC: compile errors come back sooner */
    return st && !st->dead && !st->sass_used;
}

int kstate_has_gpu(const struct kstate *st)
{
    return st && st->have_gpu;
}

void kstate_free(struct kstate *st)
{
    if (!st)
        return;
    if (st->cupti_ok && st->c.prof_deinit) {
        CUpti_Profiler_DeInitialize_Params p;
        memset(&p, 0, sizeof p);
        p.structSize = CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE;
        st->c.prof_deinit(&p);
    }
    devlock_close(st->lock);
    if (st->dbg)
        fclose(st->dbg);
    krtc_free(st->rtc);
    free(st->fill);
    free(st); /* the driver keeps the context until the process ends */
}

/* The primary context, made current once. */
int kstate_context(struct kstate *st, struct gpu_kernel_result *res)
{
    if (st->ctx_ready)
        return 0;
    double t0 = kclock_ms();
    CUcontext ctx;
    CUresult r = st->d.ctx_retain(&ctx, st->dev);
    if (r == CUDA_SUCCESS)
        r = st->d.ctx_set(ctx);
    res->timing.context = kclock_ms() - t0;
    if (r != CUDA_SUCCESS) {
        bl_fail(&res->err, GPU_KERNEL_ENOGPU, BL_NOWHERE, KRN_MEASURING_NEEDS_GPU, st->device,
                   kcu_text(&st->d, r));
        return -1;
    }
    st->ctx_ready = 1;
    return 0;
}

/* CUPTI, loaded and initialised once; SASS metrics are configured per request. */
int kstate_cupti(struct kstate *st)
{
    if (st->cupti_tried)
        return st->cupti_ok ? 0 : -1;
    st->cupti_tried = 1;
    if (cupti_load(&st->c, st->cupti_why, sizeof st->cupti_why))
        return -1;
    CUptiResult r;
    CUpti_Profiler_Initialize_Params ip;
    memset(&ip, 0, sizeof ip);
    ip.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE;
    if ((r = st->c.prof_init(&ip)) != CUPTI_SUCCESS) {
        kcupti_why(&st->c, r, "cuptiProfilerInitialize", st->cupti_why, sizeof st->cupti_why);
        return -1;
    }
    CUpti_Device_GetChipName_Params cp;
    memset(&cp, 0, sizeof cp);
    cp.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
    cp.deviceIndex = (size_t)st->device;
    if ((r = st->c.chip_name(&cp)) != CUPTI_SUCCESS) {
        kcupti_why(&st->c, r, "cuptiDeviceGetChipName", st->cupti_why, sizeof st->cupti_why);
        CUpti_Profiler_DeInitialize_Params dp;
        memset(&dp, 0, sizeof dp);
        dp.structSize = CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE;
        st->c.prof_deinit(&dp);
        return -1;
    }
    snprintf(st->chip, sizeof st->chip, "%s", cp.pChipName);
    st->cupti_ok = 1;
    if (st->dbg) { /* every SASS metric this CUPTI offers on this chip */
        CUpti_SassMetrics_GetNumOfMetrics_Params np;
        memset(&np, 0, sizeof np);
        np.structSize = CUpti_SassMetrics_GetNumOfMetrics_Params_STRUCT_SIZE;
        np.pChipName = st->chip;
        if (st->c.num_metrics(&np) == CUPTI_SUCCESS && np.numOfMetrics) {
            CUpti_SassMetrics_MetricDetails *list = calloc(np.numOfMetrics, sizeof *list);
            CUpti_SassMetrics_GetMetrics_Params mp;
            memset(&mp, 0, sizeof mp);
            mp.structSize = CUpti_SassMetrics_GetMetrics_Params_STRUCT_SIZE;
            mp.pChipName = st->chip;
            mp.numOfMetrics = np.numOfMetrics;
            mp.pMetricsList = list;
            if (list && st->c.metrics(&mp) == CUPTI_SUCCESS)
                for (size_t i = 0; i < np.numOfMetrics; i++)
                    kdbg(st, "sass metric %s: %s\n", list[i].pMetricName,
                         list[i].pMetricDescription);
            free(list);
        }
    }
    return 0;
}
