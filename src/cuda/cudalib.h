/* cudalib.h: libcuda, libcupti and libnvrtc as banklab loads them (dlopen, never linked):
 * where they live and the one place that opens them (open.c), a table of a library's functions (syms.c), and
 * hardware counters of the shared-memory pipe through CUPTI's Range Profiler
 * (auto range, kernel replay), behind a C interface: the CUPTI counter layer that runner/counters.h's
 * retry policy drives. libcupti and libcuda are loaded lazily (dlopen), so the program starts
 * and degrades where they are missing. For the rooms that measure (runner, kmeasure); call from the thread that
 * owns the CUDA context. A measurement profiles: hold the device's turn for it (devlock/devlock.h);
 * loading and preparing touch no counter hardware (the runner does both at open, before its
 * first turn). Every failure fills err, its status the enum ctr_status returned. */
#ifndef BANKLAB_CUDA_COUNTERS_H
#define BANKLAB_CUDA_COUNTERS_H

#include <stddef.h>

#include "../base/err.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a counter layer answers (the runner's policy, runner/counters.h, acts on it). */
enum ctr_status {
    CTR_OK = 0,
    CTR_BUSY = 1,                 /* another profiler holds the counters now: try again later */
    CTR_FAILED = 2,               /* this measurement failed (the launch, a dropped range) */
    CTR_UNAVAILABLE = 3,          /* never in this process: permission, library, virtual GPU */
};

/* The metrics, in the order bl_counters_measure fills vals[]. */
enum {
    BL_WAVEFRONTS_LD = 0,  /* l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum */
    BL_WAVEFRONTS_ST,      /* l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum */
    BL_CONFLICTS_LD,       /* l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum */
    BL_CONFLICTS_ST,       /* l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum */
    BL_INST_LD,            /* smsp__inst_executed_op_shared_ld.sum */
    BL_INST_ST,            /* smsp__inst_executed_op_shared_st.sum */
    /* ldmatrix, stmatrix, cp.async (names as GH100 has them, tests/data/h200-matrix.json): LDSM's
     * and STSM's wavefronts and conflicts are in the _op_ld and _op_st figures above; LDGSTS's
     * wavefronts only in the all-kinds figure */
    BL_INST_LDSM,          /* smsp__inst_executed_op_ldsm.sum */
    BL_INST_STSM,          /* smsp__inst_executed_op_shared_stsm.sum */
    BL_INST_LDGSTS,        /* smsp__inst_executed_op_ldgsts.sum */
    BL_CONFLICTS_LDGSTS,   /* l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum */
    BL_WAVEFRONTS_ALL,     /* l1tex__data_pipe_lsu_wavefronts_mem_shared.sum (every kind) */
    BL_NMETRICS
};

#define BL_MAX_METRICS 64     /* metrics one handle reads, at most */


struct bl_counters;

/* bl_counters_new: load CUPTI and libcuda for device `device` (its context must be current
 * when the handle is prepared), to read metrics names[n] (NULL: the six above; the array must
 * outlive the handle). Nothing touches the profiling hardware yet. NULL with err failed
 * (CTR_UNAVAILABLE) when they cannot be loaded: counters are then unavailable for good. */
struct bl_counters *bl_counters_new(int device, const char **names, int n, struct bl_err *err);

/* bl_counters_open_metrics: bl_counters_new, then bl_counters_prepare: a handle ready to
 * measure, or NULL with err failed (busy included); names NULL: the six metrics. */
struct bl_counters *bl_counters_open_metrics(int device, const char **names, int n,
                                             struct bl_err *err);

/* bl_counters_metric: the name of metric i (BL_WAVEFRONTS_LD ...), or NULL. */
const char *bl_counters_metric(int i);

