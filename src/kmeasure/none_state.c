/* none_state.c: the measuring process of `banklab kernel` in a build without CUDA
 * (GPU=none): there is no NVRTC and no driver to ask, so every request answers that
 * compiling and measuring need the CUDA build, and no server is ever started. */
#include <stdlib.h>

#include "../kernel/kernel.h"
#include "kmeasure.h"

struct kstate {
    int device;
};

struct kstate *kstate_new(int device, struct gpu_kernel_result *res)
{
    (void)res;
    struct kstate *st = calloc(1, sizeof *st);
    if (st)
        st->device = device;
    return st;
}

void kstate_measure(struct kstate *st, const struct gpu_kernel_request *req, const char *src,
                    size_t len, struct gpu_kernel_result *res, int fd)
{
    (void)st;
    (void)src;
    (void)len;
    (void)fd;
    bl_fail(&res->err, GPU_KERNEL_ENOGPU, BL_NOWHERE, KRN_NEEDS_CUDA_BUILD, req->path);
}

void kstate_prepare(struct kstate *st, struct gpu_kernel_result *res)
{
    (void)st;
    (void)res;
}

int kstate_can_serve(const struct kstate *st)
{
    (void)st;
    return 0;
}

void kstate_free(struct kstate *st)
{
    free(st);
}
