/* fuzz_serve_wire.c: libFuzzer target for the frames of `banklab serve` (src/serve/wire.c):
 * any bytes as a stream of frames, each payload through the decoder of its type and through
 * every other decoder (a server must survive any frame a client sends, a client any frame a
 * server sends); a request, a result or an info that decodes encodes back to the same struct,
 * every field (the wire carries them all), a request passes the server's check, and every
 * number of a decoded result is finite and in its range. Must never crash, hang, leak or trip
 * a sanitizer. Links src/serve, src/gpu and src/model. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../../src/serve/wire.h"

/* W: e emptied for the next call (the first failure of an error wins) */
static struct bl_err *W(struct bl_err *e)
{
    bl_err_clear(e);
    return e;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

static void touch(const char *s)
{
    sink += strlen(s);             /* every string must be terminated */
}

/* a finite number in lo..hi, or trap */
static void in_range(double v, double lo, double hi)
{
    if (!(isfinite(v) && v >= lo && v <= hi))
        __builtin_trap();
}

static void decode_request(const uint8_t *p, size_t n)
{
    struct bl_err err = {0};
    struct gpu_request q;
    uint64_t id;
    if (sw_get_request(p, n, &q, &id, W(&err)) == 0) {
        struct bl_err e2 = {0};
        if (sw_check_request(&q, W(&e2)))
            __builtin_trap();      /* the decoder checked it */
        struct sw_buf b;
        struct gpu_request d;
        uint64_t id2;
        if (sw_put_request(&b, &q) ||
            sw_get_request(b.b + SW_HEADER, b.len - SW_HEADER, &d, &id2, W(&e2)) ||
            memcmp(&d, &q, sizeof q) || !sw_same_request(&d, &q))
            __builtin_trap();
        touch(q.case_name);
        for (int i = 0; i < q.nparams; i++)
            touch(q.param_name[i]);
    }
    touch(err.msg);
}

static void decode_result(const uint8_t *p, size_t n)
{
    struct bl_err err = {0};
    struct gpu_result r;
    if (sw_get_result(p, n, &r, W(&err)) == 0) {
        const double t[] = {r.ms_median, r.ms_min, r.ms_max, r.wait_ms};
        for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
            in_range(t[i], 0, SW_MS_MAX);
        const double c[] = {r.wavefronts_ld, r.wavefronts_st, r.conflicts_ld, r.conflicts_st};
        for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
            in_range(c[i], 0, SW_COUNTER_MAX);
        in_range(r.slowdown, 0, SW_SLOWDOWN_MAX);
        in_range(r.clk_per_access, 0, SW_RATE_MAX);
        in_range(r.cached_age_s, 0, SW_AGE_MAX);
        struct sw_buf b;
        struct gpu_result d;
        struct bl_err e2 = {0};
        if (sw_put_result(&b, &r) || sw_get_result(b.b + SW_HEADER, b.len - SW_HEADER, &d, W(&e2)) ||
            memcmp(&d, &r, sizeof r))
            __builtin_trap();
        char text[BL_ERR_TEXT];
        touch(bl_err_text(&r.err, BL_LANG_ZH, text, sizeof text));
    }
    touch(r.err.msg);             /* a refused result holds its refusal */
    touch(r.provenance);
    touch(r.counters_note);
    touch(err.msg);
}

static void decode_info(const uint8_t *p, size_t n)
{
    struct bl_err err = {0};
    struct gpu_info in;
    if (sw_get_info(p, n, &in, W(&err)) == 0) {
        struct sw_buf b;
        struct gpu_info d;
        struct bl_err e2 = {0};
        if (sw_put_info(&b, &in) || sw_get_info(b.b + SW_HEADER, b.len - SW_HEADER, &d, W(&e2)) ||
            memcmp(&d, &in, sizeof in))
            __builtin_trap();
        touch(in.device);
        touch(in.err.msg);
        touch(in.lock);
        touch(in.counters_err.msg);
        char text[BL_ERR_TEXT];
        touch(bl_msg_or_text(&in.device_msg, in.device, BL_LANG_ZH, text, sizeof text));
    }
    touch(err.msg);
}

static void decode_all(const uint8_t *p, size_t n)
{
    decode_request(p, n);
    decode_result(p, n);
    decode_info(p, n);
    struct bl_err err = {0};
    struct sw_hello h;
    struct sw_control c;
    struct sw_progress pr;
    struct serve_stats st;
    sw_get_hello(p, n, &h, W(&err));
    sw_get_control(p, n, &c, W(&err));
    sw_get_progress(p, n, &pr, W(&err));
    sw_get_stats(p, n, &st, W(&err));
    touch(err.msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the whole input as one payload, then as a stream of frames */
    decode_all(data, size);
    size_t at = 0;
    while (size - at >= SW_HEADER) {
        int type;
        uint32_t len;
        struct bl_err err = {0};
        if (sw_parse_header(data + at, &type, &len, W(&err)))
            break;
        if (size - at - SW_HEADER < len)
            break;
        decode_all(data + at + SW_HEADER, len);
        at += SW_HEADER + len;
    }
    return 0;
}
