/* lesson.c: reads one lesson file (docs/lessons.md) into the structs of lesson.h. Checks
 * syntax, every field's type and range, both languages, and runs every scene through the
 * pattern language at its defaults, with file:line:col for each problem. Positions come
 * from a strict JSON scanner that walks the text beside the cJSON tree (cJSON keeps none).
 * Never prints, never exits. Uses cJSON, the model (pattern.h, bank.h) and the key table
 * (the keys a parameter may not take); no curses, no GPU. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "../gpu/gpu.h"
#include "../keys/keys.h"
#include "lesson.h"
#include "files.h"
#include "../base/utf8.h"

#define COL_STEP 256                  /* bytes between two column checkpoints */
#define PATH_BUF 192                  /* "steps[12].scene.params[3].keys" */
#define INT_SAFE 9007199254740992.0   /* 2^53: integers a double holds exactly */
#define DYN_MAX PATTERN_DEFAULT_SMEM_LIMIT

/* ---------------------------------------------------------------- positions */

struct jnode {
    const cJSON *item;
    size_t key_off;      /* where its "key" starts, SIZE_MAX when it has none */
    size_t val_off;      /* where its value starts */
};

struct ld {
    const char *name;
    const char *text;    /* NUL-terminated copy of the file */
    size_t len;
    struct jnode *nodes;
    size_t nnodes, cap;
    size_t *hash;        /* open addressing: index + 1 into nodes, 0 = empty */
    size_t hcap;
    size_t *lines;       /* offset of each line start */
    size_t nlines;
    int *cols;           /* column of byte k * COL_STEP in its line: positions in O(COL_STEP) */
    int nproblems;
    int oom;
    struct lesson_error first;
    void (*report)(const struct lesson_error *e, void *ctx);
    void *ctx;
};

static size_t hash_ptr(const void *p, size_t cap)
{
    uint64_t h = (uint64_t)(uintptr_t)p;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return (size_t)h & (cap - 1);
}

static void add_node(struct ld *L, const cJSON *item, size_t key_off, size_t val_off)
{
    if (!item || L->oom)
        return;
    if (L->nnodes == L->cap) {
        size_t ncap = L->cap ? L->cap * 2 : 256;
        struct jnode *n = realloc(L->nodes, ncap * sizeof *n);
        if (!n) {
            L->oom = 1;
            return;
        }
        L->nodes = n;
        L->cap = ncap;
    }
    L->nodes[L->nnodes++] = (struct jnode){item, key_off, val_off};
}

static int build_hash(struct ld *L)
{
    size_t cap = 16;
    while (cap < L->nnodes * 2 + 2)
        cap *= 2;
    L->hash = calloc(cap, sizeof *L->hash);
    if (!L->hash)
        return -1;
    L->hcap = cap;
    for (size_t i = 0; i < L->nnodes; i++) {
        size_t h = hash_ptr(L->nodes[i].item, cap);
        while (L->hash[h])
            h = (h + 1) & (cap - 1);
        L->hash[h] = i + 1;
    }
    return 0;
}

static const struct jnode *find_node(const struct ld *L, const cJSON *item)
{
    if (!L->hcap || !item)
        return NULL;
    size_t h = hash_ptr(item, L->hcap);
    while (L->hash[h]) {
        const struct jnode *n = &L->nodes[L->hash[h] - 1];
        if (n->item == item)
            return n;
        h = (h + 1) & (L->hcap - 1);
    }
    return NULL;
}

/* Offset of a value (or of its key when it has one: messages point at the key). */
static size_t off_of(const struct ld *L, const cJSON *item, int want_key)
{
    const struct jnode *n = find_node(L, item);
    if (!n)
        return SIZE_MAX;
    if (want_key && n->key_off != SIZE_MAX)
        return n->key_off;
    return n->val_off;
}

/* The line starts and a column checkpoint every COL_STEP bytes, in one pass: finding a
 * position later costs a binary search and at most COL_STEP bytes, however long its line. */
static int build_lines(struct ld *L)
{
    size_t n = 1;
    for (size_t i = 0; i < L->len; i++)
        n += L->text[i] == '\n';
    L->lines = malloc(n * sizeof *L->lines);
    L->cols = malloc((L->len / COL_STEP + 1) * sizeof *L->cols);
    if (!L->lines || !L->cols)
        return -1;
    L->lines[0] = 0;
    L->nlines = 1;
    int col = 1;
    for (size_t i = 0;; i++) {
        if (i % COL_STEP == 0)
            L->cols[i / COL_STEP] = col;
        if (i == L->len)
            break;
        if (L->text[i] == '\n') {
            L->lines[L->nlines++] = i + 1;
            col = 1;
        } else if (((unsigned char)L->text[i] & 0xC0) != 0x80 && col < INT_MAX) {
            col++;
        }
    }
    return 0;
}

/* 1-based line and column; columns count characters (UTF-8 code points; a tab is one). */
static void line_col(const struct ld *L, size_t off, int *line, int *col)
{
    *line = 0;
    *col = 0;
    if (off == SIZE_MAX || !L->lines || !L->cols)
        return;
    if (off > L->len)
        off = L->len;
    size_t lo = 0, hi = L->nlines;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (L->lines[mid] <= off)
            lo = mid;
        else
            hi = mid;
    }
    size_t from = off / COL_STEP * COL_STEP;
    int c = L->cols[off / COL_STEP];
    if (from < L->lines[lo]) {  /* the checkpoint is on an earlier line */
        from = L->lines[lo];
        c = 1;
    }
    for (size_t i = from; i < off; i++)
        if (((unsigned char)L->text[i] & 0xC0) != 0x80 && c < INT_MAX)
            c++;
    *line = lo + 1 > INT_MAX ? INT_MAX : (int)(lo + 1);
    *col = c;
}

static void set_pos(const struct ld *L, const cJSON *item, int want_key, int *line, int *col)
{
    line_col(L, off_of(L, item, want_key), line, col);
}

/* ---------------------------------------------------------------- problems */

/* 1 when the file has used up its reported problems: later ones are only counted. */
static int capped(const struct ld *L)
{
    return L->nproblems >= LESSON_PROBLEMS_SHOWN;
}

static void problem_off(struct ld *L, size_t off, const char *path, const char *fmt, ...)
{
    if (capped(L)) {
        L->nproblems++;
        return;
    }
    struct lesson_error e;
    memset(&e, 0, sizeof e);
    snprintf(e.file, sizeof e.file, "%s", L->name);
    line_col(L, off, &e.line, &e.col);
    int n = 0;
    if (path && *path)
        n = snprintf(e.msg, sizeof e.msg, "%s: ", path);
    if (n < 0 || (size_t)n >= sizeof e.msg)
        n = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e.msg + n, sizeof e.msg - (size_t)n, fmt, ap);
    va_end(ap);
    if (L->nproblems == 0)
        L->first = e;
    L->nproblems++;
    if (L->report)
        L->report(&e, L->ctx);
}

/* A problem at item (at its key when it has one and at_key is set). */
#define PROBLEM(L, item, at_key, path, ...) problem_off((L), off_of((L), (item), (at_key)), (path), __VA_ARGS__)

/* ---------------------------------------------------------------- strict scanner */

struct scan {
    struct ld *L;
    const char *s;
    size_t n, i;
    int depth;
    size_t err_off;
    char err[160];
};

static int scan_fail(struct scan *S, size_t off, const char *fmt, ...)
{
    if (S->err[0])
        return -1;
    S->err_off = off;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(S->err, sizeof S->err, fmt, ap);
    va_end(ap);
    if (!S->err[0])
        snprintf(S->err, sizeof S->err, "syntax error");
    return -1;
}

static const char *char_name(int c, char *buf, size_t size)
{
    if (c >= 0x21 && c < 0x7f)
        snprintf(buf, size, "'%c'", c);
    else if (c == ' ')
        snprintf(buf, size, "a space");
    else if (c < 0x20 || c == 0x7f)
        snprintf(buf, size, "control character 0x%02x", c);
    else
        snprintf(buf, size, "a non-ASCII character");
    return buf;
}

