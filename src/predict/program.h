/* program.h: a whole program run without a GPU (`banklab kernel FILE.cu --model` on a file
 * with main()): built with `nvcc -cudart shared -arch=sm_90 -lineinfo`, its PTX made by
 * `nvcc -ptx` of the same source with the same flags, run in a child (own process group, a
 * time and address-space limit, killed with banklab) with banklab's CUDA runtime
 * (src/xrt, build/xrt/libcudart.so.13) first on its library path: each kernel main launches
 * runs on the CPU through the PTX executor, and the runtime's records of its launches and
 * their shared-memory lines are read back here (predict/program.c). The program's own stdout and
 * stderr are kept apart. No CUDA here; never prints. */
#ifndef BANKLAB_GPU_KERNEL_XRT_H
#define BANKLAB_GPU_KERNEL_XRT_H

#include <stdatomic.h>
#include <stddef.h>

#include "../base/err.h"
#include "../kernel/kernel.h"
#include "predict.h"

/* one source line of a launch: the shared-memory warp instructions run there and their
 * wavefronts through the bank model; ideal = passes (the wavefronts without a conflict) */
struct kxrt_line {
    char file[256];          /* the .loc file (the compiled file's lines are this one's) */
    int line;
    int in_file;             /* 1: a line of the compiled file */
    char kinds[40];          /* "ld st" ...: the instructions seen there */
    double inst, wavefronts, ideal;
    int ways;                /* the largest pass cost of any warp */
    int unpriced;            /* warp instructions the bank model has no price for */
    int nwarps;              /* its kept warps (the runtime's "warp" records), at most
                                KP_LINE_WARPS */
    struct kp_warp *warps;
};

struct kxrt_launch {
    char kernel[GPU_KERNEL_TEXT];   /* demangled */
    unsigned grid[3], block[3];
    unsigned long long smem;
    int status;                     /* the cudaError_t the launch got (0: ran) */
    char error[64];                 /* its name (cudaErrorInvalidConfiguration), when not 0 */
    char error_text[128];           /* cudaGetErrorString's */
    char note[256];                 /* the executor's reason, when the kernel failed */
    unsigned long long steps;       /* lane-instructions the executor ran */
    int nlines;
    struct kxrt_line *lines;        /* by file then line */
};

enum kxrt_end {
    KXRT_ENDED = 0,       /* the program exited (status in status) */
    KXRT_UNSUPPORTED,     /* it called an entry point the runtime does not have (what) */
    KXRT_SETUP,           /* the runtime could not start its work (what says why) */
    KXRT_TIMEOUT,         /* stopped at the time limit */
    KXRT_SIGNAL,          /* killed by signal status */
};

struct kxrt_result {
    int nlaunches;
    struct kxrt_launch *launches;
    int launches_cut;     /* more launches came than are kept (KXRT_MAX_LAUNCHES) */
    enum kxrt_end end;
    int status;           /* exit status, or the signal */
    char what[512];       /* the unsupported entry point, or the runtime's reason */
    char *out, *err;      /* the program's stdout and stderr (NUL-terminated, cut at 1 MiB) */
};

#define KXRT_MAX_LAUNCHES 4096

/* kxrt_lib_dir: the directory of banklab's CUDA runtime: $BANKLAB_XRT_DIR, xrt/ beside the
 * banklab binary, then the installed lib directory's xrt/. 0, or -1 (none in this build). */
int kxrt_lib_dir(char *dir, size_t size);

/* kxrt_run: build the file at path (the request's -I/-D/--nvcc-flag too) and run it with the
 * runtime in lib_dir, for at most timeout_s seconds; *r filled (kxrt_done it). cancel (NULL:
 * never) set by another thread kills nvcc or the program at once. 0 when the program ran
 * (whatever its end), or -1 with err: nvcc missing or failing (its messages in err's text),
 * no private directory, cancelled (KRN_COMPILE_CANCELLED). */
int kxrt_run(const char *path, const struct gpu_kernel_request *req, const char *lib_dir,
             int timeout_s, const atomic_int *cancel, struct kxrt_result *r, struct bl_err *err);
void kxrt_done(struct kxrt_result *r);

/* kxrt_apply: the figures of main's first launch of kernel name_expr that ran ("" = the
 * program's only kernel) into r, a prediction of the same kernel of file `path`: its grid,
 * block and shared memory, every line's figures (kexec_apply_lines), r->executed 1 and
 * r->main_launch (which launch of main, 1-based) and r->main_launches (how many of it main
 * made). A kernel main never ran keeps the prediction, with r->exec_note saying why. */
struct kp_result;
void kxrt_apply(const struct kxrt_result *run, const char *name_expr, const char *path,
                struct kp_result *r);

/* kxrt_instances: the instances of template kernel name ("k" or "ns::k", no arguments) that
 * main launched, as demangled ("ns::k<float>"), in the order of their first launch: up to max
 * into out; the count */
int kxrt_instances(const struct kxrt_result *run, const char *name, char (*out)[GPU_KERNEL_TEXT],
                   int max);

/* kxrt_parse: the runtime's records (text, n bytes) into r's launches (for kxrt_run and the
 * tests); file: the compiled file's path (its lines are in_file). 0, or -1 out of memory. */
int kxrt_parse(const char *text, size_t n, const char *file, struct kxrt_result *r);

#endif
