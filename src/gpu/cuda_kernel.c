/* cuda_kernel.c: the measuring process of `banklab kernel` (CUDA build). Opens the driver
 * and the device once (struct kstate, kept by a measuring server between requests), then per
 * request: compiles (cuda_kcompile.c), launches the chosen kernel through the driver API with
 * the documented buffers and arguments, and reads CUPTI's SASS metrics per instruction
 * (shared instructions executed, smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared and its
 * _ideal), which cuptiGetSassToSourceCorrelation maps to source lines. libcuda and libcupti
 * are dlopen'ed: the binary starts without them. A fault ends this process, never the
 * caller's. No curses, no cJSON; never prints (except the debug log BANKLAB_KERNEL_DEBUG). */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda.h>
#include <cupti_pcsampling.h>
#include <cupti_profiler_target.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

#include "cuda_counters.h"
#include "cuda_kernel_impl.h"
#include "devlock.h"

#define DEFAULT_ARCH 90                  /* compile target without a GPU (the H200's) */
#define FILL_CHUNK (4u << 20)            /* bytes of fill pattern made at a time */
#define TURN_WAIT_MS 30000               /* the longest wait for the device's turn */

/* ---- libcuda ---- */

struct drv {
    void *lib;
    CUresult (*init)(unsigned);
    CUresult (*driver_version)(int *);
    CUresult (*device_count)(int *);
    CUresult (*device_get)(CUdevice *, int);
    CUresult (*device_name)(char *, int, CUdevice);
    CUresult (*device_attr)(int *, CUdevice_attribute, CUdevice);
    CUresult (*device_uuid)(CUuuid *, CUdevice);                         /* optional */
    CUresult (*ctx_retain)(CUcontext *, CUdevice);
    CUresult (*ctx_set)(CUcontext);
    CUresult (*ctx_sync)(void);
    CUresult (*module_load)(CUmodule *, const void *);
    CUresult (*module_unload)(CUmodule);
    CUresult (*module_function)(CUfunction *, CUmodule, const char *);
    CUresult (*func_attr)(int *, CUfunction_attribute, CUfunction);
    CUresult (*func_set_attr)(CUfunction, CUfunction_attribute, int);
    CUresult (*func_param_info)(CUfunction, size_t, size_t *, size_t *); /* 12.4+, optional */
    CUresult (*mem_alloc)(CUdeviceptr *, size_t);
    CUresult (*mem_free)(CUdeviceptr);
    CUresult (*htod)(CUdeviceptr, const void *, size_t);
    CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                       unsigned, CUstream, void **, void **);
    CUresult (*error_name)(CUresult, const char **);
    CUresult (*error_string)(CUresult, const char **);
};

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

static const char *cu_name(const struct drv *d, CUresult r)
{
    const char *s = NULL;
    if (d->error_name && d->error_name(r, &s) == CUDA_SUCCESS && s)
        return s;
    return "CUDA_ERROR_UNKNOWN";
}

static const char *cu_text(const struct drv *d, CUresult r)
{
    const char *s = NULL;
    if (d->error_string && d->error_string(r, &s) == CUDA_SUCCESS && s)
        return s;
    return "unknown error";
}

/* ---- libcupti: SASS metrics and the SASS-to-source correlation ---- */

struct cupti {
    void *lib;
    CUptiResult (*result_string)(CUptiResult, const char **);
    CUptiResult (*prof_init)(CUpti_Profiler_Initialize_Params *);
    CUptiResult (*prof_deinit)(CUpti_Profiler_DeInitialize_Params *);
    CUptiResult (*chip_name)(CUpti_Device_GetChipName_Params *);
    CUptiResult (*num_metrics)(CUpti_SassMetrics_GetNumOfMetrics_Params *);
    CUptiResult (*metrics)(CUpti_SassMetrics_GetMetrics_Params *);
    CUptiResult (*properties)(CUpti_SassMetrics_GetProperties_Params *);
    CUptiResult (*set_config)(CUpti_SassMetricsSetConfig_Params *);
    CUptiResult (*unset_config)(CUpti_SassMetricsUnsetConfig_Params *);
    CUptiResult (*enable)(CUpti_SassMetricsEnable_Params *);
    CUptiResult (*disable)(CUpti_SassMetricsDisable_Params *);
    CUptiResult (*data_props)(CUpti_SassMetricsGetDataProperties_Params *);
    CUptiResult (*flush)(CUpti_SassMetricsFlushData_Params *);
    CUptiResult (*correlate)(CUpti_GetSassToSourceCorrelationParams *);
};

static int cupti_load(struct cupti *c, char *why, size_t n)
{
    memset(c, 0, sizeof *c);
    c->lib = bl_cupti_open();
    if (!c->lib) {
        bl_fmt(why, n, "counters not available: libcupti.so.13 not found (set BANKLAB_CUPTI)");
        return -1;
    }
    static const struct ksym syms[] = {
#define S(field, name) {offsetof(struct cupti, field), name, 0}
        S(result_string, "cuptiGetResultString"), S(prof_init, "cuptiProfilerInitialize"),
        S(prof_deinit, "cuptiProfilerDeInitialize"), S(chip_name, "cuptiDeviceGetChipName"),
        S(num_metrics, "cuptiSassMetricsGetNumOfMetrics"),
        S(metrics, "cuptiSassMetricsGetMetrics"), S(properties, "cuptiSassMetricsGetProperties"),
        S(set_config, "cuptiSassMetricsSetConfig"), S(unset_config, "cuptiSassMetricsUnsetConfig"),
        S(enable, "cuptiSassMetricsEnable"), S(disable, "cuptiSassMetricsDisable"),
        S(data_props, "cuptiSassMetricsGetDataProperties"), S(flush, "cuptiSassMetricsFlushData"),
        S(correlate, "cuptiGetSassToSourceCorrelation"),
#undef S
    };
    const char *missing = ksyms(c->lib, syms, sizeof syms / sizeof syms[0], c);
    if (missing) {
        bl_fmt(why, n, "counters not available: %s missing from CUPTI (CUDA 12.4 or newer is "
             "needed)", missing);
        return -1;
    }
    return 0;
}

