/* test_serve_wire.c: the frames of `banklab serve` (src/serve/wire.c).
 *
 * Every field: struct gpu_request (with its struct bank_access), struct gpu_result and struct
 * gpu_info (with their struct bl_err, bl_place and bl_msg) are filled with a distinct value in
 * every field through positional initializers, and must come back byte for byte and field by
 * field. A positional initializer that misses a field is an error in this file (the pragma
 * below), so a field added to one of these structs fails this test until it is given a value
 * here, and then fails the round trip until the wire carries it.
 *
 * Also: every shorter payload and one with a byte more is refused; a number out of its range
 * (NaN, infinity, 1e18, a negative time, an enum or a count outside its range), a string with
 * a control character, invalid UTF-8 or a NUL, and a request the model refuses (unknown
 * instruction, ldmatrix of 8 bytes or with a lane missing, matrices 3, global sources that are
 * misaligned, past the source buffer or not for cp.async) are refused with a bl_err naming
 * it; a refused result keeps its id and says it was refused; sw_same_request tells every field
 * apart (the server's cache and merging) but the id and what no measurement reads.
 */
#define _GNU_SOURCE                       /* memmem */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/runner/counters.h"
#include "../../src/serve/wire.h"
#include "../../src/cuda/cudalib.h"

#pragma GCC diagnostic error "-Wmissing-field-initializers"

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

/* ---- every field, distinct ---- */

#define L8(f, o) f(o + 0), f(o + 1), f(o + 2), f(o + 3), f(o + 4), f(o + 5), f(o + 6), f(o + 7)
#define L32(f) L8(f, 0), L8(f, 8), L8(f, 16), L8(f, 24)
#define OFF(l) (8 + 24 * (l))            /* 8-byte aligned, distinct, below SW_MAX_OFFSET */
#define SRC(l) (8 * (l) + 64)           /* aligned, inside the 64 KiB source */

/* A cp.async access of a case kernel's request: every field of both structs nonzero and
 * distinct from its neighbours, and a request the server measures. */
static const struct gpu_request full_request = {
    0x1122334455667788ull,              /* id */
    GPU_REQ_CASE,                       /* kind */
    {
        8,                              /* width */
        BANK_STORE,                     /* op */
        0x7ffffffeu,                    /* mask */
        {L32(OFF)},                     /* offset */
        BANK_CPASYNC,                   /* instr */
        2,                              /* matrices (not read by cp.async; carried) */
        1,                              /* trans */
        1,                              /* has_src */
        {L32(SRC)},                     /* src */
    },
    "broadcast",                        /* case_name */
    2,                                  /* nparams */
    {"GROUP", "STRIDE"},                /* param_name */
    {4, 7},                             /* param_value */
    1,                                  /* want_timing */
    1,                                  /* want_counters */
};

/* The error's place, lane and message are set by bl_fail (the message must say its msg). */
static const struct gpu_result full_result_base = {
    0x0102030405060708ull,              /* id */
    {0, {0, 0, -1}, -1, {0, 0, {{0, {0}}}, ""}, ""},  /* err: bl_fail below */
    "NVIDIA H200 (sm_90), 1980 MHz; timing: median of 11 launches",  /* provenance */
    1,                                  /* has_timing */
    1.25, 1.125, 1.5,                   /* ms_median, ms_min, ms_max */
    11,                                 /* launches */
    2.75,                               /* clk_per_request */
    93.5,                               /* bytes_per_clk_per_sm */
    3500.25,                            /* gbps */
    1,                                  /* verified */
    1,                                  /* has_access_timing */
    64.5, 32.625, 2.0625, 31.25,        /* clk_per_access, ns_per_access, ref_clk, slowdown */
    1,                                  /* has_counters */
    32.0, 8.5, 31.0, 7.5,               /* wavefronts_ld/st, conflicts_ld/st */
    4096.0, 2048.0,                     /* inst_ld, inst_st */
    "counters: CUPTI, 1 warp x 4096 instructions \xe8\xae\xa1\xe6\x95\xb0",  /* counters_note */
    {0, 0, {{0, {0}}}, ""},             /* counters_msg: gpu_note below */
    1,                                  /* counters_busy */
    12.5,                               /* wait_ms */
    1,                                  /* from_server */
    1,                                  /* from_cache */
    40.25,                              /* cached_age_s */
};

static const struct gpu_info full_info_base = {
    GPU_BACKEND_CUDA,                   /* backend */
    1,                                  /* available */
    {0, {0, 0, -1}, -1, {0, 0, {{0, {0}}}, ""}, ""},  /* err: bl_fail below */
    "recorded on NVIDIA H200 (sm_90), 2026-12-03",    /* device: device_msg says it */
    9, 1,                               /* cc_major, cc_minor */
    132,                                /* sm_count */
    1980000,                            /* clock_khz */
    1,                                  /* counters */
    {0, {0, 0, -1}, -1, {0, 0, {{0, {0}}}, ""}, ""},  /* counters_err: bl_fail below */
    "turns through /run/lock/banklab-GPU-x.lock",     /* lock */
    {0, 0, {{0, {0}}}, ""},             /* device_msg: bl_msg_set below */
    {0, 0, {{0, {0}}}, ""},             /* lock_msg: bl_msg_set below */
};

