/* cuda_uuid.c: a device's UUID without a context (gpu/gpu.h), for the name of its GPU
 * server's socket: the client of `banklab serve` links no CUDA and must not hold GPU memory,
 * so it asks the driver API (libcuda, loaded with dlopen) only cuInit, cuDeviceGet and
 * cuDeviceGetUuid; on a machine of one GPU, for CUDA's device 0, it reads the driver's /proc
 * file instead (proc_uuid). Built with GPU=cuda. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/fmt.h"
#include "../gpu/gpu.h"
#include "runner.h"
#include "../cuda/cudalib.h"
#include "../sys/sys.h"

#define PROC_GPUS "/proc/driver/nvidia/gpus"

/* "GPU UUID: <tab> GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" of the driver's information file
 * into uuid. 0, or -1 when the line is not there or not 32 hex digits. */
static int parse_uuid(const char *text, unsigned char uuid[16])
{
    const char *p = strstr(text, "GPU UUID:");
    if (!p)
        return -1;
    p += strlen("GPU UUID:");
    while (*p == ' ' || *p == '\t')
        p++;
    if (strncmp(p, "GPU-", 4))
        return -1;
    p += 4;
    for (int i = 0; i < 32; p++) {
        if (*p == '-' && i > 0 && i % 2 == 0)
            continue;
        int v = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
              : *p >= 'A' && *p <= 'F' ? *p - 'A' + 10 : -1;
        if (v < 0)
            return -1;
        uuid[i / 2] = (unsigned char)(i % 2 ? uuid[i / 2] | v : v << 4);
        i++;
    }
    return 0;
}

/* A machine of one GPU, CUDA's device 0 seen as it is (CUDA_VISIBLE_DEVICES unset or "0"), that
 * this process may open (/dev/nvidiactl and /dev/nvidia<minor>, read and write): its UUID from
 * PROC_GPUS/<bus>/information, the UUID cuDeviceGetUuid gives for it. cuInit costs
 * every client of a class tens of milliseconds of CPU and the driver's threads as it starts (64
 * learners starting at once: 49 runnable processes on 16 cores beside `banklab run`, call 24 of
 * docs/runs/h100-2026-12-07-morning.md). The server names its socket through here too, so both
 * sides agree. 0, or -1: ask the driver. */
static int proc_uuid(int device, unsigned char uuid[16])
{
    const char *cvd = sys_env("CUDA_VISIBLE_DEVICES");
    if (device != 0 || (cvd && strcmp(cvd, "0")))
        return -1;
    struct sys_dir *d = sys_dir_open(PROC_GPUS);
    if (!d)
        return -1;
    char bus[128] = "";
    int n = 0;
    for (const char *e; (e = sys_dir_next(d));)
        if (n++ == 0)
            bl_fmt(bus, sizeof bus, "%s", e);
    sys_dir_close(d);
    if (n != 1)
        return -1;
    char path[256], text[2048];
    bl_fmt(path, sizeof path, "%s/%s/information", PROC_GPUS, bus);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    size_t got = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[got] = 0;
    /* and this process may use it (a container may see the driver's files, not the device) */
    const char *minor = strstr(text, "Device Minor:");
    if (!minor || access("/dev/nvidiactl", R_OK | W_OK))
        return -1;
    bl_fmt(path, sizeof path, "/dev/nvidia%ld", strtol(minor + strlen("Device Minor:"), NULL, 10));
    if (access(path, R_OK | W_OK))
        return -1;
    return parse_uuid(text, uuid);
}

typedef int (*cu_init_fn)(unsigned);
typedef int (*cu_device_get_fn)(int *, int);
typedef int (*cu_device_count_fn)(int *);
typedef int (*cu_uuid_fn)(unsigned char *, int);

int gpu_device_uuid(int device, unsigned char uuid[16], struct bl_err *err)
{
    if (proc_uuid(device, uuid) == 0)
        return 0;
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