static void cupti_why(const struct cupti *c, CUptiResult r, const char *call, char *why, size_t n)
{
    const char *s = NULL;
    if (!c->result_string || c->result_string(r, &s) != CUPTI_SUCCESS || !s)
        s = "unknown CUPTI error";
    bl_cupti_why((int)r, s, call, why, n);
}

/* The SASS metrics read per instruction, each with what it counts. One that this CUPTI does
 * not know is left out; the wavefronts are required. The names are those of CUDA 13's CUPTI
 * on GH100 (cuptiSassMetricsGetMetrics). */
enum { ROLE_INST, ROLE_WF, ROLE_IDEAL };
static const struct {
    const char *name;
    int role, op, required;
} metric_table[] = {
    {"smsp__sass_inst_executed_op_shared_ld", ROLE_INST, GPU_KOP_LD, 0},
    {"smsp__sass_inst_executed_op_shared_st", ROLE_INST, GPU_KOP_ST, 0},
    {"smsp__sass_inst_executed_op_shared_atom", ROLE_INST, GPU_KOP_ATOM, 0},
    {"smsp__sass_inst_executed_op_ldsm", ROLE_INST, GPU_KOP_LDSM, 0},
    {"smsp__sass_inst_executed_op_shared_stsm", ROLE_INST, GPU_KOP_STSM, 0},
    {"smsp__sass_inst_executed_op_ldgsts", ROLE_INST, GPU_KOP_LDGSTS, 0},
    {"smsp__sass_inst_executed_op_shared_gmma", ROLE_INST, GPU_KOP_GMMA, 0},
    {"smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared", ROLE_WF, 0, 1},
    {"smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal", ROLE_IDEAL, 0, 0},
};
#define NMETRICS (sizeof metric_table / sizeof metric_table[0])

/* The range profiler's figures for --counters: the six `banklab bench` reads, then all kinds
 * of shared wavefronts together (read with the six when this CUPTI knows it). */
#define RANGE_ALL_KINDS "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"

/* ---- what lasts between requests ---- */

struct kstate {
    int device;
    struct drv d;
    int have_gpu;
    char nogpu[GPU_KERNEL_TEXT];     /* why there is no GPU */
    CUdevice dev;
    int sm;                          /* compute capability as 90 */
    int smem_optin, max_threads, grid_max[3];
    char name[GPU_KERNEL_TEXT];      /* "NVIDIA H200 (sm_90)" */
    int ctx_ready;
    struct cupti c;
    int cupti_tried, cupti_ok;
    char cupti_why[GPU_KERNEL_TEXT];
    char chip[64];
    struct rtc *rtc;
    unsigned char *fill;             /* FILL_CHUNK bytes of fill pattern */
    FILE *dbg;                       /* BANKLAB_KERNEL_DEBUG */
    char dbgpath[PATH_MAX];
    int dead;                        /* a sticky CUDA error: no more requests */
    int sass_used;                   /* SASS metrics were configured once: CUPTI 13 refuses a
                                        second cuptiSassMetricsSetConfig in one process
                                        (CUPTI_ERROR_OUT_OF_MEMORY on the H200), and the range
                                        profiler after them profiles nothing */
    int configured;                  /* metric ids below resolved */
    CUpti_SassMetrics_Config cfg[16];
    size_t which[16], ncfg;          /* metric_table index of cfg[i] */
    int have_ideal;
    struct devlock *lock;            /* the device's turns (devlock.h), NULL: none to take */
    char lock_note[GPU_KERNEL_TEXT]; /* why turns are not taken, when lock is NULL */
};

static void dbg(struct kstate *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void dbg(struct kstate *st, const char *fmt, ...)
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
        bl_fmt(st->nogpu, sizeof st->nogpu, "CUDA unavailable: %s", cu_text(d, r));
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
    dbg(st, "device: %s %s\n", st->have_gpu ? st->name : "none", st->nogpu);
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
static int ensure_context(struct kstate *st, struct gpu_kernel_result *res)
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
        kres_fail(res, GPU_KERNEL_ENOGPU, "measuring needs a GPU: CUDA device %d: %s", st->device,
                  cu_text(&st->d, r));
        return -1;
    }
    st->ctx_ready = 1;
    return 0;
}

/* CUPTI, loaded and initialised once; SASS metrics are configured per request. */
static int ensure_cupti(struct kstate *st)
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
        cupti_why(&st->c, r, "cuptiProfilerInitialize", st->cupti_why, sizeof st->cupti_why);
        return -1;
    }
    CUpti_Device_GetChipName_Params cp;
    memset(&cp, 0, sizeof cp);
    cp.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
    cp.deviceIndex = (size_t)st->device;
    if ((r = st->c.chip_name(&cp)) != CUPTI_SUCCESS) {
        cupti_why(&st->c, r, "cuptiDeviceGetChipName", st->cupti_why, sizeof st->cupti_why);
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
                    dbg(st, "sass metric %s: %s\n", list[i].pMetricName,
                        list[i].pMetricDescription);
            free(list);
        }
    }
    return 0;
}

/* The SASS metrics' ids on this chip (once per process). 0, or -1 with why. */
static int sass_resolve(struct kstate *st, char *why, size_t whysz)
{
    if (st->configured)
        return 0;
    for (size_t i = 0; i < NMETRICS && st->ncfg < sizeof st->cfg / sizeof st->cfg[0]; i++) {
        CUpti_SassMetrics_GetProperties_Params pp;
        memset(&pp, 0, sizeof pp);
        pp.structSize = CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE;
        pp.pChipName = st->chip;
        pp.pMetricName = metric_table[i].name;
        CUptiResult r = st->c.properties(&pp);
        if (r != CUPTI_SUCCESS) {
            dbg(st, "metric %s: not on %s (%d)\n", metric_table[i].name, st->chip, (int)r);
            if (metric_table[i].required) {
                bl_fmt(why, whysz, "counters not available: this CUPTI has no SASS metric %s on %s",
                      metric_table[i].name, st->chip);
                return -1;
            }
            continue;
        }
        st->cfg[st->ncfg].metricId = pp.metric.metricId;
        st->cfg[st->ncfg].outputGranularity = CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU;
        st->which[st->ncfg++] = i;
        if (metric_table[i].role == ROLE_IDEAL)
            st->have_ideal = 1;
    }
    st->configured = 1;
    return 0;
}

