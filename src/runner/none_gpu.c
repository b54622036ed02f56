/* none_gpu.c: the built-in runner when banklab is built without the CUDA toolkit (GPU=none).
 * Every request answers GPU_EUNAVAILABLE with one reason line. No CUDA, no curses. */
#include "../gpu/gpu.h"
#include "runner.h"

struct gpu *gpu_open_serving(int device, struct gpu_info *info)
{
    return gpu_open(device, info);
}

struct gpu *gpu_open(int device, struct gpu_info *info)
{
    (void)device;
    struct bl_err why = {0};
    bl_fail(&why, GPU_EUNAVAILABLE, BL_NOWHERE, GPU_BUILT_WITHOUT_CUDA);
    return gpu_unavailable(info, &why);
}
