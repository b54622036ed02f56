/* recording.c: recorded GPU measurements <-> JSON (format in docs/gpu.md), bounded before
 * parsing (lessons' quoted figures are checked against one in figures.c). The only GPU code that
 * sees cJSON. Never prints, never exits: errors come back in a struct bl_err. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "../base/err.h"
#include "files.h"
#include "json.h"
#include "recording.h"

/* What a recording may hold (docs/security.md). The shipped one, every setting of every
 * lesson timed, is 3.4 MB with 255,000 JSON values (13.5 bytes a value); one that grows to
 * 20 MB would hold about 1.5 million. Larger files, and files packed with more values than a
 * recording has, are refused before cJSON builds its tree (64 bytes a value): memory stays
 * bounded whatever the file holds. */
#define RECORDING_FILE_MAX (64u << 20)
#define RECORDING_VALUES_MAX 4000000
/* Ranges of recorded numbers: counters are per warp instruction (a warp access costs at
 * most a few dozen wavefronts); anything outside is a damaged file, not a measurement. */
#define R_BOOL 0, 1
#define R_COUNTER 0, 65536
#define R_INST 0, 1e15
#define R_MS 0, 1e7
#define R_RATE 0, 1e12
#define R_MODEL -1, 65536
#define R_OFFSET 0, 281474976710656.0   /* 2^48 bytes */
#define R_PARAM -1e12, 1e12

void recording_init(struct recording *r)
{
    memset(r, 0, sizeof *r);
    r->version = RECORDING_VERSION;
}

void recording_done(struct recording *r)
{
    if (!r)
        return;
    free(r->rows);
    recording_init(r);
}

int recording_add(struct recording *r, const struct recording_row *row)
{
    if (r->nrows % 64 == 0) {
        struct recording_row *n = realloc(r->rows, (size_t)(r->nrows + 64) * sizeof *n);
        if (!n)
            return -1;
        r->rows = n;
    }
    r->rows[r->nrows++] = *row;
    return 0;
}

int recording_merge(struct recording *dst, const struct recording *src)
{
    for (int i = 0; i < src->nrows; i++)
        if (recording_add(dst, &src->rows[i]))
            return -1;
    if (!dst->device[0])
        snprintf(dst->device, sizeof dst->device, "%s", src->device);
    if (!dst->date[0])
        snprintf(dst->date, sizeof dst->date, "%s", src->date);
    if (!dst->scenes[0])
        snprintf(dst->scenes, sizeof dst->scenes, "%s", src->scenes);
    if (src->command[0]) {
        size_t n = strlen(dst->command);
        if (n)
            snprintf(dst->command + n, sizeof dst->command - n, "; %s", src->command);
        else
            snprintf(dst->command, sizeof dst->command, "%s", src->command);
    }
    return 0;
}

struct gpu *recording_open_replay(const struct recording *r, struct gpu_info *info)
{
    struct gpu_record *recs = calloc((size_t)(r->nrows ? r->nrows : 1), sizeof *recs);
    if (!recs)
        return NULL;
    for (int i = 0; i < r->nrows; i++)
        recs[i] = r->rows[i].rec;
    struct gpu *g = gpu_open_replay(recs, r->nrows, r->device, r->date, info);
    free(recs);
    return g;
}

/* ---- writing ---- */

static cJSON *num(double v) { return cJSON_CreateNumber(v); }

/* v to n significant digits: measured times carry no more, and a recording of every lesson
 * setting stays a few MB instead of twice that with 17 digits a number. */
static double sig(double v, int n)
{
    if (v == 0 || !isfinite(v))
        return v;
    double p = pow(10, n - 1 - (int)floor(log10(fabs(v))));
    return round(v * p) / p;
}

#define SIG 6

