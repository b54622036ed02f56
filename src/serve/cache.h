/* cache.h: the GPU server's cache of results (serve/cache.c), private to daemon.c: a
 * finished measurement with complete numbers answers the same request (sw_same_request) for
 * cache_s seconds; when the table is full the oldest goes. No CUDA, never prints. */
#ifndef BANKLAB_SERVE_CACHE_H
#define BANKLAB_SERVE_CACHE_H

#include "../gpu/gpu.h"

struct sv_cache_ent {
    int used;
    struct gpu_request req;
    struct gpu_result res;
    double t;                      /* seconds (bl_now_ms): when it was measured */
};

/* sv_cacheable: 1 when r, the result of req, may answer later requests: no error, not
 * measured while the counters were paused, and holding what req wanted. */
int sv_cacheable(const struct gpu_request *req, int paused, const struct gpu_result *r);

/* sv_cache_put: r (of req) into the n entries of c, over req's own or the oldest. */
void sv_cache_put(struct sv_cache_ent *c, int n, const struct gpu_request *req,
                  const struct gpu_result *r);

/* sv_cache_get: the entry of c answering q, younger than cache_s seconds (older ones are
 * forgotten on the way), or NULL. */
const struct sv_cache_ent *sv_cache_get(struct sv_cache_ent *c, int n, int cache_s,
                                        const struct gpu_request *q);

#endif
