/* requests.c: the GPU request hub (requests.h): the background open, submission as the
 * runner's queue allows (slots when nothing is in flight, then series), and the routing of
 * answers by id to the slot or series that asked. No curses, no allocation but the opener. */
#include "requests.h"
#include "../serve/serve.h"

#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* gpu_open_auto on a thread: the first frame and the keys do not wait for CUDA's start-up */
struct opener {
    pthread_t thread;
    int device, no_server;
    const char *server;
    struct gpu *gpu;
    struct gpu_info info;
    req_fallback_fn fallback;
    struct bl_err nogpu;          /* why the device could not, when the fallback answers */
    atomic_int done;
};

static void *opener_main(void *arg)
{
    struct opener *o = arg;
    o->gpu = gpu_open_auto(o->device, o->server, o->no_server, &o->info);
    if (o->fallback && !o->info.available) {
        struct gpu_info fi;
        struct bl_err ferr = {0};
        struct gpu *fg = o->fallback(&fi, &ferr);
        if (fg && fi.available) {
            o->nogpu = o->info.err;
            gpu_close(o->gpu);
            o->gpu = fg;
            o->info = fi;
        } else {
            gpu_close(fg);
        }
    }
    atomic_store(&o->done, 1);
    return NULL;
}

void req_hub_fallback(struct req_hub *h, req_fallback_fn fn)
{
    h->fallback = fn;
}

void req_hub_init(struct req_hub *h, struct gpu *gpu, const struct gpu_info *info)
{
    memset(h, 0, sizeof *h);
    h->gpu = gpu;
    if (gpu && info)
        h->info = *info;
    else if (!gpu)
        bl_fail(&h->info.err, GPU_EUNAVAILABLE, BL_NOWHERE, GPU_LOOKING);
    h->unopened = !gpu;
}

int req_hub_open(struct req_hub *h, int device, const char *server, int no_server)
{
    struct opener *o = calloc(1, sizeof *o);
    h->unopened = 0;
    if (!o) {
        bl_fail(&h->info.err, GPU_EUNAVAILABLE, BL_NOWHERE, GPU_OUT_OF_MEMORY);
        return -1;
    }
    o->device = device;
    o->server = server;
    o->no_server = no_server;
    o->fallback = h->fallback;
    atomic_init(&o->done, 0);
    if (pthread_create(&o->thread, NULL, opener_main, o) != 0) {
        free(o);
        bl_fail(&h->info.err, GPU_EUNAVAILABLE, BL_NOWHERE, GPU_NO_OPEN_THREAD);
        return -1;
    }
    h->opener = o;
    return 0;
}

const struct gpu_info *req_hub_info(const struct req_hub *h)
{
    return &h->info;
}

int req_hub_opening(const struct req_hub *h)
{
    return h->opener != NULL || h->unopened;
}

int req_hub_ready(const struct req_hub *h)
{
    return h->gpu && h->info.available && !h->opener;
}

void req_slot_init(struct req_slot *s, req_answer_fn answered, void *ctx)
{
    memset(s, 0, sizeof *s);
    s->answered = answered;
    s->ctx = ctx;
}

/* --- routes ------------------------------------------------------------------------------ */

static struct req_route *route_free(struct req_hub *h)
{
    for (int i = 0; i < REQ_ROUTES; i++)
        if (!h->route[i].id)
            return &h->route[i];
    return NULL;
}

/* submit rq under a new id; the route says who asked. GPU_OK, GPU_EBUSY or another error. */
static enum gpu_status submit(struct req_hub *h, struct gpu_request *rq, struct req_slot *slot,
                              uint64_t series, int i)
{
    struct req_route *rt = route_free(h);
    if (!rt)
        return GPU_EBUSY;
    rq->id = ++h->next_id;
    enum gpu_status st = gpu_submit(h->gpu, rq);
    if (st != GPU_OK)
        return st;
    *rt = (struct req_route){.id = rq->id, .slot = slot, .series = series, .i = i};
    h->inflight++;
    return GPU_OK;
}

static void unlink_waiting(struct req_hub *h, struct req_slot *s)
{
    for (struct req_slot **p = &h->waiting; *p; p = &(*p)->next)
        if (*p == s) {
            *p = s->next;
            break;
        }
    s->next = NULL;
}

static void push_waiting(struct req_hub *h, struct req_slot *s, int front)
{
    unlink_waiting(h, s);
    if (front) {
        s->next = h->waiting;
        h->waiting = s;
        return;
    }
    struct req_slot **p = &h->waiting;
    while (*p)
        p = &(*p)->next;
    *p = s;
}

/* send a waiting slot's question; 0 when it went (or failed for good), -1 when the runner is
 * full (it stays first in line) */
static int send_slot(struct req_hub *h, struct req_slot *s)
{
    struct gpu_request rq = s->want;
    enum gpu_status st = submit(h, &rq, s, 0, 0);
    if (st == GPU_EBUSY) {
        push_waiting(h, s, 1);
        return -1;
    }
    if (st == GPU_OK) {
        s->id = rq.id;
        s->state = REQ_RUNNING;
    } else {
        s->state = REQ_IDLE;    /* the runner refused it: nothing to show */
    }
    return 0;
}

static struct req_series *series_of(struct req_hub *h, uint64_t gen)
{
    for (int k = 0; gen && k < REQ_SERIES; k++)
        if (h->series[k].gen == gen)
            return &h->series[k];
    return NULL;
}

/* send what waits: one slot when nothing is in flight, then as much of each series as the
 * runner's queue takes */