void kstate_prepare(struct kstate *st, struct gpu_kernel_result *res)
{
    char why[GPU_KERNEL_TEXT];
    if (!st->have_gpu || ensure_context(st, res) || ensure_cupti(st))
        return;
    if (sass_resolve(st, why, sizeof why))
        dbg(st, "prepare: %s\n", why);
}

/* ---- one request ---- */

struct child {
    struct kstate *st;
    const struct gpu_kernel_request *req;
    const char *src;
    size_t len;
    struct gpu_kernel_result *res;
    int fd;
    enum gpu_kernel_phase phase; /* the last one sent */
    char realpath[PATH_MAX];     /* the program's name for NVRTC (line info, ncu) */
    char dir[PATH_MAX];          /* its directory: -I */
    struct ksrc_kernel kernels[KSRC_MAX_KERNELS];
    int nkernels;
    const struct ksrc_kernel *kernel;
    char name_expr[GPU_KERNEL_TEXT];
    char name_error[GPU_KERNEL_TEXT];
    struct compiled comp;
    CUmodule module;
    CUfunction func;
    void *params[KSRC_MAX_PARAMS];
    unsigned char scalars[KSRC_MAX_PARAMS][8];
    CUdeviceptr bufs[KSRC_MAX_PARAMS];
    size_t buf_size[KSRC_MAX_PARAMS];
};

#define FAIL(ch, st, ...) kres_fail((ch)->res, (st), __VA_ARGS__)

static void set_phase(struct child *ch, enum gpu_kernel_phase phase)
{
    ch->phase = phase;
    kwire_phase(ch->fd, phase);
}

/* Which kernel: --name, or the only __global__ of the file. Sets name_expr or name_error. */
static void choose_kernel(struct child *ch)
{
    const char *want = ch->req->name;
    ksrc_find_kernels(ch->src, ch->len, ch->kernels, KSRC_MAX_KERNELS, &ch->nkernels);
    char list[160] = "";
    for (int i = 0; i < ch->nkernels; i++) {
        size_t l = strlen(list);
        if (l + strlen(ch->kernels[i].name) + 8 >= sizeof list) {
            snprintf(list + l, sizeof list - l, "%s...", l ? ", " : "");
            break;
        }
        snprintf(list + l, sizeof list - l, "%s%s", l ? ", " : "", ch->kernels[i].name);
    }
    if (!want[0]) {
        if (ch->nkernels == 0) {
            bl_fmt(ch->name_error, sizeof ch->name_error, "no __global__ function in %s",
                  ch->req->path);
            return;
        }
        if (ch->nkernels > 1) {
            bl_fmt(ch->name_error, sizeof ch->name_error,
                  "%s has %d kernels (%s): choose one with --name", ch->req->path, ch->nkernels,
                  list);
            return;
        }
        ch->kernel = &ch->kernels[0];
    } else {
        char base[GPU_KERNEL_TEXT];
        ksrc_base_name(want, base, sizeof base);
        for (int i = 0; i < ch->nkernels && !ch->kernel; i++) {
            const char *full = ch->kernels[i].name, *colon = strrchr(full, ':');
            if (!strcmp(full, base) || (colon && !strcmp(colon + 1, base)))
                ch->kernel = &ch->kernels[i];
        }
        if (!ch->kernel) {
            bl_fmt(ch->name_error, sizeof ch->name_error, "no kernel named %s in %s (%s%s)", base,
                  ch->req->path, ch->nkernels ? "kernels: " : "no __global__ function", list);
            return;
        }
    }
    if (ch->kernel->is_template && !strchr(want, '<')) {
        bl_fmt(ch->name_error, sizeof ch->name_error,
              "%s is a template: name an instance, e.g. --name '%s<float>'", ch->kernel->name,
              ch->kernel->name);
        ch->kernel = NULL;
        return;
    }
    if (want[0] && strchr(want, '<') && !strstr(want, "::")) {
        /* an instance: the file's namespaces, then the name as given (k<float4>) */
        const char *last = strrchr(ch->kernel->name, ':');
        size_t prefix = last ? (size_t)(last + 1 - ch->kernel->name) : 0;
        bl_fmt(ch->name_expr, sizeof ch->name_expr, "%.*s%s", (int)prefix, ch->kernel->name, want);
    } else {
        bl_fmt(ch->name_expr, sizeof ch->name_expr, "%s",
              strstr(want, "::") ? want : ch->kernel->name);
    }
    bl_fmt(ch->res->kernel, sizeof ch->res->kernel, "%s", want[0] ? want : ch->kernel->name);
}

/* Compile errors and warnings into the result; 1 when there were errors. */
static int take_log(struct child *ch)
{
    struct gpu_kernel_diag *diags = NULL;
    int n = 0, nerr = 0;
    if (ksrc_parse_log(ch->comp.log, ch->req->path, &diags, &n, &nerr)) {
        FAIL(ch, GPU_KERNEL_ESYSTEM, "out of memory");
        return 1;
    }
    for (int i = 0; i < n; i++) /* NVRTC names the file as we named it: show the user's path */
        if (!strcmp(diags[i].file, ch->realpath))
            snprintf(diags[i].file, sizeof diags[i].file, "%s", ch->req->path);
    ch->res->diags = diags;
    ch->res->ndiags = n;
    if (!ch->comp.ok && nerr == 0) {
        FAIL(ch, GPU_KERNEL_ECOMPILE, "%s does not compile (NVRTC gave no message)", ch->req->path);
        return 1;
    }
    if (nerr) {
        FAIL(ch, GPU_KERNEL_ECOMPILE, "%s: %d compile error%s", ch->req->path, nerr,
             nerr == 1 ? "" : "s");
        return 1;
    }
    return 0;
}

/* Parameters: pointers get buffers, scalars their --arg; every --arg and --buffer-size
 * NAME must name a parameter. Values go to ch->scalars; buffer sizes to ch->buf_size. */
