/* none_kernel.c: the measuring child of `banklab kernel` in a build without CUDA (GPU=none):
 * there is no NVRTC and no driver to ask, so every request answers that measuring needs the
 * CUDA build. No CUDA, no curses. */
#include "kernel_impl.h"

void kernel_child_measure(const struct gpu_kernel_request *req, const char *src, size_t len,
                          struct gpu_kernel_result *res, int fd)
{
    (void)src;
    (void)len;
    (void)fd;
    kres_fail(res, GPU_KERNEL_ENOGPU, "%s: compiling and measuring need banklab built with CUDA "
              "(this build has GPU=none)", req->path);
}
