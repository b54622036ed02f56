/* kernel_sass_lines.h: which source lines of a learner's kernel hold shared-memory
 * instructions in the compiled code, and which ones: the file compiled for the target (nvcc
 * -cubin -lineinfo -arch=sm_90 without a GPU, NVRTC where there is no nvcc; the kernel cache
 * keeps the cubin), the kernel's SASS decoded (sass_decode.c: LDS, STS, LDSM, STSM, ATOMS,
 * LDGSTS and their widths) and mapped to lines through the cubin's DWARF line table
 * (.debug_line), inlined code charged to the line in the file nvcc charges it to (a helper's
 * line), a header's code to the line of the file that called it. The list (struct kp_sass,
 * kernel_predict.h) drives the model's report: no line with a shared instruction is left
 * without a figure or a reason. Runs the compiler as a process; no CUDA runtime, no curses. */
#ifndef BANKLAB_KERNEL_SASS_LINES_H
#define BANKLAB_KERNEL_SASS_LINES_H

#include <stddef.h>

#include <stdatomic.h>

#include "gpu_kernel.h"
#include "kernel_predict.h"

/* ksl_compile: compile src (the file req->path) once for sm_90 into a handle whose kernels
 * ksl_kernel reads; NULL when there is no compiler or it refused the file: *why (en, zh) says
 * so in one line each (for the report's note). nvcc runs under the compiler guard
 * (kernel_spawn.h) with req->time_limit as its deadline, stopped early when *cancel (if not
 * NULL) turns non-zero. */
struct ksl_cubin;
struct ksl_cubin *ksl_compile(const char *src, size_t len, const struct gpu_kernel_request *req,
                              const char *name_expr, const atomic_int *cancel,
                              char why[2][KP_TEXT]);

/* ksl_kernel: the shared-memory instructions of kernel name_expr ("k", "k<32>") of the
 * compiled file, per line of the file, into *out (free with kp_sass_free). 0, or -1 when the
 * cubin has no such kernel (why filled). */
int ksl_kernel(const struct ksl_cubin *c, const char *name_expr, const char *src, size_t len,
               struct kp_sass *out, char why[2][KP_TEXT]);

void ksl_free(struct ksl_cubin *c);

/* ksl_lines: the same from a cubin in memory (tests): the instructions of function `symbol`
 * in the file whose name ends in `file` (a header's code charged to that file's calling
 * line). 0, or -1 (not an ELF cubin, no such function, no line table). */
int ksl_lines(const void *cubin, size_t n, const char *symbol, const char *file,
              struct kp_sass *out);

#endif
