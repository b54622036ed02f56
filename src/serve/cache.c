/* cache.c: the GPU server's cache of results (serve/cache.h). */
#include <stddef.h>

#include "../base/err.h"
#include "cache.h"
#include "wire.h"

int sv_cacheable(const struct gpu_request *req, int paused, const struct gpu_result *r)
{
    return r->err.status == GPU_OK && !paused && !(req->want_counters && !r->has_counters) &&
           !(req->want_timing && !r->has_access_timing && !r->has_timing);
}

void sv_cache_put(struct sv_cache_ent *c, int n, const struct gpu_request *req,
                  const struct gpu_result *r)
{
    int at = 0;
    for (int i = 0; i < n; i++) {
        if (!c[i].used || sw_same_request(&c[i].req, req)) {
            at = i;
            break;
        }
        if (c[i].t < c[at].t)
            at = i;                /* the oldest goes */
    }
    struct sv_cache_ent *e = &c[at];
    e->used = 1;
    e->req = *req;
    e->res = *r;
    e->t = bl_now_ms() / 1e3;
}

const struct sv_cache_ent *sv_cache_get(struct sv_cache_ent *c, int n, int cache_s,
                                        const struct gpu_request *q)
{
    double t = bl_now_ms() / 1e3;
    for (int i = 0; i < n; i++) {
        struct sv_cache_ent *e = &c[i];
        if (!e->used)
            continue;
        if (t - e->t > cache_s) {
            e->used = 0;
            continue;
        }
        if (sw_same_request(&e->req, q))
            return e;
    }
    return NULL;
}