static void full_result(struct gpu_result *r)
{
    memset(r, 0, sizeof *r);
    *r = full_result_base;
    bl_fail(&r->err, GPU_EVERIFY, BL_AT(2, 5, 7), CNT_BUSY_TRIED, "held by ncu", 3, 1.5);
    r->err.lane = 9;                    /* a lane named unsaid: distinct from where.lane */
    gpu_note(r, CNT_BUSY, "ncu");   /* a string argument: sbuf travels too */
}

static void full_info(struct gpu_info *in)
{
    memset(in, 0, sizeof *in);
    *in = full_info_base;
    bl_fail(&in->err, GPU_EUNAVAILABLE, BL_AT(4, 5, -1), GPU_DEVICE_ERROR, 1, "no such thing");
    in->err.lane = 3;
    bl_fail(&in->counters_err, CTR_BUSY, BL_AT(6, 1, 2), CNT_BUSY, "another process");
    char dev[GPU_TEXT_MAX];
    bl_msg_set(&in->device_msg, dev, sizeof dev, GPU_RECORDED_ON, "NVIDIA H200 (sm_90)",
               "2026-12-03");
    assert_string_equal(dev, in->device);
    char lock[GPU_TEXT_MAX];
    bl_msg_set(&in->lock_msg, lock, sizeof lock, GPU_TURNS_THROUGH, "/run/lock/banklab-GPU-x.lock");
    assert_string_equal(lock, in->lock);
}

/* One field of a struct: where it is, for saying which one did not come back. */
struct field {
    const char *name;
    size_t off, size;
};
#define F(type, m) {#m, offsetof(type, m), sizeof(((type *)0)->m)}

static const struct field request_fields[] = {
    F(struct gpu_request, id), F(struct gpu_request, kind), F(struct gpu_request, access.width),
    F(struct gpu_request, access.op), F(struct gpu_request, access.mask),
    F(struct gpu_request, access.offset), F(struct gpu_request, access.instr),
    F(struct gpu_request, access.matrices), F(struct gpu_request, access.trans),
    F(struct gpu_request, access.has_src), F(struct gpu_request, access.src),
    F(struct gpu_request, case_name), F(struct gpu_request, nparams),
    F(struct gpu_request, param_name), F(struct gpu_request, param_value),
    F(struct gpu_request, want_timing), F(struct gpu_request, want_counters), {NULL, 0, 0}};

#define ERR_FIELDS(type, e)                                                                       \
    F(type, e.status), F(type, e.where.at), F(type, e.where.len), F(type, e.where.lane),         \
    F(type, e.lane), F(type, e.why.id), F(type, e.why.nargs), F(type, e.why.arg),                \
    F(type, e.why.sbuf), F(type, e.msg)

static const struct field result_fields[] = {
    F(struct gpu_result, id), ERR_FIELDS(struct gpu_result, err),
    F(struct gpu_result, provenance), F(struct gpu_result, has_timing),
    F(struct gpu_result, ms_median), F(struct gpu_result, ms_min), F(struct gpu_result, ms_max),
    F(struct gpu_result, launches), F(struct gpu_result, clk_per_request),
    F(struct gpu_result, bytes_per_clk_per_sm), F(struct gpu_result, gbps),
    F(struct gpu_result, verified), F(struct gpu_result, has_access_timing),
    F(struct gpu_result, clk_per_access), F(struct gpu_result, ns_per_access),
    F(struct gpu_result, ref_clk_per_access), F(struct gpu_result, slowdown),
    F(struct gpu_result, has_counters), F(struct gpu_result, wavefronts_ld),
    F(struct gpu_result, wavefronts_st), F(struct gpu_result, conflicts_ld),
    F(struct gpu_result, conflicts_st), F(struct gpu_result, inst_ld),
    F(struct gpu_result, inst_st), F(struct gpu_result, counters_note),
    F(struct gpu_result, counters_msg.id), F(struct gpu_result, counters_msg.nargs),
    F(struct gpu_result, counters_msg.arg), F(struct gpu_result, counters_msg.sbuf),
    F(struct gpu_result, counters_busy), F(struct gpu_result, wait_ms),
    F(struct gpu_result, from_server), F(struct gpu_result, from_cache),
    F(struct gpu_result, cached_age_s), {NULL, 0, 0}};

