/* wire.c: the frames between `banklab serve` and its clients (serve/wire.h): every field
 * written one by one and read back bounded and range-checked, the server's check of a request,
 * and the comparison of two requests its cache and merging use. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../base/fmt.h"
#include "../base/utf8.h"
#include "../gpu/gpu.h"
#include "wire.h"

/* ---- writing ---- */

static void put_bytes(struct sw_buf *b, const void *p, size_t n)
{
    if (b->overflow || n > sizeof b->b - b->len) {
        b->overflow = 1;
        return;
    }
    if (n)
        memcpy(b->b + b->len, p, n);
    b->len += n;
}

/* v as k bytes, little-endian */
static void put_le(struct sw_buf *b, uint64_t v, int k)
{
    uint8_t x[8];
    for (int i = 0; i < k; i++)
        x[i] = (uint8_t)(v >> (8 * i));
    put_bytes(b, x, (size_t)k);
}

static void put_u64(struct sw_buf *b, uint64_t v) { put_le(b, v, 8); }
static void put_u32(struct sw_buf *b, uint32_t v) { put_le(b, v, 4); }
static void put_u16(struct sw_buf *b, unsigned v) { put_le(b, v, 2); }

/* an enum, a small count or a flag: one byte; a value outside 0..255 saturates to 255, which
 * no reader accepts (never a silent wrap to another valid value) */
static void put_u8(struct sw_buf *b, long long v)
{
    put_le(b, v < 0 || v > 255 ? 255u : (uint64_t)v, 1);
}

static void put_i32(struct sw_buf *b, int v)
{
    put_u32(b, (uint32_t)v);
}

static void put_f64(struct sw_buf *b, double d)
{
    uint64_t v;
    memcpy(&v, &d, 8);
    put_u64(b, v);
}

/* a string field of cap bytes: at most cap - 1 bytes; one that is not valid UTF-8 or holds a
 * control character goes escaped (bl_clean, cut at a character), which every reader accepts */
static void put_str(struct sw_buf *b, const char *s, size_t cap)
{
    char cut[BL_ERR_TEXT + GPU_TEXT_MAX], clean[BL_ERR_TEXT + GPU_TEXT_MAX];
    size_t n = strnlen(s, cap - 1);
    if (cap <= sizeof cut) {
        memcpy(cut, s, n);
        cut[n] = '\0';
        if (bl_utf8_bad(cut, n) != SIZE_MAX || bl_utf8_control(cut, NULL, NULL) != SIZE_MAX) {
            bl_clean(clean, cap, cut);
            s = clean;
            n = strlen(clean);
        }
    }
    put_u16(b, (unsigned)n);
    put_bytes(b, s, n);
}

/* the message of an error: its name in msg.def ("" for none), its arguments, the bytes of its
 * string buffer up to the last string an argument uses, then each nested message (%M) the same
 * way, at most SW_MSG_DEPTH deep (deeper: an empty one) */
#define SW_MSG_DEPTH 8
static void put_msg_at(struct sw_buf *b, const struct bl_msg *m, int depth)
{
    const char *name = bl_msg_name(m->id);
    for (int i = 0; name && depth + 1 >= SW_MSG_DEPTH && i < m->nargs && i < BL_MSG_ARGS; i++)
        if (m->arg[i].kind == 'm')
            name = NULL;           /* nested too deep: sent as no message (its English stays) */
    put_str(b, name ? name : "", 128);
    int na = name && m->nargs > 0 ? (m->nargs > BL_MSG_ARGS ? BL_MSG_ARGS : m->nargs) : 0;
    put_u8(b, na);
    size_t used = 0;
    for (int i = 0; i < na; i++) {
        const struct bl_msg_arg *a = &m->arg[i];
        put_u8(b, (unsigned char)a->kind);
        if (a->kind == 'f')
            put_f64(b, a->v.f);
        else if (a->kind == 's')
            put_u64(b, a->v.s);
        else if (a->kind == 'm')
            put_u64(b, 0);         /* it follows the buffer */
        else
            put_u64(b, a->v.u);
        if (a->kind == 's' && a->v.s < sizeof m->sbuf) {
            size_t end = a->v.s + strnlen(m->sbuf + a->v.s, sizeof m->sbuf - a->v.s) + 1;
            if (end > used)
                used = end > sizeof m->sbuf ? sizeof m->sbuf : end;
        }
    }
    put_u16(b, (unsigned)used);
    put_bytes(b, m->sbuf, used);
    for (int i = 0; i < na; i++) {
        struct bl_msg inner;
        if (m->arg[i].kind != 'm')
            continue;
        if (!bl_msg_inner(m, i, &inner))
            memset(&inner, 0, sizeof inner);
        put_msg_at(b, &inner, depth + 1);
    }
}

static void put_msg(struct sw_buf *b, const struct bl_msg *m)
{
    put_msg_at(b, m, 0);
}

