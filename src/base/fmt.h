/* fmt.h: the bounded formatter every room uses for one-line texts (messages, labels, titles):
 * printf into a fixed buffer, cut where it does not fit. The base room: libc only, below the
 * model; it must not include anything of banklab. */
#ifndef BANKLAB_BASE_FMT_H
#define BANKLAB_BASE_FMT_H

#include <stdarg.h>
#include <stddef.h>

/* bl_fmt: printf into dst (n bytes). Text that does not fit is cut: that is intended, every
 * caller writes one bounded line. dst is always NUL-terminated when n > 0; nothing is written
 * when dst is NULL or n is 0. Returns the length written (strlen(dst), less than n; 0 when
 * nothing was written or the format failed). */
size_t bl_fmt(char *dst, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* bl_vfmt: bl_fmt with a va_list (for error helpers that take a format). ap is consumed. */
size_t bl_vfmt(char *dst, size_t n, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/* bl_failmsg: the error convention of every room for code that stops at its first problem (the
 * JSON scanner, recordings, progress): when msg is still empty (msg[0] == 0) the failure is
 * formatted into it (bl_vfmt); a later call keeps the first. Returns -1, so a failing function
 * can end with `return bl_failmsg(...)`. Nothing is written into a NULL or 0-sized msg. A room
 * whose error carries more than a line keeps the convention under the same suffix: pat_fail
 * (the pattern language: place and lane), res_fail and kres_fail (the runner's results: a
 * status). The lesson loader and checker go on past a problem and report each one instead
 * (lesson_problem). */
int bl_failmsg(char *msg, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