static int bind_params(struct child *ch)
{
    const struct ksrc_kernel *k = ch->kernel;
    const struct gpu_kernel_request *req = ch->req;
    for (int a = 0; a < req->nargs; a++) {
        int found = 0;
        for (int i = 0; i < k->nparams; i++)
            found |= !strcmp(k->params[i].name, req->args[a].name) &&
                     k->params[i].kind != KSRC_POINTER;
        if (!found) {
            FAIL(ch, GPU_KERNEL_EINPUT, "--arg %s: %s has no scalar parameter %s", req->args[a].name,
                 k->name, req->args[a].name);
            return -1;
        }
    }
    for (int b = 0; b < req->nbufs; b++) {
        int found = 0;
        for (int i = 0; i < k->nparams; i++)
            found |= !strcmp(k->params[i].name, req->bufs[b].name) &&
                     k->params[i].kind == KSRC_POINTER;
        if (!found) {
            FAIL(ch, GPU_KERNEL_EINPUT, "--buffer-size %s: %s has no pointer parameter %s",
                 req->bufs[b].name, k->name, req->bufs[b].name);
            return -1;
        }
    }
    for (int i = 0; i < k->nparams; i++) {
        const struct ksrc_param *p = &k->params[i];
        if (p->kind == KSRC_POINTER) {
            ch->buf_size[i] = req->buffer_size;
            for (int b = 0; b < req->nbufs; b++) {
                unsigned long long v;
                if (!strcmp(req->bufs[b].name, p->name) && kreq_bytes(req->bufs[b].value, &v) == 0)
                    ch->buf_size[i] = v;
            }
            continue;
        }
        if (p->kind == KSRC_UNSUPPORTED) {
            FAIL(ch, GPU_KERNEL_EINPUT, "parameter %d of %s (%s%s%s) cannot be given: banklab "
                 "passes pointers (as device buffers) and integer or floating-point scalars", i + 1,
                 k->name, p->type, p->name[0] ? " " : "", p->name);
            return -1;
        }
        const char *val = NULL;
        for (int a = 0; a < req->nargs; a++)
            if (!strcmp(req->args[a].name, p->name))
                val = req->args[a].value;
        if (!val) {
            if (p->name[0])
                FAIL(ch, GPU_KERNEL_EINPUT, "%s needs a value for its parameter %s %s: add --arg "
                     "%s=VALUE (or a \"// banklab: --arg %s=VALUE\" line at the top of %s)",
                     k->name, p->type, p->name, p->name, p->name, req->path);
            else
                FAIL(ch, GPU_KERNEL_EINPUT, "parameter %d of %s (%s) has no name, so --arg cannot "
                     "give it a value", i + 1, k->name, p->type);
            return -1;
        }
        char why[GPU_KERNEL_TEXT];
        if (ksrc_scalar_bytes(p, val, ch->scalars[i], why, sizeof why)) {
            FAIL(ch, GPU_KERNEL_EINPUT, "--arg %s=%s: %s", p->name, val, why);
            return -1;
        }
    }
    return 0;
}

static void fill_chunk(unsigned char *buf, size_t bytes, size_t offset, enum gpu_kernel_fill fill)
{
    if (fill == GPU_FILL_ZERO) {
        memset(buf, 0, bytes);
        return;
    }
    size_t words = bytes / 4, first = offset / 4;
    for (size_t w = 0; w < words; w++) {
        size_t k = first + w;
        if (fill == GPU_FILL_FLOAT) {
            float f = (float)(k % 1024);
            memcpy(buf + 4 * w, &f, 4);
        } else {
            uint32_t v = (uint32_t)k;
            memcpy(buf + 4 * w, &v, 4);
        }
    }
    memset(buf + 4 * words, 0, bytes - 4 * words);
}

/* Write the fill pattern into every buffer (before each launch: runs start alike). */
static int fill_buffers(struct child *ch)
{
    const struct ksrc_kernel *k = ch->kernel;
    struct kstate *st = ch->st;
    for (int i = 0; i < k->nparams; i++) {
        if (!ch->bufs[i])
            continue;
        for (size_t off = 0; off < ch->buf_size[i]; off += FILL_CHUNK) {
            size_t n = ch->buf_size[i] - off < FILL_CHUNK ? ch->buf_size[i] - off : FILL_CHUNK;
            if (ch->req->fill != GPU_FILL_ZERO || off == 0)
                fill_chunk(st->fill, n, off, ch->req->fill);
            CUresult r = st->d.htod(ch->bufs[i] + off, st->fill, n);
            if (r != CUDA_SUCCESS) {
                FAIL(ch, GPU_KERNEL_EFAULT, "filling buffer %s: %s (%s)", k->params[i].name,
                     cu_name(&st->d, r), cu_text(&st->d, r));
                st->dead = 1;
                return -1;
            }
        }
    }
    return 0;
}

