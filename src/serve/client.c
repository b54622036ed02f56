/* client.c: the client of `banklab serve` behind gpu.h (gpu_open_server, gpu_open_auto)
 * and the paths and start-up of the server. A thread of the handle talks to the server: it
 * sends what was submitted, reads results and progress, and when the server goes away it
 * reconnects (starting a new server when this client started the first one itself: the
 * default socket) and sends every unanswered request again, waiting longer between tries
 * (SC_RETRY_MS doubled up to SC_RETRY_MAX_MS, also when a server closes connections that ask,
 * until one is answered). Every wait is bounded: a connect (non-blocking, SC_CONNECT_MS), a
 * hello, an open of the start lock (O_NONBLOCK), a request fails SC_GIVEUP_S after it last
 * heard of itself (where it is, from the server; other bytes do not count), and closing
 * the handle waits SC_CLOSE_MS for its thread at most. In the shared directory only sockets
 * and files of root's or this user's are used (docs/security.md). No CUDA here, no GPU
 * memory; never prints. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../base/err.h"
#include "../base/fmt.h"
#include "../devlock/devlock.h"
#include "../gpu/gpu.h"
#include "serve.h"
#include "wire.h"
#include "../runner/runner.h"
#include "../sys/sys.h"

#define SC_PENDING 256
#define SC_HELLO_MS 5000           /* the server answers a hello this fast, or is not there */
#define SC_START_MS 20000          /* a server started here is listening this fast */
#define SC_GIVEUP_S 30.0           /* requests fail after this long without a server */
#define SC_RETRY_MS 200            /* reconnecting: the first wait, doubled up to SC_RETRY_MAX_MS */
#define SC_RETRY_MAX_MS 3200
#define SC_RESTART_S 2.0           /* a new server is started at most this often */
#define SC_CONNECT_MS 2000         /* a socket takes the connection this fast, or is given up */
#define SC_CLOSE_MS 300            /* closing waits this long for the thread, then leaves it */
#define TEXT_(x) #x
#define TEXT(x) TEXT_(x)
#define IDLE_TEXT TEXT(SERVE_AUTO_IDLE_S)

/* ---- frames on a socket ---- */

struct rx {
    uint8_t buf[SW_MAX_FRAME];
    size_t len;
};

/* A whole frame from x (type, payload p of n bytes; valid until the next call): 1, 0 when
 * none is complete yet, -1 when the stream is broken. rx_used drops it afterwards. */
static int rx_frame(struct rx *x, int *type, const uint8_t **p, uint32_t *n)
{
    if (x->len < SW_HEADER)
        return 0;
    struct bl_err err = {0};
    if (sw_parse_header(x->buf, type, n, &err))
        return -1;
    if (x->len < SW_HEADER + (size_t)*n)
        return 0;
    *p = x->buf + SW_HEADER;
    return 1;
}

static void rx_used(struct rx *x, uint32_t n)
{
    size_t used = SW_HEADER + n;
    memmove(x->buf, x->buf + used, x->len - used);
    x->len -= used;
}

/* One read into x: 1 bytes came, 0 nothing now, -1 closed or failed. */
static int rx_fill(struct rx *x, int fd)
{
    ssize_t k = recv(fd, x->buf + x->len, sizeof x->buf - x->len, MSG_DONTWAIT);
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return 0;
    if (k <= 0)
        return -1;
    x->len += (size_t)k;
    return 1;
}