/* an error: status, English text, place, lane, message */
static void put_err(struct sw_buf *b, const struct bl_err *e)
{
    put_u8(b, e->status);
    put_str(b, e->msg, sizeof e->msg);
    put_i32(b, e->where.at);
    put_i32(b, e->where.len);
    put_i32(b, e->where.lane);
    put_i32(b, e->lane);
    put_msg(b, &e->why);
}

static void begin(struct sw_buf *b, int type)
{
    memset(b->b, 0, SW_HEADER);
    memcpy(b->b, SW_MAGIC, 4);
    b->b[4] = SW_VERSION & 0xff;
    b->b[5] = SW_VERSION >> 8;
    b->b[6] = (uint8_t)type;
    b->b[7] = (uint8_t)(type >> 8);
    b->len = SW_HEADER;
    b->overflow = 0;
}

static int finish(struct sw_buf *b)
{
    if (b->overflow || b->len - SW_HEADER > SW_MAX_PAYLOAD)
        return -1;
    uint32_t n = (uint32_t)(b->len - SW_HEADER);
    for (int i = 0; i < 4; i++)
        b->b[8 + i] = (uint8_t)(n >> (8 * i));
    return 0;
}

int sw_parse_header(const uint8_t *h, int *type, uint32_t *len, struct bl_err *err)
{
    if (memcmp(h, SW_MAGIC, 4))
        return bl_fail(err, GPU_EINVAL, BL_NOWHERE, SW_BAD_MAGIC);
    unsigned ver = h[4] | (unsigned)h[5] << 8;
    if (ver != SW_VERSION)
        return bl_fail(err, GPU_EINVAL, BL_NOWHERE, SW_BAD_VERSION, ver, SW_VERSION);
    *type = h[6] | h[7] << 8;
    *len = (uint32_t)h[8] | (uint32_t)h[9] << 8 | (uint32_t)h[10] << 16 | (uint32_t)h[11] << 24;
    if (*len > SW_MAX_PAYLOAD) {
        bl_fail(err, GPU_EINVAL, BL_NOWHERE, SW_FRAME_TOO_BIG, (unsigned)*len, SW_MAX_PAYLOAD);
        return -2;
    }
    return 0;
}

int sw_put_hello(struct sw_buf *b, const struct sw_hello *h)
{
    begin(b, SW_HELLO);
    put_u32(b, h->version);
    put_i32(b, h->device);
    return finish(b);
}

/* struct gpu_info, every field in the order of its declaration */
int sw_put_info(struct sw_buf *b, const struct gpu_info *in)
{
    begin(b, SW_HELLO);
    put_u8(b, in->backend);
    put_u8(b, in->available);
    put_err(b, &in->err);
    put_str(b, in->device, sizeof in->device);
    put_i32(b, in->cc_major);
    put_i32(b, in->cc_minor);
    put_i32(b, in->sm_count);
    put_i32(b, in->clock_khz);
    put_u8(b, in->counters);
    put_err(b, &in->counters_err);
    put_str(b, in->lock, sizeof in->lock);
    put_msg(b, &in->device_msg);
    put_msg(b, &in->lock_msg);
    return finish(b);
}

/* struct bank_access, every field in the order of its declaration */
static void put_access(struct sw_buf *b, const struct bank_access *a)
{
    put_u32(b, a->width);
    put_u8(b, a->op);
    put_u32(b, a->mask);
    for (int l = 0; l < BANK_LANES; l++)
        put_u64(b, a->offset[l]);
    put_u8(b, a->instr);
    put_u8(b, a->matrices);
    put_u8(b, a->trans);
    put_u8(b, a->has_src);
    for (int l = 0; l < BANK_LANES; l++)
        put_u32(b, a->src[l]);
}

/* struct gpu_request, every field in the order of its declaration; the parameters as their
 * count (a count outside 0..GPU_CASE_MAX_PARAMS saturates and is refused) and that many */
int sw_put_request(struct sw_buf *b, const struct gpu_request *q)
{
    begin(b, SW_REQUEST);
    put_u64(b, q->id);
    put_u8(b, q->kind);
    put_access(b, &q->access);
    put_str(b, q->case_name, sizeof q->case_name);
    put_u8(b, q->nparams);
    for (int i = 0; i < q->nparams && i < GPU_CASE_MAX_PARAMS; i++) {
        put_str(b, q->param_name[i], sizeof q->param_name[i]);
        put_u64(b, (uint64_t)q->param_value[i]);
    }
    put_u8(b, q->want_timing);
    put_u8(b, q->want_counters);
    return finish(b);
}

