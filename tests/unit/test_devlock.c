/* test_devlock.c: the per-device measurement lock (src/devlock/lock.c) without a GPU: safe
 * creation (mode 0666 whatever the umask; a planted symlink, FIFO, a hard link to what is not a
 * lock (a second name of the real lock is accepted), foreign or damaged
 * file refused with a message naming the owner; unsafe directories refused), mutual exclusion
 * and first-come-first-served fairness between processes (measured: the most turns others took
 * between two turns of one process, and the longest wait), a dead holder and a stopped waiter
 * skipped, timeouts, cancelling, and a second user (root only: a child that drops to uid 65534)
 * sharing a lock root made; the server's shared directory trusted only when root's or ours.
 * Each test works in its own BANKLAB_LOCK_DIR.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../src/devlock/devlock.h"

#define KEY "GPU-00112233-4455-6677-8899-aabbccddeeff"

static char dir[256], path[512];
static struct bl_err err;
/* ERR: err emptied for the next call (the first failure of an error wins) */
#define ERR (bl_err_clear(&err), &err)

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "%s/devlock-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir))
        return -1;
    setenv("BANKLAB_LOCK_DIR", dir, 1);
    snprintf(path, sizeof path, "%s/banklab-%s.lock", dir, KEY);
    bl_err_clear(&err);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_key(void **state)
{
    (void)state;
    unsigned char u[16];
    char buf[64];
    for (int i = 0; i < 16; i++)
        u[i] = (unsigned char)(0x11 * i);
    assert_string_equal(devlock_key(u, buf, sizeof buf), "GPU-00112233-4455-6677-8899-aabbccddeeff");
    struct devlock *l;
    assert_int_equal(devlock_open("../etc/passwd", &l, ERR), -1);
    assert_non_null(strstr(err.msg, "bad device key"));
    assert_int_equal(devlock_open("", &l, ERR), -1);
}