static cJSON *request_json(const struct gpu_request *q)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    if (q->kind == GPU_REQ_PATTERN) {
        char mask[16];
        snprintf(mask, sizeof mask, "%08" PRIx32, q->access.mask);
        cJSON_AddStringToObject(o, "kind", "pattern");
        cJSON_AddNumberToObject(o, "width", q->access.width);
        cJSON_AddStringToObject(o, "op", q->access.op == BANK_STORE ? "st" : "ld");
        cJSON_AddStringToObject(o, "mask", mask);
        if (q->access.instr != BANK_PLAIN) {
            char name[32];
            cJSON_AddStringToObject(o, "instruction",
                                    bank_instr_name(q->access.instr, q->access.matrices,
                                                    q->access.trans, q->access.width, name,
                                                    sizeof name));
        }
        cJSON *offs = cJSON_AddArrayToObject(o, "offsets");
        for (int i = 0; offs && i < BANK_LANES; i++)
            cJSON_AddItemToArray(offs, num((double)q->access.offset[i]));
        if (q->access.has_src) {
            cJSON *src = cJSON_AddArrayToObject(o, "sources");
            for (int i = 0; src && i < BANK_LANES; i++)
                cJSON_AddItemToArray(src, num((double)q->access.src[i]));
        }
    } else {
        cJSON_AddStringToObject(o, "kind", "case");
        cJSON_AddStringToObject(o, "case", q->case_name);
        cJSON *p = cJSON_AddObjectToObject(o, "params");
        for (int i = 0; p && i < q->nparams; i++)
            cJSON_AddItemToObject(p, q->param_name[i], num((double)q->param_value[i]));
    }
    cJSON_AddBoolToObject(o, "timing", q->want_timing != 0);
    cJSON_AddBoolToObject(o, "counters", q->want_counters != 0);
    return o;
}

/* A new object member key of o when have, else a null member (and NULL). */
static cJSON *object_or_null(cJSON *o, const char *key, int have)
{
    if (have)
        return cJSON_AddObjectToObject(o, key);
    cJSON_AddNullToObject(o, key);
    return NULL;
}

static cJSON *result_json(const struct gpu_result *s)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    int st = (int)s->err.status;
    const char *sn = gpu_status_name((enum gpu_status)st);
    cJSON_AddStringToObject(o, "status", sn ? sn : "failed");
    cJSON_AddStringToObject(o, "error", s->err.msg);
    cJSON_AddStringToObject(o, "provenance", s->provenance);
    cJSON *t = object_or_null(o, "timing", s->has_timing);
    if (t) {
        cJSON_AddNumberToObject(t, "ms_median", sig(s->ms_median, SIG));
        cJSON_AddNumberToObject(t, "ms_min", sig(s->ms_min, SIG));
        cJSON_AddNumberToObject(t, "ms_max", sig(s->ms_max, SIG));
        cJSON_AddNumberToObject(t, "launches", s->launches);
        cJSON_AddNumberToObject(t, "clk_per_request", sig(s->clk_per_request, SIG));
        cJSON_AddNumberToObject(t, "bytes_per_clk_per_sm", sig(s->bytes_per_clk_per_sm, SIG));
        cJSON_AddNumberToObject(t, "gbps", sig(s->gbps, SIG));
    }
    cJSON *a = object_or_null(o, "access_timing", s->has_access_timing);
    if (a) {
        cJSON_AddNumberToObject(a, "clk_per_access", sig(s->clk_per_access, SIG));
        cJSON_AddNumberToObject(a, "ns_per_access", sig(s->ns_per_access, SIG));
        cJSON_AddNumberToObject(a, "ref_clk_per_access", sig(s->ref_clk_per_access, SIG));
        cJSON_AddNumberToObject(a, "slowdown", sig(s->slowdown, SIG));
    }
    cJSON_AddBoolToObject(o, "verified", s->verified != 0);
    cJSON *c = object_or_null(o, "counters", s->has_counters);
    if (c) {
        cJSON_AddNumberToObject(c, "wavefronts_ld", sig(s->wavefronts_ld, SIG));
        cJSON_AddNumberToObject(c, "wavefronts_st", sig(s->wavefronts_st, SIG));
        cJSON_AddNumberToObject(c, "conflicts_ld", sig(s->conflicts_ld, SIG));
        cJSON_AddNumberToObject(c, "conflicts_st", sig(s->conflicts_st, SIG));
        cJSON_AddNumberToObject(c, "inst_ld", s->inst_ld);
        cJSON_AddNumberToObject(c, "inst_st", s->inst_st);
    }
    cJSON_AddStringToObject(o, "counters_note", s->counters_note);
    return o;
}

