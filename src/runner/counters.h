/* counters.h: hardware counters as the runner asks for them. A counter layer (CUPTI in
 * cuda/counters.cu, a fake in tests/unit/test_counters.c) sits behind struct ctr_ops, and
 * struct ctr_policy wraps it with the policy: one try per measurement. Counters busy
 * (CUPTI_ERROR_HARDWARE_BUSY: Nsight Compute or another profiling process holds the hardware)
 * are reported for that one measurement at once, never waited for while the device's turn is
 * held (a class would wait behind it); the next measurement tries again. Only a permanent
 * reason (no permission, no library, a virtualised GPU) switches counters off.
 * No CUDA, no curses; never prints. Not for use outside src/runner. */
#ifndef BANKLAB_COUNTERS_H
#define BANKLAB_COUNTERS_H

#include <stddef.h>

#include "../base/err.h"
#include "../cuda/cudalib.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A counter layer. An answer other than CTR_OK fails err (its status that answer). */
struct ctr_ops {
    /* make counters readable (configuration); called again until CTR_OK */
    enum ctr_status (*prepare)(void *impl, struct bl_err *err);
    /* profile what launch(arg) launches; the layer's metrics summed into vals */
    enum ctr_status (*measure)(void *impl, int (*launch)(void *), void *arg, double *vals,
                               struct bl_err *err);
};

struct ctr_policy {
    const struct ctr_ops *ops;
    void *impl;
    int prepared;                 /* prepare answered CTR_OK */
    struct bl_err unavailable;    /* failed: a permanent reason, counters off */
    int busy_in_a_row;            /* measurements answered busy since the last with counters */
};

/* ctr_policy_init: wrap ops/impl. */
void ctr_policy_init(struct ctr_policy *p, const struct ctr_ops *ops, void *impl);

/* ctr_policy_prepare: one try at making counters readable (at open; nothing waits).
 * CTR_OK; CTR_BUSY (the measurements try again); CTR_UNAVAILABLE (switched off). Anything
 * but CTR_OK fails err (empty before the call) with that status and why. */
enum ctr_status ctr_policy_prepare(struct ctr_policy *p, struct bl_err *err);

/* ctr_policy_measure: prepare if needed and measure, once. CTR_OK with vals; otherwise err
 * failed ("counters busy: another profiler is using this GPU's counters (...)"). */
enum ctr_status ctr_policy_measure(struct ctr_policy *p, int (*launch)(void *), void *arg,
                                   double *vals, struct bl_err *err);

#ifdef __cplusplus
}
#endif

#endif