static void test_create_mode(void **state)
{
    (void)state;
    mode_t old = umask(077);
    struct devlock *l;
    assert_int_equal(devlock_open(KEY, &l, ERR), 0);
    umask(old);
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal(st.st_mode & 07777, 0666);
    assert_int_equal(st.st_size, 64);
    assert_string_equal(devlock_path(l), path);
    assert_int_equal(devlock_acquire(l, 1000, NULL, NULL, ERR), DEVLOCK_OK);
    devlock_release(l);
    /* a second handle uses the same file; nothing else was left in the directory */
    struct devlock *l2;
    assert_int_equal(devlock_open(KEY, &l2, ERR), 0);
    assert_int_equal(devlock_acquire(l2, 1000, NULL, NULL, ERR), DEVLOCK_OK);
    devlock_close(l2);
    devlock_close(l);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "test $(ls -A '%s' | wc -l) = 1", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_planted_symlink(void **state)
{
    (void)state;
    char target[600];
    snprintf(target, sizeof target, "%s/victim", dir);
    assert_int_equal(symlink(target, path), 0);
    struct devlock *l = NULL;
    assert_int_equal(devlock_open(KEY, &l, ERR), -1);
    assert_null(l);
    assert_non_null(strstr(err.msg, "symbolic link"));
    assert_non_null(strstr(err.msg, path));
    struct stat st;
    assert_int_equal(lstat(target, &st), -1);           /* never created through the link */
    assert_int_equal(errno, ENOENT);
}

static void write_file(const char *p, const char *text, mode_t mode)
{
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, mode);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

static void test_planted_fifo_dir_hardlink(void **state)
{
    (void)state;
    struct devlock *l = NULL;
    assert_int_equal(mkfifo(path, 0666), 0);
    double t0 = now_ms();
    assert_int_equal(devlock_open(KEY, &l, ERR), -1);
    assert_true(now_ms() - t0 < 1000);                 /* a FIFO cannot block the open */
    assert_non_null(strstr(err.msg, "not a regular file"));
    unlink(path);

    assert_int_equal(mkdir(path, 0777), 0);
    assert_int_equal(devlock_open(KEY, &l, ERR), -1);
    rmdir(path);

    /* a real lock file with a second name (anyone may hard-link the 0666 file): still the
     * lock, and turns still work, so one user cannot make the others measure without turns */
    assert_int_equal(devlock_open(KEY, &l, ERR), 0);
    devlock_close(l);
    char other[600];
    snprintf(other, sizeof other, "%s/other-name", dir);
    assert_int_equal(link(path, other), 0);
    assert_int_equal(devlock_open(KEY, &l, ERR), 0);
    assert_int_equal(devlock_acquire(l, 1000, NULL, NULL, ERR), DEVLOCK_OK);
    devlock_close(l);
    unlink(other);
    /* a hard link planted at the lock's name to a file that is not a lock: refused */
    unlink(path);
    write_file(other, "victim\n", 0666);
    assert_int_equal(link(other, path), 0);
    assert_int_equal(devlock_open(KEY, &l, ERR), -1);
    assert_non_null(strstr(err.msg, "not a banklab lock"));
    unlink(other);
}

static void test_foreign_and_damaged(void **state)
{
    (void)state;
    struct devlock *l = NULL;
    write_file(path, "not a lock\n", 0644);
    if (geteuid() == 0)
        assert_int_equal(chown(path, 65534, 65534), 0);
    assert_int_equal(devlock_open(KEY, &l, ERR), -1);
    assert_non_null(strstr(err.msg, "not a banklab lock"));
    assert_non_null(strstr(err.msg, "remove it"));
    char uid[32];
    snprintf(uid, sizeof uid, "uid %u", geteuid() == 0 ? 65534u : (unsigned)geteuid());
    assert_non_null(strstr(err.msg, uid));                  /* the owner is named */
    unlink(path);

    /* 64 bytes of the wrong content */
    write_file(path, "0123456789012345678901234567890123456789012345678901234567890123", 0666);
    assert_int_equal(devlock_open(KEY, &l, ERR), -1);
    assert_non_null(strstr(err.msg, "wrong content"));
    unlink(path);

    /* a good lock damaged while in use: acquire says so instead of trusting it */
    assert_int_equal(devlock_open(KEY, &l, ERR), 0);
    int fd = open(path, O_WRONLY);
    assert_true(fd >= 0);
    assert_int_equal(pwrite(fd, "XXXXXXXX", 8, 0), 8);
    close(fd);
    assert_int_equal(devlock_acquire(l, 500, NULL, NULL, ERR), DEVLOCK_ERROR);
    assert_non_null(strstr(err.msg, "damaged"));
    devlock_close(l);
}

/* A program that is not banklab holds the header's lock (any user can: the file is 0666):
 * banklab holds it for microseconds, so after 3 s it stops waiting for it and says so
 * (DEVLOCK_ERROR: the runner then measures without turns) instead of letting one user stop
 * every measurement of a class; a shorter wait still ends as a timeout. */
static void test_header_held(void **state)
{
    (void)state;
    struct devlock *l;
    assert_int_equal(devlock_open(KEY, &l, ERR), 0);
    int fd = open(path, O_RDWR);
    assert_true(fd >= 0);
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 64};
    assert_int_equal(fcntl(fd, F_OFD_SETLK, &fl), 0);
    double t0 = now_ms();
    assert_int_equal(devlock_acquire(l, 500, NULL, NULL, ERR), DEVLOCK_TIMEOUT);
    assert_true(now_ms() - t0 < 1500);
    t0 = now_ms();
    assert_int_equal(devlock_acquire(l, 30000, NULL, NULL, ERR), DEVLOCK_ERROR);
    double dt = now_ms() - t0;
    assert_true(dt >= 2900 && dt < 6000);
    assert_non_null(strstr(err.msg, "header has been held for 3 s"));
    assert_non_null(strstr(err.msg, path));
    fl.l_type = F_UNLCK;
    assert_int_equal(fcntl(fd, F_OFD_SETLK, &fl), 0);
    close(fd);
    assert_int_equal(devlock_acquire(l, 1000, NULL, NULL, ERR), DEVLOCK_OK);
    devlock_close(l);
}

