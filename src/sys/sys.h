/* sys.h: the border with the operating system, one way each (libc only; errors as -1 or NULL
 * with errno, never a message: the caller says what failed in its own words).
 *   env.c   the environment, read through one function, the names of env.def only
 *   dir.c   the one directory walker (never follows a link to read a directory)
 *   tmp.c   private temporary directories, $TMPDIR/banklab-WHAT-PID-XXXXXX, and their removal
 *   exe.c   where this executable is
 *   proc.c  the one spawner: a child with its own group or session, its fds, a signal when its
 *           parent dies, the caller's policy (limits) in the child, exec errors through a pipe,
 *           waiting with a deadline
 *   sig.c   handlers set and put back (the only sigaction)
 *   sock.c  Unix stream sockets: made, bound, listening, connected, accepted */
#ifndef BANKLAB_SYS_H
#define BANKLAB_SYS_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

/* ---- env.c ---- */

/* sys_env: getenv(name) for a name of env.def; NULL with errno EINVAL for any other name
 * (tests/sh/env_table.sh checks every name src/ passes). */
const char *sys_env(const char *name);

/* ---- dir.c ---- */

struct sys_dir;
/* sys_dir_open: the entries of the directory path; sys_dir_at: of the directory open as dfd
 * (read from its start through a duplicate: dfd stays the caller's). NULL with errno. */
struct sys_dir *sys_dir_open(const char *path);
struct sys_dir *sys_dir_at(int dfd);
/* the next entry's name, "." and ".." skipped; NULL at the end */
const char *sys_dir_next(struct sys_dir *d);
void sys_dir_close(struct sys_dir *d);

/* ---- tmp.c ---- */

/* sys_tmp_make: a private directory $TMPDIR/banklab-WHAT-PID-XXXXXX (0700; TMPDIR when
 * absolute, else /tmp) into dir; its name says whose it is. 0, or -1 with errno.
 * sys_tmp_remove: dir and everything of ours in it, 8 levels down at most (links removed,
 * never followed). sys_tmp_sweep: remove the banklab-WHAT-PID-* of process pid (pid > 0), or
 * (pid 0) those of processes that are gone, untouched for a minute. */
int sys_tmp_make(const char *what, char *dir, size_t size);
void sys_tmp_remove(const char *dir);
void sys_tmp_sweep(const char *what, long pid);
/* sys_tmp_base: $TMPDIR when absolute, else "/tmp" */
const char *sys_tmp_base(void);

/* ---- exe.c ---- */

/* sys_exe_dir: the directory of this executable (no trailing slash). 0, or -1 with dir "". */
int sys_exe_dir(char *dir, size_t size);

/* sys_own_dirs: where banklab's own files (its libraries, its CUDA runtime) may be installed,
 * in the order to look: the executable's directory, its ../lib/banklab, and BANKLAB_LIB_DIR
 * when built with one (the first two only when the executable's directory is known). Returns
 * how many directories went into dirs. */
#define SYS_OWN_DIRS 3
#define SYS_DIR_MAX 4096
int sys_own_dirs(char dirs[SYS_OWN_DIRS][SYS_DIR_MAX]);

/* ---- proc.c ---- */

enum sys_group {
    SYS_SAME_GROUP,     /* the caller's process group */
    SYS_OWN_GROUP,      /* a process group of its own (setpgid in both processes) */
    SYS_OWN_SESSION,    /* a session of its own (setsid) */
    SYS_DETACHED        /* a session of its own, and no child of the caller's: a middle
                         * process makes the session, forks it and leaves; sys_spawn reaps it */
};
#define SYS_FD_KEEP (-1)  /* the child keeps the caller's fd */
#define SYS_FD_NULL (-2)  /* /dev/null */

