/* cuda_kernel.c: the measuring child of `banklab kernel` (CUDA build). Compiles the learner's
 * file with NVRTC (line info, the device's architecture; sm_90 without a GPU so compile errors
 * still show), keeps the cubin in a cache keyed by everything that went into it, launches the
 * kernel through the driver API with the documented buffers and arguments, and reads CUPTI's
 * SASS metrics (per instruction: shared instructions executed, wavefronts) which
 * cuptiGetSassToSourceCorrelation maps to source lines. libcuda, libnvrtc and libcupti are all
 * dlopen'ed: the binary starts without them. Runs only in the child process (a fault here
 * ends the child, never the caller). No curses, no cJSON; never prints (except the debug
 * log named by BANKLAB_KERNEL_DEBUG). */
#include <dlfcn.h>
#include <stddef.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cuda.h>
#include <cupti_pcsampling.h>
#include <cupti_profiler_target.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>
#include <nvrtc.h>

#include "cuda_counters.h"
#include "kernel_impl.h"

#define DEFAULT_ARCH 90                  /* compile target without a GPU (the H200's) */
#define FILL_CHUNK (4u << 20)            /* bytes of fill pattern made at a time */

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* line: snprintf that truncates silently (every text here is one bounded line) */
static void line(char *dst, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void line(char *dst, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, n, fmt, ap);
    va_end(ap);
}

/* ---- the debug log (BANKLAB_KERNEL_DEBUG=FILE) ---- */

static FILE *g_dbg;

static void dbg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void dbg(const char *fmt, ...)
{
    if (!g_dbg)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(g_dbg, fmt, ap);
    va_end(ap);
    fflush(g_dbg);
}

/* ---- libcuda ---- */

struct drv {
    void *lib;
    CUresult (*init)(unsigned);
    CUresult (*driver_version)(int *);
    CUresult (*device_count)(int *);
    CUresult (*device_get)(CUdevice *, int);
    CUresult (*device_name)(char *, int, CUdevice);
    CUresult (*device_attr)(int *, CUdevice_attribute, CUdevice);
    CUresult (*ctx_retain)(CUcontext *, CUdevice);
    CUresult (*ctx_set)(CUcontext);
    CUresult (*ctx_sync)(void);
    CUresult (*module_load)(CUmodule *, const void *);
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
        snprintf(why, n, "no CUDA driver (libcuda.so.1 not found)");
        return -1;
    }
    static const struct {
        size_t off;
        const char *name;
        int optional;
    } syms[] = {
#define S(field, name, opt) {offsetof(struct drv, field), name, opt}
        S(init, "cuInit", 0), S(driver_version, "cuDriverGetVersion", 0),
        S(device_count, "cuDeviceGetCount", 0), S(device_get, "cuDeviceGet", 0),
        S(device_name, "cuDeviceGetName", 0), S(device_attr, "cuDeviceGetAttribute", 0),
        S(ctx_retain, "cuDevicePrimaryCtxRetain", 0), S(ctx_set, "cuCtxSetCurrent", 0),
        S(ctx_sync, "cuCtxSynchronize", 0), S(module_load, "cuModuleLoadData", 0),
        S(module_function, "cuModuleGetFunction", 0), S(func_attr, "cuFuncGetAttribute", 0),
        S(func_set_attr, "cuFuncSetAttribute", 0), S(func_param_info, "cuFuncGetParamInfo", 1),
        S(mem_alloc, "cuMemAlloc_v2", 0), S(mem_free, "cuMemFree_v2", 0),
        S(htod, "cuMemcpyHtoD_v2", 0), S(launch, "cuLaunchKernel", 0),
        S(error_name, "cuGetErrorName", 0), S(error_string, "cuGetErrorString", 0),
#undef S
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        void *f = dlsym(d->lib, syms[i].name);
        if (!f && !syms[i].optional) {
            snprintf(why, n, "CUDA driver too old: %s missing from libcuda.so.1", syms[i].name);
            return -1;
        }
        memcpy((char *)d + syms[i].off, &f, sizeof f);
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

/* ---- libnvrtc ---- */

struct rtc {
    void *lib;
    nvrtcResult (*version)(int *, int *);
    nvrtcResult (*create)(nvrtcProgram *, const char *, const char *, int, const char *const *,
                          const char *const *);
    nvrtcResult (*compile)(nvrtcProgram, int, const char *const *);
    nvrtcResult (*log_size)(nvrtcProgram, size_t *);
    nvrtcResult (*log)(nvrtcProgram, char *);
    nvrtcResult (*cubin_size)(nvrtcProgram, size_t *);
    nvrtcResult (*cubin)(nvrtcProgram, char *);
    nvrtcResult (*add_name)(nvrtcProgram, const char *);
    nvrtcResult (*lowered)(nvrtcProgram, const char *, const char **);
    nvrtcResult (*destroy)(nvrtcProgram *);
    const char *(*error_string)(nvrtcResult);
};

static int rtc_load(struct rtc *r, char *why, size_t n)
{
    static const char *names[] = {
        "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so",
#ifdef BANKLAB_CUDA_HOME
        BANKLAB_CUDA_HOME "/lib64/libnvrtc.so.13", BANKLAB_CUDA_HOME "/lib64/libnvrtc.so.12",
        BANKLAB_CUDA_HOME "/lib64/libnvrtc.so",
#endif
        "/usr/local/cuda/lib64/libnvrtc.so.13", "/usr/local/cuda/lib64/libnvrtc.so.12",
        "/usr/local/cuda/lib64/libnvrtc.so",
    };
    memset(r, 0, sizeof *r);
    const char *env = getenv("BANKLAB_NVRTC");
    if (env && *env)
        r->lib = dlopen(env, RTLD_NOW | RTLD_LOCAL);
    for (size_t i = 0; !r->lib && i < sizeof names / sizeof names[0]; i++)
        r->lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!r->lib) {
        snprintf(why, n, "cannot compile: libnvrtc not found (install the CUDA toolkit's NVRTC "
                         "or set BANKLAB_NVRTC)");
        return -1;
    }
    static const struct {
        size_t off;
        const char *name;
    } syms[] = {
#define S(field, name) {offsetof(struct rtc, field), name}
        S(version, "nvrtcVersion"), S(create, "nvrtcCreateProgram"),
        S(compile, "nvrtcCompileProgram"), S(log_size, "nvrtcGetProgramLogSize"),
        S(log, "nvrtcGetProgramLog"), S(cubin_size, "nvrtcGetCUBINSize"),
        S(cubin, "nvrtcGetCUBIN"), S(add_name, "nvrtcAddNameExpression"),
        S(lowered, "nvrtcGetLoweredName"), S(destroy, "nvrtcDestroyProgram"),
        S(error_string, "nvrtcGetErrorString"),
#undef S
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        void *f = dlsym(r->lib, syms[i].name);
        if (!f) {
            snprintf(why, n, "cannot compile: %s missing from libnvrtc (too old?)", syms[i].name);
            return -1;
        }
        memcpy((char *)r + syms[i].off, &f, sizeof f);
    }
    return 0;
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
        snprintf(why, n, "counters not available: libcupti.so.13 not found (set BANKLAB_CUPTI)");
        return -1;
    }
    static const struct {
        size_t off;
        const char *name;
    } syms[] = {
#define S(field, name) {offsetof(struct cupti, field), name}
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
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        void *f = dlsym(c->lib, syms[i].name);
        if (!f) {
            snprintf(why, n, "counters not available: %s missing from CUPTI (CUDA 12.4 or newer "
                             "is needed)", syms[i].name);
            return -1;
        }
        memcpy((char *)c + syms[i].off, &f, sizeof f);
    }
    return 0;
}

