/* lesson_read_fields.c: the lesson loader's field readers (lesson_read.h): paths for messages,
 * allowed keys with the nearest name suggested, and integers, booleans, strings, ids and
 * zh/en texts, each checked for type and range and reported by its path. cJSON only; never
 * prints. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../base/utf8.h"
#include "lesson_read.h"

/* Paths are for messages: a path too long for PATH_BUF ends in "...". */
static const char *path_fit(char *buf, int n)
{
    if (n < 0 || n >= PATH_BUF)
        memcpy(buf + PATH_BUF - 4, "...", 4);
    return buf;
}

const char *lr_sub(char *buf, const char *path, const char *name)
{
    if (path && *path)
        return path_fit(buf, snprintf(buf, PATH_BUF, "%s.%s", path, name));
    return path_fit(buf, snprintf(buf, PATH_BUF, "%s", name));
}

const char *lr_subi(char *buf, const char *path, int index)
{
    return path_fit(buf, snprintf(buf, PATH_BUF, "%s[%d]", path, index));
}

void *lr_calloc(struct ld *L, size_t n, size_t size)
{
    void *v = calloc(n ? n : 1, size);
    if (!v)
        L->oom = 1;
    return v;
}

const cJSON *lr_field(const cJSON *obj, const char *name, const char *path, char *p)
{
    lr_sub(p, path, name);
    return lr_get(obj, name);
}

char *lr_dupstr(struct ld *L, const char *s)
{
    char *d = strdup(s ? s : "");
    if (!d)
        L->oom = 1;
    return d;
}

static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 30 || lb > 30)
        return 99;
    size_t d[32][32];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            d[i][j] = best;
        }
    return d[la][lb];
}

/* Checks that obj has only the allowed keys, once each. Returns the number of problems. */
int lr_check_keys(struct ld *L, const cJSON *obj, const char *path, const char *const *allowed)
{
    int bad = 0;
    char list[320] = "";
    for (int k = 0; allowed[k]; k++) {
        size_t n = strlen(list);
        snprintf(list + n, sizeof list - n, "%s%s", k ? ", " : "", allowed[k]);
    }
    unsigned char seen[16] = {0};  /* every allowed list is shorter */
    for (const cJSON *c = obj->child; c; c = c->next) {
        const char *key = c->string ? c->string : "";
        int known = -1;
        for (int k = 0; allowed[k] && known < 0; k++)
            if (!strcmp(key, allowed[k]))
                known = k;
        char p[PATH_BUF];
        if (known >= 0 && known < (int)sizeof seen && seen[known]++) {
            lesson_problem(&L->P, 0, lr_sub(p, path, key), LP_FIELD_GIVEN_TWICE);
            bad++;
        }
        if (known >= 0)
            continue;
        bad++;
        if (L->P.n >= LESSON_PROBLEMS_SHOWN) {  /* not shown: spare the suggestion */
            L->P.n++;
            continue;
        }
        /* suggest only near names: a case slip, or at most a third of the letters */
        const char *near = NULL;
        size_t best = 3;
        for (int k = 0; allowed[k]; k++) {
            size_t dist = strcasecmp(key, allowed[k]) ? edit_distance(key, allowed[k]) : 0;
            if (dist < best && dist * 3 <= strlen(key) + 2) {
                best = dist;
                near = allowed[k];
            }
        }
        if (near)
            lesson_problem(&L->P, 0, lr_sub(p, path, key), LP_UNKNOWN_FIELD_DID_YOU_MEAN_VALID_F, near, list);
        else
            lesson_problem(&L->P, 0, lr_sub(p, path, key), LP_UNKNOWN_FIELD_VALID_FIELDS, list);
    }
    return bad;
}

const cJSON *lr_get(const cJSON *obj, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(obj, name);
}

int lr_expect_object(struct ld *L, const cJSON *j, const char *path)
{
    if (cJSON_IsObject(j))
        return 0;
    lesson_problem(&L->P, 0, path, LP_EXPECTED_AN_OBJECT_FOUND, json_type_name(j));
    return -1;
}

int lr_int_literal(const cJSON *j)
{
    return !strpbrk(j->valuestring ? j->valuestring : "", ".eE");
}

/* A required field that is missing, named by the path of its object. */
void lr_missing(struct ld *L, const char *path, const char *name)
{
    lesson_problem(&L->P, 0, path, LP_MISSING_REQUIRED_FIELD, name);
}

/* An integer field in lo..hi. Returns 1 when absent (and not required), 0 when read into
 * *out, -1 after a problem. what describes the range for the message. */
int lr_get_int(struct ld *L, const cJSON *obj, const char *name, const char *path,
               int required, long long lo, long long hi, const char *what, long long *out)
{
    const cJSON *j = lr_get(obj, name);
    char p[PATH_BUF];
    lr_sub(p, path, name);
    if (!j) {
        if (required) {
            lr_missing(L, path, name);
            return -1;
        }
        return 1;
    }
    double v = j->valuedouble;
    if (!cJSON_IsNumber(j) || !isfinite(v) || v != floor(v) || fabs(v) > INT_SAFE) {
        if (cJSON_IsNumber(j))
            lesson_problem(&L->P, 0, p, LP_EXPECTED_AN_INTEGER_FOUND, what, v);
        else
            lesson_problem(&L->P, 0, p, LP_EXPECTED_AN_INTEGER_FOUND_2, what,
                           json_type_name(j));
        return -1;
    }
    if (!lr_int_literal(j)) {
        lesson_problem(&L->P, 0, p, LP_EXPECTED_AN_INTEGER_FOUND_WRITE_IN, what, j->valuestring);
        return -1;
    }
    long long iv = (long long)v;
    if (iv < lo || iv > hi) {
        lesson_problem(&L->P, 0, p, LP_EXPECTED_AN_INTEGER_FOUND_3, what, iv);
        return -1;
    }
    *out = iv;
    return 0;
}

