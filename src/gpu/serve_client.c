/* serve_client.c: the client of `banklab serve` behind gpu.h (gpu_open_server, gpu_open_auto)
 * and the paths and start-up of the server. A thread of the handle talks to the server: it
 * sends what was submitted, reads results and progress, and when the server goes away it
 * reconnects (starting a new server when this client started the first one itself: the
 * default socket) and sends every unanswered request again. Every wait is bounded: a request
 * fails after SC_GIVEUP_S without a server. No CUDA here, no GPU memory; never prints. */
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
#include "devlock.h"
#include "gpu_impl.h"
#include "serve.h"
#include "serve_wire.h"

#define SC_PENDING 256
#define SC_HELLO_MS 5000           /* the server answers a hello this fast, or is not there */
#define SC_START_MS 20000          /* a server started here is listening this fast */
#define SC_GIVEUP_S 30.0           /* requests fail after this long without a server */
#define SC_RETRY_MS 200
#define SC_RESTART_S 2.0           /* a new server is started at most this often */
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

/* Waits up to timeout_ms for a frame of type want (others are skipped). 1 with p/n, 0 on
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
        if (r == 1) {
            rx_used(x, *n);
            continue;
        }
        int left = (int)((until - bl_now_ms() / 1e3) * 1e3);
        struct pollfd pf = {fd, POLLIN, 0};
        if (left <= 0)
            return 0;
        if (poll(&pf, 1, left) < 0 && errno != EINTR)
            return -1;
        if ((pf.revents & (POLLIN | POLLHUP | POLLERR)) && rx_fill(x, fd) < 0)
            return -1;
    }
}

static int connect_path(const char *path)
{
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof a.sun_path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(a.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&a, sizeof a)) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

/* The server at path, or one of this name's other users ("<path>-u<uid>.sock", when a
 * server could not take the name itself: serve.c's own_name). -1 with errno. */
