/* job.c: the caller's side of `banklab kernel`: a job sends the request to a running
 * measuring server, or starts a measuring process (a fresh exec of banklab: a CUDA context
 * does not survive fork, and a fault must not reach the caller), reads its frames without
 * blocking, and stops it at the time limit. Also that process's main. No CUDA: both builds
 * have it. Never prints (but for the child's one line on a bad start). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../base/buf.h"
#include "../kernel/kernel.h"
#include "kmeasure.h"
#include "../sys/sys.h"

/* ---- the measuring process ---- */

int gpu_kernel_server_idle(void)
{
    const char *e = sys_env("BANKLAB_KERNEL_SERVER");
    if (e && *e) {
        char *end;
        long v = strtol(e, &end, 10);
        return *end || v < 0 ? 0 : v > 3600 ? 3600 : (int)v;
    }
    return sys_env("BANKLAB_KERNEL_DEBUG") ? 0 : 60;
}

int gpu_kernel_child_main(int argc, char **argv)
{
    if (argc >= 1 && !strcmp(argv[0], "--spare"))
        return kserver_spare(argc - 1, argv + 1);
    struct gpu_kernel_request req;
    char *src = NULL;
    size_t len = 0;
    char cwd[PATH_MAX];
    double t_start = 0;
    sys_sig_set(SIGPIPE, SIG_IGN, 0, NULL);
    if (kwire_get_request(0, &req, &src, &len, cwd, &t_start)) {
        fprintf(stderr, "banklab __kernel-child: no request on stdin (an internal command)\n");
        return 2;
    }
    if (cwd[0] && chdir(cwd) != 0) /* the request's relative paths are the caller's */
        cwd[0] = '\0';
    kwire_hello(3, 0);
    struct gpu_kernel_result *res = calloc(1, sizeof *res);
    struct kstate *st = res ? kstate_new(req.device, res) : NULL;
    if (!res || !st) {
        free(res);
        free(src);
        return 1;
    }
    res->timing.start = bl_now_ms() - t_start - res->timing.init;
    if (kres_add_file(res, req.path) < 0)
        bl_fail(&res->err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, GPU_OUT_OF_MEMORY);
    else
        kstate_watched(st, &req, src, len, res, 3);
    fflush(stdout);
    fflush(stderr);
    /* a warm process for the next request? listen before answering, so the caller's next
     * request finds the socket */
    char path[108];
    int lfd = -1;
    if (req.server_idle > 0 && !req.launch_only && !req.counters_only &&
        kserver_path(req.device, path, sizeof path) == 0 && !kserver_disabled(path))
        lfd = kserver_listen(path);
    int rc = kwire_put_result(3, res) ? 1 : 0;
    gpu_kernel_result_done(res);
    free(res);
    free(src);
    close(3);
    if (lfd >= 0) {
        if (kserver_can_serve(st)) {
            rc = kserver_loop(st, req.device, lfd, path, req.server_idle);
        } else { /* measured: a successor takes the socket, this process ends */
            int nul = open("/dev/null", O_RDWR);
            if (nul >= 0) { /* let go of the caller's pipes */
                dup2(nul, 0);
                dup2(nul, 1);
                dup2(nul, 2);
                close(nul);
            }
            rc = kserver_handover(lfd, path, req.server_idle, req.device);
        }
    }
    kstate_free(st);
    return rc;
}

/* ---- the job ---- */

struct gpu_kernel_job {
    pid_t pid;                   /* the measuring process (from its hello) */
    pid_t pgid;                  /* its process group, when we made it (0: ask getpgid) */
    int wgone;                   /* writing the request failed: the server went away */
    int werrno;                  /* why */
    int own_child;               /* pid is our child (one-shot): reap it */
    int res_fd, out_fd;          /* frames; the child's stdout and stderr (one-shot only) */
    struct bl_buf frames;        /* frames read so far (at most 256 MiB) */
    unsigned char *wbuf;         /* the request, still to be written to a server */
    size_t wlen, woff;
    char out[GPU_KERNEL_OUTPUT]; /* the last bytes of the child's stdout and stderr */
    size_t outlen;
    double t0;                   /* the job's start */
    double t_hello;              /* when the measuring process took the request (0: not yet) */
    double limit_ms;
    enum gpu_kernel_phase phase;
    int via_server, retried;
    int counters_phase;          /* --counters: the range profiler's process runs now */
    struct gpu_kernel_result main; /* the SASS result, while that process runs */
    char path[108];              /* the server socket ("" when none) */
    int ended;                   /* res is final */
    int reaped;
    struct gpu_kernel_result res;
    struct gpu_kernel_request req; /* kept to start a fresh child if a server went away */
    char *src;
    size_t srclen;
    char exe[GPU_KERNEL_TEXT];
};