static void test_unsafe_dirs(void **state)
{
    (void)state;
    struct devlock *l = NULL;
    char sub[600], buf[512];
    snprintf(sub, sizeof sub, "%s/open", dir);
    assert_int_equal(mkdir(sub, 0777), 0);
    assert_int_equal(chmod(sub, 0777), 0);              /* world-writable, no sticky bit */
    setenv("BANKLAB_LOCK_DIR", sub, 1);
    assert_int_equal(devlock_open(KEY, &l, ERR), -1);
    assert_non_null(strstr(err.msg, "no sticky bit"));
    assert_int_equal(devlock_share_dir("share", buf, sizeof buf, ERR), -1);
    assert_int_equal(chmod(sub, 01777), 0);
    assert_int_equal(devlock_share_dir("share", buf, sizeof buf, ERR), 0);
    char want[700];
    snprintf(want, sizeof want, "%s/share", sub);
    assert_string_equal(buf, want);
    assert_int_equal(rmdir(buf), 0);
    assert_int_equal(devlock_open(KEY, &l, ERR), 0);
    devlock_close(l);
    snprintf(sub, sizeof sub, "%s/missing", dir);
    setenv("BANKLAB_LOCK_DIR", sub, 1);
    assert_int_equal(devlock_open(KEY, &l, ERR), -1);
    assert_non_null(strstr(err.msg, "BANKLAB_LOCK_DIR"));
    /* without the variable one of the system's sticky directories is chosen */
    unsetenv("BANKLAB_LOCK_DIR");
    char name[64];
    snprintf(name, sizeof name, "banklab-test-devlock-%ld", (long)getpid());
    assert_int_equal(devlock_share_dir(name, buf, sizeof buf, ERR), 0);
    assert_int_equal(rmdir(buf), 0);
    *strrchr(buf, '/') = 0;
    struct stat st;
    assert_int_equal(stat(buf, &st), 0);
    assert_int_equal(st.st_mode & 01777, 01777);
    setenv("BANKLAB_LOCK_DIR", dir, 1);
}

/* ---- several processes ---- */

#define NPROC 6
#define TURNS 10

/* Child: TURNS turns, each 3 ms inside; writes its id at each turn into the pipe; checks that
 * nobody else is inside (an O_EXCL marker file). Exit 0, 1 on a broken exclusion, 2 on error.
 * use_flock: plain flock(2) on another file instead, to compare. */
static void child_turns(int id, int wfd, int go_fd, const char *marker, int use_flock)
{
    struct devlock *l = NULL;
    struct bl_err e = {0};
    char c, fpath[600];
    int ffd = -1;
    snprintf(fpath, sizeof fpath, "%s/flock", dir);
    if (use_flock ? (ffd = open(fpath, O_RDWR | O_CREAT, 0666)) < 0
                  : devlock_open(KEY, &l, &e) != 0)
        _exit(2);
    if (read(go_fd, &c, 1) != 1)
        _exit(2);
    for (int t = 0; t < TURNS; t++) {
        if (use_flock ? flock(ffd, LOCK_EX) != 0
                      : devlock_acquire(l, 30000, NULL, NULL, &e) != DEVLOCK_OK)
            _exit(2);
        int fd = open(marker, O_WRONLY | O_CREAT | O_EXCL, 0600);
        if (fd < 0)
            _exit(1);
        unsigned char b = (unsigned char)id;
        if (write(wfd, &b, 1) != 1)
            _exit(2);
        sleep_ms(3);
        close(fd);
        unlink(marker);
        if (use_flock)
            flock(ffd, LOCK_UN);
        else
            devlock_release(l);
    }
    devlock_close(l);
    _exit(0);
}

/* Runs NPROC children through TURNS turns each; returns the most turns others took between two
 * turns of one process while all still wanted turns. */