/* bl_counters_prepare: initialise the profiler and build the configuration (host work; the
 * hardware's counter availability is asked only where CUPTI needs it, a query that fails with
 * HARDWARE_BUSY while another process profiles). Each step is done once; a busy try is done
 * again at the next call. CTR_OK, CTR_BUSY or CTR_UNAVAILABLE (not allowed, a virtualised
 * GPU, ...). The ctr_ops prepare of the runner. */
enum ctr_status bl_counters_prepare(struct bl_counters *c, struct bl_err *err);

/* bl_counters_measure: profile what launch(arg) launches (one auto range per kernel, kernel
 * replay; prepares first when needed), the metrics summed over all ranges into vals[] (the
 * handle's metrics, in order). The range profiler is enabled for it when it is not, and
 * stays enabled (the counter hardware held: no other process can read counters) until
 * bl_counters_release. launch returns 0 on success. CTR_OK (0), or CTR_BUSY /
 * CTR_FAILED / CTR_UNAVAILABLE. */
enum ctr_status bl_counters_measure(struct bl_counters *c, int (*launch)(void *arg), void *arg,
                                    double *vals, struct bl_err *err);

/* bl_counters_use: read only the first n of the handle's metrics from now on (n <= 0 or more
 * than it has: all of them). A configuration of fewer metrics takes fewer passes of the
 * counter hardware: the six of the plain loads and stores cost a parameter change about 19 ms
 * on the H200, the eleven 28 ms (docs/runs/h200-2026-12-03-calls.md, call 2). A change of n
 * releases the handle (as bl_counters_release); the next measurement sets it up again. */
void bl_counters_use(struct bl_counters *c, int n);

/* bl_counters_release: disable the range profiler and deinitialise the profiler, so other
 * processes (another banklab, Nsight Compute) can read counters; the next measurement sets it
 * up again (docs/gpu.md says what that costs). NULL or not held is fine.
 * bl_counters_held_since: when the range profiler was enabled (bl_now_ms), 0 when it is not. */
void bl_counters_release(struct bl_counters *c);
double bl_counters_held_since(const struct bl_counters *c);

void bl_counters_close(struct bl_counters *c);

/* bl_cupti_fail: err fails for CUPTI call `call` that answered r (text: CUPTI's name for it):
 * CTR_BUSY when another profiler holds the hardware (try again), CTR_UNAVAILABLE when never
 * here (permission, a virtual or unsupported device, a profiler in this process), else
 * `other` (a failure of this call); busy and the "not allowed" cases are named as such.
 * Returns -1. */
int bl_cupti_fail(struct bl_err *err, int other, int r, const char *text, const char *call);

/* ---- open.c: the one place that opens the CUDA libraries (dlopen; never unloaded) ---- */

/* bl_cuda_open: libcuda.so.1, the driver. bl_cupti_open: libcupti ($BANKLAB_CUPTI, then the
 * usual names and CUDA_HOME). bl_nvrtc_open: libnvrtc ($BANKLAB_NVRTC, then the usual names
 * and CUDA_HOME). NULL when not found. */
void *bl_cuda_open(void);
void *bl_cupti_open(void);
void *bl_nvrtc_open(void);
/* bl_nvrtc_open_at: the libnvrtc at path (the toolkit's own, compile/rtc.c), or NULL */
void *bl_nvrtc_open_at(const char *path);

/* ---- syms.c ---- */

/* ksyms: the entries of a table of function pointers from a dlopen'ed library: each names a
 * symbol and the byte offset of its pointer in `table`. Returns 0 when all the required ones
 * were found, else bl_fail with status and message id (its %s: the first one missing).
 * KSYMS: the same for an array syms. */
struct ksym {
    size_t off;
    const char *name;
    int optional;
};
int ksyms(void *lib, const struct ksym *syms, size_t n, void *table, struct bl_err *err,
          int status, int id);
#define KSYMS(lib, syms, table, err, status, id)                                              \
    ksyms((lib), (syms), sizeof(syms) / sizeof(syms)[0], (table), (err), (status), (id))

#ifdef __cplusplus
}
#endif

#endif
