/* cuda_uuid.c: a device's UUID without a context (gpu/gpu.h), for the name of its GPU
 * server's socket: the client of `banklab serve` links no CUDA and must not hold GPU memory,
 * so it asks the driver API (libcuda, loaded with dlopen) only cuInit, cuDeviceGet and
 * cuDeviceGetUuid. Built with GPU=cuda. */
#include <dlfcn.h>

#include "../base/fmt.h"
#include "../gpu/gpu.h"
#include "runner.h"
#include "../cuda/cudalib.h"

typedef int (*cu_init_fn)(unsigned);
typedef int (*cu_device_get_fn)(int *, int);
typedef int (*cu_device_count_fn)(int *);
typedef int (*cu_uuid_fn)(unsigned char *, int);

int gpu_device_uuid(int device, unsigned char uuid[16], struct bl_err *err)
{
    void *lib = bl_cuda_open();
    if (!lib)
        return bl_fail(err, GPU_EUNAVAILABLE, BL_NOWHERE, GPU_NO_DRIVER);
    cu_init_fn init = (cu_init_fn)dlsym(lib, "cuInit");
    cu_device_get_fn get = (cu_device_get_fn)dlsym(lib, "cuDeviceGet");
    cu_device_count_fn count = (cu_device_count_fn)dlsym(lib, "cuDeviceGetCount");
    cu_uuid_fn get_uuid = (cu_uuid_fn)dlsym(lib, "cuDeviceGetUuid_v2");
    if (!get_uuid)
        get_uuid = (cu_uuid_fn)dlsym(lib, "cuDeviceGetUuid");
    int rc = -1, dev = 0, nd = 0, e;
    if (!init || !get || !count || !get_uuid)
        bl_fail(err, GPU_EUNAVAILABLE, BL_NOWHERE, UU_DRIVER_LACKS);
    else if ((e = init(0)) != 0)
        bl_fail(err, GPU_EUNAVAILABLE, BL_NOWHERE, UU_CUINIT, e, e == 100 ? ": no CUDA device" : "");
    else if ((e = count(&nd)) != 0 || nd == 0)
        bl_fail(err, GPU_EUNAVAILABLE, BL_NOWHERE, GPU_NO_DEVICE);
    else if (device < 0 || device >= nd)
        bl_fail(err, GPU_EUNAVAILABLE, BL_NOWHERE, GPU_NO_DEVICE_N, device, nd, nd - 1);
    else if ((e = get(&dev, device)) != 0 || (e = get_uuid(uuid, dev)) != 0)
        bl_fail(err, GPU_EUNAVAILABLE, BL_NOWHERE, UU_NO_UUID, device, e);
    else
        rc = 0;
    /* the driver stays loaded: unloading it after cuInit is not supported */
    return rc;
}
