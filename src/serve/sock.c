/* sock.c: the GPU server's socket and who is at the other end of one (serve/serve.h): the
 * listening socket of `banklab serve` (a stale one replaced; an existing one probed without
 * ever blocking; another user's never connected to), this user's name beside a shared one,
 * and the peer's Unix user (SO_PEERCRED) that the server's limits and the client's trust go
 * by. Never prints. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../base/err.h"
#include "../base/fmt.h"
#include "serve.h"

#define SV_PROBE_MS 1000           /* an existing socket takes a connection this fast, or is busy */


static int unix_addr(const char *path, struct sockaddr_un *a)
{
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof a->sun_path)
        return -1;
    memcpy(a->sun_path, path, strlen(path) + 1);
    return 0;
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
    int t = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (t < 0)
        return 0;
    int live = 0;
    double until = bl_now_ms() + SV_PROBE_MS;
    for (;;) {
        if (connect(t, (const struct sockaddr *)a, sizeof *a) == 0) {
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

/* Binds and listens on path (mode 0666: every user of the machine is served). 0 with *fd,
 * 1 when a live server of root or this user answers there, -1 with err; errno EPERM/EACCES: a
 * socket at path that is not ours and that we may not remove (another user's, in a sticky
 * directory). Another user's socket is never connected to. */
static int listen_at(const char *path, int *fd, struct bl_err *err)
{
    struct sockaddr_un a;
    if (unix_addr(path, &a))
        return bl_fail(err, GPU_EFAILED, BL_NOWHERE, SV_PATH_TOO_LONG, path);
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (s < 0)
        return bl_fail(err, GPU_EFAILED, BL_NOWHERE, SV_SOCKET, strerror(errno));
    mode_t old = umask(0);
    int rc = bind(s, (struct sockaddr *)&a, sizeof a);
    if (rc && errno == EADDRINUSE) {
        struct stat st;
        if (lstat(path, &st) == 0 && !S_ISSOCK(st.st_mode)) {
            umask(old);
            close(s);
            errno = EEXIST;
            return bl_fail(err, GPU_EFAILED, BL_NOWHERE, SV_NOT_A_SOCKET, path);
        }
        if (lstat(path, &st) == 0 && serve_trusted_uid(st.st_uid) && probe(&a)) {
            umask(old);
            close(s);
            return 1;
        }
        /* stale, or another user's (root removes it; others cannot in a sticky directory) */
        rc = unlink(path) ? -1 : bind(s, (struct sockaddr *)&a, sizeof a);
    }
    int e = errno;
    umask(old);
    if (rc || listen(s, 128)) {
        e = errno;
        close(s);
        errno = e;
        return bl_fail(err, GPU_EFAILED, BL_NOWHERE, SV_CANNOT_LISTEN, path, strerror(e));
    }
    chmod(path, 0666);
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
