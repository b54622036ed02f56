/* text.c: UTF-8 text measured in display columns (mbrtowc + wcwidth: CJK is two columns),
 * word wrapping that also breaks between wide characters, and clipped drawing. No allocation.
 * Backticks in lesson text mark `code`: zero width, drawn as an attribute change. */
#include <string.h>
#include <wchar.h>

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

size_t text_line(const char *s, size_t n, int width, size_t *next)
{
    int cols = 0;
    size_t i = 0, brk = 0, brk_next = 0, pbrk = 0, pbrk_next = 0;
    int have_brk = 0, have_pbrk = 0;
    wchar_t prev = 0;
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
        if (wc == L' ' || (w == 2 && !no_line_start(wc) && !no_line_end(prev))) {
            if (have_brk && brk != i) {      /* keep the one before, for closing punctuation */
                pbrk = brk;
                pbrk_next = brk_next;
                have_pbrk = 1;
            }
            brk = i;                         /* at a space, or before a wide character */
            brk_next = wc == L' ' ? i + 1 : i;
            have_brk = wc == L' ' || i > 0;
        }
        if (cols + w > width && wc != L' ') {
            /* a break right before closing punctuation would start a line with it: take the
             * break before that one */
            if (have_brk && brk == i && brk_next == i && no_line_start(wc)) {
                brk = pbrk;
                brk_next = pbrk_next;
                have_brk = have_pbrk && pbrk > 0;
            }
            if (have_brk) {
                *next = brk_next;
                return brk;
            }
            *next = i > 0 ? i : k;
            return i > 0 ? i : k;
        }
        cols += w;
        i += k;
        if (w == 2 && !no_line_end(wc)) {    /* and after it */
            if (have_brk && brk != i) {
                pbrk = brk;
                pbrk_next = brk_next;
                have_pbrk = 1;
            }
            brk = i;
            brk_next = i;
            have_brk = 1;
        }
        prev = wc;
    }
    *next = i;
    return i;
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
    return text_put(a, y, x, maxcols, s, strlen(s), at, 0);
}

int text_draw(const struct app *a, int y, int x, int w, int h, const char *s, int skip,
              attr_t at)
{
    size_t n = strlen(s), pos = 0;
    int line = 0, drawn = 0;
    int code = 0;   /* a code span may continue over a line break */
    while (pos < n && drawn < h) {
        size_t nx;
        size_t len = text_line(s + pos, n - pos, w, &nx);
        if (line >= skip) {
            if (code) {
                /* reopen the span: draw the line as if it started with a backtick */
                int cols = 0;
                size_t i = 0;
                while (i < len && s[pos + i] != '`')
                    i++;
                int c;
                size_t k = text_fit(s + pos, i, w, &c);
                attrset(theme_attr(a, UIC_TEXTCODE));
                mvaddnstr(y + drawn, x, s + pos, (int)k);
                attrset(A_NORMAL);
                cols = c;
                if (i < len)
                    text_put(a, y + drawn, x + cols, w - cols, s + pos + i + 1, len - i - 1, at,
                             1);
            } else {
                text_put(a, y + drawn, x, w, s + pos, len, at, 1);
            }
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

void text_fill(int y, int x, int w, attr_t at)
{
    attrset(at);
    mvhline(y, x, ' ', w);
    attrset(A_NORMAL);
}