static int run_turns(int use_flock)
{
    int p[2], go[2];
    char marker[600];
    snprintf(marker, sizeof marker, "%s/inside", dir);
    assert_int_equal(pipe(p), 0);
    assert_int_equal(pipe(go), 0);
    pid_t pid[NPROC];
    for (int i = 0; i < NPROC; i++) {
        pid[i] = fork();
        assert_true(pid[i] >= 0);
        if (pid[i] == 0) {
            close(p[0]);
            close(go[1]);
            child_turns(i, p[1], go[0], marker, use_flock);
        }
    }
    close(p[1]);
    close(go[0]);
    sleep_ms(50);
    assert_int_equal(write(go[1], "gggggg", NPROC), NPROC);   /* all start together */
    close(go[1]);
    unsigned char seq[NPROC * TURNS];
    int n = 0;
    ssize_t k;
    while (n < NPROC * TURNS && (k = read(p[0], seq + n, sizeof seq - (size_t)n)) > 0)
        n += (int)k;
    close(p[0]);
    for (int i = 0; i < NPROC; i++) {
        int st;
        assert_int_equal(waitpid(pid[i], &st, 0), pid[i]);
        assert_true(WIFEXITED(st));
        assert_int_equal(WEXITSTATUS(st), 0);          /* 1: two processes were inside at once */
    }
    assert_int_equal(n, NPROC * TURNS);
    /* Fairness: while every process still wants turns, how many turns did the others take
     * before the first and between two turns of one process? First come first served gives
     * NPROC - 1. */
    int last[NPROC], done[NPROC] = {0}, worst = 0;
    for (int i = 0; i < NPROC; i++)
        last[i] = -1;
    for (int j = 0; j < n; j++) {
        int id = seq[j];
        int all_active = 1;
        for (int i = 0; i < NPROC; i++)
            all_active &= done[i] < TURNS;
        if (all_active && j - last[id] - 1 > worst)          /* from the start for the first */
            worst = j - last[id] - 1;
        last[id] = j;
        done[id]++;
    }
    return worst;
}

static void test_exclusion_and_fairness(void **state)
{
    (void)state;
    int worst = run_turns(0), worst_flock = run_turns(1);
    print_message("fairness: %d processes x %d turns of 3 ms, each asking again at once: at most "
                  "%d turns of others between two turns of one process (first come first served: "
                  "%d; plain flock on the same machine: %d)\n", NPROC, TURNS, worst, NPROC - 1,
                  worst_flock);
    assert_true(worst <= 2 * (NPROC - 1));
}

static int count_progress(void *arg, const struct devlock_wait *w)
{
    int *calls = arg;
    (*calls)++;
    return w->ahead >= 1 && *calls >= 5;                /* give up after a few polls */
}

static void test_timeout_and_cancel(void **state)
{
    (void)state;
    struct devlock *a, *b;
    assert_int_equal(devlock_open(KEY, &a, ERR), 0);
    assert_int_equal(devlock_open(KEY, &b, ERR), 0);
    assert_int_equal(devlock_acquire(a, 1000, NULL, NULL, ERR), DEVLOCK_OK);
    double t0 = now_ms();
    assert_int_equal(devlock_acquire(b, 150, NULL, NULL, ERR), DEVLOCK_TIMEOUT);
    double dt = now_ms() - t0;
    assert_true(dt >= 140 && dt < 1000);
    assert_non_null(strstr(err.msg, "waited"));
    int calls = 0;
    assert_int_equal(devlock_acquire(b, 5000, count_progress, &calls, ERR),
                     DEVLOCK_CANCELLED);
    assert_int_equal(calls, 5);
    /* the abandoned tickets of b do not block: after a's release b gets the next turn at once */
    devlock_release(a);
    t0 = now_ms();
    assert_int_equal(devlock_acquire(b, 1000, NULL, NULL, ERR), DEVLOCK_OK);
    assert_true(now_ms() - t0 < 200);
    devlock_close(b);
    devlock_close(a);
}

