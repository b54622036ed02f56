/* files.c: XDG paths, mkdir -p and atomic file replacement for progress and reports.
 * POSIX only; no curses, no CUDA, no cJSON. */
#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void fmt(char *buf, size_t size, const char *f, ...)
{
    if (!buf || !size)
        return;
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, size, f, ap);
    va_end(ap);
}

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
        fmt(err, errsz, "path too long: %s", dir);
        return -1;
    }
    strcpy(buf, dir);
    for (char *s = buf + 1;; s++) {
        if (*s == '/' || *s == 0) {
            char c = *s;
            *s = 0;
            struct stat st;
            if (mkdir(buf, mode) < 0 && errno != EEXIST) {
                fmt(err, errsz, "cannot create %s: %s", buf, strerror(errno));
                return -1;
            }
            if (stat(buf, &st) < 0 || !S_ISDIR(st.st_mode)) {
                fmt(err, errsz, "%s is not a directory", buf);
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

int files_write_atomic(const char *path, mode_t mode, int (*emit)(FILE *f, void *ctx), void *ctx,
                       char *err, size_t errsz)
{
    char tmp[4200];
    if (!path || !path[0] || snprintf(tmp, sizeof tmp, "%s.tmp-XXXXXX", path) >= (int)sizeof tmp) {
        fmt(err, errsz, "path too long or empty: %s", path ? path : "");
        return -1;
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        fmt(err, errsz, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    FILE *f = NULL;
    int rc = fchmod(fd, mode);
    if (rc == 0 && !(f = fdopen(fd, "w")))
        rc = -1;
    if (rc == 0)
        rc = emit(f, ctx) < 0 || fflush(f) != 0 || fsync(fd) < 0 ? -1 : 0;
    if (rc < 0)
        fmt(err, errsz, "cannot write %s: %s", tmp, strerror(errno));
    if (f ? fclose(f) != 0 : close(fd) != 0) {
        if (rc == 0)
            fmt(err, errsz, "cannot write %s: %s", tmp, strerror(errno));
        rc = -1;
    }
    if (rc == 0 && rename(tmp, path) < 0) {
        fmt(err, errsz, "cannot replace %s: %s", path, strerror(errno));
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

char *files_read(const char *path, size_t max, size_t *len, char *why, size_t whysz)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        fmt(why, whysz, "cannot open: %s", strerror(e));
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
        e = EFBIG;
    close(fd);
    if (e) {
        free(buf);
        if (e == EISDIR)
            fmt(why, whysz, "is a directory");
        else if (e == EFBIG)
            fmt(why, whysz, "larger than %zu bytes", max);
        else if (e == ENOMEM)
            fmt(why, whysz, "out of memory");
        else
            fmt(why, whysz, "read error: %s", strerror(e));
        errno = e;
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}
