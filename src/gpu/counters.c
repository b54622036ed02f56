/* counters.c: the retry policy around a counter layer (counters.h). No CUDA; never prints. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "counters.h"

double ctr_clock_now_ms(void *impl)
{
    (void)impl;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void ctr_clock_sleep_ms(void *impl, double ms)
{
    (void)impl;
    if (ms <= 0)
        return;
    struct timespec ts = {(time_t)(ms / 1e3), (long)((ms - (double)(time_t)(ms / 1e3) * 1e3) * 1e6)};
    while (nanosleep(&ts, &ts) && errno == EINTR) {
    }
}

void ctr_retry_init(struct ctr_retry *r, const struct ctr_ops *ops, void *impl)
{
    memset(r, 0, sizeof *r);
    r->ops = ops;
    r->impl = impl;
    r->policy.budget_ms = 1500;
    r->policy.backoff_ms = 25;
    r->policy.backoff_max_ms = 400;
    r->policy.quiet_ms = 10000;
    r->last_busy_ms = -1;
}

/* One try: prepare if needed, then measure (vals NULL: prepare only). */
static enum ctr_status try_once(struct ctr_retry *r, int (*launch)(void *), void *arg,
                                double *vals, char *why, size_t n)
{
    enum ctr_status st = CTR_OK;
    if (!r->prepared) {
        st = r->ops->prepare(r->impl, why, n);
        r->prepared = st == CTR_OK;
    }
    if (st == CTR_OK && vals)
        st = r->ops->measure(r->impl, launch, arg, vals, why, n);
    if (st == CTR_UNAVAILABLE) {
        r->unavailable = 1;
        snprintf(r->why_unavailable, sizeof r->why_unavailable, "%s", why);
    }
    return st;
}

enum ctr_status ctr_retry_prepare(struct ctr_retry *r, char *why, size_t n)
{
    if (r->unavailable) {
        snprintf(why, n, "%s", r->why_unavailable);
        return CTR_UNAVAILABLE;
    }
    r->tries = 1;
    return try_once(r, NULL, NULL, NULL, why, n);
}

enum ctr_status ctr_retry_measure(struct ctr_retry *r, int (*launch)(void *), void *arg,
                                  double *vals, char *why, size_t n)
{
    if (r->unavailable) {
        snprintf(why, n, "%s", r->why_unavailable);
        return CTR_UNAVAILABLE;
    }
    const struct ctr_policy *p = &r->policy;
    double t0 = r->ops->now_ms(r->impl), pause = p->backoff_ms;
    int quiet = r->last_busy_ms >= 0 && t0 - r->last_busy_ms < p->quiet_ms;
    double budget = quiet ? 0 : p->budget_ms;
    char last[CTR_TEXT_MAX];
    for (r->tries = 1;; r->tries++) {
        enum ctr_status st = try_once(r, launch, arg, vals, last, sizeof last);
        if (st != CTR_BUSY) {
            if (st == CTR_OK)
                r->last_busy_ms = -1;
            else
                snprintf(why, n, "%s", last);
            return st;
        }
        double spent = r->ops->now_ms(r->impl) - t0;
        if (spent + pause > budget) {
            if (quiet)
                snprintf(why, n, "counters busy: another profiler is using this GPU's counters "
                                 "(%s); tried once, as they were busy %.0f s ago", last,
                         (t0 - r->last_busy_ms) / 1e3);
            else
                snprintf(why, n, "counters busy: another profiler is using this GPU's counters "
                                 "(%s); tried %d times in %.1f s", last, r->tries, spent / 1e3);
            r->last_busy_ms = r->ops->now_ms(r->impl);
            return CTR_BUSY;
        }
        if (r->on_busy)
            r->on_busy(r->on_busy_arg, spent);
        r->ops->sleep_ms(r->impl, pause);
        pause = pause * 2 > p->backoff_max_ms ? p->backoff_max_ms : pause * 2;
    }
}