int recording_write(FILE *f, const struct recording *r)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return -1;
    cJSON_AddStringToObject(root, "format", RECORDING_FORMAT);
    cJSON_AddNumberToObject(root, "version", RECORDING_VERSION);
    cJSON_AddStringToObject(root, "device", r->device);
    cJSON_AddStringToObject(root, "date", r->date);
    cJSON_AddStringToObject(root, "command", r->command);
    if (r->scenes[0])
        cJSON_AddStringToObject(root, "lesson_scenes", r->scenes);
    cJSON *rows = cJSON_AddArrayToObject(root, "records");
    int bad = rows == NULL;
    for (int i = 0; !bad && i < r->nrows; i++) {
        const struct recording_row *w = &r->rows[i];
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddItemToArray(rows, o)) {
            cJSON_Delete(o);
            bad = 1;
            break;
        }
        cJSON_AddStringToObject(o, "group", w->group);
        cJSON_AddStringToObject(o, "label", w->label);
        cJSON *m = cJSON_AddObjectToObject(o, "model");
        if (m) {
            if (w->model_wavefronts >= 0)
                cJSON_AddNumberToObject(m, "wavefronts", w->model_wavefronts);
            if (w->model_conflicts >= 0)
                cJSON_AddNumberToObject(m, "conflicts", w->model_conflicts);
        }
        if (w->agree < 0)
            cJSON_AddNullToObject(o, "agree");
        else
            cJSON_AddBoolToObject(o, "agree", w->agree != 0);
        cJSON *q = request_json(&w->rec.req), *s = result_json(&w->rec.res);
        if (!q || !s) {
            cJSON_Delete(q);
            cJSON_Delete(s);
            bad = 1;
            break;
        }
        cJSON_AddItemToObject(o, "request", q);
        cJSON_AddItemToObject(o, "result", s);
    }
    char *text = bad ? NULL : cJSON_Print(root);
    cJSON_Delete(root);
    if (!text)
        return -1;
    int rc = fputs(text, f) < 0 || fputc('\n', f) == EOF ? -1 : 0;
    free(text);
    return rc;
}

/* ---- reading ---- */

/* A reader stops at its first problem (e, every message naming the file first). */
struct rd {
    const char *name;
    struct bl_err e;
};

/* The reader's first problem into err (when it holds none yet); -1 when there was one. */
static int rd_result(const struct rd *d, struct bl_err *err)
{
    if (!bl_err_failed(&d->e))
        return 0;
    if (err && !bl_err_failed(err))
        *err = d->e;
    return -1;
}

static void get_str(struct rd *d, const cJSON *o, const char *key, char *dst, size_t size,
                    int required, const char *where)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v || cJSON_IsNull(v)) {
        if (required)
            bl_fail(&d->e, -1, BL_NOWHERE, REC_MISSING, d->name, where, key);
        return;
    }
    if (!cJSON_IsString(v)) {
        bl_fail(&d->e, -1, BL_NOWHERE, REC_NOT_STRING, d->name, where, key);
        return;
    }
    snprintf(dst, size, "%s", v->valuestring);
}

/* A number in lo..hi (true/false count as 1/0); def when absent. */
static double get_num(struct rd *d, const cJSON *o, const char *key, double def, int required,
                      const char *where, double lo, double hi)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v || cJSON_IsNull(v)) {
        if (required)
            bl_fail(&d->e, -1, BL_NOWHERE, REC_MISSING, d->name, where, key);
        return def;
    }
    if (cJSON_IsBool(v))
        return cJSON_IsTrue(v) ? 1 : 0;
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= lo && v->valuedouble <= hi)) {
        bl_fail(&d->e, -1, BL_NOWHERE, REC_NUMBER_IN, d->name, where, key, lo, hi);
        return def;
    }
    return v->valuedouble;
}

/* 1 when w is a width the model knows (bytes per lane). */
static int width_ok(unsigned w)
{
    return w == 1 || w == 2 || w == 4 || w == 8 || w == 16;
}

