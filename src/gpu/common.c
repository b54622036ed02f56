/* common.c: the parts of the runner every build has: the unavailable handle (used by the
 * none build and by the CUDA build when no device or driver is there), the replay handle
 * (answers from recorded results; answered at submit time, nothing blocks) and the forwarding
 * to another implementation (the CUDA runner's worker thread, through struct gpu_ops).
 * No CUDA, no curses, no cJSON. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../base/fmt.h"
#include "../base/msg.h"
#include "gpu.h"

#define GPU_QUEUE 16

/* The unavailable and replay handles: a small ring of answers waiting to be polled. */
struct gpu {
    enum gpu_backend backend;
    const struct gpu_ops *ops;   /* set: forward everything to ops with impl */
    void *impl;
    struct gpu_ring *ring;       /* impl's results (NULL: ops polls) */
    char provenance[GPU_TEXT_MAX];
    struct gpu_record *recs;     /* replay only */
    int nrecs;
    struct gpu_result ready[GPU_QUEUE];
    int head, count;
};

const char *gpu_backend_name(enum gpu_backend b)
{
    switch (b) {
    case GPU_BACKEND_NONE: return "none";
    case GPU_BACKEND_CUDA: return "cuda";
    case GPU_BACKEND_REPLAY: return "replay";
    }
    return "unknown";
}

const char *gpu_status_name(enum gpu_status st)
{
    static const char *const names[] = {"ok", "unavailable", "busy", "invalid", "failed",
                                        "verify", "not-recorded"};
    return (int)st >= 0 && (size_t)st < sizeof names / sizeof names[0] ? names[st] : NULL;
}

struct gpu *gpu_unavailable(struct gpu_info *info, const struct bl_err *why)
{
    struct gpu *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->backend = GPU_BACKEND_NONE;
    if (info) {
        memset(info, 0, sizeof *info);
        info->backend = GPU_BACKEND_NONE;
        info->err = *why;
        info->err.status = GPU_EUNAVAILABLE;
        info->counters_err = info->err;
    }
    return g;
}

struct gpu *gpu_wrap_new(const struct gpu_ops *ops, void *impl, struct gpu_ring *ring,
                         enum gpu_backend backend)
{
    struct gpu *g = calloc(1, sizeof *g);
    if (!g) {
        ops->close(impl);
        return NULL;
    }
    g->backend = backend;
    g->ops = ops;
    g->impl = impl;
    g->ring = ring;
    return g;
}

int gpu_same_access(const struct bank_access *x, const struct bank_access *y)
{
    if (x->width != y->width || x->op != y->op || x->mask != y->mask || x->instr != y->instr ||
        x->matrices != y->matrices || x->trans != y->trans || x->has_src != y->has_src ||
        (x->has_src && memcmp(x->src, y->src, sizeof x->src)))
        return 0;
    for (int i = 0; i < BANK_LANES; i++)
        if ((x->mask >> i & 1u) && x->offset[i] != y->offset[i])
            return 0;
    return 1;
}

int gpu_same_case(const struct gpu_request *a, const struct gpu_request *b)
{
    if (strcmp(a->case_name, b->case_name))
        return 0;
    long long va[GPU_CASE_MAX_PARAMS], vb[GPU_CASE_MAX_PARAMS];
    int n = gpu_case_values(a, va);
    if (n >= 0) {
        gpu_case_values(b, vb);
        return !memcmp(va, vb, (size_t)n * sizeof va[0]);
    }
    if (a->nparams != b->nparams)
        return 0;
    for (int i = 0; i < a->nparams; i++)
        if (strcmp(a->param_name[i], b->param_name[i]) || a->param_value[i] != b->param_value[i])
            return 0;
    return 1;
}

/* What the recording holds for one request, found by what was measured. */
struct found {
    const struct gpu_result *kernel;   /* case: the kernel setting's result (status ok) */
    const struct gpu_result *counters; /* pattern: a record of the access with counters */
    const struct gpu_result *timing;   /* pattern: a record of the access with access timing */
    const struct gpu_result *launch;   /* pattern: a record of the access with launch timing */
    const struct gpu_result *refused;  /* a record that did not measure (first one) */
};