#define QUEUE_WAIT_MS 120000.0   /* how long a busy server may keep a request waiting */

/* A new measuring process: a child that execs banklab __kernel-child with the request on
 * stdin. With a server to become, it is started through an intermediate process so that it
 * is nobody's child once it outlives the request (the caller need not reap it). */
static int spawn(struct gpu_kernel_job *job, struct bl_err *err)
{
    int rp[2] = {-1, -1}, op[2] = {-1, -1};
    FILE *tmp = tmpfile();
    if (!tmp || pipe(rp) || pipe(op)) {
        bl_fail(err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, KRN_CANNOT_START_CHILD, strerror(errno));
        goto fail;
    }
    if (kwire_put_request(fileno(tmp), &job->req, job->src, job->srclen) || fflush(tmp) ||
        lseek(fileno(tmp), 0, SEEK_SET) != 0) {
        bl_fail(err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, KRN_CANNOT_WRITE_REQUEST, strerror(errno));
        goto fail;
    }
    for (int i = 0; i < 2; i++) {
        fcntl(rp[i], F_SETFD, FD_CLOEXEC);
        fcntl(op[i], F_SETFD, FD_CLOEXEC);
    }
    int detach = job->req.server_idle > 0 && !job->req.launch_only && !job->req.counters_only;
    /* a process group of its own: a time limit or a cancel kills the group whole (a
     * session of its own for a server to be); its compilers run under guards that kill
     * them when it dies (compile/spawn.c). One that is our child dies with us; one to be
     * a server watches us through its frames' fd (kmeasure/watch.c). Nothing of the
     * caller's fds but the request, the output and the frames (a server outlives it). */
    char *argv[] = {"banklab", "__kernel-child", NULL};
    struct sys_spawn sp = {.argv = argv, .file = job->exe,
                           .group = detach ? SYS_DETACHED : SYS_OWN_GROUP,
                           .fd = {fileno(tmp), op[1], op[1]}, .fd3 = rp[1], .close_from = 4,
                           .pdeath_sig = detach ? 0 : SIGKILL};
    pid_t pid = sys_spawn(&sp);
    if (pid < 0) {
        bl_fail(err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, KRN_CANNOT_START_CHILD, strerror(errno));
        goto fail;
    }
    fclose(tmp);
    close(rp[1]);
    close(op[1]);
    if (detach) {
        job->pid = -1; /* the real one says who it is in its hello */
        job->own_child = 0;
    } else {
        job->pid = pid;
        job->own_child = 1;
    }
    job->pgid = pid; /* the intermediate's session and group: the measuring process's */
    job->res_fd = rp[0];
    job->out_fd = op[0];
    fcntl(job->res_fd, F_SETFL, fcntl(job->res_fd, F_GETFL) | O_NONBLOCK);
    fcntl(job->out_fd, F_SETFL, fcntl(job->out_fd, F_GETFL) | O_NONBLOCK);
    return 0;
fail:
    if (tmp)
        fclose(tmp);
    for (int i = 0; i < 2; i++) {
        if (rp[i] >= 0)
            close(rp[i]);
        if (op[i] >= 0)
            close(op[i]);
    }
    return -1;
}

/* A running server for this request's device, when there is one: the request goes to it. */
static int try_server(struct gpu_kernel_job *job)
{
    char *path = job->path;
    if (job->req.server_idle <= 0 || job->req.launch_only || job->req.counters_only ||
        kserver_path(job->req.device, path, sizeof job->path))
        return -1;
    if (kserver_disabled(path)) {
        job->req.server_idle = 0; /* warm processes failed here before: fresh ones only */
        return -1;
    }
    int fd = kserver_connect(path);
    if (fd < 0)
        return -1;
    job->wbuf = kwire_pack_request(&job->req, job->src, job->srclen, &job->wlen);
    if (!job->wbuf) {
        close(fd);
        return -1;
    }
    job->woff = 0;
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    job->res_fd = fd;
    job->out_fd = -1;
    job->via_server = 1;
    job->pid = -1;
    job->pgid = 0;
    job->own_child = 0;
    return 0;
}