/* 32 offsets (whole numbers in R_OFFSET) into out. */
static void read_offsets(struct rd *d, const cJSON *o, uint64_t *out, const char *where)
{
    const cJSON *offs = cJSON_GetObjectItemCaseSensitive(o, "offsets");
    if (!cJSON_IsArray(offs) || cJSON_GetArraySize(offs) != BANK_LANES) {
        bl_fail(&d->e, -1, BL_NOWHERE, REC_OFFSETS, d->name, where);
        return;
    }
    int i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, offs)
    {
        double x = cJSON_IsNumber(v) ? v->valuedouble : -1;
        if (!(x >= 0 && x <= 281474976710656.0) || x != (double)(uint64_t)x) {
            bl_fail(&d->e, -1, BL_NOWHERE, REC_OFFSET_WHOLE, d->name, where, i);
            return;
        }
        out[i++] = (uint64_t)x;
    }
}

static void read_request(struct rd *d, const cJSON *q, struct gpu_request *out, const char *where)
{
    char kind[16] = "";
    memset(out, 0, sizeof *out);
    if (!cJSON_IsObject(q)) {
        bl_fail(&d->e, -1, BL_NOWHERE, REC_REQUEST_OBJECT, d->name, where);
        return;
    }
    get_str(d, q, "kind", kind, sizeof kind, 1, where);
    out->want_timing = (int)get_num(d, q, "timing", 0, 0, where, R_BOOL);
    out->want_counters = (int)get_num(d, q, "counters", 0, 0, where, R_BOOL);
    if (!strcmp(kind, "pattern")) {
        char op[8] = "", mask[16] = "";
        out->kind = GPU_REQ_PATTERN;
        out->access.width = (unsigned)get_num(d, q, "width", 0, 1, where, 1, 16);
        get_str(d, q, "op", op, sizeof op, 1, where);
        get_str(d, q, "mask", mask, sizeof mask, 1, where);
        if (bl_err_failed(&d->e))
            return;
        if (strcmp(op, "ld") && strcmp(op, "st"))
            bl_fail(&d->e, -1, BL_NOWHERE, REC_OP, d->name, where);
        out->access.op = !strcmp(op, "st") ? BANK_STORE : BANK_LOAD;
        if (!width_ok(out->access.width))
            bl_fail(&d->e, -1, BL_NOWHERE, REC_WIDTH, d->name, where);
        char *end;
        out->access.mask = (uint32_t)strtoul(mask, &end, 16);
        if (!mask[0] || *end || strlen(mask) > 8)
            bl_fail(&d->e, -1, BL_NOWHERE, REC_MASK, d->name, where);
        const cJSON *ins = cJSON_GetObjectItemCaseSensitive(q, "instruction");
        if (ins && !cJSON_IsNull(ins)) {
            struct bank_access a = out->access;
            if (!cJSON_IsString(ins) || bank_instr_parse(ins->valuestring, &a) ||
                a.width != out->access.width || a.op != out->access.op)
                bl_fail(&d->e, -1, BL_NOWHERE, REC_INSTRUCTION, d->name, where);
            else
                out->access = a;
        }
        read_offsets(d, q, out->access.offset, where);
        const cJSON *src = cJSON_GetObjectItemCaseSensitive(q, "sources");
        if (src && !cJSON_IsNull(src)) {
            if (!cJSON_IsArray(src) || cJSON_GetArraySize(src) != BANK_LANES) {
                bl_fail(&d->e, -1, BL_NOWHERE, REC_SOURCES, d->name, where);
                return;
            }
            out->access.has_src = 1;
            for (int i = 0; i < BANK_LANES; i++) {
                const cJSON *v = cJSON_GetArrayItem(src, i);
                double x = cJSON_IsNumber(v) ? v->valuedouble : -1;
                if (x < 0 || x > 65536 || x != (double)(uint32_t)x) {
                    bl_fail(&d->e, -1, BL_NOWHERE, REC_SOURCE_RANGE, d->name, where, i);
                    return;
                }
                out->access.src[i] = (uint32_t)x;
            }
        }
    } else if (!strcmp(kind, "case")) {
        out->kind = GPU_REQ_CASE;
        get_str(d, q, "case", out->case_name, sizeof out->case_name, 1, where);
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(q, "params");
        if (p && !cJSON_IsNull(p)) {
            if (!cJSON_IsObject(p)) {
                bl_fail(&d->e, -1, BL_NOWHERE, REC_PARAMS_OBJECT, d->name, where);
                return;
            }
            const cJSON *v;
            cJSON_ArrayForEach(v, p)
            {
                if (out->nparams == GPU_CASE_MAX_PARAMS) {
                    bl_fail(&d->e, -1, BL_NOWHERE, REC_TOO_MANY_PARAMS, d->name, where, GPU_CASE_MAX_PARAMS);
                    return;
                }
                if (!cJSON_IsNumber(v) || !(fabs(v->valuedouble) <= 1e12)) {
                    bl_fail(&d->e, -1, BL_NOWHERE, REC_PARAM_RANGE, d->name, where, v->string);
                    return;
                }
                snprintf(out->param_name[out->nparams], sizeof out->param_name[0], "%s",
                         v->string);
                out->param_value[out->nparams++] = (long long)v->valuedouble;
            }
        }
    } else if (!bl_err_failed(&d->e)) {
        bl_fail(&d->e, -1, BL_NOWHERE, REC_KIND, d->name, where);
    }
}

