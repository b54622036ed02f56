/* xrt_api.c: the device, errors, streams, events and versions of banklab's CUDA runtime
 * (xrt.h): one device, an sm_90 H100 as cudaGetDeviceProperties reports it; every stream and
 * event synchronous (work is done when its call returns; an event records the host clock);
 * the last error per thread and the sticky error of a failed kernel as the real runtime
 * keeps them, with its names and strings for the codes this runtime returns. */
#include <stdlib.h>
#include <string.h>

#include "../base/err.h"
#include "xrt.h"

pthread_mutex_t xrt_lock = PTHREAD_MUTEX_INITIALIZER;
cudaError_t xrt_sticky;
static _Thread_local cudaError_t last_error;
static _Thread_local int cur_device;

cudaError_t xrt_set(cudaError_t err)
{
    if (err != cudaSuccess)
        last_error = err;
    return err;
}

/* ---- errors ---- */

static const struct {
    int code;
    const char *name, *text;
} errors[] = {
#define E(code, name, text) {code, name, text},
#include "xrt_errors.def"
#undef E
};

XRT_API const char *cudaGetErrorString(cudaError_t error)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].code == (int)error)
            return errors[i].text;
    return "unrecognized error code";
}

XRT_API const char *cudaGetErrorName(cudaError_t error)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].code == (int)error)
            return errors[i].name;
    return "unrecognized error code";
}

XRT_API cudaError_t cudaGetLastError(void)
{
    cudaError_t e = last_error;
    last_error = xrt_sticky;   /* a sticky error stays */
    return e;
}

XRT_API cudaError_t cudaPeekAtLastError(void)
{
    return last_error;
}

/* ---- the device ---- */

XRT_API cudaError_t cudaGetDeviceCount(int *count)
{
    if (!count)
        return xrt_set(cudaErrorInvalidValue);
    *count = 1;
    return cudaSuccess;
}

XRT_API cudaError_t cudaSetDevice(int device)
{
    if (device != 0)
        return xrt_set(cudaErrorInvalidDevice);
    cur_device = device;
    return xrt_sticky;
}

XRT_API cudaError_t cudaGetDevice(int *device)
{
    if (!device)
        return xrt_set(cudaErrorInvalidValue);
    *device = cur_device;
    return cudaSuccess;
}

XRT_API cudaError_t cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags)
{
    return xrt_set(device != 0 ? cudaErrorInvalidDevice : xrt_sticky);
}

XRT_API cudaError_t cudaSetDeviceFlags(unsigned int flags)
{
    return xrt_sticky;
}

XRT_API cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int device)
{
    if (!p)
        return xrt_set(cudaErrorInvalidValue);
    if (device != 0)
        return xrt_set(cudaErrorInvalidDevice);
    memset(p, 0, sizeof *p);
    strcpy(p->name, "NVIDIA H100 80GB HBM3 (banklab's CUDA runtime, no GPU)");
    p->totalGlobalMem = 85045379072ull;
    p->sharedMemPerBlock = XRT_SMEM_DEFAULT;
    p->regsPerBlock = 65536;
    p->warpSize = 32;
    p->memPitch = 2147483647;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = 1024, p->maxThreadsDim[1] = 1024, p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = 2147483647, p->maxGridSize[1] = 65535, p->maxGridSize[2] = 65535;
    p->totalConstMem = 65536;
    p->major = 9;
    p->minor = 0;
    p->textureAlignment = 512;
    p->texturePitchAlignment = 32;
    p->multiProcessorCount = 132;
    p->canMapHostMemory = 1;
    p->concurrentKernels = 1;
    p->ECCEnabled = 1;
    p->asyncEngineCount = 3;
    p->unifiedAddressing = 1;
    p->memoryBusWidth = 5120;
    p->l2CacheSize = 52428800;
    p->persistingL2CacheMaxSize = 32505856;
    p->maxThreadsPerMultiProcessor = 2048;
    p->streamPrioritiesSupported = 1;
    p->globalL1CacheSupported = 1;
    p->localL1CacheSupported = 1;
    p->sharedMemPerMultiprocessor = 228u * 1024u;
    p->regsPerMultiprocessor = 65536;
    p->managedMemory = 1;
    p->concurrentManagedAccess = 1;
    p->computePreemptionSupported = 1;
    p->cooperativeLaunch = 1;
    p->sharedMemPerBlockOptin = XRT_SMEM_OPTIN;
    p->maxBlocksPerMultiProcessor = 32;
    p->accessPolicyMaxWindowSize = 134213632;
    p->reservedSharedMemPerBlock = 1024;
    p->memoryPoolsSupported = 1;
    p->clusterLaunch = 1;
    return xrt_sticky;
}

