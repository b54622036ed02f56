/* wrap.c: display columns and line breaking (wrap.h). libc only (mbrtowc, wcwidth). */
#include "wrap.h"
#include "lexicon.h"

#include <ctype.h>
#include <string.h>
#include <wctype.h>

size_t bl_char(const char *s, size_t n, wchar_t *wc, int *w)
{
    mbstate_t st;
    memset(&st, 0, sizeof st);
    size_t k = mbrtowc(wc, s, n, &st);
    if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
        *wc = L'?';
        *w = 1;
        return 1;
    }
    int cw = wcwidth(*wc);
    *w = cw < 0 ? 1 : cw;
    return k;
}

/* East Asian Wide and Fullwidth ranges (UAX #11) */
static int wide_cp(unsigned long c)
{
    static const unsigned long r[][2] = {
        {0x1100, 0x115f}, {0x2e80, 0x303e}, {0x3041, 0x33ff}, {0x3400, 0x4dbf}, {0x4e00, 0x9fff},
        {0xa000, 0xa4cf}, {0xac00, 0xd7a3}, {0xf900, 0xfaff}, {0xfe30, 0xfe4f}, {0xff00, 0xff60},
        {0xffe0, 0xffe6}, {0x1f300, 0x1f64f}, {0x1f900, 0x1f9ff}, {0x20000, 0x2fffd},
        {0x30000, 0x3fffd}};
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
        if (c >= r[i][0] && c <= r[i][1])
            return 1;
    return 0;
}

int bl_cols_at(const char *s, size_t *len)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t k = p[0] < 0x80 ? 1 : (p[0] & 0xe0) == 0xc0 ? 2 : (p[0] & 0xf0) == 0xe0 ? 3
             : (p[0] & 0xf8) == 0xf0 ? 4 : 0;
    unsigned long c = k == 1 ? p[0] : k ? p[0] & (0x7f >> k) : 0;
    for (size_t i = 1; i < k; i++) {
        if ((p[i] & 0xc0) != 0x80) {
            k = 0;
            break;
        }
        c = c << 6 | (p[i] & 0x3f);
    }
    if (len)
        *len = k ? k : 1;
    if (!k)
        return 0;
    return wide_cp(c) ? 2 : 1;
}

int bl_cols(const char *s)
{
    int cols = 0;
    while (*s) {
        size_t k;
        cols += bl_cols_at(s, &k);
        s += k;
    }
    return cols;
}

int bl_width_n(const char *s, size_t n)
{
    int cols = 0;
    size_t i = 0;
    while (i < n && s[i]) {
        wchar_t wc;
        int w;
        i += bl_char(s + i, n - i, &wc, &w);
        cols += w;
    }
    return cols;
}

/* bl_no_line_start, bl_no_line_end: c may not begin a line (closing punctuation, the lexicon's
 * NO_LINE_START, also ASCII , . ; : ! ? and ')'), may not end one (opening punctuation,
 * NO_LINE_END). */
static int bl_no_line_start(wchar_t c)
{
    if (c > 0 && c < 0x80)
        return strchr(",.;:!?)", (int)c) != NULL;
    return c && bl_lex_has_char(BL_LEX_NO_LINE_START, (unsigned long)c);
}

static int bl_no_line_end(wchar_t c)
{
    return c && bl_lex_has_char(BL_LEX_NO_LINE_END, (unsigned long)c);
}

/* the character a line starting at s[i] would begin with (backticks skipped), 0 at the end */
static wchar_t char_at(const char *s, size_t n, size_t i, int ticks)
{
    while (i < n && s[i] == '`' && ticks && !(ticks & BL_WRAP_SHOWN))
        i++;
    if (i >= n || !s[i])
        return 0;
    wchar_t wc;
    int w;
    bl_char(s + i, n - i, &wc, &w);
    return wc;
}

/* a break may follow this ASCII character inside a word: the comma or semicolon of a list
 * written without spaces ("a.sum,b.sum"), so that a long metric list wraps between names */
static int break_after(const char *s, size_t i, size_t n)
{
    if ((s[i] != ',' && s[i] != ';') || i + 1 >= n || !s[i + 1] || s[i + 1] == ' ' ||
        s[i + 1] == '\n')
        return 0;
    return !(i > 0 && isdigit((unsigned char)s[i - 1]) && isdigit((unsigned char)s[i + 1]));
}

/* A wide character's own break is only a break where the line after it would not start with
 * closing punctuation (a space's: where that is a wide one, or a closing quote) */
static int may_start(wchar_t c, int after_space)
{
    if (!after_space)
        return !bl_no_line_start(c);
    return !(c >= 0x80 && bl_no_line_start(c));
}

/* a line of code may not start at s[i] with an ASCII operator or closing mark ('-' only as
 * a binary minus, "- b" or "-=": "-x" and a command's "--option" may) */
static int code_op(const char *s, size_t n, size_t i)
{
    if (i >= n || !s[i])
        return 0;
    if (s[i] == '-')
        return i + 1 >= n || s[i + 1] == ' ' || s[i + 1] == '=' || s[i + 1] == '`';
    return strchr("=+*/%<>&|^!?:.,;)]}", s[i]) != NULL;
}

/* an operator of one or two characters standing alone at s[i] ("= 0", "^ r", "<< 3"): the
 * line may not start with it */
static int alone_op(const char *s, size_t n, size_t i)
{
    size_t j = i;
    while (j < n && j < i + 2 && s[j] && strchr("=+*/%<>^&|!", s[j]))
        j++;
    return j > i && (j == n || !s[j] || s[j] == ' ');
}