/* Member key of o when it is an object; NULL when absent or null, and when it is something
 * else (then d fails: "... must be an object or null"). */
static const cJSON *opt_object(struct rd *d, const cJSON *o, const char *key, const char *where)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v || cJSON_IsNull(v))
        return NULL;
    if (!cJSON_IsObject(v)) {
        bl_fail(&d->e, -1, BL_NOWHERE, REC_OBJECT_OR_NULL, d->name, where, key);
        return NULL;
    }
    return v;
}

static void read_result(struct rd *d, const cJSON *s, struct gpu_result *out, const char *where)
{
    char status[32] = "";
    memset(out, 0, sizeof *out);
    if (!cJSON_IsObject(s)) {
        bl_fail(&d->e, -1, BL_NOWHERE, REC_RESULT_OBJECT, d->name, where);
        return;
    }
    get_str(d, s, "status", status, sizeof status, 1, where);
    int st = -1;
    for (int i = 0; gpu_status_name((enum gpu_status)i); i++)
        if (!strcmp(status, gpu_status_name((enum gpu_status)i)))
            st = i;
    if (st < 0 && !bl_err_failed(&d->e))
        bl_fail(&d->e, -1, BL_NOWHERE, REC_UNKNOWN_STATUS, d->name, where, status);
    out->err.status = st < 0 ? GPU_EFAILED : (enum gpu_status)st;
    get_str(d, s, "error", out->err.msg, sizeof out->err.msg, 0, where);
    get_str(d, s, "provenance", out->provenance, sizeof out->provenance, 0, where);
    get_str(d, s, "counters_note", out->counters_note, sizeof out->counters_note, 0, where);
    out->verified = (int)get_num(d, s, "verified", 0, 0, where, R_BOOL);
    const cJSON *t = opt_object(d, s, "timing", where);
    if (t) {
        out->has_timing = 1;
        out->ms_median = get_num(d, t, "ms_median", 0, 1, where, R_MS);
        out->ms_min = get_num(d, t, "ms_min", 0, 0, where, R_MS);
        out->ms_max = get_num(d, t, "ms_max", 0, 0, where, R_MS);
        out->launches = (int)get_num(d, t, "launches", 0, 0, where, 0, 1e9);
        out->clk_per_request = get_num(d, t, "clk_per_request", 0, 0, where, R_RATE);
        out->bytes_per_clk_per_sm = get_num(d, t, "bytes_per_clk_per_sm", 0, 0, where, R_RATE);
        out->gbps = get_num(d, t, "gbps", 0, 0, where, R_RATE);
    }
    const cJSON *a = opt_object(d, s, "access_timing", where);
    if (a) {
        out->has_access_timing = 1;
        out->clk_per_access = get_num(d, a, "clk_per_access", 0, 1, where, R_RATE);
        out->ns_per_access = get_num(d, a, "ns_per_access", 0, 1, where, R_RATE);
        out->ref_clk_per_access = get_num(d, a, "ref_clk_per_access", 0, 0, where, R_RATE);
        out->slowdown = get_num(d, a, "slowdown", 0, 1, where, R_RATE);
    }
    const cJSON *c = opt_object(d, s, "counters", where);
    if (c) {
        out->has_counters = 1;
        out->wavefronts_ld = get_num(d, c, "wavefronts_ld", 0, 1, where, R_COUNTER);
        out->wavefronts_st = get_num(d, c, "wavefronts_st", 0, 1, where, R_COUNTER);
        out->conflicts_ld = get_num(d, c, "conflicts_ld", 0, 1, where, R_COUNTER);
        out->conflicts_st = get_num(d, c, "conflicts_st", 0, 1, where, R_COUNTER);
        out->inst_ld = get_num(d, c, "inst_ld", 0, 0, where, R_INST);
        out->inst_st = get_num(d, c, "inst_st", 0, 0, where, R_INST);
    }
}

