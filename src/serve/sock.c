/* sock.c: the GPU server's socket and who is at the other end of one (serve/serve.h): the
 * listening socket of `banklab serve` (bound under a fresh name and renamed onto its own:
 * a stale socket, or a file, FIFO, link or socket another user put there, is replaced; a live
 * server of root's or this user's probed without ever blocking; another user's never
 * connected to), this user's name beside a shared one,
 * and the peer's Unix user (SO_PEERCRED) that the server's limits and the client's trust go
 * by. Never prints. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../base/err.h"
#include "../base/fmt.h"
#include "serve.h"
#include "../sys/sys.h"

#define SV_PROBE_MS 1000           /* an existing socket takes a connection this fast, or is busy */


static int unix_addr(const char *path, struct sockaddr_un *a)
{
    return sys_sock_addr(path, a);
}

void serve_own_path(const char *path, char *buf, size_t n)
{
    if (geteuid() == 0) {
        bl_fmt(buf, n, "%s", path);
        return;
    }
    size_t len = strlen(path);
    if (len > 5 && !strcmp(path + len - 5, ".sock"))
        len -= 5;
    bl_fmt(buf, n, "%.*s-u%lu.sock", (int)len, path, (unsigned long)geteuid());
}

int serve_trusted_uid(uid_t uid)
{
    return uid == 0 || uid == geteuid();
}

int serve_peer_uid(int fd, uid_t *uid)
{
    struct ucred cr;
    socklen_t len = sizeof cr;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) || len != sizeof cr)
        return -1;
    *uid = cr.uid;
    return 0;
}

/* What answers at a (a socket of root's or this user's, st): 1 a server of root or this user
 * listens there (it takes the connection within SV_PROBE_MS, or its queue is full), 0 nobody
 * does (a stale socket). Never waits longer. */
static int probe(const struct sockaddr_un *a)
{
    int t = sys_sock_new(1);
    if (t < 0)
        return 0;
    int live = 0;
    double until = bl_now_ms() + SV_PROBE_MS;
    for (;;) {
        if (sys_sock_connect(t, a) == 0) {
            uid_t uid;
            live = serve_peer_uid(t, &uid) == 0 && serve_trusted_uid(uid);
            break;
        }
        if (errno != EAGAIN && errno != EINPROGRESS && errno != EINTR)
            break;                 /* ECONNREFUSED: stale */
        if (bl_now_ms() >= until) {
            live = 1;              /* a listener whose queue stays full: busy, not stale */
            break;
        }
        struct timespec ts = {0, 20 * 1000000L};
        nanosleep(&ts, NULL);
    }
    close(t);
    return live;
}

/* A fresh name beside path (its directory: rename() can move it onto path), try k. 0, or -1
 * when it does not fit a socket address. */
static int temp_name(const char *path, unsigned k, char *buf, size_t n)
{
    const char *slash = strrchr(path, '/');
    int dirlen = slash ? (int)(slash - path) + 1 : 0;
    unsigned r = 0;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
        r = (unsigned)(bl_now_ms() * 1e3) ^ (k * 2654435761u);
    bl_fmt(buf, n, "%.*s.bl-serve-%lu-%08x", dirlen, path, (unsigned long)getpid(), r);
    struct sockaddr_un a;
    return unix_addr(buf, &a);
}

/* A listening socket (mode 0666: every user of the machine is served) under a fresh name
 * beside path: the fd, or -1 with err; tmp receives its name. */
