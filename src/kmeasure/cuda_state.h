/* cuda_state.h: what the files of the CUDA measuring process share (src/kmeasure/cuda_*.c): the
 * driver and CUPTI tables, the state kept between requests (struct kstate, kmeasure/cuda_state.c) and
 * one request in flight (struct child). The files call down only: kmeasure/cuda_request.c (a request
 * from start to end) -> kmeasure/cuda_sass.c (SASS metrics, the range profiler) -> kmeasure/cuda_launch.c
 * (buffers, launch) -> kmeasure/cuda_state.c (driver, device, CUPTI). Not for use outside them. */
#ifndef BANKLAB_CUDA_KSTATE_H
#define BANKLAB_CUDA_KSTATE_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

#include <cuda.h>
#include <cupti_pcsampling.h>
#include <cupti_profiler_target.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

#include "../compile/compile.h"
#include "cuda_sassm.h"
#include "kmeasure.h"

#define FILL_CHUNK (4u << 20)            /* bytes of fill pattern made at a time */

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

/* kcu_name, kcu_text: CUDA's name and text of an error ("CUDA_ERROR_UNKNOWN", "unknown error"
 * when the driver cannot say). */
const char *kcu_name(const struct drv *d, CUresult r);
const char *kcu_text(const struct drv *d, CUresult r);

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

/* kcupti_fail: a failed CUPTI call into err, GPU_KERNEL_ECOUNTERS (bl_cupti_fail's line: busy,
 * not allowed, ...). Returns -1. */
int kcupti_fail(struct bl_err *err, const struct cupti *c, CUptiResult r, const char *call);

/* ---- what lasts between requests ---- */

struct kstate {
    int device;
    struct drv d;
    int have_gpu;
    struct bl_err nogpu;             /* why there is no GPU */
    CUdevice dev;
    int sm;                          /* compute capability as 90 */
    int smem_optin, max_threads, grid_max[3];
    char name[GPU_KERNEL_TEXT];      /* "NVIDIA H200 (sm_90)" */
    int ctx_ready;
    struct cupti c;
    int cupti_tried, cupti_ok;
    struct bl_err cupti_err;         /* why CUPTI is not ready */
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
    struct sassm_cfg sassm;          /* the SASS metrics' ids (kmeasure/cuda_sassm.h) */
    struct devlock *lock;            /* the device's turns (devlock/devlock.h), NULL: none to take */
    char lock_note[GPU_KERNEL_TEXT]; /* why turns are not taken, when lock is NULL */
    struct bl_msg lock_msg;          /* the same as a message of msg.def */
};

/* kstate_context: the primary context, made current once. 0, or -1 with the reason in res. */
int kstate_context(struct kstate *st, struct gpu_kernel_result *res);
/* kstate_cupti: CUPTI loaded and initialised once. 0, or -1 with the reason in
 * st->cupti_err. */
int kstate_cupti(struct kstate *st);

/* ---- one request ---- */

struct child {
    struct kstate *st;
    const struct gpu_kernel_request *req;
    const char *src;
    size_t len;
    struct gpu_kernel_result *res;
    int fd;
    enum gpu_kernel_phase phase; /* the last one sent */
    char realpath[PATH_MAX];     /* the program's name for NVRTC (line info, ncu): escaped */
    char rawpath[PATH_MAX];      /* the same path's real bytes: what nvcc reads and names */
    char dir[PATH_MAX];          /* its directory: -I */
    struct ksrc_kernel kernels[KSRC_MAX_KERNELS];
    int nkernels;
    const struct ksrc_kernel *kernel;
    char name_expr[GPU_KERNEL_TEXT];
    struct bl_err name_err;      /* why no kernel could be chosen (choose_kernel) */
    struct compiled comp;
    CUmodule module;
    CUfunction func;
    void *params[KSRC_MAX_PARAMS];
    unsigned char scalars[KSRC_MAX_PARAMS][8];
    CUdeviceptr bufs[KSRC_MAX_PARAMS];
    size_t buf_size[KSRC_MAX_PARAMS];
};

/* kchild_phase: the request's phase, sent to the caller. */
void kchild_phase(struct child *ch, enum gpu_kernel_phase phase);

/* klaunch_setup: load the kernel, check its launch against the device, allocate its buffers.
 * klaunch_run: fill the buffers, launch, wait. Both: 0, or -1 with the reason in the result
 * (kmeasure/cuda_launch.c). */
int klaunch_setup(struct child *ch);
int klaunch_run(struct child *ch);

/* ksass_resolve: the SASS metrics' ids on this chip (once per process). 0, or -1 with err.
 * ksass_measure: SASS metrics around one run of the kernel, then correlation and decoding
 * into the result; 0, or -1 with the reason in it. kcounters_measure: the range profiler's
 * counters of one run (--counters), or the note why not (kmeasure/cuda_sass.c). */
int ksass_resolve(struct kstate *st, struct bl_err *err);
int ksass_measure(struct child *ch);
void kcounters_measure(struct child *ch);

#endif
