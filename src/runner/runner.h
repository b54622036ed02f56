/* runner.h: the lessons' case kernels measured in this process: gpu_open (gpu.h) is the
 * runner's (cuda_gpu.c: a worker thread owning the CUDA context, cuda_measure.c,
 * cuda_cases.c, kernels/ (the .cu files); none_gpu.c in a GPU=none build), and a device's UUID without a
 * context. No CUDA in this header. */
#ifndef BANKLAB_RUNNER_H
#define BANKLAB_RUNNER_H

#include "../base/err.h"
#include "../gpu/gpu.h"

/* gpu_device_uuid: the 16-byte UUID of CUDA device `device` (as CUDA numbers them, after
 * $CUDA_VISIBLE_DEVICES) without making a context: the driver API loaded with dlopen
 * (runner/cuda_uuid.c; runner/none_uuid.c in a GPU=none build says "built without CUDA"). 0, or -1 with one
 * line in err failed (no driver, no such device). */
int gpu_device_uuid(int device, unsigned char uuid[16], struct bl_err *err);

/* gpu_open: open device `device` (index) with the built-in implementation (CUDA if built
 * and usable, else none). Always returns a handle (NULL only when out of memory); info tells
 * what answers. Starts the worker thread when a device is there. */
struct gpu *gpu_open(int device, struct gpu_info *info);

/* gpu_open_serving: gpu_open for the GPU server (`banklab serve`). The difference: a pattern
 * measured while another process holds the counters is answered "counters busy" at once (the
 * class's queue does not wait behind it). A process that measures for itself (gpu_open) waits
 * for them instead, up to COUNTERS_BUSY_WAIT_MS, giving the device's turn back between tries:
 * the class's server keeps the counters up to 3 s after its last measurement. */
struct gpu *gpu_open_serving(int device, struct gpu_info *info);

#endif
