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

/* A handle backed by another implementation (the CUDA runner, the server's client, the fake
 * device): gpu_submit/close/progress forward to ops with impl, and gpu_poll/wait take from
 * its ring of results (gpu_wrap_new), or forward to ops when it has none. */
struct gpu_ops {
    enum gpu_status (*submit)(void *impl, const struct gpu_request *req);
    int (*poll)(void *impl, struct gpu_result *out);              /* NULL with a ring */
    int (*wait)(void *impl, struct gpu_result *out, int timeout_ms);
    void (*close)(void *impl);
    void (*progress)(void *impl, struct gpu_progress *out); /* may be NULL: always idle */
};

/* A ring of finished results, for the implementations that hand results from a thread of
 * their own to gpu_poll/gpu_wait. The implementation owns the slots, the mutex the ring is
 * used under and the condition variable signalled when a result is put. */
struct gpu_ring {
    struct gpu_result *r;         /* cap slots */
    int cap, head, count;
    pthread_mutex_t *mu;
    pthread_cond_t *cv;
};

/* gpu_ring_put: append res (mutex held); 0, or -1 when the ring is full. gpu_ring_take: the
 * oldest result into *out (mutex held); 1, or 0 when empty. */
int gpu_ring_put(struct gpu_ring *q, const struct gpu_result *res);
int gpu_ring_take(struct gpu_ring *q, struct gpu_result *out);

/* gpu_deadline: CLOCK_REALTIME ms from now, for pthread_cond_timedwait. */
struct timespec gpu_deadline(double ms);

/* copy_access_timing: t's time of one warp access (has_access_timing and its figures) into r. */
void copy_access_timing(struct gpu_result *r, const struct gpu_result *t);

/* gpu_same_case: a and b (case requests) run the same kernel setting: the same name and the
 * same values of the parameters the kernel reads (gpu_case_values); an unknown case matches
 * only the same name with the same parameters given. */
int gpu_same_case(const struct gpu_request *a, const struct gpu_request *b);

/* gpu_wrap_new: a handle forwarding to ops/impl (impl is closed by gpu_close), its results
 * taken from ring (NULL: from ops). NULL when out of memory (impl is then closed too). */
struct gpu *gpu_wrap_new(const struct gpu_ops *ops, void *impl, struct gpu_ring *ring,
                         enum gpu_backend backend);

/* gpu_device_uuid: the 16-byte UUID of CUDA device `device` (as CUDA numbers them, after
 * $CUDA_VISIBLE_DEVICES) without making a context: the driver API loaded with dlopen
 * (cuda_uuid.c; none_uuid.c in a GPU=none build says "built without CUDA"). 0, or -1 with one
 * line in err failed (no driver, no such device). */
int gpu_device_uuid(int device, unsigned char uuid[16], struct bl_err *err);

#endif