struct gpu_kernel_job *gpu_kernel_start(const struct gpu_kernel_request *req, const char *src,
                                        size_t len, struct bl_err *err)
{
    if (len > GPU_KERNEL_MAX_SOURCE) {
        bl_fail(err, GPU_KERNEL_EINPUT, BL_NOWHERE, KRN_SOURCE_TOO_LARGE, req->path, len,
                GPU_KERNEL_MAX_SOURCE);
        return NULL;
    }
    struct gpu_kernel_job *job = calloc(1, sizeof *job);
    char *copy = malloc(len + 1);
    if (!job || !copy) {
        free(job);
        free(copy);
        bl_fail(err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, GPU_OUT_OF_MEMORY);
        return NULL;
    }
    bl_buf_init(&job->frames, 256u << 20);
    memcpy(copy, src, len);
    copy[len] = '\0';
    job->src = copy;
    job->srclen = len;
    job->req = *req;
    job->res_fd = job->out_fd = -1;
    job->pid = -1;
    snprintf(job->exe, sizeof job->exe, "%s", req->exe[0] ? req->exe : "/proc/self/exe");
    job->limit_ms = req->time_limit * 1e3;
    job->t0 = bl_now_ms();
    if (try_server(job) == 0 || spawn(job, err) == 0)
        return job;
    free(job->src);
    free(job);
    return NULL;
}

static void keep_output(struct gpu_kernel_job *job, const char *s, size_t n)
{
    size_t cap = sizeof job->out - 1;
    if (n >= cap) {
        memcpy(job->out, s + n - cap, cap);
        job->outlen = cap;
    } else {
        if (job->outlen + n > cap) {
            size_t drop = job->outlen + n - cap;
            memmove(job->out, job->out + drop, job->outlen - drop);
            job->outlen -= drop;
        }
        memcpy(job->out + job->outlen, s, n);
        job->outlen += n;
    }
    job->out[job->outlen] = '\0';
}

/* Read what is there; 1 at end of file. */
static int drain(struct gpu_kernel_job *job, int *fd, int frames)
{
    char chunk[8192];
    while (*fd >= 0) {
        ssize_t r = read(*fd, chunk, sizeof chunk);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (r <= 0) { /* the end, or a peer gone (ECONNRESET): the end too */
            close(*fd);
            *fd = -1;
            return 1;
        }
        if (!frames) {
            keep_output(job, chunk, (size_t)r);
            continue;
        }
        if (bl_buf_add(&job->frames, chunk, (size_t)r))
            return 1; /* nonsense (past 256 MiB) or out of memory: treat as the end */
    }
    return 1;
}

/* Parse complete frames: phases, and the result (1 when it is there). */
static int parse_frames(struct gpu_kernel_job *job)
{
    size_t at = 0;
    int got = 0;
    const unsigned char *buf = (const unsigned char *)job->frames.s;
    while (job->frames.len - at >= 8) {
        uint32_t head[2];
        memcpy(head, buf + at, sizeof head);
        if (job->frames.len - at - 8 < head[1])
            break;
        const unsigned char *payload = buf + at + 8;
        if (head[0] == KWIRE_HELLO && head[1] == 8) {
            int32_t h[2];
            memcpy(h, payload, sizeof h);
            if (h[0] <= 1 || h[0] == getpid() || (h[1] != 0 && h[1] != 1)) {
                bl_fail(&job->res.err, GPU_KERNEL_ECRASH, BL_NOWHERE, KRN_CHILD_NONSENSE);
                break;
            }
            if (!job->own_child)
                job->pid = h[0];
            job->t_hello = bl_now_ms();
        } else if (head[0] == KWIRE_PHASE && head[1] == 4) {
            int32_t ph;
            memcpy(&ph, payload, 4);
            if (ph >= GPU_KPHASE_START && ph <= GPU_KPHASE_DONE)
                job->phase = (enum gpu_kernel_phase)ph;
        } else if (head[0] == KWIRE_RESULT && !got) {
            struct bl_err why = {0};
            if (kwire_get_result(payload, head[1], &job->res, &why) == 0)
                got = 1;
            else
                job->res.err = why; /* refused whole, with the reason */
        }
        at += 8 + head[1];
    }
    bl_buf_drop(&job->frames, at);
    return got || job->res.err.status != GPU_KERNEL_OK;
}

