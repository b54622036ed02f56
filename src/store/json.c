/* json.c: JSON texts read with cJSON (json.h): the parse, what cJSON lets pass that RFC 8259
 * refuses, the number literals as written, why a text is not JSON, and the whole-text helpers
 * of recordings and progress. Depends on cJSON and src/base only; never prints, never exits. */
#include "json.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "../base/fmt.h"
#include "../base/utf8.h"

#define AT(off) ((struct bl_place){(int)(off) + 1, 1, -1})

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static const char *char_name(int c, char *buf, size_t size)
{
    if (c >= 0x21 && c < 0x7f)
        bl_fmt(buf, size, "'%c'", c);
    else if (c == ' ')
        bl_fmt(buf, size, "a space");
    else if (c < 0x20 || c == 0x7f)
        bl_fmt(buf, size, "control character 0x%02x", c);
    else
        bl_fmt(buf, size, "a non-ASCII character");
    return buf;
}

/* ---------------------------------------------------------------- what cJSON lets pass */

/* A walk over the text beside cJSON's: it skips strings (checking their characters and
 * escapes), counts the nesting and stops at each number, so that the n-th number it meets is
 * the n-th number node of cJSON's tree in document order. */
struct lex {
    const char *s;               /* text[n] == 0 */
    size_t n, i;
    size_t quote;                /* where the last string opened */
    int depth;
    unsigned char obj[CJSON_NESTING_LIMIT / 8 + 1];  /* bit d: the container at depth d is {} */
};

