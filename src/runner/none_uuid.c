/* none_uuid.c: gpu_device_uuid in a GPU=none build (gpu/gpu.h): there is no driver to ask. A
 * GPU=none client still reaches a server named with --server or BANKLAB_SERVER. */
#include "../base/fmt.h"
#include "../gpu/gpu.h"
#include "runner.h"

int gpu_device_uuid(int device, unsigned char uuid[16], struct bl_err *err)
{
    (void)device;
    (void)uuid;
    return bl_fail(err, GPU_EUNAVAILABLE, BL_NOWHERE, GPU_BUILT_WITHOUT_CUDA);
}
