/* utf8.h: text that came from outside (lesson files, recordings, progress, arguments, file
 * names) checked or made safe before it reaches a terminal or a file: UTF-8 validity, control
 * characters, and an escaped copy for output. The base room: libc only, below the model; it
 * must not include anything of banklab. */
#ifndef BANKLAB_BASE_UTF8_H
#define BANKLAB_BASE_UTF8_H

#include <stddef.h>

/* bl_utf8_bad: the offset of the first byte of s[0..n) that is not part of a valid UTF-8
 * sequence (overlong forms, surrogates and code points past U+10FFFF count as invalid), or of
 * the first NUL byte; SIZE_MAX when the whole text is valid. */
size_t bl_utf8_bad(const char *s, size_t n);

/* bl_utf8_control: the offset in the NUL-terminated UTF-8 text s of the first control
 * character: C0 (U+0000..U+001F) unless its byte is in allow (e.g. "\n"), DEL (U+007F) or C1
 * (U+0080..U+009F), the characters that move the cursor or start a terminal's escape
 * sequence, and the bidirectional embeddings, overrides and isolates (U+202A..U+202E,
 * U+2066..U+2069), which make text show in another order than it is. *cp (if not NULL) receives its code point. SIZE_MAX when there is none. */
size_t bl_utf8_control(const char *s, const char *allow, unsigned *cp);

/* bl_hex_digit: the value of hexadecimal digit c (0-9, a-f, A-F), or -1 for any other byte.
 * (The pattern lexer's literals and the JSON scanner's \uXXXX both read digits with it.) */
int bl_hex_digit(int c);

/* bl_clean: s (NUL-terminated, any bytes) into dst (n bytes) for printing: control characters
 * as defined above and bytes that are not valid UTF-8 are written as \xNN (C1 characters as
 * \u0080..\u009F, bidirectional controls as \u202a..\u2069), a backslash stays a
 * backslash; the rest is copied. The copy is cut at a
 * character boundary when it does not fit; dst is always NUL-terminated when n > 0.
 * Returns dst. */
char *bl_clean(char *dst, size_t n, const char *s);

/* bl_clean_lines: bl_clean, but a newline stays a newline (a compiler's log of many lines). */
char *bl_clean_lines(char *dst, size_t n, const char *s);

/* bl_clean_size: a buffer size that holds bl_clean(s) or bl_clean_lines(s) uncut. */
size_t bl_clean_size(const char *s);

/* bl_mask: the n bytes at s in place, each byte of a control character (as above) or of a
 * sequence that is not valid UTF-8 (or a NUL) turned into '?': text shown with a caret under
 * a byte offset keeps its offsets. Returns s. */
char *bl_mask(char *s, size_t n);

/* bl_name_same: 1 when told, a tool's name for a file (a compiler's line table, CUPTI), names
 * the file whose bytes are real: real itself, its escaped copy (bl_clean: what NVRTC was told)
 * or its masked copy (bl_mask: nvcc writes each byte of a name that is not UTF-8 as '?'). */
int bl_name_same(const char *told, const char *real);

/* bl_utf8_fix: s (NUL-terminated) into dst (n bytes) with each byte that is not valid UTF-8
 * replaced by U+FFFD and each control character but \n by a space: text for a file that must
 * be valid UTF-8 (a JSON or Markdown report). Cut at a character boundary; returns dst. */
char *bl_utf8_fix(char *dst, size_t n, const char *s);

#endif
