/* fmt_test.h: for the unit tests that hold two languages of a message to the same printf
 * conversions (test_msg.c, test_ui_strings.c). */
#ifndef BANKLAB_TEST_FMT_TEST_H
#define BANKLAB_TEST_FMT_TEST_H

#include <stddef.h>
#include <string.h>

/* the conversions of a printf format, e.g. "%d %s %lld %.*s" -> "d s lld *s"; a format with
 * positions (%2$s %1$d) gives them in the order of the positions ("d s"), its %M (a nested
 * message) as M */
static void conversions(const char *f, char *out, size_t size)
{
    char conv[16][12];
    int n = 0;
    for (int i = 0; i < 16; i++)
        memcpy(conv[i], "?", 2);          /* a position no conversion takes */
    size_t o = 0;
    out[0] = 0;
    for (const char *p = f; *p && n < 16; p++) {
        if (*p != '%')
            continue;
        p++;
        if (*p == '%')
            continue;
        int at = n, pos = 0;
        const char *d = p;
        while (*d >= '0' && *d <= '9')
            pos = pos * 10 + (*d++ - '0');
        if (*d == '$' && pos >= 1 && pos <= 16) {
            at = pos - 1;
            p = d + 1;
        }
        char c[12];
        size_t k = 0;
        while (*p && strchr("-+ #0123456789.*", *p)) {
            if (*p == '*' && k < 4)
                c[k++] = '*';
            p++;
        }
        while (*p && strchr("hlLqjzt", *p) && k < 8)
            c[k++] = *p++;
        if (!*p)
            break;
        c[k++] = *p;
        c[k] = 0;
        memcpy(conv[at], c, k + 1);
        n = at + 1 > n ? at + 1 : n;
    }
    for (int i = 0; i < n && o < size; i++)
        o += (size_t)snprintf(out + o, size - o, "%s ", conv[i]);
}

#endif
