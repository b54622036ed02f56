/* json_write.c: the JSON writer (json_write.h): a cJSON tree with a stack of open containers,
 * printed by cJSON and passed through one filter for the bytes cJSON leaves raw. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../base/utf8.h"
#include "json_write.h"

#define JW_DEPTH 16

struct jw {
    cJSON *open[JW_DEPTH];   /* open[0] the top level, open[depth - 1] the innermost */
    int depth;
    int skip;                /* containers opened after a failure: closed by jw_end, not kept */
    int failed;
};

struct jw *jw_new(int array)
{
    struct jw *w = calloc(1, sizeof *w);
    if (w && !(w->open[0] = array ? cJSON_CreateArray() : cJSON_CreateObject())) {
        free(w);
        return NULL;
    }
    if (w)
        w->depth = 1;
    return w;
}

void jw_free(struct jw *w)
{
    if (w)
        cJSON_Delete(w->open[0]);
    free(w);
}

/* v into the innermost open container (as key in an object); v NULL or not added: failed. */
static cJSON *add(struct jw *w, const char *key, cJSON *v)
{
    if (!w || w->failed) {
        cJSON_Delete(v);
        return NULL;
    }
    cJSON *top = w->open[w->depth - 1];
    int ok = v && (cJSON_IsArray(top) ? cJSON_AddItemToArray(top, v)
                                      : cJSON_AddItemToObject(top, key ? key : "", v));
    if (!ok) {
        cJSON_Delete(v);
        w->failed = 1;
        return NULL;
    }
    return v;
}

static void open_container(struct jw *w, const char *key, cJSON *c)
{
    if (w && w->depth == JW_DEPTH) {
        cJSON_Delete(c);
        c = NULL;
    }
    if (add(w, key, c))
        w->open[w->depth++] = c;
    else if (w)
        w->skip++;
}

void jw_obj(struct jw *w, const char *key) { open_container(w, key, cJSON_CreateObject()); }
void jw_arr(struct jw *w, const char *key) { open_container(w, key, cJSON_CreateArray()); }

void jw_end(struct jw *w)
{
    if (w && w->skip)
        w->skip--;
    else if (w && w->depth > 1)
        w->depth--;
}

void jw_str(struct jw *w, const char *key, const char *s)
{
    add(w, key, s ? cJSON_CreateString(s) : cJSON_CreateNull());
}

void jw_strn(struct jw *w, const char *key, const char *s, size_t n)
{
    char *c = s ? strndup(s, n) : NULL;
    add(w, key, c ? cJSON_CreateString(c) : s ? NULL : cJSON_CreateNull());
    free(c);
}

void jw_num(struct jw *w, const char *key, double v) { add(w, key, cJSON_CreateNumber(v)); }

void jw_numf(struct jw *w, const char *key, const char *fmt, double v)
{
    char buf[64];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    snprintf(buf, sizeof buf, fmt, v);
#pragma GCC diagnostic pop
    add(w, key, isfinite(v) ? cJSON_CreateRaw(buf) : cJSON_CreateNull());
}

void jw_int(struct jw *w, const char *key, long long v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", v);
    add(w, key, cJSON_CreateRaw(buf));
}

void jw_uints(struct jw *w, const char *key, const unsigned *v, int n)
{
    jw_arr(w, key);
    for (int i = 0; i < n; i++)
        jw_int(w, NULL, v[i]);
    jw_end(w);
}

void jw_bool(struct jw *w, const char *key, int v) { add(w, key, cJSON_CreateBool(v != 0)); }
void jw_null(struct jw *w, const char *key) { add(w, key, cJSON_CreateNull()); }

void jw_fields(struct jw *w, const void *s, const struct jw_field *f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const void *at = (const char *)s + f[i].off;
        if (f[i].type == JW_NUM)
            jw_num(w, f[i].key, *(const double *)at);
        else if (f[i].type == JW_BOOL)
            jw_bool(w, f[i].key, *(const int *)at);
        else
            jw_int(w, f[i].key, *(const int *)at);
    }
}

/* cJSON's text t to f. cJSON escapes C0 controls in strings and writes other bytes as they
 * are; outside strings its text is ASCII, so what is left to fix is in strings: bytes that are
 * not UTF-8 become '?', DEL, C1 and bidirectional controls \uXXXX (bl_utf8_control). */
static void put_filtered(FILE *f, char *t)
{
    size_t n = strlen(t), bad, at;
    unsigned cp;
    for (size_t i = 0; (bad = bl_utf8_bad(t + i, n - i)) != SIZE_MAX; i += bad + 1)
        t[i + bad] = '?';
    while ((at = bl_utf8_control(t, "\n\t", &cp)) != SIZE_MAX) {
        fwrite(t, 1, at, f);
        fprintf(f, "\\u%04x", cp);
        t += at + (cp < 0x80 ? 1 : cp < 0x800 ? 2 : 3);
    }
    fputs(t, f);
}

int jw_print(const struct jw *w, FILE *f, int pretty)
{
    char *text = w && !w->failed ? (pretty ? cJSON_Print(w->open[0])
                                           : cJSON_PrintUnformatted(w->open[0])) : NULL;
    if (!text) {
        errno = ENOMEM;
        return -1;
    }
    clearerr(f);
    put_filtered(f, text);
    fputc('\n', f);
    free(text);
    return fflush(f) != 0 || ferror(f) ? -1 : 0;
}
