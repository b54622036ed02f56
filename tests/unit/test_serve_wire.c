/* test_serve_wire.c: the frames of `banklab serve` (src/gpu/serve_wire.c): every message
 * survives encode and decode field for field; every shorter payload and one with a byte more
 * is refused; a string that does not fit its field, a flag that is not 0/1 and the header's
 * magic, version and size limit are refused; and the server's check of a request refuses
 * each kind of bad value while passing the lessons' requests.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "../../src/gpu/serve_wire.h"

/* W: e emptied for the next call (the first failure of an error wins) */
static struct bl_err *W(struct bl_err *e)
{
    bl_err_clear(e);
    return e;
}

static void payload(const struct sw_buf *b, int type, const uint8_t **p, size_t *n)
{
    int t;
    uint32_t len;
    struct bl_err err = {0};
    assert_int_equal(sw_parse_header(b->b, &t, &len, W(&err)), 0);
    assert_int_equal(t, type);
    assert_int_equal(len, b->len - SW_HEADER);
    *p = b->b + SW_HEADER;
    *n = len;
}

static void stride_req(struct gpu_request *q, unsigned width, unsigned k)
{
    memset(q, 0, sizeof *q);
    q->id = 0x1122334455667788ull;
    q->kind = GPU_REQ_PATTERN;
    q->access.width = width;
    q->access.mask = 0xffffffffu;
    for (int l = 0; l < BANK_LANES; l++)
        q->access.offset[l] = (uint64_t)l * k * width;
    q->want_timing = q->want_counters = 1;
}

static void test_request_roundtrip(void **state)
{
    (void)state;
    struct gpu_request q, d;
    stride_req(&q, 8, 3);
    q.access.op = BANK_STORE;
    q.access.mask = 0x0000ffffu;
    struct sw_buf b;
    assert_int_equal(sw_put_request(&b, &q), 0);
    const uint8_t *p;
    size_t n;
    payload(&b, SW_REQUEST, &p, &n);
    uint64_t id = 0;
    struct bl_err err = {0};
    assert_int_equal(sw_get_request(p, n, &d, &id, W(&err)), 0);
    assert_int_equal(id, q.id);
    assert_memory_equal(&d.access, &q.access, sizeof q.access);
    assert_int_equal(d.kind, q.kind);
    assert_int_equal(d.want_timing, 1);
    /* every truncation, and a byte more, is refused */
    for (size_t k = 0; k < n; k++) {
        bl_err_clear(&err);
        assert_int_equal(sw_get_request(p, k, &d, &id, W(&err)), -1);
        assert_true(err.msg[0] != '\0');
    }
    uint8_t more[SW_MAX_PAYLOAD];
    memcpy(more, p, n);
    more[n] = 0;
    bl_err_clear(&err);
    assert_int_equal(sw_get_request(more, n + 1, &d, &id, W(&err)), -1);
    assert_non_null(strstr(err.msg, "after the end"));
}

static void test_case_request(void **state)
{
    (void)state;
    struct gpu_request q, d;
    memset(&q, 0, sizeof q);
    q.id = 5;
    q.kind = GPU_REQ_CASE;
    snprintf(q.case_name, sizeof q.case_name, "row_col");
    q.nparams = 2;
    snprintf(q.param_name[0], sizeof q.param_name[0], "PAD");
    q.param_value[0] = 1;
    snprintf(q.param_name[1], sizeof q.param_name[1], "COL");  /* an alias */
    q.param_value[1] = 1;
    q.want_timing = 1;
    struct sw_buf b;
    assert_int_equal(sw_put_request(&b, &q), 0);
    const uint8_t *p;
    size_t n;
    payload(&b, SW_REQUEST, &p, &n);
    uint64_t id;
    struct bl_err err = {0};
    assert_int_equal(sw_get_request(p, n, &d, &id, W(&err)), 0);
    assert_string_equal(d.case_name, "row_col");
    assert_int_equal(d.nparams, 2);
    assert_string_equal(d.param_name[1], "COL");
    assert_int_equal(d.param_value[1], 1);
}