XRT_API cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    static struct cudaDeviceProp p;
    if (!value)
        return xrt_set(cudaErrorInvalidValue);
    if (device != 0)
        return xrt_set(cudaErrorInvalidDevice);
    cudaGetDeviceProperties(&p, 0);
    switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
    case cudaDevAttrMaxBlockDimY: *value = p.maxThreadsDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: *value = p.maxThreadsDim[2]; break;
    case cudaDevAttrMaxGridDimX: *value = p.maxGridSize[0]; break;
    case cudaDevAttrMaxGridDimY: *value = p.maxGridSize[1]; break;
    case cudaDevAttrMaxGridDimZ: *value = p.maxGridSize[2]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = (int)p.sharedMemPerBlock; break;
    case cudaDevAttrTotalConstantMemory: *value = (int)p.totalConstMem; break;
    case cudaDevAttrWarpSize: *value = p.warpSize; break;
    case cudaDevAttrMaxRegistersPerBlock: *value = p.regsPerBlock; break;
    case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
    case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = (int)p.sharedMemPerMultiprocessor; break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: *value = p.regsPerMultiprocessor; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = (int)p.sharedMemPerBlockOptin; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *value = p.maxBlocksPerMultiProcessor; break;
    case cudaDevAttrL2CacheSize: *value = p.l2CacheSize; break;
    case cudaDevAttrGlobalMemoryBusWidth: *value = p.memoryBusWidth; break;
    case cudaDevAttrUnifiedAddressing: *value = 1; break;
    case cudaDevAttrManagedMemory: *value = 1; break;
    case cudaDevAttrConcurrentKernels: *value = 1; break;
    case cudaDevAttrCooperativeLaunch: *value = 1; break;
    case cudaDevAttrReservedSharedMemoryPerBlock: *value = (int)p.reservedSharedMemPerBlock; break;
    case cudaDevAttrAsyncEngineCount: *value = p.asyncEngineCount; break;
    case cudaDevAttrEccEnabled: *value = 1; break;
    case cudaDevAttrIntegrated: *value = 0; break;
    case cudaDevAttrCanMapHostMemory: *value = 1; break;
    default:
        return xrt_set(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

XRT_API cudaError_t cudaDeviceSynchronize(void)
{
    return xrt_set(xrt_sticky);
}

XRT_API cudaError_t cudaDeviceReset(void)
{
    pthread_mutex_lock(&xrt_lock);
    xrt_sticky = cudaSuccess;   /* a new context: the sticky error is gone (allocations stay) */
    pthread_mutex_unlock(&xrt_lock);
    last_error = cudaSuccess;
    return cudaSuccess;
}

XRT_API cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value)
{
    return xrt_sticky;
}

XRT_API cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig)
{
    return xrt_sticky;
}

XRT_API cudaError_t cudaRuntimeGetVersion(int *v)
{
    if (!v)
        return xrt_set(cudaErrorInvalidValue);
    *v = CUDART_VERSION;
    return cudaSuccess;
}

XRT_API cudaError_t cudaDriverGetVersion(int *v)
{
    if (!v)
        return xrt_set(cudaErrorInvalidValue);
    *v = CUDART_VERSION;
    return cudaSuccess;
}

/* ---- streams and events: synchronous ---- */

struct xrt_event {
    double ms;      /* the host clock when recorded, < 0 never recorded */
};

static cudaError_t stream_new(cudaStream_t *s)
{
    if (!s)
        return xrt_set(cudaErrorInvalidValue);
    *s = (cudaStream_t)malloc(16);   /* a distinct handle; nothing runs on it later */
    return *s ? xrt_sticky : xrt_set(cudaErrorMemoryAllocation);
}

XRT_API cudaError_t cudaStreamCreate(cudaStream_t *s)
{
    return stream_new(s);
}

XRT_API cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int flags)
{
    return stream_new(s);
}

XRT_API cudaError_t cudaStreamCreateWithPriority(cudaStream_t *s, unsigned int flags, int priority)
{
    return stream_new(s);
}

XRT_API cudaError_t cudaStreamDestroy(cudaStream_t s)
{
    if ((uintptr_t)s > 2)
        free(s);
    return xrt_sticky;
}

XRT_API cudaError_t cudaStreamSynchronize(cudaStream_t s)
{
    return xrt_set(xrt_sticky);
}

XRT_API cudaError_t cudaStreamQuery(cudaStream_t s)
{
    return xrt_sticky;
}

XRT_API cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned int flags)
{
    return xrt_sticky;
}

static cudaError_t event_new(cudaEvent_t *e)
{
    if (!e)
        return xrt_set(cudaErrorInvalidValue);
    struct xrt_event *ev = malloc(sizeof *ev);
    if (!ev)
        return xrt_set(cudaErrorMemoryAllocation);
    ev->ms = -1;
    *e = (cudaEvent_t)(void *)ev;
    return xrt_sticky;
}

XRT_API cudaError_t cudaEventCreate(cudaEvent_t *e)
{
    return event_new(e);
}

XRT_API cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned int flags)
{
    return event_new(e);
}

XRT_API cudaError_t cudaEventDestroy(cudaEvent_t e)
{
    if (!e)
        return xrt_set(cudaErrorInvalidResourceHandle);
    free((void *)e);
    return xrt_sticky;
}

XRT_API cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s)
{
    if (!e)
        return xrt_set(cudaErrorInvalidResourceHandle);
    ((struct xrt_event *)(void *)e)->ms = bl_now_ms();
    return xrt_sticky;
}

XRT_API cudaError_t cudaEventSynchronize(cudaEvent_t e)
{
    if (!e)
        return xrt_set(cudaErrorInvalidResourceHandle);
    return xrt_set(xrt_sticky);
}

XRT_API cudaError_t cudaEventQuery(cudaEvent_t e)
{
    if (!e)
        return xrt_set(cudaErrorInvalidResourceHandle);
    return xrt_sticky;
}

XRT_API cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    if (!ms || !start || !end)
        return xrt_set(!ms ? cudaErrorInvalidValue : cudaErrorInvalidResourceHandle);
    const struct xrt_event *a = (const void *)start, *b = (const void *)end;
    if (a->ms < 0 || b->ms < 0)
        return xrt_set(cudaErrorInvalidResourceHandle);
    *ms = (float)(b->ms - a->ms);
    return xrt_sticky;
}

/* the profiler's range: nothing to profile here */
XRT_API cudaError_t cudaProfilerStart(void)
{
    return xrt_sticky;
}

XRT_API cudaError_t cudaProfilerStop(void)
{
    return xrt_sticky;
}
