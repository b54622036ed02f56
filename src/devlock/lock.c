/* lock.c: the per-device measurement lock (devlock/devlock.h): a ticket queue in a 64-byte file.
 *
 * The file holds {magic, next ticket, ticket served, ticket that claimed its turn, when the
 * served ticket last changed}. Its header is read and written only under an open file
 * description (OFD) write lock on bytes 0..63, held for microseconds. A process that takes
 * ticket t also write-locks one byte of its own (4096 + t mod 2^30) for as long as it waits or
 * holds the device: the kernel drops that lock when the process dies, so a dead ticket is seen
 * (F_OFD_GETLK) and skipped, and a crash never blocks the class. Served in ticket order, first
 * come first served; a release serves the next ticket.
 *
 * Made safely in a world-writable sticky directory: the file is created under a temporary name
 * (O_TMPFILE, else a random O_EXCL name) with its header and mode 0666 (whatever the umask:
 * fchmod), then linked to its real name, so nobody ever sees it half made; an existing file is
 * opened with O_NOFOLLOW | O_NONBLOCK (a planted link or FIFO cannot redirect or block us) and
 * used only when it is a regular file of 64 bytes with our magic (a second name is allowed:
 * anyone may hard-link the 0666 file, and refusing it would let one user turn off the turns
 * of all). Never prints. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../base/err.h"
#include "../base/fmt.h"
#include "devlock.h"
#include "../sys/sys.h"

#define DL_MAGIC "BLDLOCK1"
#define DL_SIZE 64
#define DL_LIVE_BASE 4096LL
#define DL_LIVE_SLOTS (1LL << 30)
#define DL_GRACE_NS 1000000000LL      /* a live waiter must take its turn within 1 s */
#define DL_HEADER_HELD_NS 3000000000LL /* banklab holds the header for microseconds, its stops
                                          held back: held this long, it is another program's */
#define DL_MAX_QUEUE (1u << 20)       /* more tickets outstanding than this: damaged */
#define DL_PATH_MAX 512

struct dl_header {                    /* the file, in this machine's byte order */
    char magic[8];
    uint64_t next;                    /* the next ticket handed out */
    uint64_t serving;                 /* the ticket whose turn it is */
    uint64_t claimed;                 /* serving + 1 once its owner took the turn, else 0 */
    int64_t since_ns;                 /* when serving last changed: bl_now_ms() * 1e6, the
                                         same clock in every process */
    uint64_t unused[3];
};
_Static_assert(sizeof(struct dl_header) == DL_SIZE, "the lock file is 64 bytes");

struct devlock {
    int fd;
    int queued;                       /* we hold a ticket (its live byte is locked) */
    int owned;                        /* ... and it is being served: the device is ours */
    uint64_t ticket;
    char path[DL_PATH_MAX];
    int held;                         /* the header lock holds back the stop signals: */
    sigset_t mask;                    /* the mask to put back */
};

static void nap_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000L};
    while (nanosleep(&ts, &ts) && errno == EINTR) {
    }
}

static void owner_note(int dfd, const char *name, char *buf, size_t n);

/* ---- the directory ---- */

/* Why dfd (at path) is not a safe place for lock files, or NULL. private_ok: a directory of
 * this user that others cannot write to is fine too ($BANKLAB_LOCK_DIR). */
static const char *dir_problem(int dfd, int private_ok, char *buf, size_t n)
{
    struct stat st;
    if (fstat(dfd, &st))
        return strerror(errno);
    if (!S_ISDIR(st.st_mode))
        return "not a directory";
    if (st.st_uid != 0 && st.st_uid != geteuid()) {
        snprintf(buf, n, "owned by uid %u, neither root nor you", (unsigned)st.st_uid);
        return buf;
    }
    int others_write = (st.st_mode & (S_IWGRP | S_IWOTH)) != 0;
    if (others_write && !(st.st_mode & S_ISVTX))
        return "others may write to it and it has no sticky bit";
    if (!private_ok && (st.st_mode & 01777) != 01777)
        return "not writable by every user with the sticky bit (mode 1777)";
    return NULL;
}

