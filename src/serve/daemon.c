/* daemon.c: the GPU server (serve/serve.h). One thread: a poll() loop over the listening socket and
 * the clients. Each client has a FIFO of the requests it sent (SV_QUEUE at most); when the
 * backend can take one (SV_INFLIGHT in flight), the clients are visited round-robin and the
 * next one with a request waiting sends its oldest. A request names a job: the measurement
 * of one key (kind, access or case and the values its kernel reads, want flags); a second
 * request of the same key while the job is queued or in flight waits on the same job, so it
 * is measured once and every waiter answered. Finished jobs with complete numbers go to the
 * cache for cache_s seconds. A client that leaves takes its waits with it; a queued job that
 * others still wait on goes to one of their queues (hand_over), one nobody waits for any more
 * is dropped before it runs, or its result cached when it was running. A job the backend
 * holds job_s seconds fails, its waiters told (expire_jobs). While the
 * counters are paused (for a profiler: --pause, SIGUSR1) requests are measured without
 * counters and say so.
 *
 * Clients are known by their Unix user (SO_PEERCRED at accept): a user who is neither the
 * server's owner nor root holds at most SV_USER_CONNS connections, SV_USER_QUEUE waiting
 * requests and SV_USER_JOBS jobs, so no one user can fill the tables; the backend's turns go
 * round-robin over users first and then over that user's connections, so 100 connections of
 * one user do not make another wait 100 times longer. A connection with nothing in flight
 * that sent nothing for client_idle_s is closed; a server a client started (idle_s) leaves
 * after idle_s without a request, whatever connections stay open. Pausing or resuming the
 * counters is refused to anyone but the owner and root. Never prints. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../base/buf.h"
#include "../base/err.h"
#include "../base/fmt.h"
#include "../gpu/gpu.h"
#include "serve.h"
#include "cache.h"
#include "wire.h"
#include "../sys/sys.h"

#define SV_CLIENTS 1024            /* connections of all users */
#define SV_QUEUE 256               /* requests a connection may wait on, merged ones included */
#define SV_JOBS 4096
#define SV_USER_CONNS SERVE_USER_CONNS /* connections of one user (not the owner, not root) */
#define SV_USER_QUEUE 512          /* requests one user may have waiting, all connections */
#define SV_USER_JOBS 512           /* jobs one user's requests created, queued or running */
#define SV_PRIV_FACTOR 4           /* the owner and root: this many times the queue and jobs */
#define SV_ACCEPT_BURST 256        /* connections taken per turn of the loop */
#define SV_KEEPALIVE_S 5.0         /* waiters hear from the server at least this often */
#define SV_INFLIGHT 2              /* requests handed to the backend at once */
#define SV_CACHE 512
#define SV_OUT_MAX (512 * 1024)    /* bytes a client has not read before it is dropped */

static volatile sig_atomic_t stop_flag, pause_flag;

void serve_stop(void)
{
    stop_flag = 1;
}

void serve_pause_signal(void)
{
    pause_flag = 1;
}

struct waiter {
    int slot;
    uint32_t gen;
    uint64_t id;                   /* the client's request id */
};

enum job_state { JOB_FREE = 0, JOB_QUEUED, JOB_RUNNING };

struct job {
    enum job_state state;
    uint64_t serial;               /* the id the backend sees */
    int user;                      /* the user (S->u index) whose request made it */
    struct gpu_request req;
    int paused;                    /* measured while the counters were paused */
    int told_phase, told_ahead;    /* the backend's progress last forwarded to the waiters */
    double since;                  /* seconds: handed to the backend (JOB_RUNNING) */
    struct waiter *w;
    int nw, cap;
};

struct client {
    int fd;                        /* -1: free slot */
    uint32_t gen;
    int user;                      /* its user: an index of S->u */
    int waits;                     /* requests of it a job will answer (at most SV_QUEUE) */
    double last_active;            /* seconds: when it last sent something */
    int closing;                   /* close once the output is written */
    uint8_t *in;
    size_t inlen;
    struct bl_buf out;             /* answers still to be sent (at most SV_OUT_MAX bytes) */
    uint64_t q[SV_QUEUE];          /* serials of queued jobs it waits on, oldest first (never
                                      more than waits) */
    int qhead, qcount;
};

/* A Unix user with connections or jobs: what it holds, counted against its limits. */
struct user {
    int used;
    uid_t uid;
    int priv;                      /* the server's owner or root: no connection limit */
    int conns, queued, jobs;
    int rr;                        /* its connection whose turn is next */
};