static const struct field info_fields[] = {
    F(struct gpu_info, backend), F(struct gpu_info, available), ERR_FIELDS(struct gpu_info, err),
    F(struct gpu_info, device), F(struct gpu_info, cc_major), F(struct gpu_info, cc_minor),
    F(struct gpu_info, sm_count), F(struct gpu_info, clock_khz), F(struct gpu_info, counters),
    ERR_FIELDS(struct gpu_info, counters_err), F(struct gpu_info, lock),
    F(struct gpu_info, device_msg.id), F(struct gpu_info, device_msg.nargs),
    F(struct gpu_info, device_msg.arg), F(struct gpu_info, device_msg.sbuf),
    F(struct gpu_info, lock_msg.id), F(struct gpu_info, lock_msg.nargs),
    F(struct gpu_info, lock_msg.arg), F(struct gpu_info, lock_msg.sbuf), {NULL, 0, 0}};

/* every field of got equals want's, and want's fields are not zero (a value that would come
 * back from a decoder that never read it); then the whole struct, padding included (both
 * were cleared before their fields were set) */
static void same_fields(const char *what, const struct field *f, const void *want, const void *got,
                        size_t size)
{
    static const uint8_t zero[1024];
    for (; f->name; f++) {
        if (f->size <= sizeof zero && !memcmp((const uint8_t *)want + f->off, zero, f->size))
            fail_msg("%s.%s is 0 in the test's value: give it a distinct one", what, f->name);
        if (memcmp((const uint8_t *)want + f->off, (const uint8_t *)got + f->off, f->size))
            fail_msg("%s.%s did not come back over the wire", what, f->name);
    }
    assert_memory_equal(want, got, size);
}

static void test_request_every_field(void **state)
{
    (void)state;
    struct gpu_request q, d;
    memset(&q, 0, sizeof q);
    q = full_request;
    struct sw_buf b;
    assert_int_equal(sw_put_request(&b, &q), 0);
    const uint8_t *p;
    size_t n;
    payload(&b, SW_REQUEST, &p, &n);
    uint64_t id = 0;
    struct bl_err err = {0};
    if (sw_get_request(p, n, &d, &id, W(&err)))
        fail_msg("refused: %s", err.msg);
    assert_int_equal(id, q.id);
    same_fields("request", request_fields, &q, &d, sizeof q);
    /* every truncation, and a byte more, is refused */
    for (size_t k = 0; k < n; k++) {
        assert_int_equal(sw_get_request(p, k, &d, &id, W(&err)), -1);
        assert_true(err.msg[0] != '\0');
    }
    uint8_t more[SW_MAX_PAYLOAD];
    memcpy(more, p, n);
    more[n] = 0;
    assert_int_equal(sw_get_request(more, n + 1, &d, &id, W(&err)), -1);
    assert_non_null(strstr(err.msg, "after the end"));
}

static void test_result_every_field(void **state)
{
    (void)state;
    struct gpu_result r, d;
    full_result(&r);
    struct sw_buf b;
    assert_int_equal(sw_put_result(&b, &r), 0);
    const uint8_t *p;
    size_t n;
    payload(&b, SW_RESULT, &p, &n);
    struct bl_err err = {0};
    memset(&d, 0x5a, sizeof d);
    if (sw_get_result(p, n, &d, W(&err)))
        fail_msg("refused: %s", err.msg);
    same_fields("result", result_fields, &r, &d, sizeof r);
    /* the message came back as a message: rendered in Chinese, not only its English text */
    char zh[BL_ERR_TEXT];
    bl_err_text(&d.err, BL_LANG_ZH, zh, sizeof zh);
    assert_non_null(strstr(zh, "计数器被占用"));
    for (size_t k = 0; k < n; k++)
        assert_int_equal(sw_get_result(p, k, &d, W(&err)), -1);
}

static void test_info_every_field(void **state)
{
    (void)state;
    struct gpu_info in, d;
    full_info(&in);
    struct sw_buf b;
    assert_int_equal(sw_put_info(&b, &in), 0);
    const uint8_t *p;
    size_t n;
    payload(&b, SW_HELLO, &p, &n);
    struct bl_err err = {0};
    if (sw_get_info(p, n, &d, W(&err)))
        fail_msg("refused: %s", err.msg);
    same_fields("info", info_fields, &in, &d, sizeof in);
    for (size_t k = 0; k < n; k++)
        assert_int_equal(sw_get_info(p, k, &d, W(&err)), -1);
}

/* A message nested in a message crosses by name: the server measuring without turns says the
 * lock's own why, in the learner's language (before, the client refused the whole hello). */