/* struct gpu_result, every field in the order of its declaration */
int sw_put_result(struct sw_buf *b, const struct gpu_result *r)
{
    begin(b, SW_RESULT);
    put_u64(b, r->id);
    put_err(b, &r->err);
    put_str(b, r->provenance, sizeof r->provenance);
    put_u8(b, r->has_timing);
    put_f64(b, r->ms_median);
    put_f64(b, r->ms_min);
    put_f64(b, r->ms_max);
    put_i32(b, r->launches);
    put_f64(b, r->clk_per_request);
    put_f64(b, r->bytes_per_clk_per_sm);
    put_f64(b, r->gbps);
    put_u8(b, r->verified);
    put_u8(b, r->has_access_timing);
    put_f64(b, r->clk_per_access);
    put_f64(b, r->ns_per_access);
    put_f64(b, r->ref_clk_per_access);
    put_f64(b, r->slowdown);
    put_u8(b, r->has_counters);
    put_f64(b, r->wavefronts_ld);
    put_f64(b, r->wavefronts_st);
    put_f64(b, r->conflicts_ld);
    put_f64(b, r->conflicts_st);
    put_f64(b, r->inst_ld);
    put_f64(b, r->inst_st);
    put_str(b, r->counters_note, sizeof r->counters_note);
    put_msg(b, &r->counters_msg);
    put_u8(b, r->counters_busy);
    put_f64(b, r->wait_ms);
    put_u8(b, r->from_server);
    put_u8(b, r->from_cache);
    put_f64(b, r->cached_age_s);
    return finish(b);
}

int sw_put_progress(struct sw_buf *b, const struct sw_progress *p)
{
    begin(b, SW_PROGRESS);
    put_u64(b, p->id);
    put_i32(b, p->phase);
    put_i32(b, p->ahead);
    return finish(b);
}

int sw_put_control(struct sw_buf *b, const struct sw_control *c)
{
    begin(b, SW_CONTROL);
    put_i32(b, c->op);
    put_i32(b, c->seconds);
    return finish(b);
}

int sw_put_stats(struct sw_buf *b, const struct sw_stats *s)
{
    begin(b, SW_STATS);
    const uint64_t v[] = {s->requests, s->measured, s->merged, s->cache_hits, s->errors, s->dropped};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        put_u64(b, v[i]);
    put_u32(b, s->clients);
    put_u32(b, s->queued);
    put_i32(b, s->pause_left_s);
    put_i32(b, s->cache_s);
    return finish(b);
}

/* ---- reading ---- */

struct rd {
    const uint8_t *p;
    size_t n, at;
    struct bl_err *err;
    int bad;
};

static int short_frame(struct rd *r, const char *what)
{
    if (!r->bad)
        bl_fail(r->err, GPU_EINVAL, BL_NOWHERE, SW_ENDS_INSIDE, what);
    r->bad = 1;
    return -1;
}

/* the first refusal of a value wins; the reader reads nothing more */
static void refuse(struct rd *r)
{
    r->bad = 1;
}

/* k bytes, little-endian */
static uint64_t get_le(struct rd *r, size_t k, const char *what)
{
    if (r->bad || r->n - r->at < k) {
        short_frame(r, what);
        return 0;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < k; i++)
        v |= (uint64_t)r->p[r->at + i] << (8 * i);
    r->at += k;
    return v;
}

static uint64_t get_u64(struct rd *r, const char *what) { return get_le(r, 8, what); }
static uint32_t get_u32(struct rd *r, const char *what) { return (uint32_t)get_le(r, 4, what); }
static unsigned get_u16(struct rd *r, const char *what) { return (unsigned)get_le(r, 2, what); }

static int32_t get_i32(struct rd *r, const char *what)
{
    uint32_t u = get_u32(r, what);
    int32_t v;
    memcpy(&v, &u, 4);
    return v;
}

/* a one-byte value in lo..hi, anything else refused */
static unsigned get_enum(struct rd *r, unsigned lo, unsigned hi, const char *what)
{
    unsigned v = (unsigned)get_le(r, 1, what);
    if (!r->bad && (v < lo || v > hi)) {
        bl_fail(r->err, GPU_EINVAL, BL_NOWHERE, SW_OUT_OF_RANGE_U, what, v, lo, hi);
        refuse(r);
        return lo;
    }
    return v;
}

/* a flag: 0 or 1, anything else refused */
static int get_flag(struct rd *r, const char *what)
{
    unsigned v = (unsigned)get_le(r, 1, what);
    if (v > 1 && !r->bad) {
        bl_fail(r->err, GPU_EINVAL, BL_NOWHERE, SW_NOT_A_FLAG, what, v);
        refuse(r);
    }
    return v == 1;
}

/* a 32-bit integer in lo..hi */
static int get_int(struct rd *r, long long lo, long long hi, const char *what)
{
    int32_t v = get_i32(r, what);
    if (!r->bad && (v < lo || v > hi)) {
        bl_fail(r->err, GPU_EINVAL, BL_NOWHERE, SW_INT_RANGE, what, (long long)v, lo, hi);
        refuse(r);
        return (int)lo;
    }
    return v;
}