static void test_dead_holder_and_stopped_waiter(void **state)
{
    (void)state;
    /* a holder that dies without releasing */
    pid_t c = fork();
    assert_true(c >= 0);
    if (c == 0) {
        struct devlock *l;
        struct bl_err e = {0};
        if (devlock_open(KEY, &l, &e) || devlock_acquire(l, 1000, NULL, NULL, &e))
            _exit(2);
        _exit(0);                                       /* "crashes" holding the lock */
    }
    int st;
    assert_int_equal(waitpid(c, &st, 0), c);
    assert_int_equal(WEXITSTATUS(st), 0);
    struct devlock *me;
    assert_int_equal(devlock_open(KEY, &me, ERR), 0);
    double t0 = now_ms();
    assert_int_equal(devlock_acquire(me, 2000, NULL, NULL, ERR), DEVLOCK_OK);
    assert_true(now_ms() - t0 < 200);                   /* the dead turn is skipped at once */

    /* a waiter that is stopped (Ctrl-Z: SIGTSTP, in a process group of its own, as a shell
     * runs it) when its turn comes is skipped after a second */
    int p[2];
    assert_int_equal(pipe(p), 0);
    c = fork();
    assert_true(c >= 0);
    if (c == 0) {
        struct devlock *l;
        struct bl_err e = {0};
        setpgid(0, 0);
        close(p[0]);
        if (devlock_open(KEY, &l, &e))
            _exit(2);
        if (write(p[1], "q", 1) != 1)
            _exit(2);
        if (devlock_acquire(l, 20000, NULL, NULL, &e) != DEVLOCK_OK)
            _exit(3);
        devlock_close(l);
        _exit(0);
    }
    close(p[1]);
    char ch;
    assert_int_equal(read(p[0], &ch, 1), 1);
    close(p[0]);
    sleep_ms(100);                                      /* it queued behind us */
    kill(c, SIGTSTP);
    devlock_release(me);
    struct devlock *third;
    assert_int_equal(devlock_open(KEY, &third, ERR), 0);
    t0 = now_ms();
    enum devlock_status got = devlock_acquire(third, 5000, NULL, NULL, ERR);
    double dt = now_ms() - t0;
    devlock_release(third);
    kill(c, SIGCONT);                                   /* it queues again and gets a turn */
    print_message("a stopped waiter's turn was skipped after %.0f ms\n", dt);
    assert_int_equal(got, DEVLOCK_OK);
    assert_true(dt >= 900 && dt < 3000);
    assert_int_equal(waitpid(c, &st, 0), c);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    devlock_close(third);
    devlock_close(me);
}

/* 1 when process pid is stopped (state T in /proc/PID/stat), waiting at most 2 s */
static int stopped(pid_t pid)
{
    char p[64], b[512];
    snprintf(p, sizeof p, "/proc/%d/stat", (int)pid);
    for (int i = 0; i < 2000; i++) {
        FILE *f = fopen(p, "r");
        size_t n = f ? fread(b, 1, sizeof b - 1, f) : 0;
        if (f)
            fclose(f);
        b[n] = 0;
        const char *e = strrchr(b, ')');
        if (e && e[1] == ' ' && e[2] == 'T')
            return 1;
        sleep_ms(1);
    }
    return 0;
}

/* a child's loop: in a process group of its own (as a shell runs a job), take the turn and
 * give it back, again and again; ends with status 2 when the lock does not open */
static void take_turns_forever(void)
{
    struct devlock *l;
    struct bl_err e = {0};
    setpgid(0, 0);
    if (devlock_open(KEY, &l, &e))
        _exit(2);
    for (;;)
        if (devlock_acquire(l, 1000, NULL, NULL, &e) == DEVLOCK_OK)
            devlock_release(l);
}

/* Ctrl-Z never stops a process inside the lock file's header lock (which every other
 * process's turn waits on): a child takes and gives back its turn in a loop, spending most
 * of its time under that lock; stopped 40 times at random moments by SIGTSTP, it never holds
 * the header while stopped (seen from another open of the file, F_OFD_GETLK) */
static void test_ctrl_z_not_under_header(void **state)
{
    (void)state;
    pid_t c = fork();
    assert_true(c >= 0);
    if (c == 0)
        take_turns_forever();
    sleep_ms(50);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    assert_true(fd >= 0);
    int under = 0;
    for (int i = 0; i < 40; i++) {
        sleep_ms(1 + rand() % 5);
        kill(c, SIGTSTP);
        assert_true(stopped(c));
        struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 64};
        assert_int_equal(fcntl(fd, F_OFD_GETLK, &fl), 0);
        under += fl.l_type != F_UNLCK;
        kill(c, SIGCONT);
    }
    kill(c, SIGKILL);
    int st;
    assert_int_equal(waitpid(c, &st, 0), c);
    close(fd);
    print_message("stopped under the header lock: %d of 40\n", under);
    assert_int_equal(under, 0);
}