static void cupti_why(const struct cupti *c, CUptiResult r, const char *call, char *why, size_t n)
{
    const char *s = NULL;
    if (!c->result_string || c->result_string(r, &s) != CUPTI_SUCCESS || !s)
        s = "unknown CUPTI error";
    switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
        snprintf(why, n, "counters not allowed: insufficient privileges (%s; run as root or "
                         "allow profiling for all users)", call);
        return;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
        snprintf(why, n, "counters not available: another profiler is active (%s)", call);
        return;
    default:
        snprintf(why, n, "counters not available: %s failed: %s (%d)", call, s, (int)r);
    }
}

/* The SASS metrics read, each with what it counts. A metric this CUPTI does not know is left
 * out; the wavefront metrics of loads and stores are required. */
enum { ROLE_INST, ROLE_WF, ROLE_INST_ALL, ROLE_WF_ALL };
static const struct {
    const char *name;
    int role, op, required;
} metric_table[] = {
    {"smsp__sass_inst_executed_op_shared_ld", ROLE_INST, GPU_KOP_LD, 1},
    {"smsp__sass_inst_executed_op_shared_st", ROLE_INST, GPU_KOP_ST, 1},
    {"smsp__sass_inst_executed_op_shared_atom", ROLE_INST, GPU_KOP_ATOM, 0},
    {"smsp__sass_inst_executed_op_ldsm", ROLE_INST, GPU_KOP_LDSM, 0},
    {"smsp__sass_inst_executed_op_stsm", ROLE_INST, GPU_KOP_STSM, 0},
    {"smsp__sass_inst_executed_op_ldgsts", ROLE_INST, GPU_KOP_LDGSTS, 0},
    {"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld", ROLE_WF, GPU_KOP_LD, 1},
    {"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st", ROLE_WF, GPU_KOP_ST, 1},
    {"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm", ROLE_WF, GPU_KOP_LDSM, 0},
    {"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm", ROLE_WF, GPU_KOP_STSM, 0},
    {"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts", ROLE_WF, GPU_KOP_LDGSTS, 0},
    {"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom", ROLE_WF, GPU_KOP_ATOM, 0},
    {"smsp__sass_inst_executed_op_shared", ROLE_INST_ALL, 0, 0},
    {"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared", ROLE_WF_ALL, 0, 0},
};
#define NMETRICS (sizeof metric_table / sizeof metric_table[0])

/* ---- the compile cache ---- */

struct compiled {
    char *log;                   /* NVRTC's log (warnings too) */
    char lowered[GPU_KERNEL_TEXT];
    unsigned char *cubin;
    size_t cubin_size;
    int ok;                      /* compiled without errors */
};

static void compiled_done(struct compiled *c)
{
    free(c->log);
    free(c->cubin);
    memset(c, 0, sizeof *c);
}

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

struct keybuf {
    char *s;
    size_t len, cap;
};

static int key_add(struct keybuf *k, const void *p, size_t n)
{
    if (k->len + n + 1 > k->cap) {
        size_t nc = k->cap ? k->cap * 2 : 4096;
        while (nc < k->len + n + 1)
            nc *= 2;
        char *w = realloc(k->s, nc);
        if (!w)
            return -1;
        k->s = w;
        k->cap = nc;
    }
    memcpy(k->s + k->len, p, n);
    k->len += n;
    k->s[k->len] = '\0';
    return 0;
}