/* a double: finite and in lo..hi (a NaN, an infinity, 1e18 or a negative time refused) */
static double get_f64(struct rd *r, double lo, double hi, const char *what)
{
    uint64_t v = get_u64(r, what);
    double d;
    memcpy(&d, &v, 8);
    if (!r->bad && !(isfinite(d) && d >= lo && d <= hi)) {
        bl_fail(r->err, GPU_EINVAL, BL_NOWHERE, SW_NUMBER_RANGE, what, d, lo, hi);
        refuse(r);
        return 0;
    }
    return d;
}

/* n bytes at s are text a terminal may show: valid UTF-8, no NUL, no control character.
 * 0, or -1 after refusing. */
static int check_text(struct rd *r, const char *s, size_t n, const char *what)
{
    if (bl_utf8_bad(s, n) != SIZE_MAX) {
        size_t at = bl_utf8_bad(s, n);
        if (s[at] == '\0')
            bl_fail(r->err, GPU_EINVAL, BL_NOWHERE, SW_STRING_NUL, what);
        else
            bl_fail(r->err, GPU_EINVAL, BL_NOWHERE, SW_STRING_NOT_UTF8, what, at);
        refuse(r);
        return -1;
    }
    unsigned cp = 0;
    size_t at = bl_utf8_control(s, NULL, &cp);
    if (at != SIZE_MAX) {
        bl_fail(r->err, GPU_EINVAL, BL_NOWHERE, SW_STRING_CONTROL, what, cp, at);
        refuse(r);
        return -1;
    }
    return 0;
}

/* a string into dst (cap bytes, NUL added); one that does not fit, holds a NUL, is not UTF-8
 * or holds a control character is refused */
static void get_str(struct rd *r, char *dst, size_t cap, const char *what)
{
    dst[0] = '\0';
    unsigned len = get_u16(r, what);
    if (r->bad)
        return;
    if (len >= cap) {
        bl_fail(r->err, GPU_EINVAL, BL_NOWHERE, SW_STRING_TOO_LONG, what, (size_t)len, cap - 1);
        refuse(r);
        return;
    }
    if (r->n - r->at < len) {
        short_frame(r, what);
        return;
    }
    memcpy(dst, r->p + r->at, len);
    dst[len] = '\0';
    r->at += len;
    if (check_text(r, dst, len, what))
        dst[0] = '\0';
}

/* the id of the message named name in msg.def, or BL_MSG_NONE */
static int msg_id(const char *name)
{
    if (!name[0])
        return BL_MSG_NONE;
    for (int id = BL_MSG_NONE + 1; id < BL_MSG_COUNT; id++)
        if (!strcmp(bl_msg_name(id), name))
            return id;
    return BL_MSG_NONE;
}

/* a message (put_msg): arguments of a known kind, numbers finite, strings inside the buffer
 * and text a terminal may show; refused otherwise. A name this build does not know leaves m
 * empty (the English text is all there is). */
static void get_msg_at(struct rd *r, struct bl_msg *m, const char *what, int depth)
{
    char name[128];
    memset(m, 0, sizeof *m);
    get_str(r, name, sizeof name, what);
    unsigned na = get_enum(r, 0, BL_MSG_ARGS, what);
    for (unsigned i = 0; i < na && !r->bad; i++) {
        struct bl_msg_arg *a = &m->arg[i];
        unsigned k = (unsigned)get_le(r, 1, what);
        if (!r->bad && k != 'i' && k != 'u' && k != 'f' && k != 's' &&
            (k != 'm' || depth + 1 >= SW_MSG_DEPTH)) {
            bl_fail(r->err, GPU_EINVAL, BL_NOWHERE, SW_MSG_ARG_KIND, what, k);
            refuse(r);
        }
        a->kind = (char)k;
        if (k == 'f') {
            a->v.f = get_f64(r, -1e300, 1e300, what);
            continue;
        }
        uint64_t v = get_u64(r, what);
        if (k != 's') {
            a->v.u = v;
        } else if (!r->bad && v >= sizeof m->sbuf) {
            bl_fail(r->err, GPU_EINVAL, BL_NOWHERE, SW_MSG_ARG_STRING, what, (unsigned long long)v);
            refuse(r);
        } else {
            a->v.s = (unsigned)v;
        }
    }
    unsigned used = get_u16(r, what);
    if (!r->bad && used > sizeof m->sbuf) {
        bl_fail(r->err, GPU_EINVAL, BL_NOWHERE, SW_STRING_TOO_LONG, what, (size_t)used,
                sizeof m->sbuf);
        refuse(r);
    }
    if (!r->bad && r->n - r->at < used)
        short_frame(r, what);
    if (r->bad) {
        memset(m, 0, sizeof *m);
        return;
    }
    memcpy(m->sbuf, r->p + r->at, used);
    r->at += used;
    m->nargs = (int)na;
    for (unsigned i = 0; i < na && !r->bad; i++) {
        if (m->arg[i].kind != 's')
            continue;
        size_t off = m->arg[i].v.s, len = strnlen(m->sbuf + off, sizeof m->sbuf - off);
        if (off + len >= used) {                   /* not terminated inside what came */
            bl_fail(r->err, GPU_EINVAL, BL_NOWHERE, SW_MSG_ARG_STRING, what,
                    (unsigned long long)off);
            refuse(r);
        } else {
            check_text(r, m->sbuf + off, len, what);
        }
    }
    /* the nested messages, each packed after what came (one this build does not know is
       packed empty: msg_agree then finds the English text unsaid) */
    int whole = 1;
    for (unsigned i = 0; i < na && !r->bad; i++) {
        if (m->arg[i].kind != 'm')
            continue;
        struct bl_msg inner;
        get_msg_at(r, &inner, what, depth + 1);
        size_t k = bl_msg_nest(m, (int)i, used, &inner);
        used += (unsigned)k;
        whole = whole && k;
    }
    m->id = msg_id(name);
    if (r->bad || m->id == BL_MSG_NONE || !whole)
        memset(m, 0, sizeof *m);
    else
        bl_msg_sanitize(m);   /* its ids are this build's, found by name */
}