struct sys_spawn {
    char *const *argv;        /* argv[0]: the program, looked up in PATH when path_search */
    const char *file;         /* the file to run instead of argv[0] (NULL: argv[0]) */
    char *const *envp;        /* NULL: this process's environment */
    int path_search;
    enum sys_group group;
    int fd[3];                /* the child's stdin, stdout, stderr: an fd, SYS_FD_KEEP or SYS_FD_NULL */
    int fd3;                  /* passed as fd 3 when >= 0 (else -1) */
    int close_from;           /* > 0: every fd from this one up is closed before exec */
    int pdeath_sig;           /* > 0: sent to the child when its parent dies (it leaves at
                               * once when the parent is gone already); not SYS_DETACHED */
    int default_signals;      /* every handler SIG_DFL and no signal blocked */
    int unblock_all;          /* no signal blocked (the forking thread's mask is inherited) */
    int exec_fail_exits;      /* exec failing: the child exits 127 (seen by sys_wait) and
                               * sys_spawn returns its pid, as a shell would */
    const int *dfl_signals;   /* these signals (0-ended) back to SIG_DFL */
    /* the room's policy, run in the child before exec (async-signal-safe calls only) */
    void (*setup)(void *ctx);
    void *ctx;
};

/* sys_spawn: starts s->argv. The child's pid (for SYS_DETACHED: the middle process's, reaped,
 * which is the id of the child's session and process group); -1 with errno when fork failed; -2 with exec's errno (read from a close-on-exec
 * pipe, the child reaped) when exec did, unless exec_fail_exits. */
pid_t sys_spawn(const struct sys_spawn *s);

/* sys_fork_run: a child that runs fn(ctx) and ends (_exit(0) if fn returns): a process
 * that runs code of banklab's rather than a program (compile/spawn.c's guard). Only
 * async-signal-safe calls in fn: the caller may have threads. Its pid, or -1 with errno. */
pid_t sys_fork_run(void (*fn)(void *ctx), void *ctx);

/* sys_exec_self: this process becomes this executable (/proc/self/exe) with argv; returns
 * only when that failed (-1 with errno). */
int sys_exec_self(char *const argv[]);

/* sys_wait: waits for pid (EINTR retried). timeout_ms < 0: no deadline; at the deadline the
 * child's group (kill_group) or the child is killed (SIGKILL) and reaped, and 1 returned.
 * 0 with *status (exit code, or 128 + signal), or -1 with errno. */
int sys_wait(pid_t pid, double timeout_ms, int kill_group, int *status);

/* ---- sig.c ---- */

/* sys_sig_set: handler (SIG_DFL, SIG_IGN or a function) for sig, with flags (SA_*), no
 * other signal blocked while it runs; the old disposition into old (may be NULL). sys_sig_action: the same with a three-argument handler (SA_SIGINFO).
 * sys_sig_restore: old put back. 0, or -1 with errno. */
int sys_sig_set(int sig, void (*handler)(int), int flags, struct sigaction *old);
int sys_sig_action(int sig, void (*handler)(int, siginfo_t *, void *), int flags,
                   struct sigaction *old);
int sys_sig_restore(int sig, const struct sigaction *old);
/* sys_sig_get: the current disposition of sig into cur (nothing changed) */
int sys_sig_get(int sig, struct sigaction *cur);

/* sys_sig_hold_stops: the stop signals of a terminal (SIGTSTP: Ctrl-Z, SIGTTIN, SIGTTOU)
 * held back in this thread, the old mask into old; sys_sig_unhold: old put back, and a stop
 * that came meanwhile takes effect then. Around a few microseconds that other processes wait
 * on (a lock), so that Ctrl-Z never stops us inside them. SIGSTOP cannot be held. 0, or -1. */
int sys_sig_hold_stops(sigset_t *old);
void sys_sig_unhold(const sigset_t *old);

/* ---- sock.c ---- */

struct sockaddr_un;
/* sys_sock_addr: the address of path; -1 (ENAMETOOLONG) when it does not fit */
int sys_sock_addr(const char *path, struct sockaddr_un *a);
/* sys_sock_new: a Unix stream socket, close-on-exec (and non-blocking when nonblock); -1 with
 * errno. The others are socket(2)'s calls on such a socket and an address of sys_sock_addr:
 * 0, or -1 with errno; sys_sock_accept: the connection's fd (flags: accept4's SOCK_*). */
int sys_sock_new(int nonblock);
int sys_sock_connect(int fd, const struct sockaddr_un *a);
int sys_sock_bind(int fd, const struct sockaddr_un *a);
int sys_sock_listen(int fd, int backlog);
int sys_sock_accept(int lfd, int flags);

#endif