static long hex4(const char *s, size_t left)
{
    long v = 0;
    for (int k = 0; k < 4; k++) {
        int h = (size_t)k < left ? bl_hex_digit((unsigned char)s[k]) : -1;
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

/* The string whose opening quote is at x->i, x->i left past its closing quote. */
static int lex_string(struct lex *x, struct bl_err *err)
{
    x->quote = x->i;
    for (x->i++; x->i < x->n && x->s[x->i] != '"'; x->i++) {
        size_t at = x->i;
        unsigned char c = (unsigned char)x->s[at];
        char e = x->s[at + 1], cb[32];
        if (c == '\n' || c == '\r')
            return bl_fail(err, -1, AT(at), JSON_LINE_BREAK_IN_STRING);
        if (c < 0x20)
            return bl_fail(err, -1, AT(at), JSON_CONTROL_IN_STRING, c);
        if (c != '\\' || at + 1 >= x->n)
            continue;
        if (e != 'u') {
            if (!strchr("\"\\/bfnrt", e))
                return bl_fail(err, -1, AT(at), JSON_BAD_ESCAPE,
                               char_name((unsigned char)e, cb, sizeof cb));
            x->i++;
            continue;
        }
        long u = hex4(x->s + at + 2, x->n - at - 2), lo = -1;
        int high = u >= 0xD800 && u <= 0xDBFF;   /* then \uDC00..\uDFFF must follow */
        if (u < 0)
            return bl_fail(err, -1, AT(at), JSON_U_HEX);
        if (u == 0)
            return bl_fail(err, -1, AT(at), JSON_U_ZERO);
        if (high && at + 7 < x->n && x->s[at + 6] == '\\' && x->s[at + 7] == 'u')
            lo = hex4(x->s + at + 8, x->n - at - 8);
        if ((u >= 0xDC00 && u <= 0xDFFF) || (high && (lo < 0xDC00 || lo > 0xDFFF)))
            return bl_fail(err, -1, AT(at), JSON_SURROGATE, (unsigned)u);
        x->i += high ? 11 : 5;
    }
    x->i++;
    return 0;
}

/* The number of len bytes at s is JSON's -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
 * (cJSON reads more through strtod); 0, or -1 with err at off. */
static int lex_number_ok(const char *s, size_t len, size_t off, struct bl_err *err)
{
    size_t i = s[0] == '-';
    if (i + 1 < len && s[i] == '0' && is_digit(s[i + 1]))
        return bl_fail(err, -1, AT(off), JSON_LEADING_ZERO);
    for (int part = 0; part < 3; part++) {
        if (part == 1 && (i >= len || s[i] != '.'))
            continue;
        if (part == 2 && (i >= len || (s[i] != 'e' && s[i] != 'E')))
            continue;
        char after = part ? s[i++] : '-';
        if (part == 2 && i < len && (s[i] == '+' || s[i] == '-'))
            i++;
        if (i >= len || !is_digit(s[i]))
            return bl_fail(err, -1, AT(off), JSON_DIGIT_AFTER, after);
        while (i < len && is_digit(s[i]))
            i++;
    }
    char cb[32];
    return i == len ? 0 : bl_fail(err, -1, AT(off + i), JSON_UNEXPECTED,
                                  char_name((unsigned char)s[i], cb, sizeof cb));
}

/* The next number before limit: its offset (its length in *len), or SIZE_MAX when there is
 * none or after a problem (err filled). */
static size_t lex_next(struct lex *x, size_t limit, size_t *len, struct bl_err *err)
{
    while (x->i < limit) {
        size_t at = x->i;
        unsigned char c = (unsigned char)x->s[at];
        if (c == '"') {
            if (lex_string(x, err))
                return SIZE_MAX;
            continue;
        }
        x->i++;
        if (c == '}' || c == ']') {
            x->depth--;
        } else if (c == '{' || c == '[') {
            int d = x->depth++;
            if (d >= 0 && d < CJSON_NESTING_LIMIT)
                x->obj[d / 8] = (unsigned char)((x->obj[d / 8] & ~(1u << d % 8)) |
                                                (c == '{' ? 1u << d % 8 : 0));
        } else if (c < 0x20 && !is_space((char)c)) {
            bl_fail(err, -1, AT(at), JSON_CONTROL, c);
            return SIZE_MAX;
        } else if (c == '-' || is_digit((char)c)) {
            while (x->i < x->n && x->s[x->i] && strchr("+-0123456789.eE", x->s[x->i]))
                x->i++;
            *len = x->i - at;
            return lex_number_ok(x->s + at, *len, at, err) ? SIZE_MAX : at;
        }
    }
    return SIZE_MAX;
}

/* Every number node of the tree from j on gets its literal, in document order. */
static int give_literals(cJSON *j, struct lex *x, struct bl_err *err)
{
    for (; j; j = j->next) {
        if (cJSON_IsNumber(j)) {
            size_t len = 0, at = lex_next(x, x->n, &len, err);
            if (at == SIZE_MAX)
                return bl_fail(err, -1, BL_NOWHERE, JSON_UNEXPECTED, "a number");
            if (!(j->valuestring = cJSON_malloc(len + 1)))
                return bl_fail(err, -2, BL_NOWHERE, JSON_OUT_OF_MEMORY);
            memcpy(j->valuestring, x->s + at, len);
            j->valuestring[len] = 0;
        }
        if (j->child && give_literals(j->child, x, err))
            return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- why a text is not JSON */

/* The last character before k that is not white space (0 when none). */
static char before(const char *s, size_t k)
{
    while (k > 0 && is_space(s[k - 1]))
        k--;
    return k > 0 ? s[k - 1] : 0;
}

/* 1 when the container x stands in at its depth is an object. */
static int in_object(const struct lex *x)
{
    int d = x->depth - 1;
    return d >= 0 && d < CJSON_NESTING_LIMIT && (x->obj[d / 8] >> d % 8 & 1);
}

/* cJSON stopped at e, x having walked the text up to e - 1. Where an object wants a key,
 * cJSON points past the character it refused: that one (at k) is named and placed. */
static int why_not_json(const char *s, size_t n, size_t e, struct lex *x, const char *whole,
                        struct bl_err *err)
{
    size_t first = n >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3) ? 3 : 0, k = e, lit;
    while (first < n && is_space(s[first]))
        first++;
    if (first >= n)
        return bl_fail(err, -1, AT(0), JSON_EMPTY, whole ? whole : "the file");
    int want_key = in_object(x) && e > 0 && !is_space(s[e - 1]) && s[e - 1] != '"' &&
                   (before(s, e - 1) == '{' || before(s, e - 1) == ',');
    if (want_key)
        k = e - 1;
    while (!want_key && lex_next(x, e, &lit, err) != SIZE_MAX)
        ;
    if (bl_err_failed(err))
        return -1;
    if (x->depth >= CJSON_NESTING_LIMIT)
        return bl_fail(err, -1, AT(e), JSON_TOO_DEEP, CJSON_NESTING_LIMIT);
    if (x->i > n)
        return bl_fail(err, -1, AT(x->quote), JSON_UNTERMINATED);
    if (k >= n)
        return bl_fail(err, -1, AT(n), JSON_END_OF_FILE);
    char c = s[k], b = before(s, k), cb[32];
    char_name((unsigned char)c, cb, sizeof cb);
    if (c == '/')
        return bl_fail(err, -1, AT(k), JSON_NO_COMMENTS);
    if (c == '\'')
        return bl_fail(err, -1, AT(k), JSON_SINGLE_QUOTE);
    if ((c == ']' || c == '}') && b == ',')
        return bl_fail(err, -1, AT(k), JSON_TRAILING_COMMA, c);
    if (want_key)
        return bl_fail(err, -1, AT(k), JSON_EXPECTED_KEY, cb);
    if (c && strchr("\"{[", c) && b && strchr("\"]}0123456789el", b))
        return bl_fail(err, -1, AT(k), JSON_MISSING_COMMA);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
        return bl_fail(err, -1, AT(k), JSON_UNKNOWN_WORD);
    if (c == '-' || is_digit(c)) {
        size_t len = 0;
        while (k + len < n && s[k + len] && strchr("+-0123456789.eE", s[k + len]))
            len++;
        if (lex_number_ok(s + k, len, k, err))
            return -1;
    }
    if (b && strchr("\"]}0123456789el", b) && !(in_object(x) && b == '"'))
        return bl_fail(err, -1, AT(k), JSON_EXPECTED_COMMA, in_object(x) ? '}' : ']', cb);
    if (!b || strchr("[,:", b))
        return bl_fail(err, -1, AT(k), JSON_EXPECTED_VALUE, cb);
    return bl_fail(err, -1, AT(k), JSON_UNEXPECTED, cb);
}

cJSON *json_parse(const char *text, size_t len, const char **end)
{
    return cJSON_ParseWithLengthOpts(text, len, end, 0);
}

int json_read(const char *text, size_t len, const char *whole, cJSON **root, struct bl_err *err)
{
    const char *end = NULL;
    struct lex x = {.s = text, .n = len};
    size_t lit = 0;
    *root = json_parse(text, len + 1, &end);
    size_t e = end && end >= text && end <= text + len ? (size_t)(end - text) : len;
    if (*root) {
        size_t after = e;
        while (after < len && is_space(text[after]))
            after++;
        if (give_literals(*root, &x, err) == 0 && lex_next(&x, e, &lit, err) == SIZE_MAX &&
            !bl_err_failed(err) && after < len)
            bl_fail(err, -1, AT(after), JSON_TEXT_AFTER);
        if (!bl_err_failed(err))
            return 0;
        cJSON_Delete(*root);
        *root = NULL;
        return -1;
    }
    while (lex_next(&x, e ? e - 1 : 0, &lit, err) != SIZE_MAX)
        ;
    return why_not_json(text, len, e, &x, whole, err);
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

