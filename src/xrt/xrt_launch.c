/* xrt_launch.c: the registration a program makes before main (its fat binary, each kernel's
 * host stub and device name, each __device__/__constant__ variable), `<<<>>>` (the call
 * configuration pushed and popped around the stub) and every launch: checked as the real
 * runtime checks it, then run on the CPU by the PTX executor (src/ptx/ptx.h) with the
 * program's own arguments, its shared-memory accesses summed by xrt_out.c (xrt.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/buf.h"
#include "xrt.h"
#include "../sys/sys.h"

/* The executor's storage of a module-scope variable, when the executor offers it (an optional
 * entry point: without it the symbol calls end the program with the unsupported line). */
extern void *ptx_var_addr(const struct ptx_module *m, const char *name, size_t *size)
    __attribute__((weak));

struct xrt_var {
    const void *host;        /* the host shadow's address (the symbol the program passes) */
    char name[512];
    size_t size;
};

static struct xrt_func **funcs;   /* each its own block: a kernel handle stays valid */
static size_t nfunc, capfunc;
static struct xrt_var *vars;
static size_t nvar, capvar;
static struct ptx_module *module;
static void *handle_slot[1];

/* ---- the module: the PTX banklab made of the same source ---- */

/* the file at path, NUL-terminated, at most 64 MiB; NULL when it cannot be read whole */
static char *read_all(const char *path, size_t *n)
{
    struct bl_buf b = BL_BUF_MAX(64u << 20);
    if (bl_buf_read_file(&b, path)) {
        bl_buf_release(&b);
        return NULL;
    }
    return bl_buf_detach(&b, n);
}

static struct ptx_module *the_module(void)
{
    if (module)
        return module;
    const char *path = sys_env("BANKLAB_XRT_PTX");
    if (!path || !*path)
        xrt_fatal(XRT_EXIT_SETUP, "BANKLAB_XRT_PTX names no PTX file: run the program through "
                  "banklab kernel FILE.cu --model");
    size_t n = 0;
    char *text = read_all(path, &n);
    if (!text)
        xrt_fatal(XRT_EXIT_SETUP, "cannot read the PTX file %s", path);
    struct bl_err err = {0};
    module = ptx_module_parse(text, n, &err);
    free(text);
    if (!module)
        xrt_fatal(XRT_EXIT_SETUP, "the PTX executor refuses %s: %s", path, err.msg);
    return module;
}

/* ---- registration ---- */

XRT_API void **__cudaRegisterFatBinary(void *fatCubin)
{
    return handle_slot;
}

XRT_API void __cudaRegisterFatBinaryEnd(void **handle)
{
}

XRT_API void __cudaUnregisterFatBinary(void **handle)
{
}

XRT_API char __cudaInitModule(void **handle)
{
    return 1;
}

XRT_API void __cudaRegisterFunction(void **handle, const char *hostFun, char *deviceFun,
                                    const char *deviceName, int thread_limit, uint3 *tid,
                                    uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize)
{
    pthread_mutex_lock(&xrt_lock);
    if (nfunc == capfunc) {
        size_t cap = capfunc ? capfunc * 2 : 32;
        struct xrt_func **nf = realloc(funcs, cap * sizeof *nf);
        if (!nf)
            xrt_fatal(XRT_EXIT_SETUP, "out of memory registering kernels");
        funcs = nf;
        capfunc = cap;
    }
    struct xrt_func *f = calloc(1, sizeof *f);
    if (!f)
        xrt_fatal(XRT_EXIT_SETUP, "out of memory registering kernels");
    funcs[nfunc++] = f;
    f->stub = hostFun;
    snprintf(f->name, sizeof f->name, "%s", deviceFun ? deviceFun : deviceName ? deviceName : "?");
    f->k = -2;   /* not looked up yet */
    f->max_dyn = -1;   /* the default: 48 KB less the static shared memory */
    pthread_mutex_unlock(&xrt_lock);
}

XRT_API void __cudaRegisterVar(void **handle, char *hostVar, char *deviceAddress,
                               const char *deviceName, int ext, size_t size, int constant,
                               int global)
{
    pthread_mutex_lock(&xrt_lock);
    if (nvar == capvar) {
        size_t cap = capvar ? capvar * 2 : 32;
        struct xrt_var *nv = realloc(vars, cap * sizeof *nv);
        if (!nv)
            xrt_fatal(XRT_EXIT_SETUP, "out of memory registering variables");
        vars = nv;
        capvar = cap;
    }
    struct xrt_var *v = &vars[nvar++];
    v->host = hostVar;
    snprintf(v->name, sizeof v->name, "%s", deviceAddress ? deviceAddress : deviceName ? deviceName : "?");
    v->size = size;
    pthread_mutex_unlock(&xrt_lock);
}