static int setup_launch(struct child *ch)
{
    struct kstate *st = ch->st;
    struct drv *d = &st->d;
    const struct gpu_kernel_request *req = ch->req;
    double t0 = kclock_ms();
    CUresult r = d->module_load(&ch->module, ch->comp.cubin);
    if (r == CUDA_SUCCESS)
        r = d->module_function(&ch->func, ch->module, ch->comp.lowered);
    if (r != CUDA_SUCCESS) {
        FAIL(ch, GPU_KERNEL_ELAUNCH, "cannot load %s: %s (%s)", ch->res->kernel, cu_name(d, r),
             cu_text(d, r));
        return -1;
    }
    int static_smem = 0, regs = 0, maxthr = 0;
    d->func_attr(&static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, ch->func);
    d->func_attr(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, ch->func);
    d->func_attr(&maxthr, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, ch->func);
    ch->res->static_smem = static_smem;
    ch->res->regs = regs;
    unsigned long threads = (unsigned long)req->block[0] * req->block[1] * req->block[2];
    if (maxthr > 0 && threads > (unsigned long)maxthr) {
        FAIL(ch, GPU_KERNEL_ELAUNCH, "%s can run at most %d threads per block (its "
             "__launch_bounds__ or its %d registers); --block %ux%ux%u is %lu", ch->res->kernel,
             maxthr, regs, req->block[0], req->block[1], req->block[2], threads);
        return -1;
    }
    for (int i = 0; i < 3; i++)
        if (st->grid_max[i] > 0 && req->grid[i] > (unsigned)st->grid_max[i]) {
            FAIL(ch, GPU_KERNEL_ELAUNCH, "--grid: dimension %c is %u; the device allows %d",
                 "xyz"[i], req->grid[i], st->grid_max[i]);
            return -1;
        }
    unsigned long long total = (unsigned long long)static_smem + req->smem;
    if (total > (unsigned long long)st->smem_optin) {
        FAIL(ch, GPU_KERNEL_ELAUNCH, "%s asks for %llu bytes of shared memory per block (static "
             "%d + dynamic %llu); the %s allows at most %d", ch->res->kernel, total, static_smem,
             req->smem, st->name, st->smem_optin);
        return -1;
    }
    if (req->smem > 48 * 1024 - (unsigned long long)static_smem) {
        r = d->func_set_attr(ch->func, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             (int)req->smem);
        if (r != CUDA_SUCCESS) {
            FAIL(ch, GPU_KERNEL_ELAUNCH, "cannot allow %llu bytes of dynamic shared memory: %s",
                 req->smem, cu_text(d, r));
            return -1;
        }
    }
    /* the compiled kernel must take what the source says */
    const struct ksrc_kernel *k = ch->kernel;
    if (d->func_param_info) {
        int n = 0;
        size_t off, size;
        while (n <= KSRC_MAX_PARAMS && d->func_param_info(ch->func, (size_t)n, &off, &size) ==
                                           CUDA_SUCCESS) {
            if (n < k->nparams && (int)size != k->params[n].size) {
                FAIL(ch, GPU_KERNEL_EINPUT, "parameter %d of %s is %zu bytes in the compiled "
                     "kernel but %s reads as %s (%d bytes)", n + 1, k->name, size, req->path,
                     k->params[n].type, k->params[n].size);
                return -1;
            }
            n++;
        }
        if (n != k->nparams) {
            FAIL(ch, GPU_KERNEL_EINPUT, "%s takes %d parameters but banklab read %d in %s",
                 k->name, n, k->nparams, req->path);
            return -1;
        }
    }
    for (int i = 0; i < k->nparams; i++) {
        if (k->params[i].kind == KSRC_POINTER) {
            r = d->mem_alloc(&ch->bufs[i], ch->buf_size[i]);
            if (r != CUDA_SUCCESS) {
                FAIL(ch, GPU_KERNEL_EINPUT, "cannot allocate %zu bytes for %s: %s",
                     ch->buf_size[i], k->params[i].name, cu_text(d, r));
                return -1;
            }
            ch->params[i] = &ch->bufs[i];
        } else {
            ch->params[i] = ch->scalars[i];
        }
    }
    ch->res->timing.load = kclock_ms() - t0;
    return 0;
}

static int is_fault(CUresult r)
{
    return r == CUDA_ERROR_ILLEGAL_ADDRESS || r == CUDA_ERROR_MISALIGNED_ADDRESS ||
           r == CUDA_ERROR_ASSERT || r == CUDA_ERROR_ILLEGAL_INSTRUCTION ||
           r == CUDA_ERROR_INVALID_PC || r == CUDA_ERROR_HARDWARE_STACK_ERROR ||
           r == CUDA_ERROR_INVALID_ADDRESS_SPACE || r == CUDA_ERROR_LAUNCH_FAILED ||
           r == CUDA_ERROR_LAUNCH_TIMEOUT;
}

/* Fill, launch, wait. 0, or -1 with the reason in the result. */
static int run_once(struct child *ch)
{
    struct kstate *st = ch->st;
    struct drv *d = &st->d;
    const struct gpu_kernel_request *req = ch->req;
    if (fill_buffers(ch))
        return -1;
    set_phase(ch, GPU_KPHASE_RUN);
    CUresult r = d->launch(ch->func, req->grid[0], req->grid[1], req->grid[2], req->block[0],
                           req->block[1], req->block[2], (unsigned)req->smem, NULL, ch->params,
                           NULL);
    if (r != CUDA_SUCCESS && !is_fault(r)) {
        FAIL(ch, GPU_KERNEL_ELAUNCH, "the launch of %s was refused: %s (%s)", ch->res->kernel,
             cu_name(d, r), cu_text(d, r));
        return -1;
    }
    if (r == CUDA_SUCCESS)
        r = d->ctx_sync();
    if (r == CUDA_SUCCESS)
        return 0;
    st->dead = 1; /* a fault is sticky: this context takes no more work */
    const char *hint = "";
    char buf[160];
    if (r == CUDA_ERROR_ILLEGAL_ADDRESS) {
        bl_fmt(buf, sizeof buf, ": an index past a buffer (each pointer parameter has %llu "
              "bytes: --buffer-size) or past shared memory", req->buffer_size);
        hint = buf;
    } else if (r == CUDA_ERROR_MISALIGNED_ADDRESS) {
        hint = ": a vector access at an address that is not a multiple of its width";
    }
    FAIL(ch, is_fault(r) ? GPU_KERNEL_EFAULT : GPU_KERNEL_ELAUNCH, "%s %s: %s%s", ch->res->kernel,
         is_fault(r) ? "faulted" : "failed", cu_name(d, r), hint);
    return -1;
}

/* The per-pc sums of the SASS metrics. */
struct pc_row {
    uint32_t pc;
    double inst[GPU_KOP_COUNT];
    double wf, ideal;
};

static struct pc_row *pc_row(struct pc_row **rows, int *n, int *cap, uint32_t pc)
{
    for (int i = 0; i < *n; i++)
        if ((*rows)[i].pc == pc)
            return &(*rows)[i];
    if (*n == *cap) {
        int nc = *cap ? *cap * 2 : 64;
        struct pc_row *w = realloc(*rows, (size_t)nc * sizeof *w);
        if (!w)
            return NULL;
        *rows = w;
        *cap = nc;
    }
    struct pc_row *r = &(*rows)[(*n)++];
    memset(r, 0, sizeof *r);
    r->pc = pc;
    return r;
}