static void reap(struct gpu_kernel_job *job, int block, int *wstatus)
{
    if (job->reaped || job->pid <= 0)
        return;
    pid_t r;
    do
        r = waitpid(job->pid, wstatus, block ? 0 : WNOHANG);
    while (r < 0 && errno == EINTR);
    if (r == job->pid || (r < 0 && errno == ECHILD))
        job->reaped = 1;
}

/* Stop the measuring process and everything it started: its process group with SIGKILL,
 * never ours (the guards of its compilers then kill nvcc, cicc and the host compiler and
 * remove their directories: compile/spawn.c); then, once the group is gone (2 s at most), the
 * temporary directories it left. */
static void kill_job(struct gpu_kernel_job *job)
{
    pid_t pid = job->pid > 1 && job->pid != getpid() ? job->pid : -1;
    pid_t pg = job->pgid > 1 ? job->pgid : pid > 0 ? getpgid(pid) : -1;
    if (pg > 1 && pg != getpgrp())
        kill(-pg, SIGKILL);
    else if (pid > 0)
        kill(pid, SIGKILL);
    else
        return;
    if (job->own_child)
        reap(job, 1, NULL);
    for (int i = 0; i < 200 && pg > 1 && pg != getpgrp() && kill(-pg, 0) == 0; i++)
        usleep(10000); /* its members die and are reaped by whoever is their parent now */
    if (pid > 0)
        sys_tmp_sweep("nvcc", pid);
}

static void finish(struct gpu_kernel_job *job, struct gpu_kernel_result *res)
{
    job->ended = 1;
    job->res.timing.total = bl_now_ms() - job->t0;
    if (job->outlen && !job->res.output[0])
        snprintf(job->res.output, sizeof job->res.output, "%s", job->out);
    *res = job->res;
    memset(&job->res, 0, sizeof job->res); /* the arrays now belong to the caller */
}

static void timeout_message(struct gpu_kernel_job *job)
{
    double s = job->limit_ms / 1e3;
    switch (job->phase) {
    case GPU_KPHASE_RUN:
        bl_fail(&job->res.err, GPU_KERNEL_ETIMEOUT, BL_NOWHERE, KRN_TIMEOUT_RUN, s);
        break;
    case GPU_KPHASE_COMPILE:
        bl_fail(&job->res.err, GPU_KERNEL_ETIMEOUT, BL_NOWHERE, KRN_TIMEOUT_COMPILE, s);
        break;
    default:
        bl_fail(&job->res.err, GPU_KERNEL_ETIMEOUT, BL_NOWHERE, KRN_TIMEOUT_PHASE, s,
                gpu_kernel_phase_name(job->phase));
    }
}

/* Write what the server's socket takes of the request (never SIGPIPE: a server that left
 * the connection makes the write fail with EPIPE, and the job goes on without it). */
static void send_request(struct gpu_kernel_job *job)
{
    while (job->wbuf && job->woff < job->wlen && !job->wgone) {
        ssize_t w = kwire_write(job->res_fd, job->wbuf + job->woff, job->wlen - job->woff);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return; /* full: the rest on the next poll */
        if (w <= 0) {
            job->wgone = 1;
            job->werrno = w < 0 ? errno : EPIPE;
            return;
        }
        job->woff += (size_t)w;
    }
    if (job->wgone)
        return;
    free(job->wbuf);
    job->wbuf = NULL;
}

