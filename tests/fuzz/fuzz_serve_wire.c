/* fuzz_serve_wire.c: libFuzzer target for the frames of `banklab serve` (src/gpu/serve_wire.c):
 * any bytes as a stream of frames, each payload through the decoder of its type and through
 * every other decoder (a server must survive any frame a client sends); a request that
 * decodes passes the server's check and encodes back to the same fields. Must never crash,
 * hang, leak or trip a sanitizer. Links src/gpu and src/model. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../../src/gpu/serve_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

static void touch(const char *s)
{
    sink += strlen(s);             /* every string must be terminated */
}

static void decode_all(const uint8_t *p, size_t n)
{
    char err[SW_ERR_MAX] = "";
    struct gpu_request q;
    uint64_t id;
    if (sw_get_request(p, n, &q, &id, err, sizeof err) == 0) {
        char e2[SW_ERR_MAX] = "";
        if (sw_check_request(&q, e2, sizeof e2))
            __builtin_trap();      /* the decoder checked it */
        struct sw_buf b;
        struct gpu_request d;
        uint64_t id2;
        if (sw_put_request(&b, &q) ||
            sw_get_request(b.b + SW_HEADER, b.len - SW_HEADER, &d, &id2, e2, sizeof e2) ||
            memcmp(&d.access, &q.access, sizeof q.access) || strcmp(d.case_name, q.case_name))
            __builtin_trap();
        touch(q.case_name);
        for (int i = 0; i < q.nparams; i++)
            touch(q.param_name[i]);
    }
    touch(err);
    struct gpu_result r;
    err[0] = '\0';
    if (sw_get_result(p, n, &r, err, sizeof err) == 0)
        {
        touch(r.err.msg);
        touch(r.provenance);
        touch(r.counters_note);
    }
    struct gpu_info in;
    if (sw_get_info(p, n, &in, err, sizeof err) == 0)
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
    sw_get_hello(p, n, &h, err, sizeof err);
    sw_get_control(p, n, &c, err, sizeof err);
    sw_get_progress(p, n, &pr, err, sizeof err);
    sw_get_stats(p, n, &st, err, sizeof err);
    touch(err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the whole input as one payload, then as a stream of frames */
    decode_all(data, size);
    size_t at = 0;
    while (size - at >= SW_HEADER) {
        int type;
        uint32_t len;
        char err[SW_ERR_MAX] = "";
        if (sw_parse_header(data + at, &type, &len, err, sizeof err))
            break;
        if (size - at - SW_HEADER < len)
            break;
        decode_all(data + at + SW_HEADER, len);
        at += SW_HEADER + len;
    }
    return 0;
}
