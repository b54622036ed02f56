/* buf.c: the growable string (buf.h). libc only: no banklab header but its own. */
#include "buf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUF_FIRST 64 /* bytes of the first allocation */

void bl_buf_init(struct bl_buf *b, size_t max)
{
    *b = BL_BUF_MAX(max);
}

static int refuse(struct bl_buf *b, int e)
{
    if (!b->failed)
        b->failed = e;
    errno = e;
    return -1;
}

int bl_grow(void *p, int *cap, int need, size_t elem, int first)
{
    if (need <= *cap)
        return 0;
    int n = *cap > 0 ? *cap : first > 0 ? first : 1;
    while (n < need && n <= INT_MAX / 2)
        n *= 2;
    if (n < need || (size_t)n > SIZE_MAX / elem)
        return -1;
    void *q = realloc(*(void **)p, (size_t)n * elem);
    if (!q)
        return -1;
    *(void **)p = q;
    *cap = n;
    return 0;
}

int bl_buf_grow(struct bl_buf *b, size_t extra)
{
    if (b->failed)
        return refuse(b, b->failed);
    size_t limit = b->max ? b->max : SIZE_MAX - 1;
    if (extra > limit || b->len > limit - extra)
        return refuse(b, b->max ? EFBIG : ENOMEM);
    size_t need = b->len + extra + 1;   /* the NUL too */
    if (need <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : BUF_FIRST;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    char *s = realloc(b->s, cap);
    if (!s)
        return refuse(b, ENOMEM);
    if (!b->s)
        s[0] = '\0';
    b->s = s;
    b->cap = cap;
    return 0;
}

int bl_buf_add(struct bl_buf *b, const void *p, size_t n)
{
    if (bl_buf_grow(b, n))
        return -1;
    if (n)
        memmove(b->s + b->len, p, n);   /* p may lie in b itself: grow kept it */
    b->len += n;
    b->s[b->len] = '\0';
    return 0;
}

int bl_buf_adds(struct bl_buf *b, const char *s)
{
    return bl_buf_add(b, s, strlen(s));
}

int bl_buf_addc(struct bl_buf *b, int c)
{
    char ch = (char)c;
    return bl_buf_add(b, &ch, 1);
}

__attribute__((format(printf, 2, 0)))
static int bl_buf_vaddf(struct bl_buf *b, const char *fmt, va_list ap)
{
    if (bl_buf_grow(b, 0))
        return -1;
    va_list again;
    va_copy(again, ap);
    size_t room = b->cap - b->len;
    int n = vsnprintf(b->s + b->len, room, fmt, ap);
    char first = b->s[b->len];
    b->s[b->len] = '\0';   /* appended only once it is known to be allowed */
    if (n < 0) {            /* a conversion failed: nothing appended */
        va_end(again);
        errno = EINVAL;
        return -1;
    }
    if (bl_buf_grow(b, (size_t)n)) {   /* past the limit, or out of memory */
        va_end(again);
        return -1;
    }
    if ((size_t)n < room)   /* it fitted the first time: no grow moved it */
        b->s[b->len] = first;
    else
        vsnprintf(b->s + b->len, b->cap - b->len, fmt, again);
    va_end(again);
    b->len += (size_t)n;
    return 0;
}

int bl_buf_addf(struct bl_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = bl_buf_vaddf(b, fmt, ap);
    va_end(ap);
    return rc;
}

int bl_buf_read_fd(struct bl_buf *b, int fd)
{
    size_t limit = b->max ? b->max : SIZE_MAX - 1;
    for (;;) {
        if (b->failed)
            return refuse(b, b->failed);
        if (b->len >= limit) {   /* full: only the end of the file may follow */
            char c;
            ssize_t r = read(fd, &c, 1);
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0)
                return -1;
            return r == 0 ? 0 : refuse(b, b->max ? EFBIG : ENOMEM);
        }
        size_t room = b->cap > b->len + 1 ? b->cap - b->len - 1 : 0;
        if (room < 4096) {
            size_t more = limit - b->len < 8192 ? limit - b->len : 8192;
            if (bl_buf_grow(b, more > room ? more : room))
                return -1;
            room = b->cap - b->len - 1;
        }
        if (room > limit - b->len)
            room = limit - b->len;
        ssize_t r = read(fd, b->s + b->len, room);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            return 0;
        b->len += (size_t)r;
        b->s[b->len] = '\0';
    }
}

int bl_buf_read_file(struct bl_buf *b, const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return -1;
    int rc = bl_buf_read_fd(b, fd);
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

char *bl_buf_detach(struct bl_buf *b, size_t *len)
{
    char *s = b->s ? b->s : calloc(1, 1);
    if (len)
        *len = b->s ? b->len : 0;
    b->s = NULL;
    b->len = b->cap = 0;
    return s;
}

void bl_buf_reset(struct bl_buf *b)
{
    b->len = 0;
    b->failed = 0;
    if (b->s)
        b->s[0] = '\0';
}

void bl_buf_drop(struct bl_buf *b, size_t n)
{
    if (!b->s || n == 0)
        return;
    if (n > b->len)
        n = b->len;
    memmove(b->s, b->s + n, b->len - n);
    b->len -= n;
    b->s[b->len] = '\0';
}

void bl_buf_release(struct bl_buf *b)
{
    free(b->s);
    *b = BL_BUF_MAX(b->max);
}