/* pc -> (file, line) through CUPTI's correlation on our cubin. */
static void correlate(struct child *ch, struct gpu_kernel_inst *in)
{
    CUpti_GetSassToSourceCorrelationParams p;
    memset(&p, 0, sizeof p);
    p.size = CUpti_GetSassToSourceCorrelationParamsSize;
    p.cubin = ch->comp.cubin;
    p.cubinSize = ch->comp.cubin_size;
    p.functionName = ch->comp.lowered;
    p.pcOffset = in->pc;
    in->file = 0;
    in->line = 0;
    if (ch->st->c.correlate(&p) != CUPTI_SUCCESS)
        return;
    in->line = (int)p.lineNumber;
    if (p.fileName) {
        /* CUPTI splits the program's name into a directory and a file name */
        char full[PATH_MAX];
        if (p.fileName[0] != '/' && p.dirName && p.dirName[0])
            bl_fmt(full, sizeof full, "%s/%s", p.dirName, p.fileName);
        else
            bl_fmt(full, sizeof full, "%s", p.fileName);
        if (strcmp(full, ch->realpath) && strcmp(p.fileName, ch->realpath)) {
            const char *show = full;
            size_t dl = strlen(ch->dir);
            if (!strncmp(full, ch->dir, dl) && full[dl] == '/')
                show = full + dl + 1;
            int f = kres_add_file(ch->res, show);
            in->file = f < 0 ? 0 : f;
        }
    }
    free(p.fileName);
    free(p.dirName);
}

/* Records -> instructions of res: kind from the instruction metrics, wavefronts and ideal
 * from theirs, the SASS text (and, without CUPTI's ideal, the width) from the cubin. */
static int build_insts(struct child *ch, const struct pc_row *rows, int nrows, int have_ideal)
{
    struct kstate *st = ch->st;
    const uint8_t *code = NULL;
    size_t code_size = 0;
    int decode = sass_arch_known(st->sm) &&
                 sass_function_code(ch->comp.cubin, ch->comp.cubin_size, ch->comp.lowered, &code,
                                    &code_size) == 0;
    ch->res->insts = calloc(nrows ? (size_t)nrows : 1, sizeof *ch->res->insts);
    if (!ch->res->insts)
        return -1;
    for (int i = 0; i < nrows; i++) {
        struct gpu_kernel_inst *in = &ch->res->insts[ch->res->ninsts++];
        const struct pc_row *row = &rows[i];
        in->pc = row->pc;
        int op = -1;
        for (int o = 0; o < GPU_KOP_COUNT; o++) /* each metric that counts it counts the same */
            if (row->inst[o] > in->inst || (op < 0 && row->inst[o] > 0)) {
                in->inst = row->inst[o];
                op = o;
            }
        in->wavefronts = row->wf;
        snprintf(in->sass, sizeof in->sass, "?");
        struct sass_insn si;
        int decoded = decode && (size_t)row->pc + 16 <= code_size && sass_decode(code + row->pc, &si);
        if (decoded) {
            snprintf(in->sass, sizeof in->sass, "%s", si.text);
            in->bytes = si.bytes;
            if (op < 0)
                op = si.op;
            else if (si.op != op)
                dbg(st, "pc %#x: decoded %s (%s), metrics say %s\n", row->pc, si.text,
                    gpu_kernel_op_name(si.op), gpu_kernel_op_name(op));
        }
        in->op = op < 0 ? GPU_KOP_LD : op;
        if (have_ideal) {
            in->ideal = row->ideal;
            in->ideal_known = 1;
        } else if (decoded && si.op == in->op) {
            in->ideal = in->inst * si.ideal;
            in->ideal_known = 1;
        }
        correlate(ch, in);
        dbg(st, "inst pc %#x %s op %s line %d inst %.0f wf %.0f ideal %.0f\n", in->pc, in->sass,
            gpu_kernel_op_name(in->op), in->line, in->inst, in->wavefronts, in->ideal);
    }
    return kres_build_lines(ch->res);
}

