/* recording.c: recorded GPU measurements <-> JSON (format in docs/gpu.md), bounded before
 * parsing (lessons' quoted figures are checked against one in figures.c). The only GPU code that
 * sees cJSON. Never prints, never exits: errors come back in a struct bl_err. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "../base/err.h"
#include "files.h"
#include "json.h"
#include "json_write.h"
#include "recording.h"
#include "../sys/sys.h"

/* What a recording may hold (docs/security.md, with the shipped one's size): larger files,
 * and files packed with more values, are refused before cJSON builds its tree (64 bytes a
 * value), so memory stays bounded whatever the file holds. */
#define RECORDING_FILE_MAX (64u << 20)
#define RECORDING_VALUES_MAX 4000000
/* Ranges of recorded numbers: counters are per warp instruction (a warp access costs at
 * most a few dozen wavefronts); anything outside is a damaged file, not a measurement. */
#define R_BOOL 0, 1
#define R_COUNTER 0, 65536
#define R_INST 0, 1e15
#define R_MS 0, 1e7
#define R_LAUNCHES 0, 1e9
#define R_RATE 0, 1e12
#define R_MODEL -1, 65536
#define R_OFFSET_MAX 281474976710656.0   /* 2^48 bytes */

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

/* ---- the numbers of a result ---- */