/* the columns of the code span whose text starts at s[i] (after its opening backtick) */
static int span_width(const char *s, size_t n, size_t i)
{
    size_t j = i;
    while (j < n && s[j] && s[j] != '`' && s[j] != '\n')
        j++;
    return bl_width_n(s + i, j - i);
}

size_t bl_wrap(const char *s, size_t n, int width, int ticks, size_t *next, int *cut)
{
    int cols = 0;
    size_t i = 0, fit1 = 0;   /* fit1: where a cut word ends, leaving a column for its mark */
    size_t at = 0, nx = 0;    /* the best break so far: the line ends at `at`, the next at nx */
    int have = 0;
    wchar_t prev = 0;
    int wlen = 0;             /* characters since the last space */
    /* inside a code span: whole, it fits on a line and is never split; depth, its brackets */
    int code = (ticks & BL_WRAP_IN_CODE & ~BL_WRAP_TICKS) != 0, whole = 0, depth = 0;
    *cut = 0;
    if (width < 1)
        width = 1;
    if (code)
        whole = span_width(s, n, 0) <= width;
    while (i < n && s[i]) {
        if (s[i] == '\n') {
            *next = i + 1;
            return i;
        }
        if (s[i] == '`' && ticks) {
            int shown = (ticks & BL_WRAP_SHOWN) != 0;   /* then the backticks take a column */
            code = !code;
            if (code)
                whole = span_width(s, n, i + 1) + 2 * shown <= width, depth = 0;
            if (!shown) {
                i++;
                continue;
            }
        }
        wchar_t wc;
        int w;
        size_t k = bl_char(s + i, n - i, &wc, &w);
        if (code) {
            /* code breaks only at a space outside brackets, never before an operator, and
             * not at all in a span that fits on one line */
            if (wc == L' ' && !whole && depth == 0 && i > 0 && prev != L' ' && i + 1 < n &&
                s[i + 1] != ' ' && s[i + 1] != '`' && !code_op(s, n, i + 1))
                at = i, nx = i + 1, have = 1;
        } else {
            /* a mark standing alone ("* broadcast", "· idle") stays with the word after it,
             * and an operator standing alone ("x = 0", "p / P") with the word before it */
            int mark = wc == L' ' && wlen == 1 && !iswalnum((wint_t)prev);
            if (wc == L' ' && alone_op(s, n, i + 1))
                mark = 1;
            if (wc == L' ' && !mark && i > 0 && may_start(char_at(s, n, i + 1, ticks), 1) &&
                !bl_no_line_end(prev)) {
                at = i, nx = i + 1, have = 1;                  /* at a space */
            } else if (w == 2 && i > 0 && !bl_no_line_start(wc) && !bl_no_line_end(prev) &&
                       prev != L' ') {
                at = i, nx = i, have = 1;                      /* before a wide character */
            }
        }
        wlen = wc == L' ' ? 0 : wlen + 1;
        if (cols + w > width && wc != L' ') {
            if (have) {
                *next = nx;
                return at;
            }
            /* one word wider than the line: cut it, the drawing marks the cut */
            size_t c = width > 1 && fit1 > 0 ? fit1 : (i > 0 ? i : k);
            *cut = c < n && s[c] && s[c] != ' ';
            *next = c;
            return c;
        }
        cols += w;
        i += k;
        if (cols <= width - 1)
            fit1 = i;
        if (code) {
            if (wc == L'(' || wc == L'[' || wc == L'{')
                depth++;
            else if ((wc == L')' || wc == L']' || wc == L'}') && depth > 0)
                depth--;
        } else if (((w == 2 && !bl_no_line_end(wc)) || (w == 1 && break_after(s, i - 1, n))) &&
                   may_start(char_at(s, n, i, ticks), 0) && char_at(s, n, i, ticks) != L' ') {
            /* after a wide character, or a list's comma, unless what follows may not start */
            at = i, nx = i, have = 1;
        }
        prev = wc;
    }
    *next = i;
    return i;
}

/* the ASCII stand-in of code point u, or NULL */
static const char *ascii_for(unsigned u)
{
    static const struct {
        unsigned u;
        const char *a;
    } t[] = {{0x00b7, "*"}, {0x00d7, "x"},  {0x2212, "-"},  {0x2013, "-"},   {0x2014, "-"},
             {0x2192, "->"}, {0x2190, "<-"}, {0x2264, "<="}, {0x2265, ">="}, {0x2248, "~"},
             {0x2260, "!="}, {0x2261, "=="}, {0x2026, "..."}, {0x00b1, "+-"}, {0x2018, "'"},
             {0x2019, "'"},  {0x201c, "\""}, {0x201d, "\""}, {0x00a0, " "}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (t[i].u == u)
            return t[i].a;
    return NULL;
}

size_t bl_ascii(char *dst, size_t size, const char *s, size_t n)
{
    size_t o = 0, i = 0;
    if (!size)
        return 0;
    while (i < n && s[i] && o + 1 < size) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x80) {
            dst[o++] = (char)c;
            i++;
            continue;
        }
        size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
        unsigned u = len == 4 ? c & 0x07u : len == 3 ? c & 0x0fu : c & 0x1fu;
        size_t k = 1;
        for (; k < len && i + k < n && ((unsigned char)s[i + k] & 0xc0) == 0x80; k++)
            u = u << 6 | ((unsigned char)s[i + k] & 0x3fu);
        const char *a = k == len && len > 1 ? ascii_for(u) : NULL;
        if (!a || strlen(a) > k)
            a = "?";
        size_t al = strlen(a);
        if (o + al >= size)
            break;
        memcpy(dst + o, a, al);
        o += al;
        i += k;
    }
    dst[o] = 0;
    return o;
}
