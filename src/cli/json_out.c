/* json_out.c: JSON strings for the subcommands that print JSON themselves (cJSON stays in
 * src/store). */
#include <stdio.h>
#include <string.h>

#include "json_out.h"

/* A JSON string of at most n bytes of s: escapes quotes, backslashes and control characters
 * (C0, DEL, C1 and the bidirectional controls, as \uXXXX);
 * invalid UTF-8 (stray bytes, overlong forms, surrogates) becomes '?' so the output parses. */
void json_str_n(FILE *f, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    fputc('"', f);
    for (size_t i = 0; i < n && u[i];) {
        unsigned char c = u[i];
        int extra = c < 0x80 ? 0 : c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2
                    : c >= 0xf0 && c <= 0xf4 ? 3 : -1;
        int ok = extra >= 0;
        for (int j = 1; ok && j <= extra; j++)
            ok = i + (size_t)j < n && (u[i + j] & 0xc0) == 0x80;
        if (ok && extra >= 2) {
            unsigned char d = u[i + 1];
            ok = !(c == 0xe0 && d < 0xa0) && !(c == 0xed && d >= 0xa0) &&
                 !(c == 0xf0 && d < 0x90) && !(c == 0xf4 && d >= 0x90);
        }
        if (!ok) {
            fputc('?', f);
            i++;
            continue;
        }
        unsigned cp = extra == 1 ? (c & 0x1fu) << 6 | (u[i + 1] & 0x3fu)
                      : extra == 2 ? (c & 0xfu) << 12 | (u[i + 1] & 0x3fu) << 6 | (u[i + 2] & 0x3fu)
                                   : 0;
        if ((cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
            (cp >= 0x2066 && cp <= 0x2069)) {  /* C1 and bidi controls: escaped, same string */
            fprintf(f, "\\u%04x", cp);
            i += (size_t)extra + 1;
            continue;
        }
        if (extra) {
            fwrite(u + i, 1, (size_t)extra + 1, f);
            i += (size_t)extra + 1;
            continue;
        }
        switch (c) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (c < 0x20 || c == 0x7f)
                fprintf(f, "\\u%04x", c);
            else
                fputc(c, f);
        }
        i++;
    }
    fputc('"', f);
}

void json_str(FILE *f, const char *s)
{
    json_str_n(f, s, strlen(s));
}

