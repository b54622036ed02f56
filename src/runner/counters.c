/* counters.c: the one-try policy around a counter layer (runner/counters.h). No CUDA; never prints. */
#include <string.h>

#include "counters.h"
#include "../cuda/cudalib.h"

void ctr_policy_init(struct ctr_policy *p, const struct ctr_ops *ops, void *impl)
{
    memset(p, 0, sizeof *p);
    p->ops = ops;
    p->impl = impl;
}

/* Prepare if needed, then measure (vals NULL: prepare only). */
static enum ctr_status try_once(struct ctr_policy *p, int (*launch)(void *), void *arg,
                                double *vals, struct bl_err *err)
{
    if (bl_err_failed(&p->unavailable)) {
        *err = p->unavailable;
        return CTR_UNAVAILABLE;
    }
    enum ctr_status st = CTR_OK;
    if (!p->prepared) {
        st = p->ops->prepare(p->impl, err);
        p->prepared = st == CTR_OK;
    }
    if (st == CTR_OK && vals)
        st = p->ops->measure(p->impl, launch, arg, vals, err);
    if (st == CTR_UNAVAILABLE)
        p->unavailable = *err;
    return st;
}

enum ctr_status ctr_policy_prepare(struct ctr_policy *p, struct bl_err *err)
{
    return try_once(p, NULL, NULL, NULL, err);
}

enum ctr_status ctr_policy_measure(struct ctr_policy *p, int (*launch)(void *), void *arg,
                                   double *vals, struct bl_err *err)
{
    struct bl_err last = {0};
    enum ctr_status st = try_once(p, launch, arg, vals, &last);
    if (st == CTR_BUSY) {
        p->busy_in_a_row++;
        bl_fail(err, CTR_BUSY, BL_NOWHERE, CNT_BUSY, last.msg);
    } else if (st != CTR_OK) {
        *err = last;
    } else {
        p->busy_in_a_row = 0;
    }
    return st;
}
