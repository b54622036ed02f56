/* counters.h: hardware counters as the runner asks for them. A counter layer (CUPTI in
 * cuda_counters.cu, a fake in tests/unit/test_counters.c) sits behind struct ctr_ops, and
 * ctr_retry wraps it with the policy: counters busy (CUPTI_ERROR_HARDWARE_BUSY: ncu or another
 * profiling process holds the hardware) are tried again with a growing pause for a bounded
 * time, then reported for that one measurement; the next measurement tries again. Only a
 * permanent reason (no permission, no library, a virtualised GPU) switches counters off.
 * No CUDA, no curses; never prints. Not for use outside src/gpu. */
#ifndef BANKLAB_COUNTERS_H
#define BANKLAB_COUNTERS_H

#include <stddef.h>

#define CTR_TEXT_MAX 256

#ifdef __cplusplus
extern "C" {
#endif

enum ctr_status {
    CTR_OK = 0,
    CTR_BUSY = 1,                 /* another profiler holds the counters now: try again later */
    CTR_FAILED = 2,               /* this measurement failed (the launch, a dropped range) */
    CTR_UNAVAILABLE = 3,          /* never in this process: permission, library, virtual GPU */
};

/* A counter layer. why: one line when the answer is not CTR_OK. */
struct ctr_ops {
    /* make counters readable (availability, configuration); called again until CTR_OK */
    enum ctr_status (*prepare)(void *impl, char *why, size_t n);
    /* profile what launch(arg) launches; the layer's metrics summed into vals */
    enum ctr_status (*measure)(void *impl, int (*launch)(void *), void *arg, double *vals,
                               char *why, size_t n);
    /* the clock (tests replace it): milliseconds, and a pause */
    double (*now_ms)(void *impl);
    void (*sleep_ms)(void *impl, double ms);
};

struct ctr_policy {
    double budget_ms;             /* try a busy measurement again for this long (1500) */
    double backoff_ms;            /* the first pause, doubled after each try (25) ... */
    double backoff_max_ms;        /* ... up to this (400) */
    double quiet_ms;              /* within this time after a measurement ended busy, try once
                                     only, so a profiler that stays does not slow a class (10000) */
};

struct ctr_retry {
    const struct ctr_ops *ops;
    void *impl;
    struct ctr_policy policy;
    int prepared;                 /* prepare answered CTR_OK */
    int unavailable;              /* a permanent reason: why below */
    char why_unavailable[CTR_TEXT_MAX];
    double last_busy_ms;          /* when a measurement last ended busy (< 0: never) */
    int tries;                    /* tries the last measurement took */
    /* called before each pause of a busy retry, with the time spent so far (may be NULL) */
    void (*on_busy)(void *arg, double waited_ms);
    void *on_busy_arg;
};

/* ctr_retry_init: wrap ops/impl with the default policy. */
void ctr_retry_init(struct ctr_retry *r, const struct ctr_ops *ops, void *impl);

/* ctr_retry_prepare: one try at making counters readable (at open: no retry, nothing waits).
 * CTR_OK; CTR_BUSY (the measurements try again); CTR_UNAVAILABLE (switched off, why says why). */
enum ctr_status ctr_retry_prepare(struct ctr_retry *r, char *why, size_t n);

/* ctr_retry_measure: prepare if needed and measure, trying again while busy within the policy.
 * CTR_OK with vals; otherwise why holds one line ("counters busy: ... tried 6 times in 1.2 s"). */
enum ctr_status ctr_retry_measure(struct ctr_retry *r, int (*launch)(void *), void *arg,
                                  double *vals, char *why, size_t n);

/* The real clock (CLOCK_MONOTONIC, nanosleep), for layers that have no other. */
double ctr_clock_now_ms(void *impl);
void ctr_clock_sleep_ms(void *impl, double ms);

#ifdef __cplusplus
}
#endif

#endif
