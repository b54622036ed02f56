/* run_mock.c: banklab run's injection library driven without a GPU, for tests/sh/run.sh.
 * Built twice: with -DMOCK_LIB as a stand-in libcuda.so.1 + libcupti (the calls the library
 * makes: a context, a device, SASS metrics that report fixed figures per pc, a correlation
 * that puts pc P on line P / 16 of /mock/ldm.cu, and cuptiSubscribe keeping the callback),
 * and as a program that loads the library named by CUDA_INJECTION64_PATH, calls
 * InitializeInjection as the driver does and then plays what CUPTI would report: a module
 * load (a shipped H200 cubin), and three launches of its kernel, each a runtime call with the
 * driver's call inside, then one launch of a second kernel through the driver alone. What
 * the library measures is what banklab run prints. Needs the CUDA headers, no driver. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cupti_callbacks.h>
#include <cupti_driver_cbid.h>
#include <cupti_pcsampling.h>
#include <cupti_profiler_target.h>
#include <cupti_runtime_cbid.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

#ifdef MOCK_LIB
/* ---- the stand-in driver and CUPTI ---- */
static CUpti_CallbackFunc saved_cb;
static int enabled, configured, ncfg;
static CUpti_SassMetrics_Config cfg[16];
static const char *current = "_Z13ldmatrix_tilePfi";

CUresult cuCtxSynchronize(void) { return CUDA_SUCCESS; }
CUresult cuCtxGetCurrent(CUcontext *c) { *c = (CUcontext)0x1; return CUDA_SUCCESS; }
CUresult cuCtxGetDevice(CUdevice *d) { *d = 0; return CUDA_SUCCESS; }
CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d)
{
    (void)d;
    *v = a == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ? 9 : 0;
    return CUDA_SUCCESS;
}
CUresult cuDeviceGetName(char *n, int len, CUdevice d) { (void)d; snprintf(n, (size_t)len, "Mock H200"); return CUDA_SUCCESS; }
/* the device's turns are named by it: GPU-00010203-0405-0607-0809-0a0b0c0d0e0f */
CUresult cuDeviceGetUuid_v2(CUuuid *u, CUdevice d)
{
    (void)d;
    for (int i = 0; i < 16; i++)
        u->bytes[i] = (char)i;
    return CUDA_SUCCESS;
}
CUresult cuFuncGetAttribute(int *v, CUfunction_attribute a, CUfunction f) { (void)a; (void)f; *v = 7; return CUDA_SUCCESS; }
CUresult cuGetErrorName(CUresult r, const char **s) { (void)r; *s = "CUDA_ERROR_MOCK"; return CUDA_SUCCESS; }
CUptiResult cuptiGetResultString(CUptiResult r, const char **s) { (void)r; *s = "mock"; return CUPTI_SUCCESS; }
CUptiResult cuptiProfilerInitialize(CUpti_Profiler_Initialize_Params *p) { (void)p; return CUPTI_SUCCESS; }
CUptiResult cuptiProfilerDeInitialize(CUpti_Profiler_DeInitialize_Params *p) { (void)p; return CUPTI_SUCCESS; }
CUptiResult cuptiDeviceGetChipName(CUpti_Device_GetChipName_Params *p) { p->pChipName = "GH100"; return CUPTI_SUCCESS; }
CUptiResult cuptiSassMetricsGetNumOfMetrics(CUpti_SassMetrics_GetNumOfMetrics_Params *p) { p->numOfMetrics = 0; return CUPTI_SUCCESS; }
CUptiResult cuptiSassMetricsGetMetrics(CUpti_SassMetrics_GetMetrics_Params *p) { (void)p; return CUPTI_SUCCESS; }
static const char *names[64];
static int nnames;
CUptiResult cuptiSassMetricsGetProperties(CUpti_SassMetrics_GetProperties_Params *p)
{
    int i;
    for (i = 0; i < nnames && strcmp(names[i], p->pMetricName); i++)
        ;
    if (i == nnames && nnames < 64)
        names[nnames++] = strdup(p->pMetricName);
    p->metric.metricId = 1000 + (uint64_t)i;
    return CUPTI_SUCCESS;
}
static int is(uint64_t id, const char *name)
{
    return id >= 1000 && id - 1000 < (uint64_t)nnames && !strcmp(names[id - 1000], name);
}
CUptiResult cuptiSassMetricsSetConfig(CUpti_SassMetricsSetConfig_Params *p)
{
    if (configured++)
        return CUPTI_ERROR_OUT_OF_MEMORY; /* CUPTI 13: once per process */
    ncfg = (int)p->numOfMetricConfig;
    memcpy(cfg, p->pConfigs, (size_t)ncfg * sizeof cfg[0]);
    return CUPTI_SUCCESS;
}
CUptiResult cuptiSassMetricsUnsetConfig(CUpti_SassMetricsUnsetConfig_Params *p) { (void)p; return CUPTI_SUCCESS; }
CUptiResult cuptiSassMetricsEnable(CUpti_SassMetricsEnable_Params *p)
{
    (void)p;
    return enabled++ ? CUPTI_ERROR_INVALID_OPERATION : CUPTI_SUCCESS;
}
CUptiResult cuptiSassMetricsDisable(CUpti_SassMetricsDisable_Params *p) { (void)p; enabled = 0; return CUPTI_SUCCESS; }
CUptiResult cuptiSassMetricsGetDataProperties(CUpti_SassMetricsGetDataProperties_Params *p)
{
    if (!enabled)
        return CUPTI_ERROR_INVALID_OPERATION;
    p->numOfPatchedInstructionRecords = 2;
    p->numOfInstances = (size_t)ncfg;
    return CUPTI_SUCCESS;
}
/* the LDSM at 0x1e0 (4 matrices: 32 wavefronts for 4 ideal), the LDS.U16 at 0x290 */
CUptiResult cuptiSassMetricsFlushData(CUpti_SassMetricsFlushData_Params *p)
{
    static const uint32_t pcs[2] = {0x1e0, 0x290};
    for (size_t r = 0; r < p->numOfPatchedInstructionRecords; r++) {
        CUpti_SassMetrics_Data *d = &p->pMetricsData[r];
        d->functionName = strdup(current);
        d->pcOffset = pcs[r];
        for (size_t k = 0; k < p->numOfInstances; k++) {
            uint64_t id = cfg[k].metricId, v = 0;
            if (is(id, "smsp__sass_inst_executed_op_ldsm") && r == 0)
                v = 1;
            if (is(id, "smsp__sass_inst_executed_op_shared_ld") && r == 1)
                v = 1;
            if (is(id, "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared"))
                v = r == 0 ? 32 : 1;
            if (is(id, "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal"))
                v = r == 0 ? 4 : 1;
            d->pInstanceValues[k].metricId = cfg[k].metricId;
            d->pInstanceValues[k].value = v;
        }
    }
    return CUPTI_SUCCESS;
}
CUptiResult cuptiGetSassToSourceCorrelation(CUpti_GetSassToSourceCorrelationParams *p)
{
    p->lineNumber = (uint32_t)(p->pcOffset / 16);
    p->fileName = strdup("ldm.cu");
    p->dirName = strdup("/mock");
    return CUPTI_SUCCESS;
}
CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *s, CUpti_CallbackFunc cb, void *ud)
{
    (void)ud;
    *s = (CUpti_SubscriberHandle)0x1;
    saved_cb = cb;
    return getenv("MOCK_OTHER_SUBSCRIBER") ? CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
                                           : CUPTI_SUCCESS;
}
CUptiResult cuptiEnableCallback(uint32_t e, CUpti_SubscriberHandle s, CUpti_CallbackDomain d,
                                CUpti_CallbackId id)
{
    (void)e; (void)s; (void)d; (void)id;
    return CUPTI_SUCCESS;
}
/* for the program */
CUpti_CallbackFunc mock_callback(void);
CUpti_CallbackFunc mock_callback(void) { return saved_cb; }
void mock_kernel(const char *symbol);
void mock_kernel(const char *symbol) { current = symbol; }
#else
/* ---- the program ---- */
#include <dlfcn.h>

