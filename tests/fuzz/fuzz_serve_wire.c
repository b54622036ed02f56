/* fuzz_serve_wire.c: libFuzzer target for the frames of `banklab serve` (src/gpu/serve_wire.c):
 * any bytes as a stream of frames, each payload through the decoder of its type and through
 * every other decoder (a server must survive any frame a client sends); a request that
 * decodes passes the server's check and encodes back to the same fields. Must never crash,
 * hang, leak or trip a sanitizer. Links src/gpu and src/model. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../../src/gpu/serve_wire.h"

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

static void decode_all(const uint8_t *p, size_t n)
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
            memcmp(&d.access, &q.access, sizeof q.access) || strcmp(d.case_name, q.case_name))
            __builtin_trap();
        touch(q.case_name);
        for (int i = 0; i < q.nparams; i++)
            touch(q.param_name[i]);
    }
    touch(err.msg);
    struct gpu_result r;
    bl_err_clear(&err);
    if (sw_get_result(p, n, &r, W(&err)) == 0)
        {
        touch(r.err.msg);
        touch(r.provenance);
        touch(r.counters_note);
    }
    struct gpu_info in;
    if (sw_get_info(p, n, &in, W(&err)) == 0)
        {
        touch(in.device);
        touch(in.err.msg);
        touch(in.lock);
        touch(in.counters_err.msg);
    }
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
