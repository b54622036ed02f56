/* cuda_state.c: what the CUDA measuring process keeps between requests (kmeasure/cuda_state.h): libcuda
 * and libcupti, dlopen'ed (the binary starts without them); the device, opened once, with its
 * limits and its turns (devlock/devlock.h); the primary context and CUPTI, made ready once. The bottom
 * of the cuda_k*.c files: calls none of them. No curses, no cJSON; never prints (except the
 * debug log BANKLAB_KERNEL_DEBUG). */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cuda/cudalib.h"
#include "cuda_state.h"
#include "cuda_sassm.h"
#include "../devlock/devlock.h"
#include "kmeasure.h"
#include "../compile/compile.h"
#include "../sys/sys.h"

static int drv_load(struct drv *d, struct bl_err *err)
{
    memset(d, 0, sizeof *d);
    d->lib = bl_cuda_open();
    if (!d->lib)
        return bl_fail(err, GPU_KERNEL_ENOGPU, BL_NOWHERE, GPU_NO_DRIVER);
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
    return KSYMS(d->lib, syms, d, err, GPU_KERNEL_ENOGPU, KRN_DRIVER_MISSING);
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

int kcupti_fail(struct bl_err *err, const struct cupti *c, CUptiResult r, const char *call)
{
    const char *s = NULL;
    if (!c->result_string || c->result_string(r, &s) != CUPTI_SUCCESS || !s)
        s = "unknown CUPTI error";
    struct bl_err e = {0};
    bl_cupti_fail(&e, CTR_FAILED, (int)r, s, call);
    return bl_fail(err, GPU_KERNEL_ECOUNTERS, BL_NOWHERE, BL_TEXT, e.msg);
}

/* The device's turns, shared with every banklab process (devlock/devlock.h): measurements of a
 * learner's kernel take turns with the tutorials and `sim --gpu` of a class. Without a usable
 * lock file the process measures without turns and the result says so. */
static void open_turns(struct kstate *st)
{
    CUuuid u;
    char key[64];
    struct bl_err err = {0};
    if (sys_env("BANKLAB_NO_LOCK")) {
        bl_msg_set(&st->lock_msg, st->lock_note, sizeof st->lock_note, KRN_LOCK_NO_LOCK_ENV);
        return;
    }
    if (sys_env("BANKLAB_RUN_DIR") && sys_env("CUDA_INJECTION64_PATH")) {
        /* inside `banklab run`: its injected route takes the turns for this process's
           launches; a second holder in the same process would wait for itself */
        bl_msg_set(&st->lock_msg, st->lock_note, sizeof st->lock_note, KRN_LOCK_BY_RUN);
        return;
    }
    if (!st->d.device_uuid || st->d.device_uuid(&u, st->dev) != CUDA_SUCCESS) {
        bl_msg_set(&st->lock_msg, st->lock_note, sizeof st->lock_note, KRN_LOCK_NO_UUID);
        return;
    }
    devlock_key((const unsigned char *)u.bytes, key, sizeof key);
    if (devlock_open(key, &st->lock, &err))
        bl_msg_set(&st->lock_msg, st->lock_note, sizeof st->lock_note, KRN_LOCK_FAILED, &err.why);
}

static void open_device(struct kstate *st)
{
    struct drv *d = &st->d;
    if (drv_load(d, &st->nogpu))
        return;
    CUresult r = d->init(0);
    int count = 0;
    if (r == CUDA_SUCCESS)
        r = d->device_count(&count);
    struct bl_err *e = &st->nogpu;
    if (r == CUDA_ERROR_NO_DEVICE || (r == CUDA_SUCCESS && count == 0)) {
        bl_fail(e, GPU_KERNEL_ENOGPU, BL_NOWHERE, GPU_NO_DEVICE);
        return;
    }
    if (r != CUDA_SUCCESS) {
        bl_fail(e, GPU_KERNEL_ENOGPU, BL_NOWHERE, GPU_CUDA_UNAVAILABLE, kcu_text(d, r));
        return;
    }
    if (st->device >= count) {
        bl_fail(e, GPU_KERNEL_ENOGPU, BL_NOWHERE, GPU_NO_DEVICE_N, st->device, count, count - 1);
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
        bl_fail(e, GPU_KERNEL_ENOGPU, BL_NOWHERE, KRN_DEVICE_NO_QUERY, st->device);
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
    const char *dbgpath = sys_env("BANKLAB_KERNEL_DEBUG");
    if (dbgpath && *dbgpath) {
        snprintf(st->dbgpath, sizeof st->dbgpath, "%s", dbgpath);
        st->dbg = fopen(dbgpath, "a");
    }
    double t0 = bl_now_ms();
    open_device(st);
    res->timing.init = bl_now_ms() - t0;
    kdbg(st->dbg, "device: %s %s\n", st->have_gpu ? st->name : "none", st->nogpu.msg);
    return st;
}

int kstate_can_serve(const struct kstate *st)
{
    /* without a GPU a server still saves loading NVRTC: compile errors come back sooner */
    return st && !st->dead && !st->sass_used;
}

void kstate_free(struct kstate *st)
{
    if (!st)
        return;
    if (st->cupti_ok && st->c.prof_deinit) {
        CUPTI_PARAMS(CUpti_Profiler_DeInitialize_Params, p);
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
    double t0 = bl_now_ms();
    CUcontext ctx;
    CUresult r = st->d.ctx_retain(&ctx, st->dev);
    if (r == CUDA_SUCCESS)
        r = st->d.ctx_set(ctx);
    res->timing.context = bl_now_ms() - t0;
    if (r != CUDA_SUCCESS)
        return bl_fail(&res->err, GPU_KERNEL_ENOGPU, BL_NOWHERE, KRN_MEASURING_NEEDS_GPU,
                       st->device, kcu_text(&st->d, r));
    st->ctx_ready = 1;
    return 0;
}

/* CUPTI, loaded and initialised once; SASS metrics are configured per request. */
int kstate_cupti(struct kstate *st)
{
    if (st->cupti_tried)
        return st->cupti_ok ? 0 : -1;
    st->cupti_tried = 1;
    memset(&st->c, 0, sizeof st->c);
    st->c.lib = bl_cupti_open();
    if (!st->c.lib)
        return bl_fail(&st->cupti_err, GPU_KERNEL_ECOUNTERS, BL_NOWHERE, KRN_NO_CUPTI);
    if (sassm_cupti_syms(st->c.lib, &st->c, &st->cupti_err, KRN_CUPTI_MISSING))
        return -1;
    CUptiResult r;
    CUPTI_PARAMS(CUpti_Profiler_Initialize_Params, ip);
    if ((r = st->c.prof_init(&ip)) != CUPTI_SUCCESS)
        return kcupti_fail(&st->cupti_err, &st->c, r, "cuptiProfilerInitialize");
    CUPTI_PARAMS(CUpti_Device_GetChipName_Params, cp);
    cp.deviceIndex = (size_t)st->device;
    if ((r = st->c.chip_name(&cp)) != CUPTI_SUCCESS) {
        kcupti_fail(&st->cupti_err, &st->c, r, "cuptiDeviceGetChipName");
        CUPTI_PARAMS(CUpti_Profiler_DeInitialize_Params, dp);
        st->c.prof_deinit(&dp);
        return -1;
    }
    snprintf(st->chip, sizeof st->chip, "%s", cp.pChipName);
    st->cupti_ok = 1;
    if (st->dbg) { /* every SASS metric this CUPTI offers on this chip */
        CUPTI_PARAMS(CUpti_SassMetrics_GetNumOfMetrics_Params, np);
        np.pChipName = st->chip;
        if (st->c.num_metrics(&np) == CUPTI_SUCCESS && np.numOfMetrics) {
            CUpti_SassMetrics_MetricDetails *list = calloc(np.numOfMetrics, sizeof *list);
            CUPTI_PARAMS(CUpti_SassMetrics_GetMetrics_Params, mp);
            mp.pChipName = st->chip;
            mp.numOfMetrics = np.numOfMetrics;
            mp.pMetricsList = list;
            if (list && st->c.metrics(&mp) == CUPTI_SUCCESS)
                for (size_t i = 0; i < np.numOfMetrics; i++)
                    kdbg(st->dbg, "sass metric %s: %s\n", list[i].pMetricName,
                         list[i].pMetricDescription);
            free(list);
        }
    }
    return 0;
}