/* SASS metrics around one run of the kernel, then correlation and decoding into res. */
static int measure_sass(struct child *ch)
{
    struct kstate *st = ch->st;
    struct cupti *c = &st->c;
    char why[GPU_KERNEL_TEXT];
    double t0 = kclock_ms();
    if (ensure_cupti(st)) {
        FAIL(ch, GPU_KERNEL_ECOUNTERS, "%s", st->cupti_why);
        return -1;
    }
    CUptiResult r;
#define TRY(call, name)                                                                        \
    do {                                                                                       \
        r = (call);                                                                            \
        if (r != CUPTI_SUCCESS) {                                                              \
            cupti_why(c, r, name, why, sizeof why);                                            \
            FAIL(ch, GPU_KERNEL_ECOUNTERS, "%s", why);                                         \
            goto out;                                                                          \
        }                                                                                      \
    } while (0)
    int configured = 0, enabled = 0, rv = -1;
    CUpti_SassMetrics_Data *data = NULL;
    size_t nrec = 0, ninst = 1;
    struct pc_row *rows = NULL;
    int nrows = 0, caprows = 0;
    if (sass_resolve(st, why, sizeof why)) {
        FAIL(ch, GPU_KERNEL_ECOUNTERS, "%s", why);
        goto out;
    }
    const CUpti_SassMetrics_Config *cfg = st->cfg;
    const size_t *which = st->which, ncfg = st->ncfg;
    st->sass_used = 1; /* whatever happens next, this process configures SASS metrics once */
    CUpti_SassMetricsSetConfig_Params sp;
    memset(&sp, 0, sizeof sp);
    sp.structSize = CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE;
    sp.pConfigs = st->cfg;
    sp.numOfMetricConfig = ncfg;
    sp.deviceIndex = (uint32_t)st->device;
    TRY(c->set_config(&sp), "cuptiSassMetricsSetConfig");
    configured = 1;
    CUpti_SassMetricsEnable_Params ep;
    memset(&ep, 0, sizeof ep);
    ep.structSize = CUpti_SassMetricsEnable_Params_STRUCT_SIZE;
    ep.enableLazyPatching = 1;
    TRY(c->enable(&ep), "cuptiSassMetricsEnable");
    enabled = 1;
    ch->res->timing.cupti = kclock_ms() - t0;

    t0 = kclock_ms();
    if (run_once(ch))
        goto out;
    ch->res->timing.run = kclock_ms() - t0;
    set_phase(ch, GPU_KPHASE_COLLECT);
    t0 = kclock_ms();
    CUpti_SassMetricsGetDataProperties_Params dp;
    memset(&dp, 0, sizeof dp);
    dp.structSize = CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE;
    TRY(c->data_props(&dp), "cuptiSassMetricsGetDataProperties");
    nrec = dp.numOfPatchedInstructionRecords;
    ninst = dp.numOfInstances ? dp.numOfInstances : 1;
    dbg(st, "records %zu instances %zu\n", nrec, ninst);
    if (nrec) {
        data = calloc(nrec, sizeof *data);
        if (!data) {
            FAIL(ch, GPU_KERNEL_ESYSTEM, "out of memory");
            goto out;
        }
        for (size_t i = 0; i < nrec; i++) {
            data[i].structSize = sizeof data[i];
            data[i].pInstanceValues = calloc(ninst, sizeof *data[i].pInstanceValues);
            if (!data[i].pInstanceValues) {
                FAIL(ch, GPU_KERNEL_ESYSTEM, "out of memory");
                goto out;
            }
        }
        CUpti_SassMetricsFlushData_Params fp;
        memset(&fp, 0, sizeof fp);
        fp.structSize = CUpti_SassMetricsFlushData_Params_STRUCT_SIZE;
        fp.numOfPatchedInstructionRecords = nrec;
        fp.numOfInstances = ninst;
        fp.pMetricsData = data;
        TRY(c->flush(&fp), "cuptiSassMetricsFlushData");
    }
    for (size_t i = 0; i < nrec; i++) {
        const CUpti_SassMetrics_Data *rec = &data[i];
        if (!rec->functionName || strcmp(rec->functionName, ch->comp.lowered))
            continue;
        for (size_t k = 0; k < ninst; k++) {
            const CUpti_SassMetrics_InstanceValue *v = &rec->pInstanceValues[k];
            for (size_t m = 0; m < ncfg; m++) {
                if (cfg[m].metricId != v->metricId)
                    continue;
                int role = metric_table[which[m]].role;
                dbg(st, "pc %#x %s = %llu\n", rec->pcOffset, metric_table[which[m]].name,
                    (unsigned long long)v->value);
                if (!v->value)
                    continue;
                struct pc_row *row = pc_row(&rows, &nrows, &caprows, rec->pcOffset);
                if (!row) {
                    FAIL(ch, GPU_KERNEL_ESYSTEM, "out of memory");
                    goto out;
                }
                if (role == ROLE_INST)
                    row->inst[metric_table[which[m]].op] += (double)v->value;
                else if (role == ROLE_WF)
                    row->wf += (double)v->value;
                else
                    row->ideal += (double)v->value;
            }
        }
    }
    if (build_insts(ch, rows, nrows, st->have_ideal)) {
        FAIL(ch, GPU_KERNEL_ESYSTEM, "out of memory");
        goto out;
    }
    ch->res->timing.collect = kclock_ms() - t0;
    rv = 0;
out:
    if (enabled) {
        CUpti_SassMetricsDisable_Params xp;
        memset(&xp, 0, sizeof xp);
        xp.structSize = CUpti_SassMetricsDisable_Params_STRUCT_SIZE;
        c->disable(&xp);
    }
    if (configured) {
        CUpti_SassMetricsUnsetConfig_Params up;
        memset(&up, 0, sizeof up);
        up.structSize = CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE;
        up.deviceIndex = (uint32_t)st->device;
        c->unset_config(&up);
    }
    for (size_t i = 0; data && i < nrec; i++) {
        free((void *)data[i].functionName);
        free(data[i].pInstanceValues);
    }
    free(data);
    free(rows);
#undef TRY
    return rv;
}

static int counters_launch(void *arg)
{
    return run_once(arg);
}

static void measure_counters(struct child *ch)
{
    double t0 = kclock_ms();
    char why[GPU_KERNEL_TEXT];
    static const char *range_metrics[BL_NMETRICS + 1];
    for (int i = 0; i < BL_NMETRICS; i++)
        range_metrics[i] = bl_counters_metric(i);
    range_metrics[BL_NMETRICS] = RANGE_ALL_KINDS;
    int n = BL_NMETRICS + 1;
    struct bl_counters *c = bl_counters_open_metrics(ch->st->device, range_metrics, n, why,
                                                     sizeof why);
    if (!c) { /* a CUPTI without the all-kinds metric: the six alone */
        n = BL_NMETRICS;
        c = bl_counters_open_metrics(ch->st->device, range_metrics, n, why, sizeof why);
    }
    if (!c) {
        bl_fmt(ch->res->counters_note, sizeof ch->res->counters_note, "%s", why);
        return;
    }
    double v[BL_NMETRICS + 1];
    if (bl_counters_measure(c, counters_launch, ch, v, why, sizeof why) == 0) {
        struct gpu_kernel_counters *k = &ch->res->counters;
        ch->res->has_counters = 1;
        k->wavefronts_ld = v[BL_WAVEFRONTS_LD];
        k->wavefronts_st = v[BL_WAVEFRONTS_ST];
        k->conflicts_ld = v[BL_CONFLICTS_LD];
        k->conflicts_st = v[BL_CONFLICTS_ST];
        k->inst_ld = v[BL_INST_LD];
        k->inst_st = v[BL_INST_ST];
        k->wavefronts = n > BL_NMETRICS ? v[BL_NMETRICS] : -1;
    } else if (ch->res->status == GPU_KERNEL_OK) {
        bl_fmt(ch->res->counters_note, sizeof ch->res->counters_note, "%s", why);
    }
    bl_counters_close(c);
    ch->res->timing.counters = kclock_ms() - t0;
}

static void dump_cubin(struct child *ch)
{
    char cub[PATH_MAX];
    bl_fmt(cub, sizeof cub, "%s.%.64s.cubin", ch->st->dbgpath, ch->comp.lowered);
    FILE *f = fopen(cub, "wb");
    if (f) {
        fwrite(ch->comp.cubin, 1, ch->comp.cubin_size, f);
        fclose(f);
    }
}

