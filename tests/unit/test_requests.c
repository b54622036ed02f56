/* test_requests.c: the tutorial's GPU request hub (src/ui/requests.c) against a fake runner
 * whose answers the test releases one by one: a slot's question is sent at once when nothing
 * is in flight, else waits and only the latest is sent; an answer to a replaced or forgotten
 * question is dropped; a series fills the runner's queue and every answer reaches its number;
 * a stopped series gets nothing more; without a GPU nothing waits forever; the runner's
 * waiting for the device's turn reaches the screens (req_hub_progress) with a redraw due.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "../../src/gpu/gpu.h"
#include "../../src/ui/requests.h"

/* --- a runner that answers when the test says so --------------------------------------- */

#define FAKE_MAX 64

struct fake {
    int cap;                          /* queue size: submit says GPU_EBUSY beyond it */
    struct gpu_request q[FAKE_MAX];   /* submitted, not yet polled */
    int n;
    int release;                      /* answers poll may hand out */
    int submitted;                    /* submissions accepted, in all */
    long long last_value;             /* param_value[0] of the last submission */
    struct gpu_progress progress;     /* what gpu_progress answers */
};

static enum gpu_status fake_submit(void *impl, const struct gpu_request *rq)
{
    struct fake *f = impl;
    if (f->n >= f->cap)
        return GPU_EBUSY;
    f->q[f->n++] = *rq;
    f->submitted++;
    f->last_value = rq->param_value[0];
    return GPU_OK;
}

static int fake_poll(void *impl, struct gpu_result *out)
{
    struct fake *f = impl;
    if (f->release <= 0 || f->n == 0)
        return 0;
    memset(out, 0, sizeof *out);
    out->id = f->q[0].id;
    out->err.status = GPU_OK;
    out->has_timing = 1;
    out->clk_per_request = (double)f->q[0].param_value[0];   /* echo the question */
    memmove(f->q, f->q + 1, (size_t)(f->n - 1) * sizeof f->q[0]);
    f->n--;
    f->release--;
    return 1;
}

static int fake_wait(void *impl, struct gpu_result *out, int ms)
{
    (void)ms;
    return fake_poll(impl, out);
}

static void fake_close(void *impl)
{
    (void)impl;
}

static void fake_progress(void *impl, struct gpu_progress *out)
{
    *out = ((struct fake *)impl)->progress;
}

static const struct gpu_ops fake_ops = {fake_submit, fake_poll, fake_wait, fake_close,
                                        fake_progress};

/* a hub over a fake runner that takes cap requests at a time */
struct rig {
    struct fake f;
    struct gpu *g;
    struct req_hub h;
};

static void rig_open(struct rig *r, int cap, int available)
{
    memset(r, 0, sizeof *r);
    r->f.cap = cap;
    struct gpu_info info;
    memset(&info, 0, sizeof info);
    info.backend = GPU_BACKEND_CUDA;
    info.available = available;
    snprintf(info.err.msg, sizeof info.err.msg, "%s", available ? "" : "no device");
    r->g = gpu_wrap_new(&fake_ops, &r->f, NULL, GPU_BACKEND_CUDA);
    assert_non_null(r->g);
    req_hub_init(&r->h, r->g, &info);
}

static void rig_close(struct rig *r)
{
    req_hub_done(&r->h);
    gpu_close(r->g);
}

static struct gpu_request question(long long v)
{
    struct gpu_request rq;
    memset(&rq, 0, sizeof rq);
    rq.kind = GPU_REQ_CASE;
    snprintf(rq.case_name, sizeof rq.case_name, "copy");
    rq.nparams = 1;
    rq.param_value[0] = v;
    return rq;
}

/* answer everything in flight, polling after each */
static void answer_all(struct req_hub *h, struct fake *f)
{
    for (int guard = 0; guard < 1000 && (f->n > 0 || h->waiting); guard++) {
        f->release = 1;
        req_hub_poll(h);
    }
}

static int answers;
static double last_answer;

static void on_answer(void *ctx, const struct gpu_result *r)
{
    (void)ctx;
    answers++;
    last_answer = r->clk_per_request;
}

/* --- tests ------------------------------------------------------------------------------ */

