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

/* The compiler's limits, in its process before exec (sys_spawn gives it its group, its fds,
 * the default signals and the signal when the guard dies). */
static void compiler_limits(void *ctx)
{
    unsigned long long mem = *(const unsigned long long *)ctx;
    struct rlimit as = {mem, mem}, fs = {KSPAWN_FSIZE_MAX, KSPAWN_FSIZE_MAX}, core = {0, 0};
    setrlimit(RLIMIT_AS, &as);
    setrlimit(RLIMIT_FSIZE, &fs);
    setrlimit(RLIMIT_CORE, &core);
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
    sys_sig_set(SIGCHLD, SIG_DFL, 0, NULL); /* never ignored: the compiler is waited for */
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
    /* stdin /dev/null, stdout and stderr into outw, nothing else of ours (fd 3 up closed),
     * its own group, killed when the guard dies, every signal as a program expects (ours
     * ignores SIGPIPE); an exec that fails is told at once, with its errno */
    struct sys_spawn cs = {.argv = sp->argv, .envp = sp->envp, .group = SYS_OWN_GROUP,
                           .fd = {SYS_FD_NULL, outw, outw}, .fd3 = -1, .close_from = 3,
                           .pdeath_sig = SIGKILL, .default_signals = 1,
                           .setup = compiler_limits, .ctx = &mem};
    pid_t c = sys_spawn(&cs);
    close(outw);
    if (c < 0) {
        report(stw, KSPAWN_NOEXEC, errno);
        _exit(0);
    }
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
    if (end < 0 && sp->tmpdir)
        rm_tree(sp->tmpdir);  /* nobody else will */
    report(stw, end, code);
    _exit(0);
}

struct guard_args {
    const struct kspawn *sp;
    pid_t caller;
    int outw, stw, outr, str;
    unsigned long long mem;
};

static void guard_main(void *ctx)
{
    const struct guard_args *a = ctx;
    close(a->outr);
    close(a->str);
    guard(a->sp, a->caller, a->outw, a->stw, a->mem);
}

/* ---- the caller's side ---- */

int kspawn_run(const struct kspawn *sp, struct bl_buf *out, int *code, struct bl_err *err)
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
    struct guard_args ga = {sp, getpid(), op[1], stp[1], op[0], stp[0], mem};
    pid_t g = sys_fork_run(guard_main, &ga);
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
                bl_buf_add(out, chunk, (size_t)r);
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