/* take_turn: wait for the device's turn before the kernel runs (the job shows "waiting for
 * the GPU"); 0 when ours or when there are no turns to take, -1 with the reason in the
 * result when the turn did not come. */
static int take_turn(struct child *ch)
{
    struct kstate *st = ch->st;
    if (!st->lock)
        return 0;
    set_phase(ch, GPU_KPHASE_WAIT);
    char err[DEVLOCK_TEXT_MAX];
    double t0 = kclock_ms();
    enum devlock_status s = devlock_acquire(st->lock, TURN_WAIT_MS, NULL, NULL, err, sizeof err);
    ch->res->timing.wait = kclock_ms() - t0;
    if (s == DEVLOCK_OK)
        return 0;
    if (s == DEVLOCK_TIMEOUT) {
        FAIL(ch, GPU_KERNEL_ELAUNCH, "not measured: waited %d s for the GPU; other banklab "
             "processes kept it busy", TURN_WAIT_MS / 1000);
        return -1;
    }
    devlock_close(st->lock); /* a damaged lock file: measure without turns, and say so */
    st->lock = NULL;
    bl_fmt(st->lock_note, sizeof st->lock_note, "without turns: %s", err);
    return 0;
}

/* in_turn: fn(ch) while holding the device's turn. */
static void in_turn(struct child *ch, int (*fn)(struct child *))
{
    if (take_turn(ch))
        return;
    fn(ch);
    devlock_release(ch->st->lock);
}

static int counters_turn(struct child *ch)
{
    measure_counters(ch);
    return 0;
}

static void request(struct child *ch)
{
    struct kstate *st = ch->st;
    const struct gpu_kernel_request *req = ch->req;
    struct gpu_kernel_result *res = ch->res;
    memcpy(res->grid, req->grid, sizeof res->grid);
    memcpy(res->block, req->block, sizeof res->block);
    res->smem = req->smem;
    if (st->have_gpu)
        bl_fmt(res->device, sizeof res->device, "%s", st->name);
    if (!realpath(req->path, ch->realpath))
        bl_fmt(ch->realpath, sizeof ch->realpath, "%s", req->path);
    bl_fmt(ch->dir, sizeof ch->dir, "%s", ch->realpath);
    char *slash = strrchr(ch->dir, '/');
    if (slash && slash != ch->dir)
        *slash = '\0';
    else
        bl_fmt(ch->dir, sizeof ch->dir, "%s", slash ? "/" : ".");
    if (req->device != st->device) {
        FAIL(ch, GPU_KERNEL_ESYSTEM, "a measuring server of device %d was asked for device %d",
             st->device, req->device);
        return;
    }

    set_phase(ch, GPU_KPHASE_COMPILE);
    choose_kernel(ch);
    int arch = st->have_gpu ? st->sm : DEFAULT_ARCH;
    bl_fmt(res->arch, sizeof res->arch, "sm_%d", arch);
    struct kcompile_in in = {ch->src, ch->len, ch->realpath, ch->dir,
                             ch->name_expr[0] ? ch->name_expr : NULL, arch, req->cache_dir, st->dbg};
    char why[GPU_KERNEL_TEXT];
    double t0 = kclock_ms();
    int rc = kcompile(st->rtc, &in, &ch->comp, &res->timing.cache_hit, why, sizeof why);
    res->timing.compile = kclock_ms() - t0;
    if (rc) {
        FAIL(ch, GPU_KERNEL_ESYSTEM, "%s", why);
        return;
    }
    if (take_log(ch))
        return;
    if (ch->name_error[0]) {
        FAIL(ch, GPU_KERNEL_EINPUT, "%s", ch->name_error);
        return;
    }
    bl_fmt(res->lowered, sizeof res->lowered, "%s", ch->comp.lowered);
    if (st->dbg)
        dump_cubin(ch);
    if (bind_params(ch))
        return;
    if (!st->have_gpu) {
        FAIL(ch, GPU_KERNEL_ENOGPU, "%s compiles (for sm_%d); measuring it needs a GPU: %s",
             req->path, DEFAULT_ARCH, st->nogpu);
        return;
    }
    set_phase(ch, GPU_KPHASE_SETUP);
    if (ensure_context(st, res) || setup_launch(ch))
        return;
    if (st->lock_note[0])
        bl_fmt(res->lock_note, sizeof res->lock_note, "%s", st->lock_note);
    if (req->launch_only) {
        t0 = kclock_ms();
        in_turn(ch, run_once);
        if (res->status == GPU_KERNEL_OK)
            res->timing.run = kclock_ms() - t0;
        return;
    }
    if (req->counters_only) { /* --counters: the range profiler, alone in its process */
        if (st->sass_used) {
            FAIL(ch, GPU_KERNEL_ESYSTEM, "the range profiler must run in a process of its own");
            return;
        }
        st->sass_used = 1; /* and this process takes no other request */
        in_turn(ch, counters_turn);
        if (!ch->res->has_counters && ch->res->status == GPU_KERNEL_OK)
            FAIL(ch, GPU_KERNEL_ECOUNTERS, "%s", ch->res->counters_note);
        return;
    }
    in_turn(ch, measure_sass);
}

void kstate_measure(struct kstate *st, const struct gpu_kernel_request *req, const char *src,
                    size_t len, struct gpu_kernel_result *res, int fd)
{
    struct child *ch = calloc(1, sizeof *ch);
    if (!ch) {
        kres_fail(res, GPU_KERNEL_ESYSTEM, "out of memory");
        return;
    }
    ch->st = st;
    ch->req = req;
    ch->src = src;
    ch->len = len;
    ch->res = res;
    ch->fd = fd;
    request(ch);
    res->phase = res->status == GPU_KERNEL_OK ? GPU_KPHASE_DONE : ch->phase;
    if (!st->dead) { /* a server takes the next request in a clean context */
        for (int i = 0; i < KSRC_MAX_PARAMS; i++)
            if (ch->bufs[i])
                st->d.mem_free(ch->bufs[i]);
        if (ch->module)
            st->d.module_unload(ch->module);
    }
    compiled_done(&ch->comp);
    free(ch);
}