struct drv_launch {
    CUfunction f;
    unsigned gx, gy, gz, bx, by, bz, smem;
};

static CUpti_CallbackFunc cb;

static void call(CUpti_CallbackDomain dom, CUpti_CallbackId id, CUpti_ApiCallbackSite site,
                 const char *symbol, const void *params)
{
    CUpti_CallbackData d;
    memset(&d, 0, sizeof d);
    d.callbackSite = site;
    d.symbolName = symbol;
    d.functionParams = params;
    cb(NULL, dom, id, &d);
}

static void launch(const char *symbol, int runtime)
{
    struct drv_launch p = {(CUfunction)0x2, 2, 1, 1, 32, 1, 1, 0};
    if (runtime) /* <<<>>>: no symbol at the runtime's level in CUDA 13's __cudaLaunchKernel */
        call(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
             CUPTI_API_ENTER, NULL, NULL);
    call(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_API_ENTER, symbol, &p);
    call(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_API_EXIT, symbol, &p);
    if (runtime)
        call(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
             CUPTI_API_EXIT, NULL, NULL);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    void *mock = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
    void *inj = dlopen(getenv("CUDA_INJECTION64_PATH"), RTLD_NOW);
    if (!mock || !inj) {
        fprintf(stderr, "mock: %s\n", dlerror());
        return 2;
    }
    int (*init)(void) = (int (*)(void))dlsym(inj, "InitializeInjection");
    CUpti_CallbackFunc (*get)(void) = (CUpti_CallbackFunc (*)(void))dlsym(mock, "mock_callback");
    void (*kernel)(const char *) = (void (*)(const char *))dlsym(mock, "mock_kernel");
    if (!init || !get || !kernel || init() != 1)
        return 3;
    cb = get();
    if (!cb) /* not subscribed: the library said why in a note */
        return 0;
    FILE *f = fopen(argv[2], "rb");
    static char cubin[1 << 20];
    size_t n = f ? fread(cubin, 1, sizeof cubin, f) : 0;
    if (f)
        fclose(f);
    CUpti_ModuleResourceData md;
    memset(&md, 0, sizeof md);
    md.pCubin = cubin;
    md.cubinSize = n;
    CUpti_ResourceData rd;
    memset(&rd, 0, sizeof rd);
    rd.resourceDescriptor = &md;
    cb(NULL, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED, &rd);
    for (int i = 0; i < 3; i++)
        launch("_Z13ldmatrix_tilePfi", 1);
    kernel("_Z5otherv");
    launch("_Z5otherv", 0); /* not in any module seen: said in its result */
    /* MOCK_MORE=N: N more kernels, each launched once (more than CUPTI's route runs again for) */
    int more = getenv("MOCK_MORE") ? atoi(getenv("MOCK_MORE")) : 0;
    for (int i = 0; i < more; i++) {
        char sym[32];
        snprintf(sym, sizeof sym, "_Z6more%03dv", i);
        kernel(sym);
        launch(sym, 0);
    }
    printf("mock program: %d launches\n", 4 + more);
    return 0;
}
#endif