static void get_msg(struct rd *r, struct bl_msg *m, const char *what)
{
    get_msg_at(r, m, what, 0);
}

/* m is dropped unless it says en in English (n: the room en had) when rendered: a build
 * whose message of that name takes other arguments */
static void msg_agree(struct bl_msg *m, const char *en, size_t n)
{
    char buf[BL_ERR_TEXT + GPU_TEXT_MAX];
    if (m->id == BL_MSG_NONE)
        return;
    bl_msg_render(m, BL_LANG_EN, buf, n < sizeof buf ? n : sizeof buf);
    if (strcmp(buf, en))
        memset(m, 0, sizeof *m);
}

/* an error (put_err); status in 0..max_status */
static void get_err(struct rd *r, struct bl_err *e, unsigned max_status, const char *what)
{
    memset(e, 0, sizeof *e);
    e->status = (int)get_enum(r, 0, max_status, what);
    get_str(r, e->msg, sizeof e->msg, what);
    e->where.at = get_int(r, 0, SW_PLACE_MAX, what);
    e->where.len = get_int(r, 0, SW_PLACE_MAX, what);
    e->where.lane = get_int(r, -1, BANK_LANES - 1, what);
    e->lane = get_int(r, -1, BANK_LANES - 1, what);
    get_msg(r, &e->why, what);
    if (r->bad)
        return;
    /* msg is "lane N: " and the message when where.lane >= 0 (bl_fail) */
    const char *en = e->msg;
    char lane[32];
    size_t k = 0;
    if (e->where.lane >= 0) {
        k = bl_fmt(lane, sizeof lane, bl_msg_format(PAT_LANE, BL_LANG_EN), e->where.lane);
        en = strncmp(e->msg, lane, k) ? "" : e->msg + k;
    }
    msg_agree(&e->why, en, sizeof e->msg - k);
}

static int done(struct rd *r)
{
    if (r->bad)
        return -1;
    if (r->at != r->n)
        return bl_fail(r->err, GPU_EINVAL, BL_NOWHERE, SW_TRAILING, r->n - r->at);
    return 0;
}

static void rd_init(struct rd *r, const uint8_t *p, size_t n, struct bl_err *err)
{
    r->p = p;
    r->n = n;
    r->at = 0;
    r->err = err;
    r->bad = 0;
}

int sw_get_hello(const uint8_t *p, size_t n, struct sw_hello *h, struct bl_err *err)
{
    struct rd r;
    rd_init(&r, p, n, err);
    h->version = get_u32(&r, "the version");
    h->device = get_int(&r, 0, 1 << 16, "the device");
    return done(&r);
}

int sw_get_info(const uint8_t *p, size_t n, struct gpu_info *in, struct bl_err *err)
{
    struct rd r;
    rd_init(&r, p, n, err);
    memset(in, 0, sizeof *in);
    in->backend = (enum gpu_backend)get_enum(&r, GPU_BACKEND_NONE, GPU_BACKEND_REPLAY, "the backend");
    in->available = get_flag(&r, "available");
    get_err(&r, &in->err, GPU_ENOTRECORDED, "the reason");
    get_str(&r, in->device, sizeof in->device, "the device");
    in->cc_major = get_int(&r, 0, 99, "cc");
    in->cc_minor = get_int(&r, 0, 99, "cc");
    in->sm_count = get_int(&r, 0, 1 << 16, "the SM count");
    in->clock_khz = get_int(&r, 0, 100000000, "the clock");
    in->counters = get_flag(&r, "counters");
    get_err(&r, &in->counters_err, GPU_ENOTRECORDED, "the counters' reason");
    get_str(&r, in->lock, sizeof in->lock, "the lock");
    get_msg(&r, &in->device_msg, "the device's message");
    get_msg(&r, &in->lock_msg, "the lock's message");
    if (done(&r))
        return -1;
    msg_agree(&in->device_msg, in->device, sizeof in->device);
    msg_agree(&in->lock_msg, in->lock, sizeof in->lock);
    return 0;
}

