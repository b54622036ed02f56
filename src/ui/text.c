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

#include "app.h"

/* next character at s (n bytes left): bytes used, *w its columns (invalid byte: 1 byte, 1 col) */
static size_t next_char(const char *s, size_t n, wchar_t *wc, int *w)
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

int text_width_n(const char *s, size_t n)
{
    int cols = 0;
    size_t i = 0;
    while (i < n && s[i]) {
        wchar_t wc;
        int w;
        i += next_char(s + i, n - i, &wc, &w);
        cols += w;
    }
    return cols;
}

int text_width(const char *s)
{
    return text_width_n(s, strlen(s));
}

size_t text_fit(const char *s, size_t n, int maxcols, int *cols)
{
    int c = 0;
    size_t i = 0;
    while (i < n && s[i]) {
        wchar_t wc;
        int w;
        size_t k = next_char(s + i, n - i, &wc, &w);
        if (c + w > maxcols)
            break;
        c += w;
        i += k;
    }
    if (cols)
        *cols = c;
    return i;
}

/* Chinese line-breaking rules: closing punctuation never starts a line (also ASCII , . ; : ! ?
 * and ')' after a wide character), an opening bracket never ends one. */
static int no_line_start(wchar_t c)
{
    return c && wcschr(L"\uff0c\u3002\u3001\uff1b\uff1a\uff01\uff1f\uff09\u300d\u300f\u300b"
                       L"\u3011\u3009\u201d\u2019\u2026\uff05,.;:!?)", c) != NULL;
}

static int no_line_end(wchar_t c)
{
    return c && wcschr(L"\uff08\u300c\u300e\u300a\u3010\u3008\u201c\u2018", c) != NULL;
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

/* the wrapping state of one line: the best break so far and the one before it */
struct brk {
    size_t at, next;          /* the line ends at `at`; the next one starts at `next` */
    int have;
};

static void brk_set(struct brk *b, struct brk *prev, size_t at, size_t next, int have)
{
    if (b->have && b->at != at)
        *prev = *b;           /* keep the one before, for closing punctuation */
    b->at = at;
    b->next = next;
    b->have = have;
}

size_t text_wrap(const char *s, size_t n, int width, size_t *next, int *cut)
{
    int cols = 0;
    size_t i = 0, fit1 = 0;   /* fit1: where a cut word ends, leaving a column for its mark */
    struct brk b = {0, 0, 0}, pb = {0, 0, 0};
    wchar_t prev = 0;
    int wlen = 0;             /* characters since the last space */
    *cut = 0;
    if (width < 1)
        width = 1;
    while (i < n && s[i]) {
        if (s[i] == '\n') {
            *next = i + 1;
            return i;
        }
        if (s[i] == '`') {
            i++;
            continue;
        }
        wchar_t wc;
        int w;
        size_t k = next_char(s + i, n - i, &wc, &w);
        /* a mark standing alone ("* broadcast", "· idle") stays with the word after it */
        int mark = wc == L' ' && wlen == 1 && !iswalnum((wint_t)prev);
        if ((wc == L' ' && !mark) || (w == 2 && !no_line_start(wc) && !no_line_end(prev)))
            brk_set(&b, &pb, i, wc == L' ' ? i + 1 : i, wc == L' ' || i > 0);  /* before it */
        wlen = wc == L' ' ? 0 : wlen + 1;
        if (cols + w > width && wc != L' ') {
            /* a break right before closing punctuation would start a line with it: take the
             * break before that one */
            if (b.have && b.at == i && b.next == i && no_line_start(wc)) {
                b = pb;
                b.have = pb.have && pb.at > 0;
            }
            if (b.have) {
                *next = b.next;
                return b.at;
            }
            /* one word wider than the line: cut it, the drawing marks the cut */
            size_t at = width > 1 && fit1 > 0 ? fit1 : (i > 0 ? i : k);
            *cut = at < n && s[at] && s[at] != ' ';
            *next = at;
            return at;
        }
        cols += w;
        i += k;
        if (cols <= width - 1)
            fit1 = i;
        if ((w == 2 && !no_line_end(wc)) || (w == 1 && break_after(s, i - 1, n)))
            brk_set(&b, &pb, i, i, 1);       /* and after it */
        prev = wc;
    }
    *next = i;
    return i;
}

size_t text_line(const char *s, size_t n, int width, size_t *next)
{
    int cut;
    return text_wrap(s, n, width, next, &cut);
}

int text_count(const char *s, int width)
{
    size_t n = strlen(s), pos = 0;
    int lines = 0;
    while (pos < n) {
        size_t nx;
        text_line(s + pos, n - pos, width, &nx);
        pos += nx;
        lines++;
        if (nx == 0)
            break;
    }
    return lines;
}

int text_put(const struct app *a, int y, int x, int maxcols, const char *s, size_t n,
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
        addnstr(s + i, (int)k);
        cols += c;
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
    int cols = text_width_n(s, len);
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
        int cut;
        size_t len = text_wrap(s + pos, n - pos, w, &nx, &cut);
        if (line >= skip) {
            draw_line(a, y + drawn, x, w, s + pos, len, code, at);
            int more = pos + nx < n && drawn + 1 == h && mark_more;
            if (cut || more)
                draw_mark(a, y + drawn, x, w, s + pos, len, at);
            drawn++;
        }
        for (size_t i = 0; i < len; i++)
            if (s[pos + i] == '`')
                code = !code;
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
