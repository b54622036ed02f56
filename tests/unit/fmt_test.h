/* fmt_test.h: for the unit tests that hold two languages of a message to the same printf
 * conversions (test_msg.c, test_ui_strings.c). */
#ifndef BANKLAB_TEST_FMT_TEST_H
#define BANKLAB_TEST_FMT_TEST_H

#include <stddef.h>
#include <string.h>

/* the conversions of a printf format, e.g. "%d %s %lld %.*s" -> "d s lld *s" */
static void conversions(const char *f, char *out, size_t size)
{
    size_t o = 0;
    out[0] = 0;
    for (const char *p = f; *p; p++) {
        if (*p != '%')
            continue;
        p++;
        if (*p == '%')
            continue;
        char conv[12];
        size_t k = 0;
        while (*p && strchr("-+ #0123456789.*", *p)) {
            if (*p == '*' && k < 4)
                conv[k++] = '*';
            p++;
        }
        while (*p && strchr("hlLqjzt", *p) && k < 8)
            conv[k++] = *p++;
        if (!*p)
            break;
        conv[k++] = *p;
        conv[k] = 0;
        o += (size_t)snprintf(out + o, size - o, "%s ", conv);
        if (o >= size)
            break;
    }
}

#endif
