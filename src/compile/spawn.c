/* spawn.c: a compiler run under a guard (compile/spawn.h). The caller forks the guard;
 * the guard makes a session of its own, asks for a signal when its caller dies, forks the
 * compiler into a process group of its own with its limits, and waits for whichever comes
 * first: the compiler's end, the deadline, or its caller's death. Then it kills the group,
 * reaps what is left (it is their subreaper), removes the temporary directory when nobody else
 * will, and tells the caller what happened through a pipe. Between fork and exec only
 * async-signal-safe calls (the caller may have threads: the kernel view's prediction). */
#define _GNU_SOURCE
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compile.h"
#include "../sys/sys.h"

unsigned long long kspawn_mem(void)
{
    const char *e = sys_env("BANKLAB_COMPILER_MEMORY");
    if (e && *e) {
        char *end;
        unsigned long long mb = strtoull(e, &end, 10);
        if (!*end && mb >= 64 && mb <= 1048576)
            return mb << 20;
    }
    return KSPAWN_MEM_DEFAULT;
}

/* ---- the guard (async-signal-safe calls only) ---- */

struct guard_report {
    int32_t end;                /* enum kspawn_end, or -1: the caller went away */
    int32_t code;
};

static double mono_s(void)
{
    return bl_now_ms() / 1e3; /* clock_gettime: async-signal-safe */
}

/* Every fd from `from` up but keep (-1: none). */
static void close_from(int from, int keep)
{
    if (keep >= from) {
        if (keep > from)
            syscall(SYS_close_range, (unsigned)from, (unsigned)keep - 1, 0u);
        from = keep + 1;
    }
    if (syscall(SYS_close_range, (unsigned)from, ~0u, 0u) < 0)
        for (int fd = from; fd < 4096; fd++)
            if (fd != keep)
                close(fd);
}

struct dent64 {
    uint64_t ino;
    int64_t off;
    unsigned short reclen;
    unsigned char type;
    char name[];
};

/* Everything under the directory dfd (depth levels down at most), links removed, never
 * followed: getdents64 and unlinkat, no allocation. */
static void rm_under(int dfd, int depth)
{
    char buf[2048];
    for (int pass = 0; pass < 4; pass++) {
        int removed = 0;
        long n;
        lseek(dfd, 0, SEEK_SET);
        while ((n = syscall(SYS_getdents64, dfd, buf, sizeof buf)) > 0) {
            for (long at = 0; at < n;) {
                struct dent64 *d = (struct dent64 *)(buf + at);
                at += d->reclen;
                if (d->name[0] == '.' && (!d->name[1] || (d->name[1] == '.' && !d->name[2])))
                    continue;
                if (unlinkat(dfd, d->name, 0) == 0) {
                    removed++;
                    continue;
                }
                int sub = depth > 0 ? openat(dfd, d->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
                                                                O_CLOEXEC) : -1;
                if (sub >= 0) {
                    rm_under(sub, depth - 1);
                    close(sub);
                }
                removed += unlinkat(dfd, d->name, AT_REMOVEDIR) == 0;
            }
        }
        if (!removed)
            return;
    }
}

static void rm_tree(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    rm_under(fd, 8);
    close(fd);
    rmdir(dir);
}

/* The compiler's side of the fork: its group, its limits, its fds, then exec. */
static void compiler(const struct kspawn *sp, pid_t guard, int outw, int errw,
                     unsigned long long mem)
{
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != guard)
        _exit(127);
    struct rlimit as = {mem, mem}, fs = {KSPAWN_FSIZE_MAX, KSPAWN_FSIZE_MAX}, core = {0, 0};
    setrlimit(RLIMIT_AS, &as);
    setrlimit(RLIMIT_FSIZE, &fs);
    setrlimit(RLIMIT_CORE, &core);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (int s = 1; s < NSIG; s++) /* as any program expects (ours ignores SIGPIPE) */
        sigaction(s, &dfl, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    int nul = open("/dev/null", O_RDONLY);
    if (nul >= 0 && nul != 0) {
        dup2(nul, 0);
        close(nul);
    }
    dup2(outw, 1);
    dup2(outw, 2);
    if (outw > 2)
        close(outw);
    execve(sp->argv[0], sp->argv, sp->envp);
    int e = errno;
    ssize_t w = write(errw, &e, sizeof e);
    (void)w;
    _exit(127);
}

static void report(int stw, int end, int code)
{
    struct guard_report r = {end, code};
    ssize_t w = write(stw, &r, sizeof r);
    (void)w;
}

