/* krecord.h: a kernel's measurement recorded by `banklab run --json` read back (the kernel
 * view's --measured): the launch of a file's kernel with its instructions, lines and the warps
 * the sanitizer route kept, as the result a measurement gives (kernel/kernel.h). */
#ifndef BANKLAB_STORE_KRECORD_H
#define BANKLAB_STORE_KRECORD_H

#include "../base/err.h"
#include "../kernel/kernel.h"

#define KREC_MAX_BYTES (64u << 20)   /* a larger file is no recording banklab writes */

/* krec_read: from the recording at path, the first launch that ran kernel `name` ("": any) with
 * a line in a file of cu_path's base name, into *res (gpu_kernel_result_done it): its kernel,
 * device, grid, block, instructions (their file cu_path when they stand in that file), lines
 * and kept warps; files[0] is cu_path. 0, or -1 with err (res empty). */
int krec_read(const char *path, const char *cu_path, const char *name,
              struct gpu_kernel_result *res, struct bl_err *err);

#endif