static int connect_any(const char *path, int others)
{
    int fd = connect_path(path);
    if (fd >= 0 || !others)
        return fd;
    int e = errno;
    char dir[256], base[128];
    const char *slash = strrchr(path, '/');
    if (!slash)
        return -1;
    bl_fmt(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    size_t bl = strlen(slash + 1);
    bl_fmt(base, sizeof base, "%.*s-u", (int)(bl > 5 ? bl - 5 : bl), slash + 1);
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d && fd < 0 && (de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (strncmp(de->d_name, base, strlen(base)) || l < 5 || strcmp(de->d_name + l - 5, ".sock"))
            continue;
        char p[384];
        bl_fmt(p, sizeof p, "%s/%s", dir, de->d_name);
        fd = connect_path(p);
    }
    if (d)
        closedir(d);
    errno = fd < 0 ? e : 0;
    return fd;
}

/* Connects and says hello: 0 with *fd and the server's info, -1 with err. */
static int hello(const char *path, int others, int device, struct rx *x, int *fd,
                 struct gpu_info *info, struct bl_err *err)
{
    int s = connect_any(path, others);
    if (s < 0)
        return bl_fail(err, GPU_EUNAVAILABLE, BL_NOWHERE, SC_NO_SERVER_AT, path, strerror(errno));
    x->len = 0;
    struct sw_hello h = {SW_VERSION, device};
    struct sw_buf b;
    const uint8_t *p;
    uint32_t n;
    int ok = 0, r;
    if (sw_put_hello(&b, &h) || send_all(s, &b, SC_HELLO_MS))
        bl_fail(err, GPU_EUNAVAILABLE, BL_NOWHERE, SC_HELLO_NOT_SENT, path);
    else if ((r = wait_frame(x, s, SW_HELLO, &p, &n, SC_HELLO_MS)) == 0)
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

/* ---- paths and start-up ---- */

int serve_default_path(int device, char *path, size_t n, struct bl_err *err)
{
    char key[64], dir[256];
    const char *fake = getenv("BANKLAB_SERVE_FAKE");
    if (fake && !strcmp(fake, "1")) {
        bl_fmt(key, sizeof key, "fake");
    } else {
        unsigned char uuid[16];
        if (gpu_device_uuid(device, uuid, err))
            return -1;
        devlock_key(uuid, key, sizeof key);
    }
    if (devlock_share_dir(SERVE_DIR_NAME, dir, sizeof dir, err))
        return -1;
    bl_fmt(path, n, "%s/gpu-%s.sock", dir, key);
    return 0;
}

/* the detached server: setsid, stdio to /dev/null, the ready pipe as fd 3, no signal blocked
 * (the forking thread's mask would be inherited). Async-signal-safe calls only: argv was made
 * before the fork. */
static void exec_server(char *const argv[], int ready_w)
{
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (setsid() < 0 || fork() != 0)
        _exit(0);                  /* the middle process leaves: no zombie for the client */
    int nul = open("/dev/null", O_RDWR);
    if (nul < 0 || dup2(ready_w, 3) < 0 || dup2(nul, 0) < 0 || dup2(nul, 1) < 0 || dup2(nul, 2) < 0)
        _exit(127);
    for (int fd = 4; fd < 1024; fd++)
        close(fd);
    execv("/proc/self/exe", argv);
    _exit(127);
}

/* Starts a server for path unless one answers; one at a time for every client of the
 * machine (an flock beside the socket). 0 when one answers or started, -1 with err. */
static int start_server(int device, const char *path, struct bl_err *err)
{
    char lpath[300];
    bl_fmt(lpath, sizeof lpath, "%s.start", path);
    int lf = open(lpath, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (lf < 0 && errno == ENOENT) {
        lf = open(lpath, O_RDONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (lf >= 0)
            fchmod(lf, 0666);
        else if (errno == EEXIST)
            lf = open(lpath, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    }
    struct stat st;
    if (lf < 0 || fstat(lf, &st) || !S_ISREG(st.st_mode)) {
        if (lf >= 0)
            close(lf);
        return bl_fail(err, GPU_EUNAVAILABLE, BL_NOWHERE, SC_CANNOT_USE_START, lpath);
    }
    double until = bl_now_ms() / 1e3 + SC_START_MS / 1e3;
    while (flock(lf, LOCK_EX | LOCK_NB)) {
        if (bl_now_ms() / 1e3 > until) {
            close(lf);
            return bl_fail(err, GPU_EUNAVAILABLE, BL_NOWHERE, SC_STARTING_FOR,
                           SC_START_MS / 1000);
        }
        usleep(20000);
    }
    int fd = connect_any(path, 1);
    if (fd >= 0) {                 /* another client started it meanwhile */
        close(fd);
        close(lf);
        return 0;
    }
    int pp[2];
    if (pipe2(pp, O_CLOEXEC)) {
        close(lf);
        return bl_fail(err, GPU_EUNAVAILABLE, BL_NOWHERE, SC_PIPE, strerror(errno));
    }
    char dev[16];
    snprintf(dev, sizeof dev, "%d", device);
    const char *fake = getenv("BANKLAB_SERVE_FAKE");
    char *argv[] = {"banklab", "serve", "--device", dev, "--idle", IDLE_TEXT, "--socket", (char *)path,
                    "--ready-fd", "3", fake && !strcmp(fake, "1") ? "--fake" : NULL, NULL};
    pid_t pid = fork();
    if (pid == 0)
        exec_server(argv, pp[1]);
    close(pp[1]);
    if (pid > 0)
        waitpid(pid, NULL, 0);
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
    close(lf);                     /* the next client finds it listening */
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
    int phase, ahead;              /* what the server said last */
};

struct sc {
    char path[256];
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
    int down;                      /* connection lost: reconnecting */
    double down_since, last_start;
    char down_why[GPU_TEXT_MAX];
    int stop;
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
    } else if (type == SW_PROGRESS) {
        struct sw_progress pr;
        if (sw_get_progress(p, n, &pr, &err))
            return;
        pthread_mutex_lock(&C->mu);
        int k = find_pending(C, pr.id);
        if (k >= 0) {
            C->p[k].phase = pr.phase;
            C->p[k].ahead = pr.ahead;
        }
        pthread_mutex_unlock(&C->mu);
    }
}

static void disconnect(struct sc *C, const char *why)
{
    if (C->fd >= 0)
        close(C->fd);
    C->fd = -1;
    pthread_mutex_lock(&C->mu);
    if (!C->down) {
        C->down = 1;
        C->down_since = bl_now_ms() / 1e3;
    }
    bl_fmt(C->down_why, sizeof C->down_why, "%s", why);
    for (int k = 0; k < C->np; k++)
        C->p[k].sent = 0;          /* sent again on the next connection */
    pthread_mutex_unlock(&C->mu);
}

/* Every request still pending after SC_GIVEUP_S without a server fails. */
static void give_up(struct sc *C)
{
    pthread_mutex_lock(&C->mu);
    while (C->down && C->np > 0 && bl_now_ms() / 1e3 - C->down_since > SC_GIVEUP_S) {
        struct gpu_result r;
        memset(&r, 0, sizeof r);
        r.id = C->p[0].req.id;
        r.from_server = 1;
        bl_fail(&r.err, GPU_EFAILED, BL_NOWHERE, SRV_NO_SERVER_FOR, SC_GIVEUP_S, C->down_why);
        answer(C, 0, &r);
    }
    pthread_mutex_unlock(&C->mu);
}

static void reconnect(struct sc *C)
{
    struct bl_err err = {0};
    struct gpu_info info;
    if (hello(C->path, C->autostart, C->device, &C->rx, &C->fd, &info, &err) == 0) {
        pthread_mutex_lock(&C->mu);
        C->down = 0;
        pthread_mutex_unlock(&C->mu);
        return;
    }
    C->fd = -1;
    if (C->autostart && bl_now_ms() / 1e3 - C->last_start >= SC_RESTART_S) {
        C->last_start = bl_now_ms() / 1e3;
        struct bl_err e2 = {0};
        if (start_server(C->device, C->path, &e2) == 0 &&
            hello(C->path, 1, C->device, &C->rx, &C->fd, &info, &err) == 0) {
            pthread_mutex_lock(&C->mu);
            C->down = 0;
            pthread_mutex_unlock(&C->mu);
            return;
        }
        C->fd = -1;
        if (bl_err_failed(&e2))
            err = e2;
    }
    disconnect(C, err.msg);
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

static void *client_main(void *arg)
{
    struct sc *C = arg;
    for (;;) {
        pthread_mutex_lock(&C->mu);
        int stop = C->stop, busy = C->np > 0;
        pthread_mutex_unlock(&C->mu);
        if (stop)
            break;
        if (C->fd < 0 && busy)
            reconnect(C);
        give_up(C);
        if (C->fd >= 0)
            send_pending(C);
        struct pollfd pf[2] = {{C->wake[0], POLLIN, 0}, {C->fd, POLLIN, 0}};
        int r = poll(pf, C->fd >= 0 ? 2 : 1, C->fd >= 0 ? 1000 : SC_RETRY_MS);
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
        p->since = bl_now_ms() / 1e3;
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

static void c_close(void *impl)
{
    struct sc *C = impl;
    pthread_mutex_lock(&C->mu);
    C->stop = 1;
    pthread_mutex_unlock(&C->mu);
    wake(C);
    pthread_join(C->thread, NULL);
    sc_free(C);
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
    if (hello(path, autostart, device, &C->rx, &C->fd, &si, err) == 0 &&
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
        char lock[GPU_TEXT_MAX];
        bl_fmt(lock, sizeof lock, "served by %s (%s)", path, si.lock);
        bl_fmt(info->lock, sizeof info->lock, "%s", lock);
    }
    return gpu_wrap_new(&client_ops, C, &C->done, si.backend);
}

struct gpu *gpu_open_server(const char *path, int device, struct gpu_info *info)
{
    struct bl_err err = {0};
    struct gpu *g = open_client(path, device, 0, info, &err);
    if (g)
        return g;
    bl_fail(&err, GPU_EUNAVAILABLE, BL_NOWHERE, PAT_OUT_OF_MEMORY); /* when nothing else failed */
    return gpu_unavailable(info, &err);
}

struct gpu *gpu_open_auto(int device, const char *server, int no_server, struct gpu_info *info)
{
    if (!server || !*server)
        server = getenv("BANKLAB_SERVER");
    if (server && *server)
        return gpu_open_server(server, device, info);
    const char *ns = getenv("BANKLAB_NO_SERVER");
    if (no_server || (ns && !strcmp(ns, "1")))
        return gpu_open(device, info);
    char path[256];
    struct bl_err err = {0};
    if (serve_default_path(device, path, sizeof path, &err))
        return gpu_open(device, info);       /* no driver, no device: today's reason */
    struct gpu *g = open_client(path, device, 1, info, &err);
    if (g)
        return g;
    bl_err_clear(&err);
    if (start_server(device, path, &err) == 0 &&
        (g = open_client(path, device, 1, info, &err)))
        return g;
    return gpu_open(device, info);           /* no server: measure in this process */
}

int serve_control(const char *path, int pause, int seconds, struct serve_stats *st, struct bl_err *err)
{
    struct rx *x = calloc(1, sizeof *x);
    struct gpu_info info;
    int fd = -1, rc = -1;
    if (!x)
        return bl_fail(err, GPU_EUNAVAILABLE, BL_NOWHERE, GPU_OUT_OF_MEMORY);
    if (hello(path, 1, 0, x, &fd, &info, err) == 0) {
        struct sw_control c = {pause ? SW_CTL_PAUSE : SW_CTL_STATS, seconds};
        struct sw_buf b;
        const uint8_t *p;
        uint32_t n;
        if (sw_put_control(&b, &c) || send_all(fd, &b, SC_HELLO_MS))
            bl_fail(err, GPU_EUNAVAILABLE, BL_NOWHERE, SC_NOT_TAKEN, path);
        else if (wait_frame(x, fd, SW_STATS, &p, &n, SC_HELLO_MS) != 1)
            bl_fail(err, GPU_EUNAVAILABLE, BL_NOWHERE, SC_NO_ANSWER, path);
        else
            rc = sw_get_stats(p, n, st, err);
        close(fd);
    }
    free(x);
    return rc;
}
