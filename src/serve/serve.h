/* serve.h: `banklab serve`, one measuring process per GPU (daemon.c): it alone opens the
 * device (a backend struct gpu *: gpu_open's runner, or the fake device for tests) and every
 * other banklab process sends it requests over a Unix socket (serve/wire.h; the client is
 * serve/client.c behind gpu.h). Requests queue per client and are served round-robin, the
 * same request in flight or queued for several clients is measured once, a cache answers
 * repeats for cache_s seconds, and the counters can be paused for a profiler (by the server's
 * owner or root only). Clients are known by their Unix user: limits and turns are per user
 * (docs/security.md). The server never runs code a client sends: a request is data, checked
 * before it is measured. Never prints. */
#ifndef BANKLAB_SERVE_H
#define BANKLAB_SERVE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../gpu/gpu.h"

#define SERVE_DIR_NAME "banklab-serve"
#define SERVE_CACHE_DEFAULT_S 60
#define SERVE_SIGNAL_PAUSE_S 60      /* SIGUSR1 pauses the counters this long */
#define SERVE_AUTO_IDLE_S 600        /* a server a client started leaves after this long without
                                        a request */
#define SERVE_CLIENT_IDLE_S 60       /* a connection with nothing in flight that sent nothing
                                        this long is closed (the client reconnects when it asks) */
#define SERVE_USER_CONNS 16          /* connections of one user but the owner and root */
#define SERVE_JOB_S 90               /* a measurement the backend holds this long fails */

/* What the server counts (`banklab serve --stats`; the tests read it). */
struct serve_stats {
    uint64_t requests;            /* requests received (valid ones) */
    uint64_t measured;            /* requests the backend measured (merged and cached ones not) */
    uint64_t merged;              /* answered by a measurement queued or in flight for another */
    uint64_t cache_hits;          /* answered from the cache */
    uint64_t errors;              /* bad frames answered with an error */
    uint64_t dropped;             /* clients dropped (oversized frame, broken framing, not
                                     reading) or refused (over a user's connections) */
    uint32_t clients;             /* connected now */
    uint32_t queued;              /* requests waiting now */
    int32_t pause_left_s;         /* counters paused for this long still (0: not paused) */
    int32_t cache_s;              /* the cache keeps results this long (0: off) */
};

struct serve_opts {
    const char *path;             /* the socket */
    int device;                   /* told to clients (their hello names theirs) */
    int cache_s;                  /* keep results this long; 0: no cache */
    int idle_s;                   /* leave after this long without a request; 0: never */
    int client_idle_s;            /* close a connection idle this long; 0: never */
    int ready_fd;                 /* >= 0: "ok\n" or the error is written there once listening */
    int user_conns;               /* connections of one user but the owner and root; 0: SERVE_USER_CONNS */
    int job_s;                    /* a measurement the backend holds this long fails, its
                                     waiters told; 0: SERVE_JOB_S */
};

/* serve_default_path: the socket of device's server, SERVE_DIR_NAME/gpu-<uuid>.sock in the
 * shared directory of devlock_share_dir; with $BANKLAB_SERVE_FAKE=1 (tests) gpu-fake.sock.
 * 0, or -1 with err (no driver, no device, no safe directory). */
int serve_default_path(int device, char *path, size_t n, struct bl_err *err);

/* serve_run: listen on o->path (serve_listen: a stale socket is replaced, and so is whatever
 * another user put there when this is root; one of another user that this user cannot
 * replace: "<path>-u<uid>.sock" beside it, where this user's clients look next) and serve
 * backend until serve_stop, o->idle_s without a request, or an error. bound receives the path
 * listened on.
 * 0 after a clean end (the socket removed), 1 when another server already listens there, -1
 * with err. */
int serve_run(struct gpu *backend, const struct gpu_info *info, const struct serve_opts *o,
              char *bound, size_t bn, struct bl_err *err);

/* serve_listen (serve/sock.c): listen on path, or on serve_own_path(path) when path is another
 * user's name this user may not replace; bound receives the path listened on. The socket is
 * bound under a fresh name in path's directory and renamed onto path, so a stale socket, or a
 * file, FIFO, symlink or socket (a loop re-binding it included) of another user's there, is
 * replaced at once where this user may (root, in the root-owned shared directory); a file of
 * root's or this user's that is not a socket is never replaced (refused).
 * 0 with *fd, 1 when a live server of root or this user already listens there, -1 with err. */
int serve_listen(const char *path, int *fd, char *bound, size_t bn, struct bl_err *err);

/* serve_peer_uid: the Unix user at the other end of the connected socket fd (SO_PEERCRED):
 * 0 with *uid, or -1. serve_trusted_uid: uid is root or this process's user, whose sockets
 * and files in the shared directory are used (docs/security.md). */
int serve_peer_uid(int fd, uid_t *uid);
int serve_trusted_uid(uid_t uid);

/* serve_own_path: this user's name for the server of path when path is another user's:
 * "<path without .sock>-u<uid>.sock" (root: path itself). Clients look there after path. */
void serve_own_path(const char *path, char *buf, size_t n);

/* Async-signal-safe: from SIGTERM/SIGINT and SIGUSR1 handlers. */
void serve_stop(void);
void serve_pause_signal(void);

/* serve_control: connect to the server at path and pause its counters for seconds (pause 1;
 * 0 seconds ends a pause) or only ask (pause 0); its stats into *st. 0, or -1 with err (a
 * pause asked by neither the server's owner nor root is refused: the server says why). */
int serve_control(const char *path, int pause, int seconds, struct serve_stats *st, struct bl_err *err);

/* serve_fake_open: the fake device (serve/fake.c): answers after delay_ms with the model's
 * wavefronts as counters. For tests; gpu_info.device and provenance say "fake device". */
struct gpu *serve_fake_open(int delay_ms, struct gpu_info *info);

/* gpu_open_auto: what every banklab command but `banklab kernel` and `banklab serve` opens.
 * server (or $BANKLAB_SERVER when server is NULL or ""): a client of that socket. no_server
 * (or $BANKLAB_NO_SERVER=1): gpu_open, the runner in this process. Else the default socket of
 * device (the directory of serve_dir, named after the GPU's UUID); when no server answers
 * there, one is started (`banklab serve --device N --idle 600`, detached; one for many
 * clients starting at once) and reconnected to if it dies. Without a CUDA driver or device:
 * gpu_open (the reason of today). Returns NULL only when out of memory. */
struct gpu *gpu_open_auto(int device, const char *server, int no_server, struct gpu_info *info);

#endif
