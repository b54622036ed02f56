/* files.c: XDG paths, mkdir -p, atomic file replacement that never replaces what is not a
 * regular file, and bounded reads of regular files only (files.h; docs/security.md).
 * POSIX only; no curses, no CUDA, no cJSON. */
#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/fmt.h"

const char *files_xdg_path(const char *xdg_var, const char *home_rel, const char *suffix,
                           char *buf, size_t size)
{
    const char *xdg = getenv(xdg_var);
    const char *home = getenv("HOME");
    int n;
    if (!buf || !size)
        return NULL;
    if (xdg && xdg[0] == '/')
        n = snprintf(buf, size, "%s/%s", xdg, suffix);
    else if (home && home[0])
        n = snprintf(buf, size, "%s/%s/%s", home, home_rel, suffix);
    else
        return NULL;
    if (n < 0 || (size_t)n >= size)
        return NULL;
    return buf;
}

int files_mkdirs(const char *dir, mode_t mode, char *err, size_t errsz)
{
    char buf[4096];
    if (strlen(dir) >= sizeof buf) {
        bl_fmt(err, errsz, "path too long: %s", dir);
        return -1;
    }
    strcpy(buf, dir);
    for (char *s = buf + 1;; s++) {
        if (*s == '/' || *s == 0) {
            char c = *s;
            *s = 0;
            struct stat st;
            if (mkdir(buf, mode) < 0 && errno != EEXIST) {
                bl_fmt(err, errsz, "cannot create %s: %s", buf, strerror(errno));
                return -1;
            }
            if (stat(buf, &st) < 0 || !S_ISDIR(st.st_mode)) {
                bl_fmt(err, errsz, "%s is not a directory", buf);
                return -1;
            }
            *s = c;
            if (!c)
                break;
        }
    }
    return 0;
}

/* The directory part of path ("." when there is none) into buf. */
static void dir_of(const char *path, char *buf, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(buf, size, ".");
    else if (slash == path)
        snprintf(buf, size, "/");
    else
        snprintf(buf, size, "%.*s", (int)(slash - path), path);
}

/* Replaces the regular file (or nothing) at path: temp file, fsync, rename, fsync of the
 * directory. */