int recording_load_buffer(const char *name, const char *data, size_t len, struct recording *r,
                          struct bl_err *err)
{
    struct rd d = {name ? name : "recording", {0}};
    bl_err_clear(&d.e);
    recording_init(r);
    if (len > RECORDING_FILE_MAX) {
        bl_fail(&d.e, -1, BL_NOWHERE, REC_TOO_LARGE, d.name, RECORDING_FILE_MAX >> 20);
        return rd_result(&d, err);
    }
    if (json_too_many_values(data, len, RECORDING_VALUES_MAX)) {
        bl_fail(&d.e, -1, BL_NOWHERE, REC_TOO_MANY_VALUES, d.name, RECORDING_VALUES_MAX);
        return rd_result(&d, err);
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(data, len, &end, 0);
    if (!root) {
        int line, col;
        size_t pos = end && end >= data ? (size_t)(end - data) : 0;
        if (pos > len)
            pos = len;
        json_line_col(data, len, pos, &line, &col);
        if (pos >= len || json_unclosed(data, len))
            bl_fail(&d.e, -1, BL_NOWHERE, REC_ENDS_EARLY, d.name, line, col);
        else
            bl_fail(&d.e, -1, BL_NOWHERE, REC_NOT_JSON, d.name, line, col);
        return rd_result(&d, err);
    }
    char fmt[64] = "";
    if (!cJSON_IsObject(root)) {
        bl_fail(&d.e, -1, BL_NOWHERE, REC_TOP_NOT_OBJECT, d.name);
        goto out;
    }
    get_str(&d, root, "format", fmt, sizeof fmt, 0, "top level");
    if (bl_err_failed(&d.e) || strcmp(fmt, RECORDING_FORMAT)) {
        bl_err_clear(&d.e);
        bl_fail(&d.e, -1, BL_NOWHERE, REC_NOT_FORMAT, d.name, RECORDING_FORMAT);
        goto out;
    }
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(root, "version");
    if (!cJSON_IsNumber(ver)) {
        bl_fail(&d.e, -1, BL_NOWHERE, REC_NO_VERSION, d.name);
        goto out;
    }
    if (ver->valueint != RECORDING_VERSION) {
        bl_fail(&d.e, -1, BL_NOWHERE, REC_VERSION, d.name, ver->valueint, RECORDING_VERSION);
        goto out;
    }
    get_str(&d, root, "device", r->device, sizeof r->device, 1, "top level");
    get_str(&d, root, "date", r->date, sizeof r->date, 1, "top level");
    get_str(&d, root, "command", r->command, sizeof r->command, 0, "top level");
    get_str(&d, root, "lesson_scenes", r->scenes, sizeof r->scenes, 0, "top level");
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(root, "records");
    if (!bl_err_failed(&d.e) && !cJSON_IsArray(rows))
        bl_fail(&d.e, -1, BL_NOWHERE, REC_RECORDS_ARRAY, d.name);
    const cJSON *o;
    int i = 0;
    if (!bl_err_failed(&d.e)) {
        cJSON_ArrayForEach(o, rows)
        {
            struct recording_row w;
            char where[48];
            memset(&w, 0, sizeof w);
            snprintf(where, sizeof where, "records[%d]", i++);
            if (!cJSON_IsObject(o)) {
                bl_fail(&d.e, -1, BL_NOWHERE, REC_MUST_BE_OBJECT, d.name, where);
                break;
            }
            get_str(&d, o, "group", w.group, sizeof w.group, 0, where);
            get_str(&d, o, "label", w.label, sizeof w.label, 0, where);
            w.model_wavefronts = w.model_conflicts = -1;
            const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "model");
            if (cJSON_IsObject(m)) {
                w.model_wavefronts = (int)get_num(&d, m, "wavefronts", -1, 0, where, R_MODEL);
                w.model_conflicts = (int)get_num(&d, m, "conflicts", -1, 0, where, R_MODEL);
            }
            const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "agree");
            w.agree = cJSON_IsBool(a) ? cJSON_IsTrue(a) : -1;
            read_request(&d, cJSON_GetObjectItemCaseSensitive(o, "request"), &w.rec.req, where);
            read_result(&d, cJSON_GetObjectItemCaseSensitive(o, "result"), &w.rec.res, where);
            if (bl_err_failed(&d.e))
                break;
            if (recording_add(r, &w)) {
                bl_fail(&d.e, -1, BL_NOWHERE, REC_OUT_OF_MEMORY, d.name);
                break;
            }
        }
    }