static void test_other_user(void **state)
{
    (void)state;
    if (geteuid() != 0)
        skip();                                         /* needs root to become another user */
    assert_int_equal(chmod(dir, 01777), 0);
    struct devlock *root_lock;
    assert_int_equal(devlock_open(KEY, &root_lock, ERR), 0);
    assert_int_equal(devlock_acquire(root_lock, 1000, NULL, NULL, ERR), DEVLOCK_OK);
    pid_t c = fork();
    assert_true(c >= 0);
    if (c == 0) {
        struct devlock *l;
        struct bl_err e = {0};
        if (setgid(65534) || setuid(65534))
            _exit(2);
        if (devlock_open(KEY, &l, &e))
            _exit(3);
        if (devlock_acquire(l, 100, NULL, NULL, &e) != DEVLOCK_TIMEOUT)
            _exit(4);                                   /* root holds it: nobody waits */
        if (devlock_acquire(l, 5000, NULL, NULL, &e) != DEVLOCK_OK)
            _exit(5);
        devlock_close(l);
        _exit(0);
    }
    sleep_ms(300);
    devlock_release(root_lock);
    int st;
    assert_int_equal(waitpid(c, &st, 0), c);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    devlock_close(root_lock);
}

/* The shared directory of the GPU server's sockets: one made here is 1777 and
 * ours; one of mode 1777 that another user (not root) made is refused with its owner named
 * (that user may remove or replace anything in it); root's is accepted by another user. */
static void test_share_dir_owner(void **state)
{
    (void)state;
    char buf[512], sub[600];
    struct stat st;
    assert_int_equal(chmod(dir, 01777), 0);
    assert_int_equal(devlock_share_dir("banklab-serve", buf, sizeof buf, ERR), 0);
    assert_int_equal(lstat(buf, &st), 0);
    assert_int_equal(st.st_mode & 07777, 01777);
    assert_int_equal(st.st_uid, geteuid());
    if (geteuid() != 0)
        skip();                                         /* needs root to play another user */
    snprintf(sub, sizeof sub, "%s/banklab-other", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    assert_int_equal(chmod(sub, 01777), 0);
    assert_int_equal(chown(sub, 65534, 65534), 0);
    assert_int_equal(devlock_share_dir("banklab-other", buf, sizeof buf, ERR), -1);
    assert_non_null(strstr(err.msg, "neither root nor you"));
    assert_non_null(strstr(err.msg, "uid 65534"));
    pid_t c = fork();
    assert_true(c >= 0);
    if (c == 0) {                                       /* nobody: root's 1777 one is fine */
        struct bl_err e = {0};
        char b[512];
        if (setgid(65534) || setuid(65534))
            _exit(2);
        _exit(devlock_share_dir("banklab-serve", b, sizeof b, &e) == 0 ? 0 : 3);
    }
    int ws;
    assert_int_equal(waitpid(c, &ws, 0), c);
    assert_true(WIFEXITED(ws));
    assert_int_equal(WEXITSTATUS(ws), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_key, setup, teardown),
        cmocka_unit_test_setup_teardown(test_create_mode, setup, teardown),
        cmocka_unit_test_setup_teardown(test_planted_symlink, setup, teardown),
        cmocka_unit_test_setup_teardown(test_planted_fifo_dir_hardlink, setup, teardown),
        cmocka_unit_test_setup_teardown(test_foreign_and_damaged, setup, teardown),
        cmocka_unit_test_setup_teardown(test_header_held, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unsafe_dirs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_exclusion_and_fairness, setup, teardown),
        cmocka_unit_test_setup_teardown(test_timeout_and_cancel, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dead_holder_and_stopped_waiter, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ctrl_z_not_under_header, setup, teardown),
        cmocka_unit_test_setup_teardown(test_other_user, setup, teardown),
        cmocka_unit_test_setup_teardown(test_share_dir_owner, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
