/* json.c: a JSON text's places beside its cJSON tree (json.h): a strict scanner that records
 * where each value and key start, a line and column index, and the whole-text checks that run
 * before cJSON builds a tree. Depends on cJSON and src/base only; never prints, never exits. */
#include "json.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/fmt.h"
#include "../base/utf8.h"

/* ---------------------------------------------------------------- node places */

static size_t hash_ptr(const void *p, size_t cap)
{
    uint64_t h = (uint64_t)(uintptr_t)p;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return (size_t)h & (cap - 1);
}

static void add_node(struct json_doc *D, const cJSON *item, size_t key_off, size_t val_off)
{
    if (!item || D->oom)
        return;
    if (D->nnodes == D->cap) {
        size_t ncap = D->cap ? D->cap * 2 : 256;
        struct json_node *n = realloc(D->nodes, ncap * sizeof *n);
        if (!n) {
            D->oom = 1;
            return;
        }
        D->nodes = n;
        D->cap = ncap;
    }
    D->nodes[D->nnodes++] = (struct json_node){item, key_off, val_off};
}

static int build_hash(struct json_doc *D)
{
    size_t cap = 16;
    while (cap < D->nnodes * 2 + 2)
        cap *= 2;
    D->hash = calloc(cap, sizeof *D->hash);
    if (!D->hash)
        return -1;
    D->hcap = cap;
    for (size_t i = 0; i < D->nnodes; i++) {
        size_t h = hash_ptr(D->nodes[i].item, cap);
        while (D->hash[h])
            h = (h + 1) & (cap - 1);
        D->hash[h] = i + 1;
    }
    return 0;
}

static const struct json_node *find_node(const struct json_doc *D, const cJSON *item)
{
    if (!D->hcap || !item)
        return NULL;
    size_t h = hash_ptr(item, D->hcap);
    while (D->hash[h]) {
        const struct json_node *n = &D->nodes[D->hash[h] - 1];
        if (n->item == item)
            return n;
        h = (h + 1) & (D->hcap - 1);
    }
    return NULL;
}

size_t json_doc_offset(const struct json_doc *D, const cJSON *item, int want_key)
{
    const struct json_node *n = find_node(D, item);
    if (!n)
        return SIZE_MAX;
    if (want_key && n->key_off != SIZE_MAX)
        return n->key_off;
    return n->val_off;
}

/* The line starts and a column checkpoint every JSON_COL_STEP bytes, in one pass: finding a
 * position later costs a binary search and at most JSON_COL_STEP bytes, however long its line. */
/* ---------------------------------------------------------------- lines and columns */

/* The line starts and a column checkpoint every JSON_COL_STEP bytes, in one pass: finding a
 * position later costs a binary search and at most JSON_COL_STEP bytes, however long its line. */
static int index_lines(struct json_doc *D)
{
    size_t n = 1;
    for (size_t i = 0; i < D->len; i++)
        n += D->text[i] == '\n';
    D->lines = malloc(n * sizeof *D->lines);
    D->cols = malloc((D->len / JSON_COL_STEP + 1) * sizeof *D->cols);
    if (!D->lines || !D->cols)
        return -1;
    D->lines[0] = 0;
    D->nlines = 1;
    int col = 1;
    for (size_t i = 0;; i++) {
        if (i % JSON_COL_STEP == 0)
            D->cols[i / JSON_COL_STEP] = col;
        if (i == D->len)
            break;
        if (D->text[i] == '\n') {
            D->lines[D->nlines++] = i + 1;
            col = 1;
        } else if (((unsigned char)D->text[i] & 0xC0) != 0x80 && col < INT_MAX) {
            col++;
        }
    }
    return 0;
}

void json_doc_line_col(const struct json_doc *D, size_t off, int *line, int *col)
{
    *line = 0;
    *col = 0;
    if (off == SIZE_MAX || !D->lines || !D->cols)
        return;
    if (off > D->len)
        off = D->len;
    size_t lo = 0, hi = D->nlines;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (D->lines[mid] <= off)
            lo = mid;
        else
            hi = mid;
    }
    size_t from = off / JSON_COL_STEP * JSON_COL_STEP;
    int c = D->cols[off / JSON_COL_STEP];
    if (from < D->lines[lo]) {  /* the checkpoint is on an earlier line */
        from = D->lines[lo];
        c = 1;
    }
    for (size_t i = from; i < off; i++)
        if (((unsigned char)D->text[i] & 0xC0) != 0x80 && c < INT_MAX)
            c++;
    *line = lo + 1 > INT_MAX ? INT_MAX : (int)(lo + 1);
    *col = c;
}


int json_doc_init(struct json_doc *D, const char *text, size_t len)
{
    memset(D, 0, sizeof *D);
    D->text = text;
    D->len = len;
    return index_lines(D);
}

void json_doc_done(struct json_doc *D)
{
    free(D->nodes);
    free(D->hash);
    free(D->lines);
    free(D->cols);
    memset(D, 0, sizeof *D);
}

