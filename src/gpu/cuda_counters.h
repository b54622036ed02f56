/* cuda_counters.h: hardware counters of the shared-memory pipe through CUPTI's Range Profiler
 * (auto range, kernel replay), behind a C interface. libcupti and libcuda are loaded lazily
 * (dlopen), so the program starts and degrades where they are missing. Not for use outside
 * src/gpu; call from the thread that owns the CUDA context. */
#ifndef BANKLAB_CUDA_COUNTERS_H
#define BANKLAB_CUDA_COUNTERS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The metrics, in the order bl_counters_measure fills vals[]. */
enum {
    BL_WAVEFRONTS_LD = 0,  /* l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum */
    BL_WAVEFRONTS_ST,      /* l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum */
    BL_CONFLICTS_LD,       /* l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum */
    BL_CONFLICTS_ST,       /* l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum */
    BL_INST_LD,            /* smsp__inst_executed_op_shared_ld.sum */
    BL_INST_ST,            /* smsp__inst_executed_op_shared_st.sum */
    BL_NMETRICS
};

struct bl_counters;

/* bl_counters_open: load CUPTI, check that counters may be read on device `device` (its
 * context must be current). NULL with one line in why (e.g. "counters not allowed:
 * CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (...)") when they cannot. */
struct bl_counters *bl_counters_open(int device, char *why, size_t whysize);

/* bl_counters_metric: the name of metric i (BL_WAVEFRONTS_LD ...), or NULL. */
const char *bl_counters_metric(int i);

/* bl_counters_open_metrics: the same for other metrics: names[n] (at most 64; the array must
 * outlive the handle). */
struct bl_counters *bl_counters_open_metrics(int device, const char **names, int n, char *why,
                                             size_t whysize);

/* bl_counters_measure: profile what launch(arg) launches (one auto range per kernel, kernel
 * replay) and sum the metrics over all ranges into vals[] (BL_NMETRICS of them, or the n of
 * bl_counters_open_metrics, in that order). launch returns 0 on success. Returns 0, or -1
 * with one line in why. */
int bl_counters_measure(struct bl_counters *c, int (*launch)(void *arg), void *arg,
                        double *vals, char *why, size_t whysize);

void bl_counters_close(struct bl_counters *c);

/* bl_cupti_why: one line for CUPTI call `call` that failed with result r (text: CUPTI's name
 * for it); the "not allowed" cases are named as such. */
void bl_cupti_why(int r, const char *text, const char *call, char *why, size_t n);

/* bl_cupti_open: dlopen libcupti ($BANKLAB_CUPTI, then the usual names and CUDA_HOME), the
 * one place that knows where it lives. NULL when not found. Never unloaded. */
void *bl_cupti_open(void);

#ifdef __cplusplus
}
#endif

#endif