static int replace(const char *path, mode_t mode, int (*emit)(FILE *f, void *ctx), void *ctx,
                   char *err, size_t errsz)
{
    char tmp[4200];
    if (snprintf(tmp, sizeof tmp, "%s.tmp-XXXXXX", path) >= (int)sizeof tmp) {
        bl_fmt(err, errsz, "path too long: %s", path);
        return -1;
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        bl_fmt(err, errsz, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    FILE *f = NULL;
    int rc = fchmod(fd, mode);
    if (rc == 0 && !(f = fdopen(fd, "w")))
        rc = -1;
    if (rc == 0)
        rc = emit(f, ctx) < 0 || fflush(f) != 0 || fsync(fd) < 0 ? -1 : 0;
    if (rc < 0)
        bl_fmt(err, errsz, "cannot write %s: %s", tmp, strerror(errno));
    if (f ? fclose(f) != 0 : close(fd) != 0) {
        if (rc == 0)
            bl_fmt(err, errsz, "cannot write %s: %s", tmp, strerror(errno));
        rc = -1;
    }
    if (rc == 0 && rename(tmp, path) < 0) {
        bl_fmt(err, errsz, "cannot replace %s: %s", path, strerror(errno));
        rc = -1;
    }
    if (rc < 0) {
        unlink(tmp);
        return -1;
    }
    char dir[4096];
    dir_of(path, dir, sizeof dir);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        (void)fsync(dfd);  /* best effort: some file systems refuse fsync on directories */
        close(dfd);
    }
    return 0;
}

/* Writes through the character device or FIFO at path (never replacing it). A FIFO nobody
 * reads is refused at once instead of waiting for a reader. */
static int write_through(const char *path, int (*emit)(FILE *f, void *ctx), void *ctx,
                         char *err, size_t errsz)
{
    int fd = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENXIO)
            bl_fmt(err, errsz, "%s is a FIFO that nobody reads; not written", path);
        else
            bl_fmt(err, errsz, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    int flags = fcntl(fd, F_GETFL);
    if (fstat(fd, &st) < 0 || !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
        bl_fmt(err, errsz, "%s changed while being opened; not written", path);
        close(fd);
        return -1;
    }
    if (flags >= 0)
        (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);  /* a slow reader is waited for */
    FILE *f = fdopen(fd, "w");
    if (!f) {
        bl_fmt(err, errsz, "cannot write %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    int rc = emit(f, ctx) < 0 || fflush(f) != 0 ? -1 : 0;
    int e = errno;
    if (fclose(f) != 0 && rc == 0) {
        rc = -1;
        e = errno;
    }
    if (rc < 0)
        bl_fmt(err, errsz, "cannot write %s: %s", path, strerror(e));
    return rc;
}

static const char *kind_of(mode_t m)
{
    return S_ISDIR(m) ? "a directory" : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket"
                                                                          : "not a regular file";
}

int files_write_atomic(const char *path, mode_t mode, int (*emit)(FILE *f, void *ctx), void *ctx,
                       char *err, size_t errsz)
{
    struct stat st;
    if (!path || !path[0]) {
        bl_fmt(err, errsz, "no file name");
        return -1;
    }
    if (lstat(path, &st) < 0) {
        if (errno != ENOENT) {
            bl_fmt(err, errsz, "cannot write %s: %s", path, strerror(errno));
            return -1;
        }
        return replace(path, mode, emit, ctx, err, errsz);
    }
    if (S_ISREG(st.st_mode))
        return replace(path, mode, emit, ctx, err, errsz);
    if (S_ISLNK(st.st_mode)) {
        /* a link to a regular file: replace the file it names, keep the link */
        char *real = realpath(path, NULL);
        if (!real) {
            bl_fmt(err, errsz, "%s is a symbolic link to %s; not written", path,
                   errno == ENOENT ? "a missing file" : strerror(errno));
            return -1;
        }
        int rc;
        if (stat(real, &st) == 0 && S_ISREG(st.st_mode))
            rc = replace(real, mode, emit, ctx, err, errsz);
        else if (stat(real, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)))
            rc = write_through(path, emit, ctx, err, errsz);
        else {
            bl_fmt(err, errsz, "%s is a symbolic link to %s; not written", path,
                   stat(real, &st) == 0 ? kind_of(st.st_mode) : strerror(errno));
            rc = -1;
        }
        free(real);
        return rc;
    }
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
        return write_through(path, emit, ctx, err, errsz);
    bl_fmt(err, errsz, "%s is %s; not written", path, kind_of(st.st_mode));
    return -1;
}

char *files_read(const char *path, size_t max, size_t *len, char *why, size_t whysz)
{
    /* O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        int e = errno;
        bl_fmt(why, whysz, "cannot open: %s", strerror(e));
        errno = e;
        return NULL;
    }
    struct stat st;
    char *buf = NULL;
    size_t cap = 4096, n = 0;
    int e = 0;
    if (fstat(fd, &st) < 0)
        e = errno;
    else if (S_ISDIR(st.st_mode))
        e = EISDIR;
    else if (!S_ISREG(st.st_mode))
        e = EINVAL;
    else if ((unsigned long long)st.st_size > max)
        e = EFBIG;   /* refused before reading a byte */
    else if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0)
        e = errno;
    else if (!(buf = malloc(cap)))
        e = ENOMEM;
    while (!e) {
        if (n + 1 >= cap) {
            if (cap > max) {
                e = EFBIG;
                break;
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                e = ENOMEM;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t k = read(fd, buf + n, cap - 1 - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            e = errno;
        else if (k == 0)
            break;
        else
            n += (size_t)k;
    }
    if (!e && n > max)
        e = EFBIG;   /* it grew while being read */
    close(fd);
    if (e) {
        free(buf);
        if (e == EISDIR)
            bl_fmt(why, whysz, "is a directory");
        else if (e == EINVAL)
            bl_fmt(why, whysz, "not a regular file");
        else if (e == EFBIG && max >= (1u << 20) && max % (1u << 20) == 0)
            bl_fmt(why, whysz, "larger than %zu MB", max >> 20);
        else if (e == EFBIG)
            bl_fmt(why, whysz, "larger than %zu bytes", max);
        else if (e == ENOMEM)
            bl_fmt(why, whysz, "out of memory");
        else
            bl_fmt(why, whysz, "read error: %s", strerror(e));
        errno = e;
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}
