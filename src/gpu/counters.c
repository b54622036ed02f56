/* counters.c: the one-try policy around a counter layer (counters.h). No CUDA; never prints. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "counters.h"

double ctr_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void ctr_policy_init(struct ctr_policy *p, const struct ctr_ops *ops, void *impl)
{
    memset(p, 0, sizeof *p);
    p->ops = ops;
    p->impl = impl;
}

/* Prepare if needed, then measure (vals NULL: prepare only). */
static enum ctr_status try_once(struct ctr_policy *p, int (*launch)(void *), void *arg,
                                double *vals, char *why, size_t n)
{
    enum ctr_status st = CTR_OK;
    if (!p->prepared) {
        st = p->ops->prepare(p->impl, why, n);
        p->prepared = st == CTR_OK;
    }
    if (st == CTR_OK && vals)
        st = p->ops->measure(p->impl, launch, arg, vals, why, n);
    if (st == CTR_UNAVAILABLE) {
        p->unavailable = 1;
        snprintf(p->why_unavailable, sizeof p->why_unavailable, "%s", why);
    }
    return st;
}

enum ctr_status ctr_policy_prepare(struct ctr_policy *p, char *why, size_t n)
{
    if (p->unavailable) {
        snprintf(why, n, "%s", p->why_unavailable);
        return CTR_UNAVAILABLE;
    }
    return try_once(p, NULL, NULL, NULL, why, n);
}

enum ctr_status ctr_policy_measure(struct ctr_policy *p, int (*launch)(void *), void *arg,
                                   double *vals, char *why, size_t n)
{
    if (p->unavailable) {
        snprintf(why, n, "%s", p->why_unavailable);
        return CTR_UNAVAILABLE;
    }
    char last[CTR_TEXT_MAX];
    last[0] = '\0';
    enum ctr_status st = try_once(p, launch, arg, vals, last, sizeof last);
    if (st == CTR_BUSY) {
        p->busy_in_a_row++;
        snprintf(why, n, "counters busy: another profiler is using this GPU's counters (%s)",
                 last);
    } else if (st != CTR_OK) {
        snprintf(why, n, "%s", last);
    } else {
        p->busy_in_a_row = 0;
    }
    return st;
}
