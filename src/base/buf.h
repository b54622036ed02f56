/* buf.h: the one growable string of every room. Text or bytes appended to it stay
 * NUL-terminated; a buffer that cannot grow (out of memory, or past its limit) says so and
 * keeps what it held: nothing is ever cut silently. The base room: libc only.
 *
 *   struct bl_buf b = BL_BUF_INIT;        (or {0}, or bl_buf_init(&b, max))
 *   bl_buf_adds(&b, "x = ");
 *   bl_buf_addf(&b, "%d\n", x);
 *   if (b.failed) ...                     (one check after many appends is enough)
 *   char *s = bl_buf_detach(&b, &len);    (or bl_buf_release(&b))
 */
#ifndef BANKLAB_BASE_BUF_H
#define BANKLAB_BASE_BUF_H

#include <stdarg.h>
#include <stddef.h>

/* s is NULL until the first successful append (bl_buf_str gives "" then); after it, s holds
 * len bytes and a NUL after them (s[len] == 0) in cap bytes. failed is 0, or why the first
 * append refused was refused: ENOMEM (out of memory) or EFBIG (len would pass max). Once
 * failed, every later append is refused too (bl_buf_reset clears it), so a caller may append
 * many times and look once. max: the most bytes s may hold before its NUL, 0 for no limit. */
struct bl_buf {
    char *s;
    size_t len, cap;
    size_t max;
    int failed;
};

#define BL_BUF_INIT ((struct bl_buf){0})
/* BL_BUF_MAX(m): an empty buffer that refuses to hold more than m bytes. */
#define BL_BUF_MAX(m) ((struct bl_buf){.max = (m)})

/* bl_buf_init: b empty, holding nothing allocated, with the limit max (0: none). */
void bl_buf_init(struct bl_buf *b, size_t max);

/* bl_grow: the one growable array: *p (an array of elements of elem bytes, room for *cap)
 * made room for at least need elements, doubling from first (when *cap is 0); 0, or -1 when
 * out of memory (*p and *cap unchanged). p is the address of the array's pointer. */
int bl_grow(void *p, int *cap, int need, size_t elem, int first);

/* bl_buf_grow: room for extra more bytes (and the NUL) without another allocation; it grows
 * by doubling, so n appends cost O(n) in all. 0, or -1 with errno and b->failed ENOMEM or
 * EFBIG (b unchanged). */
int bl_buf_grow(struct bl_buf *b, size_t extra);

/* Appends: p[n], the string s, the byte c, or printf's output (of any length). Each returns
 * 0, or -1 with errno and b->failed set (b holds what it held before the append). */
int bl_buf_add(struct bl_buf *b, const void *p, size_t n);
int bl_buf_adds(struct bl_buf *b, const char *s);
int bl_buf_addc(struct bl_buf *b, int c);
int bl_buf_addf(struct bl_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* bl_buf_read_fd: appends what fd holds until its end (a read interrupted by a signal is
 * retried). 0, or -1 with errno: a read's error (b->failed stays 0; b holds what was read),
 * ENOMEM or EFBIG (b->failed). fd is not closed. */
int bl_buf_read_fd(struct bl_buf *b, int fd);

/* bl_buf_read_file: appends the file at path (read to its end, whatever its size says).
 * 0, or -1 with errno: from open (ENOENT: missing) or read, or ENOMEM/EFBIG as above. */
int bl_buf_read_file(struct bl_buf *b, const char *path);

/* bl_buf_str: b's text, "" when nothing was appended; never NULL. */
static inline const char *bl_buf_str(const struct bl_buf *b) { return b->s ? b->s : ""; }

/* bl_buf_detach: b's text handed to the caller (free it), NUL-terminated, "" allocated when
 * empty; *len (when len is not NULL) its length. b is left empty with its limit and failure.
 * NULL only when out of memory allocating that "". */
char *bl_buf_detach(struct bl_buf *b, size_t *len);

/* bl_buf_reset: b empty again (len 0, failed 0), keeping its memory and its limit. */
void bl_buf_reset(struct bl_buf *b);

/* bl_buf_drop: b's first n bytes removed, the rest moved to the front (a queue's consumed
 * head); n >= b->len leaves b empty. */
void bl_buf_drop(struct bl_buf *b, size_t n);

/* bl_buf_release: b's memory freed; b empty, its limit kept, failed 0. */
void bl_buf_release(struct bl_buf *b);

#endif
