/* xrt.h: banklab's CUDA runtime (libcudart.so.13 without a GPU), shared by its files.
 *
 * A program built with `nvcc -cudart shared` finds this library first on its library path
 * (banklab kernel --model sets it up: src/predict/program.c). Device memory is host memory:
 * cudaMalloc is an aligned host allocation kept in a table (xrt_mem.c), so the executor's
 * global_ok can vet every global range a kernel touches. Each kernel main launches runs on
 * the CPU through the PTX executor (src/ptx/ptx.h) read from the PTX file named by
 * BANKLAB_XRT_PTX (`nvcc -ptx -lineinfo` of the same source, made by banklab); every
 * shared-memory access it reports goes through the bank model (src/model/bank.h) and is
 * summed per source location; the launches and their lines are written as text lines to the
 * file named by BANKLAB_XRT_OUT (xrt_out.c, the format in docs/kernel.md). Everything runs
 * synchronously under one lock. An entry point this runtime does not implement ends the
 * program with one line on stderr and exit status XRT_EXIT_UNSUPPORTED. */
#ifndef BANKLAB_XRT_H
#define BANKLAB_XRT_H

#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "../ptx/ptx.h"

#define XRT_API __attribute__((visibility("default")))

/* exit statuses of the program under this runtime (banklab reads them, predict/program.c) */
#define XRT_EXIT_UNSUPPORTED 86   /* an entry point this runtime does not implement */
#define XRT_EXIT_SETUP 87         /* no PTX, a PTX the executor refuses, no output file */

/* default and opt-in dynamic shared memory per block (sm_90) */
#define XRT_SMEM_DEFAULT (48u * 1024u)
#define XRT_SMEM_OPTIN (227u * 1024u)

extern pthread_mutex_t xrt_lock;

/* ---- xrt_api.c ---- */
/* xrt_set: err as the last error (unless success) and sticky when a launch failed; returns it */
cudaError_t xrt_set(cudaError_t err);
/* the sticky error of a failed kernel (cudaSuccess when none): every later call returns it */
extern cudaError_t xrt_sticky;

/* ---- xrt_mem.c ---- */
/* xrt_global_ok: the executor's check of a global range (ctx unused); sets xrt_bad_global */
int xrt_global_ok(void *ctx, uint64_t addr, size_t n);
extern int xrt_bad_global;

/* ---- xrt_launch.c ---- */
struct xrt_func {
    const void *stub;        /* the host stub's address, as <<<>>> and cudaLaunchKernel pass it */
    char name[512];          /* the mangled device name */
    int k;                   /* its index in the PTX module, -1 when unknown */
    int max_dyn;             /* cudaFuncAttributeMaxDynamicSharedMemorySize as set, -1 never */
};

/* what nvcc's generated code calls (crt/host_runtime.h and device_functions.h declare them for
 * C++ only) */
void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **handle);
void __cudaUnregisterFatBinary(void **handle);
char __cudaInitModule(void **handle);
void __cudaRegisterFunction(void **handle, const char *hostFun, char *deviceFun,
                            const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
                            dim3 *bDim, dim3 *gDim, int *wSize);
void __cudaRegisterVar(void **handle, char *hostVar, char *deviceAddress, const char *deviceName,
                       int ext, size_t size, int constant, int global);
void __cudaRegisterManagedVar(void **handle, void **hostVarPtrAddress, char *deviceAddress,
                              const char *deviceName, int ext, size_t size, int constant,
                              int global);
unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                     struct CUstream_st *stream);
cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
                                       void *stream);
cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *fun);
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                               size_t sharedMem, cudaStream_t stream);
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                                    size_t sharedMem, cudaStream_t stream);

/* ---- xrt_out.c ---- */
/* xrt_fatal: one line "banklab's CUDA runtime: TEXT" on stderr, the same as a `fatal` record,
 * and the program ends with status code */
void xrt_fatal(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
/* xrt_unsupported: the line naming entry point `name` and exit XRT_EXIT_UNSUPPORTED */
void xrt_unsupported(const char *name) __attribute__((noreturn));
/* a launch's figures: begin (the aggregation of kernel k of m; -1 out of memory), the
 * executor's sink, then the records of the launch (with its figures when begun) */
int xrt_out_begin(const struct ptx_module *m, int k);
void xrt_out_sink(void *ctx, const struct ptx_access *a);
void xrt_out_launch(const struct xrt_func *f, const unsigned grid[3], const unsigned block[3],
                    size_t smem, cudaError_t status, const char *note, uint64_t steps);

#endif
