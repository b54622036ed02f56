/* cuda_request.c: the measuring process of `banklab kernel` (CUDA build), one request from
 * start to end: which kernel, compiled (compile/cuda_nvrtc.c) with its log, its parameters bound
 * to --arg and buffers, the device's turn taken, then the launch (kmeasure/cuda_launch.c) with CUPTI's
 * SASS metrics per instruction or the range profiler's counters (kmeasure/cuda_sass.c), on the state
 * kept between requests (kmeasure/cuda_state.c: driver, device, context, CUPTI). A fault ends this
 * process, never the caller's. No curses, no cJSON; never prints (except the debug log
 * BANKLAB_KERNEL_DEBUG). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../base/utf8.h"
#include "cuda_state.h"
#include "../devlock/devlock.h"
#include "kmeasure.h"
#include "../compile/compile.h"

#define DEFAULT_ARCH 90                  /* compile target without a GPU (the H200's) */
#define TURN_WAIT_MS 30000               /* the longest wait for the device's turn */

void kstate_prepare(struct kstate *st, struct gpu_kernel_result *res)
{
    struct bl_err why = {0};
    if (!st->have_gpu || kstate_context(st, res) || kstate_cupti(st))
        return;
    if (ksass_resolve(st, &why))
        kdbg(st->dbg, "prepare: %s\n", why.msg);
}

/* Which kernel: --name, or the only __global__ of the file. Sets name_expr or name_err. */
static void choose_kernel(struct child *ch)
{
    const char *want = ch->req->name;
    ksrc_find_kernels(ch->src, ch->len, ch->kernels, KSRC_MAX_KERNELS, &ch->nkernels);
    char list[160] = "";
    for (int i = 0; i < ch->nkernels; i++) {
        size_t l = strlen(list);
        if (l + strlen(ch->kernels[i].name) + 8 >= sizeof list) {
            snprintf(list + l, sizeof list - l, "%s...", l ? ", " : "");
            break;
        }
        snprintf(list + l, sizeof list - l, "%s%s", l ? ", " : "", ch->kernels[i].name);
    }
    if (!want[0]) {
        if (ch->nkernels == 0) {
            bl_fail(&ch->name_err, GPU_KERNEL_EINPUT, BL_NOWHERE, KRN_NO_GLOBAL, ch->req->path);
            return;
        }
        if (ch->nkernels > 1) {
            bl_fail(&ch->name_err, GPU_KERNEL_EINPUT, BL_NOWHERE, KRN_WHICH_KERNEL, ch->req->path,
                    ch->nkernels, list);
            return;
        }
        ch->kernel = &ch->kernels[0];
    } else {
        char base[GPU_KERNEL_TEXT];
        ksrc_base_name(want, base, sizeof base);
        for (int i = 0; i < ch->nkernels && !ch->kernel; i++) {
            const char *full = ch->kernels[i].name, *colon = strrchr(full, ':');
            if (!strcmp(full, base) || (colon && !strcmp(colon + 1, base)))
                ch->kernel = &ch->kernels[i];
        }
        if (!ch->kernel) {
            bl_fail(&ch->name_err, GPU_KERNEL_EINPUT, BL_NOWHERE,
                    ch->nkernels ? KRN_NO_SUCH_KERNEL : KRN_NO_SUCH_KERNEL_NONE, base,
                    ch->req->path, list);
            return;
        }
    }
    if (ch->kernel->is_template && !strchr(want, '<')) {
        bl_fail(&ch->name_err, GPU_KERNEL_EINPUT, BL_NOWHERE, KRN_TEMPLATE, ch->kernel->name,
                ch->kernel->name);
        ch->kernel = NULL;
        return;
    }
    if (want[0] && strchr(want, '<') && !strstr(want, "::")) {
        /* an instance: the file's namespaces, then the name as given (k<float4>) */
        const char *last = strrchr(ch->kernel->name, ':');
        size_t prefix = last ? (size_t)(last + 1 - ch->kernel->name) : 0;
        bl_fmt(ch->name_expr, sizeof ch->name_expr, "%.*s%s", (int)prefix, ch->kernel->name, want);
    } else {
        bl_fmt(ch->name_expr, sizeof ch->name_expr, "%s",
              strstr(want, "::") ? want : ch->kernel->name);
    }
    bl_fmt(ch->res->kernel, sizeof ch->res->kernel, "%s", want[0] ? want : ch->kernel->name);
}