static void get_access(struct rd *r, struct bank_access *a)
{
    a->width = get_u32(r, "the width");
    a->op = (enum bank_op)get_enum(r, BANK_LOAD, BANK_STORE, "the op");
    a->mask = get_u32(r, "the mask");
    for (int l = 0; l < BANK_LANES; l++)
        a->offset[l] = get_u64(r, "the offsets");
    a->instr = (uint8_t)get_enum(r, BANK_PLAIN, BANK_CPASYNC, "the instruction");
    a->matrices = (uint8_t)get_enum(r, 0, 4, "the matrices");
    a->trans = (uint8_t)get_flag(r, "trans");
    a->has_src = (uint8_t)get_flag(r, "has_src");
    for (int l = 0; l < BANK_LANES; l++)
        a->src[l] = get_u32(r, "the sources");
}

int sw_get_request(const uint8_t *p, size_t n, struct gpu_request *q, uint64_t *id, struct bl_err *err)
{
    struct rd r;
    rd_init(&r, p, n, err);
    memset(q, 0, sizeof *q);
    q->id = get_u64(&r, "the id");
    *id = r.bad ? 0 : q->id;
    q->kind = (enum gpu_req_kind)get_enum(&r, GPU_REQ_PATTERN, GPU_REQ_CASE, "the kind");
    get_access(&r, &q->access);
    get_str(&r, q->case_name, sizeof q->case_name, "the case name");
    q->nparams = (int)get_enum(&r, 0, GPU_CASE_MAX_PARAMS, "the parameter count");
    for (int i = 0; i < q->nparams && !r.bad; i++) {
        get_str(&r, q->param_name[i], sizeof q->param_name[i], "a parameter name");
        q->param_value[i] = (long long)get_u64(&r, "a parameter value");
    }
    q->want_timing = get_flag(&r, "want_timing");
    q->want_counters = get_flag(&r, "want_counters");
    if (done(&r))
        return -1;
    return sw_check_request(q, err);
}

static int get_result_fields(struct rd *r, struct gpu_result *res)
{
    get_err(r, &res->err, GPU_ENOTRECORDED, "the error");
    get_str(r, res->provenance, sizeof res->provenance, "the provenance");
    res->has_timing = get_flag(r, "has_timing");
    res->ms_median = get_f64(r, 0, SW_MS_MAX, "ms_median");
    res->ms_min = get_f64(r, 0, SW_MS_MAX, "ms_min");
    res->ms_max = get_f64(r, 0, SW_MS_MAX, "ms_max");
    res->launches = get_int(r, 0, SW_LAUNCHES_MAX, "launches");
    res->clk_per_request = get_f64(r, 0, SW_RATE_MAX, "clk_per_request");
    res->bytes_per_clk_per_sm = get_f64(r, 0, SW_RATE_MAX, "bytes_per_clk_per_sm");
    res->gbps = get_f64(r, 0, SW_RATE_MAX, "gbps");
    res->verified = get_flag(r, "verified");
    res->has_access_timing = get_flag(r, "has_access_timing");
    res->clk_per_access = get_f64(r, 0, SW_RATE_MAX, "clk_per_access");
    res->ns_per_access = get_f64(r, 0, SW_RATE_MAX, "ns_per_access");
    res->ref_clk_per_access = get_f64(r, 0, SW_RATE_MAX, "ref_clk_per_access");
    res->slowdown = get_f64(r, 0, SW_SLOWDOWN_MAX, "slowdown");
    res->has_counters = get_flag(r, "has_counters");
    res->wavefronts_ld = get_f64(r, 0, SW_COUNTER_MAX, "wavefronts_ld");
    res->wavefronts_st = get_f64(r, 0, SW_COUNTER_MAX, "wavefronts_st");
    res->conflicts_ld = get_f64(r, 0, SW_COUNTER_MAX, "conflicts_ld");
    res->conflicts_st = get_f64(r, 0, SW_COUNTER_MAX, "conflicts_st");
    res->inst_ld = get_f64(r, 0, SW_INST_MAX, "inst_ld");
    res->inst_st = get_f64(r, 0, SW_INST_MAX, "inst_st");
    get_str(r, res->counters_note, sizeof res->counters_note, "the counters' note");
    get_msg(r, &res->counters_msg, "the counters' note's message");
    msg_agree(&res->counters_msg, res->counters_note, sizeof res->counters_note);
    res->counters_busy = get_flag(r, "counters_busy");
    res->wait_ms = get_f64(r, 0, SW_MS_MAX, "wait_ms");
    res->from_server = get_flag(r, "from_server");
    res->from_cache = get_flag(r, "from_cache");
    res->cached_age_s = get_f64(r, 0, SW_AGE_MAX, "cached_age_s");
    return done(r);
}