static int scan_ws(struct scan *S)
{
    while (S->i < S->n) {
        unsigned char c = (unsigned char)S->s[S->i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
            S->i++;
        else if (c < 0x20 || c == 0x7f)
            return scan_fail(S, S->i, "control character 0x%02x (not allowed in JSON)", c);
        else
            break;
    }
    return 0;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static long read_u4(const struct scan *S, size_t at)
{
    if (at + 4 > S->n)
        return -1;
    long v = 0;
    for (int k = 0; k < 4; k++) {
        int h = hexval((unsigned char)S->s[at + k]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

static int scan_string(struct scan *S)
{
    size_t start = S->i;
    S->i++;  /* opening quote */
    for (;;) {
        if (S->i >= S->n)
            return scan_fail(S, start, "unterminated string (missing closing '\"')");
        unsigned char c = (unsigned char)S->s[S->i];
        if (c == '"') {
            S->i++;
            return 0;
        }
        if (c == '\n' || c == '\r')
            return scan_fail(S, S->i, "line break inside a string (missing closing '\"'? "
                                      "write \\n for a new line)");
        if (c < 0x20)
            return scan_fail(S, S->i, "control character 0x%02x inside a string (write \\t "
                                      "for a tab)", c);
        if (c != '\\') {
            S->i++;
            continue;
        }
        if (S->i + 1 >= S->n)
            return scan_fail(S, start, "unterminated string (missing closing '\"')");
        char e = S->s[S->i + 1];
        if (strchr("\"\\/bfnrt", e) && e) {
            S->i += 2;
            continue;
        }
        if (e != 'u') {
            char cb[32];
            return scan_fail(S, S->i, "invalid escape '\\' followed by %s (valid: \\\" \\\\ \\/ "
                             "\\b \\f \\n \\r \\t \\uXXXX)", char_name((unsigned char)e, cb, sizeof cb));
        }
        long u = read_u4(S, S->i + 2);
        if (u < 0)
            return scan_fail(S, S->i, "\\u must be followed by 4 hex digits");
        if (u == 0)
            return scan_fail(S, S->i, "\\u0000 is not allowed in a text");
        if (u >= 0xDC00 && u <= 0xDFFF)
            return scan_fail(S, S->i, "unpaired surrogate \\u%04lX", (unsigned long)u);
        if (u >= 0xD800 && u <= 0xDBFF) {
            long lo = -1;
            if (S->i + 7 < S->n && S->s[S->i + 6] == '\\' && S->s[S->i + 7] == 'u')
                lo = read_u4(S, S->i + 8);
            if (lo < 0xDC00 || lo > 0xDFFF)
                return scan_fail(S, S->i, "unpaired surrogate \\u%04lX", (unsigned long)u);
            S->i += 12;
        } else {
            S->i += 6;
        }
    }
}

static int is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static int scan_number(struct scan *S)
{
    size_t start = S->i;
    if (S->s[S->i] == '-')
        S->i++;
    if (S->i >= S->n || !is_digit((unsigned char)S->s[S->i]))
        return scan_fail(S, start, "bad number (a digit must follow '-')");
    if (S->s[S->i] == '0' && S->i + 1 < S->n && is_digit((unsigned char)S->s[S->i + 1]))
        return scan_fail(S, start, "bad number (no leading zeros in JSON)");
    while (S->i < S->n && is_digit((unsigned char)S->s[S->i]))
        S->i++;
    if (S->i < S->n && S->s[S->i] == '.') {
        S->i++;
        if (S->i >= S->n || !is_digit((unsigned char)S->s[S->i]))
            return scan_fail(S, start, "bad number (a digit must follow '.')");
        while (S->i < S->n && is_digit((unsigned char)S->s[S->i]))
            S->i++;
    }
    if (S->i < S->n && (S->s[S->i] == 'e' || S->s[S->i] == 'E')) {
        S->i++;
        if (S->i < S->n && (S->s[S->i] == '+' || S->s[S->i] == '-'))
            S->i++;
        if (S->i >= S->n || !is_digit((unsigned char)S->s[S->i]))
            return scan_fail(S, start, "bad number (a digit must follow the exponent)");
        while (S->i < S->n && is_digit((unsigned char)S->s[S->i]))
            S->i++;
    }
    return 0;
}

static int scan_value(struct scan *S, const cJSON *item, size_t key_off);

static int unexpected(struct scan *S, const char *expected)
{
    if (S->i >= S->n)
        return scan_fail(S, S->n, "unexpected end of file (expected %s)", expected);
    unsigned char c = (unsigned char)S->s[S->i];
    char cb[32];
    if (c == '\'')
        return scan_fail(S, S->i, "JSON strings use double quotes (\"), not '");
    if (c == '/')
        return scan_fail(S, S->i, "JSON has no comments");
    return scan_fail(S, S->i, "expected %s, found %s", expected, char_name(c, cb, sizeof cb));
}

static int scan_container(struct scan *S, const cJSON *item, int obj)
{
    size_t open = S->i;
    char close = obj ? '}' : ']';
    if (++S->depth > 200)
        return scan_fail(S, open, "nesting too deep (more than 200 levels)");
    S->i++;
    if (scan_ws(S))
        return -1;
    const cJSON *child = NULL;
    int first = 1;
    if (S->i < S->n && S->s[S->i] == close) {
        S->i++;
        S->depth--;
        return 0;
    }
    for (;;) {
        child = !item ? NULL : first ? item->child : child ? child->next : NULL;
        size_t key_off = SIZE_MAX;
        if (obj) {
            if (S->i < S->n && S->s[S->i] == '}' && !first)
                return scan_fail(S, S->i, "trailing comma before '}'");
            if (S->i >= S->n || S->s[S->i] != '"')
                return unexpected(S, "a \"key\" in double quotes");
            key_off = S->i;
            if (scan_string(S) || scan_ws(S))
                return -1;
            if (S->i >= S->n || S->s[S->i] != ':')
                return unexpected(S, "':' after the key");
            S->i++;
        } else if (S->i < S->n && S->s[S->i] == ']' && !first) {
            return scan_fail(S, S->i, "trailing comma before ']'");
        }
        first = 0;
        if (scan_value(S, child, key_off) || scan_ws(S))
            return -1;
        if (S->i < S->n && S->s[S->i] == ',') {
            S->i++;
            if (scan_ws(S))
                return -1;
            continue;
        }
        if (S->i < S->n && S->s[S->i] == close) {
            S->i++;
            S->depth--;
            return 0;
        }
        if (S->i >= S->n) {
            int line, col;
            line_col(S->L, open, &line, &col);
            return scan_fail(S, S->n, "unexpected end of file: '%c' opened at %d:%d is not closed",
                             S->s[open], line, col);
        }
        if (S->s[S->i] == '"' || S->s[S->i] == '{' || S->s[S->i] == '[')
            return scan_fail(S, S->i, "missing ',' before this");
        char what[24];
        snprintf(what, sizeof what, "',' or '%c'", close);
        return unexpected(S, what);
    }
}

static int scan_value(struct scan *S, const cJSON *item, size_t key_off)
{
    if (scan_ws(S))
        return -1;
    if (S->i >= S->n)
        return unexpected(S, "a value");
    add_node(S->L, item, key_off, S->i);
    unsigned char c = (unsigned char)S->s[S->i];
    if (c == '{' || c == '[')
        return scan_container(S, item, c == '{');
    if (c == '"')
        return scan_string(S);
    if (c == '-' || is_digit(c))
        return scan_number(S);
    static const char *const lits[] = {"true", "false", "null"};
    for (int k = 0; k < 3; k++) {
        size_t ln = strlen(lits[k]);
        if (S->n - S->i >= ln && !memcmp(S->s + S->i, lits[k], ln)) {
            S->i += ln;
            if (S->i < S->n && ((S->s[S->i] >= 'a' && S->s[S->i] <= 'z') ||
                                (S->s[S->i] >= 'A' && S->s[S->i] <= 'Z')))
                return scan_fail(S, S->i - ln, "unknown word (values are \"strings\", numbers, "
                                               "true, false, null, {...} or [...])");
            return 0;
        }
    }
    if (c == ']' || c == '}')
        return unexpected(S, "a value");
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
        return scan_fail(S, S->i, "unknown word (text must be in double quotes)");
    return unexpected(S, "a value");
}

/* Scans the whole document; with root, records positions of every node of root. */
static int scan_document(struct ld *L, const cJSON *root, size_t *err_off, char *err, size_t esz)
{
    struct scan S;
    memset(&S, 0, sizeof S);
    S.L = L;
    S.s = L->text;
    S.n = L->len;
    if (S.n >= 3 && !memcmp(S.s, "\xEF\xBB\xBF", 3))
        S.i = 3;
    int rc = scan_ws(&S);
    if (!rc && S.i >= S.n)
        rc = scan_fail(&S, 0, "empty file (a lesson is one JSON object)");
    if (!rc)
        rc = scan_value(&S, root, SIZE_MAX);
    if (!rc)
        rc = scan_ws(&S);
    if (!rc && S.i < S.n)
        rc = scan_fail(&S, S.i, "text after the end of the JSON object");
    if (rc) {
        *err_off = S.err_off;
        snprintf(err, esz, "%s", S.err);
    }
    return rc;
}

/* ---------------------------------------------------------------- field helpers */

static const char *jtype(const cJSON *j)
{
    if (!j)
        return "nothing";
    if (cJSON_IsString(j))
        return "a string";
    if (cJSON_IsNumber(j))
        return "a number";
    if (cJSON_IsObject(j))
        return "an object";
    if (cJSON_IsArray(j))
        return "an array";
    if (cJSON_IsBool(j))
        return "true/false";
    if (cJSON_IsNull(j))
        return "null";
    return "an unknown value";
}

/* Paths are for messages: a path too long for PATH_BUF ends in "...". */
static const char *path_fit(char *buf, int n)
{
    if (n < 0 || n >= PATH_BUF)
        memcpy(buf + PATH_BUF - 4, "...", 4);
    return buf;
}

static const char *sub(char *buf, const char *path, const char *name)
{
    if (path && *path)
        return path_fit(buf, snprintf(buf, PATH_BUF, "%s.%s", path, name));
    return path_fit(buf, snprintf(buf, PATH_BUF, "%s", name));
}

static const char *subi(char *buf, const char *path, int index)
{
    return path_fit(buf, snprintf(buf, PATH_BUF, "%s[%d]", path, index));
}

static char *dupstr(struct ld *L, const char *s)
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
static int check_keys(struct ld *L, const cJSON *obj, const char *path, const char *const *allowed)
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
            PROBLEM(L, c, 1, sub(p, path, key), "field given twice");
            bad++;
        }
        if (known >= 0)
            continue;
        bad++;
        if (capped(L)) {  /* not shown: spare the suggestion */
            L->nproblems++;
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
            PROBLEM(L, c, 1, sub(p, path, key), "unknown field (did you mean \"%s\"?); valid "
                    "fields: %s", near, list);
        else
            PROBLEM(L, c, 1, sub(p, path, key), "unknown field; valid fields: %s", list);
    }
    return bad;
}

static const cJSON *get(const cJSON *obj, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(obj, name);
}

static int expect_object(struct ld *L, const cJSON *j, const char *path)
{
    if (cJSON_IsObject(j))
        return 0;
    PROBLEM(L, j, 0, path, "expected an object {...}, found %s", jtype(j));
    return -1;
}

/* The number at j as written in the file ("1.0", "-3", "1e2"), at most size - 1 characters;
 * "" when its place is unknown. */
static const char *literal_of(const struct ld *L, const cJSON *j, char *buf, size_t size)
{
    size_t off = off_of(L, j, 0), n = 0;
    buf[0] = 0;
    if (off == SIZE_MAX || size == 0)
        return buf;
    while (off + n < L->len && n + 1 < size && strchr("+-0123456789.eE", L->text[off + n]) &&
           L->text[off + n])
        n++;
    memcpy(buf, L->text + off, n);
    buf[n] = 0;
    return buf;
}

/* 1 when the number at j is written as an integer: no fraction, no exponent ("32", not
 * "32.0" or "3.2e1"); the guide asks for that wherever a field is an integer. */
static int int_literal(const struct ld *L, const cJSON *j)
{
    char lit[64];
    literal_of(L, j, lit, sizeof lit);
    return !strpbrk(lit, ".eE");
}

/* A required field that is missing: reported at the parent object's opening brace. */
static void missing(struct ld *L, const cJSON *obj, const char *path, const char *name)
{
    if (path && *path)
        PROBLEM(L, obj, 0, path, "missing required field \"%s\"", name);
    else
        PROBLEM(L, obj, 0, "", "missing required field \"%s\"", name);
}

/* An integer field in lo..hi. Returns 1 when absent (and not required), 0 when read into
 * *out, -1 after a problem. what describes the range for the message. */
static int get_int(struct ld *L, const cJSON *obj, const char *name, const char *path,
                   int required, long long lo, long long hi, const char *what, long long *out)
{
    const cJSON *j = get(obj, name);
    char p[PATH_BUF];
    sub(p, path, name);
    if (!j) {
        if (required) {
            missing(L, obj, path, name);
            return -1;
        }
        return 1;
    }
    double v = j->valuedouble;
    if (!cJSON_IsNumber(j) || !isfinite(v) || v != floor(v) || fabs(v) > INT_SAFE) {
        if (cJSON_IsNumber(j))
            PROBLEM(L, j, 0, p, "expected an integer %s, found %g", what, v);
        else
            PROBLEM(L, j, 0, p, "expected an integer %s, found %s", what, jtype(j));
        return -1;
    }
    if (!int_literal(L, j)) {
        char lit[64];
        PROBLEM(L, j, 0, p, "expected an integer %s, found %s (write integers without a "
                "fraction or exponent)", what, literal_of(L, j, lit, sizeof lit));
        return -1;
    }
    long long iv = (long long)v;
    if (iv < lo || iv > hi) {
        PROBLEM(L, j, 0, p, "expected an integer %s, found %lld", what, iv);
        return -1;
    }
    *out = iv;
    return 0;
}

static int get_bool(struct ld *L, const cJSON *obj, const char *name, const char *path, int *out)
{
    const cJSON *j = get(obj, name);
    if (!j)
        return 1;
    if (!cJSON_IsBool(j)) {
        char p[PATH_BUF];
        PROBLEM(L, j, 0, sub(p, path, name), "expected true or false, found %s", jtype(j));
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

static size_t string_offset(const struct ld *L, size_t q, size_t index);

/* A string field; Returns 1 when absent and optional, 0 when read, -1 after a problem. */
static int get_string(struct ld *L, const cJSON *obj, const char *name, const char *path,
                      int required, const cJSON **node, const char **out)
{
    const cJSON *j = get(obj, name);
    char p[PATH_BUF];
    if (!j) {
        if (required) {
            missing(L, obj, path, name);
            return -1;
        }
        return 1;
    }
    if (!cJSON_IsString(j) || !j->valuestring) {
        PROBLEM(L, j, 0, sub(p, path, name), "expected a string, found %s", jtype(j));
        return -1;
    }
    if (blank(j->valuestring)) {
        PROBLEM(L, j, 0, sub(p, path, name), "empty string");
        return -1;
    }
    unsigned cp = 0;
    size_t at = bl_utf8_control(j->valuestring, "\n", &cp);
    if (at != SIZE_MAX) {
        problem_off(L, string_offset(L, off_of(L, j, 0), at), sub(p, path, name),
                    "control character U+%04X; lesson texts are plain text (\\n is the only "
                    "one allowed)", cp);
        return -1;
    }
    if (node)
        *node = j;
    *out = j->valuestring;
    return 0;
}

static int is_ident_char(int c, int first)
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
        if (!is_ident_char((unsigned char)*s, 0) && *s != '-')
            return 0;
    return 1;
}

static int get_id(struct ld *L, const cJSON *obj, const char *path, char **out)
{
    const char *s;
    const cJSON *j;
    int rc = get_string(L, obj, "id", path, 1, &j, &s);
    if (rc)
        return -1;
    if (!valid_id(s)) {
        char p[PATH_BUF];
        PROBLEM(L, j, 0, sub(p, path, "id"), "\"%s\": an id is 1-64 letters, digits, '_' or '-'", s);
        return -1;
    }
    *out = dupstr(L, s);
    return 0;
}

static const char *const text_keys[] = {"zh", "en", NULL};
static const char *const choice_keys[] = {"zh", "en", "value", NULL};

/* Reads a {"zh": ..., "en": ...} object at j. Returns 0 or -1. */
static int read_text(struct ld *L, const cJSON *j, const char *path, struct lesson_text *out,
                     int is_choice, double *value)
{
    if (expect_object(L, j, path))
        return -1;
    int bad = check_keys(L, j, path, is_choice ? choice_keys : text_keys);
    const char *zh = NULL, *en = NULL;
    if (get_string(L, j, "zh", path, 1, NULL, &zh))
        bad++;
    if (get_string(L, j, "en", path, 1, NULL, &en))
        bad++;
    if (is_choice) {
        const cJSON *v = get(j, "value");
        *value = NAN;
        if (v) {
            char p[PATH_BUF];
            if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) {
                PROBLEM(L, v, 0, sub(p, path, "value"), "expected a number, found %s", jtype(v));
                bad++;
            } else {
                *value = v->valuedouble;
            }
        }
    }
    if (zh)
        out->zh = dupstr(L, zh);
    if (en)
        out->en = dupstr(L, en);
    return bad ? -1 : 0;
}

/* A text field of obj. Returns 1 when absent and optional, 0 when read, -1 on a problem. */
static int get_text(struct ld *L, const cJSON *obj, const char *name, const char *path,
                    int required, struct lesson_text *out)
{
    const cJSON *j = get(obj, name);
    if (!j) {
        if (required) {
            missing(L, obj, path, name);
            return -1;
        }
        return 1;
    }
    char p[PATH_BUF];
    return read_text(L, j, sub(p, path, name), out, 0, NULL);
}

/* ---------------------------------------------------------------- scene */

/* Names a parameter may not take: builtins and words of the pattern language. */
static const char *const builtin_names[] = {
    "threadIdx", "blockDim", "lane", "warp", "tid", "T", "min", "max", "typedef", "extern",
    "__shared__", "struct", "if", "char", "short", "int", "unsigned", "float", "double", "half",
    "float2", "float4", "int2", "int4", "long", "void", "const", "volatile", NULL,
};

static const char *const scene_keys[] = {"code", "block", "warp", "access", "dynamic_bytes",
                                         "types", "params", "kernel", "sweep", NULL};
static const char *const param_keys[] = {"name", "default", "min", "max", "step", "keys",
                                         "label", NULL};

static int read_param(struct ld *L, const cJSON *j, const char *path, struct lesson_param *p,
                      const struct lesson_param *prev, int nprev)
{
    if (expect_object(L, j, path))
        return -1;
    int bad = check_keys(L, j, path, param_keys);
    char pb[PATH_BUF];
    const cJSON *nj = NULL;
    const char *name = NULL;
    if (get_string(L, j, "name", path, 1, &nj, &name)) {
        bad++;
    } else {
        int ok = is_ident_char((unsigned char)name[0], 1) && strlen(name) < PATTERN_NAME_MAX;
        for (const char *c = name; ok && *c; c++)
            ok = is_ident_char((unsigned char)*c, 0);
        if (!ok) {
            PROBLEM(L, nj, 0, sub(pb, path, "name"), "\"%s\" is not a C identifier of at most "
                    "%d characters", name, PATTERN_NAME_MAX - 1);
            bad++;
        } else {
            for (int k = 0; builtin_names[k]; k++)
                if (!strcmp(name, builtin_names[k])) {
                    PROBLEM(L, nj, 0, sub(pb, path, "name"), "\"%s\" is a name of the pattern "
                            "language; choose another (e.g. PAD, STRIDE)", name);
                    bad++;
                    ok = 0;
                    break;
                }
            for (int k = 0; ok && k < nprev; k++)
                if (prev[k].name && !strcmp(prev[k].name, name)) {
                    PROBLEM(L, nj, 0, sub(pb, path, "name"), "parameter \"%s\" is declared "
                            "twice", name);
                    bad++;
                    ok = 0;
                }
            if (ok)
                p->name = dupstr(L, name);
        }
    }
    long long mn = 0, mx = 0, def = 0, step = 1;
    int have_min = get_int(L, j, "min", path, 1, -1000000000LL, 1000000000LL,
                           "in -1000000000..1000000000", &mn) == 0;
    int have_max = 0;
    if (have_min) {
        char what[64];
        snprintf(what, sizeof what, ">= min (%lld)", mn);
        have_max = get_int(L, j, "max", path, 1, mn, 1000000000LL, what, &mx) == 0;
    } else {
        bad++;
        if (!get(j, "max"))
            missing(L, j, path, "max");
    }
    if (have_min && !have_max)
        bad++;
    if (have_min && have_max) {
        char what[96];
        snprintf(what, sizeof what, "in min..max (%lld..%lld)", mn, mx);
        if (get_int(L, j, "default", path, 1, mn, mx, what, &def))
            bad++;
        int rc = get_int(L, j, "step", path, 0, 1, mx - mn > 0 ? mx - mn : 1,
                         mx > mn ? "in 1..max-min" : "equal to 1 (min == max)", &step);
        if (rc < 0)
            bad++;
        else if (rc == 0 && (def - mn) % step != 0) {
            PROBLEM(L, get(j, "default"), 1, sub(pb, path, "default"), "%lld is not reachable "
                    "from min (%lld) in steps of %lld", def, mn, step);
            bad++;
        }
    } else if (!get(j, "default")) {
        missing(L, j, path, "default");
    }
    p->min = mn;
    p->max = mx;
    p->def = def;
    p->step = step;
    const cJSON *kj = NULL;
    const char *keys = NULL;
    if (get_string(L, j, "keys", path, 1, &kj, &keys)) {
        bad++;
    } else {
        sub(pb, path, "keys");
        int a = (unsigned char)keys[0], b = a ? (unsigned char)keys[1] : 0;
        if (strlen(keys) != 2 || a < 0x21 || a > 0x7e || b < 0x21 || b > 0x7e || a == b) {
            PROBLEM(L, kj, 0, pb, "\"%s\": expected two different printable ASCII characters "
                    "(lower, raise), e.g. \"pP\"", keys);
            bad++;
        } else if (keys_reserved(a) || keys_reserved(b)) {
            char reserved[128];
            PROBLEM(L, kj, 0, pb, "'%c' is reserved by the program (reserved: %s)",
                    keys_reserved(a) ? a : b, keys_reserved_text(reserved, sizeof reserved));
            bad++;
        } else {
            int clash = 0;
            for (int k = 0; k < nprev && !clash; k++)
                if (prev[k].key_inc == a || prev[k].key_dec == a || prev[k].key_inc == b ||
                    prev[k].key_dec == b) {
                    PROBLEM(L, kj, 0, pb, "key '%c' is already used by parameter %s",
                            (prev[k].key_inc == a || prev[k].key_dec == a) ? a : b,
                            prev[k].name ? prev[k].name : "(unnamed)");
                    clash = 1;
                }
            if (clash)
                bad++;
            else {            /* "pP": p lowers, P raises (Shift = more) */
                p->key_dec = a;
                p->key_inc = b;
            }
        }
    }
    if (get_text(L, j, "label", path, 0, &p->label) < 0)
        bad++;
    return bad ? -1 : 0;
}

/* Offset in the file of byte `index` (0-based) of the decoded string whose '"' is at q. */
static size_t string_offset(const struct ld *L, size_t q, size_t index)
{
    if (q == SIZE_MAX)
        return SIZE_MAX;
    size_t i = q + 1, got = 0;
    while (i < L->len && L->text[i] != '"') {
        if (got >= index)
            return i;
        if (L->text[i] != '\\') {
            i++;
            got++;
            continue;
        }
        char e = L->text[i + 1];
        if (e != 'u') {
            i += 2;
            got++;
            continue;
        }
        unsigned long u = strtoul((char[5]){L->text[i + 2], L->text[i + 3], L->text[i + 4],
                                            L->text[i + 5], 0}, NULL, 16);
        if (u >= 0xD800 && u <= 0xDBFF) {
            i += 12;
            got += 4;
        } else {
            i += 6;
            got += u < 0x80 ? 1 : u < 0x800 ? 2 : 3;
        }
    }
    return i;
}

/* Everything needed to report a pattern error at its place. */
struct code_ctx {
    struct ld *L;
    const cJSON *code;          /* the "code" string node */
    const cJSON *types;         /* the "types" array node or NULL */
    const char *path;           /* path of the scene */
};

static void code_problem(struct code_ctx *C, size_t prefix, int type_index,
                         const struct pattern_error *pe, const char *fmt, ...)
{
    char where[PATH_BUF + 32], extra[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(extra, sizeof extra, fmt, ap);
    va_end(ap);
    size_t off;
    if (pe->col > 0 && (size_t)pe->col > prefix) {
        off = string_offset(C->L, off_of(C->L, C->code, 0), (size_t)pe->col - 1 - prefix);
        snprintf(where, sizeof where, "%s.code", C->path);
    } else if (pe->col > 0 && C->types) {
        const cJSON *t = cJSON_GetArrayItem(C->types, type_index);
        off = off_of(C->L, t, 0);
        snprintf(where, sizeof where, "%s.types[%d]", C->path, type_index);
    } else {
        off = off_of(C->L, C->code, 0);
        snprintf(where, sizeof where, "%s.code", C->path);
    }
    /* the pattern language words this for the command line; a lesson declares params */
    char msg[PATTERN_MSG_MAX];
    snprintf(msg, sizeof msg, "%s", pe->msg);
    char *cli = strstr(msg, " (give it a value");
    if (cli && !strncmp(msg, "unknown name", 12))
        snprintf(cli, sizeof msg - (size_t)(cli - msg), ": not a parameter of the scene (add it "
                 "to \"params\" or write a number)");
    problem_off(C->L, off, where, "%s%s", msg, extra);
}

/* Parses and evaluates the scene's code at its defaults (every type) and at each parameter's
 * min and max. Returns the number of accesses, or -1 after a problem. */
static int check_scene_code(struct ld *L, struct lesson_scene *s, const cJSON *sj,
                            const char *path)
{
    struct code_ctx C = {L, get(sj, "code"), get(sj, "types"), path};
    int ntypes = s->ntypes > 0 ? s->ntypes : 1;
    int naccess = -1;
    char *code = NULL;
    size_t size = strlen(s->code) + 128;
    code = malloc(size);
    if (!code) {
        L->oom = 1;
        return -1;
    }
    int rc = 0;
    int *used = calloc((size_t)s->nparams + 1, sizeof *used);
    if (!used) {
        free(code);
        L->oom = 1;
        return -1;
    }
    for (int t = 0; t < ntypes && rc == 0; t++) {
        struct pattern_env env;
        struct pattern_error pe;
        struct pattern *pat = NULL;
        memset(&pe, 0, sizeof pe);
        if (lesson_scene_env(s, NULL, t, &env, code, size)) {
            problem_off(L, off_of(L, C.code, 0), path, "too many parameters or code too long");
            rc = -1;
            break;
        }
        size_t prefix = s->ntypes > 0 ? strlen(code) - strlen(s->code) : 0;
        if (pattern_parse(code, &pat, &pe)) {
            code_problem(&C, prefix, t, &pe, "");
            rc = -1;
            break;
        }
        int n = pattern_access_count(pat);
        if (naccess < 0)
            naccess = n;
        for (int k = 0; k < pattern_param_count(pat); k++) {
            const char *nm = pattern_param_name(pat, k);
            for (int q = 0; q < s->nparams; q++)
                if (s->params[q].name && nm && !strcmp(nm, s->params[q].name))
                    used[q] = 1;
        }
        /* defaults, then each parameter at min and max (others at defaults) */
        for (int q = -1; q < s->nparams && rc == 0; q++) {
            for (int side = 0; side < (q < 0 ? 1 : 2) && rc == 0; side++) {
                struct pattern_env e2 = env;
                const char *what = "";
                if (q >= 0) {
                    if (!s->params[q].name)
                        continue;
                    pattern_env_set(&e2, s->params[q].name, side ? s->params[q].max
                                                                 : s->params[q].min);
                    what = side ? "max" : "min";
                }
                for (int a = 0; a < n && rc == 0; a++) {
                    struct bank_access acc;
                    struct bank_result res;
                    int bad_lane = -1;
                    char bt[200];
                    lesson_binding_text(&e2, s->ntypes > 0 ? s->types[t] : NULL, a, bt, sizeof bt);
                    memset(&pe, 0, sizeof pe);
                    if (pattern_eval(pat, &e2, a, &acc, NULL, &pe)) {
                        if (q < 0) {
                            code_problem(&C, prefix, t, &pe, " (%s)", bt);
                        } else {
                            char pp[PATH_BUF], p2[PATH_BUF];
                            const cJSON *pj = cJSON_GetArrayItem(get(sj, "params"), q);
                            snprintf(pp, sizeof pp, "%s.params[%d]", path, q);
                            PROBLEM(L, get(pj, what), 1, sub(p2, pp, what), "the code fails at "
                                    "%s = %lld: %s (%s)", s->params[q].name,
                                    side ? s->params[q].max : s->params[q].min, pe.msg, bt);
                        }
                        rc = -1;
                    } else if (bank_simulate(&acc, &res, &bad_lane) != BANK_OK) {
                        problem_off(L, off_of(L, C.code, 0), path, "access %d: %s (lane %d; %s)",
                                    a, bank_status_str(bank_simulate(&acc, &res, NULL)),
                                    bad_lane, bt);
                        rc = -1;
                    }
                }
            }
        }
        pattern_free(pat);
    }
    if (rc == 0) {
        for (int q = 0; q < s->nparams; q++)
            if (!used[q] && s->params[q].name) {
                char pp[PATH_BUF];
                const cJSON *pj = cJSON_GetArrayItem(get(sj, "params"), q);
                snprintf(pp, sizeof pp, "%s.params[%d].name", path, q);
                PROBLEM(L, get(pj, "name"), 0, pp, "parameter %s is not used in the code",
                        s->params[q].name);
                rc = -1;
            }
        if (s->ntypes > 0) {
            /* T must appear as a word of the code */
            int uses_t = 0;
            for (const char *c = s->code; *c && !uses_t; c++)
                if (*c == 'T' && (c == s->code || !is_ident_char((unsigned char)c[-1], 0)) &&
                    !is_ident_char((unsigned char)c[1], 0))
                    uses_t = 1;
            if (!uses_t) {
                char pp[PATH_BUF];
                PROBLEM(L, C.types, 1, sub(pp, path, "types"), "the code never uses the type "
                        "name T, so the types would change nothing");
                rc = -1;
            }
        }
    }
    free(used);
    free(code);
    return rc ? -1 : naccess;
}

static int read_scene(struct ld *L, const cJSON *j, const char *path, struct lesson_scene *s)
{
    char p[PATH_BUF], p2[PATH_BUF];
    s->block[0] = 32;
    s->block[1] = s->block[2] = 1;
    set_pos(L, j, 1, &s->line, &s->col);
    if (expect_object(L, j, path))
        return -1;
    int bad = check_keys(L, j, path, scene_keys);
    const char *code = NULL;
    if (get_string(L, j, "code", path, 1, NULL, &code))
        bad++;
    else
        s->code = dupstr(L, code);
    const cJSON *bj = get(j, "block");
    if (bj) {
        sub(p, path, "block");
        if (!cJSON_IsArray(bj) || cJSON_GetArraySize(bj) < 1 || cJSON_GetArraySize(bj) > 3) {
            PROBLEM(L, bj, 0, p, "expected [x, y, z] with 1 to 3 integers, found %s", jtype(bj));
            bad++;
        } else {
            int k = 0, okb = 1;
            long long prod = 1;
            for (const cJSON *d = bj->child; d; d = d->next, k++) {
                double v = d->valuedouble;
                long long hi = k == 2 ? 64 : 1024;
                if (!cJSON_IsNumber(d) || v != floor(v) || v < 1 || v > (double)hi ||
                    !int_literal(L, d)) {
                    char lit[64];
                    PROBLEM(L, d, 0, subi(p2, p, k), "expected an integer in 1..%lld (blockDim.%c), "
                            "found %s", hi, "xyz"[k], cJSON_IsNumber(d) ?
                            literal_of(L, d, lit, sizeof lit) : jtype(d));
                    okb = 0;
                } else {
                    s->block[k] = (unsigned)v;
                    prod *= (long long)v;
                }
            }
            if (!okb)
                bad++;
            else if (prod > 1024) {
                PROBLEM(L, bj, 0, p, "%u x %u x %u = %lld threads; a block has at most 1024",
                        s->block[0], s->block[1], s->block[2], prod);
                bad++;
            }
        }
    }
    unsigned threads = s->block[0] * s->block[1] * s->block[2];
    unsigned nwarps = (threads + 31) / 32;
    long long v = 0;
    char what[64];
    snprintf(what, sizeof what, "in 0..%u (the block has %u warp%s)", nwarps - 1, nwarps,
             nwarps == 1 ? "" : "s");
    int rc = get_int(L, j, "warp", path, 0, 0, nwarps - 1, what, &v);
    if (rc < 0)
        bad++;
    s->warp = rc == 0 ? (unsigned)v : 0;
    rc = get_int(L, j, "access", path, 0, 0, PATTERN_MAX_ACCESSES - 1, "in 0..7", &v);
    if (rc < 0)
        bad++;
    s->access = rc == 0 ? (int)v : 0;
    rc = get_int(L, j, "dynamic_bytes", path, 0, 0, DYN_MAX, "in 0..232448", &v);
    if (rc < 0)
        bad++;
    s->dyn_bytes = rc == 0 ? (unsigned long long)v : 0;

    const cJSON *tj = get(j, "types");
    if (tj) {
        sub(p, path, "types");
        int n = cJSON_GetArraySize(tj);
        if (!cJSON_IsArray(tj) || n < 1 || n > 8) {
            PROBLEM(L, tj, 0, p, "expected an array of 1 to 8 type names, found %s", jtype(tj));
            bad++;
        } else {
            s->types = calloc((size_t)n, sizeof *s->types);
            if (!s->types) {
                L->oom = 1;
                return -1;
            }
            int k = 0;
            for (const cJSON *d = tj->child; d; d = d->next, k++) {
                const char *t = cJSON_GetStringValue(d);
                int okt = t && *t && strlen(t) < PATTERN_NAME_MAX;
                for (const char *c = t; okt && *c; c++)
                    okt = is_ident_char((unsigned char)*c, 0) || *c == ' ';
                if (!okt) {
                    PROBLEM(L, d, 0, subi(p2, p, k), "expected a type name such as \"float2\"");
                    bad++;
                    continue;
                }
                for (int q = 0; q < s->ntypes; q++)
                    if (!strcmp(s->types[q], t)) {
                        PROBLEM(L, d, 0, subi(p2, p, k), "\"%s\" is listed twice", t);
                        bad++;
                        okt = 0;
                        break;
                    }
                if (okt)
                    s->types[s->ntypes++] = dupstr(L, t);
            }
        }
    }

    const cJSON *pj = get(j, "params");
    if (pj) {
        sub(p, path, "params");
        int n = cJSON_GetArraySize(pj);
        if (!cJSON_IsArray(pj) || n > PATTERN_MAX_PARAMS) {
            PROBLEM(L, pj, 0, p, "expected an array of at most %d parameters, found %s",
                    PATTERN_MAX_PARAMS, cJSON_IsArray(pj) ? "more" : jtype(pj));
            bad++;
        } else if (n > 0) {
            s->params = calloc((size_t)n, sizeof *s->params);
            if (!s->params) {
                L->oom = 1;
                return -1;
            }
            int k = 0;
            for (const cJSON *d = pj->child; d; d = d->next, k++) {
                if (read_param(L, d, subi(p2, p, k), &s->params[k], s->params, k))
                    bad++;
            }
            s->nparams = n;
        }
    }

    const char *kernel = NULL;
    const cJSON *kj = NULL;
    rc = get_string(L, j, "kernel", path, 0, &kj, &kernel);
    if (rc < 0)
        bad++;
    else if (rc == 0) {
        /* "pattern", or a case kernel of the runner's table (gpu.h) */
        int known = !strcmp(kernel, "pattern") || gpu_case_find(kernel);
        char list[256] = "pattern";
        for (int k = 0; k < GPU_CASE_COUNT; k++) {
            size_t ln = strlen(list);
            snprintf(list + ln, sizeof list - ln, ", %s", gpu_case_at(k)->name);
        }
        if (!known) {
            PROBLEM(L, kj, 0, sub(p, path, "kernel"), "unknown kernel \"%s\"; valid: %s",
                    kernel, list);
            bad++;
        }
    }
    s->kernel = dupstr(L, kernel ? kernel : "pattern");

    const char *sweep = NULL;
    const cJSON *swj = NULL;
    rc = get_string(L, j, "sweep", path, 0, &swj, &sweep);
    if (rc < 0)
        bad++;
    else if (rc == 0) {
        int found = 0;
        for (int k = 0; k < s->nparams; k++)
            found |= s->params[k].name && !strcmp(s->params[k].name, sweep);
        if (!found) {
            PROBLEM(L, swj, 0, sub(p, path, "sweep"), "\"%s\" is not a parameter of this scene",
                    sweep);
            bad++;
        } else {
            s->sweep = dupstr(L, sweep);
        }
    } else if (s->nparams > 0 && s->params[0].name) {
        s->sweep = dupstr(L, s->params[0].name);
    }
    if (bad || L->oom)
        return -1;
    int naccess = check_scene_code(L, s, j, path);
    if (naccess < 0)
        return -1;
    if (s->access >= naccess) {
        PROBLEM(L, get(j, "access"), 1, sub(p, path, "access"), "the code has %d access%s "
                "(0..%d)", naccess, naccess == 1 ? "" : "es", naccess - 1);
        return -1;
    }
    return naccess;
}

/* ---------------------------------------------------------------- bindings, quiz, expect, task */

static void text_free(struct lesson_text *t);
static void binding_free(struct lesson_binding *b);
static void scene_free(struct lesson_scene *s);

/* Reads "params" (and "type") of obj into b, checked against scene s. */
static int read_binding(struct ld *L, const cJSON *obj, const char *path,
                        const struct lesson_scene *s, struct lesson_binding *b)
{
    char p[PATH_BUF], p2[PATH_BUF];
    int bad = 0;
    const cJSON *pj = get(obj, "params");
    if (pj) {
        sub(p, path, "params");
        if (!cJSON_IsObject(pj)) {
            PROBLEM(L, pj, 0, p, "expected an object {\"NAME\": value, ...}, found %s",
                    jtype(pj));
            return -1;
        }
        int n = cJSON_GetArraySize(pj);
        if (n > 0) {
            b->names = calloc((size_t)n, sizeof *b->names);
            b->values = calloc((size_t)n, sizeof *b->values);
            if (!b->names || !b->values) {
                L->oom = 1;
                return -1;
            }
        }
        for (const cJSON *d = pj->child; d; d = d->next) {
            const char *nm = d->string ? d->string : "";
            sub(p2, p, nm);
            const struct lesson_param *prm = NULL;
            char list[256] = "";
            for (int k = 0; k < s->nparams; k++) {
                if (s->params[k].name && !strcmp(s->params[k].name, nm))
                    prm = &s->params[k];
                size_t ln = strlen(list);
                snprintf(list + ln, sizeof list - ln, "%s%s", k ? ", " : "",
                         s->params[k].name ? s->params[k].name : "?");
            }
            if (!prm) {
                if (s->nparams)
                    PROBLEM(L, d, 1, p2, "not a parameter of the scene (it has: %s)", list);
                else
                    PROBLEM(L, d, 1, p2, "not a parameter of the scene (it has none)");
                bad++;
                continue;
            }
            int dup = 0;
            for (int k = 0; k < b->nvalues; k++)
                dup |= !strcmp(b->names[k], nm);
            double v = d->valuedouble;
            if (dup) {
                PROBLEM(L, d, 1, p2, "given twice");
                bad++;
            } else if (!cJSON_IsNumber(d) || v != floor(v) || v < (double)prm->min ||
                       v > (double)prm->max || !int_literal(L, d)) {
                char lit[64];
                if (cJSON_IsNumber(d))
                    PROBLEM(L, d, 0, p2, "expected an integer in %lld..%lld (the parameter's "
                            "range), found %s", prm->min, prm->max,
                            literal_of(L, d, lit, sizeof lit));
                else
                    PROBLEM(L, d, 0, p2, "expected an integer in %lld..%lld, found %s",
                            prm->min, prm->max, jtype(d));
                bad++;
            } else {
                b->names[b->nvalues] = dupstr(L, nm);
                b->values[b->nvalues] = (long long)v;
                b->nvalues++;
            }
        }
    }
    const cJSON *tj = get(obj, "type");
    if (tj) {
        sub(p, path, "type");
        const char *t = cJSON_GetStringValue(tj);
        int found = 0;
        for (int k = 0; t && k < s->ntypes; k++)
            found |= !strcmp(t, s->types[k]);
        if (!t) {
            PROBLEM(L, tj, 0, p, "expected a type name (a string), found %s", jtype(tj));
            bad++;
        } else if (!found) {
            PROBLEM(L, tj, 0, p, "\"%s\" is not one of the scene's types%s", t,
                    s->ntypes ? "" : " (the scene has no \"types\")");
            bad++;
        } else {
            b->type = dupstr(L, t);
        }
    }
    return bad ? -1 : 0;
}

static const char *const field_names[] = {"", "wavefronts", "conflicts", "ways", "passes"};

/* "access" of obj: below naccess, the scene's number of accesses; when the scene is broken
 * (naccess < 0) any index a scene may have. Returns as get_int. */
static int get_access(struct ld *L, const cJSON *obj, const char *path, int naccess,
                      long long *out)
{
    char what[48];
    int hi = naccess < 0 ? PATTERN_MAX_ACCESSES - 1 : naccess - 1;
    snprintf(what, sizeof what, "in 0..%d%s", hi, naccess < 0 ? "" : " (the scene's accesses)");
    return get_int(L, obj, "access", path, 0, 0, hi, what, out);
}

static const char *const expect_keys[] = {"params", "type", "access", "wavefronts",
                                          "conflicts", "ways", "passes", NULL};

static int read_expect(struct ld *L, const cJSON *j, const char *path,
                       const struct lesson_scene *s, int naccess, struct lesson_expect *e)
{
    e->wavefronts = e->conflicts = e->ways = e->passes = -1;
    set_pos(L, j, 0, &e->line, &e->col);
    if (expect_object(L, j, path))
        return -1;
    int bad = check_keys(L, j, path, expect_keys);
    if (!s) {
        PROBLEM(L, j, 0, path, "an expectation needs a scene in its step");
        return -1;
    }
    /* a broken scene (naccess < 0): only what does not depend on it */
    if (naccess >= 0 && read_binding(L, j, path, s, &e->bind))
        bad++;
    long long v;
    int rc = get_access(L, j, path, naccess, &v);
    if (rc < 0)
        bad++;
    e->access = rc == 0 ? (int)v : s->access;
    int *dst[5] = {NULL, &e->wavefronts, &e->conflicts, &e->ways, &e->passes};
    int nfields = 0;
    for (int f = 1; f <= 4; f++) {
        rc = get_int(L, j, field_names[f], path, 0, 0, 1024, "in 0..1024", &v);
        if (rc < 0)
            bad++;
        if (rc == 0) {
            *dst[f] = (int)v;
            nfields++;
            set_pos(L, get(j, field_names[f]), 1, &e->at[f].line, &e->at[f].col);
        }
    }
    if (rc >= 0 && nfields == 0 && !bad) {
        PROBLEM(L, j, 0, path, "states no result: give at least one of wavefronts, conflicts, "
                "ways, passes");
        bad++;
    }
    return bad ? -1 : 0;
}

static const char *const quiz_keys[] = {"kind", "predict", "question", "choices", "answer",
                                        "tolerance", "explanation", "check", NULL};
static const char *const check_keys_list[] = {"field", "access", "params", "type", NULL};

static int read_quiz(struct ld *L, const cJSON *j, const char *path,
                     const struct lesson_scene *s, int naccess, struct lesson_quiz *q)
{
    char p[PATH_BUF], p2[PATH_BUF];
    set_pos(L, j, 1, &q->line, &q->col);
    if (expect_object(L, j, path))
        return -1;
    int bad = check_keys(L, j, path, quiz_keys);
    const char *kind = NULL;
    const cJSON *kj = NULL;
    int rc = get_string(L, j, "kind", path, 1, &kj, &kind);
    if (rc)
        return -1;
    if (!strcmp(kind, "choice"))
        q->kind = QUIZ_CHOICE;
    else if (!strcmp(kind, "number"))
        q->kind = QUIZ_NUMBER;
    else {
        PROBLEM(L, kj, 0, sub(p, path, "kind"), "\"%s\": expected \"choice\" or \"number\"",
                kind);
        return -1;
    }
    if (get_bool(L, j, "predict", path, &q->predict) < 0)
        bad++;
    if (q->predict && !s) {
        PROBLEM(L, get(j, "predict"), 1, sub(p, path, "predict"), "predict hides the scene, "
                "but this step has no scene");
        bad++;
    }
    if (get_text(L, j, "question", path, 1, &q->question))
        bad++;
    if (get_text(L, j, "explanation", path, 1, &q->explanation))
        bad++;
    const cJSON *cj = get(j, "choices");
    const cJSON *aj = get(j, "answer");
    const cJSON *tj = get(j, "tolerance");
    set_pos(L, aj, 1, &q->answer_at.line, &q->answer_at.col);
    if (q->kind == QUIZ_CHOICE) {
        sub(p, path, "choices");
        int n = cJSON_GetArraySize(cj);
        if (!cj) {
            missing(L, j, path, "choices");
            bad++;
        } else if (!cJSON_IsArray(cj) || n < 2 || n > 8) {
            PROBLEM(L, cj, 0, p, "expected an array of 2 to 8 choices, found %s",
                    cJSON_IsArray(cj) ? (n < 2 ? "fewer" : "more") : jtype(cj));
            bad++;
        } else {
            q->choices = calloc((size_t)n, sizeof *q->choices);
            q->choice_values = calloc((size_t)n, sizeof *q->choice_values);
            if (!q->choices || !q->choice_values) {
                L->oom = 1;
                return -1;
            }
            q->nchoices = n;
            int k = 0;
            for (const cJSON *d = cj->child; d; d = d->next, k++)
                if (read_text(L, d, subi(p2, p, k), &q->choices[k], 1, &q->choice_values[k]))
                    bad++;
        }
        if (tj) {
            PROBLEM(L, tj, 1, sub(p, path, "tolerance"), "only a \"number\" quiz has a tolerance");
            bad++;
        }
        long long a;
        char what[48];
        snprintf(what, sizeof what, "in 0..%d (a 0-based choice index)",
                 q->nchoices > 0 ? q->nchoices - 1 : 0);
        if (q->nchoices == 0) {
            if (!aj) {
                missing(L, j, path, "answer");
                bad++;
            }
        } else if (get_int(L, j, "answer", path, 1, 0, q->nchoices - 1, what, &a)) {
            bad++;
        } else {
            q->answer = (int)a;
        }
    } else {
        if (cj) {
            PROBLEM(L, cj, 1, sub(p, path, "choices"), "a \"number\" quiz has no choices (use "
                    "\"kind\": \"choice\")");
            bad++;
        }
        if (!aj) {
            missing(L, j, path, "answer");
            bad++;
        } else if (!cJSON_IsNumber(aj) || !isfinite(aj->valuedouble)) {
            PROBLEM(L, aj, 0, sub(p, path, "answer"), "expected a number, found %s", jtype(aj));
            bad++;
        } else {
            q->number = aj->valuedouble;
        }
        if (tj) {
            if (!cJSON_IsNumber(tj) || !(tj->valuedouble >= 0) || !isfinite(tj->valuedouble)) {
                PROBLEM(L, tj, 0, sub(p, path, "tolerance"), "expected a number >= 0, found %s",
                        cJSON_IsNumber(tj) ? "a negative number" : jtype(tj));
                bad++;
            } else {
                q->tolerance = tj->valuedouble;
            }
        }
    }
    const cJSON *ck = get(j, "check");
    if (ck) {
        sub(p, path, "check");
        if (expect_object(L, ck, p))
            return -1;
        bad += check_keys(L, ck, p, check_keys_list);
        if (!s) {
            PROBLEM(L, ck, 1, p, "a check needs a scene in its step");
            return -1;
        }
        const char *f = NULL;
        const cJSON *fj = NULL;
        if (get_string(L, ck, "field", p, 1, &fj, &f)) {
            bad++;
        } else {
            for (int k = 1; k <= 4; k++)
                if (!strcmp(f, field_names[k]))
                    q->check.field = (enum lesson_field)k;
            if (q->check.field == FIELD_NONE) {
                PROBLEM(L, fj, 0, sub(p2, p, "field"), "\"%s\": expected wavefronts, conflicts, "
                        "ways or passes", f);
                bad++;
            }
        }
        long long v;
        rc = get_access(L, ck, p, naccess, &v);
        if (rc < 0)
            bad++;
        q->check.access = rc == 0 ? (int)v : s->access;
        if (naccess >= 0 && read_binding(L, ck, p, s, &q->check.bind))
            bad++;
        if (q->kind == QUIZ_CHOICE && q->answer >= 0 && q->answer < q->nchoices &&
            q->choice_values && isnan(q->choice_values[q->answer]) && !bad) {
            PROBLEM(L, cJSON_GetArrayItem(cj, q->answer), 0, subi(p2, "choices", q->answer),
                    "the answer of a checked quiz needs a \"value\" (the number it stands for)");
            bad++;
        }
    }
    return bad ? -1 : 0;
}

static const char *const task_keys[] = {"goal", "access", "require", "points", NULL};
static const char *const require_keys[] = {"wavefronts", "conflicts", "ways", NULL};

static int read_task(struct ld *L, const cJSON *j, const char *path,
                     const struct lesson_scene *s, int naccess, struct lesson_task *t)
{
    char p[PATH_BUF];
    t->max_wavefronts = t->max_conflicts = t->max_ways = -1;
    t->points = 1;
    set_pos(L, j, 1, &t->line, &t->col);
    if (expect_object(L, j, path))
        return -1;
    int bad = check_keys(L, j, path, task_keys);
    if (!s || (s->nparams == 0 && naccess >= 0)) {
        PROBLEM(L, j, 1, path, "a task needs a scene with at least one parameter to change");
        return -1;
    }
    if (get_text(L, j, "goal", path, 1, &t->goal))
        bad++;
    long long v;
    int rc = get_access(L, j, path, naccess, &v);
    if (rc < 0)
        bad++;
    t->access = rc == 0 ? (int)v : s->access;
    rc = get_int(L, j, "points", path, 0, 0, 100, "in 0..100", &v);
    if (rc < 0)
        bad++;
    else if (rc == 0)
        t->points = (int)v;
    const cJSON *rj = get(j, "require");
    sub(p, path, "require");
    if (!rj) {
        missing(L, j, path, "require");
        bad++;
    } else if (!expect_object(L, rj, p)) {
        bad += check_keys(L, rj, p, require_keys);
        int *dst[3] = {&t->max_wavefronts, &t->max_conflicts, &t->max_ways};
        int n = 0;
        for (int k = 0; k < 3; k++) {
            rc = get_int(L, rj, require_keys[k], p, 0, 0, 1024, "in 0..1024", &v);
            if (rc < 0)
                bad++;
            if (rc == 0) {
                *dst[k] = (int)v;
                n++;
            }
        }
        if (n == 0 && !bad) {
            PROBLEM(L, rj, 1, p, "states no bound: give at least one of wavefronts, conflicts, "
                    "ways");
            bad++;
        }
    } else {
        bad++;
    }
    return bad ? -1 : 0;
}

/* ---------------------------------------------------------------- quoted figures */

static const char *const figure_keys[] = {"group", "label", "field", "value", "over", "percent",
                                          NULL};

/* 1 when name is a word of LESSON_FIGURE_FIELDS. */
static int figure_field_known(const char *name)
{
    static const char all[] = LESSON_FIGURE_FIELDS;
    size_t n = strlen(name);
    for (const char *at = strstr(all, name); n && at; at = strstr(at + 1, name))
        if ((at == all || at[-1] == ' ') && (at[n] == ' ' || at[n] == 0))
            return 1;
    return 0;
}

static void figure_free(struct lesson_figure *f)
{
    free(f->group);
    free(f->label);
    free(f->field);
    free(f->over);
    memset(f, 0, sizeof *f);
}

static int read_figure(struct ld *L, const cJSON *j, const char *path, struct lesson_figure *f)
{
    char p[PATH_BUF];
    set_pos(L, j, 0, &f->line, &f->col);
    if (expect_object(L, j, path))
        return -1;
    int bad = check_keys(L, j, path, figure_keys);
    const char *group = NULL, *label = NULL, *field = NULL, *over = NULL;
    const cJSON *fj = NULL;
    if (get_string(L, j, "group", path, 1, NULL, &group))
        bad++;
    else
        f->group = dupstr(L, group);
    if (get_string(L, j, "label", path, 1, NULL, &label))
        bad++;
    else
        f->label = dupstr(L, label);
    if (get_string(L, j, "field", path, 1, &fj, &field)) {
        bad++;
    } else if (!figure_field_known(field)) {
        PROBLEM(L, fj, 0, sub(p, path, "field"), "\"%s\": expected one of %s", field,
                LESSON_FIGURE_FIELDS);
        bad++;
    } else {
        f->field = dupstr(L, field);
    }
    int rc = get_string(L, j, "over", path, 0, NULL, &over);
    if (rc < 0)
        bad++;
    else if (rc == 0)
        f->over = dupstr(L, over);
    rc = get_bool(L, j, "percent", path, &f->percent);
    if (rc < 0) {
        bad++;
    } else if (f->percent && !over) {
        PROBLEM(L, get(j, "percent"), 1, sub(p, path, "percent"), "a percentage needs \"over\" "
                "(the label of the row it is a percentage of)");
        bad++;
    }
    const cJSON *vj = get(j, "value");
    sub(p, path, "value");
    if (!vj) {
        missing(L, j, path, "value");
        bad++;
    } else if (!cJSON_IsNumber(vj) || !isfinite(vj->valuedouble)) {
        PROBLEM(L, vj, 0, p, "expected a number, found %s", jtype(vj));
        bad++;
    } else {
        char lit[64];
        literal_of(L, vj, lit, sizeof lit);
        if (strpbrk(lit, "eE") || strlen(lit) >= sizeof f->text) {
            PROBLEM(L, vj, 0, p, "%s: write the figure as the text quotes it (no exponent, at "
                    "most %d characters)", lit, (int)sizeof f->text - 1);
            bad++;
        } else {
            snprintf(f->text, sizeof f->text, "%.*s", (int)sizeof f->text - 1, lit); /* fits: checked above */
            f->value = vj->valuedouble;
            const char *dot = strchr(lit, '.');
            f->decimals = dot ? (int)strlen(dot + 1) : 0;
        }
    }
    return bad ? -1 : 0;
}

/* 1 when s contains q as a whole number: not inside a longer one ("3495" is not quoted by
 * "13495" or "3495.5"). */
static int quotes_number(const char *s, const char *q)
{
    size_t n = strlen(q);
    for (const char *at = s && n ? strstr(s, q) : NULL; at; at = strstr(at + 1, q)) {
        const char *e = at + n;
        int joined_before = at > s && (is_digit((unsigned char)at[-1]) || at[-1] == '.');
        int joined_after = is_digit((unsigned char)*e) ||
                           (*e == '.' && is_digit((unsigned char)e[1]));
        if (!joined_before && !joined_after)
            return 1;
    }
    return 0;
}

/* 1 when some text of the step, in language lang, quotes q. */
static int step_quotes(const struct lesson_step *st, enum lesson_lang lang, const char *q)
{
    const struct lesson_text *t[] = {&st->title, &st->text, &st->key,
                                     st->quiz ? &st->quiz->question : NULL,
                                     st->quiz ? &st->quiz->explanation : NULL,
                                     st->task ? &st->task->goal : NULL};
    for (size_t k = 0; k < sizeof t / sizeof *t; k++)
        if (t[k] && quotes_number(lang == LANG_ZH ? t[k]->zh : t[k]->en, q))
            return 1;
    for (int k = 0; k < st->nhints; k++)
        if (quotes_number(lang == LANG_ZH ? st->hints[k].zh : st->hints[k].en, q))
            return 1;
    for (int k = 0; st->quiz && k < st->quiz->nchoices; k++)
        if (quotes_number(lang == LANG_ZH ? st->quiz->choices[k].zh : st->quiz->choices[k].en, q))
            return 1;
    return 0;
}

/* The step's "figures": each must be quoted by the step's text in both languages. */
static int read_figures(struct ld *L, const cJSON *gj, const char *path, struct lesson_step *st)
{
    char p[PATH_BUF], p2[PATH_BUF];
    sub(p, path, "figures");
    int n = cJSON_GetArraySize(gj), bad = 0;
    if (!cJSON_IsArray(gj)) {
        PROBLEM(L, gj, 0, p, "expected an array of figures, found %s", jtype(gj));
        return -1;
    }
    if (n == 0)
        return 0;
    st->figures = calloc((size_t)n, sizeof *st->figures);
    if (!st->figures) {
        L->oom = 1;
        return -1;
    }
    int k = 0;
    for (const cJSON *d = gj->child; d; d = d->next, k++) {
        struct lesson_figure *f = &st->figures[st->nfigures];
        int rc = read_figure(L, d, subi(p2, p, k), f);
        const char *q = f->text[0] == '-' ? f->text + 1 : f->text;
        for (int lang = LANG_ZH; rc == 0 && lang <= LANG_EN; lang++)
            if (!step_quotes(st, (enum lesson_lang)lang, q)) {
                char p3[PATH_BUF];
                PROBLEM(L, get(d, "value"), 1, sub(p3, p2, "value"), "no %s text of this step "
                        "quotes %s (a figure is a number its text quotes, as written there)",
                        lang == LANG_ZH ? "zh" : "en", q);
                rc = -1;
            }
        if (rc) {
            bad++;
            figure_free(f);
        } else {
            st->nfigures++;
        }
    }
    return bad ? -1 : 0;
}

/* ---------------------------------------------------------------- step and lesson */

static const char *const step_keys[] = {"id", "title", "text", "key", "scene", "hints",
                                        "quiz", "expect", "task", "figures", NULL};

/* The step ids of one file, hashed: duplicates are found in linear time however many steps
 * a file has. */
struct idset {
    const struct lesson_step *steps;
    int *slot;                   /* step index + 1, 0 = empty */
    size_t cap;                  /* a power of two, at least twice the steps */
};

/* Adds steps[k]'s id; returns the index of an earlier step with the same id, or -1. */
static int idset_add(struct idset *S, int k)
{
    uint64_t h = 1469598103934665603ULL;  /* FNV-1a */
    for (const char *c = S->steps[k].id; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ULL;
    for (size_t i = (size_t)h & (S->cap - 1);; i = (i + 1) & (S->cap - 1)) {
        if (!S->slot[i]) {
            S->slot[i] = k + 1;
            return -1;
        }
        if (!strcmp(S->steps[S->slot[i] - 1].id, S->steps[k].id))
            return S->slot[i] - 1;
    }
}

static int read_step(struct ld *L, const cJSON *j, const char *path, struct lesson_step *st,
                     struct idset *ids)
{
    char p[PATH_BUF], p2[PATH_BUF];
    set_pos(L, j, 0, &st->line, &st->col);
    if (expect_object(L, j, path))
        return -1;
    int bad = check_keys(L, j, path, step_keys);
    int earlier;
    if (get_id(L, j, path, &st->id)) {
        bad++;
    } else if (st->id && (earlier = idset_add(ids, (int)(st - ids->steps))) >= 0) {
        PROBLEM(L, get(j, "id"), 1, sub(p, path, "id"), "\"%s\" is also the id of "
                "steps[%d]; step ids are unique within a file", st->id, earlier);
        bad++;
    }
    if (get_text(L, j, "title", path, 1, &st->title))
        bad++;
    if (get_text(L, j, "text", path, 1, &st->text))
        bad++;
    if (get_text(L, j, "key", path, 0, &st->key) < 0)
        bad++;
    const cJSON *hj = get(j, "hints");
    if (hj) {
        sub(p, path, "hints");
        int n = cJSON_GetArraySize(hj);
        if (!cJSON_IsArray(hj)) {
            PROBLEM(L, hj, 0, p, "expected an array of texts, found %s", jtype(hj));
            bad++;
        } else if (n > 0) {
            st->hints = calloc((size_t)n, sizeof *st->hints);
            if (!st->hints) {
                L->oom = 1;
                return -1;
            }
            st->nhints = n;
            int k = 0;
            for (const cJSON *d = hj->child; d; d = d->next, k++)
                if (read_text(L, d, subi(p2, p, k), &st->hints[k], 0, NULL))
                    bad++;
        }
    }
    const cJSON *sj = get(j, "scene");
    int naccess = 0, scene_ok = 1;
    if (sj) {
        st->scene = calloc(1, sizeof *st->scene);
        if (!st->scene) {
            L->oom = 1;
            return -1;
        }
        naccess = read_scene(L, sj, sub(p, path, "scene"), st->scene);
        if (naccess < 0) {
            bad++;
            scene_ok = 0;
        }
    }
    /* Parts that refer to a broken scene (naccess < 0) are checked only for what does not
     * depend on it, and left out of the lesson (a partial load goes on without them). */
    const struct lesson_scene *scene = sj ? st->scene : NULL;
    const cJSON *qj = get(j, "quiz");
    if (qj) {
        st->quiz = calloc(1, sizeof *st->quiz);
        if (!st->quiz) {
            L->oom = 1;
            return -1;
        }
        if (read_quiz(L, qj, sub(p, path, "quiz"), scene, naccess, st->quiz)) {
            bad++;
            st->quiz->check.field = FIELD_NONE;
        }
        if (!scene_ok)
            st->quiz->check.field = FIELD_NONE;
    }
    const cJSON *ej = get(j, "expect");
    if (ej) {
        sub(p, path, "expect");
        int n = cJSON_GetArraySize(ej);
        if (!cJSON_IsArray(ej)) {
            PROBLEM(L, ej, 0, p, "expected an array of expectations, found %s", jtype(ej));
            bad++;
        } else if (n > 0) {
            st->expects = calloc((size_t)n, sizeof *st->expects);
            if (!st->expects) {
                L->oom = 1;
                return -1;
            }
            int k = 0;
            for (const cJSON *d = ej->child; d; d = d->next, k++) {
                struct lesson_expect *e = &st->expects[st->nexpects];
                int rc = read_expect(L, d, subi(p2, p, k), scene, naccess, e);
                bad += rc != 0;
                if (rc || !scene_ok) {
                    binding_free(&e->bind);
                    memset(e, 0, sizeof *e);
                } else {
                    st->nexpects++;
                }
            }
        }
    }
    const cJSON *tj = get(j, "task");
    if (tj) {
        st->task = calloc(1, sizeof *st->task);
        if (!st->task) {
            L->oom = 1;
            return -1;
        }
        int rc = read_task(L, tj, sub(p, path, "task"), scene, naccess, st->task);
        bad += rc != 0;
        if (rc || !scene_ok) {
            text_free(&st->task->goal);
            free(st->task);
            st->task = NULL;
        }
    }
    if (!scene_ok) {
        scene_free(st->scene);
        st->scene = NULL;
    }
    const cJSON *gj = get(j, "figures");
    if (gj && read_figures(L, gj, path, st))
        bad++;
    return bad ? -1 : 0;
}

static const char *const lesson_keys[] = {"format", "id", "chapter", "title", "steps", NULL};

static void read_lesson(struct ld *L, const cJSON *root, struct lesson *l)
{
    if (expect_object(L, root, "(top level)"))
        return;
    check_keys(L, root, "", lesson_keys);
    long long v;
    const cJSON *fj = get(root, "format");
    if (fj && cJSON_IsNumber(fj) && fj->valuedouble > LESSON_FORMAT)
        PROBLEM(L, fj, 1, "format", "this banklab reads format %d; the file needs a newer "
                "banklab", LESSON_FORMAT);
    else
        get_int(L, root, "format", "", 1, LESSON_FORMAT, LESSON_FORMAT, "equal to 1", &v);
    get_id(L, root, "", &l->id);
    set_pos(L, get(root, "id"), 1, &l->id_at.line, &l->id_at.col);
    if (get_int(L, root, "chapter", "", 1, 1, 99, "in 1..99", &v) == 0)
        l->chapter = (int)v;
    get_text(L, root, "title", "", 1, &l->title);
    const cJSON *sj = get(root, "steps");
    if (!sj) {
        missing(L, root, "", "steps");
        return;
    }
    int n = cJSON_GetArraySize(sj);
    if (!cJSON_IsArray(sj) || n < 1) {
        PROBLEM(L, sj, 0, "steps", "expected a non-empty array of steps, found %s",
                cJSON_IsArray(sj) ? "an empty one" : jtype(sj));
        return;
    }
    l->steps = calloc((size_t)n, sizeof *l->steps);
    if (!l->steps) {
        L->oom = 1;
        return;
    }
    l->nsteps = n;
    struct idset ids = {l->steps, NULL, 16};
    while (ids.cap < (size_t)n * 2)
        ids.cap *= 2;
    if (!(ids.slot = calloc(ids.cap, sizeof *ids.slot))) {
        L->oom = 1;
        return;
    }
    int k = 0;
    char p[PATH_BUF];
    for (const cJSON *d = sj->child; d && !L->oom; d = d->next, k++)
        read_step(L, d, subi(p, "steps", k), &l->steps[k], &ids);
    free(ids.slot);
}

/* ---------------------------------------------------------------- public */

const char *lesson_tr(const struct lesson_text *t, enum lesson_lang lang)
{
    if (!t)
        return "";
    const char *a = lang == LANG_ZH ? t->zh : t->en;
    const char *b = lang == LANG_ZH ? t->en : t->zh;
    return a && a[0] ? a : b ? b : "";
}

enum lesson_lang lesson_lang_from_env(void)
{
    const char *v[] = {"LC_ALL", "LC_MESSAGES", "LANG"};
    for (int i = 0; i < 3; i++) {
        const char *s = getenv(v[i]);
        if (s && *s)
            return !strncmp(s, "zh", 2) ? LANG_ZH : LANG_EN;
    }
    return LANG_EN;
}

static void text_free(struct lesson_text *t)
{
    free(t->zh);
    free(t->en);
}

static void binding_free(struct lesson_binding *b)
{
    for (int k = 0; k < b->nvalues; k++)
        free(b->names[k]);
    free(b->names);
    free(b->values);
    free(b->type);
}

static void scene_free(struct lesson_scene *s)
{
    if (!s)
        return;
    free(s->code);
    for (int k = 0; k < s->ntypes; k++)
        free(s->types[k]);
    free(s->types);
    for (int k = 0; k < s->nparams; k++) {
        free(s->params[k].name);
        text_free(&s->params[k].label);
    }
    free(s->params);
    free(s->kernel);
    free(s->sweep);
    free(s);
}

static void quiz_free(struct lesson_quiz *q)
{
    if (!q)
        return;
    text_free(&q->question);
    for (int k = 0; k < q->nchoices; k++)
        text_free(&q->choices[k]);
    free(q->choices);
    free(q->choice_values);
    text_free(&q->explanation);
    binding_free(&q->check.bind);
    free(q);
}

static void lesson_clear(struct lesson *l)
{
    free(l->path);
    free(l->id);
    text_free(&l->title);
    for (int i = 0; i < l->nsteps; i++) {
        struct lesson_step *st = &l->steps[i];
        free(st->id);
        text_free(&st->title);
        text_free(&st->text);
        text_free(&st->key);
        scene_free(st->scene);
        for (int k = 0; k < st->nhints; k++)
            text_free(&st->hints[k]);
        free(st->hints);
        quiz_free(st->quiz);
        for (int k = 0; k < st->nexpects; k++)
            binding_free(&st->expects[k].bind);
        free(st->expects);
        if (st->task)
            text_free(&st->task->goal);
        free(st->task);
        for (int k = 0; k < st->nfigures; k++)
            figure_free(&st->figures[k]);
        free(st->figures);
    }
    free(l->steps);
}

void lesson_free(struct lesson *l)
{
    if (!l)
        return;
    lesson_clear(l);
    free(l);
}

void lesson_set_done(struct lesson_set *set)
{
    if (!set)
        return;
    for (int i = 0; i < set->nlessons; i++)
        lesson_clear(&set->lessons[i]);
    free(set->lessons);
    memset(set, 0, sizeof *set);
}

static int read_file(const char *path, char **data, size_t *len, char *why, size_t wsz)
{
    *data = files_read(path, LESSON_FILE_MAX, len, why, wsz);
    return *data ? 0 : -1;
}

static struct lesson *load(const char *name, const char *data, size_t len,
                           void (*report)(const struct lesson_error *e, void *ctx), void *ctx,
                           int *nproblems, int partial)
{
    struct ld L;
    memset(&L, 0, sizeof L);
    L.name = name ? name : "(lesson)";
    L.report = report;
    L.ctx = ctx;
    struct lesson *l = NULL;
    cJSON *root = NULL;
    char *owned = NULL;
    if (nproblems)
        *nproblems = 0;
    if (!data) {
        char why[128];
        if (read_file(name, &owned, &len, why, sizeof why)) {
            problem_off(&L, SIZE_MAX, "", "%s", why);
            if (nproblems)
                *nproblems = -1;
            return NULL;
        }
        data = owned;
    }
    /* NUL-terminated copy: cJSON and the scanner read it as a C string. */
    char *text = malloc(len + 1);
    if (!text) {
        free(owned);
        problem_off(&L, SIZE_MAX, "", "out of memory");
        if (nproblems)
            *nproblems = 1;
        return NULL;
    }
    if (len)
        memcpy(text, data, len);
    text[len] = 0;
    free(owned);
    L.text = text;
    L.len = len;
    if (build_lines(&L)) {
        L.oom = 1;
        goto done;
    }
    size_t bad = bl_utf8_bad(text, len);
    if (bad != SIZE_MAX) {
        problem_off(&L, bad, "", text[bad] ? "invalid UTF-8 (save the file as UTF-8)"
                                           : "NUL byte in the file");
        goto done;
    }
    const char *end = NULL;
    root = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1);
    size_t err_off = 0;
    char err[200];
    if (!root) {
        if (scan_document(&L, NULL, &err_off, err, sizeof err) == 0) {
            /* our scanner accepted what cJSON refused: point where cJSON stopped */
            err_off = end && end >= text && end <= text + len ? (size_t)(end - text) : 0;
            snprintf(err, sizeof err, "syntax error");
        }
        problem_off(&L, err_off, "", "%s", err);
        goto done;
    }
    if (scan_document(&L, root, &err_off, err, sizeof err)) {
        problem_off(&L, err_off, "", "%s", err);
        goto done;
    }
    if (L.oom || build_hash(&L)) {
        L.oom = 1;
        goto done;
    }
    l = calloc(1, sizeof *l);
    if (!l) {
        L.oom = 1;
        goto done;
    }
    l->path = dupstr(&L, L.name);
    read_lesson(&L, root, l);
done:
    if (L.oom)
        problem_off(&L, SIZE_MAX, "", "out of memory");
    if (L.nproblems > LESSON_PROBLEMS_SHOWN && report) {
        struct lesson_error e;
        memset(&e, 0, sizeof e);
        snprintf(e.file, sizeof e.file, "%s", L.name);
        snprintf(e.msg, sizeof e.msg, "%d more problems not shown",
                 L.nproblems - LESSON_PROBLEMS_SHOWN);
        report(&e, ctx);
    }
    if (L.oom || (L.nproblems && !partial)) {
        lesson_free(l);
        l = NULL;
    }
    if (nproblems)
        *nproblems = L.nproblems;
    cJSON_Delete(root);
    free(L.nodes);
    free(L.hash);
    free(L.lines);
    free(L.cols);
    free(text);
    return l;
}

struct lesson *lesson_load_report(const char *name, const char *data, size_t len,
                                  void (*report)(const struct lesson_error *e, void *ctx),
                                  void *ctx, int *nproblems)
{
    return load(name, data, len, report, ctx, nproblems, 0);
}

struct lesson *lesson_load_partial(const char *name, const char *data, size_t len,
                                   void (*report)(const struct lesson_error *e, void *ctx),
                                   void *ctx, int *nproblems)
{
    return load(name, data, len, report, ctx, nproblems, 1);
}

static void keep_first(const struct lesson_error *e, void *ctx)
{
    struct lesson_error *first = ctx;
    if (first->msg[0] == 0)
        *first = *e;
}

struct lesson *lesson_load_buffer(const char *name, const char *data, size_t len,
                                  struct lesson_error *err)
{
    struct lesson_error tmp;
    memset(&tmp, 0, sizeof tmp);
    struct lesson *l = lesson_load_report(name, data ? data : "", data ? len : 0, keep_first,
                                          &tmp, NULL);
    if (err)
        *err = tmp;
    return l;
}

struct lesson *lesson_load_file(const char *path, struct lesson_error *err)
{
    struct lesson_error tmp;
    memset(&tmp, 0, sizeof tmp);
    struct lesson *l = lesson_load_report(path ? path : "", NULL, 0, keep_first, &tmp, NULL);
    if (err)
        *err = tmp;
    return l;
}
