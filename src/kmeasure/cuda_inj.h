/* cuda_inj.h: what the two injection libraries of `banklab run` share, cuda_inject.c (the CUPTI
 * route, libbanklab_inject.so) and san_inject.c (the sanitizer route,
 * libbanklab_sanitize.so): the results file and its notes, the debug log, the device's name
 * and turns, a measured launch's head and its frames. Compiled into each library (the
 * Makefile's INJECT_SRC and SANITIZE_SRC); not for use outside them. */
#ifndef BANKLAB_CUDA_INJ_H
#define BANKLAB_CUDA_INJ_H

#include <stdio.h>

#include <cuda.h>

#include "../base/err.h"
#include "../devlock/devlock.h"
#include "../kernel/kernel.h"

/* how long a measured launch waits for the device's turn (then runs without it) */
#define TURN_WAIT_MS 30000

struct inj_drv {               /* the driver's calls both libraries make (inj_drv_syms) */
    CUresult (*ctx_device)(CUdevice *);
    CUresult (*dev_attr)(int *, CUdevice_attribute, CUdevice);
    CUresult (*dev_name)(char *, int, CUdevice);
    CUresult (*dev_uuid)(CUuuid *, CUdevice);                      /* optional */
    CUresult (*func_attr)(int *, CUfunction_attribute, CUfunction);
};

struct inj {
    int fd;                    /* the results file (BANKLAB_RUN_DIR/results); -1: none */
    FILE *dbg;                 /* BANKLAB_RUN_DEBUG: a log of the callbacks, or NULL */
    struct inj_drv d;
    int sm;                    /* the device's compute capability, major * 10 + minor */
    char devname[GPU_KERNEL_TEXT];
    struct devlock *lock;      /* the device's turns (devlock.h), or NULL */
};

/* inj_begin: once in a process (InitializeInjection's first call), the directory
 * BANKLAB_RUN_DIR names, with the debug log (BANKLAB_RUN_DEBUG) and the directory's results file
 * opened into in and the hello frame written. NULL when called before, when BANKLAB_RUN_DIR is
 * unset, or when the results file cannot be opened (not ours to write: the library then stays
 * out of the way). */
const char *inj_begin(struct inj *in);

/* inj_dbg: a line "[PID] ..." to the debug log, when there is one. */
void inj_dbg(const struct inj *in, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* inj_note: the message id (its arguments follow, as for bl_msg_set) as a NOTE frame to the
 * results file (its English text, a NUL, the message: banklab run shows it in the reader's
 * language, its JSON the English), and to the debug log. inj_note_msg: m, whose English text
 * is en (NULL: en is all there is, e.g. the "replay:" notes banklab run reads). */
void inj_note(const struct inj *in, int id, ...);
void inj_note_msg(const struct inj *in, const struct bl_msg *m, const char *en);

/* inj_drv_syms: in->d from libcuda (lib). 0, or -1 with err filled. */
int inj_drv_syms(void *lib, struct inj *in, struct bl_err *err);

/* inj_device: the current context's device into *dev, in->sm and in->devname. 0, or -1 when
 * the driver cannot tell. */
int inj_device(struct inj *in, CUdevice *dev);

/* inj_open_lock: the device's turns (devlock.h) into in->lock, unless BANKLAB_NO_LOCK is set or
 * the device has no UUID to name them by (in->lock stays NULL). */
void inj_open_lock(struct inj *in, CUdevice dev);

/* inj_turn: wait at most wait_ms for the device's turn; 1 when it is ours. A lock that cannot
 * be used (damaged, or its header held by another program: devlock_acquire's DEVLOCK_ERROR)
 * is dropped with a note, and the launches are measured without turns from then on; a turn
 * that did not come in time is 0 (that launch runs without it). */
int inj_turn(struct inj *in, int wait_ms);

/* inj_fill_head: a measured launch's head into res: the kernel (symbol, demangled), the device,
 * grid, block, the function's registers and static shared memory, and why it ran without the
 * device's turn when it did (turn 0). */
void inj_fill_head(const struct inj *in, struct gpu_kernel_result *res, const char *symbol,
                   const unsigned grid[3], const unsigned block[3], CUfunction func, int turn);

/* inj_send: the frames of a measured launch (the program's launch ordinal, the kernel's nth
 * launch, then the result) to the results file; res is freed. */
void inj_send(const struct inj *in, struct gpu_kernel_result *res, long ordinal, long nth);

#endif