/* Compile errors and warnings into the result; 1 when there were errors. */
static int take_log(struct child *ch)
{
    struct gpu_kernel_diag *diags = NULL;
    int n = 0, nerr = 0;
    if (ksrc_parse_log(ch->comp.log, ch->req->path, &diags, &n, &nerr)) {
        bl_fail(&ch->res->err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, GPU_OUT_OF_MEMORY);
        return 1;
    }
    for (int i = 0; i < n; i++) /* NVRTC names the file as we named it: show the user's path */
        if (!strcmp(diags[i].file, ch->realpath))
            snprintf(diags[i].file, sizeof diags[i].file, "%s", ch->req->path);
    ch->res->diags = diags;
    ch->res->ndiags = n;
    if (!ch->comp.ok && nerr == 0 && ch->kernel && ch->kernel->nall > KSRC_MAX_PARAMS) {
        bl_fail(&ch->res->err, GPU_KERNEL_ECOMPILE, BL_NOWHERE, KRN_NO_COMPILE_PARAMS,
                ch->req->path, ch->kernel->name, ch->kernel->nall);
        return 1;
    }
    if (!ch->comp.ok && nerr == 0) {
        bl_fail(&ch->res->err, GPU_KERNEL_ECOMPILE, BL_NOWHERE, KRN_NO_COMPILE_SILENT,
                ch->req->path);
        return 1;
    }
    if (nerr) {
        bl_fail(&ch->res->err, GPU_KERNEL_ECOMPILE, BL_NOWHERE,
                nerr == 1 ? KRN_COMPILE_ERROR : KRN_COMPILE_ERRORS, ch->req->path, nerr);
        return 1;
    }
    return 0;
}

/* Parameters: pointers get buffers, scalars their --arg; every --arg and --buffer-size
 * NAME must name a parameter. Values go to ch->scalars; buffer sizes to ch->buf_size. */
static int bind_params(struct child *ch)
{
    const struct ksrc_kernel *k = ch->kernel;
    const struct gpu_kernel_request *req = ch->req;
    if (ksrc_check_args(k, req, &ch->res->err))
        return -1;
    for (int b = 0; b < req->nbufs; b++) {
        int found = 0;
        for (int i = 0; i < k->nparams; i++)
            found |= !strcmp(k->params[i].name, req->bufs[b].name) &&
                     k->params[i].kind == KSRC_POINTER;
        if (!found)
            return bl_fail(&ch->res->err, GPU_KERNEL_EINPUT, BL_NOWHERE, KRN_NO_POINTER_PARAM,
                           req->bufs[b].name, k->name, req->bufs[b].name);
    }
    for (int i = 0; i < k->nparams; i++) {
        if (k->params[i].kind == KSRC_POINTER)
            ch->buf_size[i] = ksrc_buffer_bytes(k, i, req);
        else if (ksrc_scalar_arg(k, i, req, ch->scalars[i], &ch->res->err))
            return -1;
    }
    return 0;
}

static void dump_cubin(struct child *ch)
{
    char cub[PATH_MAX];
    bl_fmt(cub, sizeof cub, "%s.%.64s.cubin", ch->st->dbgpath, ch->comp.lowered);
    FILE *f = fopen(cub, "wb");
    if (f) {
        fwrite(ch->comp.cubin, 1, ch->comp.cubin_size, f);
        fclose(f);
    }
}

/* take_turn: wait for the device's turn before the kernel runs (the job shows "waiting for
 * the GPU"); 0 when ours or when there are no turns to take, -1 with the reason in the
 * result when the turn did not come. */
static int take_turn(struct child *ch)
{
    struct kstate *st = ch->st;
    if (!st->lock)
        return 0;
    kchild_phase(ch, GPU_KPHASE_WAIT);
    struct bl_err err = {0};
    double t0 = bl_now_ms();
    enum devlock_status s = devlock_acquire(st->lock, TURN_WAIT_MS, NULL, NULL, &err);
    ch->res->timing.wait = bl_now_ms() - t0;
    if (s == DEVLOCK_OK)
        return 0;
    if (s == DEVLOCK_TIMEOUT)
        return bl_fail(&ch->res->err, GPU_KERNEL_ELAUNCH, BL_NOWHERE, KRN_TURN_TIMEOUT,
                       TURN_WAIT_MS / 1000);
    devlock_close(st->lock); /* a damaged lock file: measure without turns, and say so */
    st->lock = NULL;
    bl_msg_set(&st->lock_msg, st->lock_note, sizeof st->lock_note, KRN_LOCK_FAILED, &err.why);
    return 0;
}

/* in_turn: fn(ch) while holding the device's turn. */
static void in_turn(struct child *ch, int (*fn)(struct child *))
{
    if (take_turn(ch))
        return;
    fn(ch);
    devlock_release(ch->st->lock);
}

static int counters_turn(struct child *ch)
{
    kcounters_measure(ch);
    return 0;
}

