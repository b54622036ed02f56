/* fmt.c: the bounded formatter (fmt.h). libc only: no
 * banklab header but its own. */
#include "fmt.h"

#include <stdio.h>
#include <string.h>

size_t bl_vfmt(char *dst, size_t n, const char *fmt, va_list ap)
{
    if (!dst || n == 0)
        return 0;
    int k = vsnprintf(dst, n, fmt ? fmt : "", ap);
    if (k < 0) {
        dst[0] = 0;
        return 0;
    }
    return (size_t)k < n ? (size_t)k : n - 1;
}

size_t bl_fmt(char *dst, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t k = bl_vfmt(dst, n, fmt, ap);
    va_end(ap);
    return k;
}
