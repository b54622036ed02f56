/* server.c: warm measuring processes for `banklab kernel`. After answering a request a
 * measuring process listens on a Unix socket of its own (one per binary,
 * $CUDA_VISIBLE_DEVICES and device, in a directory only the user can enter). A process that
 * has measured on the GPU cannot measure again (CUPTI 13 takes one SASS configuration per
 * process), so it hands the socket to a successor that opens the device and CUPTI at once
 * and then waits: the next request finds the driver's start-up done. Without a GPU one
 * process answers any number of requests (they only compile). A waiting process leaves after
 * `idle` seconds; the caller kills one at a request's time limit. No CUDA here. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <unistd.h>

#include "../kernel/kernel.h"
#include "kmeasure.h"
#include "../base/hash.h"
#include "../sys/sys.h"

#define REQUEST_WAIT_MS 10000 /* a client that connects sends its request at once */

/* A directory only we can enter: made 0700 when missing, refused when someone else's. */
static int private_dir(const char *dir)
{
    struct stat st;
    if (mkdir(dir, 0700) && errno != EEXIST)
        return -1;
    if (lstat(dir, &st) || !S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
        (st.st_mode & 077))
        return -1;
    return 0;
}

int kserver_path(int device, char *path, size_t size)
{
    char dir[108];
    const char *rt = sys_env("XDG_RUNTIME_DIR");
    if (rt && rt[0] == '/' && strlen(rt) + 10 < sizeof dir) {
        snprintf(dir, sizeof dir, "%s/banklab", rt);
    } else {
        snprintf(dir, sizeof dir, "/tmp/banklab-%lu", (unsigned long)getuid());
    }
    if (private_dir(dir))
        return -1;
    /* this binary (a rebuilt one gets its own server), the devices CUDA may see, the device */
    struct stat self;
    if (stat("/proc/self/exe", &self))
        return -1;
    uint64_t h = BL_HASH_SEED;
    h = bl_hash(h, &self.st_dev, sizeof self.st_dev);
    h = bl_hash(h, &self.st_ino, sizeof self.st_ino);
    h = bl_hash(h, &self.st_mtime, sizeof self.st_mtime);
    h = bl_hash(h, &self.st_size, sizeof self.st_size);
    const char *vis = sys_env("CUDA_VISIBLE_DEVICES");
    h = bl_hash(h, vis ? vis : "(unset)", strlen(vis ? vis : "(unset)") + 1);
    h = bl_hash(h, &device, sizeof device);
    int n = snprintf(path, size, "%s/kernel-%016llx.sock", dir, (unsigned long long)h);
    struct sockaddr_un a;
    if (n < 0 || (size_t)n >= size || (size_t)n >= sizeof a.sun_path)
        return -1;
    return 0;
}

/* A Unix stream socket and the address of path. -1 when no socket can be made. */
static int unix_socket(const char *path, struct sockaddr_un *a)
{
    return sys_sock_addr(path, a) ? -1 : sys_sock_new(0);
}