static void test_nested_message(void **state)
{
    (void)state;
    struct gpu_info in, d;
    full_info(&in);
    struct bl_err why = {0}, err = {0};
    bl_fail(&why, -1, BL_NOWHERE, DLK_HEADER_HELD, "/run/lock/banklab-GPU-x.lock", 3.0);
    struct bl_msg m;
    bl_err_msg(&why, &m);
    bl_msg_set(&in.lock_msg, in.lock, sizeof in.lock, GPU_WITHOUT_TURNS, &m);
    struct sw_buf b;
    assert_int_equal(sw_put_info(&b, &in), 0);
    const uint8_t *p;
    size_t n;
    payload(&b, SW_HELLO, &p, &n);
    if (sw_get_info(p, n, &d, W(&err)))
        fail_msg("refused: %s", err.msg);
    char zh[512];
    bl_msg_render(&d.lock_msg, BL_LANG_ZH, zh, sizeof zh);
    assert_string_equal(zh, "不排队：GPU 锁 /run/lock/banklab-GPU-x.lock：它的头部已被一个不是 "
                            "banklab 的程序占用 3 秒（banklab 只占用几微秒）");
    for (size_t k = 0; k < n; k++)
        assert_int_equal(sw_get_info(p, k, &d, W(&err)), -1);
    /* nested deeper than the wire carries: the outer message sent as none, never a frame the
       reader refuses */
    struct bl_msg chain;
    bl_msg_set(&chain, NULL, 0, DLK_NO_MEMORY);
    for (int k = 0; k < 12; k++) {
        struct bl_msg before = chain;
        bl_msg_set(&chain, NULL, 0, GPU_WITHOUT_TURNS, &before);
    }
    in.lock_msg = chain;
    assert_int_equal(sw_put_info(&b, &in), 0);
    payload(&b, SW_HELLO, &p, &n);
    if (sw_get_info(p, n, &d, W(&err)))
        fail_msg("refused a deep chain: %s", err.msg);
    assert_int_equal(d.lock_msg.id, BL_MSG_NONE);
    full_info(&in);
    bl_msg_set(&in.lock_msg, in.lock, sizeof in.lock, GPU_WITHOUT_TURNS, &m);
    assert_int_equal(sw_put_info(&b, &in), 0);
    payload(&b, SW_HELLO, &p, &n);
    /* a nested name this build does not know: the message dropped, the English kept */
    size_t at = 0;
    for (size_t k = 0; k + 15 <= n; k++)
        if (!memcmp(p + k, "DLK_HEADER_HELD", 15))
            at = k;
    assert_true(at > 0);
    uint8_t *q = malloc(n);
    memcpy(q, p, n);
    q[at] = 'X';
    assert_int_equal(sw_get_info(q, n, &d, W(&err)), 0);
    assert_int_equal(d.lock_msg.id, BL_MSG_NONE);
    assert_string_equal(d.lock, in.lock);
    free(q);
}

/* A message that does not say the error's msg (another build's arguments), or whose name this
 * build does not know, is dropped; the English msg stays. */
static void test_message_dropped(void **state)
{
    (void)state;
    struct gpu_result r, d;
    full_result(&r);
    snprintf(r.err.msg, sizeof r.err.msg, "lane 7: something else");
    struct sw_buf b;
    assert_int_equal(sw_put_result(&b, &r), 0);
    const uint8_t *p;
    size_t n;
    payload(&b, SW_RESULT, &p, &n);
    struct bl_err err = {0};
    assert_int_equal(sw_get_result(p, n, &d, W(&err)), 0);
    assert_int_equal(d.err.why.id, BL_MSG_NONE);
    assert_string_equal(d.err.msg, "lane 7: something else");
    /* an unknown name: the frame's name patched */
    full_result(&r);
    assert_int_equal(sw_put_result(&b, &r), 0);
    payload(&b, SW_RESULT, &p, &n);
    uint8_t *name = memmem(b.b, b.len, "CNT_BUSY_TRIED", 14);
    assert_non_null(name);
    name[0] = 'X';
    assert_int_equal(sw_get_result(p, n, &d, W(&err)), 0);
    assert_int_equal(d.err.why.id, BL_MSG_NONE);
    assert_string_equal(d.err.msg, r.err.msg);
}

/* ---- refusals ---- */

/* p (n bytes) refused by the result decoder, naming want; the id kept, the refusal said */
static void result_refused(const uint8_t *p, size_t n, uint64_t id, const char *want)
{
    struct gpu_result d;
    struct bl_err err = {0};
    assert_int_equal(sw_get_result(p, n, &d, W(&err)), -1);
    if (!strstr(err.msg, want))
        fail_msg("refused with '%s', expected '%s'", err.msg, want);
    assert_int_equal(d.id, id);
    assert_int_equal(d.err.status, GPU_EFAILED);
    assert_non_null(strstr(d.err.msg, "result was refused"));
    assert_false(d.has_counters || d.has_timing || d.has_access_timing);
}

/* the result field at offset off (a double) set to bad on the wire: found by a marker value */
static void bad_double(size_t off, double bad, const char *want)
{
    struct gpu_result r;
    full_result(&r);
    double marker = 4321.0625;
    memcpy((uint8_t *)&r + off, &marker, 8);
    struct sw_buf b;
    assert_int_equal(sw_put_result(&b, &r), 0);
    uint8_t *at = memmem(b.b + SW_HEADER, b.len - SW_HEADER, &marker, 8);
    assert_non_null(at);
    memcpy(at, &bad, 8);
    result_refused(b.b + SW_HEADER, b.len - SW_HEADER, r.id, want);
}