/* The end without a result: say how, from what is known of the process. */
static void lost(struct gpu_kernel_job *job)
{
    int ws = 0;
    if (job->own_child)
        reap(job, 1, &ws);
    drain(job, &job->out_fd, 0);
    gpu_kernel_result_done(&job->res);
    memset(&job->res, 0, sizeof job->res);
    job->res.phase = job->phase;
    if (job->own_child && WIFSIGNALED(ws))
        bl_fail(&job->res.err, GPU_KERNEL_ECRASH, BL_NOWHERE, KRN_CHILD_DIED, WTERMSIG(ws),
                strsignal(WTERMSIG(ws)), gpu_kernel_phase_name(job->phase));
    else if (job->own_child && WIFEXITED(ws) && WEXITSTATUS(ws) == 127)
        bl_fail(&job->res.err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, KRN_CANNOT_EXEC, job->exe);
    else
        bl_fail(&job->res.err, GPU_KERNEL_ECRASH, BL_NOWHERE, KRN_CHILD_NO_RESULT,
                gpu_kernel_phase_name(job->phase));
}

/* Ready for another measuring process of the same job. */
static int respawn(struct gpu_kernel_job *job)
{
    if (job->own_child)
        reap(job, 1, NULL); /* the last one is done: no zombie is left behind */
    if (job->res_fd >= 0)
        close(job->res_fd);
    if (job->out_fd >= 0)
        close(job->out_fd);
    job->res_fd = job->out_fd = -1;
    free(job->wbuf);
    job->wbuf = NULL;
    bl_buf_reset(&job->frames);
    job->t_hello = 0;
    job->via_server = 0;
    job->wgone = 0;
    job->reaped = 0;
    job->pid = -1;
    job->pgid = 0;
    struct bl_err err = {0};
    if (spawn(job, &err) == 0)
        return 0;
    gpu_kernel_result_done(&job->res);
    memset(&job->res, 0, sizeof job->res);
    job->res.err = err;
    return -1;
}

/* A result came: the end, or the next process of the job (a retry in a fresh process when a
 * warm one failed; the range profiler's for --counters). 1 when *res is final. */
static int next_step(struct gpu_kernel_job *job, struct gpu_kernel_result *res)
{
    enum gpu_kernel_status st = job->res.err.status;
    if (job->via_server && !job->retried &&
        (st == GPU_KERNEL_ECOUNTERS || st == GPU_KERNEL_ECRASH || st == GPU_KERNEL_ESYSTEM)) {
        /* a warm process failed where a fresh one may not: turn them off here, retry */
        job->retried = 1;
        if (job->path[0])
            kserver_disable(job->path);
        job->req.server_idle = 0;
        gpu_kernel_result_done(&job->res);
        memset(&job->res, 0, sizeof job->res);
        if (respawn(job) == 0)
            return 0;
    } else if (job->counters_phase) {
        /* the range profiler's figures go into the SASS result */
        struct gpu_kernel_result *m = &job->main;
        if (job->res.err.status == GPU_KERNEL_OK && job->res.has_counters) {
            m->has_counters = 1;
            m->counters = job->res.counters;
        } else {
            gpu_kernel_note(m, &job->res.err);
        }
        m->timing.counters = job->res.timing.counters;
        gpu_kernel_result_done(&job->res);
        job->res = *m;
        memset(m, 0, sizeof *m);
    } else if (st == GPU_KERNEL_OK && job->req.counters && !job->req.launch_only) {
        /* CUPTI's range profiler profiles nothing in a process that used SASS metrics: it
         * gets a process of its own */
        job->main = job->res;
        memset(&job->res, 0, sizeof job->res);
        job->counters_phase = 1;
        job->req.counters_only = 1;
        job->req.server_idle = 0;
        if (respawn(job) == 0)
            return 0;
        struct gpu_kernel_result *m = &job->main;
        gpu_kernel_note(m, &job->res.err);
        gpu_kernel_result_done(&job->res);
        job->res = *m;
        memset(m, 0, sizeof *m);
    }
    finish(job, res);
    return 1;
}

