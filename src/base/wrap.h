/* wrap.h: text measured in display columns (mbrtowc + wcwidth: CJK is two columns; the
 * caller's LC_CTYPE must be UTF-8) and wrapped into lines with the Chinese line-breaking
 * rules: closing punctuation (full-width comma, full stop, closing brackets and quotes ...:
 * the lexicon's NO_LINE_START) never starts a line and opening punctuation (NO_LINE_END)
 * never ends one. One wrapper for the screen (src/ui/text.c), the lab's line prompt and the
 * reports. The base room: libc only. */
#ifndef BANKLAB_BASE_WRAP_H
#define BANKLAB_BASE_WRAP_H

#include <stddef.h>
#include <wchar.h>

/* bl_char: the character at s (n bytes left) into *wc and its columns into *w; returns the
 * bytes it takes (an invalid byte: 1 byte, 1 column, '?'). */
size_t bl_char(const char *s, size_t n, wchar_t *wc, int *w);

/* bl_width_n: the display columns of s[0..n) (stops at a NUL). */
int bl_width_n(const char *s, size_t n);

/* bl_cols: the display columns of the UTF-8 text s without the locale (output written under
 * LANG=C is measured the same): East Asian wide and full-width characters (CJK, kana, hangul,
 * full-width punctuation) take 2, any other character 1, a byte that starts no character
 * (invalid or a lone continuation) 0. For tables and columns of the text reports. */
int bl_cols(const char *s);

/* bl_cols_at: the columns of the character starting at s (2, 1, or 0 for a byte inside a
 * character); *len, when not NULL, its bytes. */
int bl_cols_at(const char *s, size_t *len);


/* bl_wrap: the next line of s[0..n) at width columns: returns its byte length and *next where
 * the line after it starts. Breaks at spaces, between wide characters and after the commas
 * of a list written without spaces, never inside a word that fits, never so that a line
 * starts with closing or ends with opening punctuation, never next to an ASCII operator
 * standing alone ("x = 0", "p / P", "c ^ r", "1 << B" stay whole); a '\n' ends a line. With ticks
 * (BL_WRAP_TICKS), backticks are zero-width marks of lesson text's `code`: a code span that
 * fits on a line is never split (the line breaks before it); a longer one breaks only at a
 * space outside brackets and never so that a line starts with an operator (= + - * / % < >
 * & | ^ ! ? : . , ; and closing brackets); wide characters and commas are no breaks in code.
 * BL_WRAP_IN_CODE: s starts inside a code span (the text before it opened one). *cut = 1
 * when a word (or code with no break allowed) wider than the line had to be cut. */
#define BL_WRAP_TICKS 1
#define BL_WRAP_IN_CODE 3        /* implies BL_WRAP_TICKS */
#define BL_WRAP_SHOWN 4          /* with BL_WRAP_TICKS: the backticks are printed (a line
                                  * terminal's `code`), one column each */
size_t bl_wrap(const char *s, size_t n, int width, int ticks, size_t *next, int *cut);

/* bl_ascii: s[0..n) (UTF-8, decoded without the locale) into dst (size bytes, always
 * terminated) for a terminal that cannot show UTF-8: ASCII as it is, the lessons' own
 * symbols as ASCII stand-ins (· as *, × as x, − and – and — as -, → as ->, ≤ as <=, ≥ as >=,
 * ≈ as ~, ≠ as !=, ≡ as ==, … as ..., ± as +-, curly quotes as straight ones), any other
 * character as '?'. Never longer than s: a line measured in bytes still fits. Returns the
 * bytes written. */
size_t bl_ascii(char *dst, size_t size, const char *s, size_t n);

#endif