XRT_API void __cudaRegisterManagedVar(void **handle, void **hostVarPtrAddress, char *deviceAddress,
                                      const char *deviceName, int ext, size_t size, int constant,
                                      int global)
{
    xrt_unsupported("__managed__ variables (__cudaRegisterManagedVar)");
}

static struct xrt_func *xrt_func_of(const void *stub)
{
    for (size_t i = 0; i < nfunc; i++)
        if (funcs[i]->stub == stub || (const void *)funcs[i] == stub)
            return funcs[i];
    return NULL;
}

/* under the lock: f's kernel in the module (the program ends when the PTX has none) */
static int kernel_of(struct xrt_func *f)
{
    struct ptx_module *m = the_module();
    if (f->k == -2)
        f->k = ptx_kernel_find(m, f->name);
    if (f->k < 0)
        xrt_fatal(XRT_EXIT_SETUP, "kernel %s is not in the PTX made of this source", f->name);
    return f->k;
}

static size_t static_smem(struct xrt_func *f)
{
    return ptx_kernel_static_smem(the_module(), kernel_of(f));
}

/* cudaFuncAttributeMaxDynamicSharedMemorySize as it stands */
static size_t max_dyn(struct xrt_func *f)
{
    size_t st = static_smem(f);
    if (f->max_dyn >= 0)
        return (size_t)f->max_dyn;
    return st < XRT_SMEM_DEFAULT ? XRT_SMEM_DEFAULT - st : 0;
}

/* ---- <<<>>> ---- */

struct config {
    dim3 grid, block;
    size_t smem;
    void *stream;
};
static _Thread_local struct config configs[16];
static _Thread_local int nconfig;

XRT_API unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                             struct CUstream_st *stream)
{
    if (nconfig == 16)
        xrt_fatal(XRT_EXIT_SETUP, "launches nested more than 16 deep");
    configs[nconfig++] = (struct config){gridDim, blockDim, sharedMem, stream};
    return 0;
}

XRT_API cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
                                               void *stream)
{
    if (nconfig == 0)
        return cudaErrorInvalidConfiguration;
    struct config c = configs[--nconfig];
    *gridDim = c.grid;
    *blockDim = c.block;
    *sharedMem = c.smem;
    *(void **)stream = c.stream;
    return cudaSuccess;
}

/* ---- launching ---- */

static int config_ok(dim3 g, dim3 b)
{
    unsigned long long threads = (unsigned long long)b.x * b.y * b.z;
    return g.x && g.y && g.z && b.x && b.y && b.z && g.x <= 2147483647u && g.y <= 65535 &&
           g.z <= 65535 && b.x <= 1024 && b.y <= 1024 && b.z <= 64 && threads <= 1024;
}

/* under the lock: the checks, the run, the record; the launch's status */
static cudaError_t launch(struct xrt_func *f, dim3 g, dim3 b, void **args, size_t smem)
{
    unsigned grid[3] = {g.x, g.y, g.z}, block[3] = {b.x, b.y, b.z};
    if (xrt_sticky)
        return xrt_sticky;
    if (!f)
        return cudaErrorInvalidDeviceFunction;
    cudaError_t st = cudaSuccess;
    struct ptx_module *m = the_module();
    int k = kernel_of(f);
    if (!config_ok(g, b))
        st = cudaErrorInvalidConfiguration;
    else if (smem > max_dyn(f))
        st = cudaErrorInvalidValue;
    if (st) {
        xrt_out_launch(f, grid, block, smem, st, NULL, 0);
        return st;
    }
    struct ptx_launch l;
    memset(&l, 0, sizeof l);
    memcpy(l.grid, grid, sizeof grid);
    memcpy(l.block, block, sizeof block);
    l.dyn_smem = smem;
    l.args = args;
    l.max_blocks = (uint64_t)g.x * g.y * g.z;   /* every block: the program needs its results */
    l.sink = xrt_out_sink;
    l.global_ok = xrt_global_ok;
    uint64_t steps = 0;
    l.lane_steps = &steps;
    struct bl_err err = {0};
    if (xrt_out_begin(m, k))
        xrt_fatal(XRT_EXIT_SETUP, "out of memory for the launch of %s", f->name);
    xrt_bad_global = 0;
    if (ptx_run(m, k, &l, &err)) {
        st = xrt_bad_global ? cudaErrorIllegalAddress : cudaErrorLaunchFailure;
        xrt_sticky = st;
    }
    xrt_out_launch(f, grid, block, smem, st, st ? err.msg : NULL, steps);
    return cudaSuccess;   /* a kernel's fault shows at the next call, as on a GPU */
}