int gpu_kernel_poll(struct gpu_kernel_job *job, struct gpu_kernel_result *res,
                    enum gpu_kernel_phase *phase)
{
    if (!job || job->ended)
        return 0;
    send_request(job);
    drain(job, &job->out_fd, 0);
    int eof = drain(job, &job->res_fd, 1);
    if (parse_frames(job)) {
        drain(job, &job->out_fd, 0);
        if (job->own_child)
            reap(job, 0, NULL); /* it may still be tearing its context down: free reaps it */
        return next_step(job, res);
    }
    if ((eof || job->wgone) && job->via_server && !job->t_hello && !job->retried) {
        /* the server left before taking the request (it was going idle, or it dropped the
         * connection: EPIPE): start a new one */
        job->retried = 1;
        if (respawn(job) == 0)
            return 0;
        finish(job, res);
        return 1;
    }
    if (job->wgone && job->via_server && !job->t_hello) {
        gpu_kernel_result_done(&job->res);
        memset(&job->res, 0, sizeof job->res);
        job->res.phase = job->phase;
        bl_fail(&job->res.err, GPU_KERNEL_ECRASH, BL_NOWHERE, KRN_SERVER_GONE,
                strerror(job->werrno));
        finish(job, res);
        return 1;
    }
    if (eof) {
        lost(job);
        finish(job, res);
        return 1;
    }
    /* the time limit runs from when the measuring process took the request; before that a
     * busy server may keep it waiting a while */
    double now = bl_now_ms();
    int over = job->t_hello ? now - job->t_hello > job->limit_ms
                            : now - job->t0 > job->limit_ms + QUEUE_WAIT_MS;
    if (over) {
        kill_job(job);
        drain(job, &job->out_fd, 0);
        gpu_kernel_result_done(&job->res);
        memset(&job->res, 0, sizeof job->res);
        job->res.phase = job->phase;
        if (job->t_hello)
            timeout_message(job);
        else
            bl_fail(&job->res.err, GPU_KERNEL_ETIMEOUT, BL_NOWHERE, KRN_SERVER_BUSY,
                    (job->limit_ms + QUEUE_WAIT_MS) / 1e3);
        finish(job, res);
        return 1;
    }
    if (phase)
        *phase = job->phase;
    return 0;
}

static volatile sig_atomic_t wait_signal;

static void on_wait_signal(int sig)
{
    wait_signal = sig;
}

void gpu_kernel_wait(struct gpu_kernel_job *job, struct gpu_kernel_result *res)
{
    /* the measuring process is in a group of its own, which the terminal's ^C does not
     * reach: a signal that ends the caller ends it (and nvcc's compilers) first */
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    struct sigaction old[4];
    wait_signal = 0;
    for (int i = 0; i < 4; i++)
        if (sys_sig_get(sigs[i], &old[i]) == 0 && old[i].sa_handler != SIG_IGN)
            sys_sig_set(sigs[i], on_wait_signal, 0, NULL);
    while (!gpu_kernel_poll(job, res, NULL)) {
        if (wait_signal) {
            int sig = wait_signal;
            kill_job(job);
            for (int i = 0; i < 4; i++)
                sys_sig_restore(sigs[i], &old[i]);
            raise(sig); /* as the caller would have ended without us; if it goes on: */
            gpu_kernel_result_done(&job->res);
            memset(&job->res, 0, sizeof job->res);
            job->res.phase = job->phase;
            bl_fail(&job->res.err, GPU_KERNEL_ECRASH, BL_NOWHERE, KRN_STOPPED, sig,
                    strsignal(sig));
            finish(job, res);
            return;
        }
        struct pollfd fds[2] = {{job->res_fd, (short)(POLLIN | (job->wbuf ? POLLOUT : 0)), 0},
                                {job->out_fd, POLLIN, 0}};
        poll(fds, 2, 100);
    }
    for (int i = 0; i < 4; i++)
        sys_sig_restore(sigs[i], &old[i]);
}

void gpu_kernel_free(struct gpu_kernel_job *job)
{
    if (!job)
        return;
    if (!job->ended)
        kill_job(job); /* cancelled: whatever it was doing stops, nvcc's compilers too */
    if (job->own_child)
        reap(job, 1, NULL);
    if (job->res_fd >= 0)
        close(job->res_fd);
    if (job->out_fd >= 0)
        close(job->out_fd);
    gpu_kernel_result_done(&job->res);
    gpu_kernel_result_done(&job->main);
    free(job->wbuf);
    bl_buf_release(&job->frames);
    free(job->src);
    free(job);
}