int sw_get_result(const uint8_t *p, size_t n, struct gpu_result *res, struct bl_err *err)
{
    struct rd r;
    rd_init(&r, p, n, err);
    memset(res, 0, sizeof *res);
    res->id = get_u64(&r, "the id");
    uint64_t id = r.bad ? 0 : res->id;
    if (get_result_fields(&r, res) == 0)
        return 0;
    memset(res, 0, sizeof *res);
    res->id = id;
    bl_fail(&res->err, GPU_EFAILED, BL_NOWHERE, SW_RESULT_REFUSED, err ? err->msg : "");
    return -1;
}

int sw_get_progress(const uint8_t *p, size_t n, struct sw_progress *pr, struct bl_err *err)
{
    struct rd r;
    rd_init(&r, p, n, err);
    pr->id = get_u64(&r, "the id");
    pr->phase = get_i32(&r, "the phase");
    pr->ahead = get_i32(&r, "ahead");
    if (done(&r))
        return -1;
    if (pr->phase < GPU_PHASE_QUEUED || pr->phase > GPU_PHASE_COUNTERS_BUSY || pr->ahead < 0 ||
        pr->ahead > 1 << 20)
        return bl_fail(err, GPU_EINVAL, BL_NOWHERE, SW_NOT_PROGRESS, (int)pr->phase,
                       (int)pr->ahead);
    return 0;
}

int sw_get_control(const uint8_t *p, size_t n, struct sw_control *c, struct bl_err *err)
{
    struct rd r;
    rd_init(&r, p, n, err);
    c->op = get_i32(&r, "the control op");
    c->seconds = get_i32(&r, "the seconds");
    if (done(&r))
        return -1;
    if (c->op != SW_CTL_STATS && c->op != SW_CTL_PAUSE)
        return bl_fail(err, GPU_EINVAL, BL_NOWHERE, SW_UNKNOWN_CONTROL, (int)c->op);
    if (c->seconds < 0 || c->seconds > 86400)
        return bl_fail(err, GPU_EINVAL, BL_NOWHERE, SW_PAUSE_RANGE, (int)c->seconds);
    return 0;
}

int sw_get_stats(const uint8_t *p, size_t n, struct sw_stats *s, struct bl_err *err)
{
    struct rd r;
    rd_init(&r, p, n, err);
    uint64_t *v[] = {&s->requests, &s->measured, &s->merged, &s->cache_hits, &s->errors,
                     &s->dropped};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        *v[i] = get_u64(&r, "the counts");
    s->clients = get_u32(&r, "the clients");
    s->queued = get_u32(&r, "the queue");
    s->pause_left_s = get_int(&r, 0, 86400, "the pause");
    s->cache_s = get_int(&r, 0, INT32_MAX, "the cache");
    return done(&r);
}

/* ---- what the server measures ---- */

/* The instruction's own rules (the model's, bank.c's instr_passes), said as the wire says them */
static int check_instr(const struct bank_access *a, struct bl_err *err)
{
    char name[32];
    if (a->instr > BANK_ATOMIC)
        return bl_fail(err, GPU_EINVAL, BL_NOWHERE, SW_UNKNOWN_INSTR, (unsigned)a->instr);
    if (a->trans > 1 || a->has_src > 1)
        return bl_fail(err, GPU_EINVAL, BL_NOWHERE, SW_NOT_A_FLAG, a->trans > 1 ? "trans" : "has_src",
                       (unsigned)(a->trans > 1 ? a->trans : a->has_src));
    if (a->matrices != 0 && a->matrices != 1 && a->matrices != 2 && a->matrices != 4)
        return bl_fail(err, GPU_EINVAL, BL_NOWHERE, SW_MATRICES, (unsigned)a->matrices);
    if (a->instr == BANK_PLAIN) {
        if (a->width != 1 && a->width != 2 && a->width != 4 && a->width != 8 && a->width != 16)
            return bl_fail(err, GPU_EINVAL, BL_NOWHERE, SW_WIDTH, a->width);
    } else if (a->instr == BANK_LDMATRIX || a->instr == BANK_STMATRIX) {
        bank_instr_name(a->instr, a->matrices, a->trans, a->width, name, sizeof name);
        if (a->width != 16)
            return bl_fail(err, GPU_EINVAL, BL_NOWHERE, SW_INSTR_WIDTH, name, a->width, "16");
        if (a->matrices == 0)
            return bl_fail(err, GPU_EINVAL, BL_NOWHERE, SW_MATRICES, 0u);
        if (a->mask != 0xffffffffu)
            return bl_fail(err, GPU_EINVAL, BL_NOWHERE, SW_INSTR_ALL_LANES, name, a->mask);
    } else if (a->width != 4 && a->width != 8 && a->width != 16) {
        return bl_fail(err, GPU_EINVAL, BL_NOWHERE, SW_INSTR_WIDTH, "cp.async", a->width,
                       "4, 8 or 16");
    }
    if (a->has_src && a->instr != BANK_CPASYNC)
        return bl_fail(err, GPU_EINVAL, BL_NOWHERE, SW_SRC_NOT_CPASYNC);
    return 0;
}