int kserver_connect(const char *path)
{
    struct sockaddr_un a;
    int fd = unix_socket(path, &a);
    if (fd < 0)
        return -1;
    if (sys_sock_connect(fd, &a)) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The socket file this process serves on, as it was when bound (kserver_listen) or as the
 * predecessor passed it (kserver_spare): a server that leaves removes path only while it is
 * still that file. A late one must not take away the socket of the server that came after
 * it (an idle one ending while the next run's process binds the name anew). */
static struct {
    int known;
    unsigned long long dev, ino;
} own;

static void own_note(const char *path)
{
    struct stat st;
    own.known = lstat(path, &st) == 0;
    own.dev = (unsigned long long)st.st_dev;
    own.ino = (unsigned long long)st.st_ino;
}

static void drop_path(const char *path)
{
    struct stat st;
    if (own.known && (lstat(path, &st) || (unsigned long long)st.st_dev != own.dev ||
                      (unsigned long long)st.st_ino != own.ino))
        return;                    /* no longer ours */
    unlink(path);
}

int kserver_listen(const char *path)
{
    struct sockaddr_un a;
    int fd = unix_socket(path, &a);
    if (fd < 0)
        return -1;
    if (sys_sock_bind(fd, &a)) {
        /* a socket file is there: a live server keeps it, a dead one left it behind */
        int other = errno == EADDRINUSE ? kserver_connect(path) : -1;
        if (other >= 0 || errno != ECONNREFUSED || unlink(path) ||
            sys_sock_bind(fd, &a)) {
            if (other >= 0)
                close(other);
            close(fd);
            return -1;
        }
    }
    own_note(path);
    if (sys_sock_listen(fd, 8)) {
        drop_path(path);
        close(fd);
        return -1;
    }
    return fd;
}

/* The end of what the kernel printed during a request (its stdout and stderr are `out`). */
static void take_output(int out, struct gpu_kernel_result *res)
{
    off_t end = lseek(out, 0, SEEK_END);
    if (end <= 0)
        return;
    size_t keep = sizeof res->output - 1;
    off_t from = end > (off_t)keep ? end - (off_t)keep : 0;
    ssize_t n = pread(out, res->output, (size_t)(end - from), from);
    res->output[n > 0 ? n : 0] = '\0';
}

static void serve_one(struct kstate *st, int conn, int out)
{
    struct pollfd p = {conn, POLLIN, 0};
    if (poll(&p, 1, REQUEST_WAIT_MS) <= 0)
        return;
    struct gpu_kernel_request req;
    char *src = NULL, cwd[PATH_MAX];
    size_t len = 0;
    if (kwire_get_request(conn, &req, &src, &len, cwd, NULL))
        return;
    if (cwd[0] && chdir(cwd) != 0) /* the request's relative paths are its caller's */
        cwd[0] = '\0';
    kwire_hello(conn, 1);
    struct gpu_kernel_result *res = calloc(1, sizeof *res);
    if (!res) {
        free(src);
        return;
    }
    if (ftruncate(out, 0) == 0)
        lseek(out, 0, SEEK_SET);
    res->timing.warm = 1;
    if (kres_add_file(res, req.path) < 0)
        bl_fail(&res->err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, GPU_OUT_OF_MEMORY);
    else
        kstate_watched(st, &req, src, len, res, conn);
    fflush(stdout);
    fflush(stderr);
    take_output(out, res);
    kwire_put_result(conn, res);
    gpu_kernel_result_done(res);
    free(res);
    free(src);
}

int kserver_can_serve(const struct kstate *st)
{
    /* BANKLAB_KERNEL_ONE_REQUEST: every process takes one request, as on a GPU (tests) */
    return kstate_can_serve(st) && !sys_env("BANKLAB_KERNEL_ONE_REQUEST");
}

/* A successor for the socket: a fresh measuring process that inherits lfd, opens the
 * device and CUPTI, and waits for the next request. 0 when it started. */
/* in the successor before exec: lfd is inherited */
static void keep_listener(void *ctx)
{
    int lfd = *(const int *)ctx;
    int flags = fcntl(lfd, F_GETFD);
    if (flags < 0 || fcntl(lfd, F_SETFD, flags & ~FD_CLOEXEC) < 0)
        _exit(127);
}

static int successor(int lfd, const char *path, int idle, int device)
{
    char a_lfd[16], a_idle[16], a_dev[16], a_own[48];
    snprintf(a_lfd, sizeof a_lfd, "%d", lfd);
    snprintf(a_idle, sizeof a_idle, "%d", idle);
    snprintf(a_dev, sizeof a_dev, "%d", device);
    snprintf(a_own, sizeof a_own, "%llu:%llu", own.dev, own.ino);
    char *argv[] = {"banklab", "__kernel-child", "--spare", a_lfd, a_idle, a_dev,
                    (char *)path, own.known ? a_own : NULL, NULL};
    struct sys_spawn sp = {.argv = argv, .file = "/proc/self/exe", .group = SYS_OWN_SESSION,
                           .fd = {SYS_FD_KEEP, SYS_FD_KEEP, SYS_FD_KEEP}, .fd3 = -1,
                           .setup = keep_listener, .ctx = &lfd};
    return sys_spawn(&sp) > 0 ? 0 : -1;
}

int kserver_handover(int lfd, const char *path, int idle, int device)
{
    int ok = successor(lfd, path, idle, device) == 0;
    if (!ok)
        drop_path(path);
    close(lfd);
    return ok ? 0 : 1;
}

int kserver_loop(struct kstate *st, int device, int lfd, const char *path, int idle)
{
    /* the kernel's printf and our stderr go to a file read after each request: a pipe could
     * fill up while the kernel prints and nobody reads */
    FILE *out = tmpfile();
    int nul = open("/dev/null", O_RDONLY);
    if (!out || nul < 0 || dup2(fileno(out), 1) < 0 || dup2(fileno(out), 2) < 0 || dup2(nul, 0) < 0) {
        drop_path(path);
        close(lfd);
        return 1;
    }
    close(nul);
    int handed = 0;
    for (;;) {
        struct pollfd p = {lfd, POLLIN, 0};
        int r = poll(&p, 1, idle * 1000);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break; /* idle long enough */
        int conn = sys_sock_accept(lfd, 0);
        if (conn < 0)
            continue;
        fcntl(conn, F_SETFD, FD_CLOEXEC);
        serve_one(st, conn, fileno(out));
        close(conn);
        if (!kserver_can_serve(st)) {
            handed = successor(lfd, path, idle, device) == 0;
            break;
        }
    }
    if (!handed)
        drop_path(path);
    close(lfd);
    fclose(out);
    return 0;
}

int kserver_spare(int argc, char **argv)
{
    if (argc != 4 && argc != 5)
        return 2;
    int lfd = atoi(argv[0]), idle = atoi(argv[1]), device = atoi(argv[2]);
    const char *path = argv[3];
    own.known = argc == 5 && sscanf(argv[4], "%llu:%llu", &own.dev, &own.ino) == 2;
    if (lfd < 3 || idle <= 0 || device < 0)
        return 2;
    fcntl(lfd, F_SETFD, FD_CLOEXEC);
    struct gpu_kernel_result *res = calloc(1, sizeof *res);
    struct kstate *st = res ? kstate_new(device, res) : NULL;
    if (!st) {
        free(res);
        drop_path(path);
        return 1;
    }
    kstate_prepare(st, res);
    gpu_kernel_result_done(res);
    free(res);
    int rc = kserver_loop(st, device, lfd, path, idle);
    kstate_free(st);
    return rc;
}

static void marker(const char *path, char *buf, size_t size)
{
    snprintf(buf, size, "%s.off", path);
}

int kserver_disabled(const char *path)
{
    char m[128];
    marker(path, m, sizeof m);
    return access(m, F_OK) == 0;
}

void kserver_disable(const char *path)
{
    char m[128];
    marker(path, m, sizeof m);
    int fd = open(m, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0)
        close(fd);
}