size_t json_doc_string_offset(const struct json_doc *D, size_t q, size_t index)
{
    if (q == SIZE_MAX)
        return SIZE_MAX;
    size_t i = q + 1, got = 0;
    while (i < D->len && D->text[i] != '"') {
        if (got >= index)
            return i;
        if (D->text[i] != '\\') {
            i++;
            got++;
            continue;
        }
        char e = D->text[i + 1];
        if (e != 'u') {
            i += 2;
            got++;
            continue;
        }
        unsigned long u = strtoul((char[5]){D->text[i + 2], D->text[i + 3], D->text[i + 4],
                                            D->text[i + 5], 0}, NULL, 16);
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


const char *json_doc_literal(const struct json_doc *D, const cJSON *j, char *buf, size_t size)
{
    size_t off = json_doc_offset(D, j, 0), n = 0;
    buf[0] = 0;
    if (off == SIZE_MAX || size == 0)
        return buf;
    while (off + n < D->len && n + 1 < size && strchr("+-0123456789.eE", D->text[off + n]) &&
           D->text[off + n])
        n++;
    memcpy(buf, D->text + off, n);
    buf[n] = 0;
    return buf;
}


/* ---------------------------------------------------------------- strict scanner */

struct scan {
    struct json_doc *D;
    const char *s;
    size_t n, i;
    int depth;
    size_t err_off;
    char err[160];
};

/* The scanner stops at its first problem (bl_failmsg: the first wins), remembering where. */
#define FAIL_AT(S, off, ...) (fail_at((S), (off)), bl_failmsg((S)->err, sizeof (S)->err, __VA_ARGS__))

static void fail_at(struct scan *S, size_t off)
{
    if (!S->err[0])
        S->err_off = off;
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
            return FAIL_AT(S, S->i, "control character 0x%02x (not allowed in JSON)", c);
        else
            break;
    }
    return 0;
}

static long read_u4(const struct scan *S, size_t at)
{
    if (at + 4 > S->n)
        return -1;
    long v = 0;
    for (int k = 0; k < 4; k++) {
        int h = bl_hex_digit((unsigned char)S->s[at + k]);
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
            return FAIL_AT(S, start, "unterminated string (missing closing '\"')");
        unsigned char c = (unsigned char)S->s[S->i];
        if (c == '"') {
            S->i++;
            return 0;
        }
        if (c == '\n' || c == '\r')
            return FAIL_AT(S, S->i, "line break inside a string (missing closing '\"'? "
                           "write \\n for a new line)");
        if (c < 0x20)
            return FAIL_AT(S, S->i, "control character 0x%02x inside a string (write \\t "
                           "for a tab)", c);
        if (c != '\\') {
            S->i++;
            continue;
        }
        if (S->i + 1 >= S->n)
            return FAIL_AT(S, start, "unterminated string (missing closing '\"')");
        char e = S->s[S->i + 1];
        if (strchr("\"\\/bfnrt", e) && e) {
            S->i += 2;
            continue;
        }
        if (e != 'u') {
            char cb[32];
            return FAIL_AT(S, S->i, "invalid escape '\\' followed by %s (valid: \\\" \\\\ \\/ "
                           "\\b \\f \\n \\r \\t \\uXXXX)", char_name((unsigned char)e, cb,
                                                                     sizeof cb));
        }
        long u = read_u4(S, S->i + 2);
        if (u < 0)
            return FAIL_AT(S, S->i, "\\u must be followed by 4 hex digits");
        if (u == 0)
            return FAIL_AT(S, S->i, "\\u0000 is not allowed in a text");
        if (u >= 0xDC00 && u <= 0xDFFF)
            return FAIL_AT(S, S->i, "unpaired surrogate \\u%04lX", (unsigned long)u);
        if (u >= 0xD800 && u <= 0xDBFF) {
            long lo = -1;
            if (S->i + 7 < S->n && S->s[S->i + 6] == '\\' && S->s[S->i + 7] == 'u')
                lo = read_u4(S, S->i + 8);
            if (lo < 0xDC00 || lo > 0xDFFF)
                return FAIL_AT(S, S->i, "unpaired surrogate \\u%04lX", (unsigned long)u);
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
        return FAIL_AT(S, start, "bad number (a digit must follow '-')");
    if (S->s[S->i] == '0' && S->i + 1 < S->n && is_digit((unsigned char)S->s[S->i + 1]))
        return FAIL_AT(S, start, "bad number (no leading zeros in JSON)");
    while (S->i < S->n && is_digit((unsigned char)S->s[S->i]))
        S->i++;
    if (S->i < S->n && S->s[S->i] == '.') {
        S->i++;
        if (S->i >= S->n || !is_digit((unsigned char)S->s[S->i]))
            return FAIL_AT(S, start, "bad number (a digit must follow '.')");
        while (S->i < S->n && is_digit((unsigned char)S->s[S->i]))
            S->i++;
    }
    if (S->i < S->n && (S->s[S->i] == 'e' || S->s[S->i] == 'E')) {
        S->i++;
        if (S->i < S->n && (S->s[S->i] == '+' || S->s[S->i] == '-'))
            S->i++;
        if (S->i >= S->n || !is_digit((unsigned char)S->s[S->i]))
            return FAIL_AT(S, start, "bad number (a digit must follow the exponent)");
        while (S->i < S->n && is_digit((unsigned char)S->s[S->i]))
            S->i++;
    }
    return 0;
}

static int scan_value(struct scan *S, const cJSON *item, size_t key_off);

static int unexpected(struct scan *S, const char *expected)
{
    if (S->i >= S->n)
        return FAIL_AT(S, S->n, "unexpected end of file (expected %s)", expected);
    unsigned char c = (unsigned char)S->s[S->i];
    char cb[32];
    if (c == '\'')
        return FAIL_AT(S, S->i, "JSON strings use double quotes (\"), not '");
    if (c == '/')
        return FAIL_AT(S, S->i, "JSON has no comments");
    return FAIL_AT(S, S->i, "expected %s, found %s", expected, char_name(c, cb, sizeof cb));
}

static int scan_container(struct scan *S, const cJSON *item, int obj)
{
    size_t open = S->i;
    char close = obj ? '}' : ']';
    if (++S->depth > JSON_DEPTH_MAX)
        return FAIL_AT(S, open, "nesting too deep (more than %d levels)", JSON_DEPTH_MAX);
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
                return FAIL_AT(S, S->i, "trailing comma before '}'");
            if (S->i >= S->n || S->s[S->i] != '"')
                return unexpected(S, "a \"key\" in double quotes");
            key_off = S->i;
            if (scan_string(S) || scan_ws(S))
                return -1;
            if (S->i >= S->n || S->s[S->i] != ':')
                return unexpected(S, "':' after the key");
            S->i++;
        } else if (S->i < S->n && S->s[S->i] == ']' && !first) {
            return FAIL_AT(S, S->i, "trailing comma before ']'");
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
            json_doc_line_col(S->D, open, &line, &col);
            return FAIL_AT(S, S->n, "unexpected end of file: '%c' opened at %d:%d is not closed",
                           S->s[open], line, col);
        }
        if (S->s[S->i] == '"' || S->s[S->i] == '{' || S->s[S->i] == '[')
            return FAIL_AT(S, S->i, "missing ',' before this");
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
    add_node(S->D, item, key_off, S->i);
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
                return FAIL_AT(S, S->i - ln, "unknown word (values are \"strings\", numbers, "
                               "true, false, null, {...} or [...])");
            return 0;
        }
    }
    if (c == ']' || c == '}')
        return unexpected(S, "a value");
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
        return FAIL_AT(S, S->i, "unknown word (text must be in double quotes)");
    return unexpected(S, "a value");
}

