/* text.c: UTF-8 text measured in display columns (mbrtowc + wcwidth: CJK is two columns),
 * word wrapping that also breaks between wide characters and after the commas of a code list
 * (never inside a name), and drawing that never cuts silently: a line cut short ends in an
 * ellipsis. No allocation. Backticks in lesson text mark `code`: zero width, drawn as an
 * attribute change. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>

#include "../base/utf8.h"
#include "../base/wrap.h"
#include "app.h"

int text_width(const char *s)
{
    return bl_width_n(s, strlen(s));
}

size_t text_fit(const char *s, size_t n, int maxcols, int *cols)
{
    int c = 0;
    size_t i = 0;
    while (i < n && s[i]) {
        wchar_t wc;
        int w;
        size_t k = bl_char(s + i, n - i, &wc, &w);
        if (c + w > maxcols)
            break;
        c += w;
        i += k;
    }
    if (cols)
        *cols = c;
    return i;
}

size_t text_line(const char *s, size_t n, int width, size_t *next)
{
    int cut;
    return bl_wrap(s, n, width, BL_WRAP_TICKS, next, &cut);
}

/* 1 when s[0..len) opens or closes an odd number of code spans */
static int ticks_odd(const char *s, size_t len)
{
    int odd = 0;
    for (size_t i = 0; i < len; i++)
        odd ^= s[i] == '`';
    return odd;
}

/* a code span continued over a line break: the line after the break is indented by this
 * much, so that the rest of a wrapped code line never reads as a statement of its own */
#define CODE_INDENT 4
static int code_indent(int code, int width)
{
    return code && width >= 10 * CODE_INDENT ? CODE_INDENT : 0;   /* not in a narrow column */
}

int text_count(const char *s, int width)
{
    size_t n = strlen(s), pos = 0;
    int lines = 0, code = 0;   /* a code span may continue over a line break */
    while (pos < n) {
        size_t nx;
        int cut, in = code_indent(code, width);
        size_t len = bl_wrap(s + pos, n - pos, width - in,
                             code ? BL_WRAP_IN_CODE : BL_WRAP_TICKS, &nx, &cut);
        code ^= ticks_odd(s + pos, len);
        pos += nx;
        lines++;
        if (nx == 0)
            break;
    }
    return lines;
}

/* draw s (n bytes, clipped to maxcols) at y,x; returns columns used. rich: backticks toggle
 * UIC_TEXTCODE and are not drawn. */
static int text_put(const struct app *a, int y, int x, int maxcols, const char *s, size_t n,
                    attr_t at, int rich)
{
    int cols = 0;
    size_t i = 0;
    int code = 0;
    move(y, x);
    while (i < n && s[i] && cols < maxcols) {
        if (rich && s[i] == '`') {
            code = !code;
            i++;
            continue;
        }
        /* the longest run up to the next backtick or newline */
        size_t j = i;
        while (j < n && s[j] && s[j] != '\n' && !(rich && s[j] == '`'))
            j++;
        int c;
        size_t k = text_fit(s + i, j - i, maxcols - cols, &c);
        if (k == 0)
            break;
        attrset(code ? theme_attr(a, UIC_TEXTCODE) : at);
        if (a->utf8) {
            addnstr(s + i, (int)k);
            cols += c;
        } else {   /* no UTF-8: the text's · × − → as * x - -> (bl_ascii), never vanishing */
            char plain[1024];
            size_t m = bl_ascii(plain, sizeof plain, s + i, k < sizeof plain ? k : sizeof plain - 1);
            addnstr(plain, (int)m);
            cols += (int)m;
        }
        i += k;
        if (i < j)
            break;
        if (i < n && s[i] == '\n')
            break;
    }
    attrset(A_NORMAL);
    return cols;
}

int text_puts(const struct app *a, int y, int x, int maxcols, const char *s, attr_t at)
{
    if (maxcols < 1)
        return 0;
    if (text_width(s) <= maxcols)
        return text_put(a, y, x, maxcols, s, strlen(s), at, 0);
    int ew = text_width(a->g->ellipsis);
    if (ew >= maxcols)
        return text_put(a, y, x, maxcols, s, strlen(s), at, 0);
    int cols;
    size_t k = text_fit(s, strlen(s), maxcols - ew, &cols);
    while (k > 0 && s[k - 1] == ' ')    /* "word …", not "word …" with the space kept */
        k--, cols--;
    text_put(a, y, x, cols, s, k, at, 0);
    attrset(at);
    mvaddstr(y, x + cols, a->g->ellipsis);
    attrset(A_NORMAL);
    return cols + ew;
}