static void request(struct child *ch)
{
    struct kstate *st = ch->st;
    const struct gpu_kernel_request *req = ch->req;
    struct gpu_kernel_result *res = ch->res;
    memcpy(res->grid, req->grid, sizeof res->grid);
    memcpy(res->block, req->block, sizeof res->block);
    res->smem = req->smem;
    if (st->have_gpu)
        bl_fmt(res->device, sizeof res->device, "%s", st->name);
    knvcc_where(req->path, ch->realpath, sizeof ch->realpath, ch->dir, sizeof ch->dir);
    /* NVRTC's messages and line info name the program: a name with a newline or an escape
     * in it would split or drive what shows them, so it gets the escaped name (-I keeps dir) */
    bl_fmt(ch->rawpath, sizeof ch->rawpath, "%s", ch->realpath); /* what nvcc reads */
    char named[sizeof ch->realpath];
    bl_clean(named, sizeof named, ch->realpath);
    bl_fmt(ch->realpath, sizeof ch->realpath, "%s", named);
    if (req->device != st->device) {
        bl_fail(&ch->res->err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, KRN_SERVER_WRONG_DEVICE, st->device,
                req->device);
        return;
    }

    kchild_phase(ch, GPU_KPHASE_COMPILE);
    choose_kernel(ch);
    int arch = st->have_gpu ? st->sm : DEFAULT_ARCH;
    bl_fmt(res->arch, sizeof res->arch, "sm_%d", arch);
    struct kcompile_in in = {ch->src, ch->len, ch->realpath, ch->dir,
                             ch->name_expr[0] ? ch->name_expr : NULL, arch, req->cache_dir, st->dbg,
                             NULL, req->nflags, req->flags, ch->rawpath,
                             req->time_limit + 1, NULL, 0, 0};
    char nvcc[PATH_MAX];
    if (req->compiler != GPU_COMPILER_NVRTC) { /* nvcc when there is one (compile/nvcc.c) */
        if (knvcc_find(nvcc, sizeof nvcc) == 0)
            in.nvcc = nvcc;
        else if (req->compiler == GPU_COMPILER_NVCC) {
            bl_fail(&ch->res->err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, KRN_NO_NVCC);
            return;
        }
    }
    double t0 = bl_now_ms();
    int rc = kcompile(st->rtc, &in, &ch->comp, &res->timing.cache_hit, &res->err);
    res->timing.compile = bl_now_ms() - t0;
    if (rc || take_log(ch))
        return;
    if (bl_err_failed(&ch->name_err)) {
        res->err = ch->name_err;
        return;
    }
    bl_fmt(res->lowered, sizeof res->lowered, "%s", ch->comp.lowered);
    if (st->dbg)
        dump_cubin(ch);
    if (bind_params(ch))
        return;
    if (!st->have_gpu) {
        bl_fail(&ch->res->err, GPU_KERNEL_ENOGPU, BL_NOWHERE, KRN_COMPILES_NEEDS_GPU, req->path,
                DEFAULT_ARCH, st->nogpu.msg);
        return;
    }
    kchild_phase(ch, GPU_KPHASE_SETUP);
    if (kstate_context(st, res) || klaunch_setup(ch))
        return;
    if (st->lock_note[0]) {
        bl_fmt(res->lock_note, sizeof res->lock_note, "%s", st->lock_note);
        res->lock_msg = st->lock_msg;
    }
    if (req->launch_only) {
        t0 = bl_now_ms();
        in_turn(ch, klaunch_run);
        if (res->err.status == GPU_KERNEL_OK)
            res->timing.run = bl_now_ms() - t0;
        return;
    }
    if (req->counters_only) { /* --counters: the range profiler, alone in its process */
        if (st->sass_used) {
            bl_fail(&ch->res->err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, KRN_RANGE_OWN_PROCESS);
            return;
        }
        st->sass_used = 1; /* and this process takes no other request */
        in_turn(ch, counters_turn);
        if (!ch->res->has_counters && ch->res->err.status == GPU_KERNEL_OK) {
            bl_fail(&res->err, GPU_KERNEL_ECOUNTERS, BL_NOWHERE, BL_TEXT, res->counters_note);
            if (res->counters_msg.id != BL_MSG_NONE)   /* the note's message, for either language */
                res->err.why = res->counters_msg;
        }
        return;
    }
    in_turn(ch, ksass_measure);
}

void kstate_measure(struct kstate *st, const struct gpu_kernel_request *req, const char *src,
                    size_t len, struct gpu_kernel_result *res, int fd)
{
    struct child *ch = malloc(sizeof *ch);
    if (!ch) {
        bl_fail(&res->err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, GPU_OUT_OF_MEMORY);
        return;
    }
    *ch = (struct child){.st = st, .req = req, .src = src, .len = len, .res = res, .fd = fd};
    request(ch);
    res->phase = res->err.status == GPU_KERNEL_OK ? GPU_KPHASE_DONE : ch->phase;
    if (!st->dead) { /* a server takes the next request in a clean context */
        for (int i = 0; i < KSRC_MAX_PARAMS; i++)
            if (ch->bufs[i])
                st->d.mem_free(ch->bufs[i]);
        if (ch->module)
            st->d.module_unload(ch->module);
    }
    compiled_done(&ch->comp);
    free(ch);
}