/* Quoted includes next to the file (and theirs, a few levels deep) are part of the key:
 * editing a header must not bring back a stale cubin. */
static void key_includes(struct keybuf *k, const char *dir, const char *src, size_t len, int depth)
{
    if (depth > 6)
        return;
    const char *p = src, *end = src + len;
    while (p < end) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        const char *s = p;
        while (s < e && (*s == ' ' || *s == '\t'))
            s++;
        if (s < e && *s == '#') {
            s++;
            while (s < e && (*s == ' ' || *s == '\t'))
                s++;
            if ((size_t)(e - s) > 8 && !strncmp(s, "include", 7)) {
                const char *q = memchr(s, '"', (size_t)(e - s));
                const char *q2 = q ? memchr(q + 1, '"', (size_t)(e - q - 1)) : NULL;
                if (q && q2) {
                    char path[PATH_MAX];
                    int pl = snprintf(path, sizeof path, "%s/%.*s", dir, (int)(q2 - q - 1), q + 1);
                    FILE *f = pl > 0 && (size_t)pl < sizeof path ? fopen(path, "rb") : NULL;
                    if (f) {
                        char *buf = malloc(1 << 20);
                        size_t n = buf ? fread(buf, 1, 1 << 20, f) : 0;
                        fclose(f);
                        if (buf) {
                            key_add(k, "\ninclude ", 9);
                            key_add(k, path, strlen(path));
                            key_add(k, "\n", 1);
                            key_add(k, buf, n);
                            char sub[PATH_MAX];
                            snprintf(sub, sizeof sub, "%s", path);
                            char *slash = strrchr(sub, '/');
                            if (slash)
                                *slash = '\0';
                            key_includes(k, sub, buf, n, depth + 1);
                            free(buf);
                        }
                    }
                }
            }
        }
        p = e < end ? e + 1 : end;
    }
}

static int write_u64(FILE *f, uint64_t v) { return fwrite(&v, sizeof v, 1, f) == 1 ? 0 : -1; }

static int cache_store(const char *path, const struct keybuf *key, const struct compiled *c)
{
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid()) >= (int)sizeof tmp)
        return -1;
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return -1;
    size_t loglen = c->log ? strlen(c->log) : 0, lowlen = strlen(c->lowered);
    int bad = fwrite("BLKC1\n", 6, 1, f) != 1 || write_u64(f, key->len) ||
              fwrite(key->s, 1, key->len, f) != key->len || write_u64(f, loglen) ||
              fwrite(c->log ? c->log : "", 1, loglen, f) != loglen || write_u64(f, lowlen) ||
              fwrite(c->lowered, 1, lowlen, f) != lowlen || write_u64(f, c->cubin_size) ||
              fwrite(c->cubin, 1, c->cubin_size, f) != c->cubin_size;
    if (fclose(f) || bad || rename(tmp, path)) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

static void *read_part(FILE *f, uint64_t max, uint64_t *n)
{
    if (fread(n, sizeof *n, 1, f) != 1 || *n > max)
        return NULL;
    char *p = malloc((size_t)*n + 1);
    if (!p)
        return NULL;
    if (fread(p, 1, (size_t)*n, f) != *n) {
        free(p);
        return NULL;
    }
    p[*n] = '\0';
    return p;
}

static int cache_load(const char *path, const struct keybuf *key, struct compiled *c)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    char magic[6];
    uint64_t n;
    int ok = 0;
    char *k = NULL, *low = NULL;
    if (fread(magic, 6, 1, f) == 1 && !memcmp(magic, "BLKC1\n", 6) &&
        (k = read_part(f, 64u << 20, &n)) && n == key->len && !memcmp(k, key->s, n) &&
        (c->log = read_part(f, 16u << 20, &n)) && (low = read_part(f, GPU_KERNEL_TEXT - 1, &n)) &&
        (c->cubin = read_part(f, 256u << 20, &n))) {
        snprintf(c->lowered, sizeof c->lowered, "%s", low);
        c->cubin_size = (size_t)n;
        c->ok = 1;
        ok = 1;
    }
    fclose(f);
    free(k);
    free(low);
    if (!ok)
        compiled_done(c);
    return ok ? 0 : -1;
}

static void mkdirs(const char *dir)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s", dir);
    for (char *s = p + 1; *s; s++) {
        if (*s == '/') {
            *s = '\0';
            mkdir(p, 0700);
            *s = '/';
        }
    }
    mkdir(p, 0700);
}

/* ---- the measurement ---- */

struct child {
    const struct gpu_kernel_request *req;
    const char *src;
    size_t len;
    struct gpu_kernel_result *res;
    int fd;
    enum gpu_kernel_phase phase; /* the last one sent */
    char realpath[PATH_MAX];     /* the program's name for NVRTC (line info, ncu) */
    char dir[PATH_MAX];          /* its directory: -I */
    struct drv d;
    int have_gpu;
    char nogpu[GPU_KERNEL_TEXT];
    CUdevice dev;
    int sm;                      /* compute capability as 90 */
    int smem_optin, max_threads;
    int grid_max[3];
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
    unsigned char *fill;         /* FILL_CHUNK bytes */
};

#define FAIL(ch, st, ...) kres_fail((ch)->res, (st), __VA_ARGS__)

static void set_phase(struct child *ch, enum gpu_kernel_phase phase)
{
    ch->phase = phase;
    kwire_phase(ch->fd, phase);
}