out:
    cJSON_Delete(root);
    if (bl_err_failed(&d.e))
        recording_done(r);
    return rd_result(&d, err);
}

/* The file at path in a new buffer, or NULL with "PATH: why" in err. */
static char *slurp(const char *path, size_t *len, struct bl_err *err)
{
    struct bl_err why;
    bl_err_clear(&why);
    char *buf = files_read(path, RECORDING_FILE_MAX, len, &why);
    if (!buf)
        bl_fail(err, why.status, BL_NOWHERE, REC_FILE, path, why.msg);
    return buf;
}

int recording_load_file(const char *path, struct recording *r, struct bl_err *err)
{
    recording_init(r);
    size_t len;
    char *buf = slurp(path, &len, err);
    if (!buf)
        return -1;
    int rc = recording_load_buffer(path, buf, len, r, err);
    free(buf);
    return rc;
}

/* One case of tests/data/h200-matrix.json (it has "instruction"): 1 when it is one, 0 for
 * one the model does not cover (cp.async.cg: no counter sees it), -1 on a bad field. */
static int matrix_case(struct rd *d, const cJSON *o, struct hw_case *c, const char *where)
{
    char ins[16] = "", var[16] = "", mask[16] = "", name[40];
    get_str(d, o, "instruction", ins, sizeof ins, 1, where);
    get_str(d, o, "variant", var, sizeof var, 1, where);
    get_str(d, o, "mask", mask, sizeof mask, 1, where);
    c->access.width = (unsigned)get_num(d, o, "width", 0, 1, where, 1, 16);
    double wf = get_num(d, o, "wavefronts", 0, 1, where, R_COUNTER);
    double cf = get_num(d, o, "conflicts", 0, 1, where, R_COUNTER);
    if (bl_err_failed(&d->e))
        return -1;
    if (!strncmp(var, "cg.", 3))
        return 0;
    int ok = 1;
    if (!strcmp(ins, "ldmatrix") || !strcmp(ins, "stmatrix")) {
        snprintf(name, sizeof name, "%s.%s", ins, var);
        ok = !bank_instr_parse(name, &c->access);
    } else if (!strcmp(ins, "cp.async")) {
        snprintf(name, sizeof name, "cp.async%u", c->access.width);
        ok = !bank_instr_parse(name, &c->access);
        const cJSON *g = cJSON_GetObjectItemCaseSensitive(o, "global_offsets");
        if (g && cJSON_GetArraySize(g) == BANK_LANES) {
            c->access.has_src = 1;
            for (int i = 0; i < BANK_LANES; i++)
                c->access.src[i] = (uint32_t)cJSON_GetArrayItem(g, i)->valuedouble;
        }
    } else if (!strcmp(ins, "ld.shared") || !strcmp(ins, "st.shared")) {
        c->access.op = ins[0] == 's' ? BANK_STORE : BANK_LOAD;
    } else {
        ok = 0;
    }
    char *e;
    c->access.mask = (uint32_t)strtoul(mask, &e, 16);
    if (!ok || *e || !mask[0] || strlen(mask) > 8) {
        bl_fail(&d->e, -1, BL_NOWHERE, REC_BAD_MATRIX_CASE, d->name, where);
        return -1;
    }
    read_offsets(d, o, c->access.offset, where);
    c->wavefronts = (int)(wf + 0.5);
    c->conflicts = (int)(cf + 0.5);
    return bl_err_failed(&d->e) ? -1 : 1;
}