static void test_numbers_refused(void **state)
{
    (void)state;
    static const struct {
        size_t off;
        const char *name;
    } d[] = {
        {offsetof(struct gpu_result, ms_median), "ms_median"},
        {offsetof(struct gpu_result, ms_min), "ms_min"},
        {offsetof(struct gpu_result, ms_max), "ms_max"},
        {offsetof(struct gpu_result, clk_per_request), "clk_per_request"},
        {offsetof(struct gpu_result, bytes_per_clk_per_sm), "bytes_per_clk_per_sm"},
        {offsetof(struct gpu_result, gbps), "gbps"},
        {offsetof(struct gpu_result, clk_per_access), "clk_per_access"},
        {offsetof(struct gpu_result, ns_per_access), "ns_per_access"},
        {offsetof(struct gpu_result, ref_clk_per_access), "ref_clk_per_access"},
        {offsetof(struct gpu_result, slowdown), "slowdown"},
        {offsetof(struct gpu_result, wavefronts_ld), "wavefronts_ld"},
        {offsetof(struct gpu_result, wavefronts_st), "wavefronts_st"},
        {offsetof(struct gpu_result, conflicts_ld), "conflicts_ld"},
        {offsetof(struct gpu_result, conflicts_st), "conflicts_st"},
        {offsetof(struct gpu_result, inst_ld), "inst_ld"},
        {offsetof(struct gpu_result, inst_st), "inst_st"},
        {offsetof(struct gpu_result, wait_ms), "wait_ms"},
        {offsetof(struct gpu_result, cached_age_s), "cached_age_s"},
    };
    const double bad[] = {NAN, -NAN, INFINITY, -INFINITY, 1e18, -1.0, -1e-300};
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
        for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
            bad_double(d[i].off, bad[k], d[i].name);
    /* the counters' range: 65536 a warp instruction is the most; a bit more is refused */
    bad_double(offsetof(struct gpu_result, wavefronts_ld), 65536.5, "wavefronts_ld");

    /* integers, enums, flags: patched at the byte the marker put there */
    struct gpu_result r;
    full_result(&r);
    r.launches = 0x5a5a5a5a;
    struct sw_buf b;
    assert_int_equal(sw_put_result(&b, &r), 0);
    uint8_t *at = memmem(b.b + SW_HEADER, b.len - SW_HEADER, "\x5a\x5a\x5a\x5a", 4);
    assert_non_null(at);
    memcpy(at, "\xff\xff\xff\xff", 4);       /* -1 launches */
    result_refused(b.b + SW_HEADER, b.len - SW_HEADER, r.id, "launches");
    /* a status outside the enum: the byte after the id */
    full_result(&r);
    assert_int_equal(sw_put_result(&b, &r), 0);
    b.b[SW_HEADER + 8] = 77;
    result_refused(b.b + SW_HEADER, b.len - SW_HEADER, r.id, "the error");
    /* a flag that is not 0 or 1: from_cache is the last byte before cached_age_s */
    full_result(&r);
    assert_int_equal(sw_put_result(&b, &r), 0);
    b.b[b.len - 9] = 2;
    result_refused(b.b + SW_HEADER, b.len - SW_HEADER, r.id, "from_cache");
    /* a lane of the error's place outside the warp */
    full_result(&r);
    r.err.where.lane = 0x2a2a2a2a;
    assert_int_equal(sw_put_result(&b, &r), 0);
    at = memmem(b.b + SW_HEADER, b.len - SW_HEADER, "\x2a\x2a\x2a\x2a", 4);
    assert_non_null(at);
    memcpy(at, "\x20\x00\x00\x00", 4);       /* lane 32 */
    result_refused(b.b + SW_HEADER, b.len - SW_HEADER, r.id, "the error");
}

/* the counters' note holding marker, on the wire, with the bytes at k replaced by c */
static void bad_string(const char *marker, size_t k, const char *c, const char *want)
{
    struct gpu_result r;
    full_result(&r);
    snprintf(r.counters_note, sizeof r.counters_note, "%s", marker);
    struct sw_buf b;
    assert_int_equal(sw_put_result(&b, &r), 0);
    uint8_t *at = memmem(b.b + SW_HEADER, b.len - SW_HEADER, marker, strlen(marker));
    assert_non_null(at);
    memcpy(at + k, c, strlen(c) ? strlen(c) : 1);
    result_refused(b.b + SW_HEADER, b.len - SW_HEADER, r.id, want);
}