static int open_device(struct child *ch)
{
    struct drv *d = &ch->d;
    if (drv_load(d, ch->nogpu, sizeof ch->nogpu))
        return -1;
    CUresult r = d->init(0);
    int count = 0;
    if (r == CUDA_SUCCESS)
        r = d->device_count(&count);
    if (r == CUDA_ERROR_NO_DEVICE || (r == CUDA_SUCCESS && count == 0)) {
        line(ch->nogpu, sizeof ch->nogpu, "no CUDA device");
        return -1;
    }
    if (r != CUDA_SUCCESS) {
        line(ch->nogpu, sizeof ch->nogpu, "CUDA unavailable: %s", cu_text(d, r));
        return -1;
    }
    if (ch->req->device >= count) {
        line(ch->nogpu, sizeof ch->nogpu, "no CUDA device %d (found %d: 0..%d)",
                 ch->req->device, count, count - 1);
        return -1;
    }
    char name[128] = "";
    int major = 0, minor = 0;
    if (d->device_get(&ch->dev, ch->req->device) != CUDA_SUCCESS ||
        d->device_name(name, sizeof name, ch->dev) != CUDA_SUCCESS ||
        d->device_attr(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, ch->dev) ||
        d->device_attr(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, ch->dev) ||
        d->device_attr(&ch->smem_optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                       ch->dev) ||
        d->device_attr(&ch->max_threads, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, ch->dev) ||
        d->device_attr(&ch->grid_max[0], CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, ch->dev) ||
        d->device_attr(&ch->grid_max[1], CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, ch->dev) ||
        d->device_attr(&ch->grid_max[2], CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, ch->dev)) {
        line(ch->nogpu, sizeof ch->nogpu, "CUDA device %d cannot be queried", ch->req->device);
        return -1;
    }
    ch->sm = major * 10 + minor;
    line(ch->res->device, sizeof ch->res->device, "%s (sm_%d)", name, ch->sm);
    ch->have_gpu = 1;
    return 0;
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
            line(ch->name_error, sizeof ch->name_error, "no __global__ function in %s",
                     ch->req->path);
            return;
        }
        if (ch->nkernels > 1) {
            line(ch->name_error, sizeof ch->name_error,
                     "%s has %d kernels (%s): choose one with --name", ch->req->path,
                     ch->nkernels, list);
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
            line(ch->name_error, sizeof ch->name_error, "no kernel named %s in %s (%s%s)",
                     base, ch->req->path, ch->nkernels ? "kernels: " : "no __global__ function",
                     list);
            return;
        }
    }
    if (ch->kernel->is_template && !strchr(want, '<')) {
        line(ch->name_error, sizeof ch->name_error,
                 "%s is a template: name an instance, e.g. --name '%s<float>'", ch->kernel->name,
                 ch->kernel->name);
        ch->kernel = NULL;
        return;
    }
    if (want[0] && strchr(want, '<') && !strstr(want, "::")) {
        /* an instance: the file's namespaces, then the name as given (k<float4>) */
        const char *last = strrchr(ch->kernel->name, ':');
        size_t prefix = last ? (size_t)(last + 1 - ch->kernel->name) : 0;
        line(ch->name_expr, sizeof ch->name_expr, "%.*s%s", (int)prefix, ch->kernel->name,
                 want);
    } else {
        line(ch->name_expr, sizeof ch->name_expr, "%s",
                 strstr(want, "::") ? want : ch->kernel->name);
    }
    line(ch->res->kernel, sizeof ch->res->kernel, "%s", want[0] ? want : ch->kernel->name);
}