static cudaError_t launch_locked(struct xrt_func *f, const void *stub, dim3 g, dim3 b, void **args,
                                 size_t smem)
{
    pthread_mutex_lock(&xrt_lock);
    if (!f)
        f = xrt_func_of(stub);
    cudaError_t e = launch(f, g, b, args, smem);
    cudaError_t sticky = xrt_sticky;
    pthread_mutex_unlock(&xrt_lock);
    xrt_set(sticky ? sticky : e);
    return e;
}

XRT_API cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *fun)
{
    pthread_mutex_lock(&xrt_lock);
    struct xrt_func *f = xrt_func_of(fun);
    pthread_mutex_unlock(&xrt_lock);
    if (!kernel || !f)
        return cudaErrorInvalidDeviceFunction;
    *kernel = (cudaKernel_t)(void *)f;
    return cudaSuccess;
}

XRT_API cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                       void **args, size_t sharedMem, cudaStream_t stream)
{
    return launch_locked(NULL, (const void *)kernel, gridDim, blockDim, args, sharedMem);
}

XRT_API cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                            void **args, size_t sharedMem, cudaStream_t stream)
{
    return launch_locked(NULL, (const void *)kernel, gridDim, blockDim, args, sharedMem);
}

XRT_API cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                     size_t sharedMem, cudaStream_t stream)
{
    return launch_locked(NULL, func, gridDim, blockDim, args, sharedMem);
}

XRT_API cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func,
                                        void **args)
{
    if (!config)
        return xrt_set(cudaErrorInvalidValue);
    for (unsigned i = 0; i < config->numAttrs; i++)
        if (config->attrs[i].id == cudaLaunchAttributeClusterDimension &&
            config->attrs[i].val.clusterDim.x * config->attrs[i].val.clusterDim.y *
            config->attrs[i].val.clusterDim.z > 1)
            xrt_unsupported("cudaLaunchKernelExC with a cluster dimension");
    return launch_locked(NULL, func, config->gridDim, config->blockDim, args,
                         config->dynamicSmemBytes);
}

/* ---- a kernel's attributes ---- */

XRT_API cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value)
{
    pthread_mutex_lock(&xrt_lock);
    struct xrt_func *f = xrt_func_of(func);
    cudaError_t e = cudaSuccess;
    if (!f)
        e = cudaErrorInvalidDeviceFunction;
    else if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
        if (value < 0 || (size_t)value + static_smem(f) > XRT_SMEM_OPTIN)
            e = cudaErrorInvalidValue;
        else
            f->max_dyn = value;
    } else if (attr == cudaFuncAttributePreferredSharedMemoryCarveout) {
        if (value < -1 || value > 100)
            e = cudaErrorInvalidValue;
    } else if (attr >= cudaFuncAttributeMax) {
        e = cudaErrorInvalidValue;
    }
    pthread_mutex_unlock(&xrt_lock);
    return xrt_set(e ? e : xrt_sticky);
}

XRT_API cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache cacheConfig)
{
    pthread_mutex_lock(&xrt_lock);
    struct xrt_func *f = xrt_func_of(func);
    pthread_mutex_unlock(&xrt_lock);
    return xrt_set(f ? xrt_sticky : cudaErrorInvalidDeviceFunction);
}

XRT_API cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
    pthread_mutex_lock(&xrt_lock);
    struct xrt_func *f = xrt_func_of(func);
    size_t dyn = f ? max_dyn(f) : 0, st = f ? static_smem(f) : 0;
    pthread_mutex_unlock(&xrt_lock);
    if (!f)
        return xrt_set(cudaErrorInvalidDeviceFunction);
    if (!attr)
        return xrt_set(cudaErrorInvalidValue);
    /* what the PTX does not say (registers, local and constant sizes) is reported as 0 */
    memset(attr, 0, sizeof *attr);
    attr->sharedSizeBytes = st;
    attr->maxThreadsPerBlock = 1024;
    attr->ptxVersion = 90;
    attr->binaryVersion = 90;
    attr->maxDynamicSharedSizeBytes = (int)dyn;
    attr->preferredShmemCarveout = -1;
    return xrt_sticky;
}