/* Opens the lock directory: 0 with *dfd and its path, or -1 with err. */
static int open_dir(int *dfd, char *path, size_t pn, struct bl_err *err)
{
    static const char *const candidates[] = {"/run/lock", "/var/lock", "/dev/shm", "/tmp"};
    char why[96];
    const char *env = sys_env("BANKLAB_LOCK_DIR");
    if (env && *env) {
        int fd = open(env, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        const char *p = fd < 0 ? strerror(errno) : dir_problem(fd, 1, why, sizeof why);
        if (p) {
            if (fd >= 0)
                close(fd);
            return bl_fail(err, DEVLOCK_ERROR, BL_NOWHERE, DLK_ENV_DIR, env, p);
        }
        *dfd = fd;
        snprintf(path, pn, "%s", env);
        return 0;
    }
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        int fd = open(candidates[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
            continue;
        if (!dir_problem(fd, 0, why, sizeof why)) {
            *dfd = fd;
            snprintf(path, pn, "%s", candidates[i]);
            return 0;
        }
        close(fd);
    }
    return bl_fail(err, DEVLOCK_ERROR, BL_NOWHERE, DLK_NO_DIR);
}

int devlock_share_dir(const char *name, char *buf, size_t n, struct bl_err *err)
{
    char parent[DL_PATH_MAX - 64];
    int dfd;
    if (open_dir(&dfd, parent, sizeof parent, err))
        return -1;
    bl_fmt(buf, n, "%s/%s", parent, name);
    if (mkdirat(dfd, name, 0700) == 0) {
        /* ours and private until it has its final mode: nobody saw it half made */
        int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 || fchmod(fd, 01777)) {
            bl_fail(err, DEVLOCK_ERROR, BL_NOWHERE, DLK_PATH, buf, strerror(errno));
            if (fd >= 0)
                close(fd);
            close(dfd);
            return -1;
        }
        close(fd);
    } else if (errno != EEXIST) {
        close(dfd);
        return bl_fail(err, DEVLOCK_ERROR, BL_NOWHERE, DLK_CANNOT_MAKE, buf, strerror(errno));
    }
    struct stat st;
    char owner[128];
    const char *problem = NULL;
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
        problem = strerror(errno);
    else if (S_ISLNK(st.st_mode))
        problem = "a symbolic link (not followed)";
    else if (!S_ISDIR(st.st_mode))
        problem = "not a directory";
    else if ((st.st_mode & 07777) != 01777 &&
             !(st.st_uid == geteuid() && !(st.st_mode & (S_IWGRP | S_IWOTH))))
        problem = "neither shared with the sticky bit (mode 1777) nor private to you";
    else if (st.st_uid != 0 && st.st_uid != geteuid())
        /* its owner may remove or replace anything in it, sticky bit or not: a learner who
         * made it first would answer for the class's server (as OpenSSH's StrictModes and
         * git's safe.directory, only root's or ours is trusted) */
        problem = "shared, but owned by a user who is neither root nor you";
    if (problem) {
        owner_note(dfd, name, owner, sizeof owner);
        close(dfd);
        return bl_fail(err, DEVLOCK_ERROR, BL_NOWHERE, DLK_SHARE_REFUSED, buf, problem, owner);
    }
    close(dfd);
    return 0;
}

/* ---- the file ---- */

static int lk(int fd, int cmd, short type, long long start, long long len)
{
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = type;
    fl.l_whence = SEEK_SET;
    fl.l_start = (off_t)start;
    fl.l_len = (off_t)len;
    return fcntl(fd, cmd, &fl);
}

static long long live_byte(uint64_t ticket)
{
    return DL_LIVE_BASE + (long long)(ticket % (uint64_t)DL_LIVE_SLOTS);
}

/* 1 when another open file holds ticket t's live byte (its owner is alive), else 0. An error
 * counts as alive: never skip a turn on a doubt. */
static int ticket_alive(int fd, uint64_t t)
{
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    fl.l_start = (off_t)live_byte(t);
    fl.l_len = 1;
    if (fcntl(fd, F_OFD_GETLK, &fl))
        return 1;
    return fl.l_type != F_UNLCK;
}

/* A new lock file that nobody can see yet: anonymous (O_TMPFILE; tmp = "") or under a random
 * O_EXCL name (tmp), with its header written and mode 0666 whatever the umask. -1 on failure. */
static int make_hidden(int dfd, int anonymous, char *tmp, size_t tn)
{
    struct dl_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, DL_MAGIC, 8);
    h.since_ns = (int64_t)(bl_now_ms() * 1e6);
    int fd = -1;
    tmp[0] = 0;
#ifdef O_TMPFILE
    if (anonymous)
        fd = openat(dfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
    for (int i = 0; fd < 0 && !anonymous && i < 64; i++) {
        unsigned r = (unsigned)(int64_t)(bl_now_ms() * 1e6) ^ (unsigned)getpid() * 2654435761u ^
                     (unsigned)i * 40503u;
        snprintf(tmp, tn, ".banklab-lock-%08x.tmp", r);
        fd = openat(dfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0)
        return -1;
    if (pwrite(fd, &h, sizeof h, 0) != (ssize_t)sizeof h || fchmod(fd, 0666)) {
        int e = errno;
        if (tmp[0])
            unlinkat(dfd, tmp, 0);
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

/* Gives the hidden file fd its real name; fails with EEXIST when the name is taken. */
static int publish(int dfd, int fd, const char *tmp, const char *name)
{
    if (tmp[0]) {
        int rc = linkat(dfd, tmp, dfd, name, 0), e = errno;
        unlinkat(dfd, tmp, 0);
        errno = e;
        return rc;
    }
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    return linkat(AT_FDCWD, proc, dfd, name, AT_SYMLINK_FOLLOW);
}

/* Makes the lock file `name`. Returns it open, or -1 with errno (EEXIST: someone else made it
 * first; open theirs). An anonymous file first; a named one where O_TMPFILE or /proc is not. */
static int create_file(int dfd, const char *name)
{
    char tmp[64];
    for (int anonymous = 1; anonymous >= 0; anonymous--) {
        int fd = make_hidden(dfd, anonymous, tmp, sizeof tmp);
        if (fd < 0)
            continue;
        if (publish(dfd, fd, tmp, name) == 0)
            return fd;
        int e = errno;
        close(fd);
        errno = e;
        if (e == EEXIST)
            return -1;
    }
    return -1;
}

static int read_header(int fd, struct dl_header *h)
{
    return pread(fd, h, sizeof *h, 0) == (ssize_t)sizeof *h ? 0 : -1;
}

static int write_header(int fd, const struct dl_header *h)
{
    return pwrite(fd, h, sizeof *h, 0) == (ssize_t)sizeof *h ? 0 : -1;
}

static int header_ok(const struct dl_header *h)
{
    return !memcmp(h->magic, DL_MAGIC, 8) && h->next - h->serving <= DL_MAX_QUEUE;
}

/* Why the open file fd is not a banklab lock, or NULL. transient: the problem may pass (a
 * second name, while another process links its new file). */
static const char *file_problem(int fd, char *buf, size_t n, int *transient)
{
    struct stat st;
    struct dl_header h;
    *transient = 0;
    if (fstat(fd, &st))
        return strerror(errno);
    if (!S_ISREG(st.st_mode))
        return "not a regular file";
    /* A second name (st_nlink > 1) is no reason to refuse: anyone who can read and write the
     * 0666 file may hard-link it (fs.protected_hardlinks allows that), and refusing it would
     * let one user make every other measure without turns. The name cannot redirect us (it
     * was opened O_NOFOLLOW in the lock directory) and the content is checked below: a file
     * that is not a banklab lock is still refused, whatever its names. */
    if (st.st_size != DL_SIZE) {
        snprintf(buf, n, "%lld bytes, not a banklab lock (%d bytes)", (long long)st.st_size, DL_SIZE);
        return buf;
    }
    if (read_header(fd, &h) || !header_ok(&h))
        return "not a banklab lock (wrong content)";
    return NULL;
}

/* " (owner NAME, uid N, mode 0644)" of the file at name, for messages. */
static void owner_note(int dfd, const char *name, char *buf, size_t n)
{
    struct stat st;
    buf[0] = 0;
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
        return;
    struct passwd pw, *res = NULL;
    char pwbuf[1024];
    const char *who = getpwuid_r(st.st_uid, &pw, pwbuf, sizeof pwbuf, &res) == 0 && res
                          ? res->pw_name : "?";
    snprintf(buf, n, " (owner %s, uid %u, mode %04o)", who, (unsigned)st.st_uid,
             (unsigned)(st.st_mode & 07777));
}

int devlock_open(const char *key, struct devlock **out, struct bl_err *err)
{
    *out = NULL;
    size_t kl = key ? strlen(key) : 0;
    if (kl == 0 || kl > 96 ||
        strspn(key, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") != kl)
        return bl_fail(err, DEVLOCK_ERROR, BL_NOWHERE, DLK_BAD_KEY, key ? key : "");
    struct devlock *l = calloc(1, sizeof *l);
    if (!l)
        return bl_fail(err, DEVLOCK_ERROR, BL_NOWHERE, DLK_NO_MEMORY);
    l->fd = -1;
    char dir[DL_PATH_MAX - 128], name[128], why[96], owner[128];
    int dfd;
    if (open_dir(&dfd, dir, sizeof dir, err)) {
        free(l);
        return -1;
    }
    snprintf(name, sizeof name, "banklab-%s.lock", key);
    snprintf(l->path, sizeof l->path, "%s/%s", dir, name);
    const char *problem = NULL;
    for (int attempt = 0; attempt < 50; attempt++) {
        int fd = openat(dfd, name, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT) {
            fd = create_file(dfd, name);
            if (fd < 0 && errno == EEXIST)
                continue;                    /* made by another process meanwhile: open it */
        }
        if (fd < 0) {
            problem = errno == ELOOP ? "a symbolic link (not followed)" : strerror(errno);
            break;
        }
        int transient;
        problem = file_problem(fd, why, sizeof why, &transient);
        if (!problem) {
            l->fd = fd;
            break;
        }
        close(fd);
        if (!transient)
            break;
        nap_us(2000);
    }
    if (l->fd < 0) {
        owner_note(dfd, name, owner, sizeof owner);
        bl_fail(err, DEVLOCK_ERROR, BL_NOWHERE, DLK_FILE_REFUSED, l->path,
                problem ? problem : "cannot be opened", owner);
        close(dfd);
        free(l);
        return -1;
    }
    close(dfd);
    *out = l;
    return 0;
}

/* ---- the queue ---- */

/* Takes the header lock, waiting at most until deadline (< 0: no limit). While it is held,
 * a terminal's stop (Ctrl-Z) is held back: stopped in those microseconds, a process would
 * hold every other's turn until it is continued (a SIGSTOP still can: kill -STOP, a
 * debugger). */
static int header_lock(struct devlock *l, int64_t deadline)
{
    for (;;) {
        int held = sys_sig_hold_stops(&l->mask) == 0;
        if (lk(l->fd, F_OFD_SETLK, F_WRLCK, 0, DL_SIZE) == 0) {
            l->held = held;
            return 0;
        }
        int e = errno;
        if (held)
            sys_sig_unhold(&l->mask);
        errno = e;
        if (errno != EAGAIN && errno != EACCES && errno != EINTR)
            return -1;
        if (deadline >= 0 && (int64_t)(bl_now_ms() * 1e6) > deadline) {
            errno = ETIMEDOUT;
            return -1;
        }
        nap_us(200);
    }
}

static void header_unlock(struct devlock *l)
{
    lk(l->fd, F_OFD_SETLK, F_UNLCK, 0, DL_SIZE);
    if (l->held)
        sys_sig_unhold(&l->mask);
    l->held = 0;
}

static void drop_ticket(struct devlock *l)
{
    if (l->queued)
        lk(l->fd, F_OFD_SETLK, F_UNLCK, live_byte(l->ticket), 1);
    l->queued = l->owned = 0;
}

enum step {
    STEP_WAIT,                        /* not our turn yet */
    STEP_OURS,                        /* our turn: claimed */
    STEP_SKIPPED,                     /* our turn went by: queue again */
    STEP_BUSY,                        /* header or live byte not to be had now: try again */
    STEP_NOLOCK,                      /* the system refuses the locks (no OFD locks) */
    STEP_DAMAGED,                     /* the header is not ours any more */
    STEP_HELD,                        /* another program holds the header (DL_HEADER_HELD_NS) */
};

/* Under the header lock: take a ticket if we have none, skip dead or unclaimed turns ahead of
 * ours, and claim ours when it is served. *ahead: turns before ours. */
static enum step step(struct devlock *l, int64_t deadline, int *ahead)
{
    struct dl_header h;
    int64_t now = (int64_t)(bl_now_ms() * 1e6), held = now + DL_HEADER_HELD_NS;
    if (header_lock(l, deadline >= 0 && deadline < held ? deadline : held)) {
        if (errno != ETIMEDOUT)
            return STEP_NOLOCK;
        return deadline >= 0 && deadline < held ? STEP_BUSY : STEP_HELD;
    }
    enum step r = STEP_WAIT;
    int dirty = 0;
    now = (int64_t)(bl_now_ms() * 1e6);
    if (read_header(l->fd, &h) || !header_ok(&h)) {
        header_unlock(l);
        return STEP_DAMAGED;
    }
    if (!l->queued) {
        for (int i = 0; i < 8 && !l->queued; i++) {     /* a held byte: a stuck old ticket */
            uint64_t t = h.next++;
            if (lk(l->fd, F_OFD_SETLK, F_WRLCK, live_byte(t), 1) == 0) {
                l->queued = 1;
                l->ticket = t;
            }
        }
        dirty = 1;
    }
    while (l->queued) {
        uint64_t s = h.serving;
        if (s == l->ticket) {
            h.claimed = s + 1;
            dirty = 1;
            r = STEP_OURS;
            break;
        }
        if ((int64_t)(l->ticket - s) < 0) {            /* our turn was skipped */
            r = STEP_SKIPPED;
            break;
        }
        int64_t age = now - h.since_ns;
        if (!ticket_alive(l->fd, s) || (h.claimed != s + 1 && age > DL_GRACE_NS)) {
            h.serving = s + 1;                          /* dead, or asleep at its turn */
            h.claimed = 0;
            h.since_ns = now;
            dirty = 1;
            continue;
        }
        *ahead = (int)(l->ticket - s > 1000000 ? 1000000 : l->ticket - s);
        break;
    }
    if (!l->queued)
        r = STEP_BUSY;                                  /* no free live byte: try again later */
    if (dirty && write_header(l->fd, &h))
        r = STEP_DAMAGED;
    header_unlock(l);
    return r;
}

enum devlock_status devlock_acquire(struct devlock *l, int timeout_ms, devlock_progress_fn progress,
                                    void *arg, struct bl_err *err)
{
    if (l->owned)
        return DEVLOCK_OK;
    int64_t t0 = (int64_t)(bl_now_ms() * 1e6);
    int64_t deadline = timeout_ms >= 0 ? t0 + (int64_t)timeout_ms * 1000000 : -1;
    for (;;) {
        int ahead = 0;
        enum step s = step(l, deadline, &ahead);
        if (s == STEP_OURS) {
            l->owned = 1;
            return DEVLOCK_OK;
        }
        if (s == STEP_DAMAGED || s == STEP_NOLOCK || s == STEP_HELD) {
            drop_ticket(l);
            if (s == STEP_HELD)
                bl_fail(err, DEVLOCK_ERROR, BL_NOWHERE, DLK_HEADER_HELD, l->path,
                        (double)DL_HEADER_HELD_NS / 1e9);
            else
                bl_fail(err, DEVLOCK_ERROR, BL_NOWHERE, DLK_FILE_BROKEN, l->path,
                        s == STEP_NOLOCK ? "the system refuses file locks on it (needs Linux 3.15+)"
                                         : "damaged (remove it while no banklab runs)");
            return DEVLOCK_ERROR;
        }
        if (s == STEP_SKIPPED) {
            drop_ticket(l);                             /* queue again, at the end */
            continue;
        }
        int64_t now = (int64_t)(bl_now_ms() * 1e6);
        struct devlock_wait w = {(double)(now - t0) / 1e6, ahead};
        if (progress && progress(arg, &w)) {
            drop_ticket(l);
            bl_fail(err, DEVLOCK_CANCELLED, BL_NOWHERE, DLK_CANCELLED);
            return DEVLOCK_CANCELLED;
        }
        if (deadline >= 0 && now >= deadline) {
            drop_ticket(l);
            bl_fail(err, DEVLOCK_TIMEOUT, BL_NOWHERE, DLK_WAITED, w.waited_ms / 1e3, ahead,
                    ahead == 1 ? "" : "s");
            return DEVLOCK_TIMEOUT;
        }
        long us = ahead <= 1 ? 1000 : ahead < 10 ? 2000L * ahead : 20000;
        if (deadline >= 0 && (deadline - now) / 1000 < us)
            us = (long)((deadline - now) / 1000) + 1;
        nap_us(us);
    }
}

void devlock_release(struct devlock *l)
{
    if (!l || !l->queued)
        return;
    if (l->owned && header_lock(l, (int64_t)(bl_now_ms() * 1e6) + 2000000000LL) == 0) {
        struct dl_header h;
        if (!read_header(l->fd, &h) && header_ok(&h) && h.serving == l->ticket) {
            h.serving++;
            h.claimed = 0;
            h.since_ns = (int64_t)(bl_now_ms() * 1e6);
            write_header(l->fd, &h);
        }
        header_unlock(l);
    }
    /* Without the header (a stuck holder of it), the next waiter sees our live byte free and
     * skips our turn itself. */
    drop_ticket(l);
}

void devlock_close(struct devlock *l)
{
    if (!l)
        return;
    devlock_release(l);
    if (l->fd >= 0)
        close(l->fd);
    free(l);
}

const char *devlock_path(const struct devlock *l)
{
    return l ? l->path : "";
}

char *devlock_key(const unsigned char uuid[16], char *buf, size_t n)
{
    snprintf(buf, n, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             uuid[0], uuid[1], uuid[2], uuid[3], uuid[4], uuid[5], uuid[6], uuid[7], uuid[8],
             uuid[9], uuid[10], uuid[11], uuid[12], uuid[13], uuid[14], uuid[15]);
    return buf;
}
