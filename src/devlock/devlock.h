/* devlock.h: the per-device measurement lock. Every banklab process of every user on a machine
 * (a class on one GPU server) measures a device only while holding that device's lock, so
 * timing launches never overlap and only one process profiles at a time; turns are first come,
 * first served (a ticket queue), so nobody starves. The lock is a 64-byte file named after the
 * device's UUID in a world-writable sticky directory; see devlock/lock.c for how it is made safely.
 * POSIX and Linux only (open file description locks): no CUDA, no curses, never prints. */
#ifndef BANKLAB_DEVLOCK_H
#define BANKLAB_DEVLOCK_H

#include <stddef.h>

#include "../base/err.h"

enum devlock_status {
    DEVLOCK_OK = 0,           /* our turn: the device is ours until devlock_release */
    DEVLOCK_TIMEOUT = 1,      /* our turn did not come in the time given */
    DEVLOCK_CANCELLED = 2,    /* the progress callback asked to stop waiting */
    DEVLOCK_ERROR = 3,        /* the lock file cannot be used (the message says why) */
};

/* What a waiter sees, for "waiting for the GPU (3 s, 2 ahead)". */
struct devlock_wait {
    double waited_ms;         /* since devlock_acquire was called */
    int ahead;                /* turns before ours: the one running counts */
};

/* Called about every 100 ms while waiting (from the waiting thread). Return nonzero to stop
 * waiting (devlock_acquire then answers DEVLOCK_CANCELLED). */
typedef int (*devlock_progress_fn)(void *arg, const struct devlock_wait *w);

struct devlock;

/* The lock files live in one directory: $BANKLAB_LOCK_DIR when set (and safe), else the first
 * safe one of /run/lock, /var/lock, /dev/shm, /tmp. Safe: a directory owned by root or by this
 * user that has the sticky bit when others may write to it. Every failure here but
 * devlock_acquire's has status DEVLOCK_ERROR. */

/* devlock_share_dir: the directory `name` (e.g. "banklab-serve") inside the locks' one, made
 * when missing as a shared sticky directory (mode 1777 whatever the umask) and checked (lstat:
 * a directory, not a link, owned by root or by this user (its owner may remove anything in
 * it); mode 1777, or this user's and writable by nobody else; its owner named when refused). For files every user of the machine shares (the GPU server's
 * sockets). Returns 0 with the path in buf, or -1 with err failed. */
int devlock_share_dir(const char *name, char *buf, size_t n, struct bl_err *err);

/* devlock_open: the lock named `key` (letters, digits, '-' and '_', at most 96 characters, e.g.
 * "GPU-5b1e0c4a-..." from devlock_key), created when missing. Never blocks for long and never
 * follows a symbolic link; refuses a file that is not a banklab lock (a link, a directory, a
 * FIFO, a file of the wrong size or content, a file with other names). Returns 0 and *out, or
 * -1 with err failed (naming the path, the owner and the problem). Each thread or process
 * that waits needs its own handle (a forked child opens its own; handles are close-on-exec). */
int devlock_open(const char *key, struct devlock **out, struct bl_err *err);

/* devlock_acquire: take a ticket and wait until it is served, at most timeout_ms (< 0: no
 * limit). progress (may be NULL) is called while waiting. A turn whose holder died is skipped,
 * and so is the turn of a live waiter that does not take it within a second (a stopped
 * process); that waiter queues again when it runs. DEVLOCK_ERROR when the file was damaged.
 * Anything but DEVLOCK_OK also fails err with that status and why. */
enum devlock_status devlock_acquire(struct devlock *l, int timeout_ms, devlock_progress_fn progress,
                                    void *arg, struct bl_err *err);

/* devlock_release: end our turn (the next ticket is served). Harmless when not held. */
void devlock_release(struct devlock *l);

/* devlock_close: release if held, and free. NULL is fine. */
void devlock_close(struct devlock *l);

/* devlock_path: the lock file's path (for messages). */
const char *devlock_path(const struct devlock *l);

/* devlock_key: "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" from a device's 16-byte UUID (the
 * name nvidia-smi shows), into buf (at least 41 bytes). Returns buf. */
char *devlock_key(const unsigned char uuid[16], char *buf, size_t n);

#endif
