/* cuda_inj.c: what the two injection libraries of `banklab run` share (cuda_inj.h). */
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../base/fmt.h"
#include "../compile/compile.h"
#include "../cuda/cudalib.h"
#include "../sys/sys.h"
#include "cuda_inj.h"

const char *inj_begin(struct inj *in)
{
    static int done;
    if (done)
        return NULL;
    done = 1;
    const char *dir = sys_env("BANKLAB_RUN_DIR");
    if (!dir || !*dir)
        return NULL;
    const char *dbgpath = sys_env("BANKLAB_RUN_DEBUG");
    if (dbgpath && *dbgpath)
        in->dbg = fopen(dbgpath, "a");
    char path[PATH_MAX];
    bl_fmt(path, sizeof path, "%s/results", dir);
    in->fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
    if (in->fd < 0)
        return NULL;
    kwire_hello(in->fd, 0);
    return dir;
}

void inj_dbg(const struct inj *in, const char *fmt, ...)
{
    if (!in->dbg)
        return;
    va_list ap;
    va_start(ap, fmt);
    struct timespec ts; /* wall-clock ms: a log's lines line up with its caller's `date +%s%N` */
    clock_gettime(CLOCK_REALTIME, &ts);
    fprintf(in->dbg, "[%d %.1f] ", (int)getpid(), (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6);
    vfprintf(in->dbg, fmt, ap);
    va_end(ap);
    fflush(in->dbg);
}

void inj_note_msg(const struct inj *in, const struct bl_msg *m, const char *en)
{
    char frame[GPU_KERNEL_TEXT * 2 + 1 + sizeof(struct bl_msg)];
    size_t n = strnlen(en, GPU_KERNEL_TEXT * 2 - 1);
    memcpy(frame, en, n);
    frame[n] = 0;
    if (m && m->id != BL_MSG_NONE) {
        memcpy(frame + n + 1, m, sizeof *m);
        kwire_frame(in->fd, KWIRE_NOTE, frame, n + 1 + sizeof *m);
    } else {
        kwire_frame(in->fd, KWIRE_NOTE, frame, n);
    }
    inj_dbg(in, "note: %.*s\n", (int)n, en);
}

void inj_note(const struct inj *in, int id, ...)
{
    char line[GPU_KERNEL_TEXT * 2];
    struct bl_msg m;
    va_list ap;
    va_start(ap, id);
    bl_msg_vset(&m, line, sizeof line, id, ap);
    va_end(ap);
    inj_note_msg(in, &m, line);
}

int inj_drv_syms(void *lib, struct inj *in, struct bl_err *err)
{
    static const struct ksym ds[] = {
#define S(field, name, opt) {offsetof(struct inj_drv, field), name, opt}
        S(ctx_device, "cuCtxGetDevice", 0), S(dev_attr, "cuDeviceGetAttribute", 0),
        S(dev_name, "cuDeviceGetName", 0), S(dev_uuid, "cuDeviceGetUuid_v2", 1),
        S(func_attr, "cuFuncGetAttribute", 0),
#undef S
    };
    return KSYMS(lib, ds, &in->d, err, -1, KRN_INJECT_SYM_MISSING);
}

int inj_device(struct inj *in, CUdevice *dev)
{
    int major = 0, minor = 0;
    char name[128] = "";
    if (in->d.ctx_device(dev) != CUDA_SUCCESS ||
        in->d.dev_attr(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, *dev) ||
        in->d.dev_attr(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, *dev) ||
        in->d.dev_name(name, sizeof name, *dev))
        return -1;
    in->sm = major * 10 + minor;
    bl_fmt(in->devname, sizeof in->devname, "%s (sm_%d)", name, in->sm);
    return 0;
}

void inj_open_lock(struct inj *in, CUdevice dev)
{
    CUuuid u;
    char key[64];
    struct bl_err err = {0};
    if (!sys_env("BANKLAB_NO_LOCK") && in->d.dev_uuid && in->d.dev_uuid(&u, dev) == CUDA_SUCCESS) {
        devlock_key((const unsigned char *)u.bytes, key, sizeof key);
        if (devlock_open(key, &in->lock, &err))
            in->lock = NULL;
    }
}

int inj_turn(struct inj *in, int wait_ms)
{
    if (!in->lock)
        return 0;
    struct bl_err err = {0};
    enum devlock_status st = devlock_acquire(in->lock, wait_ms, NULL, NULL, &err);
    if (st == DEVLOCK_ERROR) {
        inj_note(in, INJ_WITHOUT_TURNS, &err.why); /* the lock's why, in either language */
        devlock_close(in->lock);
        in->lock = NULL;
    }
    return st == DEVLOCK_OK;
}

void inj_fill_head(const struct inj *in, struct gpu_kernel_result *res, const char *symbol,
                   const unsigned grid[3], const unsigned block[3], CUfunction func, int turn)
{
    if (kdemangle(symbol, res->kernel, sizeof res->kernel))
        bl_fmt(res->kernel, sizeof res->kernel, "%s", symbol);
    bl_fmt(res->lowered, sizeof res->lowered, "%s", symbol);
    bl_fmt(res->device, sizeof res->device, "%s", in->devname);
    bl_fmt(res->arch, sizeof res->arch, "sm_%d", in->sm);
    memcpy(res->grid, grid, sizeof res->grid);
    memcpy(res->block, block, sizeof res->block);
    if (func) {
        in->d.func_attr(&res->regs, CU_FUNC_ATTRIBUTE_NUM_REGS, func);
        in->d.func_attr(&res->static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, func);
    }
    if (!in->lock)
        bl_msg_set(&res->lock_msg, res->lock_note, sizeof res->lock_note, KRN_LOCK_NONE);
    else if (!turn)
        bl_msg_set(&res->lock_msg, res->lock_note, sizeof res->lock_note, KRN_LOCK_WAITED,
                   TURN_WAIT_MS / 1000);
}

void inj_send(const struct inj *in, struct gpu_kernel_result *res, long ordinal, long nth)
{
    int32_t which[2] = {(int32_t)ordinal, (int32_t)nth};
    kwire_frame(in->fd, KWIRE_LAUNCH, which, sizeof which);
    if (in->fd >= 0)
        kwire_put_result(in->fd, res);
    gpu_kernel_result_done(res);
    free(res);
}