int lr_get_counts(struct ld *L, const cJSON *obj, const char *const *names, const char *path,
                  int *const *dst, int *bad)
{
    int given = 0;
    long long v;
    for (int k = 0; names[k]; k++) {
        int rc = lr_get_int(L, obj, names[k], path, 0, 0, 1024, "in 0..1024", &v);
        *bad += rc < 0;
        if (rc == 0) {
            *dst[k] = (int)v;
            given++;
        }
    }
    return given;
}

int lr_get_bool(struct ld *L, const cJSON *obj, const char *name, const char *path, int *out)
{
    const cJSON *j = lr_get(obj, name);
    if (!j)
        return 1;
    if (!cJSON_IsBool(j)) {
        char p[PATH_BUF];
        lesson_problem(&L->P, 0, lr_sub(p, path, name), LP_EXPECTED_TRUE_OR_FALSE_FOUND,
                       json_type_name(j));
        return -1;
    }
    *out = cJSON_IsTrue(j) ? 1 : 0;
    return 0;
}

static int blank(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
            return 0;
    return 1;
}

/* A string field; Returns 1 when absent and optional, 0 when read, -1 after a problem. */
int lr_get_string(struct ld *L, const cJSON *obj, const char *name, const char *path,
                  int required, const char **out)
{
    const cJSON *j = lr_get(obj, name);
    char p[PATH_BUF];
    if (!j) {
        if (required) {
            lr_missing(L, path, name);
            return -1;
        }
        return 1;
    }
    if (!cJSON_IsString(j) || !j->valuestring) {
        lesson_problem(&L->P, 0, lr_sub(p, path, name), LP_EXPECTED_A_STRING_FOUND,
                       json_type_name(j));
        return -1;
    }
    if (blank(j->valuestring)) {
        lesson_problem(&L->P, 0, lr_sub(p, path, name), LP_EMPTY_STRING);
        return -1;
    }
    unsigned cp = 0;
    size_t at = bl_utf8_control(j->valuestring, "\n", &cp);
    if (at != SIZE_MAX) {
        lesson_problem(&L->P, 0, lr_sub(p, path, name), cp >= 0x2000 ? LP_BIDI_CONTROL : LP_CONTROL,
                       cp);
        return -1;
    }
    *out = j->valuestring;
    return 0;
}

int lr_is_ident_char(int c, int first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           (!first && c >= '0' && c <= '9');
}

/* ids: letters, digits and '-' */
static int valid_id(const char *s)
{
    if (!*s || strlen(s) > 64)
        return 0;
    for (; *s; s++)
        if (!lr_is_ident_char((unsigned char)*s, 0) && *s != '-')
            return 0;
    return 1;
}

int lr_get_id(struct ld *L, const cJSON *obj, const char *path, char **out)
{
    const char *s;
    if (lr_get_string(L, obj, "id", path, 1, &s))
        return -1;
    if (!valid_id(s)) {
        char p[PATH_BUF];
        lesson_problem(&L->P, 0, lr_sub(p, path, "id"), LP_AN_ID_IS_1_64_LETTERS_DIGITS_OR, s);
        return -1;
    }
    *out = lr_dupstr(L, s);
    return 0;
}

static const char *const text_keys[] = {"zh", "en", NULL};
static const char *const choice_keys[] = {"zh", "en", "value", NULL};

/* Reads a {"zh": ..., "en": ...} object at j. Returns 0 or -1. */
int lr_read_text(struct ld *L, const cJSON *j, const char *path, struct lesson_text *out,
                 int is_choice, double *value)
{
    if (lr_expect_object(L, j, path))
        return -1;
    int bad = lr_check_keys(L, j, path, is_choice ? choice_keys : text_keys);
    const char *zh = NULL, *en = NULL;
    if (lr_get_string(L, j, "zh", path, 1, &zh))
        bad++;
    if (lr_get_string(L, j, "en", path, 1, &en))
        bad++;
    if (is_choice) {
        const cJSON *v = lr_get(j, "value");
        *value = NAN;
        if (v) {
            char p[PATH_BUF];
            if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) {
                lesson_problem(&L->P, 0, lr_sub(p, path, "value"), LP_EXPECTED_A_NUMBER_FOUND,
                               json_type_name(v));
                bad++;
            } else {
                *value = v->valuedouble;
            }
        }
    }
    if (zh)
        out->zh = lr_dupstr(L, zh);
    if (en)
        out->en = lr_dupstr(L, en);
    return bad ? -1 : 0;
}

/* A text field of obj. Returns 1 when absent and optional, 0 when read, -1 on a problem. */
int lr_get_text(struct ld *L, const cJSON *obj, const char *name, const char *path,
                int required, struct lesson_text *out)
{
    const cJSON *j = lr_get(obj, name);
    if (!j) {
        if (required) {
            lr_missing(L, path, name);
            return -1;
        }
        return 1;
    }
    char p[PATH_BUF];
    return lr_read_text(L, j, lr_sub(p, path, name), out, 0, NULL);
}
