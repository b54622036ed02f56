/* proc.c: the one spawner (sys.h). Between fork and exec only async-signal-safe calls: the
 * caller may have threads. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <stdint.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sys.h"

/* fd onto to (SYS_FD_NULL: /dev/null); 0, or -1 */
static int place(int fd, int to)
{
    if (fd == SYS_FD_KEEP)
        return 0;
    if (fd == SYS_FD_NULL) {
        int nul = open("/dev/null", O_RDWR);
        if (nul < 0)
            return -1;
        if (nul != to && (dup2(nul, to) < 0 || close(nul)))
            return -1;
        return 0;
    }
    return fd == to ? fcntl(fd, F_SETFD, 0) : dup2(fd, to) < 0 ? -1 : 0;
}

static void exec_error(int errw)
{
    int e = errno;
    ssize_t w = write(errw, &e, sizeof e);
    (void)w;
    _exit(127);
}

/* the child's side: never returns */
static void child(const struct sys_spawn *s, pid_t parent, int errw)
{
    int high = fcntl(errw, F_DUPFD_CLOEXEC, 10);  /* never one of the fds placed below */
    if (high >= 0) {
        close(errw);
        errw = high;
    }
    if (s->group == SYS_OWN_GROUP)
        setpgid(0, 0);
    else if (s->group == SYS_OWN_SESSION || s->group == SYS_DETACHED)
        setsid();
    if (s->group == SYS_DETACHED) {
        pid_t g = fork();
        if (g != 0)
            _exit(g < 0 ? 127 : 0);     /* the middle process leaves: no zombie for anyone */
    }
    if (s->pdeath_sig > 0 && s->group != SYS_DETACHED) {
        prctl(PR_SET_PDEATHSIG, s->pdeath_sig);
        if (getppid() != parent)
            _exit(127);
    }
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    if (s->default_signals)
        for (int i = 1; i < NSIG; i++)
            sigaction(i, &dfl, NULL);
    for (const int *u = s->dfl_signals; u && *u; u++)
        sigaction(*u, &dfl, NULL);
    if (s->default_signals || s->unblock_all) {
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
    }
    /* the fds above 2 that are to stay are moved out of the way first */
    int fd3 = s->fd3 >= 0 ? fcntl(s->fd3, F_DUPFD, 10) : -1;
    if ((s->fd3 >= 0 && fd3 < 0) || place(s->fd[0], 0) || place(s->fd[1], 1) ||
        place(s->fd[2], 2) || (fd3 >= 0 && dup2(fd3, 3) < 0))
        exec_error(errw);
    if (s->close_from > 0) {
        int from = s->close_from;
        /* errw stays open (close-on-exec) to say why exec failed */
        for (int fd = from; fd < 1024; fd++)
            if (fd != errw)
                close(fd);
    } else if (fd3 >= 0) {
        close(fd3);
    }
    if (s->setup)
        s->setup(s->ctx);
    const char *file = s->file ? s->file : s->argv[0];
    if (s->path_search && !s->envp)
        execvp(file, s->argv);
    else if (s->envp)
        execve(file, s->argv, s->envp);
    else
        execv(file, s->argv);
    exec_error(errw);
}

pid_t sys_spawn(const struct sys_spawn *s)
{
    int ep[2];
    if (pipe2(ep, O_CLOEXEC))
        return -1;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        close(ep[0]);
        child(s, parent, ep[1]);
    }
    int e = errno;
    close(ep[1]);
    if (pid < 0) {
        close(ep[0]);
        errno = e;
        return -1;
    }
    if (s->group == SYS_OWN_GROUP)
        setpgid(pid, pid);          /* as the child does: whichever runs first */
    if (s->group == SYS_DETACHED) {
        int ws;
        while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
            ;
    }
    /* the exec's errno, or end of file when it ran (the pipe closed on exec) */
    int code = 0;
    ssize_t r;
    while ((r = read(ep[0], &code, sizeof code)) < 0 && errno == EINTR)
        ;
    close(ep[0]);
    if (r == (ssize_t)sizeof code && !s->exec_fail_exits) {
        if (s->group != SYS_DETACHED)
            while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
        errno = code;
        return -2;
    }
    return pid;
}

pid_t sys_fork_run(void (*fn)(void *ctx), void *ctx)
{
    pid_t pid = fork();
    if (pid == 0) {
        fn(ctx);
        _exit(0);
    }
    return pid;
}

int sys_exec_self(char *const argv[])
{
    execv("/proc/self/exe", argv);
    return -1;
}

/* the deadline is a CLOCK_MONOTONIC timer of the kernel's (a timerfd): no second clock to read */
static int deadline(double timeout_ms)
{
    if (timeout_ms < 0)
        return -1;
    int t = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (t < 0)
        return -2;
    long long ns = (long long)(timeout_ms * 1e6);
    struct itimerspec it = {{0, 0}, {(time_t)(ns / 1000000000), (long)(ns % 1000000000)}};
    if (ns <= 0)
        it.it_value.tv_nsec = 1;    /* zero would disarm it */
    if (timerfd_settime(t, 0, &it, NULL)) {
        close(t);
        return -2;
    }
    return t;
}

static int expired(int t)
{
    uint64_t n = 0;
    return read(t, &n, sizeof n) == (ssize_t)sizeof n && n > 0;
}

int sys_wait(pid_t pid, double timeout_ms, int kill_group, int *status)
{
    int t = deadline(timeout_ms);
    if (t == -2)
        return -1;
    int ws = 0;
    for (;;) {
        pid_t w = waitpid(pid, &ws, t >= 0 ? WNOHANG : 0);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR) {
            int e = errno;
            if (t >= 0)
                close(t);
            errno = e;
            return -1;
        }
        if (t >= 0 && expired(t)) {
            close(t);
            if (kill_group)
                kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
                ;
            return 1;
        }
        if (t >= 0) {
            struct timespec ts = {0, 5 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
    if (t >= 0)
        close(t);
    if (status)
        *status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    return 0;
}