static void guard(const struct kspawn *sp, pid_t caller, int outw, int stw,
                  unsigned long long mem)
{
    setsid();
    /* keep outw and stw only (as 3 and 4): nothing of the caller's (its sockets, its pipes)
     * stays open */
    int o = fcntl(outw, F_DUPFD, 10), s = fcntl(stw, F_DUPFD, 10);
    if (o < 0 || s < 0 || dup2(o, 3) < 0 || dup2(s, 4) < 0)
        _exit(0);
    outw = 3;
    stw = 4;
    close_from(5, -1);
    fcntl(stw, F_SETFD, FD_CLOEXEC);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(SIGCHLD, &dfl, NULL); /* never ignored: the compiler is waited for */
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, NULL);
    prctl(PR_SET_PDEATHSIG, SIGUSR1);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    if (getppid() != caller) {  /* it died before we asked */
        if (sp->tmpdir)
            rm_tree(sp->tmpdir);
        _exit(0);
    }
    double deadline = mono_s() + sp->limit_s;
    int ep[2];
    if (pipe2(ep, O_CLOEXEC)) {
        report(stw, KSPAWN_NOEXEC, errno);
        _exit(0);
    }
    pid_t self = getpid();
    pid_t c = fork();
    if (c == 0) {
        close(ep[0]);
        compiler(sp, self, outw, ep[1], mem);
    }
    close(ep[1]);
    close(outw);
    if (c < 0) {
        report(stw, KSPAWN_NOEXEC, errno);
        _exit(0);
    }
    setpgid(c, c); /* as it does itself: whichever runs first */
    int end = -1, code = 0, ws = 0, reaped = 0;
    sigset_t wake;
    sigemptyset(&wake);
    sigaddset(&wake, SIGCHLD);
    sigaddset(&wake, SIGUSR1);
    sigaddset(&wake, SIGTERM);
    sigaddset(&wake, SIGHUP);
    sigaddset(&wake, SIGINT);
    for (;;) {
        pid_t r = waitpid(c, &ws, WNOHANG);
        if (r == c) {
            reaped = 1;
            end = WIFEXITED(ws) ? KSPAWN_EXITED : KSPAWN_SIGNALED;
            code = WIFEXITED(ws) ? WEXITSTATUS(ws) : WIFSIGNALED(ws) ? WTERMSIG(ws) : 0;
            break;
        }
        while (waitpid(-1, NULL, WNOHANG) > 0) /* orphans of the compiler's, ours now */
            ;
        if (getppid() != caller)
            break;
        double left = deadline - mono_s();
        if (left <= 0) {
            end = KSPAWN_TIMEOUT;
            break;
        }
        if (left > 0.2)
            left = 0.2;
        struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
        int got = sigtimedwait(&wake, NULL, &ts);
        if (got == SIGUSR1 || got == SIGTERM || got == SIGHUP || got == SIGINT)
            break;  /* the caller died (or asks us to stop): as if it had */
    }
    kill(-c, SIGKILL);
    if (!reaped)
        waitpid(c, NULL, 0);
    for (int i = 0; i < 300; i++) {  /* until the group is gone (3 s at most) */
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
        if (kill(-c, 0) < 0 && errno == ESRCH)
            break;
        kill(-c, SIGKILL);
        struct timespec ms = {0, 10 * 1000 * 1000};
        nanosleep(&ms, NULL);
    }
    if (end == KSPAWN_EXITED && code == 127) {
        int e = 0;
        if (read(ep[0], &e, sizeof e) == (ssize_t)sizeof e) {
            end = KSPAWN_NOEXEC;
            code = e;
        }
    }
    if (end < 0 && sp->tmpdir)
        rm_tree(sp->tmpdir);  /* nobody else will */
    report(stw, end, code);
    _exit(0);
}

/* ---- the caller's side ---- */

int kspawn_run(const struct kspawn *sp, struct keybuf *out, int *code, struct bl_err *err)
{
    int op[2], stp[2];
    if (pipe2(op, O_CLOEXEC))
        return bl_fail(err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, KRN_CANNOT_RUN_NVCC, strerror(errno));
    if (pipe2(stp, O_CLOEXEC)) {
        int e = errno;
        close(op[0]);
        close(op[1]);
        return bl_fail(err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, KRN_CANNOT_RUN_NVCC, strerror(e));
    }
    unsigned long long mem = kspawn_mem();
    pid_t caller = getpid();
    pid_t g = fork();
    if (g == 0) {
        close(op[0]);
        close(stp[0]);
        guard(sp, caller, op[1], stp[1], mem);
    }
    int e = errno;
    close(op[1]);
    close(stp[1]);
    if (g < 0) {
        close(op[0]);
        close(stp[0]);
        return bl_fail(err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, KRN_CANNOT_RUN_NVCC, strerror(e));
    }
    /* the output until every holder of the pipe is gone; a guard that outlives its own
     * deadline by 5 s is told to stop, and killed 3 s after that */
    double t0 = bl_now_ms(), told = 0;
    char chunk[4096];
    int cancelled = 0;
    for (;;) {
        if (!cancelled && sp->cancel && atomic_load(sp->cancel)) {
            kill(g, SIGTERM); /* the guard kills the group and removes the directory */
            cancelled = 1;
        }
        struct pollfd p = {op[0], POLLIN, 0};
        int pr = poll(&p, 1, 100);
        if (pr > 0) {
            ssize_t r = read(op[0], chunk, sizeof chunk);
            if (r < 0 && (errno == EINTR || errno == EAGAIN))
                continue;
            if (r <= 0)
                break;
            if (out->len < sp->keep)
                kbuf_add(out, chunk, (size_t)r, SIZE_MAX);
            continue;
        }
        double now = bl_now_ms();
        if (!told && now - t0 > (sp->limit_s + 5) * 1e3) {
            kill(g, SIGTERM);
            told = now;
        } else if (told && now - told > 3e3) {
            kill(g, SIGKILL);
            break;
        }
    }
    close(op[0]);
    struct guard_report r = {-1, 0};
    ssize_t n;
    while ((n = read(stp[0], &r, sizeof r)) < 0 && errno == EINTR)
        ;
    close(stp[0]);
    while (waitpid(g, NULL, 0) < 0 && errno == EINTR)
        ;
    if (n != (ssize_t)sizeof r || r.end < 0) /* the guard was killed, or told to stop */
        r = (struct guard_report){cancelled ? KSPAWN_CANCELLED : KSPAWN_TIMEOUT, 0};
    *code = r.code;
    return r.end;
}