/* blocks of `threads` threads and `smem` dynamic bytes that fit on one SM of an H100 */
static int blocks_per_sm(int threads, size_t smem)
{
    if (threads <= 0 || threads > 1024)
        return 0;
    int warps = (threads + 31) / 32;
    int by_threads = 64 / warps;
    size_t per = smem + 1024;   /* each block reserves 1 KB */
    int by_smem = (int)((228u * 1024u) / per);
    int n = by_threads < by_smem ? by_threads : by_smem;
    return n < 32 ? n : 32;
}

XRT_API cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func,
                                                                  int blockSize,
                                                                  size_t dynamicSMemSize)
{
    pthread_mutex_lock(&xrt_lock);
    struct xrt_func *f = xrt_func_of(func);
    size_t st = f ? static_smem(f) : 0;
    pthread_mutex_unlock(&xrt_lock);
    if (!f)
        return xrt_set(cudaErrorInvalidDeviceFunction);
    if (!numBlocks)
        return xrt_set(cudaErrorInvalidValue);
    *numBlocks = blocks_per_sm(blockSize, st + dynamicSMemSize);
    return xrt_sticky;
}

XRT_API cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize, unsigned int flags)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, func, blockSize,
                                                         dynamicSMemSize);
}

/* ---- __device__ and __constant__ variables ---- */

static struct xrt_var *var_of(const void *symbol)
{
    for (size_t i = 0; i < nvar; i++)
        if (vars[i].host == symbol)
            return &vars[i];
    return NULL;
}

/* the executor's storage of symbol's variable: its address, NULL with *e when none */
static char *var_storage(const void *symbol, size_t offset, size_t count, cudaError_t *e,
                         const char *call)
{
    struct xrt_var *v = var_of(symbol);
    if (!v) {
        *e = cudaErrorInvalidSymbol;
        return NULL;
    }
    if (!ptx_var_addr)
        xrt_unsupported(call);
    size_t size = 0;
    char *p = ptx_var_addr(the_module(), v->name, &size);
    if (!p) {
        *e = cudaErrorInvalidSymbol;
        return NULL;
    }
    if (offset > size || count > size - offset) {
        *e = cudaErrorInvalidValue;
        return NULL;
    }
    return p + offset;
}

/* count bytes between a __device__ variable (at offset) and the host: from src into it, or
 * (src NULL) from it into dst */
static cudaError_t symbol_copy(const void *symbol, const void *src, void *dst, size_t count,
                               size_t offset, const char *call)
{
    cudaError_t e = cudaSuccess;
    pthread_mutex_lock(&xrt_lock);
    char *p = xrt_sticky ? NULL : var_storage(symbol, offset, count, &e, call);
    if (p && src)
        memcpy(p, src, count);
    else if (p)
        memcpy(dst, p, count);
    pthread_mutex_unlock(&xrt_lock);
    return xrt_set(xrt_sticky ? xrt_sticky : e);
}

XRT_API cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count,
                                       size_t offset, enum cudaMemcpyKind kind)
{
    return symbol_copy(symbol, src, NULL, count, offset, "cudaMemcpyToSymbol");
}

XRT_API cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count,
                                            size_t offset, enum cudaMemcpyKind kind,
                                            cudaStream_t stream)
{
    return symbol_copy(symbol, src, NULL, count, offset, "cudaMemcpyToSymbolAsync");
}

XRT_API cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count,
                                         size_t offset, enum cudaMemcpyKind kind)
{
    return symbol_copy(symbol, NULL, dst, count, offset, "cudaMemcpyFromSymbol");
}

XRT_API cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count,
                                              size_t offset, enum cudaMemcpyKind kind,
                                              cudaStream_t stream)
{
    return symbol_copy(symbol, NULL, dst, count, offset, "cudaMemcpyFromSymbolAsync");
}

XRT_API cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol)
{
    pthread_mutex_lock(&xrt_lock);
    struct xrt_var *v = var_of(symbol);
    size_t n = v ? v->size : 0;
    pthread_mutex_unlock(&xrt_lock);
    if (!v)
        return xrt_set(cudaErrorInvalidSymbol);
    if (size)
        *size = n;
    return xrt_sticky;
}

XRT_API cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol)
{
    cudaError_t e = cudaSuccess;
    pthread_mutex_lock(&xrt_lock);
    char *p = var_storage(symbol, 0, 0, &e, "cudaGetSymbolAddress");
    pthread_mutex_unlock(&xrt_lock);
    if (devPtr)
        *devPtr = p;
    return xrt_set(e);
}
