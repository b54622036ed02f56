/* gpu_impl.h: what the runner implementations (none, cuda, replay) share inside src/gpu.
 * Not for use outside src/gpu. */
#ifndef BANKLAB_GPU_IMPL_H
#define BANKLAB_GPU_IMPL_H

#include "gpu.h"

/* A handle whose requests all answer GPU_EUNAVAILABLE with `reason`; fills info.
 * Returns NULL only when out of memory. */
struct gpu *gpu_unavailable_new(const char *reason, struct gpu_info *info);

#endif