static void expect_refused(const struct gpu_request *q, const char *why)
{
    struct bl_err err = {0};
    assert_int_equal(sw_check_request(q, W(&err)), -1);
    if (!strstr(err.msg, why))
        fail_msg("refused with '%s', expected '%s'", err.msg, why);
    /* and the same through the wire */
    struct sw_buf b;
    assert_int_equal(sw_put_request(&b, q), 0);
    struct gpu_request d;
    uint64_t id;
    bl_err_clear(&err);
    assert_int_equal(sw_get_request(b.b + SW_HEADER, b.len - SW_HEADER, &d, &id, W(&err)), -1);
    assert_int_equal(id, q->id);
}

static void test_check(void **state)
{
    (void)state;
    struct gpu_request q;
    struct bl_err err = {0};
    for (unsigned w = 1; w <= 16; w *= 2) {
        stride_req(&q, w, 1);
        assert_int_equal(sw_check_request(&q, W(&err)), 0);
    }
    stride_req(&q, 3, 1);
    expect_refused(&q, "width");
    stride_req(&q, 4, 1);
    q.access.offset[7] += 2;
    expect_refused(&q, "lane 7");
    stride_req(&q, 4, 1);
    q.access.offset[31] = SW_MAX_OFFSET;
    expect_refused(&q, "beyond");
    stride_req(&q, 4, 1);
    q.access.offset[31] = SW_MAX_OFFSET + 1;  /* an inactive lane's offset does not count */
    q.access.mask = 0x7fffffffu;
    assert_int_equal(sw_check_request(&q, W(&err)), 0);
    q.access.mask = 0;
    expect_refused(&q, "no active lane");
    memset(&q, 0, sizeof q);
    q.kind = GPU_REQ_CASE;
    snprintf(q.case_name, sizeof q.case_name, "no_such_case");
    expect_refused(&q, "unknown case");
    snprintf(q.case_name, sizeof q.case_name, "transpose_padded");
    assert_int_equal(sw_check_request(&q, W(&err)), 0);
    q.nparams = 1;
    snprintf(q.param_name[0], sizeof q.param_name[0], "PAD");
    q.param_value[0] = 33;
    expect_refused(&q, "outside");
    q.param_value[0] = -1;
    expect_refused(&q, "outside");
    q.param_value[0] = 32;
    assert_int_equal(sw_check_request(&q, W(&err)), 0);
    snprintf(q.param_name[0], sizeof q.param_name[0], "SOA");
    expect_refused(&q, "no parameter");
}

static void test_result_roundtrip(void **state)
{
    (void)state;
    struct gpu_result r, d;
    memset(&r, 0, sizeof r);
    r.id = 42;
    r.err.status = GPU_EVERIFY;
    snprintf(r.err.msg, sizeof r.err.msg, "output differs at 3");
    snprintf(r.provenance, sizeof r.provenance, "NVIDIA H200 (sm_90), 1980 MHz");
    r.has_timing = r.has_access_timing = r.has_counters = 1;
    r.ms_median = 1.25;
    r.clk_per_access = 64.5;
    r.slowdown = 16.125;
    r.wavefronts_ld = 32;
    r.conflicts_st = 0.5;
    r.counters_busy = 1;
    snprintf(r.counters_note, sizeof r.counters_note, "busy");
    r.wait_ms = 12.5;
    r.from_server = r.from_cache = 1;
    r.cached_age_s = 40.25;
    struct sw_buf b;
    assert_int_equal(sw_put_result(&b, &r), 0);
    const uint8_t *p;
    size_t n;
    payload(&b, SW_RESULT, &p, &n);
    struct bl_err err = {0};
    assert_int_equal(sw_get_result(p, n, &d, W(&err)), 0);
    assert_memory_equal(&d, &r, sizeof r);
    for (size_t k = 0; k < n; k++)
        assert_int_equal(sw_get_result(p, k, &d, W(&err)), -1);
    /* a status outside the enum */
    uint8_t bad[SW_MAX_PAYLOAD];
    memcpy(bad, p, n);
    bad[8] = 77;
    bl_err_clear(&err);
    assert_int_equal(sw_get_result(bad, n, &d, W(&err)), -1);
    assert_non_null(strstr(err.msg, "status"));
}

