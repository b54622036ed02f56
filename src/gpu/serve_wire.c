/* serve_wire.c: the frames between `banklab serve` and its clients (serve_wire.h): explicit
 * field-by-field encoding and bounded decoding, and the server's check of a request. */
#include <stdio.h>
#include <string.h>

#include "../base/fmt.h"
#include "counters.h"
#include "serve_wire.h"

/* ---- writing ---- */

static void put_bytes(struct sw_buf *b, const void *p, size_t n)
{
    if (b->overflow || n > sizeof b->b - b->len) {
        b->overflow = 1;
        return;
    }
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
static void put_u8(struct sw_buf *b, unsigned v) { put_le(b, v, 1); }

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

/* a string of at most cap - 1 bytes (the field it came from) */
static void put_str(struct sw_buf *b, const char *s, size_t cap)
{
    size_t n = strnlen(s, cap - 1);
    uint8_t x[2] = {(uint8_t)n, (uint8_t)(n >> 8)};
    put_bytes(b, x, 2);
    put_bytes(b, s, n);
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

int sw_put_info(struct sw_buf *b, const struct gpu_info *in)
{
    begin(b, SW_HELLO);
    put_u8(b, (unsigned)in->backend);
    put_u8(b, (unsigned)in->available);
    put_str(b, in->err.msg, sizeof in->err.msg);
    put_str(b, in->device, sizeof in->device);
    put_i32(b, in->cc_major);
    put_i32(b, in->cc_minor);
    put_i32(b, in->sm_count);
    put_i32(b, in->clock_khz);
    put_u8(b, (unsigned)in->counters);
    put_str(b, in->counters_err.msg, sizeof in->counters_err.msg);
    put_str(b, in->lock, sizeof in->lock);
    return finish(b);
}

static void put_access(struct sw_buf *b, const struct bank_access *a)
{
    put_u8(b, a->width);
    put_u8(b, (unsigned)a->op);
    put_u32(b, a->mask);
    for (int l = 0; l < BANK_LANES; l++)
        put_u64(b, a->offset[l]);
}

int sw_put_request(struct sw_buf *b, const struct gpu_request *q)
{
    begin(b, SW_REQUEST);
    put_u64(b, q->id);
    put_u8(b, (unsigned)q->kind);
    put_access(b, &q->access);
    put_str(b, q->case_name, sizeof q->case_name);
    int np = q->nparams < 0 ? 0 : q->nparams > GPU_CASE_MAX_PARAMS ? GPU_CASE_MAX_PARAMS : q->nparams;
    put_u8(b, (unsigned)np);
    for (int i = 0; i < np; i++) {
        put_str(b, q->param_name[i], sizeof q->param_name[i]);
        put_u64(b, (uint64_t)q->param_value[i]);
    }
    put_u8(b, q->want_timing != 0);
    put_u8(b, q->want_counters != 0);
    return finish(b);
}

int sw_put_result(struct sw_buf *b, const struct gpu_result *r)
{
    begin(b, SW_RESULT);
    put_u64(b, r->id);
    put_u8(b, (unsigned)r->err.status);
    put_str(b, r->err.msg, sizeof r->err.msg);
    put_str(b, r->provenance, sizeof r->provenance);
    put_u8(b, r->has_timing != 0);
    const double t[] = {r->ms_median, r->ms_min, r->ms_max, r->clk_per_request,
                        r->bytes_per_clk_per_sm, r->gbps};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        put_f64(b, t[i]);
    put_i32(b, r->launches);
    put_u8(b, r->verified != 0);
    put_u8(b, r->has_access_timing != 0);
    const double a[] = {r->clk_per_access, r->ns_per_access, r->ref_clk_per_access, r->slowdown};
    for (size_t i = 0; i < sizeof a / sizeof a[0]; i++)
        put_f64(b, a[i]);
    put_u8(b, r->has_counters != 0);
    const double c[] = {r->wavefronts_ld, r->wavefronts_st, r->conflicts_ld, r->conflicts_st,
                        r->inst_ld, r->inst_st};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        put_f64(b, c[i]);
    put_str(b, r->counters_note, sizeof r->counters_note);
    put_u8(b, r->counters_busy != 0);
    put_f64(b, r->wait_ms);
    put_u8(b, r->from_server != 0);
    put_u8(b, r->from_cache != 0);
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
static unsigned get_u8(struct rd *r, const char *what) { return (unsigned)get_le(r, 1, what); }

static int32_t get_i32(struct rd *r, const char *what)
{
    uint32_t u = get_u32(r, what);
    int32_t v;
    memcpy(&v, &u, 4);
    return v;
}


/* a flag: 0 or 1, anything else refused */
static int get_flag(struct rd *r, const char *what)
{
    unsigned v = get_u8(r, what);
    if (v > 1 && !r->bad) {
        bl_fail(r->err, GPU_EINVAL, BL_NOWHERE, SW_NOT_A_FLAG, what, v);
        r->bad = 1;
    }
    return v == 1;
}

static double get_f64(struct rd *r, const char *what)
{
    uint64_t v = get_u64(r, what);
    double d;
    memcpy(&d, &v, 8);
    return d;
}

/* a string into dst (cap bytes, NUL added); one that does not fit or holds a NUL is refused */
static void get_str(struct rd *r, char *dst, size_t cap, const char *what)
{
    dst[0] = '\0';
    if (r->bad || r->n - r->at < 2) {
        short_frame(r, what);
        return;
    }
    size_t len = r->p[r->at] | (size_t)r->p[r->at + 1] << 8;
    r->at += 2;
    if (len >= cap) {
        bl_fail(r->err, GPU_EINVAL, BL_NOWHERE, SW_STRING_TOO_LONG, what, len, cap - 1);
        r->bad = 1;
        return;
    }
    if (r->n - r->at < len) {
        short_frame(r, what);
        return;
    }
    if (memchr(r->p + r->at, '\0', len)) {
        bl_fail(r->err, GPU_EINVAL, BL_NOWHERE, SW_STRING_NUL, what);
        r->bad = 1;
        return;
    }
    memcpy(dst, r->p + r->at, len);
    dst[len] = '\0';
    r->at += len;
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
    h->device = get_i32(&r, "the device");
    return done(&r);
}

int sw_get_info(const uint8_t *p, size_t n, struct gpu_info *in, struct bl_err *err)
{
    struct rd r;
    rd_init(&r, p, n, err);
    memset(in, 0, sizeof *in);
    unsigned be = get_u8(&r, "the backend");
    in->backend = be == GPU_BACKEND_CUDA ? GPU_BACKEND_CUDA
                : be == GPU_BACKEND_REPLAY ? GPU_BACKEND_REPLAY : GPU_BACKEND_NONE;
    in->available = get_flag(&r, "available");
    get_str(&r, in->err.msg, sizeof in->err.msg, "the reason");
    get_str(&r, in->device, sizeof in->device, "the device");
    in->cc_major = get_i32(&r, "cc");
    in->cc_minor = get_i32(&r, "cc");
    in->sm_count = get_i32(&r, "the SM count");
    in->clock_khz = get_i32(&r, "the clock");
    in->counters = get_flag(&r, "counters");
    get_str(&r, in->counters_err.msg, sizeof in->counters_err.msg, "the counters' reason");
    get_str(&r, in->lock, sizeof in->lock, "the lock");
    in->err.status = in->err.msg[0] ? GPU_EUNAVAILABLE : 0;
    in->counters_err.status = !in->counters_err.msg[0] ? 0
                            : !in->available ? GPU_EUNAVAILABLE
                            : in->counters ? CTR_BUSY : CTR_UNAVAILABLE;
    return done(&r);
}

int sw_get_request(const uint8_t *p, size_t n, struct gpu_request *q, uint64_t *id, struct bl_err *err)
{
    struct rd r;
    rd_init(&r, p, n, err);
    memset(q, 0, sizeof *q);
    q->id = get_u64(&r, "the id");
    *id = r.bad ? 0 : q->id;
    unsigned kind = get_u8(&r, "the kind");
    q->kind = kind == 1 ? GPU_REQ_CASE : GPU_REQ_PATTERN;
    q->access.width = get_u8(&r, "the width");
    unsigned op = get_u8(&r, "the op");
    q->access.op = op == 1 ? BANK_STORE : BANK_LOAD;
    q->access.mask = get_u32(&r, "the mask");
    for (int l = 0; l < BANK_LANES; l++)
        q->access.offset[l] = get_u64(&r, "the offsets");
    get_str(&r, q->case_name, sizeof q->case_name, "the case name");
    unsigned np = get_u8(&r, "the parameter count");
    if (!r.bad && np > GPU_CASE_MAX_PARAMS) {
        bl_fail(err, GPU_EINVAL, BL_NOWHERE, SW_TOO_MANY_PARAMS_U, np, GPU_CASE_MAX_PARAMS);
        return -1;
    }
    q->nparams = (int)np;
    for (unsigned i = 0; i < np && !r.bad; i++) {
        get_str(&r, q->param_name[i], sizeof q->param_name[i], "a parameter name");
        q->param_value[i] = (long long)get_u64(&r, "a parameter value");
    }
    q->want_timing = get_flag(&r, "want_timing");
    q->want_counters = get_flag(&r, "want_counters");
    if (done(&r))
        return -1;
    if (kind > 1)
        return bl_fail(err, GPU_EINVAL, BL_NOWHERE, SW_UNKNOWN_KIND_U, kind);
    if (op > 1)
        return bl_fail(err, GPU_EINVAL, BL_NOWHERE, SW_UNKNOWN_OP_U, op);
    return sw_check_request(q, err);
}

int sw_get_result(const uint8_t *p, size_t n, struct gpu_result *res, struct bl_err *err)
{
    struct rd r;
    rd_init(&r, p, n, err);
    memset(res, 0, sizeof *res);
    res->id = get_u64(&r, "the id");
    unsigned st = get_u8(&r, "the status");
    res->err.status = gpu_status_name((enum gpu_status)st) ? (enum gpu_status)st : GPU_EFAILED;
    get_str(&r, res->err.msg, sizeof res->err.msg, "the error");
    get_str(&r, res->provenance, sizeof res->provenance, "the provenance");
    res->has_timing = get_flag(&r, "has_timing");
    double *t[] = {&res->ms_median, &res->ms_min, &res->ms_max, &res->clk_per_request,
                   &res->bytes_per_clk_per_sm, &res->gbps};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        *t[i] = get_f64(&r, "the timing");
    res->launches = get_i32(&r, "the launches");
    res->verified = get_flag(&r, "verified");
    res->has_access_timing = get_flag(&r, "has_access_timing");
    double *a[] = {&res->clk_per_access, &res->ns_per_access, &res->ref_clk_per_access,
                   &res->slowdown};
    for (size_t i = 0; i < sizeof a / sizeof a[0]; i++)
        *a[i] = get_f64(&r, "the access timing");
    res->has_counters = get_flag(&r, "has_counters");
    double *c[] = {&res->wavefronts_ld, &res->wavefronts_st, &res->conflicts_ld,
                   &res->conflicts_st, &res->inst_ld, &res->inst_st};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        *c[i] = get_f64(&r, "the counters");
    get_str(&r, res->counters_note, sizeof res->counters_note, "the counters' note");
    res->counters_busy = get_flag(&r, "counters_busy");
    res->wait_ms = get_f64(&r, "the wait");
    res->from_server = get_flag(&r, "from_server");
    res->from_cache = get_flag(&r, "from_cache");
    res->cached_age_s = get_f64(&r, "the age");
    if (done(&r))
        return -1;
    if (st != (unsigned)res->err.status)
        return bl_fail(err, GPU_EINVAL, BL_NOWHERE, SW_UNKNOWN_STATUS, st);
    return 0;
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
    if (pr->phase < GPU_PHASE_QUEUED || pr->phase > GPU_PHASE_COUNTERS_BUSY || pr->ahead < 0)
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
    s->pause_left_s = get_i32(&r, "the pause");
    s->cache_s = get_i32(&r, "the cache");
    return done(&r);
}

/* ---- what the server measures ---- */

static int check_access(const struct bank_access *a, int need_lanes, struct bl_err *err)
{
    if (a->width != 1 && a->width != 2 && a->width != 4 && a->width != 8 && a->width != 16)
        return bl_fail(err, GPU_EINVAL, BL_NOWHERE, SW_WIDTH, a->width);
    if (need_lanes && a->mask == 0)
        return bl_fail(err, GPU_EINVAL, BL_NOWHERE, SW_NO_LANE);
    for (int l = 0; l < BANK_LANES; l++) {
        if (!(a->mask >> l & 1u))
            continue;
        if (a->offset[l] >= SW_MAX_OFFSET)
            return bl_fail(err, GPU_EINVAL, BL_NOWHERE, SW_OFFSET_BEYOND, l,
                           (unsigned long long)a->offset[l], SW_MAX_OFFSET);
        if (a->offset[l] % a->width)
            return bl_fail(err, GPU_EINVAL, BL_NOWHERE, SW_OFFSET_NOT_MULTIPLE, l,
                           (unsigned long long)a->offset[l], a->width);
    }
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
    for (int i = 0; i < q->nparams; i++)
        if (gpu_case_param_index(q->case_name, q->param_name[i]) < 0)
            return bl_fail(err, GPU_EINVAL, BL_NOWHERE, SW_NO_PARAMETER, c->name, q->param_name[i]);
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