static int compile(struct child *ch, int arch)
{
    struct rtc r;
    char why[GPU_KERNEL_TEXT];
    double t0 = now_ms();
    const char *name_expr = ch->name_expr[0] ? ch->name_expr : NULL;
    char opt_arch[32], opt_inc[PATH_MAX + 4], opt_cuda[PATH_MAX + 4];
    snprintf(opt_arch, sizeof opt_arch, "--gpu-architecture=sm_%d", arch);
    snprintf(opt_inc, sizeof opt_inc, "-I%s", ch->dir);
    const char *home = getenv("CUDA_HOME");
#ifdef BANKLAB_CUDA_HOME
    if (!home || !*home)
        home = BANKLAB_CUDA_HOME;
#endif
    if (!home || !*home)
        home = "/usr/local/cuda";
    snprintf(opt_cuda, sizeof opt_cuda, "-I%s/include", home);
    const char *opts[] = {opt_arch, "-lineinfo", "--std=c++17", opt_inc, opt_cuda};
    int nopts = (int)(sizeof opts / sizeof opts[0]);
    line(ch->res->arch, sizeof ch->res->arch, "sm_%d", arch);

    /* the cache key: everything that goes into the cubin */
    struct keybuf key = {0};
    struct stat st;
    int use_cache = ch->req->cache_dir[0] != '\0';
    int rv = -1;
    char cpath[PATH_MAX] = "";
    if (use_cache) {
        char head[PATH_MAX + 512];
        int hl = snprintf(head, sizeof head, "banklab kernel cache 1\nname %s\nexpr %s\n",
                          ch->realpath, name_expr ? name_expr : "");
        key_add(&key, head, (size_t)hl);
        for (int i = 0; i < nopts; i++) {
            key_add(&key, opts[i], strlen(opts[i]));
            key_add(&key, "\n", 1);
        }
        key_add(&key, "source\n", 7);
        key_add(&key, ch->src, ch->len);
        key_includes(&key, ch->dir, ch->src, ch->len, 0);
    }
    if (rtc_load(&r, why, sizeof why)) {
        FAIL(ch, GPU_KERNEL_ESYSTEM, "%s", why);
        goto out;
    }
    int vmaj = 0, vmin = 0;
    r.version(&vmaj, &vmin);
    if (use_cache) {
        char v[64];
        int vl = snprintf(v, sizeof v, "\nnvrtc %d.%d\n", vmaj, vmin);
        key_add(&key, v, (size_t)vl);
        uint64_t h = fnv1a(0xcbf29ce484222325ull, key.s ? key.s : "", key.len);
        snprintf(cpath, sizeof cpath, "%s/%016llx.cubin", ch->req->cache_dir, (unsigned long long)h);
        if (key.s && stat(cpath, &st) == 0 && cache_load(cpath, &key, &ch->comp) == 0) {
            ch->res->timing.cache_hit = 1;
            rv = 0;
            goto out;
        }
    }
    nvrtcProgram prog;
    nvrtcResult nr = r.create(&prog, ch->src, ch->realpath, 0, NULL, NULL);
    if (nr != NVRTC_SUCCESS) {
        FAIL(ch, GPU_KERNEL_ESYSTEM, "NVRTC cannot take the program: %s", r.error_string(nr));
        goto out;
    }
    if (name_expr)
        r.add_name(prog, name_expr);
    nvrtcResult cr = r.compile(prog, nopts, opts);
    size_t ls = 0;
    r.log_size(prog, &ls);
    ch->comp.log = malloc(ls + 1);
    if (ch->comp.log) {
        ch->comp.log[0] = '\0';
        if (ls)
            r.log(prog, ch->comp.log);
        ch->comp.log[ls] = '\0';
    }
    if (cr == NVRTC_SUCCESS) {
        const char *low = NULL;
        if (name_expr && r.lowered(prog, name_expr, &low) == NVRTC_SUCCESS && low)
            snprintf(ch->comp.lowered, sizeof ch->comp.lowered, "%s", low);
        size_t cs = 0;
        if (r.cubin_size(prog, &cs) == NVRTC_SUCCESS && cs && (ch->comp.cubin = malloc(cs)) &&
            r.cubin(prog, (char *)ch->comp.cubin) == NVRTC_SUCCESS) {
            ch->comp.cubin_size = cs;
            ch->comp.ok = 1;
        } else {
            FAIL(ch, GPU_KERNEL_ESYSTEM, "NVRTC compiled %s but gave no cubin", ch->req->path);
        }
    }
    r.destroy(&prog);
    if (ch->comp.ok && use_cache && key.s && name_expr) {
        mkdirs(ch->req->cache_dir);
        if (cache_store(cpath, &key, &ch->comp))
            dbg("cache: cannot write %s: %s\n", cpath, strerror(errno));
    }
    rv = 0;
out:
    free(key.s);
    ch->res->timing.compile = now_ms() - t0;
    return rv;
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
    for (int i = 0; i < k->nparams; i++) {
        if (!ch->bufs[i])
            continue;
        for (size_t off = 0; off < ch->buf_size[i]; off += FILL_CHUNK) {
            size_t n = ch->buf_size[i] - off < FILL_CHUNK ? ch->buf_size[i] - off : FILL_CHUNK;
            if (ch->req->fill != GPU_FILL_ZERO || off == 0)
                fill_chunk(ch->fill, n, off, ch->req->fill);
            CUresult r = ch->d.htod(ch->bufs[i] + off, ch->fill, n);
            if (r != CUDA_SUCCESS) {
                FAIL(ch, GPU_KERNEL_EFAULT, "filling buffer %s: %s (%s)", k->params[i].name,
                     cu_name(&ch->d, r), cu_text(&ch->d, r));
                return -1;
            }
        }
    }
    return 0;
}

