/* requests.h: the tutorial's one way to the GPU runner (gpu.h). The hub opens the device on a
 * background thread, submits what the screens ask as the runner's queue allows, and routes
 * every result back to the one who asked: screens never see request ids. Two ways to ask:
 *  - a slot (struct req_slot), owned by a screen for the one measurement it shows: asking
 *    again replaces the question, and only the latest is sent once the runner is free (a key
 *    held down does not queue a run per value); its state says whether the answer waits for
 *    the GPU, is being measured or is there;
 *  - a series: numbered requests the hub pulls one at a time while the runner's queue takes
 *    them (the sweep's values), each answer handed to a callback with its number.
 * Slots go first: one is sent only when nothing else is in flight, series fill the queue.
 * Nothing here blocks but req_hub_done. No curses: tests/unit/test_requests.c drives it with
 * a replay runner. */
#ifndef BANKLAB_UI_REQUESTS_H
#define BANKLAB_UI_REQUESTS_H

#include <stdint.h>

#include "../gpu/gpu.h"

enum req_state {
    REQ_IDLE = 0,     /* nothing asked, or no GPU to ask (req_hub_info says why) */
    REQ_WAITING,      /* asked; waits for the GPU (opening, or busy with other requests) */
    REQ_RUNNING,      /* with the runner */
    REQ_DONE,         /* answered: result holds it (result.status may be an error) */
};

/* called with each answer a slot gets, after result is filled in */
typedef void (*req_answer_fn)(void *ctx, const struct gpu_result *r);

struct req_slot {
    enum req_state state;
    struct gpu_result result;     /* the answer, when state == REQ_DONE */
    /* the hub's bookkeeping: */
    uint64_t id;                  /* the submission whose answer counts; 0: none */
    struct gpu_request want;      /* the question, while REQ_WAITING */
    req_answer_fn answered;       /* may be NULL */
    void *ctx;
    struct req_slot *next;        /* in the hub's list of waiting slots */
};

/* a series: fill builds request i (0, or -1 to skip it); answer gets request i's result */
typedef int (*req_fill_fn)(void *ctx, int i, struct gpu_request *rq);
typedef void (*req_series_fn)(void *ctx, int i, const struct gpu_result *r);

#define REQ_ROUTES 64     /* submissions in flight at most (the runners queue 16) */
#define REQ_SERIES 4

struct req_route {
    uint64_t id;                  /* 0: free */
    struct req_slot *slot;        /* the slot that asked, or NULL */
    uint64_t series;              /* the series that asked (its generation), or 0 */
    int i;                        /* its number in the series */
};

struct req_series {
    uint64_t gen;                 /* 0: free; else unique, so late answers of a cancelled
                                   * series never reach a new one with the same ctx */
    void *ctx;
    int n, next;                  /* requests 0..n-1; the next one to submit */
    req_fill_fn fill;
    req_series_fn answer;
};

/* in place of a device that cannot measure: another runner (a recording), its info filled;
 * NULL with the reason in err when there is none. Called on the opener's thread. */
typedef struct gpu *(*req_fallback_fn)(struct gpu_info *info, struct bl_err *err);

struct req_hub {
    struct gpu *gpu;              /* NULL until opened */
    struct gpu_info info;
    req_fallback_fn fallback;     /* req_hub_fallback: when the device cannot measure */
    struct bl_err nogpu;          /* why the device could not measure, when the fallback
                                   * answers instead (status 0: it did not) */
    int own;                      /* opened here: req_hub_done closes it */
    void *opener;                 /* the background gpu_open while it runs, else NULL */
    int unopened;                 /* no gpu given and req_hub_open not called yet */
    uint64_t next_id;
    int inflight;                 /* submitted and not yet answered */
    struct req_slot *waiting;     /* slots waiting to be sent, oldest first */
    struct req_route route[REQ_ROUTES];
    struct req_series series[REQ_SERIES];
    struct gpu_progress progress; /* what the runner does with the oldest request (poll) */
};

/* req_hub_init: a hub over gpu (NULL: none yet; req_hub_open finds one) described by info
 * (copied; may be NULL). The caller keeps ownership of a gpu it passes. */
void req_hub_init(struct req_hub *h, struct gpu *gpu, const struct gpu_info *info);

/* req_hub_open: open device `device` (gpu_open_auto: its GPU server, or server, or in this
 * process with no_server) on a background thread (finding a device and creating a
 * context can take a second); until it answers req_hub_opening is 1 and questions wait. The
 * hub owns what it opens. Returns 0, or -1 when no thread could be started (the info's reason
 * says so). */
int req_hub_open(struct req_hub *h, int device, const char *server, int no_server);

/* req_hub_fallback: before req_hub_open: when no device can measure, the hub asks fn for a
 * runner instead (the shipped recording) and keeps why the device could not in h->nogpu;
 * when fn has none either, the device's reason stands. */
void req_hub_fallback(struct req_hub *h, req_fallback_fn fn);

/* req_hub_poll: take the runner's answers and the opener's result, route them, and send what
 * waits. Returns 1 when anything changed (a redraw is due), else 0. Never blocks. */
int req_hub_poll(struct req_hub *h);

/* req_hub_done: wait for the opener, close a runner the hub opened (waits for the running
 * measurement), forget every question. */
void req_hub_done(struct req_hub *h);

/* req_hub_progress: what the runner was doing at the last poll, for "waiting for the GPU
 * (3 s, 2 ahead)": a class on one server takes turns on the device (gpu.h gpu_progress).
 * req_hub_poll reports a change of its phase, its whole seconds or its place. */
const struct gpu_progress *req_hub_progress(const struct req_hub *h);

const struct gpu_info *req_hub_info(const struct req_hub *h);
int req_hub_opening(const struct req_hub *h);   /* the background open still runs */
int req_hub_ready(const struct req_hub *h);     /* a runner that can measure is open */

/* req_slot_init: an empty slot whose answers also go to answered(ctx, r) (NULL: none). */
void req_slot_init(struct req_slot *s, req_answer_fn answered, void *ctx);

/* req_ask: measure rq (its id is the hub's to set) for slot s, instead of whatever s asked
 * before (an older answer no longer counts). Sent at once when nothing is in flight, else it
 * waits (REQ_WAITING); REQ_IDLE when there is no GPU to ask. */
void req_ask(struct req_hub *h, struct req_slot *s, const struct gpu_request *rq);

/* req_forget: s asks nothing (REQ_IDLE); an answer on its way is dropped. Keeps the callback.
 * Call it before the slot's memory goes. */
void req_forget(struct req_hub *h, struct req_slot *s);

/* req_series_start: requests 0..n-1 for ctx, built by fill when the runner can take them,
 * answered through answer; replaces a series ctx had. Returns 0, or -1 when REQ_SERIES are
 * running already. Nothing is sent while there is no GPU. */
int req_series_start(struct req_hub *h, void *ctx, int n, req_fill_fn fill, req_series_fn answer);

/* req_series_stop: ctx's series sends nothing more and its late answers are dropped. */
void req_series_stop(struct req_hub *h, void *ctx);

#endif