int recording_load_hw_cases(const char *path, struct hw_case **cases, int *n,
                            struct bl_err *err)
{
    *cases = NULL;
    *n = 0;
    size_t len;
    char *data = slurp(path, &len, err);
    if (!data)
        return -1;
    struct rd d = {path, {0}};
    bl_err_clear(&d.e);
    const char *end = NULL;
    cJSON *root = NULL;
    struct hw_case *out = NULL;
    int count = 0;
    if (json_too_many_values(data, len, RECORDING_VALUES_MAX)) {
        bl_fail(&d.e, -1, BL_NOWHERE, REC_HW_TOO_MANY_VALUES, d.name, RECORDING_VALUES_MAX);
        goto done;
    }
    root = cJSON_ParseWithLengthOpts(data, len, &end, 0);
    if (!root) {
        int line, col;
        size_t pos = end && end >= data ? (size_t)(end - data) : 0;
        json_line_col(data, len, pos, &line, &col);
        bl_fail(&d.e, -1, BL_NOWHERE, REC_NOT_JSON, d.name, line, col);
        goto done;
    }
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "cases");
    if (!cJSON_IsArray(arr)) {
        bl_fail(&d.e, -1, BL_NOWHERE, REC_CASES_ARRAY, d.name);
        goto done;
    }
    out = calloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof *out);
    if (!out) {
        bl_fail(&d.e, -1, BL_NOWHERE, REC_OUT_OF_MEMORY, d.name);
        goto done;
    }
    const cJSON *o;
    cJSON_ArrayForEach(o, arr)
    {
        char where[48], op[8] = "", mask[16] = "";
        struct hw_case *c = &out[count];
        snprintf(where, sizeof where, "cases[%d]", count);
        if (!cJSON_IsObject(o)) {
            bl_fail(&d.e, -1, BL_NOWHERE, REC_MUST_BE_OBJECT, d.name, where);
            break;
        }
        get_str(&d, o, "name", c->name, sizeof c->name, 1, where);
        if (cJSON_GetObjectItemCaseSensitive(o, "instruction")) {
            int k = matrix_case(&d, o, c, where);
            if (k < 0)
                break;
            if (k == 0)
                memset(c, 0, sizeof *c);
            count += k;
            continue;
        }
        c->access.width = (unsigned)get_num(&d, o, "width", 0, 1, where, 1, 16);
        get_str(&d, o, "op", op, sizeof op, 1, where);
        get_str(&d, o, "mask", mask, sizeof mask, 1, where);
        c->wavefronts = (int)get_num(&d, o, "wavefronts", 0, 1, where, R_COUNTER);
        c->conflicts = (int)get_num(&d, o, "conflicts", 0, 1, where, R_COUNTER);
        if (bl_err_failed(&d.e))
            break;
        c->access.op = !strcmp(op, "st") ? BANK_STORE : BANK_LOAD;
        char *e;
        c->access.mask = (uint32_t)strtoul(mask, &e, 16);
        if (*e || !mask[0] || strlen(mask) > 8 || (strcmp(op, "ld") && strcmp(op, "st")) ||
            !width_ok(c->access.width)) {
            bl_fail(&d.e, -1, BL_NOWHERE, REC_BAD_CASE, d.name, where);
            break;
        }
        read_offsets(&d, o, c->access.offset, where);
        if (bl_err_failed(&d.e))
            break;
        count++;
    }
done:
    cJSON_Delete(root);
    free(data);
    if (bl_err_failed(&d.e)) {
        free(out);
        return rd_result(&d, err);
    }
    *cases = out;
    *n = count;
    return 0;
}

const char *recording_find_asset(const char *name, char *buf, size_t size)
{
    const char *env = getenv("BANKLAB_ASSETS");
    if (env && *env) {
        snprintf(buf, size, "%s/%s", env, name);
        if (access(buf, R_OK) == 0)
            return buf;
    }
#ifdef BANKLAB_SHARE_DIR
    snprintf(buf, size, "%s/assets/%s", BANKLAB_SHARE_DIR, name);
    if (access(buf, R_OK) == 0)
        return buf;
#endif
    snprintf(buf, size, "assets/%s", name);
    if (access(buf, R_OK) == 0)
        return buf;
    return NULL;
}

