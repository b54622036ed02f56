/* fmt.h: the bounded formatter every room uses for one-line texts (messages, labels, titles):
 * printf into a fixed buffer, cut where it does not fit (a failure is a struct bl_err: err.h).
 * The base room: libc only, below the model; it must not include anything of banklab. */
#ifndef BANKLAB_BASE_FMT_H
#define BANKLAB_BASE_FMT_H

#include <stdarg.h>
#include <stddef.h>

/* bl_fmt: printf into dst (n bytes). Text that does not fit is cut: that is intended, every
 * caller writes one bounded line. dst is always NUL-terminated when n > 0; nothing is written
 * when dst is NULL or n is 0. Returns the length written (strlen(dst), less than n; 0 when
 * nothing was written or the format failed). */
size_t bl_fmt(char *dst, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* bl_vfmt: bl_fmt with a va_list. ap is consumed. */
size_t bl_vfmt(char *dst, size_t n, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

#endif