static void test_slot_latest_wins(void **state)
{
    (void)state;
    static struct rig r;
    rig_open(&r, 16, 1);
    struct req_slot s;
    req_slot_init(&s, on_answer, NULL);
    answers = 0;

    struct gpu_request q1 = question(1);
    req_ask(&r.h, &s, &q1);
    assert_int_equal(s.state, REQ_RUNNING);      /* nothing in flight: sent at once */
    assert_int_equal(r.f.submitted, 1);
    /* a key held down: three more questions while the first runs; only the last is sent */
    for (long long v = 2; v <= 4; v++) {
        struct gpu_request q = question(v);
        req_ask(&r.h, &s, &q);
        assert_int_equal(s.state, REQ_WAITING);
    }
    assert_int_equal(r.f.submitted, 1);
    r.f.release = 1;                               /* the answer to 1 arrives: it no longer counts */
    assert_int_equal(req_hub_poll(&r.h), 1);
    assert_int_equal(answers, 0);
    assert_int_equal(s.state, REQ_RUNNING);      /* and 4 went out */
    assert_int_equal(r.f.submitted, 2);
    assert_int_equal(r.f.last_value, 4);
    r.f.release = 1;
    req_hub_poll(&r.h);
    assert_int_equal(s.state, REQ_DONE);
    assert_int_equal(answers, 1);
    assert_true(s.result.clk_per_request == 4.0);
    assert_true(last_answer == 4.0);
    rig_close(&r);
}

static void test_two_slots_and_forget(void **state)
{
    (void)state;
    static struct rig r;
    rig_open(&r, 16, 1);
    struct req_slot a, b;
    req_slot_init(&a, on_answer, NULL);
    req_slot_init(&b, on_answer, NULL);
    answers = 0;
    struct gpu_request qa = question(10), qb = question(20);
    req_ask(&r.h, &a, &qa);
    req_ask(&r.h, &b, &qb);                        /* waits for a's */
    assert_int_equal(a.state, REQ_RUNNING);
    assert_int_equal(b.state, REQ_WAITING);
    answer_all(&r.h, &r.f);
    assert_int_equal(a.state, REQ_DONE);
    assert_int_equal(b.state, REQ_DONE);
    assert_true(a.result.clk_per_request == 10.0);
    assert_true(b.result.clk_per_request == 20.0);
    assert_int_equal(answers, 2);
    /* forgotten while running: the answer is dropped, the slot stays idle */
    req_ask(&r.h, &a, &qb);
    assert_int_equal(a.state, REQ_RUNNING);
    req_forget(&r.h, &a);
    assert_int_equal(a.state, REQ_IDLE);
    answer_all(&r.h, &r.f);
    assert_int_equal(a.state, REQ_IDLE);
    assert_int_equal(answers, 2);
    assert_int_equal(r.h.inflight, 0);             /* but it was counted and answered */
    rig_close(&r);
}

static int series_seen[40];
static int skip_every;

static int fill(void *ctx, int i, struct gpu_request *rq)
{
    (void)ctx;
    if (skip_every && i % skip_every == 0)
        return -1;                               /* the model cannot evaluate this value */
    *rq = question(100 + i);
    return 0;
}

static void series_answer(void *ctx, int i, const struct gpu_result *r)
{
    (void)ctx;
    assert_true(i >= 0 && i < 40);
    assert_true(r->clk_per_request == 100.0 + i);    /* each answer reaches its number */
    series_seen[i]++;
}

/* a runner taking 4 at a time, nothing seen yet, every skip-th value not measurable */
static void series_rig(struct rig *r, int skip)
{
    rig_open(r, 4, 1);
    memset(series_seen, 0, sizeof series_seen);
    skip_every = skip;
}

static void test_series_fills_queue(void **state)
{
    (void)state;
    static struct rig r;
    int ctx;
    series_rig(&r, 5);
    assert_int_equal(req_series_start(&r.h, &ctx, 40, fill, series_answer), 0);
    assert_int_equal(r.f.n, 4);                    /* the runner's queue is full */
    /* a slot asked now waits for the series: the series keeps the queue busy */
    struct req_slot s;
    req_slot_init(&s, NULL, NULL);
    struct gpu_request q = question(7);
    req_ask(&r.h, &s, &q);
    assert_int_equal(s.state, REQ_WAITING);
    answer_all(&r.h, &r.f);
    for (int i = 0; i < 40; i++)
        assert_int_equal(series_seen[i], i % 5 == 0 ? 0 : 1);
    assert_int_equal(s.state, REQ_DONE);
    assert_true(s.result.clk_per_request == 7.0);
    rig_close(&r);
}