int json_doc_scan(struct json_doc *D, const cJSON *root, const char *whole, size_t *err_off,
                  char *err, size_t esz)
{
    struct scan S;
    memset(&S, 0, sizeof S);
    S.D = D;
    S.s = D->text;
    S.n = D->len;
    if (S.n >= 3 && !memcmp(S.s, "\xEF\xBB\xBF", 3))
        S.i = 3;
    int rc = scan_ws(&S);
    if (!rc && S.i >= S.n)
        rc = FAIL_AT(&S, 0, "empty file (%s is one JSON object)", whole ? whole : "the file");
    if (!rc)
        rc = scan_value(&S, root, SIZE_MAX);
    if (!rc)
        rc = scan_ws(&S);
    if (!rc && S.i < S.n)
        rc = FAIL_AT(&S, S.i, "text after the end of the JSON object");
    if (rc) {
        *err_off = S.err_off;
        bl_fmt(err, esz, "%s", S.err[0] ? S.err : "syntax error");
    }
    if (!rc && root && !D->oom && build_hash(D))
        D->oom = 1;
    return rc;
}

/* ---------------------------------------------------------------- whole-text checks */

void json_line_col(const char *text, size_t len, size_t off, int *line, int *col)
{
    *line = 1;
    *col = 1;
    if (off > len)
        off = len;
    for (size_t i = 0; i < off; i++) {
        if (text[i] == '\n') {
            (*line)++;
            *col = 1;
        } else if (((unsigned char)text[i] & 0xC0) != 0x80 && *col < INT_MAX) {
            (*col)++;
        }
    }
}

/* One walk outside strings: the values counted (stopping past max) and whether the text
 * ends inside a string or with a container open (*open, when not NULL). */
static size_t outline(const char *text, size_t len, size_t max, int *open)
{
    size_t n = 1;
    long depth = 0;
    int in_str = 0;
    for (size_t i = 0; i < len && n <= max; i++) {
        char c = text[i];
        if (in_str) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_str = 0;
        } else if (c == '"') {
            in_str = 1;
        } else if (c == '{' || c == '[') {
            depth++;
            n++;
        } else if (c == '}' || c == ']') {
            depth--;
        } else if (c == ',') {
            n++;
        }
    }
    if (open)
        *open = in_str || depth > 0;
    return n;
}

int json_unclosed(const char *text, size_t len)
{
    int open = 0;
    outline(text, len, SIZE_MAX, &open);
    return open;
}

int json_too_many_values(const char *text, size_t len, size_t max)
{
    return outline(text, len, max, NULL) > max;
}

const char *json_type_name(const cJSON *j)
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