static void test_info_and_small(void **state)
{
    (void)state;
    struct gpu_info in, d;
    memset(&in, 0, sizeof in);
    in.backend = GPU_BACKEND_CUDA;
    in.available = in.counters = 1;
    snprintf(in.device, sizeof in.device, "NVIDIA H200 (sm_90)");
    snprintf(in.lock, sizeof in.lock, "turns through /run/lock/banklab-GPU-x.lock");
    in.sm_count = 132;
    in.clock_khz = 1980000;
    struct sw_buf b;
    assert_int_equal(sw_put_info(&b, &in), 0);
    const uint8_t *p;
    size_t n;
    payload(&b, SW_HELLO, &p, &n);
    struct bl_err err = {0};
    assert_int_equal(sw_get_info(p, n, &d, W(&err)), 0);
    assert_memory_equal(&d, &in, sizeof in);

    struct sw_control c = {SW_CTL_PAUSE, 30}, dc;
    assert_int_equal(sw_put_control(&b, &c), 0);
    payload(&b, SW_CONTROL, &p, &n);
    assert_int_equal(sw_get_control(p, n, &dc, W(&err)), 0);
    assert_int_equal(dc.seconds, 30);
    c.seconds = -5;
    assert_int_equal(sw_put_control(&b, &c), 0);
    payload(&b, SW_CONTROL, &p, &n);
    assert_int_equal(sw_get_control(p, n, &dc, W(&err)), -1);

    struct serve_stats s = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, ds;
    assert_int_equal(sw_put_stats(&b, &s), 0);
    payload(&b, SW_STATS, &p, &n);
    assert_int_equal(sw_get_stats(p, n, &ds, W(&err)), 0);
    assert_memory_equal(&ds, &s, sizeof s);

    struct sw_progress pr = {9, GPU_PHASE_WAITING, 3}, dp;
    assert_int_equal(sw_put_progress(&b, &pr), 0);
    payload(&b, SW_PROGRESS, &p, &n);
    assert_int_equal(sw_get_progress(p, n, &dp, W(&err)), 0);
    assert_int_equal(dp.ahead, 3);
}

static void test_strings_and_header(void **state)
{
    (void)state;
    /* a hand-made request whose case name is 64 bytes: one more than its field holds */
    struct gpu_request q;
    stride_req(&q, 4, 1);
    struct sw_buf b;
    assert_int_equal(sw_put_request(&b, &q), 0);
    size_t name_at = SW_HEADER + 8 + 1 + 1 + 1 + 4 + 32 * 8;
    assert_int_equal(b.b[name_at], 0);
    uint8_t f[SW_MAX_FRAME];
    memcpy(f, b.b, name_at);
    f[name_at] = 64;
    f[name_at + 1] = 0;
    memset(f + name_at + 2, 'a', 64);
    memcpy(f + name_at + 66, b.b + name_at + 2, b.len - name_at - 2);
    size_t len = b.len + 64;
    struct bl_err err = {0};
    struct gpu_request d;
    uint64_t id;
    assert_int_equal(sw_get_request(f + SW_HEADER, len - SW_HEADER, &d, &id, W(&err)), -1);
    assert_non_null(strstr(err.msg, "at most 63"));
    /* a NUL inside a string */
    f[name_at] = 3;
    memcpy(f + name_at + 2, "a\0b", 3);
    memcpy(f + name_at + 5, b.b + name_at + 2, b.len - name_at - 2);
    bl_err_clear(&err);
    assert_int_equal(sw_get_request(f + SW_HEADER, b.len + 3 - SW_HEADER, &d, &id, W(&err)), -1);
    assert_non_null(strstr(err.msg, "NUL"));
    /* the header */
    int type;
    uint32_t n;
    uint8_t h[SW_HEADER];
    memcpy(h, b.b, SW_HEADER);
    h[8] = 0x01;
    h[9] = 0x20;                   /* 8193 bytes */
    h[10] = h[11] = 0;
    bl_err_clear(&err);
    assert_int_equal(sw_parse_header(h, &type, &n, W(&err)), -2);
    h[9] = 0x20;
    h[8] = 0;                      /* 8192: the limit itself is fine */
    assert_int_equal(sw_parse_header(h, &type, &n, W(&err)), 0);
    h[4] = 2;
    bl_err_clear(&err);
    assert_int_equal(sw_parse_header(h, &type, &n, W(&err)), -1);
    assert_non_null(strstr(err.msg, "version"));
    h[4] = 1;
    h[0] = 'X';
    assert_int_equal(sw_parse_header(h, &type, &n, W(&err)), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_request_roundtrip),
        cmocka_unit_test(test_case_request),
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_result_roundtrip),
        cmocka_unit_test(test_info_and_small),
        cmocka_unit_test(test_strings_and_header),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
