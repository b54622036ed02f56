/* gpu_impl.h: what the runner implementations (none, cuda, replay) share inside src/gpu.
 * Not for use outside src/gpu. */
#ifndef BANKLAB_GPU_IMPL_H
#define BANKLAB_GPU_IMPL_H

#include <pthread.h>

#include "gpu.h"

/* gpu_unavailable: a handle whose requests all answer GPU_EUNAVAILABLE; info (when not NULL)
 * gets why as its err and counters_err (status GPU_EUNAVAILABLE). Returns NULL only when out
 * of memory. */
struct gpu *gpu_unavailable(struct gpu_info *info, const struct bl_err *why);

/* A handle backed by another implementation (the CUDA runner): gpu_submit/poll/wait/close
 * forward to ops with impl. */
struct gpu_ops {
    enum gpu_status (*submit)(void *impl, const struct gpu_request *req);
    int (*poll)(void *impl, struct gpu_result *out);
    int (*wait)(void *impl, struct gpu_result *out, int timeout_ms);
    void (*close)(void *impl);
    void (*progress)(void *impl, struct gpu_progress *out); /* may be NULL: always idle */
};

/* A ring of finished results, for the implementations that hand results from a thread of
 * their own to gpu_poll/gpu_wait (the server's client, the fake device). The caller owns the
 * mutex and the condition variable the ring is used under. */
struct gpu_ring {
    struct gpu_result *r;         /* cap slots, the caller's */
    int cap, head, count;
};

/* gpu_ring_put: append res (mutex held); 0, or -1 when the ring is full. gpu_ring_take: the
 * oldest result into *out (mutex held); 1, or 0 when empty. gpu_ring_wait: with the mutex
 * held, take one, waiting on cv up to timeout_ms for it; 1 taken, 0 on timeout. */
int gpu_ring_put(struct gpu_ring *q, const struct gpu_result *res);
int gpu_ring_take(struct gpu_ring *q, struct gpu_result *out);
int gpu_ring_wait(struct gpu_ring *q, pthread_mutex_t *mu, pthread_cond_t *cv, int timeout_ms,
                  struct gpu_result *out);

/* gpu_wrap_new: a handle forwarding to ops/impl (impl is closed by gpu_close). NULL when out
 * of memory (impl is then closed too). */
struct gpu *gpu_wrap_new(const struct gpu_ops *ops, void *impl, enum gpu_backend backend);

/* gpu_device_uuid: the 16-byte UUID of CUDA device `device` (as CUDA numbers them, after
 * $CUDA_VISIBLE_DEVICES) without making a context: the driver API loaded with dlopen
 * (cuda_uuid.c; none_uuid.c in a GPU=none build says "built without CUDA"). 0, or -1 with one
 * line in err (no driver, no such device). */
int gpu_device_uuid(int device, unsigned char uuid[16], char *err, size_t n);

#endif