static void find_access(const struct gpu *g, const struct bank_access *acc, struct found *f)
{
    for (int i = 0; i < g->nrecs; i++) {
        const struct gpu_record *w = &g->recs[i];
        if (w->req.kind != GPU_REQ_PATTERN || !gpu_same_access(&w->req.access, acc))
            continue;
        if (w->res.err.status != GPU_OK) {
            if (!f->refused)
                f->refused = &w->res;
            continue;
        }
        if (w->res.has_counters && !f->counters)
            f->counters = &w->res;
        if (w->res.has_access_timing && !f->timing)
            f->timing = &w->res;
        if (w->res.has_timing && !f->launch)
            f->launch = &w->res;
    }
}

void copy_access_timing(struct gpu_result *r, const struct gpu_result *t)
{
    r->has_access_timing = 1;
    r->clk_per_access = t->clk_per_access;
    r->ns_per_access = t->ns_per_access;
    r->ref_clk_per_access = t->ref_clk_per_access;
    r->slowdown = t->slowdown;
}

static void copy_counters(struct gpu_result *r, const struct gpu_result *c)
{
    r->has_counters = 1;
    r->wavefronts_ld = c->wavefronts_ld;
    r->wavefronts_st = c->wavefronts_st;
    r->conflicts_ld = c->conflicts_ld;
    r->conflicts_st = c->conflicts_st;
    r->inst_ld = c->inst_ld;
    r->inst_st = c->inst_st;
    r->counters_note[0] = '\0';
    memset(&r->counters_msg, 0, sizeof r->counters_msg);
}

void gpu_note(struct gpu_result *r, int id, ...)
{
    va_list ap;
    va_start(ap, id);
    bl_msg_vset(&r->counters_msg, r->counters_note, sizeof r->counters_note, id, ap);
    va_end(ap);
}

void gpu_note_err(struct gpu_result *r, const struct bl_err *e)
{
    bl_fmt(r->counters_note, sizeof r->counters_note, "%s", e->msg);
    r->counters_msg = e->why;
}

/* The answer to req from the recording: a case kernel's own result, with the access timing of
 * its drawn access; a pattern's counters and timing, each from any record of that access. */
static void replay_answer(const struct gpu *g, const struct gpu_request *req, struct gpu_result *r)
{
    struct found f;
    memset(&f, 0, sizeof f);
    if (req->kind == GPU_REQ_CASE) {
        for (int i = 0; i < g->nrecs && !f.kernel; i++) {
            const struct gpu_record *w = &g->recs[i];
            if (w->req.kind != GPU_REQ_CASE || !gpu_same_case(&w->req, req))
                continue;
            if (w->res.err.status == GPU_OK)
                f.kernel = &w->res;
            else if (!f.refused)
                f.refused = &w->res;
        }
    }
    if (req->access.mask && (req->kind == GPU_REQ_PATTERN || !f.refused)) {
        const struct gpu_result *refused = f.refused;
        find_access(g, &req->access, &f);
        if (req->kind == GPU_REQ_CASE)
            f.refused = refused; /* a refused access record says nothing about the kernel */
    }
    memset(r, 0, sizeof *r);
    if (f.kernel) {
        *r = *f.kernel;
    } else if (f.counters || f.timing || f.launch) {
        if (f.launch && req->kind == GPU_REQ_PATTERN)
            *r = *f.launch;
        else if (f.counters)
            copy_counters(r, f.counters);
        bl_err_clear(&r->err);
    } else if (f.refused) {
        *r = *f.refused;
        return;
    } else {
        bl_fail(&r->err, GPU_ENOTRECORDED, BL_NOWHERE, req->kind == GPU_REQ_CASE ? GPU_NOT_RECORDED_CASE
                                                                : GPU_NOT_RECORDED_ACCESS);
        return;
    }
    if (f.counters && (req->kind == GPU_REQ_PATTERN || !r->has_counters))
        copy_counters(r, f.counters);
    if (f.timing)
        copy_access_timing(r, f.timing);
}

struct gpu *gpu_open_replay(const struct gpu_record *recs, int n, const char *device,
                            const char *date, struct gpu_info *info)
{
    struct gpu *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    if (n > 0) {
        g->recs = malloc((size_t)n * sizeof *g->recs);
        if (!g->recs) {
            free(g);
            return NULL;
        }
        memcpy(g->recs, recs, (size_t)n * sizeof *recs);
    }
    g->nrecs = n;
    g->backend = GPU_BACKEND_REPLAY;
    struct bl_msg prov;
    bl_msg_set(&prov, g->provenance, sizeof g->provenance, GPU_RECORDED_ON,
               device ? device : "an unknown device", date ? date : "an unknown date");
    if (info) {
        memset(info, 0, sizeof *info);
        info->backend = GPU_BACKEND_REPLAY;
        info->available = 1;
        info->counters = 1;
        snprintf(info->device, sizeof info->device, "%s", g->provenance);
        info->device_msg = prov;
    }
    return g;
}

