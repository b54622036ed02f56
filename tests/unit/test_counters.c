/* test_counters.c: the counter retry policy (src/gpu/counters.c) against a fake counter layer
 * whose answers and clock the test sets: busy then free, busy for good (bounded, reported for
 * that measurement only), the quiet window after a busy measurement, busy at open, a permanent
 * refusal, a failed measurement that is not retried. No GPU, no sleeping.
 * link: gpu
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "../../src/gpu/counters.h"

struct fake {
    double now;                   /* fake milliseconds */
    int busy_prepares;            /* prepare answers busy this many more times */
    int busy_measures;            /* measure answers busy this many more times (-1: always) */
    enum ctr_status next;         /* what measure answers when not busy */
    int prepares, measures, launches;
    double slept;
    int busy_calls;
};

static enum ctr_status f_prepare(void *impl, char *why, size_t n)
{
    struct fake *f = impl;
    f->prepares++;
    f->now += 5;
    if (f->busy_prepares > 0) {
        f->busy_prepares--;
        snprintf(why, n, "cuptiProfilerGetCounterAvailability: CUPTI_ERROR_HARDWARE_BUSY");
        return CTR_BUSY;
    }
    return CTR_OK;
}

static enum ctr_status f_measure(void *impl, int (*launch)(void *), void *arg, double *vals,
                                 char *why, size_t n)
{
    struct fake *f = impl;
    f->measures++;
    f->now += 10;
    if (f->busy_measures != 0) {
        if (f->busy_measures > 0)
            f->busy_measures--;
        snprintf(why, n, "cuptiRangeProfilerStart: CUPTI_ERROR_HARDWARE_BUSY");
        return CTR_BUSY;
    }
    if (f->next == CTR_UNAVAILABLE) {
        snprintf(why, n, "counters not allowed: insufficient privileges");
        return CTR_UNAVAILABLE;
    }
    if (f->next == CTR_FAILED) {
        snprintf(why, n, "the profiled launch failed");
        return CTR_FAILED;
    }
    f->launches += launch(arg) == 0;
    vals[0] = 32;
    return CTR_OK;
}

static double f_now(void *impl) { return ((struct fake *)impl)->now; }

static void f_sleep(void *impl, double ms)
{
    struct fake *f = impl;
    f->now += ms;
    f->slept += ms;
}

static const struct ctr_ops fake_ops = {f_prepare, f_measure, f_now, f_sleep};

static int launch_ok(void *arg) { (void)arg; return 0; }

static void on_busy(void *arg, double waited)
{
    struct fake *f = arg;
    (void)waited;
    f->busy_calls++;
}

static void start(struct ctr_retry *r, struct fake *f)
{
    memset(f, 0, sizeof *f);
    f->now = 1000;
    ctr_retry_init(r, &fake_ops, f);
    r->on_busy = on_busy;
    r->on_busy_arg = f;
}

static void test_busy_then_free(void **state)
{
    (void)state;
    struct ctr_retry r;
    struct fake f;
    double v[1] = {0};
    char why[CTR_TEXT_MAX];
    start(&r, &f);
    f.busy_measures = 3;
    assert_int_equal(ctr_retry_measure(&r, launch_ok, NULL, v, why, sizeof why), CTR_OK);
    assert_int_equal(r.tries, 4);
    assert_int_equal(f.measures, 4);
    assert_int_equal(f.launches, 1);
    assert_true(v[0] == 32);
    assert_true(f.slept == 25 + 50 + 100);            /* doubling pauses */
    assert_int_equal(f.busy_calls, 3);                 /* the runner can show "counters busy" */
    assert_int_equal(f.prepares, 1);
}

