/* utf8.c: UTF-8 validity, control characters and escaped copies of outside text (utf8.h).
 * libc only. */
#include "utf8.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The length (1..4) of the valid UTF-8 sequence at u (n bytes left), its code point in *cp;
 * 0 when the bytes there are not valid UTF-8. */
static size_t decode(const unsigned char *u, size_t n, unsigned *cp)
{
    unsigned c = u[0];
    size_t k;
    unsigned v;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF) {
        k = 1;
        v = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        k = 2;
        v = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        k = 3;
        v = c & 0x07;
    } else {
        return 0;
    }
    if (k >= n)
        return 0;
    for (size_t j = 1; j <= k; j++) {
        if ((u[j] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (u[j] & 0x3F);
    }
    if ((k == 2 && v < 0x800) || (k == 3 && (v < 0x10000 || v > 0x10FFFF)) ||
        (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return k + 1;
}

/* The bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069): they
 * reorder the text around them on the screen (a name or a line that reads otherwise than it
 * is), so they count as control characters with C0, DEL and C1. */
static int is_bidi(unsigned cp)
{
    return (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

static int is_control(unsigned cp)
{
    return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) || is_bidi(cp);
}

size_t bl_utf8_bad(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        unsigned cp;
        size_t k = u[i] ? decode(u + i, n - i, &cp) : 0;
        if (!k)
            return i;
        i += k;
    }
    return SIZE_MAX;
}

size_t bl_utf8_control(const char *s, const char *allow, unsigned *cp)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        unsigned c = 0;
        size_t k = decode(u + i, n - i, &c);
        if (!k) {  /* not UTF-8: not a control character; the caller checks validity */
            i++;
            continue;
        }
        if (is_control(c) && !(c < 0x80 && allow && strchr(allow, (int)c))) {
            if (cp)
                *cp = c;
            return i;
        }
        i += k;
    }
    return SIZE_MAX;
}

/* The copy behind bl_clean (fix 0), bl_clean_lines (fix 0, nl 1) and bl_utf8_fix (fix 1):
 * each character copied, or its stand-in when it is not valid UTF-8 or a control character. */
static char *copy_safe(char *dst, size_t n, const char *s, int fix, int nl)
{
    if (!dst || !n)
        return dst;
    const unsigned char *u = (const unsigned char *)(s ? s : "");
    size_t len = strlen((const char *)u), o = 0;
    for (size_t i = 0; i < len;) {
        unsigned cp = 0;
        size_t k = decode(u + i, len - i, &cp);
        char esc[16];
        const char *piece = (const char *)u + i;
        size_t plen = k;
        if (!k && fix) {
            piece = "\xEF\xBF\xBD";  /* U+FFFD, the replacement character */
            plen = 3;
            k = 1;
        } else if (nl && cp == '\n') {
            /* kept as it is */
        } else if (!k || cp < 0x20 || cp == 0x7F) {
            if (fix && k) {      /* a control character: a space (\n stays) */
                piece = cp == '\n' ? "\n" : " ";
                plen = 1;
            } else {
                snprintf(esc, sizeof esc, "\\x%02x", u[i]);
                piece = esc;
                plen = 4;
                k = 1;
            }
        } else if ((cp >= 0x80 && cp <= 0x9F) || is_bidi(cp)) {
            if (fix)
                snprintf(esc, sizeof esc, " ");
            else
                snprintf(esc, sizeof esc, "\\u%04x", cp);
            piece = esc;
            plen = strlen(esc);
        }
        if (o + plen >= n)
            break;
        memcpy(dst + o, piece, plen);
        o += plen;
        i += k;
    }
    dst[o] = 0;
    return dst;
}

char *bl_clean(char *dst, size_t n, const char *s)
{
    return copy_safe(dst, n, s, 0, 0);
}

char *bl_clean_lines(char *dst, size_t n, const char *s)
{
    return copy_safe(dst, n, s, 0, 1);
}

char *bl_utf8_fix(char *dst, size_t n, const char *s)
{
    return copy_safe(dst, n, s, 1, 0);
}

size_t bl_clean_size(const char *s)
{
    return (s ? strlen(s) : 0) * 4 + 1;
}

char *bl_mask(char *s, size_t n)
{
    unsigned char *u = (unsigned char *)s;
    for (size_t i = 0; i < n;) {
        unsigned cp = 0;
        size_t k = u[i] ? decode(u + i, n - i, &cp) : 0;
        if (!k || is_control(cp)) {
            for (size_t j = 0; j < (k ? k : 1); j++)
                u[i + j] = '?';
            k = k ? k : 1;
        }
        i += k;
    }
    return s;
}

int bl_hex_digit(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int bl_name_same(const char *told, const char *real)
{
    char buf[4096];
    size_t n = strlen(real);
    if (!strcmp(told, real))
        return 1;
    if (n >= sizeof buf)
        return 0;
    if (!strcmp(told, bl_clean(buf, sizeof buf, real)))
        return 1;
    memcpy(buf, real, n + 1);
    return !strcmp(told, bl_mask(buf, n));
}