#define F(name, part, kind, req, range, pd, cd)                                                \
    {#name, part, offsetof(struct gpu_result, name), kind, req, range, pd, cd}
static const struct recording_field recording_fields[] = {
    F(ms_median, REC_TIMING, REC_SIG, 1, R_MS, -1, 3),
    F(ms_min, REC_TIMING, REC_SIG, 0, R_MS, -1, -1),
    F(ms_max, REC_TIMING, REC_SIG, 0, R_MS, -1, -1),
    F(launches, REC_TIMING, REC_INT, 0, R_LAUNCHES, -1, -1),
    F(clk_per_request, REC_TIMING, REC_SIG, 0, R_RATE, 1, -1),
    F(bytes_per_clk_per_sm, REC_TIMING, REC_SIG, 0, R_RATE, -1, -1),
    F(gbps, REC_TIMING, REC_SIG, 0, R_RATE, -1, 0),
    F(clk_per_access, REC_ACCESS, REC_SIG, 1, R_RATE, 1, 1),
    F(ns_per_access, REC_ACCESS, REC_SIG, 1, R_RATE, 2, 2),
    F(ref_clk_per_access, REC_ACCESS, REC_SIG, 0, R_RATE, -1, -1),
    F(slowdown, REC_ACCESS, REC_SIG, 1, R_RATE, 1, 1),
    F(wavefronts_ld, REC_COUNTERS, REC_SIG, 1, R_COUNTER, 1, 2),
    F(wavefronts_st, REC_COUNTERS, REC_SIG, 1, R_COUNTER, 1, 2),
    F(conflicts_ld, REC_COUNTERS, REC_SIG, 1, R_COUNTER, 1, 2),
    F(conflicts_st, REC_COUNTERS, REC_SIG, 1, R_COUNTER, 1, 2),
    F(inst_ld, REC_COUNTERS, REC_RAW, 0, R_INST, -1, -1),
    F(inst_st, REC_COUNTERS, REC_RAW, 0, R_INST, -1, -1),
    {NULL, 0, 0, 0, 0, 0, 0, 0, 0},
};
#undef F

/* The part objects of a result in a recording, by enum rec_part. */
static const char *const part_key[] = {"timing", "access_timing", "counters"};

static int *part_has(struct gpu_result *r, int part)
{
    return part == REC_TIMING ? &r->has_timing : part == REC_ACCESS ? &r->has_access_timing
                                                                   : &r->has_counters;
}

const struct recording_field *recording_field(const char *name)
{
    for (const struct recording_field *f = recording_fields; f->name; f++)
        if (!strcmp(f->name, name))
            return f;
    return NULL;
}

static double get_field(const struct gpu_result *r, const struct recording_field *f)
{
    double v;
    if (f->kind == REC_INT)
        return *(const int *)(const void *)((const char *)r + f->off);
    memcpy(&v, (const char *)r + f->off, sizeof v);
    return v;
}

static void set_field(struct gpu_result *r, const struct recording_field *f, double v)
{
    if (f->kind == REC_INT)
        *(int *)(void *)((char *)r + f->off) = (int)v;
    else
        memcpy((char *)r + f->off, &v, sizeof v);
}

double recording_value(const struct gpu_result *r, const char *name)
{
    const struct recording_field *f = recording_field(name);
    if (!f || r->err.status != GPU_OK || !*part_has((struct gpu_result *)r, f->part))
        return NAN;
    return get_field(r, f);
}

/* ---- writing ---- */

/* v to n significant digits: measured times carry no more, and a recording of every lesson
 * setting stays a few MB instead of twice that with 17 digits a number. */
static double sig(double v, int n)
{
    if (v == 0 || !isfinite(v))
        return v;
    double p = pow(10, n - 1 - (int)floor(log10(fabs(v))));
    return round(v * p) / p;
}

static void write_request(struct jw *w, const struct gpu_request *q)
{
    jw_obj(w, "request");
    if (q->kind == GPU_REQ_PATTERN) {
        char mask[16], name[32];
        snprintf(mask, sizeof mask, "%08" PRIx32, q->access.mask);
        jw_str(w, "kind", "pattern");
        jw_num(w, "width", q->access.width);
        jw_str(w, "op", q->access.op == BANK_STORE ? "st" : "ld");
        jw_str(w, "mask", mask);
        if (q->access.instr != BANK_PLAIN)
            jw_str(w, "instruction", bank_instr_name(q->access.instr, q->access.matrices,
                                                     q->access.trans, q->access.width, name,
                                                     sizeof name));
        jw_arr(w, "offsets");
        for (int i = 0; i < BANK_LANES; i++)
            jw_num(w, NULL, (double)q->access.offset[i]);
        jw_end(w);
        if (q->access.has_src) {
            jw_arr(w, "sources");
            for (int i = 0; i < BANK_LANES; i++)
                jw_num(w, NULL, (double)q->access.src[i]);
            jw_end(w);
        }
    } else {
        jw_str(w, "kind", "case");
        jw_str(w, "case", q->case_name);
        jw_obj(w, "params");
        for (int i = 0; i < q->nparams; i++)
            jw_num(w, q->param_name[i], (double)q->param_value[i]);
        jw_end(w);
    }
    jw_bool(w, "timing", q->want_timing);
    jw_bool(w, "counters", q->want_counters);
    jw_end(w);
}

static void write_result(struct jw *w, const struct gpu_result *s)
{
    const char *sn = gpu_status_name(s->err.status);
    jw_obj(w, "result");
    jw_str(w, "status", sn ? sn : "failed");
    jw_str(w, "error", s->err.msg);
    jw_str(w, "provenance", s->provenance);
    for (int p = 0; p < REC_PARTS; p++) {
        if (p == REC_COUNTERS)
            jw_bool(w, "verified", s->verified);
        if (!*part_has((struct gpu_result *)s, p)) {
            jw_null(w, part_key[p]);
            continue;
        }
        jw_obj(w, part_key[p]);
        for (const struct recording_field *f = recording_fields; f->name; f++)
            if (f->part == p)
                jw_num(w, f->name, f->kind == REC_SIG ? sig(get_field(s, f), 6) : get_field(s, f));
        jw_end(w);
    }
    jw_str(w, "counters_note", s->counters_note);
    jw_end(w);
}

int recording_write(FILE *f, const struct recording *r)
{
    struct jw *w = jw_new(0);
    jw_str(w, "format", RECORDING_FORMAT);
    jw_num(w, "version", RECORDING_VERSION);
    jw_str(w, "device", r->device);
    jw_str(w, "date", r->date);
    jw_str(w, "command", r->command);
    if (r->scenes[0])
        jw_str(w, "lesson_scenes", r->scenes);
    jw_arr(w, "records");
    for (int i = 0; i < r->nrows; i++) {
        const struct recording_row *row = &r->rows[i];
        jw_obj(w, NULL);
        jw_str(w, "group", row->group);
        jw_str(w, "label", row->label);
        jw_obj(w, "model");
        if (row->model_wavefronts >= 0)
            jw_num(w, "wavefronts", row->model_wavefronts);
        if (row->model_conflicts >= 0)
            jw_num(w, "conflicts", row->model_conflicts);
        jw_end(w);
        if (row->agree < 0)
            jw_null(w, "agree");
        else
            jw_bool(w, "agree", row->agree);
        write_request(w, &row->rec.req);
        write_result(w, &row->rec.res);
        jw_end(w);
    }
    int rc = jw_print(w, f, 1);
    jw_free(w);
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

/* 32 whole numbers in 0..max (array a) into v; -1 with d failed (id_array: a is not 32
 * numbers; id_item: element i is not whole or out of range). */
static int read_lanes(struct rd *d, const cJSON *a, double max, double *v, int id_array,
                      int id_item, const char *where)
{
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != BANK_LANES)
        return bl_fail(&d->e, -1, BL_NOWHERE, id_array, d->name, where);
    for (int i = 0; i < BANK_LANES; i++) {
        const cJSON *e = cJSON_GetArrayItem(a, i);
        v[i] = cJSON_IsNumber(e) ? e->valuedouble : -1;
        if (!(v[i] >= 0 && v[i] <= max) || v[i] != floor(v[i]))
            return bl_fail(&d->e, -1, BL_NOWHERE, id_item, d->name, where, i);
    }
    return 0;
}

/* "offsets": 32 byte offsets below 2^48 into out. */
static void read_offsets(struct rd *d, const cJSON *o, uint64_t *out, const char *where)
{
    double v[BANK_LANES];
    if (read_lanes(d, cJSON_GetObjectItemCaseSensitive(o, "offsets"), R_OFFSET_MAX, v,
                   REC_OFFSETS, REC_OFFSET_WHOLE, where) == 0)
        for (int i = 0; i < BANK_LANES; i++)
            out[i] = (uint64_t)v[i];
}

static void read_request(struct rd *d, const cJSON *q, struct gpu_request *out, const char *where)
{
    char kind[16] = "";
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
        double v[BANK_LANES];
        if (src && !cJSON_IsNull(src)) {
            if (read_lanes(d, src, 65536, v, REC_SOURCES, REC_SOURCE_RANGE, where))
                return;
            out->access.has_src = 1;
            for (int i = 0; i < BANK_LANES; i++)
                out->access.src[i] = (uint32_t)v[i];
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
    for (int p = 0; p < REC_PARTS; p++) {
        const cJSON *o = opt_object(d, s, part_key[p], where);
        *part_has(out, p) = o != NULL;
        for (const struct recording_field *f = recording_fields; o && f->name; f++)
            if (f->part == p)
                set_field(out, f, get_num(d, o, f->name, 0, f->required, where, f->lo, f->hi));
    }
}

/* data parsed (at most RECORDING_VALUES_MAX values: bounded before cJSON builds its tree), or
 * NULL with d failed; rec: a recording's messages (a cut file said so). */
static cJSON *parse(struct rd *d, const char *data, size_t len, int rec)
{
    const char *end = NULL;
    int line, col;
    if (json_too_many_values(data, len, RECORDING_VALUES_MAX)) {
        bl_fail(&d->e, -1, BL_NOWHERE, rec ? REC_TOO_MANY_VALUES : REC_HW_TOO_MANY_VALUES,
                d->name, RECORDING_VALUES_MAX);
        return NULL;
    }
    cJSON *root = json_parse(data, len, &end);
    if (!root) {
        size_t pos = end && end >= data ? (size_t)(end - data) : 0;
        pos = pos > len ? len : pos;
        json_line_col(data, len, pos, &line, &col);
        bl_fail(&d->e, -1, BL_AT((long long)pos, 1, -1),
                rec && (pos >= len || json_unclosed(data, len)) ? REC_ENDS_EARLY : REC_NOT_JSON,
                d->name, line, col);
    }
    return root;
}

/* One object of "records" into w. */
static void read_row(struct rd *d, const cJSON *o, struct recording_row *w, const char *where)
{
    get_str(d, o, "group", w->group, sizeof w->group, 0, where);
    get_str(d, o, "label", w->label, sizeof w->label, 0, where);
    w->model_wavefronts = w->model_conflicts = -1;
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "model");
    if (cJSON_IsObject(m)) {
        w->model_wavefronts = (int)get_num(d, m, "wavefronts", -1, 0, where, R_MODEL);
        w->model_conflicts = (int)get_num(d, m, "conflicts", -1, 0, where, R_MODEL);
    }
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "agree");
    w->agree = cJSON_IsBool(a) ? cJSON_IsTrue(a) : -1;
    const cJSON *q = cJSON_GetObjectItemCaseSensitive(o, "request"),
                *s = cJSON_GetObjectItemCaseSensitive(o, "result");
    if (!cJSON_IsObject(q))
        bl_fail(&d->e, -1, BL_NOWHERE, REC_REQUEST_OBJECT, d->name, where);
    else
        read_request(d, q, &w->rec.req, where);
    if (!cJSON_IsObject(s))
        bl_fail(&d->e, -1, BL_NOWHERE, REC_RESULT_OBJECT, d->name, where);
    else
        read_result(d, s, &w->rec.res, where);
}