static void pump(struct req_hub *h)
{
    if (req_hub_opening(h))
        return;
    if (!req_hub_ready(h)) {          /* no GPU after all: nothing will be measured */
        while (h->waiting) {
            struct req_slot *s = h->waiting;
            unlink_waiting(h, s);
            s->state = REQ_IDLE;
        }
        memset(h->series, 0, sizeof h->series);
        return;
    }
    while (h->waiting && h->inflight == 0) {
        struct req_slot *s = h->waiting;
        unlink_waiting(h, s);
        if (send_slot(h, s) < 0)
            break;
    }
    for (int k = 0; k < REQ_SERIES; k++) {
        struct req_series *se = &h->series[k];
        while (se->gen && se->next < se->n) {
            struct gpu_request rq;
            memset(&rq, 0, sizeof rq);
            if (se->fill(se->ctx, se->next, &rq) != 0) {
                se->next++;
                continue;
            }
            if (submit(h, &rq, NULL, se->gen, se->next) != GPU_OK)
                break;
            se->next++;
        }
    }
}

static void route(struct req_hub *h, const struct gpu_result *r)
{
    for (int i = 0; i < REQ_ROUTES; i++) {
        struct req_route *rt = &h->route[i];
        if (!r->id || rt->id != r->id)
            continue;
        struct req_route was = *rt;
        memset(rt, 0, sizeof *rt);
        if (was.slot && was.slot->id == r->id) {
            was.slot->result = *r;
            was.slot->state = REQ_DONE;
            if (was.slot->answered)
                was.slot->answered(was.slot->ctx, &was.slot->result);
        } else if (was.series) {
            struct req_series *se = series_of(h, was.series);
            if (se)
                se->answer(se->ctx, was.i, r);
        }
        return;
    }
}

/* the opener's runner, once its thread has ended: the hub owns it from now on */
static void take_opened(struct req_hub *h)
{
    struct opener *o = h->opener;
    pthread_join(o->thread, NULL);
    h->gpu = o->gpu;
    h->info = o->info;
    h->nogpu = o->nogpu;
    h->own = 1;
    h->opener = NULL;
    free(o);
}

int req_hub_poll(struct req_hub *h)
{
    int changed = 0;
    if (h->opener && atomic_load(&((struct opener *)h->opener)->done)) {
        take_opened(h);
        changed = 1;
    }
    if (!h->gpu || h->opener)
        return changed;
    struct gpu_result r;
    while (gpu_poll(h->gpu, &r)) {
        if (h->inflight > 0)
            h->inflight--;
        route(h, &r);
        changed = 1;
    }
    pump(h);
    struct gpu_progress pr;
    gpu_progress(h->gpu, &pr);
    if (pr.phase != h->progress.phase || pr.ahead != h->progress.ahead ||
        (long)pr.seconds != (long)h->progress.seconds)
        changed = 1;
    h->progress = pr;
    return changed;
}

const struct gpu_progress *req_hub_progress(const struct req_hub *h)
{
    return &h->progress;
}

void req_hub_done(struct req_hub *h)
{
    struct opener *o = h->opener;
    for (double until = bl_now_ms() + 500; o && !atomic_load(&o->done) && bl_now_ms() < until;)
        poll(NULL, 0, 10);
    if (o && !atomic_load(&o->done)) {  /* still opening (a server that does not answer: the
                                           wait is bounded, but quitting is not held up by it) */
        pthread_detach(o->thread);     /* o and what it opens are left to the exit */
        h->opener = NULL;
    }
    if (h->opener)       /* quit while CUDA was starting: wait for it, then close */
        take_opened(h);
    if (h->own)
        gpu_close(h->gpu);
    h->gpu = NULL;
    h->own = 0;
    while (h->waiting)
        unlink_waiting(h, h->waiting);
    memset(h->route, 0, sizeof h->route);
    memset(h->series, 0, sizeof h->series);
}

/* --- asking ------------------------------------------------------------------------------ */

void req_ask(struct req_hub *h, struct req_slot *s, const struct gpu_request *rq)
{
    s->want = *rq;
    s->id = 0;                         /* an answer to an older question no longer counts */
    if (req_hub_opening(h)) {          /* also before the open starts: asked at the start */
        s->state = REQ_WAITING;
        push_waiting(h, s, 0);
        return;
    }
    if (!req_hub_ready(h)) {
        unlink_waiting(h, s);
        s->state = REQ_IDLE;
        return;
    }
    s->state = REQ_WAITING;
    if (h->inflight > 0 || (h->waiting && h->waiting != s)) {
        /* one question at a time for what a screen shows: the latest is sent when the
         * runner is free */
        push_waiting(h, s, 0);
        return;
    }
    unlink_waiting(h, s);
    send_slot(h, s);
}

void req_forget(struct req_hub *h, struct req_slot *s)
{
    unlink_waiting(h, s);
    for (int i = 0; i < REQ_ROUTES; i++)
        if (h->route[i].slot == s)
            h->route[i].slot = NULL;   /* still in flight: counted, its answer dropped */
    s->id = 0;
    s->state = REQ_IDLE;
}

int req_series_start(struct req_hub *h, void *ctx, int n, req_fill_fn fill, req_series_fn answer)
{
    req_series_stop(h, ctx);
    for (int k = 0; k < REQ_SERIES; k++) {
        struct req_series *se = &h->series[k];
        if (se->gen)
            continue;
        *se = (struct req_series){.gen = ++h->next_id, .ctx = ctx, .n = n, .fill = fill,
                                  .answer = answer};
        if (!req_hub_opening(h) && !req_hub_ready(h))
            memset(se, 0, sizeof *se);   /* no GPU: nothing to send */
        else
            pump(h);
        return 0;
    }
    return -1;
}

void req_series_stop(struct req_hub *h, void *ctx)
{
    for (int k = 0; k < REQ_SERIES; k++)
        if (h->series[k].gen && h->series[k].ctx == ctx)
            memset(&h->series[k], 0, sizeof h->series[k]);
}
