/* gpu_common.c: the parts of the runner every build has: the unavailable handle (used by the
 * none build and by the CUDA build when no device or driver is there) and the replay handle
 * (answers from recorded results). Requests are answered at submit time: nothing here blocks.
 * No CUDA, no curses, no cJSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "gpu_impl.h"

#define GPU_QUEUE 16

/* The unavailable and replay handles: a small ring of answers waiting to be polled. */
struct gpu {
    enum gpu_backend backend;
    char reason[GPU_TEXT_MAX];
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

struct gpu *gpu_unavailable_new(const char *reason, struct gpu_info *info)
{
    struct gpu *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->backend = GPU_BACKEND_NONE;
    snprintf(g->reason, sizeof g->reason, "%s", reason);
    if (info) {
        memset(info, 0, sizeof *info);
        info->backend = GPU_BACKEND_NONE;
        snprintf(info->reason, sizeof info->reason, "%s", reason);
        snprintf(info->counters_reason, sizeof info->counters_reason, "%s", reason);
    }
    return g;
}

static int same_request(const struct gpu_request *a, const struct gpu_request *b)
{
    if (a->kind != b->kind)
        return 0;
    if (a->kind == GPU_REQ_PATTERN) {
        const struct bank_access *x = &a->access, *y = &b->access;
        if (x->width != y->width || x->op != y->op || x->mask != y->mask)
            return 0;
        for (int i = 0; i < BANK_LANES; i++)
            if ((x->mask >> i & 1u) && x->offset[i] != y->offset[i])
                return 0;
        return 1;
    }
    if (strcmp(a->case_name, b->case_name) || a->nparams != b->nparams)
        return 0;
    for (int i = 0; i < a->nparams; i++) {
        int found = 0;
        for (int j = 0; j < b->nparams; j++)
            if (!strcmp(a->param_name[i], b->param_name[j]) &&
                a->param_value[i] == b->param_value[j])
                found = 1;
        if (!found)
            return 0;
    }
    return 1;
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
    snprintf(g->provenance, sizeof g->provenance, "recorded on %s, %s",
             device ? device : "an unknown device", date ? date : "an unknown date");
    if (info) {
        memset(info, 0, sizeof *info);
        info->backend = GPU_BACKEND_REPLAY;
        info->available = 1;
        info->counters = 1;
        snprintf(info->device, sizeof info->device, "%s", g->provenance);
    }
    return g;
}

enum gpu_status gpu_submit(struct gpu *g, const struct gpu_request *req)
{
    if (!g)
        return GPU_EUNAVAILABLE;
    if (g->backend == GPU_BACKEND_NONE)
        return GPU_EUNAVAILABLE;
    if (g->count == GPU_QUEUE)
        return GPU_EBUSY;
    struct gpu_result *r = &g->ready[(g->head + g->count) % GPU_QUEUE];
    memset(r, 0, sizeof *r);
    r->status = GPU_ENOTRECORDED;
    snprintf(r->error, sizeof r->error, "no recorded measurement for this access");
    for (int i = 0; i < g->nrecs; i++) {
        if (same_request(&g->recs[i].req, req)) {
            *r = g->recs[i].res;
            break;
        }
    }
    r->id = req->id;
    snprintf(r->provenance, sizeof r->provenance, "%s", g->provenance);
    g->count++;
    return GPU_OK;
}

int gpu_poll(struct gpu *g, struct gpu_result *out)
{
    if (!g || g->count == 0)
        return 0;
    *out = g->ready[g->head];
    g->head = (g->head + 1) % GPU_QUEUE;
    g->count--;
    return 1;
}

int gpu_wait(struct gpu *g, struct gpu_result *out, int timeout_ms)
{
    (void)timeout_ms; /* answers are ready at submit time */
    return gpu_poll(g, out);
}

void gpu_close(struct gpu *g)
{
    if (!g)
        return;
    free(g->recs);
    free(g);
}