static void test_strings_refused(void **state)
{
    (void)state;
    bad_string("note-ABCDEFGH", 5, "\x1b", "control character U+001B (byte 5)"); /* ESC */
    bad_string("note-ABCDEFGH", 5, "\n", "control character U+000A");
    bad_string("note-ABCDEFGH", 5, "\x7f", "control character U+007F");
    bad_string("note-ABCDEFGH", 5, "\xff", "not valid UTF-8 (byte 5)");
    bad_string("note-ABCDEFGH", 5, "\xc0\x80", "not valid UTF-8");   /* an overlong NUL */
    bad_string("note-ABCDEFGH", 5, "", "NUL");
    /* C1 and a bidirectional override, as valid UTF-8 */
    bad_string("note-ABCDEFGH", 5, "\xc2\x9b", "control character U+009B");
    bad_string("note-ABCDEFGH", 5, "\xe2\x80\xae", "control character U+202E");
    /* a writer escapes its own bad strings: never refused by a reader */
    struct gpu_result r, d;
    full_result(&r);
    snprintf(r.provenance, sizeof r.provenance, "dev\x1b[31mred\xff");
    struct sw_buf b;
    assert_int_equal(sw_put_result(&b, &r), 0);
    struct bl_err err = {0};
    assert_int_equal(sw_get_result(b.b + SW_HEADER, b.len - SW_HEADER, &d, W(&err)), 0);
    assert_string_equal(d.provenance, "dev\\x1b[31mred\\xff");
    /* a string that does not fit its field */
    full_result(&r);
    snprintf(r.counters_note, sizeof r.counters_note, "Q");
    assert_int_equal(sw_put_result(&b, &r), 0);
    uint8_t *at = memmem(b.b + SW_HEADER, b.len - SW_HEADER, "\x01\x00Q", 3);
    assert_non_null(at);
    uint8_t f[SW_MAX_FRAME];
    size_t pre = (size_t)(at - b.b), post = b.len - pre - 3;
    memcpy(f, b.b, pre);
    f[pre] = 0;
    f[pre + 1] = 1;                           /* 256 bytes: one more than the field holds */
    memset(f + pre + 2, 'a', 256);
    memcpy(f + pre + 258, at + 3, post);
    result_refused(f + SW_HEADER, pre + 258 + post - SW_HEADER, r.id, "at most 255");
}

static void request_refused(const struct gpu_request *q, const char *why)
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
    assert_int_equal(sw_get_request(b.b + SW_HEADER, b.len - SW_HEADER, &d, &id, W(&err)), -1);
    assert_int_equal(id, q->id);
    if (!strstr(err.msg, why))
        fail_msg("the wire refused with '%s', expected '%s'", err.msg, why);
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

static void ldmatrix_req(struct gpu_request *q, unsigned x, unsigned pitch)
{
    stride_req(q, 16, 1);
    q->access.instr = BANK_LDMATRIX;
    q->access.matrices = (uint8_t)x;
    for (int l = 0; l < BANK_LANES; l++)
        q->access.offset[l] = (uint64_t)l * pitch;
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
    request_refused(&q, "width");
    stride_req(&q, 4, 1);
    q.access.offset[7] += 2;
    request_refused(&q, "lane 7");
    stride_req(&q, 4, 1);
    q.access.offset[31] = SW_MAX_OFFSET;
    request_refused(&q, "beyond");
    stride_req(&q, 4, 1);
    q.access.offset[31] = SW_MAX_OFFSET + 1;  /* an inactive lane's offset does not count */
    q.access.mask = 0x7fffffffu;
    assert_int_equal(sw_check_request(&q, W(&err)), 0);
    q.access.mask = 0;
    request_refused(&q, "no active lane");
    stride_req(&q, 4, 1);
    q.access.op = (enum bank_op)2;
    request_refused(&q, "op");

    /* the instructions: the model's rules */
    ldmatrix_req(&q, 1, 128);
    assert_int_equal(sw_check_request(&q, W(&err)), 0);
    for (int l = 8; l < BANK_LANES; l++)
        q.access.offset[l] = 3;               /* lanes that give no row: not read */
    assert_int_equal(sw_check_request(&q, W(&err)), 0);
    ldmatrix_req(&q, 3, 128);
    request_refused(&q, "3 matrices");
    ldmatrix_req(&q, 4, 128);
    q.access.width = 8;
    request_refused(&q, "of 8 bytes a lane");
    ldmatrix_req(&q, 4, 128);
    q.access.mask = 0xfffffffeu;
    request_refused(&q, "every lane");
    ldmatrix_req(&q, 4, 128);
    q.access.instr = 9;
    request_refused(&q, "instruction");
    ldmatrix_req(&q, 4, 128);
    q.access.trans = 2;
    request_refused(&q, "trans is 2");
    ldmatrix_req(&q, 2, 128);
    q.access.has_src = 1;
    request_refused(&q, "cp.async only");
    stride_req(&q, 4, 0);
    q.access.instr = BANK_CPASYNC;
    q.access.op = BANK_STORE;
    assert_int_equal(sw_check_request(&q, W(&err)), 0);
    q.access.width = 2;
    request_refused(&q, "cp.async of 2 bytes");
    q.access.width = 4;
    q.access.has_src = 1;
    assert_int_equal(sw_check_request(&q, W(&err)), 0);  /* every lane from byte 0 */
    q.access.src[5] = 6;
    request_refused(&q, "lane 5: global source 6");
    q.access.src[5] = SW_MAX_SRC - 4;
    assert_int_equal(sw_check_request(&q, W(&err)), 0);
    q.access.src[5] = SW_MAX_SRC;
    request_refused(&q, "lane 5: global source 65536");
    q.access.src[5] = 0xfffffffcu;           /* wraps nothing: 64-bit sum */
    request_refused(&q, "lane 5");

    /* case kernels */
    memset(&q, 0, sizeof q);
    q.kind = GPU_REQ_CASE;
    snprintf(q.case_name, sizeof q.case_name, "no_such_case");
    request_refused(&q, "unknown case");
    snprintf(q.case_name, sizeof q.case_name, "transpose_padded");
    assert_int_equal(sw_check_request(&q, W(&err)), 0);
    q.nparams = 1;
    snprintf(q.param_name[0], sizeof q.param_name[0], "PAD");
    q.param_value[0] = 33;
    request_refused(&q, "outside");
    q.param_value[0] = -1;
    request_refused(&q, "outside");
    q.param_value[0] = 32;
    assert_int_equal(sw_check_request(&q, W(&err)), 0);
    snprintf(q.param_name[0], sizeof q.param_name[0], "j");  /* a scene's own: not read */
    q.param_value[0] = 1000;
    assert_int_equal(sw_check_request(&q, W(&err)), 0);
    q.nparams = GPU_CASE_MAX_PARAMS + 1;
    request_refused(&q, "parameter");
    /* a control character in a name: refused on the wire (the check alone names it unknown) */
    memset(&q, 0, sizeof q);
    q.kind = GPU_REQ_CASE;
    snprintf(q.case_name, sizeof q.case_name, "transpose_padded");
    q.nparams = 1;
    snprintf(q.param_name[0], sizeof q.param_name[0], "PADX");
    struct sw_buf b;
    assert_int_equal(sw_put_request(&b, &q), 0);
    uint8_t *at = memmem(b.b, b.len, "PADX", 4);
    assert_non_null(at);
    at[3] = 0x1b;
    struct gpu_request d;
    uint64_t id;
    assert_int_equal(sw_get_request(b.b + SW_HEADER, b.len - SW_HEADER, &d, &id, W(&err)), -1);
    assert_non_null(strstr(err.msg, "a parameter name holds the control character U+001B"));
}