static void test_busy_for_good(void **state)
{
    (void)state;
    struct ctr_retry r;
    struct fake f;
    double v[1];
    char why[CTR_TEXT_MAX];
    start(&r, &f);
    f.busy_measures = -1;
    double t0 = f.now;
    assert_int_equal(ctr_retry_measure(&r, launch_ok, NULL, v, why, sizeof why), CTR_BUSY);
    assert_true(f.now - t0 <= r.policy.budget_ms + 20);   /* bounded */
    assert_true(r.tries >= 5);
    assert_non_null(strstr(why, "counters busy"));
    assert_non_null(strstr(why, "CUPTI_ERROR_HARDWARE_BUSY"));
    char tried[32];
    snprintf(tried, sizeof tried, "tried %d times", r.tries);
    assert_non_null(strstr(why, tried));
    assert_int_equal(r.unavailable, 0);                /* never switched off for the session */

    /* the next measurement soon after tries once, not for the whole budget */
    int before = f.measures;
    f.now += 2000;
    assert_int_equal(ctr_retry_measure(&r, launch_ok, NULL, v, why, sizeof why), CTR_BUSY);
    assert_int_equal(f.measures - before, 1);
    assert_non_null(strstr(why, "tried once"));

    /* the profiler goes away: the next measurement has counters again */
    f.busy_measures = 0;
    f.now += 1000;
    assert_int_equal(ctr_retry_measure(&r, launch_ok, NULL, v, why, sizeof why), CTR_OK);
    assert_true(r.last_busy_ms < 0);

    /* busy again much later: the whole budget again */
    f.busy_measures = -1;
    before = f.measures;
    f.now += 60000;
    assert_int_equal(ctr_retry_measure(&r, launch_ok, NULL, v, why, sizeof why), CTR_BUSY);
    assert_true(f.measures - before >= 5);
    f.busy_measures = 0;
    f.now += r.policy.quiet_ms + 1;                    /* the quiet window ends by itself too */
    before = f.measures;
    f.busy_measures = 2;
    assert_int_equal(ctr_retry_measure(&r, launch_ok, NULL, v, why, sizeof why), CTR_OK);
    assert_int_equal(f.measures - before, 3);
}

static void test_busy_at_open(void **state)
{
    (void)state;
    struct ctr_retry r;
    struct fake f;
    double v[1];
    char why[CTR_TEXT_MAX];
    start(&r, &f);
    f.busy_prepares = 1;
    assert_int_equal(ctr_retry_prepare(&r, why, sizeof why), CTR_BUSY);
    assert_non_null(strstr(why, "GetCounterAvailability"));
    assert_int_equal(r.prepared, 0);
    /* the first measurement prepares again and succeeds */
    f.busy_prepares = 2;
    assert_int_equal(ctr_retry_measure(&r, launch_ok, NULL, v, why, sizeof why), CTR_OK);
    assert_int_equal(r.prepared, 1);
    assert_int_equal(f.prepares, 4);
    assert_int_equal(f.measures, 1);
}

static void test_unavailable_and_failed(void **state)
{
    (void)state;
    struct ctr_retry r;
    struct fake f;
    double v[1];
    char why[CTR_TEXT_MAX];
    start(&r, &f);
    f.next = CTR_FAILED;
    assert_int_equal(ctr_retry_measure(&r, launch_ok, NULL, v, why, sizeof why), CTR_FAILED);
    assert_int_equal(f.measures, 1);                   /* a failure is not retried ... */
    assert_string_equal(why, "the profiled launch failed");
    f.next = CTR_OK;
    assert_int_equal(ctr_retry_measure(&r, launch_ok, NULL, v, why, sizeof why), CTR_OK);
    f.next = CTR_UNAVAILABLE;                          /* ... nor is a refusal, which stays */
    assert_int_equal(ctr_retry_measure(&r, launch_ok, NULL, v, why, sizeof why), CTR_UNAVAILABLE);
    assert_int_equal(r.unavailable, 1);
    int before = f.measures;
    f.next = CTR_OK;
    assert_int_equal(ctr_retry_measure(&r, launch_ok, NULL, v, why, sizeof why), CTR_UNAVAILABLE);
    assert_int_equal(f.measures, before);
    assert_non_null(strstr(why, "insufficient privileges"));
    assert_int_equal(ctr_retry_prepare(&r, why, sizeof why), CTR_UNAVAILABLE);
}

static void test_real_clock(void **state)
{
    (void)state;
    double t0 = ctr_clock_now_ms(NULL);
    ctr_clock_sleep_ms(NULL, 20);
    double dt = ctr_clock_now_ms(NULL) - t0;
    assert_true(dt >= 19 && dt < 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_busy_then_free),
        cmocka_unit_test(test_busy_for_good),
        cmocka_unit_test(test_busy_at_open),
        cmocka_unit_test(test_unavailable_and_failed),
        cmocka_unit_test(test_real_clock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
