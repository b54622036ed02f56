/* files.c: XDG paths, mkdir -p, atomic file replacement that never replaces what is not a
 * regular file, new files created exclusively, and bounded reads of regular files only
 * (files.h; docs/security.md).
 * POSIX only; no curses, no CUDA, no cJSON. */
#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <poll.h>
#include <unistd.h>

#include "../base/buf.h"
#include "../base/err.h"
#include "../sys/sys.h"

const char *files_xdg_path(const char *xdg_var, const char *home_rel, const char *suffix,
                           char *buf, size_t size)
{
    const char *xdg = sys_env(xdg_var);
    const char *home = sys_env("HOME");
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

int files_mkdirs(const char *dir, mode_t mode, struct bl_err *err)
{
    char buf[4096];
    if (strlen(dir) >= sizeof buf) {
        bl_fail(err, ENAMETOOLONG, BL_NOWHERE, FIL_PATH_TOO_LONG, dir);
        return -1;
    }
    strcpy(buf, dir);
    for (char *s = buf + 1;; s++) {
        if (*s == '/' || *s == 0) {
            char c = *s;
            *s = 0;
            struct stat st;
            int made = mkdir(buf, mode) == 0;
            if (!made && errno != EEXIST) {
                bl_fail(err, errno, BL_NOWHERE, FIL_CANNOT_CREATE, buf, strerror(errno));
                return -1;
            }
            /* what banklab made is a directory of this user's, not a link put in its place */
            if (made && (lstat(buf, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())) {
                bl_fail(err, EPERM, BL_NOWHERE, FIL_DIR_MADE_NOT_OURS, buf,
                        (unsigned long)st.st_uid);
                return -1;
            }
            if (stat(buf, &st) < 0 || !S_ISDIR(st.st_mode)) {
                bl_fail(err, ENOTDIR, BL_NOWHERE, FIL_NOT_A_DIRECTORY, buf);
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

/* No component of dir is a symbolic link of a user who is neither this one nor root: its
 * owner could point it elsewhere (stat follows it). 0, or -1 with err. */
static int links_ours(const char *dir, struct bl_err *err)
{
    char buf[4096];
    if (strlen(dir) >= sizeof buf)
        return bl_fail(err, ENAMETOOLONG, BL_NOWHERE, FIL_PATH_TOO_LONG, dir);
    strcpy(buf, dir);
    for (char *s = buf + 1;; s++) {
        if (*s != '/' && *s)
            continue;
        char c = *s;
        *s = 0;
        struct stat st;
        if (lstat(buf, &st) == 0 && S_ISLNK(st.st_mode) && st.st_uid != geteuid() &&
            st.st_uid != 0)
            return bl_fail(err, EPERM, BL_NOWHERE, FIL_DIR_LINK_NOT_OURS, buf,
                           (unsigned long)st.st_uid);
        *s = c;
        if (!c)
            return 0;
    }
}

int files_own_dir(const char *dir, int create, struct bl_err *err)
{
    struct stat st;
    if (links_ours(dir, err) < 0)
        return -1;
    if (create && files_mkdirs(dir, 0700, err) < 0)
        return -1;
    if (stat(dir, &st) < 0)
        return !create && errno == ENOENT ? 0 : bl_fail(err, errno, BL_NOWHERE, FIL_CANNOT_CREATE,
                                                        dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return bl_fail(err, ENOTDIR, BL_NOWHERE, FIL_NOT_A_DIRECTORY, dir);
    if (st.st_uid != geteuid())  /* another user's: they could plant, lock or take our files */
        return bl_fail(err, EPERM, BL_NOWHERE, FIL_DIR_NOT_OURS, dir, (unsigned long)st.st_uid);
    if (st.st_mode & 022)
        return bl_fail(err, EPERM, BL_NOWHERE, FIL_DIR_OPEN_TO_OTHERS, dir,
                       (unsigned)(st.st_mode & 0777));
    return 0;
}

int files_own_parent(const char *path, struct bl_err *err)
{
    char dir[4096];
    dir_of(path, dir, sizeof dir);
    return files_own_dir(dir, 0, err);
}

/* Replaces the regular file (or nothing) at path: temp file, fsync, rename, fsync of the
 * directory. */
static int replace(const char *path, mode_t mode, int (*emit)(FILE *f, void *ctx), void *ctx,
                   struct bl_err *err)
{
    char tmp[4200];
    if (snprintf(tmp, sizeof tmp, "%s.tmp-XXXXXX", path) >= (int)sizeof tmp) {
        bl_fail(err, ENAMETOOLONG, BL_NOWHERE, FIL_PATH_TOO_LONG, path);
        return -1;
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        bl_fail(err, errno, BL_NOWHERE, FIL_CANNOT_WRITE, path, strerror(errno));
        return -1;
    }
    FILE *f = NULL;
    int rc = fchmod(fd, mode);
    if (rc == 0 && !(f = fdopen(fd, "w")))
        rc = -1;
    if (rc == 0)
        rc = emit(f, ctx) < 0 || fflush(f) != 0 || fsync(fd) < 0 ? -1 : 0;
    if (rc < 0)
        bl_fail(err, errno, BL_NOWHERE, FIL_CANNOT_WRITE, tmp, strerror(errno));
    if (f ? fclose(f) != 0 : close(fd) != 0) {
        if (rc == 0)
            bl_fail(err, errno, BL_NOWHERE, FIL_CANNOT_WRITE, tmp, strerror(errno));
        rc = -1;
    }
    if (rc == 0 && rename(tmp, path) < 0) {
        bl_fail(err, errno, BL_NOWHERE, FIL_CANNOT_REPLACE, path, strerror(errno));
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

/* Writes through fd, a character device or FIFO opened for writing (never replacing it);
 * closes fd. */
static int write_fd(int fd, const char *path, int (*emit)(FILE *f, void *ctx), void *ctx,
                    struct bl_err *err)
{
    struct stat st;
    int flags = fcntl(fd, F_GETFL);
    if (fstat(fd, &st) < 0 || !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
        bl_fail(err, -1, BL_NOWHERE, FIL_CHANGED_WHILE_OPENED, path);
        close(fd);
        return -1;
    }
    if (flags >= 0)
        (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);  /* a slow reader is waited for */
    FILE *f = fdopen(fd, "w");
    if (!f) {
        bl_fail(err, errno, BL_NOWHERE, FIL_CANNOT_WRITE, path, strerror(errno));
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
        bl_fail(err, e, BL_NOWHERE, FIL_CANNOT_WRITE, path, strerror(e));
    return rc;
}

/* Opens the character device or FIFO at path for writing, never creating anything: -1 with
 * errno when it cannot (ENXIO: a FIFO that nobody reads). */
static int open_through(const char *path, int nofollow)
{
    return open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
}

/* Writes through the character device or FIFO at path. A FIFO nobody reads is refused at
 * once instead of waiting for a reader. */
static int write_through(const char *path, int nofollow, int (*emit)(FILE *f, void *ctx),
                         void *ctx, struct bl_err *err)
{
    int fd = open_through(path, nofollow);
    if (fd < 0) {
        if (errno == ENXIO)
            bl_fail(err, ENXIO, BL_NOWHERE, FIL_FIFO_NOBODY_READS, path);
        else if (errno == ELOOP)
            bl_fail(err, ELOOP, BL_NOWHERE, FIL_CHANGED_INTO_LINK, path);
        else
            bl_fail(err, errno, BL_NOWHERE, FIL_CANNOT_WRITE, path, strerror(errno));
        return -1;
    }
    return write_fd(fd, path, emit, ctx, err);
}

static const char *kind_of(mode_t m)
{
    return S_ISDIR(m) ? "a directory" : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket"
                                                                          : "not a regular file";
}

/* 1 when other users can change what the directory dir holds: it is writable by its group
 * or others, or owned by someone who is neither this user nor root (or it cannot be read); 0
 * when only this user (or root) can. In a shared directory files_write_atomic follows,
 * replaces and writes through only what this user owns. */
static int dir_shared(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) < 0)
        return 1;  /* unknown: the careful side */
    return (st.st_mode & 022) || (st.st_uid != geteuid() && st.st_uid != 0);
}

/* What stands at path (lstat: st) in a directory other users can write: only what is ours is
 * followed, replaced or written through (a link, a FIFO, a file planted by another user must
 * not make banklab write where that user chose). 0, or -1 with err filled. */
static int entry_ours(const char *path, const struct stat *st, struct bl_err *err)
{
    if (st->st_uid == geteuid())
        return 0;
    return bl_fail(err, EPERM, BL_NOWHERE, FIL_OF_ANOTHER_USER, path,
                   S_ISLNK(st->st_mode) ? "a symbolic link" : S_ISREG(st->st_mode) ? "a file"
                   : S_ISFIFO(st->st_mode) ? "a FIFO" : "an entry", (unsigned long)st->st_uid);
}

/* A symbolic link at path (trusted: ours, or in a directory only its owner or root can
 * write): the regular file it names is replaced and the link kept, a device or FIFO written
 * through; a link /proc cannot resolve (/dev/stdout of a pipe: /proc/self/fd/1 names
 * "pipe:[N]") is opened as it is, without creating anything, and written through when it is
 * a device or FIFO. */
static int write_link(const char *path, mode_t mode, int (*emit)(FILE *f, void *ctx), void *ctx,
                      struct bl_err *err)
{
    struct stat st;
    char *real = realpath(path, NULL);
    if (!real) {
        int e = errno;
        int fd = open_through(path, 0);
        if (fd >= 0)
            return write_fd(fd, path, emit, ctx, err);
        if (errno == ENXIO)
            return bl_fail(err, ENXIO, BL_NOWHERE, FIL_FIFO_NOBODY_READS, path);
        return bl_fail(err, e, BL_NOWHERE, FIL_LINK_TO, path,
                       e == ENOENT ? "a missing file" : strerror(e));
    }
    int rc;
    if (lstat(real, &st) == 0 && (S_ISREG(st.st_mode) || S_ISCHR(st.st_mode) ||
                                   S_ISFIFO(st.st_mode))) {
        /* the file it names, under the rules of the directory that holds it */
        char rdir[4096];
        dir_of(real, rdir, sizeof rdir);
        if (dir_shared(rdir) && entry_ours(real, &st, err))
            rc = -1;
        else if (S_ISREG(st.st_mode))
            rc = replace(real, mode, emit, ctx, err);
        else
            rc = write_through(real, 1, emit, ctx, err);
    } else {
        rc = bl_fail(err, -1, BL_NOWHERE, FIL_LINK_TO, path,
                     lstat(real, &st) == 0 ? kind_of(st.st_mode) : strerror(errno));
    }
    free(real);
    return rc;
}

int files_write_atomic(const char *path, mode_t mode, int (*emit)(FILE *f, void *ctx), void *ctx,
                       struct bl_err *err)
{
    struct stat st;
    if (!path || !path[0]) {
        bl_fail(err, EINVAL, BL_NOWHERE, FIL_NO_FILE_NAME);
        return -1;
    }
    char dir[4096];
    dir_of(path, dir, sizeof dir);
    int shared = dir_shared(dir);
    if (lstat(path, &st) < 0) {
        if (errno != ENOENT) {
            bl_fail(err, errno, BL_NOWHERE, FIL_CANNOT_WRITE, path, strerror(errno));
            return -1;
        }
        return replace(path, mode, emit, ctx, err);  /* created exclusively, renamed */
    }
    if (shared && entry_ours(path, &st, err))
        return -1;
    if (S_ISREG(st.st_mode))
        return replace(path, mode, emit, ctx, err);
    if (S_ISLNK(st.st_mode))
        return write_link(path, mode, emit, ctx, err);
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
        return write_through(path, 1, emit, ctx, err);
    bl_fail(err, -1, BL_NOWHERE, FIL_IS_KIND, path, kind_of(st.st_mode));
    return -1;
}

char *files_read(const char *path, size_t max, size_t *len, struct bl_err *why)
{
    /* O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        int e = errno;
        bl_fail(why, e, BL_NOWHERE, FIL_CANNOT_OPEN, strerror(e));
        errno = e;
        return NULL;
    }
    struct stat st;
    struct bl_buf b = BL_BUF_MAX(max ? max : 1);
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
    else if (bl_buf_grow(&b, (size_t)st.st_size) || bl_buf_read_fd(&b, fd))
        e = errno;
    size_t n = b.len;
    if (!e && n > max)
        e = EFBIG;   /* it grew while being read */
    close(fd);
    if (e) {
        bl_buf_release(&b);
        if (e == EISDIR)
            bl_fail(why, e, BL_NOWHERE, FIL_IS_A_DIRECTORY);
        else if (e == EINVAL)
            bl_fail(why, e, BL_NOWHERE, FIL_NOT_A_REGULAR_FILE);
        else if (e == EFBIG && max >= (1u << 20) && max % (1u << 20) == 0)
            bl_fail(why, e, BL_NOWHERE, FIL_LARGER_THAN_MB, max >> 20);
        else if (e == EFBIG)
            bl_fail(why, e, BL_NOWHERE, FIL_LARGER_THAN_BYTES, max);
        else if (e == ENOMEM)
            bl_fail(why, e, BL_NOWHERE, FIL_OUT_OF_MEMORY);
        else
            bl_fail(why, e, BL_NOWHERE, FIL_READ_ERROR, strerror(e));
        errno = e;
        return NULL;
    }
    return bl_buf_detach(&b, len);
}

int files_lines_open(struct files_lines *r, const char *path, int any, struct bl_err *why)
{
    memset(r, 0, sizeof *r);
    r->fd = -1;
    int std = !strcmp(path, "-");
    int fd = std ? STDIN_FILENO : open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        bl_fail(why, errno, BL_NOWHERE, BL_TEXT, strerror(errno));
        if (fd >= 0 && !std)
            close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode) && !(any || std)) {
        bl_fail(why, EINVAL, BL_NOWHERE, FIL_LINES_NOT_REGULAR,
                S_ISFIFO(st.st_mode) ? "is a FIFO" : S_ISCHR(st.st_mode) ? "is a character device"
                : S_ISDIR(st.st_mode) ? "is a directory" : "is not a regular file");
        close(fd);
        return -1;
    }
    r->fd = fd;
    r->own = !std;
    r->wait_ms = S_ISREG(st.st_mode) || isatty(fd) ? -1 : FILES_LINES_WAIT_MS;
    return 0;
}

/* More bytes into r->buf: 1, 0 at the end, -1 with why. */
static int lines_fill(struct files_lines *r, struct bl_err *why)
{
    if (r->eof)
        return 0;
    if (r->total >= FILES_LINES_MAX) {
        return bl_fail(why, EFBIG, BL_NOWHERE, FIL_LINES_TOO_MUCH, FILES_LINES_MAX >> 20);
    }
    for (;;) {
        struct pollfd p = {r->fd, POLLIN, 0};
        int pr = poll(&p, 1, r->wait_ms);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr == 0) {
            return bl_fail(why, ETIMEDOUT, BL_NOWHERE, FIL_LINES_NOTHING_CAME, r->wait_ms / 1000);
        }
        ssize_t k = read(r->fd, r->buf, sizeof r->buf);
        if (k < 0 && (errno == EINTR || errno == EAGAIN))
            continue;  /* a FIFO opened O_NONBLOCK: poll again */
        if (k < 0) {
            return bl_fail(why, errno, BL_NOWHERE, FIL_READ_ERROR, strerror(errno));
        }
        if (k == 0) {
            r->eof = 1;
            return 0;
        }
        r->at = 0;
        r->have = (size_t)k;
        r->total += (size_t)k;
        return 1;
    }
}

int files_lines_next(struct files_lines *r, char *line, size_t size, int *flags,
                     struct bl_err *why)
{
    size_t n = 0;
    int got = 0;
    *flags = 0;
    for (;;) {
        if (r->at == r->have) {
            int f = lines_fill(r, why);
            if (f < 0)
                return -1;
            if (f == 0)
                break;
        }
        char c = r->buf[r->at++];
        got = 1;
        if (c == '\n')
            break;
        if (c == 0)
            *flags |= FILES_LINE_NUL;
        if (n + 1 < size)
            line[n++] = c;
        else
            *flags |= FILES_LINE_LONG;
    }
    if (n && line[n - 1] == '\r')
        n--;
    line[n] = 0;
    return got;
}

void files_lines_close(struct files_lines *r)
{
    if (r->own && r->fd >= 0)
        close(r->fd);
    r->fd = -1;
}

int files_remove_temps(const char *path)
{
    char dir[4096];
    dir_of(path, dir, sizeof dir);
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t bl = strlen(base);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct sys_dir *d = dfd >= 0 ? sys_dir_at(dfd) : NULL;
    int n = 0;
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        return 0;
    }
    const char *name;
    while ((name = sys_dir_next(d))) {
        /* exactly what replace() makes: NAME.tmp-XXXXXX (mkstemp's six characters) */
        if (strncmp(name, base, bl) || strncmp(name + bl, ".tmp-", 5) ||
            strlen(name + bl + 5) != 6)
            continue;
        struct stat st;
        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
            st.st_uid == geteuid() && unlinkat(dfd, name, 0) == 0)
            n++;
    }
    sys_dir_close(d);
    close(dfd);
    return n;
}

int files_create_new(const char *path, const char *data, size_t len, struct bl_err *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        if (errno == EEXIST) {
            bl_fail(err, EEXIST, BL_NOWHERE, FIL_EXISTS_ALREADY, path);
            return 1;
        }
        return bl_fail(err, errno, BL_NOWHERE, FIL_CANNOT_CREATE, path, strerror(errno));
    }
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, data + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            bl_fail(err, errno, BL_NOWHERE, FIL_CANNOT_WRITE, path, strerror(errno));
            close(fd);
            unlink(path);
            return -1;
        }
        done += (size_t)w;
    }
    int bad = fsync(fd) != 0;
    bad |= close(fd) != 0;
    if (bad) {
        bl_fail(err, errno, BL_NOWHERE, FIL_CANNOT_WRITE, path, strerror(errno));
        unlink(path);
        return -1;
    }
    return 0;
}