struct server {
    struct gpu *be;
    const struct gpu_info *info;
    const struct serve_opts *o;
    int lfd;
    struct client *c;
    struct job *jobs;
    struct sv_cache_ent *cache;    /* SV_CACHE */
    uint64_t next_serial;
    int running;
    struct user *u;                /* SV_CLIENTS: at most one user per connection */
    int urr;                       /* the user whose turn is next */
    uid_t owner;                   /* who runs the server */
    double pause_until;
    double last_request;           /* seconds: the last request (for idle_s) */
    double accept_after;           /* out of descriptors: accept again after this */
    struct serve_stats st;
};

/* ---- keys ---- */

/* a and b are the same measurement: every field but the id (serve/wire.h) */
static int same_key(const struct gpu_request *a, const struct gpu_request *b)
{
    return sw_same_request(a, b);
}

static int paused(const struct server *S)
{
    return S->pause_until > bl_now_ms() / 1e3;
}

/* ---- output ---- */

static void drop_client(struct server *S, int slot);

static void flush_client(struct server *S, int slot)
{
    struct client *c = &S->c[slot];
    while (c->out.len > 0) {
        ssize_t k = send(c->fd, c->out.s, c->out.len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (k <= 0) {
            drop_client(S, slot);
            return;
        }
        bl_buf_drop(&c->out, (size_t)k);
    }
    if (c->closing)
        drop_client(S, slot);
}

static void send_frame(struct server *S, int slot, const struct sw_buf *b)
{
    struct client *c = &S->c[slot];
    if (c->fd < 0)
        return;
    if (bl_buf_add(&c->out, b->b, b->len)) {
        if (c->out.failed == EFBIG)
            S->st.dropped++;       /* it does not read its answers */
        drop_client(S, slot);      /* or out of memory */
        return;
    }
    flush_client(S, slot);
}

static void send_result(struct server *S, int slot, const struct gpu_result *r)
{
    struct sw_buf b;
    if (sw_put_result(&b, r) == 0)
        send_frame(S, slot, &b);
}

static void send_error(struct server *S, int slot, uint64_t id, const char *why)
{
    struct gpu_result r;
    memset(&r, 0, sizeof r);
    r.id = id;
    r.from_server = 1;
    bl_fail(&r.err, GPU_EINVAL, BL_NOWHERE, SRV_BAD_REQUEST, why);
    S->st.errors++;
    send_result(S, slot, &r);
}

static void send_progress(struct server *S, int slot, uint64_t id, int phase, int ahead)
{
    struct sw_progress p = {id, phase, ahead};
    struct sw_buf b;
    if (sw_put_progress(&b, &p) == 0)
        send_frame(S, slot, &b);
}

/* ---- users ---- */

/* the user of uid, made when new; -1 when the table is full (it cannot be: one per client) */
static int user_of(struct server *S, uid_t uid)
{
    int free_at = -1;
    for (int i = 0; i < SV_CLIENTS; i++) {
        if (S->u[i].used && S->u[i].uid == uid)
            return i;
        if (!S->u[i].used && free_at < 0)
            free_at = i;
    }
    if (free_at >= 0) {
        S->u[free_at] = (struct user){1, uid, uid == 0 || uid == S->owner, 0, 0, 0, -1};
    }
    return free_at;
}

/* forgets user i once it holds nothing */
static void user_done(struct server *S, int i)
{
    struct user *u = &S->u[i];
    if (u->used && u->conns == 0 && u->jobs == 0 && u->queued == 0)
        memset(u, 0, sizeof *u);
}

static int user_limit(const struct server *S, int i, int base)
{
    return S->u[i].priv ? base * SV_PRIV_FACTOR : base;
}

/* ---- jobs ---- */

static struct job *job_of(struct server *S, uint64_t serial)
{
    for (int i = 0; i < SV_JOBS; i++)
        if (S->jobs[i].state != JOB_FREE && S->jobs[i].serial == serial)
            return &S->jobs[i];
    return NULL;
}

static void job_free(struct server *S, struct job *j)
{
    int u = j->user;
    free(j->w);
    memset(j, 0, sizeof *j);
    if (u >= 0 && S->u[u].jobs > 0) {
        S->u[u].jobs--;
        user_done(S, u);
    }
}

static int job_wait(struct server *S, struct job *j, int slot, uint64_t id)
{
    if (bl_grow(&j->w, &j->cap, j->nw + 1, sizeof *j->w, 4))
        return -1;
    j->w[j->nw++] = (struct waiter){slot, S->c[slot].gen, id};
    S->c[slot].waits++;
    return 0;
}

/* a job of key q queued, or running with the same pause state; else NULL */
static struct job *job_find(struct server *S, const struct gpu_request *q)
{
    int p = paused(S);
    for (int i = 0; i < SV_JOBS; i++) {
        struct job *j = &S->jobs[i];
        if (j->state == JOB_QUEUED || (j->state == JOB_RUNNING && j->paused == p))
            if (same_key(&j->req, q))
                return j;
    }
    return NULL;
}

/* a new job of user's, or NULL when the table or that user's share of it is full */
static struct job *job_new(struct server *S, const struct gpu_request *q, int user)
{
    if (S->u[user].jobs >= user_limit(S, user, SV_USER_JOBS))
        return NULL;
    for (int i = 0; i < SV_JOBS; i++) {
        struct job *j = &S->jobs[i];
        if (j->state != JOB_FREE)
            continue;
        j->state = JOB_QUEUED;
        j->serial = ++S->next_serial;
        j->req = *q;
        j->req.id = j->serial;
        j->user = user;
        S->u[user].jobs++;
        return j;
    }
    return NULL;
}

/* ---- requests ---- */

/* how many measurements come before a request that is the k-th of its user's waiting ones:
 * those running, the user's own before it, and up to k + 1 of every other user's (turns go
 * round-robin over users) */
static int ahead_of(const struct server *S, int user, int k)
{
    int n = S->running + k;
    for (int i = 0; i < SV_CLIENTS; i++)
        if (i != user && S->u[i].used)
            n += S->u[i].queued < k + 1 ? S->u[i].queued : k + 1;
    return n;
}

/* the request id of client slot refused: its user's or its connection's share is full (what
 * each holds said), or the table is */
static void send_busy(struct server *S, int slot, uint64_t id)
{
    const struct client *c = &S->c[slot];
    const struct user *u = &S->u[c->user];
    struct gpu_result r;
    memset(&r, 0, sizeof r);
    r.id = id;
    r.from_server = 1;
    bl_fail(&r.err, GPU_EBUSY, BL_NOWHERE, SRV_QUEUE_FULL, (unsigned)u->uid, u->queued,
            user_limit(S, c->user, SV_USER_QUEUE), c->waits, SV_QUEUE);
    send_result(S, slot, &r);
}

static void on_request(struct server *S, int slot, const uint8_t *p, size_t n)
{
    struct client *c = &S->c[slot];
    struct user *u = &S->u[c->user];
    struct gpu_request q;
    uint64_t id = 0;
    struct bl_err err = {0};
    if (sw_get_request(p, n, &q, &id, &err)) {
        send_error(S, slot, id, err.msg);
        return;
    }
    S->st.requests++;
    S->last_request = bl_now_ms() / 1e3;
    const struct sv_cache_ent *e =
        S->o->cache_s > 0 ? sv_cache_get(S->cache, SV_CACHE, S->o->cache_s, &q) : NULL;
    if (e) {
        struct gpu_result r = e->res;
        r.id = q.id;
        r.from_server = r.from_cache = 1;
        r.cached_age_s = bl_now_ms() / 1e3 - e->t;
        r.wait_ms = 0;
        S->st.cache_hits++;
        send_result(S, slot, &r);
        return;
    }
    /* a connection waits on SV_QUEUE requests at most, merged ones included: its queue can
     * always take a job it waits on (hand_over) */
    struct job *j = c->waits < SV_QUEUE ? job_find(S, &q) : NULL;
    int merged = j != NULL;
    if (!j && c->waits < SV_QUEUE && u->queued < user_limit(S, c->user, SV_USER_QUEUE))
        j = job_new(S, &q, c->user);
    if (j && job_wait(S, j, slot, q.id)) {
        if (!merged)
            job_free(S, j);
        j = NULL;
    }
    if (!j) {
        send_busy(S, slot, q.id);
        return;
    }
    if (merged) {
        S->st.merged++;
        send_progress(S, slot, q.id, j->state == JOB_RUNNING ? GPU_PHASE_MEASURING
                                                            : GPU_PHASE_WAITING, 0);
        return;
    }
    int ahead = ahead_of(S, c->user, u->queued);
    j->told_phase = ahead ? GPU_PHASE_WAITING : GPU_PHASE_MEASURING;
    j->told_ahead = ahead;
    c->q[(c->qhead + c->qcount) % SV_QUEUE] = j->serial;
    c->qcount++;
    u->queued++;
    S->st.queued++;
    send_progress(S, slot, q.id, ahead ? GPU_PHASE_WAITING : GPU_PHASE_MEASURING, ahead);
}

static void on_control(struct server *S, int slot, const uint8_t *p, size_t n)
{
    struct sw_control ctl;
    struct bl_err err = {0};
    if (sw_get_control(p, n, &ctl, &err)) {
        send_error(S, slot, 0, err.msg);
        return;
    }
    if (ctl.op == SW_CTL_PAUSE && !S->u[S->c[slot].user].priv) {
        /* the counters are the class's: only who runs the server (or root) pauses them */
        struct gpu_result r;
        memset(&r, 0, sizeof r);
        r.from_server = 1;
        bl_fail(&r.err, GPU_EINVAL, BL_NOWHERE, SV_CONTROL_REFUSED, (unsigned)S->owner,
                (unsigned)S->u[S->c[slot].user].uid);
        S->st.errors++;
        send_result(S, slot, &r);
        return;
    }
    if (ctl.op == SW_CTL_PAUSE)
        S->pause_until = ctl.seconds > 0 ? bl_now_ms() / 1e3 + ctl.seconds : 0;
    double left = S->pause_until - bl_now_ms() / 1e3;
    S->st.pause_left_s = left > 0 ? (int32_t)(left + 0.999) : 0;
    S->st.cache_s = S->o->cache_s;
    int nc = 0;
    for (int i = 0; i < SV_CLIENTS; i++)
        nc += S->c[i].fd >= 0;
    S->st.clients = (uint32_t)nc;
    struct sw_buf b;
    if (sw_put_stats(&b, &S->st) == 0)
        send_frame(S, slot, &b);
}

static void on_hello(struct server *S, int slot, const uint8_t *p, size_t n)
{
    struct sw_hello h;
    struct bl_err err = {0};
    if (sw_get_hello(p, n, &h, &err)) {
        send_error(S, slot, 0, err.msg);
        return;
    }
    struct sw_buf b;
    if (sw_put_info(&b, S->info) == 0)
        send_frame(S, slot, &b);
}

/* One frame of client slot: its payload p (n bytes) of type. */
static void on_frame(struct server *S, int slot, int type, const uint8_t *p, size_t n)
{
    switch (type) {
    case SW_HELLO: on_hello(S, slot, p, n); break;
    case SW_REQUEST: on_request(S, slot, p, n); break;
    case SW_CONTROL: on_control(S, slot, p, n); break;
    default: {
        struct bl_err why = {0};
        bl_fail(&why, GPU_EINVAL, BL_NOWHERE, SV_UNKNOWN_TYPE, type);
        send_error(S, slot, 0, why.msg);
    }
    }
}

/* Reads what client slot sent and handles each whole frame. */
static void read_client(struct server *S, int slot)
{
    struct client *c = &S->c[slot];
    ssize_t k = recv(c->fd, c->in + c->inlen, SW_MAX_FRAME - c->inlen, MSG_DONTWAIT);
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (k <= 0) {
        drop_client(S, slot);
        return;
    }
    c->inlen += (size_t)k;
    c->last_active = bl_now_ms() / 1e3;
    while (c->fd >= 0 && !c->closing && c->inlen >= SW_HEADER) {
        int type;
        uint32_t len;
        struct bl_err err = {0};
        int rc = sw_parse_header(c->in, &type, &len, &err);
        if (rc == -2) {            /* oversized: this client only */
            S->st.dropped++;
            drop_client(S, slot);
            return;
        }
        if (rc) {                  /* the framing is lost: say why, then close */
            send_error(S, slot, 0, err.msg);
            S->st.dropped++;
            if (S->c[slot].fd >= 0)
                S->c[slot].closing = 1;
            flush_client(S, slot);
            return;
        }
        if (c->inlen < SW_HEADER + (size_t)len)
            return;
        on_frame(S, slot, type, c->in + SW_HEADER, len);
        if (c->fd < 0)
            return;
        size_t used = SW_HEADER + (size_t)len;
        memmove(c->in, c->in + used, c->inlen - used);
        c->inlen -= used;
    }
}

/* The jobs queued on leaving connection slot (its waits already removed) that others still
 * wait on go to one of them: that waiter's connection takes the job at the head of its queue
 * (the request waited already) and it counts as that connection's user's. Each such
 * connection waits on the job and has a queue entry per queued job it waits on, at most
 * SV_QUEUE waits: there is room. */
static void hand_over(struct server *S, int slot)
{
    const struct client *c = &S->c[slot];
    for (int k = c->qcount - 1; k >= 0; k--) {  /* newest first: each goes to the head */
        struct job *j = job_of(S, c->q[(c->qhead + k) % SV_QUEUE]);
        int to = -1;
        for (int w = 0; j && j->state == JOB_QUEUED && w < j->nw && to < 0; w++) {
            const struct client *d = &S->c[j->w[w].slot];
            if (d->fd >= 0 && d->gen == j->w[w].gen && d->qcount < SV_QUEUE)
                to = j->w[w].slot;
        }
        if (to < 0)
            continue;              /* freed already: nobody else waited */
        struct client *d = &S->c[to];
        d->qhead = (d->qhead + SV_QUEUE - 1) % SV_QUEUE;
        d->q[d->qhead] = j->serial;
        d->qcount++;
        S->u[d->user].queued++;
        S->st.queued++;
        if (S->u[j->user].jobs > 0)
            S->u[j->user].jobs--;
        j->user = d->user;
        S->u[d->user].jobs++;
    }
}

static void drop_client(struct server *S, int slot)
{
    struct client *c = &S->c[slot];
    if (c->fd < 0)
        return;
    close(c->fd);
    c->fd = -1;
    for (int i = 0; i < SV_JOBS; i++) {
        struct job *j = &S->jobs[i];
        if (j->state == JOB_FREE)
            continue;
        int k = 0;
        for (int w = 0; w < j->nw; w++)
            if (j->w[w].slot != slot || j->w[w].gen != c->gen)
                j->w[k++] = j->w[w];
        j->nw = k;
        if (j->state == JOB_QUEUED && j->nw == 0)
            job_free(S, j);        /* nobody waits: never measured */
    }
    hand_over(S, slot);
    struct user *u = &S->u[c->user];
    S->st.queued -= (uint32_t)c->qcount;
    u->queued -= c->qcount;
    u->conns--;
    c->qcount = c->qhead = 0;
    c->inlen = 0;
    bl_buf_reset(&c->out);
    c->closing = 0;
    c->waits = 0;
    c->gen++;
    user_done(S, c->user);
}

/* Takes one waiting connection: its user known and under the limits, else closed at once
 * (the client sees the connection close). 0, or -1 when none waits or none can be taken. */
static int accept_client(struct server *S)
{
    int fd = sys_sock_accept(S->lfd, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
            S->accept_after = bl_now_ms() / 1e3 + 0.1;     /* no busy loop on a full table */
        return -1;
    }
    uid_t uid;
    int user = serve_peer_uid(fd, &uid) ? -1 : user_of(S, uid);
    int most = S->o->user_conns > 0 ? S->o->user_conns : SV_USER_CONNS;
    if (user < 0 || (!S->u[user].priv && S->u[user].conns >= most)) {
        if (user >= 0) {           /* that user holds enough connections: say so, once */
            struct gpu_result r;
            struct sw_buf b;
            memset(&r, 0, sizeof r);
            r.from_server = 1;
            bl_fail(&r.err, GPU_EBUSY, BL_NOWHERE, SV_TOO_MANY_CONNS, (unsigned)uid, most);
            if (sw_put_result(&b, &r) == 0)
                (void)!send(fd, b.b, b.len, MSG_NOSIGNAL | MSG_DONTWAIT);
        }
        close(fd);
        S->st.dropped++;
        if (user >= 0)
            user_done(S, user);
        return 0;
    }
    for (int i = 0; i < SV_CLIENTS; i++) {
        struct client *c = &S->c[i];
        if (c->fd >= 0)
            continue;
        if (!c->in && !(c->in = malloc(SW_MAX_FRAME)))
            break;
        c->fd = fd;
        c->inlen = 0;
        bl_buf_reset(&c->out);
        c->qhead = c->qcount = 0;
        c->waits = 0;
        c->user = user;
        c->last_active = bl_now_ms() / 1e3;
        S->u[user].conns++;
        return 0;
    }
    close(fd);                     /* full: the client sees the connection close */
    S->st.dropped++;
    user_done(S, user);
    return 0;
}

/* Closes the connections that have nothing in flight and sent nothing for client_idle_s. */
static void close_idle(struct server *S)
{
    if (S->o->client_idle_s <= 0)
        return;
    double now = bl_now_ms() / 1e3;
    for (int i = 0; i < SV_CLIENTS; i++) {
        struct client *c = &S->c[i];
        if (c->fd >= 0 && c->waits == 0 && c->qcount == 0 && c->out.len == 0 &&
            now - c->last_active >= S->o->client_idle_s)
            drop_client(S, i);
    }
}

/* ---- the backend ---- */

/* the oldest queued job of client slot, popping serials of jobs others already started */
static struct job *next_job(struct server *S, int slot)
{
    struct client *c = &S->c[slot];
    while (c->qcount > 0) {
        struct job *j = job_of(S, c->q[c->qhead]);
        c->qhead = (c->qhead + 1) % SV_QUEUE;
        c->qcount--;
        S->u[c->user].queued--;
        S->st.queued--;
        if (j && j->state == JOB_QUEUED)
            return j;
    }
    return NULL;
}

/* Tells every waiter of j where it is. From a copy of the waiters: one whose connection
 * fails meanwhile is dropped, which removes it from j->w (and may free j). */
static void tell_waiters(struct server *S, struct job *j, int phase, int ahead)
{
    j->told_phase = phase;
    j->told_ahead = ahead;
    int nw = j->nw;
    struct waiter *w = nw ? malloc((size_t)nw * sizeof *w) : NULL;
    if (!w)
        return;                    /* told at the next keepalive */
    memcpy(w, j->w, (size_t)nw * sizeof *w);
    for (int k = 0; k < nw; k++)
        if (S->c[w[k].slot].fd >= 0 && S->c[w[k].slot].gen == w[k].gen)
            send_progress(S, w[k].slot, w[k].id, phase, ahead);
    free(w);
}

static void finish(struct server *S, struct job *j, struct gpu_result *r);

/* The connection of user whose turn is next (after its last one), with a request waiting;
 * -1 when none. */
static int next_slot(struct server *S, int user)
{
    struct user *u = &S->u[user];
    for (int k = 1; k <= SV_CLIENTS; k++) {
        int i = (u->rr + k + SV_CLIENTS) % SV_CLIENTS;
        if (S->c[i].fd >= 0 && S->c[i].user == user && S->c[i].qcount > 0) {
            u->rr = i;
            return i;
        }
    }
    return -1;
}

/* Hands queued jobs to the backend while it takes them: one user at a time, round-robin, and
 * within a user one connection at a time. */
static void dispatch(struct server *S)
{
    for (int tries = 0; S->running < SV_INFLIGHT && tries < SV_CLIENTS; tries++) {
        int user = S->urr;
        S->urr = (S->urr + 1) % SV_CLIENTS;
        if (!S->u[user].used || S->u[user].queued <= 0)
            continue;
        int slot = next_slot(S, user);
        if (slot < 0)
            continue;
        struct job *j = next_job(S, slot);
        if (!j) {
            tries--;               /* its queue held only jobs others started: same user again */
            S->urr = user;
            continue;
        }
        struct gpu_request q = j->req;
        j->paused = paused(S) && q.want_counters;
        if (j->paused)
            q.want_counters = 0;
        enum gpu_status st = gpu_submit(S->be, &q);
        if (st == GPU_EBUSY) {     /* later, first in this client's queue again */
            struct client *c = &S->c[slot];
            c->qhead = (c->qhead + SV_QUEUE - 1) % SV_QUEUE;
            c->q[c->qhead] = j->serial;
            c->qcount++;
            S->u[user].queued++;
            S->st.queued++;
            S->u[user].rr = (slot + SV_CLIENTS - 1) % SV_CLIENTS;
            S->urr = user;
            return;
        }
        if (st != GPU_OK) {
            struct gpu_result r;
            memset(&r, 0, sizeof r);
            r.id = j->serial;
            if (S->info->err.msg[0])
                bl_fail(&r.err, st, BL_NOWHERE, GPU_TEXT, S->info->err.msg);
            else
                bl_fail(&r.err, st, BL_NOWHERE, GPU_NO_GPU_AVAILABLE);
            j->state = JOB_RUNNING;
            S->running++;
            finish(S, j, &r);
            continue;
        }
        j->state = JOB_RUNNING;
        j->since = bl_now_ms() / 1e3;
        S->running++;
        S->st.measured++;
        tell_waiters(S, j, GPU_PHASE_MEASURING, 0);
    }
}

/* Answers every waiter of running job j with r. j leaves the table first, its waiters with
 * it: a waiter whose connection fails while it is answered is dropped without touching the
 * list the others are answered from. */
static void finish(struct server *S, struct job *j, struct gpu_result *r)
{
    struct waiter *w = j->w;
    int nw = j->nw;
    j->w = NULL;
    j->nw = j->cap = 0;
    S->running--;
    job_free(S, j);
    r->from_server = 1;
    for (int k = 0; k < nw; k++) {
        struct client *c = &S->c[w[k].slot];
        if (c->fd < 0 || c->gen != w[k].gen)
            continue;
        if (c->waits > 0)
            c->waits--;
        c->last_active = bl_now_ms() / 1e3;
        r->id = w[k].id;
        send_result(S, w[k].slot, r);
    }
    free(w);
}

/* A result from the backend: every waiter of its job answered, the cache fed. A result of a
 * job given up already (expire_jobs) is dropped. */
static void done(struct server *S, const struct gpu_result *res)
{
    struct job *j = job_of(S, res->id);
    if (!j || j->state != JOB_RUNNING)
        return;
    struct gpu_result r = *res;
    if (j->paused) {
        r.has_counters = 0;
        r.counters_busy = 1;
        gpu_note(&r, CTR_PAUSED);
    }
    if (S->o->cache_s > 0 && sv_cacheable(&j->req, j->paused, &r))
        sv_cache_put(S->cache, SV_CACHE, &j->req, &r);
    finish(S, j, &r);
}

/* A job the backend has held for job_s seconds fails, its waiters told why, and its turn
 * goes to the next: a measurement that hangs holds no one forever. */
static void expire_jobs(struct server *S)
{
    int most = S->o->job_s > 0 ? S->o->job_s : SERVE_JOB_S;
    double now = bl_now_ms() / 1e3;
    for (int i = 0; i < SV_JOBS && S->running > 0; i++) {
        struct job *j = &S->jobs[i];
        if (j->state != JOB_RUNNING || now - j->since < most)
            continue;
        struct gpu_result r;
        memset(&r, 0, sizeof r);
        bl_fail(&r.err, GPU_EFAILED, BL_NOWHERE, SV_JOB_TIMEOUT, most);
        S->st.errors++;
        finish(S, j, &r);
    }
}

/* ---- the loop ---- */

/* The backend's results, and what it says about the one it works on (its turn on the device
 * with n ahead, counters busy) to that job's waiters when it changed. */
static void take_results(struct server *S)
{
    struct gpu_result r;
    while (gpu_poll(S->be, &r))    /* late results of jobs given up too */
        done(S, &r);
    if (S->running == 0)
        return;
    struct gpu_progress pr;
    gpu_progress(S->be, &pr);
    struct job *j = pr.id ? job_of(S, pr.id) : NULL;
    int phase = pr.phase == GPU_PHASE_WAITING || pr.phase == GPU_PHASE_COUNTERS_BUSY
                    ? (int)pr.phase : GPU_PHASE_MEASURING;
    int ahead = phase == GPU_PHASE_WAITING ? (pr.ahead < 0 ? 0 : pr.ahead) : 0;
    if (j && j->state == JOB_RUNNING && (j->told_phase != phase || j->told_ahead != ahead))
        tell_waiters(S, j, phase, ahead);
}

/* Every SV_KEEPALIVE_S, each waiter hears where its request is: a client tells a server that
 * is slow from one that stalled (serve/client.c gives up on silence). */
static void keepalive(struct server *S, double *last)
{
    double now = bl_now_ms() / 1e3;
    if (now - *last < SV_KEEPALIVE_S)
        return;
    *last = now;
    for (int i = 0; i < SV_JOBS; i++) {
        struct job *j = &S->jobs[i];
        if (j->state != JOB_FREE)
            tell_waiters(S, j, j->told_phase ? j->told_phase : GPU_PHASE_WAITING, j->told_ahead);
    }
}

static void poll_once(struct server *S, struct pollfd *pf, int *slot_of)
{
    int n = 0;
    int listen_now = bl_now_ms() / 1e3 >= S->accept_after;
    pf[n].fd = listen_now ? S->lfd : -1;
    pf[n].events = POLLIN;
    slot_of[n++] = -1;
    for (int i = 0; i < SV_CLIENTS; i++) {
        if (S->c[i].fd < 0)
            continue;
        pf[n].fd = S->c[i].fd;
        pf[n].events = (short)(POLLIN | (S->c[i].out.len ? POLLOUT : 0));
        slot_of[n++] = i;
    }
    /* while the backend works, look for its results every millisecond: the wait adds half of
     * that to a learner's parameter change on average (2 ms gave 30.0 ms through the server
     * against 29.0 in-process: docs/runs/h200-2026-12-03-calls.md, call 2) */
    int r = poll(pf, (nfds_t)n, S->running ? 1 : listen_now ? 200 : 20);
    if (r <= 0)
        return;
    if (pf[0].revents & POLLIN)
        for (int k = 0; k < SV_ACCEPT_BURST && accept_client(S) == 0; k++) {
        }
    for (int k = 1; k < n; k++) {
        int i = slot_of[k];
        if (S->c[i].fd != pf[k].fd)
            continue;              /* dropped meanwhile (its slot may hold a new client) */
        if (pf[k].revents & POLLOUT)
            flush_client(S, i);
        if (S->c[i].fd >= 0 && (pf[k].revents & (POLLIN | POLLHUP | POLLERR)))
            read_client(S, i);
    }
}

static int jobs_left(const struct server *S)
{
    for (int i = 0; i < SV_JOBS; i++)
        if (S->jobs[i].state != JOB_FREE)
            return 1;
    return 0;
}

static void loop(struct server *S)
{
    struct pollfd *pf = calloc(SV_CLIENTS + 1, sizeof *pf);
    int *slot_of = calloc(SV_CLIENTS + 1, sizeof *slot_of);
    if (!pf || !slot_of) {
        free(pf);
        free(slot_of);
        return;
    }
    double last_keepalive = bl_now_ms() / 1e3;
    S->last_request = bl_now_ms() / 1e3;
    while (!stop_flag) {
        if (pause_flag) {
            pause_flag = 0;
            S->pause_until = bl_now_ms() / 1e3 + SERVE_SIGNAL_PAUSE_S;
        }
        dispatch(S);
        poll_once(S, pf, slot_of);
        take_results(S);
        expire_jobs(S);
        keepalive(S, &last_keepalive);
        close_idle(S);
        /* a server a client started leaves after idle_s without a request: connections
         * left open (a tutorial, or anyone's idle ones) do not keep it */
        if (S->o->idle_s > 0 && !jobs_left(S) &&
            bl_now_ms() / 1e3 - S->last_request >= S->o->idle_s)
            break;
    }
    free(pf);
    free(slot_of);
}

static void ready(const struct serve_opts *o, const char *msg)
{
    if (o->ready_fd < 0)
        return;
    ssize_t k = write(o->ready_fd, msg, strlen(msg));
    (void)k;
    close(o->ready_fd);
}

/* room for every connection: the soft limit on descriptors raised towards the hard one */
static void more_descriptors(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < SV_CLIENTS + 64) {
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > SV_CLIENTS + 64
                          ? SV_CLIENTS + 64 : rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

int serve_run(struct gpu *backend, const struct gpu_info *info, const struct serve_opts *o,
              char *bound, size_t bn, struct bl_err *err)
{
    struct server S;
    memset(&S, 0, sizeof S);
    S.be = backend;
    S.info = info;
    S.o = o;
    S.lfd = -1;
    S.owner = geteuid();
    S.c = calloc(SV_CLIENTS, sizeof *S.c);
    S.u = calloc(SV_CLIENTS, sizeof *S.u);
    S.jobs = calloc(SV_JOBS, sizeof *S.jobs);
    S.cache = calloc(SV_CACHE, sizeof *S.cache);
    int rc = -1;
    more_descriptors();
    if (!S.c || !S.u || !S.jobs || !S.cache) {
        bl_fail(err, GPU_EFAILED, BL_NOWHERE, GPU_OUT_OF_MEMORY);
    } else {
        for (int i = 0; i < SV_CLIENTS; i++) {
            S.c[i].fd = -1;
            bl_buf_init(&S.c[i].out, SV_OUT_MAX);
        }
        rc = serve_listen(o->path, &S.lfd, bound, bn, err);
    }
    if (rc != 0) {
        ready(o, rc == 1 ? "ok\n" : err->msg);
    } else {
        struct stat mine;
        int have = stat(bound, &mine) == 0;
        ready(o, "ok\n");
        loop(&S);
        struct stat now;
        /* remove the socket only while it is still ours (not a successor's) */
        if (have && stat(bound, &now) == 0 && now.st_ino == mine.st_ino && now.st_dev == mine.st_dev)
            unlink(bound);
        close(S.lfd);
    }
    for (int i = 0; S.c && i < SV_CLIENTS; i++) {
        if (S.c[i].fd >= 0)
            close(S.c[i].fd);
        free(S.c[i].in);
        bl_buf_release(&S.c[i].out);
    }
    for (int i = 0; S.jobs && i < SV_JOBS; i++)
        free(S.jobs[i].w);
    free(S.c);
    free(S.u);
    free(S.jobs);
    free(S.cache);
    return rc;
}