enum gpu_status gpu_submit(struct gpu *g, const struct gpu_request *req)
{
    if (!g)
        return GPU_EUNAVAILABLE;
    if (g->ops)
        return g->ops->submit(g->impl, req);
    if (g->backend == GPU_BACKEND_NONE)
        return GPU_EUNAVAILABLE;
    if (g->count == GPU_QUEUE)
        return GPU_EBUSY;
    struct gpu_result *r = &g->ready[(g->head + g->count) % GPU_QUEUE];
    replay_answer(g, req, r);
    r->id = req->id;
    snprintf(r->provenance, sizeof r->provenance, "%s", g->provenance);
    g->count++;
    return GPU_OK;
}

/* gpu_ring_take: the oldest result into *out (mutex held); 1, or 0 when empty. */
static int gpu_ring_take(struct gpu_ring *q, struct gpu_result *out)
{
    if (q->count == 0)
        return 0;
    *out = q->r[q->head];
    q->head = (q->head + 1) % q->cap;
    q->count--;
    return 1;
}

/* The oldest result of q, waiting up to timeout_ms (0: not at all) for one. */
static int ring_wait(struct gpu_ring *q, int timeout_ms, struct gpu_result *out)
{
    struct timespec until = gpu_deadline(timeout_ms);
    pthread_mutex_lock(q->mu);
    int got;
    while (!(got = gpu_ring_take(q, out)) && timeout_ms > 0)
        if (pthread_cond_timedwait(q->cv, q->mu, &until) == ETIMEDOUT) {
            got = gpu_ring_take(q, out);
            break;
        }
    pthread_mutex_unlock(q->mu);
    return got;
}

int gpu_poll(struct gpu *g, struct gpu_result *out)
{
    if (g && g->ring)
        return ring_wait(g->ring, 0, out);
    if (g && g->ops)
        return g->ops->poll(g->impl, out);
    if (!g || g->count == 0)
        return 0;
    *out = g->ready[g->head];
    g->head = (g->head + 1) % GPU_QUEUE;
    g->count--;
    return 1;
}

int gpu_wait(struct gpu *g, struct gpu_result *out, int timeout_ms)
{
    if (g && g->ring)
        return ring_wait(g->ring, timeout_ms, out);
    if (g && g->ops)
        return g->ops->wait(g->impl, out, timeout_ms);
    (void)timeout_ms; /* answers are ready at submit time */
    return gpu_poll(g, out);
}

void gpu_progress(struct gpu *g, struct gpu_progress *out)
{
    memset(out, 0, sizeof *out);
    if (g && g->ops && g->ops->progress)
        g->ops->progress(g->impl, out);
}

void gpu_close(struct gpu *g)
{
    if (!g)
        return;
    if (g->ops)
        g->ops->close(g->impl);
    free(g->recs);
    free(g);
}

enum gpu_status gpu_run(struct gpu *g, const struct gpu_request *req, struct gpu_result *out,
                        int timeout_ms)
{
    memset(out, 0, sizeof *out);
    out->id = req->id;
    enum gpu_status st = gpu_submit(g, req);
    if (st != GPU_OK) {
        bl_fail(&out->err, st, BL_NOWHERE, st == GPU_EBUSY ? GPU_QUEUE_FULL : GPU_NO_GPU_AVAILABLE);
        return st;
    }
    while (gpu_wait(g, out, timeout_ms)) {
        if (out->id == req->id)
            return (enum gpu_status)out->err.status;
    }
    memset(out, 0, sizeof *out);
    out->id = req->id;
    bl_fail(&out->err, GPU_EFAILED, BL_NOWHERE, GPU_NO_RESULT_WITHIN_MS, timeout_ms);
    return GPU_EFAILED;
}

/* ---- a ring of finished results (gpu/gpu.h) ---- */

int gpu_ring_put(struct gpu_ring *q, const struct gpu_result *res)
{
    if (q->count >= q->cap)
        return -1;
    q->r[(q->head + q->count) % q->cap] = *res;
    q->count++;
    return 0;
}

struct timespec gpu_deadline(double ms)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    long long ns = t.tv_nsec + (long long)(ms * 1e6);
    t.tv_sec += (time_t)(ns / 1000000000LL);
    t.tv_nsec = (long)(ns % 1000000000LL);
    return t;
}