static int check_access(const struct bank_access *a, int need_lanes, struct bl_err *err)
{
    if (check_instr(a, err))
        return -1;
    if (need_lanes && a->mask == 0)
        return bl_fail(err, GPU_EINVAL, BL_NOWHERE, SW_NO_LANE);
    /* the lanes whose offsets the instruction uses (ldmatrix/stmatrix: the rows' lanes); the
     * others are carried, and nothing reads them */
    uint32_t used = bank_address_lanes(a);
    for (int l = 0; l < BANK_LANES; l++) {
        if (!(used >> l & 1u))
            continue;
        if (a->offset[l] >= SW_MAX_OFFSET)
            return bl_fail(err, GPU_EINVAL, BL_NOWHERE, SW_OFFSET_BEYOND, l,
                           (unsigned long long)a->offset[l], SW_MAX_OFFSET);
        if (a->offset[l] % a->width)
            return bl_fail(err, GPU_EINVAL, BL_NOWHERE, SW_OFFSET_NOT_MULTIPLE, l,
                           (unsigned long long)a->offset[l], a->width);
    }
    /* the runner copies from src + src[l] for every lane (runner/cuda_measure.c): inside its buffer
     * and aligned, or the copy faults and takes the server's CUDA context with it */
    for (int l = 0; a->has_src && l < BANK_LANES; l++)
        if ((uint64_t)a->src[l] + a->width > SW_MAX_SRC || a->src[l] % a->width)
            return bl_fail(err, GPU_EINVAL, BL_NOWHERE, SW_SRC_RANGE, l, (unsigned)a->src[l],
                           a->width, SW_MAX_SRC);
    return 0;
}

int sw_check_request(const struct gpu_request *q, struct bl_err *err)
{
    if (q->kind != GPU_REQ_PATTERN && q->kind != GPU_REQ_CASE)
        return bl_fail(err, GPU_EINVAL, BL_NOWHERE, GPU_UNKNOWN_REQUEST_KIND, (int)q->kind);
    if (q->access.op != BANK_LOAD && q->access.op != BANK_STORE)
        return bl_fail(err, GPU_EINVAL, BL_NOWHERE, SW_UNKNOWN_OP, (int)q->access.op);
    if (q->kind == GPU_REQ_PATTERN)
        return check_access(&q->access, 1, err);
    if (q->access.mask && check_access(&q->access, 0, err))
        return -1;
    const struct gpu_case *c = gpu_case_find(q->case_name);
    if (!c)
        return bl_fail(err, GPU_EINVAL, BL_NOWHERE, GPU_UNKNOWN_CASE_KERNEL, q->case_name);
    if (q->nparams < 0 || q->nparams > GPU_CASE_MAX_PARAMS)
        return bl_fail(err, GPU_EINVAL, BL_NOWHERE, SW_TOO_MANY_PARAMS, q->nparams, GPU_CASE_MAX_PARAMS);
    /* a parameter the kernel does not read is left alone, as the runner leaves it (the
     * tutorial sends every parameter of a scene: the transposes' j, remap-skew's C) */
    long long v[GPU_CASE_MAX_PARAMS];
    int nv = gpu_case_values(q, v);
    int bad = nv < 0 ? 0 : gpu_case_check(c, v);
    if (nv < 0)
        return bl_fail(err, GPU_EINVAL, BL_NOWHERE, GPU_UNKNOWN_CASE_KERNEL, q->case_name);
    if (bad >= 0)
        return bl_fail(err, GPU_EINVAL, BL_NOWHERE, GPU_IS_OUTSIDE, c->name, c->params[bad].name,
                       v[bad], c->params[bad].min, c->params[bad].max);
    return 0;
}

int sw_same_request(const struct gpu_request *a, const struct gpu_request *b)
{
    if (a->kind != b->kind || !a->want_timing != !b->want_timing ||
        !a->want_counters != !b->want_counters || !gpu_same_access(&a->access, &b->access))
        return 0;
    return a->kind != GPU_REQ_CASE || gpu_same_case(a, b);
}