const char *text_clip(const char *s, int cols, const char *ell, char *buf, size_t size)
{
    if (!size)
        return buf;
    if (text_width(s) <= cols) {
        snprintf(buf, size, "%s", s);
        return buf;
    }
    int c, ew = text_width(ell);
    size_t k = text_fit(s, strlen(s), cols > ew ? cols - ew : 0, &c);
    while (k > 0 && s[k - 1] == ' ')
        k--;
    snprintf(buf, size, "%.*s%s", (int)k, s, ell);
    return buf;
}

/* one wrapped line of a text_draw; code: inside a code span at its start */
static void draw_line(const struct app *a, int y, int x, int w, const char *s, size_t len,
                      int code, attr_t at)
{
    if (!code) {
        text_put(a, y, x, w, s, len, at, 1);
        return;
    }
    /* reopen the span: draw the line as if it started with a backtick */
    size_t i = 0;
    while (i < len && s[i] != '`')
        i++;
    int c;
    size_t k = text_fit(s, i, w, &c);
    attrset(theme_attr(a, UIC_TEXTCODE));
    mvaddnstr(y, x, s, (int)k);
    attrset(A_NORMAL);
    if (i < len)
        text_put(a, y, x + c, w - c, s + i + 1, len - i - 1, at, 1);
}

/* the mark at the end of a line that does not end its text: an ellipsis after the line, or
 * over its last column when it fills the width */
static void draw_mark(const struct app *a, int y, int x, int w, const char *s, size_t len,
                      attr_t at)
{
    int cols = bl_width_n(s, len);
    for (size_t i = 0; i < len; i++)
        if (s[i] == '`')
            cols--;                    /* backticks take no room */
    int ew = text_width(a->g->ellipsis);
    int mx = cols + ew <= w ? x + cols : x + w - ew;
    attrset(at);
    mvaddstr(y, mx < x ? x : mx, a->g->ellipsis);
    attrset(A_NORMAL);
}

int text_draw_ex(const struct app *a, int y, int x, int w, int h, const char *s, int skip,
                 attr_t at, int mark_more)
{
    size_t n = strlen(s), pos = 0;
    int line = 0, drawn = 0;
    int code = 0;   /* a code span may continue over a line break */
    while (pos < n && drawn < h) {
        size_t nx;
        int cut, in = code_indent(code, w);
        size_t len = bl_wrap(s + pos, n - pos, w - in, code ? BL_WRAP_IN_CODE : BL_WRAP_TICKS,
                             &nx, &cut);
        if (line >= skip) {
            draw_line(a, y + drawn, x + in, w - in, s + pos, len, code, at);
            int more = pos + nx < n && drawn + 1 == h && mark_more;
            if (cut || more)
                draw_mark(a, y + drawn, x + in, w - in, s + pos, len, at);
            drawn++;
        }
        code ^= ticks_odd(s + pos, len);
        line++;
        if (nx == 0)
            break;
        pos += nx;
    }
    return drawn;
}

int text_draw(const struct app *a, int y, int x, int w, int h, const char *s, int skip,
              attr_t at)
{
    return text_draw_ex(a, y, x, w, h, s, skip, at, 1);
}

void text_fill(int y, int x, int w, attr_t at)
{
    attrset(at);
    mvhline(y, x, ' ', w);
    attrset(A_NORMAL);
}

int ui_source_line(const char *text, size_t len, int line, const char **at, int *n)
{
    const char *p = text, *end = text + len;
    for (int l = 1; p < end; l++) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        if (l == line) {
            *at = p;
            *n = (int)(e - p) - (e > p && e[-1] == '\r');
            return 1;
        }
        p = e + 1;
    }
    return 0;
}

const char *ui_source_text(const char *s, int n, char *buf, size_t size)
{
    char line[1024];
    int o = 0, col = 0;
    for (int i = 0; i < n && o < (int)sizeof line - 9; i++) {
        if (s[i] == '\t') {
            do
                line[o++] = ' ';
            while (++col % 8 && o < (int)sizeof line - 1);
        } else {
            line[o++] = s[i];
            col++;
        }
    }
    line[o] = 0;
    return bl_clean(buf, size, line);
}