/* The lessons' chapter-11 requests pass the check and keep what they are. */
static void test_chapter11_requests(void **state)
{
    (void)state;
    struct gpu_request q, d;
    struct bl_err err = {0};
    const char *names[] = {"ldmatrix.x1", "ldmatrix.x2.trans", "ldmatrix.x4", "stmatrix.x1",
                           "stmatrix.x4.trans", "cp.async4", "cp.async8", "cp.async16"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        stride_req(&q, 4, 1);
        assert_int_equal(bank_instr_parse(names[i], &q.access), 0);
        for (int l = 0; l < BANK_LANES; l++)
            q.access.offset[l] = (uint64_t)l * 128;
        struct sw_buf b;
        assert_int_equal(sw_put_request(&b, &q), 0);
        uint64_t id;
        if (sw_get_request(b.b + SW_HEADER, b.len - SW_HEADER, &d, &id, W(&err)))
            fail_msg("%s refused: %s", names[i], err.msg);
        char was[32], got[32];
        bank_instr_name(q.access.instr, q.access.matrices, q.access.trans, q.access.width, was,
                        sizeof was);
        bank_instr_name(d.access.instr, d.access.matrices, d.access.trans, d.access.width, got,
                        sizeof got);
        assert_string_equal(got, was);
        struct bank_result rq, rd;
        assert_int_equal(bank_simulate(&q.access, &rq, NULL), BANK_OK);
        assert_int_equal(bank_simulate(&d.access, &rd, NULL), BANK_OK);
        assert_int_equal(rd.wavefronts, rq.wavefronts);
    }
}

/* ---- the server's comparison ---- */

