/* test_counters.c: the counter policy (src/runner/counters.c) against a fake counter layer that
 * fails the way the hardware does: busy means no values at all (the vals stay as the layer
 * left them, zero), not a slower success. Busy is answered at once for that one measurement
 * and never waited for; the next measurement tries again; a refusal switches counters off; a
 * failed measurement is reported and not retried. No GPU, no sleeping.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "../../src/runner/counters.h"
#include "../../src/cuda/cudalib.h"

struct fake {
    int busy_prepares;            /* prepare answers busy this many more times */
    int busy_measures;            /* measure answers busy this many more times (-1: always) */
    enum ctr_status next;         /* what measure answers when not busy */
    int prepares, measures, launches;
};

static enum ctr_status f_prepare(void *impl, struct bl_err *why)
{
    struct fake *f = impl;
    f->prepares++;
    if (f->busy_prepares > 0) {
        f->busy_prepares--;
        bl_fail(why, CTR_BUSY, BL_NOWHERE, BL_TEXT, "cuptiProfilerGetCounterAvailability: CUPTI_ERROR_HARDWARE_BUSY");
        return CTR_BUSY;
    }
    return CTR_OK;
}

/* The hardware's way: a busy range profiler refuses cuptiRangeProfilerEnable before anything
 * is launched, so nothing is counted. */
static enum ctr_status f_measure(void *impl, int (*launch)(void *), void *arg, double *vals,
                                 struct bl_err *why)
{
    struct fake *f = impl;
    f->measures++;
    vals[0] = 0;
    if (f->busy_measures != 0) {
        if (f->busy_measures > 0)
            f->busy_measures--;
        bl_fail(why, CTR_BUSY, BL_NOWHERE, BL_TEXT, "cuptiRangeProfilerEnable: CUPTI_ERROR_HARDWARE_BUSY");
        return CTR_BUSY;
    }
    if (f->next == CTR_UNAVAILABLE) {
        bl_fail(why, CTR_UNAVAILABLE, BL_NOWHERE, BL_TEXT, "counters not allowed: insufficient privileges");
        return CTR_UNAVAILABLE;
    }
    f->launches += launch(arg) == 0;
    if (f->next == CTR_FAILED) {
        bl_fail(why, CTR_FAILED, BL_NOWHERE, BL_TEXT, "the profiled launch failed");
        return CTR_FAILED;
    }
    vals[0] = 32;
    return CTR_OK;
}

static const struct ctr_ops fake_ops = {f_prepare, f_measure};

/* W: e emptied for the next call (the first failure of an error wins) */
static struct bl_err *W(struct bl_err *e)
{
    bl_err_clear(e);
    return e;
}

static int launch_ok(void *arg) { (void)arg; return 0; }

static void start(struct ctr_policy *p, struct fake *f)
{
    memset(f, 0, sizeof *f);
    ctr_policy_init(p, &fake_ops, f);
}

static void test_counters_free(void **state)
{
    (void)state;
    struct ctr_policy p;
    struct fake f;
    double v[1] = {0};
    struct bl_err why;
    start(&p, &f);
    assert_int_equal(ctr_policy_measure(&p, launch_ok, NULL, v, W(&why)), CTR_OK);
    assert_true(v[0] == 32);
    assert_int_equal(f.prepares, 1);
    assert_int_equal(f.launches, 1);
    assert_int_equal(ctr_policy_measure(&p, launch_ok, NULL, v, W(&why)), CTR_OK);
    assert_int_equal(f.prepares, 1);                   /* prepared once */
}

static void test_busy_answered_at_once(void **state)
{
    (void)state;
    struct ctr_policy p;
    struct fake f;
    double v[1] = {-1};
    struct bl_err why;
    start(&p, &f);
    f.busy_measures = -1;
    for (int i = 1; i <= 3; i++) {
        assert_int_equal(ctr_policy_measure(&p, launch_ok, NULL, v, W(&why)), CTR_BUSY);
        assert_int_equal(f.measures, i);               /* one try each, no retry loop */
        assert_int_equal(p.busy_in_a_row, i);
    }
    assert_true(v[0] == 0);                            /* busy counted nothing */
    assert_int_equal(f.launches, 0);
    assert_non_null(strstr(why.msg, "counters busy"));
    assert_non_null(strstr(why.msg, "CUPTI_ERROR_HARDWARE_BUSY"));
    assert_int_equal(p.unavailable.status, 0);                /* never switched off for the session */
    /* the profiler goes away: the very next measurement has counters */
    f.busy_measures = 0;
    assert_int_equal(ctr_policy_measure(&p, launch_ok, NULL, v, W(&why)), CTR_OK);
    assert_true(v[0] == 32);
    assert_int_equal(p.busy_in_a_row, 0);
}

static void test_busy_at_open(void **state)
{
    (void)state;
    struct ctr_policy p;
    struct fake f;
    double v[1];
    struct bl_err why;
    start(&p, &f);
    f.busy_prepares = 1;
    assert_int_equal(ctr_policy_prepare(&p, W(&why)), CTR_BUSY);
    assert_non_null(strstr(why.msg, "GetCounterAvailability"));
    assert_int_equal(p.prepared, 0);
    /* still busy at the first measurement: busy, once; then free */
    f.busy_prepares = 1;
    assert_int_equal(ctr_policy_measure(&p, launch_ok, NULL, v, W(&why)), CTR_BUSY);
    assert_int_equal(f.measures, 0);
    assert_int_equal(ctr_policy_measure(&p, launch_ok, NULL, v, W(&why)), CTR_OK);
    assert_int_equal(p.prepared, 1);
    assert_int_equal(f.prepares, 3);
    assert_int_equal(f.measures, 1);
}

static void test_unavailable_and_failed(void **state)
{
    (void)state;
    struct ctr_policy p;
    struct fake f;
    double v[1];
    struct bl_err why;
    start(&p, &f);
    f.next = CTR_FAILED;
    assert_int_equal(ctr_policy_measure(&p, launch_ok, NULL, v, W(&why)), CTR_FAILED);
    assert_int_equal(f.measures, 1);                   /* a failure is not retried ... */
    assert_string_equal(why.msg, "the profiled launch failed");
    f.next = CTR_OK;
    assert_int_equal(ctr_policy_measure(&p, launch_ok, NULL, v, W(&why)), CTR_OK);
    f.next = CTR_UNAVAILABLE;                          /* ... nor is a refusal, which stays */
    assert_int_equal(ctr_policy_measure(&p, launch_ok, NULL, v, W(&why)), CTR_UNAVAILABLE);
    assert_int_equal(p.unavailable.status, CTR_UNAVAILABLE);
    int before = f.measures;
    f.next = CTR_OK;
    assert_int_equal(ctr_policy_measure(&p, launch_ok, NULL, v, W(&why)), CTR_UNAVAILABLE);
    assert_int_equal(f.measures, before);
    assert_non_null(strstr(why.msg, "insufficient privileges"));
    assert_int_equal(ctr_policy_prepare(&p, W(&why)), CTR_UNAVAILABLE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counters_free),
        cmocka_unit_test(test_busy_answered_at_once),
        cmocka_unit_test(test_busy_at_open),
        cmocka_unit_test(test_unavailable_and_failed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