/* Writes all of b within timeout_ms. 0, or -1. */
static int send_all(int fd, const struct sw_buf *b, int timeout_ms)
{
    size_t at = 0;
    double until = bl_now_ms() / 1e3 + timeout_ms / 1e3;
    while (at < b->len) {
        ssize_t k = send(fd, b->b + at, b->len - at, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (k > 0) {
            at += (size_t)k;
            continue;
        }
        if (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            return -1;
        int left = (int)((until - bl_now_ms() / 1e3) * 1e3);
        struct pollfd p = {fd, POLLOUT, 0};
        if (left <= 0 || poll(&p, 1, left) < 0)
            return -1;
    }
    return 0;
}

/* Waits up to timeout_ms for a frame of type want (others are skipped). 1 with p/n, 2 with
 * p/n when the server answered with an error instead (a result of id 0: refused), 0 on
 * timeout, -1 when the stream broke. */
static int wait_frame(struct rx *x, int fd, int want, const uint8_t **p, uint32_t *n,
                      int timeout_ms)
{
    double until = bl_now_ms() / 1e3 + timeout_ms / 1e3;
    for (;;) {
        int type, r = rx_frame(x, &type, p, n);
        if (r < 0)
            return -1;
        if (r == 1 && type == want)
            return 1;
        if (r == 1 && type == SW_RESULT && *n >= 8 && !memcmp(*p, "\0\0\0\0\0\0\0\0", 8))
            return 2;
        if (r == 1) {
            rx_used(x, *n);
            continue;
        }
        int left = (int)((until - bl_now_ms() / 1e3) * 1e3);
        struct pollfd pf = {fd, POLLIN, 0};
        int pr = poll(&pf, 1, left > 0 ? left : 0);   /* what already came is read even then */
        if (pr < 0 && errno != EINTR)
            return -1;
        if (pr > 0 && (pf.revents & (POLLIN | POLLHUP | POLLERR))) {
            if (rx_fill(x, fd) < 0)
                return -1;
        } else if (left <= 0) {
            return 0;
        }
    }
}

static void nap_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Connects to the socket at path within SC_CONNECT_MS (never a blocking connect: a socket that
 * takes no connection is given up, with why). check: only a socket of root or this user,
 * listened on by root or this user (the shared directory's names, which anyone may plant);
 * without it (a --server the learner named) any. The fd (non-blocking), or -1 with err. */
static int connect_path(const char *path, int check, struct bl_err *err)
{
    struct sockaddr_un a;
    if (sys_sock_addr(path, &a))
        return bl_fail(err, GPU_EUNAVAILABLE, BL_NOWHERE, SC_NO_SERVER_AT, path, strerror(ENAMETOOLONG));
    struct stat st;
    if (check && lstat(path, &st))
        return bl_fail(err, GPU_EUNAVAILABLE, BL_NOWHERE, SC_NO_SERVER_AT, path, strerror(errno));
    if (check && !S_ISSOCK(st.st_mode))
        return bl_fail(err, GPU_EUNAVAILABLE, BL_NOWHERE, SC_NOT_SOCKET, path);
    if (check && !serve_trusted_uid(st.st_uid))
        return bl_fail(err, GPU_EUNAVAILABLE, BL_NOWHERE, SC_NOT_TRUSTED, path, (unsigned)st.st_uid);
    int fd = sys_sock_new(1);
    if (fd < 0)
        return bl_fail(err, GPU_EUNAVAILABLE, BL_NOWHERE, SC_NO_SERVER_AT, path, strerror(errno));
    double t0 = bl_now_ms();
    for (;;) {
        if (sys_sock_connect(fd, &a) == 0)
            break;
        int e = errno;
        if (e == EINPROGRESS) {
            struct pollfd p = {fd, POLLOUT, 0};
            int left = (int)(t0 + SC_CONNECT_MS - bl_now_ms()), so = 0;
            socklen_t sl = sizeof so;
            if (left > 0 && poll(&p, 1, left) == 1 &&
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &so, &sl) == 0 && so == 0)
                break;
            e = so ? so : ETIMEDOUT;
        }
        if (e == EAGAIN || e == EINTR || e == ETIMEDOUT) {     /* its queue is full */
            if (bl_now_ms() - t0 < SC_CONNECT_MS && e != ETIMEDOUT) {
                nap_ms(20);
                continue;
            }
            close(fd);
            return bl_fail(err, GPU_EUNAVAILABLE, BL_NOWHERE, SC_NOT_ACCEPTING, path,
                           (bl_now_ms() - t0) / 1e3);
        }
        close(fd);
        return bl_fail(err, GPU_EUNAVAILABLE, BL_NOWHERE, SC_NO_SERVER_AT, path, strerror(e));
    }
    uid_t peer = (uid_t)-1;
    if (check && (serve_peer_uid(fd, &peer) || !serve_trusted_uid(peer))) {
        close(fd);
        return bl_fail(err, GPU_EUNAVAILABLE, BL_NOWHERE, SC_PEER_NOT_TRUSTED, path,
                       (unsigned)peer);
    }
    return fd;
}

/* err: why the server at path refused (its error reply, payload p of n bytes) */
static void refused(const uint8_t *p, uint32_t n, const char *path, struct bl_err *err)
{
    struct gpu_result r;
    struct bl_err e = {0};
    if (sw_get_result(p, n, &r, &e) || !r.err.msg[0])
        bl_fail(err, GPU_EUNAVAILABLE, BL_NOWHERE, SC_HUNG_UP, path);
    else
        bl_fail(err, GPU_EUNAVAILABLE, BL_NOWHERE, GPU_TEXT, r.err.msg);
}

/* Connects to path and says hello: 0 with *fd and the server's info, -1 with err. */
static int hello_at(const char *path, int check, int device, struct rx *x, int *fd,
                    struct gpu_info *info, struct bl_err *err)
{
    int s = connect_path(path, check, err);
    if (s < 0)
        return -1;
    x->len = 0;
    struct sw_hello h = {SW_VERSION, device};
    struct sw_buf b;
    const uint8_t *p;
    uint32_t n;
    int ok = 0;
    int sent = sw_put_hello(&b, &h) == 0 && send_all(s, &b, SC_HELLO_MS) == 0;
    /* a server that refused the connection said why before closing it: read that first */
    int r = wait_frame(x, s, SW_HELLO, &p, &n, sent ? SC_HELLO_MS : 0);
    if (r == 2)
        refused(p, n, path, err);
    else if (!sent)
        bl_fail(err, GPU_EUNAVAILABLE, BL_NOWHERE, SC_HELLO_NOT_SENT, path);
    else if (r == 0)
        bl_fail(err, GPU_EUNAVAILABLE, BL_NOWHERE, SC_NO_ANSWER, path);
    else if (r != 1)
        bl_fail(err, GPU_EUNAVAILABLE, BL_NOWHERE, SC_HUNG_UP, path);
    else if (sw_get_info(p, n, info, err) == 0)
        ok = 1;
    if (!ok) {
        close(s);
        return -1;
    }
    rx_used(x, n);
    *fd = s;
    return 0;
}

/* The server of the default socket path: path when root's or this user's, else this user's
 * own name beside it (serve_own_path). Nobody else's socket is tried (a learner could plant
 * one that never answers, or answer in the server's place). 0, or -1 with err: the more
 * telling of the two reasons. */
#define SC_PATH_MAX 300

static int hello(const char *path, int others, int device, struct rx *x, int *fd,
                 struct gpu_info *info, char at[SC_PATH_MAX], struct bl_err *err)
{
    bl_fmt(at, SC_PATH_MAX, "%s", path);
    if (!others)
        return hello_at(path, 0, device, x, fd, info, err);
    struct bl_err e1 = {0}, e2 = {0};
    if (hello_at(path, 1, device, x, fd, info, &e1) == 0)
        return 0;
    char own[SC_PATH_MAX];
    serve_own_path(path, own, sizeof own);
    if (strcmp(own, path) && hello_at(own, 1, device, x, fd, info, &e2) == 0) {
        bl_fmt(at, SC_PATH_MAX, "%s", own);
        return 0;
    }
    /* a missing own name says less than what was wrong with the shared one */
    *err = bl_err_failed(&e2) && e1.why.id == SC_NO_SERVER_AT && e2.why.id != SC_NO_SERVER_AT
               ? e2 : e1;
    return -1;
}

/* ---- paths and start-up ---- */

/* the name of device's server: its UUID ("fake" with $BANKLAB_SERVE_FAKE=1). 0, or -1 */
static int serve_key(int device, char *key, size_t n, struct bl_err *err)
{
    const char *fake = sys_env("BANKLAB_SERVE_FAKE");
    if (fake && !strcmp(fake, "1")) {
        bl_fmt(key, n, "fake");
        return 0;
    }
    unsigned char uuid[16];
    if (gpu_device_uuid(device, uuid, err))
        return -1;
    devlock_key(uuid, key, n);
    return 0;
}

int serve_default_path(int device, char *path, size_t n, struct bl_err *err)
{
    char key[64], dir[256];
    if (serve_key(device, key, sizeof key, err) ||
        devlock_share_dir(SERVE_DIR_NAME, dir, sizeof dir, err))
        return -1;
    bl_fmt(path, n, "%s/gpu-%s.sock", dir, key);
    return 0;
}

/* The flock that lets one of this user's clients start the server: "<own socket>.start",
 * opened without following a link and without waiting (O_NONBLOCK: a FIFO planted there must
 * not block us), used only when it is a regular file of root's or this user's. -1 with a note
 * why when not usable: the server is then started without it (a second server of this user
 * finds the first listening and leaves). */
static int start_lock(const char *spath, struct bl_err *note)
{
    const int fl = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
    int lf = open(spath, fl);
    if (lf < 0 && errno == ENOENT) {
        lf = open(spath, fl | O_CREAT | O_EXCL, 0644);
        if (lf < 0 && errno == EEXIST)
            lf = open(spath, fl);
    }
    struct stat st;
    if (lf >= 0 && fstat(lf, &st) == 0 && S_ISREG(st.st_mode) && serve_trusted_uid(st.st_uid))
        return lf;
    if (lf >= 0 || lstat(spath, &st) == 0) {
        if (lf >= 0 && fstat(lf, &st))
            memset(&st, 0, sizeof st);
        bl_fail(note, GPU_EUNAVAILABLE, BL_NOWHERE, SC_START_NOT_USED, spath, (unsigned)st.st_uid,
                (unsigned)(st.st_mode & 07777));
    } else {
        bl_fail(note, GPU_EUNAVAILABLE, BL_NOWHERE, SC_CANNOT_USE_START, spath);
    }
    if (lf >= 0)
        close(lf);
    return -1;
}

/* Starts a server for path unless one answers; one at a time for this user's clients (an
 * flock beside this user's socket). 0 when one answers or started, -1 with err; note: what
 * was not used on the way (a planted .start). */
static int start_server(int device, const char *path, struct bl_err *note, struct bl_err *err)
{
    char own[SC_PATH_MAX], spath[SC_PATH_MAX + 8];
    serve_own_path(path, own, sizeof own);
    bl_fmt(spath, sizeof spath, "%s.start", own);
    int lf = start_lock(spath, note);
    double until = bl_now_ms() / 1e3 + SC_START_MS / 1e3;
    while (lf >= 0 && flock(lf, LOCK_EX | LOCK_NB)) {
        if (bl_now_ms() / 1e3 > until) {
            close(lf);
            return bl_fail(err, GPU_EUNAVAILABLE, BL_NOWHERE, SC_STARTING_FOR,
                           SC_START_MS / 1000);
        }
        nap_ms(20);
    }
    struct rx *x = malloc(sizeof *x);
    struct gpu_info info;
    struct bl_err e = {0};
    int fd = -1;
    char at[SC_PATH_MAX];
    if (x && hello(path, 1, device, x, &fd, &info, at, &e) == 0) {
        close(fd);                 /* another client started it meanwhile */
        free(x);
        if (lf >= 0)
            close(lf);
        return 0;
    }
    free(x);
    int pp[2];
    if (pipe2(pp, O_CLOEXEC)) {
        if (lf >= 0)
            close(lf);
        return bl_fail(err, GPU_EUNAVAILABLE, BL_NOWHERE, SC_PIPE, strerror(errno));
    }
    char dev[16];
    snprintf(dev, sizeof dev, "%d", device);
    const char *fake = sys_env("BANKLAB_SERVE_FAKE");
    char *argv[] = {"banklab", "serve", "--device", dev, "--idle", IDLE_TEXT, "--socket", (char *)path,
                    "--ready-fd", "3", fake && !strcmp(fake, "1") ? "--fake" : NULL, NULL};
    /* the detached server: a session of its own and nobody's child, stdio to /dev/null, the
     * ready pipe as fd 3, no signal blocked (the forking thread's mask would be inherited) */
    struct sys_spawn sp = {.argv = argv, .file = "/proc/self/exe", .group = SYS_DETACHED,
                           .fd = {SYS_FD_NULL, SYS_FD_NULL, SYS_FD_NULL}, .fd3 = pp[1],
                           .close_from = 4, .unblock_all = 1};
    pid_t pid = sys_spawn(&sp);
    close(pp[1]);
    char msg[GPU_TEXT_MAX] = "";
    size_t got = 0;
    while (pid > 0 && got < sizeof msg - 1) {
        int left = (int)((until - bl_now_ms() / 1e3) * 1e3);
        struct pollfd p = {pp[0], POLLIN, 0};
        if (left <= 0 || poll(&p, 1, left) <= 0)
            break;
        ssize_t k = read(pp[0], msg + got, sizeof msg - 1 - got);
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    msg[got] = '\0';
    close(pp[0]);
    if (lf >= 0)
        close(lf);                 /* the next client finds it listening */
    if (!strcmp(msg, "ok\n"))
        return 0;
    return bl_fail(err, GPU_EUNAVAILABLE, BL_NOWHERE, SC_DID_NOT_START, pid < 0 ? strerror(errno)
                   : msg[0] ? msg : "no answer");
}

/* ---- the handle ---- */

struct pend {
    struct gpu_request req;
    double since;
    int sent;                      /* on the current connection */
    double heard;                  /* seconds: submitted, or the server last said where it is */
    int phase, ahead;              /* what the server said last */
};

struct sc {
    char path[256];
    char served_by[SC_PATH_MAX];   /* path, or this user's name beside it (thread only) */
    int device;
    int autostart;                 /* the default socket: start a server when none answers */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int wake[2];                   /* submit and close wake the thread */
    int fd;                        /* thread only */
    struct rx rx;                  /* thread only */
    struct pend p[SC_PENDING];     /* oldest first */
    int np;
    struct gpu_result r[SC_PENDING];
    struct gpu_ring done;          /* over r[] */
    int down;                      /* connection lost with requests pending: reconnecting */
    double last_start;
    double next_try;               /* seconds: reconnect not before (thread only) */
    int retry_ms;                  /* the wait after the next failed try (thread only) */
    char down_why[GPU_TEXT_MAX];
    int stop;
    int exited, detached;          /* the thread ended; c_close left it to free C itself */
};

static void push_result(struct sc *C, const struct gpu_result *r)
{
    if (gpu_ring_put(&C->done, r))
        return;                    /* cannot happen: submit keeps np + the ring below */
    pthread_cond_broadcast(&C->cv);
}

/* under mu: the answer to pending request k (removed) */
static void answer(struct sc *C, int k, const struct gpu_result *r)
{
    push_result(C, r);
    memmove(&C->p[k], &C->p[k + 1], (size_t)(C->np - k - 1) * sizeof C->p[0]);
    C->np--;
}

static int find_pending(const struct sc *C, uint64_t id)
{
    for (int k = 0; k < C->np; k++)
        if (C->p[k].req.id == id && C->p[k].sent)
            return k;
    return -1;
}

static void on_frame(struct sc *C, int type, const uint8_t *p, uint32_t n)
{
    struct bl_err err = {0};
    if (type == SW_RESULT) {
        struct gpu_result r;
        if (sw_get_result(p, n, &r, &err) && r.id == 0)
            return;           /* refused before its id: no request to tell */
        r.from_server = 1;
        pthread_mutex_lock(&C->mu);
        int k = find_pending(C, r.id);
        if (k >= 0)
            answer(C, k, &r);
        pthread_mutex_unlock(&C->mu);
        if (k >= 0)
            C->retry_ms = SC_RETRY_MS;     /* answered: reconnecting starts quick again */
    } else if (type == SW_PROGRESS) {
        struct sw_progress pr;
        if (sw_get_progress(p, n, &pr, &err))
            return;
        pthread_mutex_lock(&C->mu);
        int k = find_pending(C, pr.id);
        if (k >= 0) {
            C->p[k].phase = pr.phase;
            C->p[k].ahead = pr.ahead;
            C->p[k].heard = bl_now_ms() / 1e3;
        }
        pthread_mutex_unlock(&C->mu);
    }
}

/* The next connection waits longer: a server that is gone, or that closes every connection
 * that asks, is not knocked on more than SC_RETRY_MAX_MS apart once it failed a few times. */
static void back_off(struct sc *C)
{
    C->next_try = bl_now_ms() / 1e3 + C->retry_ms / 1e3;
    C->retry_ms = C->retry_ms * 2 > SC_RETRY_MAX_MS ? SC_RETRY_MAX_MS : C->retry_ms * 2;
}

/* The connection ends (why). Only with requests pending is the client down (reconnecting
 * after a wait that grows until one is answered, back_off; each fails SC_GIVEUP_S after it
 * last heard of itself): a server that closed an idle connection is simply connected to
 * again at the next request. */
static void disconnect(struct sc *C, const char *why)
{
    if (C->fd >= 0)
        close(C->fd);
    C->fd = -1;
    pthread_mutex_lock(&C->mu);
    int pending = C->np > 0;
    C->down |= pending;
    bl_fmt(C->down_why, sizeof C->down_why, "%s", why);
    for (int k = 0; k < C->np; k++)
        C->p[k].sent = 0;          /* sent again on the next connection */
    pthread_mutex_unlock(&C->mu);
    if (pending)
        back_off(C);
}

/* Every request that heard nothing about itself (where it is, or its answer) for SC_GIVEUP_S
 * fails: the server stalled, lost it, or is gone. Bytes that are not about it (a frame
 * dripped, progress of another request) do not keep it waiting; a live server says where
 * each request is every few seconds (daemon.c's keepalive). When one failed on a connection,
 * that connection is dropped (the next request connects anew). */
static void deadlines(struct sc *C)
{
    double now = bl_now_ms() / 1e3;
    int any = 0;
    pthread_mutex_lock(&C->mu);
    for (int k = 0; k < C->np;) {
        if (now - C->p[k].heard <= SC_GIVEUP_S) {
            k++;
            continue;
        }
        struct gpu_result r;
        memset(&r, 0, sizeof r);
        r.id = C->p[k].req.id;
        r.from_server = 1;
        if (C->fd >= 0 && C->p[k].sent) {
            bl_fail(&r.err, GPU_EFAILED, BL_NOWHERE, SC_STALLED, C->path, SC_GIVEUP_S);
            any = 1;
        } else {
            bl_fail(&r.err, GPU_EFAILED, BL_NOWHERE, SRV_NO_SERVER_FOR, SC_GIVEUP_S, C->down_why);
        }
        answer(C, k, &r);
    }
    pthread_mutex_unlock(&C->mu);
    if (any)
        disconnect(C, "the GPU server stalled");
}

static void connected(struct sc *C)
{
    pthread_mutex_lock(&C->mu);
    C->down = 0;
    pthread_mutex_unlock(&C->mu);
}

static void reconnect(struct sc *C)
{
    struct bl_err err = {0};
    struct gpu_info info;
    if (hello(C->path, C->autostart, C->device, &C->rx, &C->fd, &info, C->served_by, &err) == 0) {
        connected(C);
        return;
    }
    C->fd = -1;
    if (C->autostart && bl_now_ms() / 1e3 - C->last_start >= SC_RESTART_S) {
        C->last_start = bl_now_ms() / 1e3;
        struct bl_err e2 = {0}, note = {0};
        if (start_server(C->device, C->path, &note, &e2) == 0 &&
            hello(C->path, 1, C->device, &C->rx, &C->fd, &info, C->served_by, &err) == 0) {
            connected(C);
            return;
        }
        C->fd = -1;
        if (bl_err_failed(&e2))
            err = e2;
    }
    pthread_mutex_lock(&C->mu);
    int pending = C->np > 0;
    pthread_mutex_unlock(&C->mu);
    if (pending)
        disconnect(C, err.msg);    /* and the next try waits longer */
    else
        back_off(C);
}

/* Sends the pending requests not sent on this connection. */
static void send_pending(struct sc *C)
{
    for (;;) {
        struct sw_buf b;
        uint64_t id = 0;
        int found = 0;
        pthread_mutex_lock(&C->mu);
        for (int k = 0; k < C->np && !found; k++)
            if (!C->p[k].sent) {
                found = 1;
                id = C->p[k].req.id;
                C->p[k].sent = 1;
                if (sw_put_request(&b, &C->p[k].req))
                    found = 2;
            }
        pthread_mutex_unlock(&C->mu);
        if (!found)
            return;
        if (found == 1 && send_all(C->fd, &b, SC_HELLO_MS) == 0)
            continue;
        if (found == 2) {
            struct gpu_result r;
            memset(&r, 0, sizeof r);
            r.id = id;
            bl_fail(&r.err, GPU_EINVAL, BL_NOWHERE, SRV_REQUEST_TOO_LARGE);
            pthread_mutex_lock(&C->mu);
            int k = find_pending(C, id);
            if (k >= 0)
                answer(C, k, &r);
            pthread_mutex_unlock(&C->mu);
            continue;
        }
        disconnect(C, "the GPU server stopped reading");
        return;
    }
}

static void drain_wake(struct sc *C)
{
    char buf[64];
    while (read(C->wake[0], buf, sizeof buf) > 0) {
    }
}

static void sc_free(struct sc *C);

static void *client_main(void *arg)
{
    struct sc *C = arg;
    C->retry_ms = SC_RETRY_MS;
    for (;;) {
        pthread_mutex_lock(&C->mu);
        int stop = C->stop, busy = C->np > 0;
        pthread_mutex_unlock(&C->mu);
        if (stop)
            break;
        if (C->fd < 0 && busy && bl_now_ms() / 1e3 >= C->next_try)
            reconnect(C);
        deadlines(C);
        if (C->fd >= 0)
            send_pending(C);
        int wait_ms = SC_RETRY_MS;
        if (C->fd < 0 && busy) {
            int left = (int)((C->next_try - bl_now_ms() / 1e3) * 1e3);
            wait_ms = left < 10 ? 10 : left > SC_RETRY_MAX_MS ? SC_RETRY_MAX_MS : left;
        }
        struct pollfd pf[2] = {{C->wake[0], POLLIN, 0}, {C->fd, POLLIN, 0}};
        int r = poll(pf, C->fd >= 0 ? 2 : 1, C->fd >= 0 ? 1000 : wait_ms);
        if (r > 0 && (pf[0].revents & POLLIN))
            drain_wake(C);
        if (C->fd < 0 || r <= 0 || !(pf[1].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        if (rx_fill(&C->rx, C->fd) < 0) {
            disconnect(C, "the GPU server closed the connection");
            continue;
        }
            int type, fr;
        const uint8_t *p;
        uint32_t n;
        while ((fr = rx_frame(&C->rx, &type, &p, &n)) == 1) {
            on_frame(C, type, p, n);
            rx_used(&C->rx, n);
        }
        if (fr < 0)
            disconnect(C, "the GPU server sent a broken frame");
    }
    pthread_mutex_lock(&C->mu);
    int left_alone = C->detached;
    C->exited = 1;
    pthread_mutex_unlock(&C->mu);
    if (left_alone)
        sc_free(C);                /* c_close did not wait for us */
    return NULL;
}

static void wake(struct sc *C)
{
    char c = 1;
    ssize_t k = write(C->wake[1], &c, 1);
    (void)k;                       /* a full pipe wakes the thread as well */
}

static enum gpu_status c_submit(void *impl, const struct gpu_request *req)
{
    struct sc *C = impl;
    enum gpu_status st = GPU_OK;
    pthread_mutex_lock(&C->mu);
    if (C->np + C->done.count >= SC_PENDING) {
        st = GPU_EBUSY;
    } else {
        struct pend *p = &C->p[C->np++];
        memset(p, 0, sizeof *p);
        p->req = *req;
        p->since = p->heard = bl_now_ms() / 1e3;
        p->phase = GPU_PHASE_MEASURING;
    }
    pthread_mutex_unlock(&C->mu);
    if (st == GPU_OK)
        wake(C);
    return st;
}

static void c_progress(void *impl, struct gpu_progress *out)
{
    struct sc *C = impl;
    pthread_mutex_lock(&C->mu);
    if (C->np > 0) {
        const struct pend *p = &C->p[0];
        out->id = p->req.id;
        out->seconds = bl_now_ms() / 1e3 - p->since;
        out->phase = C->down ? GPU_PHASE_RECONNECTING : (enum gpu_phase)p->phase;
        out->ahead = C->down ? 0 : p->ahead;
    }
    pthread_mutex_unlock(&C->mu);
}

/* C and what it holds, its thread ended (or never started). */
static void sc_free(struct sc *C)
{
    if (C->fd >= 0)
        close(C->fd);
    for (int i = 0; i < 2; i++)
        if (C->wake[i] >= 0)
            close(C->wake[i]);
    pthread_mutex_destroy(&C->mu);
    pthread_cond_destroy(&C->cv);
    free(C);
}

/* Stops the thread and frees C; never waits more than SC_CLOSE_MS (a quitting tutorial must
 * not hang on a server): a thread still inside a bounded connect or hello then frees C
 * itself when it ends. */
static void c_close(void *impl)
{
    struct sc *C = impl;
    pthread_t th = C->thread;      /* C may be freed by the thread once it is left alone */
    pthread_mutex_lock(&C->mu);
    C->stop = 1;
    pthread_mutex_unlock(&C->mu);
    wake(C);
    double until = bl_now_ms() + SC_CLOSE_MS;
    for (;;) {
        pthread_mutex_lock(&C->mu);
        int exited = C->exited;
        if (!exited && bl_now_ms() >= until)
            C->detached = 1;
        int detached = C->detached;
        pthread_mutex_unlock(&C->mu);
        if (exited) {
            pthread_join(th, NULL);
            sc_free(C);
            return;
        }
        if (detached) {
            pthread_detach(th);
            return;
        }
        nap_ms(5);
    }
}

static const struct gpu_ops client_ops = {c_submit, NULL, NULL, c_close, c_progress};

/* A client of the server at path (autostart: the default socket, restarted when it dies). */
static struct gpu *open_client(const char *path, int device, int autostart, struct gpu_info *info,
                               struct bl_err *err)
{
    struct sc *C = calloc(1, sizeof *C);
    if (!C)
        return NULL;
    bl_fmt(C->path, sizeof C->path, "%s", path);
    C->done = (struct gpu_ring){C->r, SC_PENDING, 0, 0, &C->mu, &C->cv};
    C->device = device;
    C->autostart = autostart;
    C->fd = C->wake[0] = C->wake[1] = -1;
    pthread_mutex_init(&C->mu, NULL);
    pthread_cond_init(&C->cv, NULL);
    struct gpu_info si;
    if (hello(path, autostart, device, &C->rx, &C->fd, &si, C->served_by, err) == 0 &&
        pipe2(C->wake, O_CLOEXEC | O_NONBLOCK))
        bl_fail(err, GPU_EUNAVAILABLE, BL_NOWHERE, SC_PIPE, strerror(errno));
    else if (!bl_err_failed(err) && pthread_create(&C->thread, NULL, client_main, C))
        bl_fail(err, GPU_EUNAVAILABLE, BL_NOWHERE, SC_NO_THREAD);
    if (bl_err_failed(err)) {
        sc_free(C);
        return NULL;
    }
    if (info) {
        *info = si;
        if (si.lock_msg.id == BL_MSG_NONE) /* the server's text only: it stays as it came */
            bl_msg_set(&si.lock_msg, NULL, 0, BL_TEXT, si.lock);
        bl_msg_set(&info->lock_msg, info->lock, sizeof info->lock, SC_SERVED_BY_TURNS,
                   C->served_by, &si.lock_msg);
    }
    return gpu_wrap_new(&client_ops, C, &C->done, si.backend);
}

/* gpu_open_server: a client of the GPU server (`banklab serve`) listening on the Unix socket
 * at path: requests go to it and its results come back (no CUDA in this
 * process, no GPU memory). device is only told to the server. Waits at most a few seconds for
 * the server's hello; when none answers, the handle is unavailable and info.err says why.
 * A server that goes away later is reconnected to and the unanswered requests are sent again
 * (gpu_progress: GPU_PHASE_RECONNECTING); after 30 s without a server they fail. */
static struct gpu *gpu_open_server(const char *path, int device, struct gpu_info *info)
{
    struct bl_err err = {0};
    struct gpu *g = open_client(path, device, 0, info, &err);
    if (g)
        return g;
    bl_fail(&err, GPU_EUNAVAILABLE, BL_NOWHERE, PAT_OUT_OF_MEMORY); /* when nothing else failed */
    return gpu_unavailable(info, &err);
}

/* No server to be had (why): the runner in this process, its info saying why it was not
 * served (the reason in its turns' line, or before its own reason when it has no GPU). */
static struct gpu *in_process(int device, struct gpu_info *info, const struct bl_err *why)
{
    struct gpu *g = gpu_open(device, info);
    if (!info)
        return g;
    if (info->available) {
        struct bl_msg lock = info->lock_msg;
        if (lock.id == BL_MSG_NONE)
            bl_msg_set(&lock, NULL, 0, BL_TEXT, info->lock);
        struct bl_msg wm;
        bl_err_msg(why, &wm);
        bl_msg_set(&info->lock_msg, info->lock, sizeof info->lock, SC_NOT_SERVED, &wm, &lock);
    } else {
        struct bl_err own = info->err;
        bl_err_clear(&info->err);
        bl_fail(&info->err, own.status ? own.status : GPU_EUNAVAILABLE, BL_NOWHERE, SC_FALLBACK,
                why->msg, own.msg);
    }
    return g;
}

struct gpu *gpu_open_auto(int device, const char *server, int no_server, struct gpu_info *info)
{
    if (!server || !*server)
        server = sys_env("BANKLAB_SERVER");
    if (server && *server)
        return gpu_open_server(server, device, info);
    const char *ns = sys_env("BANKLAB_NO_SERVER");
    if (no_server || (ns && !strcmp(ns, "1")))
        return gpu_open(device, info);
    char path[256], key[64], dir[256];
    struct bl_err err = {0}, note = {0};
    if (serve_key(device, key, sizeof key, &err))
        return gpu_open(device, info);       /* no driver, no device: today's reason */
    if (devlock_share_dir(SERVE_DIR_NAME, dir, sizeof dir, &err))
        return in_process(device, info, &err); /* a directory another user could rule */
    bl_fmt(path, sizeof path, "%s/gpu-%s.sock", dir, key);
    struct gpu *g = open_client(path, device, 1, info, &err);
    if (g)
        return g;
    struct bl_err first = err;
    bl_err_clear(&err);
    if (start_server(device, path, &note, &err) == 0 &&
        (g = open_client(path, device, 1, info, &err))) {
        if (bl_err_failed(&note) && info) { /* a planted start lock, said in the turns' line */
            struct bl_msg lock = info->lock_msg, nm;
            if (lock.id == BL_MSG_NONE)
                bl_msg_set(&lock, NULL, 0, BL_TEXT, info->lock);
            bl_err_msg(&note, &nm);
            bl_msg_set(&info->lock_msg, info->lock, sizeof info->lock, SC_TURNS_AND_NOTE, &lock, &nm);
        }
        return g;
    }
    return in_process(device, info, bl_err_failed(&err) ? &err : &first);
}

int serve_control(const char *path, int pause, int seconds, struct serve_stats *st, struct bl_err *err)
{
    struct rx *x = calloc(1, sizeof *x);
    struct gpu_info info;
    int fd = -1, rc = -1, r;
    if (!x)
        return bl_fail(err, GPU_EUNAVAILABLE, BL_NOWHERE, GPU_OUT_OF_MEMORY);
    char at[SC_PATH_MAX];
    if (hello(path, 1, 0, x, &fd, &info, at, err) == 0) {
        struct sw_control c = {pause ? SW_CTL_PAUSE : SW_CTL_STATS, seconds};
        struct sw_buf b;
        const uint8_t *p;
        uint32_t n;
        if (sw_put_control(&b, &c) || send_all(fd, &b, SC_HELLO_MS))
            bl_fail(err, GPU_EUNAVAILABLE, BL_NOWHERE, SC_NOT_TAKEN, path);
        else if ((r = wait_frame(x, fd, SW_STATS, &p, &n, SC_HELLO_MS)) == 2)
            refused(p, n, path, err);      /* a pause from neither the owner nor root */
        else if (r != 1)
            bl_fail(err, GPU_EUNAVAILABLE, BL_NOWHERE, SC_NO_ANSWER, path);
        else
            rc = sw_get_stats(p, n, st, err);
        close(fd);
    }
    free(x);
    return rc;
}