static void test_same_request(void **state)
{
    (void)state;
    struct gpu_request a = full_request, b;
    assert_true(sw_same_request(&a, &a));
#define DIFFERS(change)                                                                            \
    do {                                                                                          \
        b = a;                                                                                    \
        change;                                                                                   \
        if (sw_same_request(&a, &b) || sw_same_request(&b, &a))                                   \
            fail_msg("the same request after: %s", #change);                                       \
    } while (0)
#define SAME(change)                                                                               \
    do {                                                                                          \
        b = a;                                                                                    \
        change;                                                                                   \
        if (!sw_same_request(&a, &b))                                                             \
            fail_msg("another request after: %s", #change);                                        \
    } while (0)
    DIFFERS(b.kind = GPU_REQ_PATTERN);
    DIFFERS(b.access.width = 16);
    DIFFERS(b.access.op = BANK_LOAD);
    DIFFERS(b.access.mask ^= 2u);
    DIFFERS(b.access.offset[1] += 8);
    DIFFERS(b.access.offset[30] += 8);
    DIFFERS(b.access.instr = BANK_PLAIN);
    DIFFERS(b.access.matrices = 4);
    DIFFERS(b.access.trans = 0);
    DIFFERS(b.access.has_src = 0);
    DIFFERS(b.access.src[0] += 8);
    DIFFERS(b.access.src[31] += 8);
    DIFFERS(snprintf(b.case_name, sizeof b.case_name, "row_col"));
    DIFFERS(b.param_value[0] = 8);
    DIFFERS(b.param_value[1] = 1);
    DIFFERS(b.nparams = 1);                   /* STRIDE back at its default, 1 */
    DIFFERS(b.want_timing = 0);
    DIFFERS(b.want_counters = 0);
    SAME(b.id = 99);                          /* the client's own number */
    SAME(b.access.offset[0] = 12345);         /* lane 0 is not active */
    SAME(b.want_timing = 7);                  /* a flag */
    SAME((b.param_value[0] = 7, b.param_value[1] = 4,   /* the same values in another order */
          snprintf(b.param_name[0], sizeof b.param_name[0], "STRIDE"),
          snprintf(b.param_name[1], sizeof b.param_name[1], "GROUP")));
    /* a case request without a drawn access still compares it: it is all measured */
    a.access.mask = 0;
    DIFFERS(b.access.width = 4);
    /* a pattern: the case fields are not read */
    a = full_request;
    a.kind = GPU_REQ_PATTERN;
    SAME(snprintf(b.case_name, sizeof b.case_name, "row_col"));
    SAME(b.param_value[0] = 1);
    a.access.has_src = 0;
    SAME(b.access.src[3] = 1);                /* no sources: src is not read */
    DIFFERS(b.access.has_src = 1);
#undef DIFFERS
#undef SAME
}

/* ---- the small frames and the header ---- */

static void test_small_frames(void **state)
{
    (void)state;
    struct sw_buf b;
    const uint8_t *p;
    size_t n;
    struct bl_err err = {0};
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
    s.pause_left_s = -1;
    assert_int_equal(sw_put_stats(&b, &s), 0);
    payload(&b, SW_STATS, &p, &n);
    assert_int_equal(sw_get_stats(p, n, &ds, W(&err)), -1);
    assert_non_null(strstr(err.msg, "the pause"));

    struct sw_progress pr = {9, GPU_PHASE_WAITING, 3}, dp;
    assert_int_equal(sw_put_progress(&b, &pr), 0);
    payload(&b, SW_PROGRESS, &p, &n);
    assert_int_equal(sw_get_progress(p, n, &dp, W(&err)), 0);
    assert_int_equal(dp.ahead, 3);
    pr.ahead = -2;
    assert_int_equal(sw_put_progress(&b, &pr), 0);
    payload(&b, SW_PROGRESS, &p, &n);
    assert_int_equal(sw_get_progress(p, n, &dp, W(&err)), -1);

    /* the info's numbers */
    struct gpu_info in, di;
    full_info(&in);
    in.sm_count = -4;
    assert_int_equal(sw_put_info(&b, &in), 0);
    payload(&b, SW_HELLO, &p, &n);
    assert_int_equal(sw_get_info(p, n, &di, W(&err)), -1);
    assert_non_null(strstr(err.msg, "the SM count"));
    full_info(&in);
    in.backend = (enum gpu_backend)7;
    assert_int_equal(sw_put_info(&b, &in), 0);
    payload(&b, SW_HELLO, &p, &n);
    assert_int_equal(sw_get_info(p, n, &di, W(&err)), -1);
    assert_non_null(strstr(err.msg, "the backend is 7"));
}

static void test_header(void **state)
{
    (void)state;
    struct gpu_request q;
    stride_req(&q, 4, 1);
    struct sw_buf b;
    assert_int_equal(sw_put_request(&b, &q), 0);
    struct bl_err err = {0};
    int type;
    uint32_t n;
    uint8_t h[SW_HEADER];
    memcpy(h, b.b, SW_HEADER);
    h[8] = 0x01;
    h[9] = 0x20;                   /* 8193 bytes */
    h[10] = h[11] = 0;
    assert_int_equal(sw_parse_header(h, &type, &n, W(&err)), -2);
    h[9] = 0x20;
    h[8] = 0;                      /* 8192: the limit itself is fine */
    assert_int_equal(sw_parse_header(h, &type, &n, W(&err)), 0);
    h[4] = 1;                      /* the version before every field was carried */
    assert_int_equal(sw_parse_header(h, &type, &n, W(&err)), -1);
    assert_non_null(strstr(err.msg, "version 1"));
    h[4] = SW_VERSION;
    h[0] = 'X';
    assert_int_equal(sw_parse_header(h, &type, &n, W(&err)), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_request_every_field),
        cmocka_unit_test(test_result_every_field),
        cmocka_unit_test(test_info_every_field),
        cmocka_unit_test(test_message_dropped),
        cmocka_unit_test(test_nested_message),
        cmocka_unit_test(test_numbers_refused),
        cmocka_unit_test(test_strings_refused),
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_chapter11_requests),
        cmocka_unit_test(test_same_request),
        cmocka_unit_test(test_small_frames),
        cmocka_unit_test(test_header),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
