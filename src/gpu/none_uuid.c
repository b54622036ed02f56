/* none_uuid.c: gpu_device_uuid in a GPU=none build (gpu_impl.h): there is no driver to ask. A
 * GPU=none client still reaches a server named with --server or BANKLAB_SERVER. */
#include "../base/fmt.h"
#include "gpu_impl.h"

int gpu_device_uuid(int device, unsigned char uuid[16], char *err, size_t n)
{
    (void)device;
    (void)uuid;
    return bl_failmsg(err, n, "built without CUDA (GPU=none)");
}