static int setup_launch(struct child *ch)
{
    struct drv *d = &ch->d;
    const struct gpu_kernel_request *req = ch->req;
    double t0 = now_ms();
    CUcontext ctx;
    CUresult r = d->ctx_retain(&ctx, ch->dev);
    if (r == CUDA_SUCCESS)
        r = d->ctx_set(ctx);
    ch->res->timing.context = now_ms() - t0;
    if (r != CUDA_SUCCESS) {
        FAIL(ch, GPU_KERNEL_ENOGPU, "measuring needs a GPU: CUDA device %d: %s", req->device,
             cu_text(d, r));
        return -1;
    }
    t0 = now_ms();
    r = d->module_load(&ch->module, ch->comp.cubin);
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
        if (ch->grid_max[i] > 0 && req->grid[i] > (unsigned)ch->grid_max[i]) {
            FAIL(ch, GPU_KERNEL_ELAUNCH, "--grid: dimension %c is %u; the device allows %d",
                 "xyz"[i], req->grid[i], ch->grid_max[i]);
            return -1;
        }
    unsigned long long total = (unsigned long long)static_smem + req->smem;
    if (total > (unsigned long long)ch->smem_optin) {
        FAIL(ch, GPU_KERNEL_ELAUNCH, "%s asks for %llu bytes of shared memory per block (static "
             "%d + dynamic %llu); the %s allows at most %d", ch->res->kernel, total, static_smem,
             req->smem, ch->res->device, ch->smem_optin);
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
    ch->fill = malloc(FILL_CHUNK);
    if (!ch->fill) {
        FAIL(ch, GPU_KERNEL_ESYSTEM, "out of memory");
        return -1;
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
    ch->res->timing.load = now_ms() - t0;
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
    struct drv *d = &ch->d;
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
    const char *hint = "";
    char buf[160];
    if (r == CUDA_ERROR_ILLEGAL_ADDRESS) {
        snprintf(buf, sizeof buf, ": an index past a buffer (each pointer parameter has %llu "
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
    double inst[GPU_KOP_COUNT], wf[GPU_KOP_COUNT];
    double inst_all, wf_all;     /* the metrics without an op, when CUPTI has them */
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
static void correlate(struct child *ch, struct cupti *c, struct gpu_kernel_inst *in)
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
    if (c->correlate(&p) != CUPTI_SUCCESS)
        return;
    in->line = (int)p.lineNumber;
    if (p.fileName && strcmp(p.fileName, ch->realpath)) {
        char full[PATH_MAX];
        if (p.fileName[0] != '/' && p.dirName && p.dirName[0])
            snprintf(full, sizeof full, "%s/%s", p.dirName, p.fileName);
        else
            snprintf(full, sizeof full, "%s", p.fileName);
        const char *show = full;
        size_t dl = strlen(ch->dir);
        if (!strncmp(full, ch->dir, dl) && full[dl] == '/')
            show = full + dl + 1;
        int f = kres_add_file(ch->res, show);
        in->file = f < 0 ? 0 : f;
    }
    free(p.fileName);
    free(p.dirName);
}

static void debug_metric_list(struct cupti *c, const char *chip)
{
    if (!g_dbg)
        return;
    CUpti_SassMetrics_GetNumOfMetrics_Params np;
    memset(&np, 0, sizeof np);
    np.structSize = CUpti_SassMetrics_GetNumOfMetrics_Params_STRUCT_SIZE;
    np.pChipName = chip;
    if (c->num_metrics(&np) != CUPTI_SUCCESS || !np.numOfMetrics)
        return;
    CUpti_SassMetrics_MetricDetails *list = calloc(np.numOfMetrics, sizeof *list);
    CUpti_SassMetrics_GetMetrics_Params mp;
    memset(&mp, 0, sizeof mp);
    mp.structSize = CUpti_SassMetrics_GetMetrics_Params_STRUCT_SIZE;
    mp.pChipName = chip;
    mp.numOfMetrics = np.numOfMetrics;
    mp.pMetricsList = list;
    if (list && c->metrics(&mp) == CUPTI_SUCCESS)
        for (size_t i = 0; i < np.numOfMetrics; i++)
            dbg("sass metric %s: %s\n", list[i].pMetricName, list[i].pMetricDescription);
    free(list);
}

/* SASS metrics around one run of the kernel, then correlation and decoding into res. */
static int measure_sass(struct child *ch)
{
    struct cupti c;
    char why[GPU_KERNEL_TEXT];
    double t0 = now_ms();
    if (cupti_load(&c, why, sizeof why)) {
        FAIL(ch, GPU_KERNEL_ECOUNTERS, "%s", why);
        return -1;
    }
    CUptiResult r;
#define TRY(call, name)                                                                        \
    do {                                                                                       \
        r = (call);                                                                            \
        if (r != CUPTI_SUCCESS) {                                                              \
            cupti_why(&c, r, name, why, sizeof why);                                           \
            FAIL(ch, GPU_KERNEL_ECOUNTERS, "%s", why);                                         \
            goto out;                                                                          \
        }                                                                                      \
    } while (0)
    int configured = 0, enabled = 0, rv = -1;
    CUpti_SassMetrics_Config cfg[NMETRICS];
    int role[NMETRICS], op[NMETRICS], have_all[2] = {0, 0};
    uint64_t ids[NMETRICS];
    size_t ncfg = 0;
    CUpti_SassMetrics_Data *data = NULL;
    size_t nrec = 0, ninst = 1;
    struct pc_row *rows = NULL;
    int nrows = 0, caprows = 0;

    CUpti_Profiler_Initialize_Params ip;
    memset(&ip, 0, sizeof ip);
    ip.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE;
    TRY(c.prof_init(&ip), "cuptiProfilerInitialize");
    CUpti_Device_GetChipName_Params cp;
    memset(&cp, 0, sizeof cp);
    cp.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
    cp.deviceIndex = (size_t)ch->req->device;
    TRY(c.chip_name(&cp), "cuptiDeviceGetChipName");
    debug_metric_list(&c, cp.pChipName);
    for (size_t i = 0; i < NMETRICS; i++) {
        CUpti_SassMetrics_GetProperties_Params pp;
        memset(&pp, 0, sizeof pp);
        pp.structSize = CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE;
        pp.pChipName = cp.pChipName;
        pp.pMetricName = metric_table[i].name;
        r = c.properties(&pp);
        if (r != CUPTI_SUCCESS) {
            dbg("metric %s: not on %s (%d)\n", metric_table[i].name, cp.pChipName, (int)r);
            if (metric_table[i].required) {
                cupti_why(&c, r, metric_table[i].name, why, sizeof why);
                FAIL(ch, GPU_KERNEL_ECOUNTERS, "%s", why);
                goto out;
            }
            continue;
        }
        cfg[ncfg].metricId = pp.metric.metricId;
        cfg[ncfg].outputGranularity = CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU;
        ids[ncfg] = pp.metric.metricId;
        role[ncfg] = metric_table[i].role;
        op[ncfg] = metric_table[i].op;
        if (role[ncfg] == ROLE_INST_ALL)
            have_all[0] = 1;
        if (role[ncfg] == ROLE_WF_ALL)
            have_all[1] = 1;
        ncfg++;
    }
    CUpti_SassMetricsSetConfig_Params sp;
    memset(&sp, 0, sizeof sp);
    sp.structSize = CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE;
    sp.pConfigs = cfg;
    sp.numOfMetricConfig = ncfg;
    sp.deviceIndex = (uint32_t)ch->req->device;
    TRY(c.set_config(&sp), "cuptiSassMetricsSetConfig");
    configured = 1;
    CUpti_SassMetricsEnable_Params ep;
    memset(&ep, 0, sizeof ep);
    ep.structSize = CUpti_SassMetricsEnable_Params_STRUCT_SIZE;
    ep.enableLazyPatching = 1;
    TRY(c.enable(&ep), "cuptiSassMetricsEnable");
    enabled = 1;
    ch->res->timing.cupti = now_ms() - t0;

    t0 = now_ms();
    if (run_once(ch))
        goto out;
    ch->res->timing.run = now_ms() - t0;
    set_phase(ch, GPU_KPHASE_COLLECT);
    t0 = now_ms();
    CUpti_SassMetricsGetDataProperties_Params dp;
    memset(&dp, 0, sizeof dp);
    dp.structSize = CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE;
    TRY(c.data_props(&dp), "cuptiSassMetricsGetDataProperties");
    nrec = dp.numOfPatchedInstructionRecords;
    ninst = dp.numOfInstances ? dp.numOfInstances : 1;
    dbg("records %zu instances %zu\n", nrec, ninst);
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
        TRY(c.flush(&fp), "cuptiSassMetricsFlushData");
    }
    for (size_t i = 0; i < nrec; i++) {
        const CUpti_SassMetrics_Data *rec = &data[i];
        if (!rec->functionName || strcmp(rec->functionName, ch->comp.lowered))
            continue;
        for (size_t k = 0; k < ninst; k++) {
            const CUpti_SassMetrics_InstanceValue *v = &rec->pInstanceValues[k];
            for (size_t m = 0; m < ncfg; m++) {
                if (ids[m] != v->metricId)
                    continue;
                dbg("pc %#x %s = %llu\n", rec->pcOffset, metric_table[m].name,
                    (unsigned long long)v->value);
                if (!v->value)
                    continue;
                struct pc_row *row = pc_row(&rows, &nrows, &caprows, rec->pcOffset);
                if (!row) {
                    FAIL(ch, GPU_KERNEL_ESYSTEM, "out of memory");
                    goto out;
                }
                if (role[m] == ROLE_INST)
                    row->inst[op[m]] += (double)v->value;
                else if (role[m] == ROLE_WF)
                    row->wf[op[m]] += (double)v->value;
                else if (role[m] == ROLE_INST_ALL)
                    row->inst_all += (double)v->value;
                else
                    row->wf_all += (double)v->value;
            }
        }
    }
    /* one instruction per pc: its kind from the metrics, its width from the SASS */
    const uint8_t *code = NULL;
    size_t code_size = 0;
    int decode = sass_arch_known(ch->sm) &&
                 sass_function_code(ch->comp.cubin, ch->comp.cubin_size, ch->comp.lowered, &code,
                                    &code_size) == 0;
    ch->res->insts = calloc(nrows ? (size_t)nrows : 1, sizeof *ch->res->insts);
    if (!ch->res->insts) {
        FAIL(ch, GPU_KERNEL_ESYSTEM, "out of memory");
        goto out;
    }
    for (int i = 0; i < nrows; i++) {
        struct gpu_kernel_inst *in = &ch->res->insts[ch->res->ninsts++];
        const struct pc_row *row = &rows[i];
        in->pc = row->pc;
        /* one instruction: each metric that counts it counts the same executions (max);
         * its wavefronts are the total metric when there is one, else the op's */
        int best = -1;
        double inst = 0, wf = 0;
        for (int o = 0; o < GPU_KOP_COUNT; o++) {
            if (row->inst[o] > inst)
                inst = row->inst[o];
            if (row->wf[o] > wf)
                wf = row->wf[o];
            if (row->wf[o] > 0 && (best < 0 || row->wf[o] > row->wf[best]))
                best = o;
        }
        if (have_all[0])
            inst = row->inst_all > inst ? row->inst_all : inst;
        if (have_all[1])
            wf = row->wf_all;
        for (int o = 0; best < 0 && o < GPU_KOP_COUNT; o++)
            if (row->inst[o] > 0)
                best = o;
        in->op = best < 0 ? GPU_KOP_LD : best;
        in->inst = inst;
        in->wavefronts = wf;
        snprintf(in->sass, sizeof in->sass, "?");
        struct sass_insn si;
        if (decode && (size_t)row->pc + 16 <= code_size && sass_decode(code + row->pc, &si)) {
            snprintf(in->sass, sizeof in->sass, "%s", si.text);
            /* the width counts only when the SASS and the metrics agree on the kind */
            if (si.op == in->op)
                in->ideal_per_inst = si.ideal;
            else
                dbg("pc %#x: decoded %s (%s), metrics say %s\n", row->pc, si.text,
                    gpu_kernel_op_name(si.op), gpu_kernel_op_name(in->op));
        }
        if (in->inst == 0 && in->wavefronts > 0) /* a kind without an instruction metric */
            in->ideal_per_inst = 0;
        in->ideal = in->inst * in->ideal_per_inst;
        correlate(ch, &c, in);
        dbg("inst pc %#x %s op %s line %d inst %.0f wf %.0f ideal %.0f\n", in->pc, in->sass,
            gpu_kernel_op_name(in->op), in->line, in->inst, in->wavefronts, in->ideal);
    }
    if (kres_build_lines(ch->res)) {
        FAIL(ch, GPU_KERNEL_ESYSTEM, "out of memory");
        goto out;
    }
    ch->res->timing.collect = now_ms() - t0;
    rv = 0;
out:
    if (enabled) {
        CUpti_SassMetricsDisable_Params xp;
        memset(&xp, 0, sizeof xp);
        xp.structSize = CUpti_SassMetricsDisable_Params_STRUCT_SIZE;
        c.disable(&xp);
    }
    if (configured) {
        CUpti_SassMetricsUnsetConfig_Params up;
        memset(&up, 0, sizeof up);
        up.structSize = CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE;
        up.deviceIndex = (uint32_t)ch->req->device;
        c.unset_config(&up);
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
    struct child *ch = arg;
    return run_once(ch);
}

static void measure_counters(struct child *ch)
{
    double t0 = now_ms();
    char why[GPU_KERNEL_TEXT];
    struct bl_counters *c = bl_counters_open(ch->req->device, why, sizeof why);
    if (!c) {
        line(ch->res->counters_note, sizeof ch->res->counters_note, "%s", why);
        return;
    }
    double v[BL_NMETRICS];
    if (bl_counters_measure(c, counters_launch, ch, v, why, sizeof why) == 0) {
        struct gpu_kernel_counters *k = &ch->res->counters;
        ch->res->has_counters = 1;
        k->wavefronts_ld = v[BL_WAVEFRONTS_LD];
        k->wavefronts_st = v[BL_WAVEFRONTS_ST];
        k->conflicts_ld = v[BL_CONFLICTS_LD];
        k->conflicts_st = v[BL_CONFLICTS_ST];
        k->inst_ld = v[BL_INST_LD];
        k->inst_st = v[BL_INST_ST];
    } else if (ch->res->status == GPU_KERNEL_OK) {
        line(ch->res->counters_note, sizeof ch->res->counters_note, "%s", why);
    }
    bl_counters_close(c);
    ch->res->timing.counters = now_ms() - t0;
}

void kernel_child_measure(const struct gpu_kernel_request *req, const char *src, size_t len,
                          struct gpu_kernel_result *res, int fd)
{
    struct child *ch = calloc(1, sizeof *ch);
    if (!ch) {
        kres_fail(res, GPU_KERNEL_ESYSTEM, "out of memory");
        return;
    }
    const char *dbgpath = getenv("BANKLAB_KERNEL_DEBUG");
    if (dbgpath && *dbgpath)
        g_dbg = fopen(dbgpath, "a");
    ch->req = req;
    ch->src = src;
    ch->len = len;
    ch->res = res;
    ch->fd = fd;
    memcpy(res->grid, req->grid, sizeof res->grid);
    memcpy(res->block, req->block, sizeof res->block);
    res->smem = req->smem;
    if (!realpath(req->path, ch->realpath))
        snprintf(ch->realpath, sizeof ch->realpath, "%s", req->path);
    snprintf(ch->dir, sizeof ch->dir, "%s", ch->realpath);
    char *slash = strrchr(ch->dir, '/');
    if (slash && slash != ch->dir)
        *slash = '\0';
    else
        snprintf(ch->dir, sizeof ch->dir, "%s", slash ? "/" : ".");

    set_phase(ch, GPU_KPHASE_DEVICE);
    double t0 = now_ms();
    open_device(ch);
    res->timing.init = now_ms() - t0;
    dbg("device: %s %s\n", ch->have_gpu ? res->device : "none", ch->nogpu);

    set_phase(ch, GPU_KPHASE_COMPILE);
    choose_kernel(ch);
    if (compile(ch, ch->have_gpu ? ch->sm : DEFAULT_ARCH) || take_log(ch))
        goto out;
    if (ch->name_error[0]) {
        kres_fail(res, GPU_KERNEL_EINPUT, "%s", ch->name_error);
        goto out;
    }
    snprintf(res->lowered, sizeof res->lowered, "%s", ch->comp.lowered);
    if (g_dbg) { /* the cubin beside the debug log, for nvdisasm */
        char cub[PATH_MAX];
        snprintf(cub, sizeof cub, "%s.%.64s.cubin", dbgpath, ch->comp.lowered);
        FILE *f = fopen(cub, "wb");
        if (f) {
            fwrite(ch->comp.cubin, 1, ch->comp.cubin_size, f);
            fclose(f);
        }
    }
    if (bind_params(ch))
        goto out;
    if (!ch->have_gpu) {
        kres_fail(res, GPU_KERNEL_ENOGPU, "%s compiles (for sm_%d); measuring it needs a GPU: %s",
                  req->path, DEFAULT_ARCH, ch->nogpu);
        goto out;
    }
    set_phase(ch, GPU_KPHASE_SETUP);
    if (setup_launch(ch))
        goto out;
    if (req->launch_only) {
        t0 = now_ms();
        if (run_once(ch) == 0)
            res->timing.run = now_ms() - t0;
        goto out;
    }
    if (measure_sass(ch))
        goto out;
    if (req->counters)
        measure_counters(ch);
out:
    res->phase = res->status == GPU_KERNEL_OK ? GPU_KPHASE_DONE : ch->phase;
    compiled_done(&ch->comp);
    free(ch->fill);
    free(ch);
    if (g_dbg)
        fclose(g_dbg);
    g_dbg = NULL;
}