static int listen_temp(const char *path, char *tmp, size_t tn, struct bl_err *err)
{
    int s = sys_sock_new(1);
    if (s < 0)
        return bl_fail(err, GPU_EFAILED, BL_NOWHERE, SV_SOCKET, strerror(errno));
    mode_t old = umask(0);
    int rc = -1, e = EEXIST;
    for (unsigned k = 0; k < 16 && rc; k++) {      /* a name someone took first: another */
        struct sockaddr_un a;
        if (temp_name(path, k, tmp, tn) || unix_addr(tmp, &a)) {
            e = ENAMETOOLONG;
            break;
        }
        rc = sys_sock_bind(s, &a);
        e = errno;
        if (rc && e != EADDRINUSE)
            break;
    }
    umask(old);
    if (rc == 0 && (sys_sock_listen(s, 128) || chmod(tmp, 0666))) {
        e = errno;
        unlink(tmp);
        rc = -1;
    }
    if (rc) {
        close(s);
        errno = e;
        return bl_fail(err, GPU_EFAILED, BL_NOWHERE, SV_CANNOT_LISTEN, path, strerror(e));
    }
    return s;
}

/* Moves the listening socket s (bound at tmp) to path: linked there when the name is free,
 * else renamed over what is there (atomically: a loop re-binding the name cannot win) unless
 * that is a live server of root's or this user's (1) or a file of root's or this user's that
 * is not a socket (refused). A directory of another user's is moved aside first. 0, 1, or -1
 * with err (errno EPERM/EACCES: another user's name that this user may not replace, in a
 * sticky directory). */
static int take_name(const char *path, const char *tmp, const struct sockaddr_un *a,
                     struct bl_err *err)
{
    for (int k = 0; k < 16; k++) {
        if (link(tmp, path) == 0) {
            unlink(tmp);
            return 0;
        }
        struct stat st;
        if (lstat(path, &st)) {
            if (errno == ENOENT && rename(tmp, path) == 0)
                return 0;          /* no hard links here: a free name renamed onto */
            continue;
        }
        int ours = serve_trusted_uid(st.st_uid);
        if (ours && S_ISSOCK(st.st_mode) && probe(a))
            return 1;
        if (ours && !S_ISSOCK(st.st_mode)) {
            errno = EEXIST;
            return bl_fail(err, GPU_EFAILED, BL_NOWHERE, SV_NOT_A_SOCKET, path);
        }
        if (S_ISDIR(st.st_mode)) { /* another user's: moved aside, then the name is taken */
            char aside[300];
            if (temp_name(path, (unsigned)k, aside, sizeof aside) == 0 && rename(path, aside) == 0)
                continue;
        } else if (rename(tmp, path) == 0) {
            return 0;              /* stale, or planted by another user */
        }
        if (errno == EPERM || errno == EACCES || errno == EROFS)
            break;
    }
    int e = errno;
    bl_fail(err, GPU_EFAILED, BL_NOWHERE, SV_CANNOT_LISTEN, path, strerror(e));
    errno = e;
    return -1;
}

/* Listens on path: bound under a fresh name beside it, then moved onto it (take_name). 0 with
 * *fd, 1 when a live server of root or this user answers there, -1 with err; errno
 * EPERM/EACCES: a name at path that is not ours and that we may not replace (another
 * user's, in a sticky directory). Another user's socket is never connected to. */
static int listen_at(const char *path, int *fd, struct bl_err *err)
{
    struct sockaddr_un a;
    struct stat st;
    char tmp[sizeof a.sun_path];
    if (unix_addr(path, &a))
        return bl_fail(err, GPU_EFAILED, BL_NOWHERE, SV_PATH_TOO_LONG, path);
    if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode) && serve_trusted_uid(st.st_uid) && probe(&a))
        return 1;
    int s = listen_temp(path, tmp, sizeof tmp, err);
    if (s < 0)
        return -1;
    int rc = take_name(path, tmp, &a, err);
    if (rc) {
        int e = errno;
        unlink(tmp);
        close(s);
        errno = e;
        return rc;
    }
    *fd = s;
    return 0;
}

int serve_listen(const char *path, int *fd, char *bound, size_t bn, struct bl_err *err)
{
    bl_fmt(bound, bn, "%s", path);
    int rc = listen_at(bound, fd, err);
    if (rc == -1 && (errno == EPERM || errno == EACCES)) {
        bl_err_clear(err);
        serve_own_path(path, bound, bn);
        rc = listen_at(bound, fd, err);
    }
    return rc;
}