static void test_series_stop(void **state)
{
    (void)state;
    static struct rig r;
    int ctx;
    series_rig(&r, 0);
    req_series_start(&r.h, &ctx, 40, fill, series_answer);
    assert_int_equal(r.f.submitted, 4);
    req_series_stop(&r.h, &ctx);                   /* the sweep closed */
    answer_all(&r.h, &r.f);
    assert_int_equal(r.f.submitted, 4);            /* nothing more was sent */
    for (int i = 0; i < 40; i++)
        assert_int_equal(series_seen[i], 0);     /* and the late answers went nowhere */
    /* open again with the same ctx: old answers never reach the new series */
    req_series_start(&r.h, &ctx, 2, fill, series_answer);
    answer_all(&r.h, &r.f);
    assert_int_equal(series_seen[0], 1);
    assert_int_equal(series_seen[1], 1);
    assert_int_equal(series_seen[2], 0);
    rig_close(&r);
}

static void test_no_gpu(void **state)
{
    (void)state;
    static struct rig r;
    rig_open(&r, 4, 0);
    assert_false(req_hub_ready(&r.h));
    struct req_slot s;
    req_slot_init(&s, NULL, NULL);
    struct gpu_request q = question(1);
    req_ask(&r.h, &s, &q);
    assert_int_equal(s.state, REQ_IDLE);         /* nothing to wait for */
    int ctx;
    req_series_start(&r.h, &ctx, 10, fill, series_answer);
    assert_int_equal(r.f.submitted, 0);
    rig_close(&r);

    /* no runner yet: the background open finds out (a device here or not); a question asked
     * meanwhile waits and is then sent or dropped, never left waiting */
    struct req_hub h;
    req_hub_init(&h, NULL, NULL);
    /* the tutor asks for its first step's measurement before the first frame, and the open
     * starts after that frame: the question waits for it */
    req_ask(&h, &s, &q);
    assert_true(req_hub_opening(&h));
    assert_int_equal(s.state, REQ_WAITING);
    assert_int_equal(req_hub_open(&h, 0, NULL, 1), 0);  /* in this process: no GPU server */
    assert_true(s.state == REQ_WAITING || !req_hub_opening(&h));
    for (int i = 0; i < 3000 && req_hub_opening(&h); i++) {
        req_hub_poll(&h);
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    req_hub_poll(&h);
    assert_false(req_hub_opening(&h));
    assert_int_not_equal(s.state, REQ_WAITING);  /* sent to the device found, or dropped */
    if (!req_hub_ready(&h))
        assert_int_equal(s.state, REQ_IDLE);
    req_hub_done(&h);
}

/* A class on one server: the runner waits for the device's turn; the hub passes that on,
 * and asks for a redraw when the seconds or the place change, not otherwise. */
static void test_waiting_for_turn(void **state)
{
    (void)state;
    static struct rig r;
    rig_open(&r, 16, 1);
    struct req_slot s;
    req_slot_init(&s, NULL, NULL);
    struct gpu_request rq = question(3);
    req_ask(&r.h, &s, &rq);
    assert_int_equal(s.state, REQ_RUNNING);
    req_hub_poll(&r.h);
    assert_int_equal(req_hub_progress(&r.h)->phase, GPU_PHASE_IDLE);
    r.f.progress.phase = GPU_PHASE_WAITING;
    r.f.progress.id = 1;
    r.f.progress.seconds = 0.2;
    r.f.progress.ahead = 3;
    assert_int_equal(req_hub_poll(&r.h), 1);             /* a redraw: now waiting */
    assert_int_equal(req_hub_progress(&r.h)->phase, GPU_PHASE_WAITING);
    assert_int_equal(req_hub_progress(&r.h)->ahead, 3);
    r.f.progress.seconds = 0.7;
    assert_int_equal(req_hub_poll(&r.h), 0);             /* same second, same place */
    r.f.progress.seconds = 1.1;
    assert_int_equal(req_hub_poll(&r.h), 1);             /* "1 s" */
    r.f.progress.ahead = 2;
    assert_int_equal(req_hub_poll(&r.h), 1);             /* one turn closer */
    r.f.progress.phase = GPU_PHASE_MEASURING;
    assert_int_equal(req_hub_poll(&r.h), 1);
    memset(&r.f.progress, 0, sizeof r.f.progress);
    answer_all(&r.h, &r.f);
    assert_int_equal(s.state, REQ_DONE);
    assert_int_equal(req_hub_progress(&r.h)->phase, GPU_PHASE_IDLE);
    rig_close(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slot_latest_wins),
        cmocka_unit_test(test_two_slots_and_forget),
        cmocka_unit_test(test_series_fills_queue),
        cmocka_unit_test(test_series_stop),
        cmocka_unit_test(test_no_gpu),
        cmocka_unit_test(test_waiting_for_turn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