/* The top level of a recording (format, version, device, ...) into r; its "records", or NULL
 * with d failed. */
static const cJSON *read_top(struct rd *d, const cJSON *root, struct recording *r)
{
    char fmt[64] = "";
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(root, "version");
    if (!cJSON_IsObject(root)) {
        bl_fail(&d->e, -1, BL_NOWHERE, REC_TOP_NOT_OBJECT, d->name);
        return NULL;
    }
    get_str(d, root, "format", fmt, sizeof fmt, 0, "top level");
    if (bl_err_failed(&d->e) || strcmp(fmt, RECORDING_FORMAT)) {
        bl_err_clear(&d->e);
        bl_fail(&d->e, -1, BL_NOWHERE, REC_NOT_FORMAT, d->name, RECORDING_FORMAT);
    } else if (!cJSON_IsNumber(ver)) {
        bl_fail(&d->e, -1, BL_NOWHERE, REC_NO_VERSION, d->name);
    } else if (ver->valueint != RECORDING_VERSION) {
        bl_fail(&d->e, -1, BL_NOWHERE, REC_VERSION, d->name, ver->valueint, RECORDING_VERSION);
    }
    if (bl_err_failed(&d->e))
        return NULL;
    get_str(d, root, "device", r->device, sizeof r->device, 1, "top level");
    get_str(d, root, "date", r->date, sizeof r->date, 1, "top level");
    get_str(d, root, "command", r->command, sizeof r->command, 0, "top level");
    get_str(d, root, "lesson_scenes", r->scenes, sizeof r->scenes, 0, "top level");
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(root, "records");
    if (!bl_err_failed(&d->e) && !cJSON_IsArray(rows))
        bl_fail(&d->e, -1, BL_NOWHERE, REC_RECORDS_ARRAY, d->name);
    return bl_err_failed(&d->e) ? NULL : rows;
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
    cJSON *root = parse(&d, data, len, 1);
    const cJSON *rows = root ? read_top(&d, root, r) : NULL, *o;
    int i = 0;
    cJSON_ArrayForEach(o, rows)
    {
        struct recording_row w;
        char where[48];
        memset(&w, 0, sizeof w);
        snprintf(where, sizeof where, "records[%d]", i++);
        if (!cJSON_IsObject(o))
            bl_fail(&d.e, -1, BL_NOWHERE, REC_MUST_BE_OBJECT, d.name, where);
        else
            read_row(&d, o, &w, where);
        if (!bl_err_failed(&d.e) && recording_add(r, &w))
            bl_fail(&d.e, -1, BL_NOWHERE, REC_OUT_OF_MEMORY, d.name);
        if (bl_err_failed(&d.e))
            break;
    }
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
 * one the model does not cover (cp.async.cg: the table read 0 for it; docs/model.md), -1 on
 * a bad field. */
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
    struct hw_case *out = NULL;
    int count = 0;
    cJSON *root = parse(&d, data, len, 0);
    if (!root)
        goto done;
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
    const char *env = sys_env("BANKLAB_ASSETS");
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
    /* the build tree: build/banklab beside the source's assets/ */
    char exe[4096];
    if (sys_exe_dir(exe, sizeof exe) == 0) {
        snprintf(buf, size, "%s/../assets/%s", exe, name);
        if (access(buf, R_OK) == 0)
            return buf;
    }
    snprintf(buf, size, "assets/%s", name);
    if (access(buf, R_OK) == 0)
        return buf;
    return NULL;
}

struct gpu *recording_open_shipped(struct gpu_info *info, struct bl_err *err)
{
    char path[4096];
    struct recording rec;
    memset(info, 0, sizeof *info);
    if (!recording_find_asset(RECORDING_SHIPPED, path, sizeof path)) {
        bl_fail(err, -1, BL_NOWHERE, REC_NO_SHIPPED, RECORDING_SHIPPED);
        return NULL;
    }
    if (recording_load_file(path, &rec, err) != 0)
        return NULL;
    struct gpu *g = recording_open_replay(&rec, info);
    recording_done(&rec);
    if (!g)
        bl_fail(err, -1, BL_NOWHERE, GPU_OUT_OF_MEMORY);
    return g;
}

double recording_tolerance(const struct bank_access *a)
{
    return a->instr == BANK_CPASYNC ? 0.05 : 0.005;
}
