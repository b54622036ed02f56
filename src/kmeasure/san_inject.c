/* san_inject.c: the sanitizer route of `banklab run` (build/libbanklab_sanitize.so): the CUDA
 * driver loads it into an unmodified program through CUDA_INJECTION64_PATH and calls
 * InitializeInjection. It subscribes to the Compute Sanitizer's callbacks: every module the
 * program loads is patched (shared ld/st/atomics, ldmatrix/stmatrix, cp.async call the
 * device functions of banklab_patch.fatbin, BANKLAB_SANITIZE_PATCH), and every selected
 * launch (the first of each kernel, or --kernel REGEX, --launch-skip, --launch-count, as the
 * CUPTI route selects them) gets a zeroed table (table.h) as callback data; after the launch
 * the table is copied back, its pcs made offsets into the kernel's code, each instruction's
 * figures and patterns checked against the model (table.c), decoded and mapped to lines as
 * CUPTI's route does (cuda_sassm.c), and written as frames (kernel_wire.c) to
 * BANKLAB_RUN_DIR/results; the patterns go to BANKLAB_RUN_DIR/patterns. It holds no
 * performance counter; a measured launch takes the device's turn (devlock.h) so that the class
 * server's timings and this run do not disturb each other. Never prints: a problem is a NOTE
 * frame. Built only where the toolkit has compute-sanitizer/include (the GPU machine). */
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <regex.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda.h>
#include <sanitizer.h>

#include "../compile/compile.h"
#include "../cuda/cudalib.h"
#include "../devlock/devlock.h"
#include "../sanitize/sanitize.h"
#include "cuda_inj.h"
#include "cuda_sassm.h"
#include "cuda_state.h"
#include "pick.h"
#include "../sys/sys.h"

/* A program's measured launches that come close together share one turn: it is kept after a
 * launch until TURN_IDLE_MS pass without the next, and at most TURN_SLICE_MS in all (then the
 * next launch queues again behind the class); a program of many short kernels then waits for
 * the device once, not once a kernel, and the class waits at most a slice. The first turn is
 * taken before the program's context is made: its set-up on the device (the context, every
 * module loaded and patched) then neither runs beside the class's measured kernels nor waits
 * behind them; it is held through that set-up (no idle rule until the first launch ends), at
 * most TURN_SLICE_MS. */
#define TURN_IDLE_MS 30
#define TURN_SLICE_MS 250
#define MAX_MODULES 4096
#define MAX_CTX 64

struct module {
    CUmodule mod;
    unsigned char *cubin;
    size_t size;
};

struct ctxbuf {
    CUcontext ctx;
    struct san_table *dev;     /* the launch table in this context (sanitizerAlloc) */
    int patches;               /* banklab_patch.fatbin added */
};

struct san_drv {               /* beyond the calls of struct inj_drv */
    CUresult (*func_module)(CUmodule *, CUfunction); /* optional: cuFuncGetModule */
};

static struct {
    pthread_mutex_t mu;        /* modules, contexts, counts, the one measured launch */
    struct inj in;             /* the results file, the debug log, the device (cuda_inj.h) */
    FILE *pat;                 /* the patterns file */
    int broken;
    const char *patch;         /* banklab_patch.fatbin */
    struct cupti c;            /* for CUPTI's SASS-to-source correlation only */
    int have_cupti;
    struct san_drv d;
    Sanitizer_SubscriberHandle sub;
    struct kpick pick;         /* which launches (pick.h) */
    long measured;
    struct module mods[MAX_MODULES];
    int nmods;
    struct ctxbuf ctxs[MAX_CTX];
    int nctx;
    int held;                  /* the device's turn is ours (across launches: TURN_IDLE_MS) */
    double held_t0, last_end;  /* when it was taken; when the last measured launch ended */
    int keeper;                /* turn_keeper runs */
    int setup;                 /* the turn was taken for the context's set-up: no launch yet */
    int lock_tried;
    struct san_table *host;    /* the copy of a launch's table */
} G = {.mu = PTHREAD_MUTEX_INITIALIZER, .in.fd = -1};

/* The selected launch in flight (launch begin and end come on the launching thread). */
static __thread struct {
    int selected;
    long ordinal, nth;
    char symbol[8192];         /* the mangled name, whole: a template's runs to kilobytes */
    unsigned grid[3], block[3];
    CUfunction func;
    CUmodule mod;
    struct ctxbuf *cb;
    int turn;
    double t0;
} T;

/* the notes of this library (cuda_inj.h) */
#define note(...) inj_note(&G.in, __VA_ARGS__)

static void san_note(SanitizerResult r, const char *call)
{
    const char *s = NULL;
    if (sanitizerGetResultString(r, &s) != SANITIZER_SUCCESS || !s)
        s = "unknown error";
    note(INJ_CALL_FAILED, call, s, (int)r);
}

/* ---- modules and contexts ---- */

static struct ctxbuf *ctx_of(CUcontext ctx)
{
    for (int i = 0; i < G.nctx; i++)
        if (G.ctxs[i].ctx == ctx)
            return &G.ctxs[i];
    if (G.nctx == MAX_CTX)
        return NULL;
    struct ctxbuf *b = &G.ctxs[G.nctx++];
    memset(b, 0, sizeof *b);
    b->ctx = ctx;
    return b;
}

static void module_loaded(const Sanitizer_ResourceModuleData *md)
{
    pthread_mutex_lock(&G.mu);
    struct ctxbuf *b = ctx_of(md->context);
    SanitizerResult r = SANITIZER_SUCCESS;
    if (b && !b->patches) {
        r = sanitizerAddPatchesFromFile(G.patch, md->context);
        if (r != SANITIZER_SUCCESS) {
            san_note(r, "sanitizerAddPatchesFromFile");
            G.broken = 1;
        }
        b->patches = 1;
    }
    if (!G.broken) {
        r = sanitizerPatchInstructions(SANITIZER_INSTRUCTION_SHARED_MEMORY_ACCESS, md->module,
                                       "bl_shared_access");
        if (r == SANITIZER_SUCCESS)
            r = sanitizerPatchInstructions(SANITIZER_INSTRUCTION_MATRIX_MEMORY_ACCESS, md->module,
                                           "bl_matrix_access");
        if (r == SANITIZER_SUCCESS)
            r = sanitizerPatchInstructions(SANITIZER_INSTRUCTION_MEMCPY_ASYNC, md->module,
                                           "bl_memcpy_async");
        if (r == SANITIZER_SUCCESS)
            r = sanitizerPatchModule(md->module);
        if (r != SANITIZER_SUCCESS) {
            san_note(r, "sanitizerPatchModule");
            G.broken = 1;
        }
    }
    if (G.nmods < MAX_MODULES && md->pCubin && md->cubinSize && md->cubinSize < (512u << 20)) {
        struct module *m = &G.mods[G.nmods];
        m->cubin = malloc(md->cubinSize);
        if (m->cubin) {
            memcpy(m->cubin, md->pCubin, md->cubinSize);
            m->size = md->cubinSize;
            m->mod = md->module;
            G.nmods++;
        }
    }
    pthread_mutex_unlock(&G.mu);
}

static const struct module *module_cubin(CUmodule mod, const char *symbol)
{
    const struct module *any = NULL;
    for (int i = G.nmods - 1; i >= 0; i--) {
        const uint8_t *code;
        size_t size;
        if (sass_function_code(G.mods[i].cubin, G.mods[i].size, symbol, &code, &size))
            continue;
        if (G.mods[i].mod == mod)
            return &G.mods[i];
        if (!any)
            any = &G.mods[i];
    }
    return any;
}

/* ---- which launches (as the CUPTI route: cuda_inject.c) ---- */

static int select_launch(const char *symbol)
{
    int replay;
    return kpick_launch(&G.pick, symbol, &T.ordinal, &T.nth, &replay);
}

static void device_facts(void)
{
    if (G.in.sm)
        return;
    CUdevice dev;
    if (inj_device(&G.in, &dev))
        return;
    if (!G.lock_tried)
        inj_open_lock(&G.in, dev);
    G.lock_tried = 1;
}

/* ---- a launch ---- */

/* (G.mu held) wait for the device's turn, for what (a kernel's symbol, "a context") */
static void take_turn(const char *what)
{
    double w0 = bl_now_ms();
    G.held = inj_turn(&G.in, TURN_WAIT_MS);
    G.held_t0 = bl_now_ms();
    inj_dbg(&G.in, "turn: %s after %.1f ms (%s)\n", G.held ? "taken" : "not taken",
            G.held_t0 - w0, what);
}

static void launch_begin(const Sanitizer_LaunchData *ld)
{
    T.selected = 0;
    pthread_mutex_lock(&G.mu);
    int sel = !G.broken && ld->functionName && select_launch(ld->functionName);
    struct ctxbuf *b = sel ? ctx_of(ld->context) : NULL;
    if (b && !b->dev) {
        SanitizerResult r = sanitizerAlloc(ld->context, (void **)&b->dev, sizeof(struct san_table));
        if (r != SANITIZER_SUCCESS) {
            san_note(r, "sanitizerAlloc");
            b->dev = NULL;
        }
    }
    if (!b || !b->dev) {
        pthread_mutex_unlock(&G.mu);
        sanitizerSetLaunchCallbackData(ld->hLaunch, ld->function, ld->hStream, NULL);
        return;
    }
    device_facts();
    T.selected = 1; /* G.mu stays held until launch_end: one measured launch at a time */
    T.cb = b;
    T.func = ld->function;
    T.mod = ld->module;
    bl_fmt(T.symbol, sizeof T.symbol, "%s", ld->functionName);
    T.grid[0] = ld->gridDim_x, T.grid[1] = ld->gridDim_y, T.grid[2] = ld->gridDim_z;
    T.block[0] = ld->blockDim_x, T.block[1] = ld->blockDim_y, T.block[2] = ld->blockDim_z;
    if (G.in.lock) {
        if (G.held && bl_now_ms() - G.held_t0 > TURN_SLICE_MS) {
            devlock_release(G.in.lock); /* the slice is over: queue again behind the class */
            G.held = 0;
        }
        if (!G.held)
            take_turn(T.symbol);
        else
            inj_dbg(&G.in, "turn: kept (%s)\n", T.symbol);
    }
    T.turn = G.held;
    sanitizerMemset(b->dev, 0, sizeof(struct san_table), ld->hStream);
    sanitizerSetLaunchCallbackData(ld->hLaunch, ld->function, ld->hStream, b->dev);
    T.t0 = bl_now_ms();
}

/* The table's warps (the worst and the distinct patterns of each instruction) into res. */
static void keep_patterns(struct gpu_kernel_result *res, uint64_t pc0, uint64_t size)
{
    static const int op_of[] = {GPU_KOP_LD, GPU_KOP_ST, GPU_KOP_ATOM, GPU_KOP_LDSM, GPU_KOP_STSM,
                                GPU_KOP_LDGSTS};
    int n = 0;
    for (int i = 0; i < SAN_PCS; i++)
        if (G.host->pc[i].pc && G.host->pc[i].pc - 1 >= pc0 && G.host->pc[i].pc - 1 - pc0 < size)
            n += SAN_WORST_ALT + 1;
    res->pats = calloc(n ? (size_t)n : 1, sizeof *res->pats);
    if (!res->pats)
        return;
    for (int i = 0; i < SAN_PCS; i++) {
        const struct san_pc *e = &G.host->pc[i];
        if (!e->pc || e->pc - 1 < pc0 || e->pc - 1 - pc0 >= size)
            continue;
        for (int k = 0; k <= SAN_WORST_ALT; k++) {
            const struct san_pat *p = &e->pat[k];
            if (!p->key || !p->ready || p->kind > SAN_CPASYNC || !p->width || p->width > 16)
                continue;
            struct gpu_kernel_pattern *q = &res->pats[res->npats++];
            q->pc = (uint32_t)(e->pc - 1 - pc0);
            q->slot = k == SAN_WORST ? -1 : k == SAN_WORST_ALT ? -2 : k; /* -2: one_worst */
            q->count = k >= SAN_WORST ? 0 : p->count;
            q->wavefronts = p->wavefronts;
            q->wavefronts_each = p->kind == SAN_ATOM ? p->wavefronts_alt : p->wavefronts;
            q->op = op_of[p->kind];
            q->width = p->width;
            q->matrices = p->matrices;
            q->mask = p->mask;
            memcpy(q->block, p->block, sizeof q->block);
            q->warp = p->warp;
            memcpy(q->addr, p->addr, sizeof q->addr);
            memcpy(q->src, p->src, sizeof q->src);
        }
    }
}

/* The instructions whose SASS names the other rule the device callbacks summed beside the
 * first (table.h's wavefronts_alt) take its figure: an atomic that serves every lane on its own
 * (ATOMS, ATOMS.CAS: measured on an H100, 32 lanes on one word took 32 wavefronts; one that
 * serves the lanes on a word together, ATOMS.POPC.INC, keeps the store's), and cp.async.cg
 * (LDGSTS.BYPASS: .cg's rule, docs/model.md), whose kept warps take it too. */
static void other_rule(struct gpu_kernel_result *res, const struct san_row *rows, int n,
                       uint64_t pc0)
{
    int moved = 0;
    for (int i = 0; i < res->ninsts; i++) {
        struct gpu_kernel_inst *in = &res->insts[i];
        int atom = sass_each_lane(in->op, in->sass), cg = sass_cg(in->sass);
        if (!atom && !cg)
            continue;
        for (int k = 0; k < n; k++)
            if (rows[k].pc == in->pc && (rows[k].wavefronts_alt != in->wavefronts ||
                                         (cg && rows[k].ideal_alt != in->ideal))) {
                in->wavefronts = rows[k].wavefronts_alt;
                if (cg) /* .cg's ideal is its chunks' bytes (an atomic's stays its passes) */
                    in->ideal = rows[k].ideal_alt;
                moved = 1;
            }
        for (int k = 0; atom && k < res->npats; k++) /* a kept warp's figure is its rule's too */
            if (res->pats[k].pc == in->pc)
                res->pats[k].wavefronts = res->pats[k].wavefronts_each;
        for (int k = 0; cg && k < res->npats; k++) {
            struct gpu_kernel_pattern *q = &res->pats[k];
            for (int e = 0; q->pc == in->pc && e < SAN_PCS; e++)
                if (G.host->pc[e].pc && G.host->pc[e].pc - 1 - pc0 == q->pc)
                    q->wavefronts = G.host->pc[e].pat[q->slot == -1 ? SAN_WORST
                                                      : q->slot == -2 ? SAN_WORST_ALT : q->slot]
                                        .wavefronts_alt;
        }
    }
    if (moved)
        kres_build_lines(res);
}

/* One worst warp for each instruction: the costliest by the rule its SASS names. The device
 * kept two for an atomic and a 16-byte cp.async (table.h's SAN_WORST, SAN_WORST_ALT: slots -1
 * and -2 here); an instruction of the other rule (ATOMS, ATOMS.CAS; LDGSTS.BYPASS) keeps the
 * second as its worst, any other the first. */
static void one_worst(struct gpu_kernel_result *res)
{
    int out = 0;
    for (int k = 0; k < res->npats; k++) {
        struct gpu_kernel_pattern q = res->pats[k];
        if (q.slot < 0) {          /* an instruction's patterns stand together (keep_patterns) */
            int alt = 0, has_alt = q.slot == -1 && k + 1 < res->npats &&
                                   res->pats[k + 1].pc == q.pc && res->pats[k + 1].slot == -2;
            for (int i = 0; i < res->ninsts; i++)
                if (res->insts[i].pc == q.pc)
                    alt = sass_each_lane(res->insts[i].op, res->insts[i].sass) ||
                          sass_cg(res->insts[i].sass);
            if ((q.slot == -2 && !alt) || (q.slot == -1 && alt && has_alt))
                continue;
            q.slot = -1;
        }
        res->pats[out++] = q;
    }
    res->npats = out;
}

/* The copied table into res (G.mu held). */
static void table_result(struct gpu_kernel_result *res, double t_run)
{
    uint64_t pc0 = 0, size = 0;
    SanitizerResult r = sanitizerGetFunctionPcAndSize(T.mod, T.symbol, &pc0, &size);
    /* a kernel of a library (cuLibraryLoad, CUDA's lazy loading) may name another module at
     * launch than the one it was loaded in: try each module whose cubin holds the symbol */
    for (int i = G.nmods - 1; i >= 0 && r != SANITIZER_SUCCESS; i--) {
        const uint8_t *code;
        size_t n;
        if (G.mods[i].mod != T.mod &&
            !sass_function_code(G.mods[i].cubin, G.mods[i].size, T.symbol, &code, &n) &&
            sanitizerGetFunctionPcAndSize(G.mods[i].mod, T.symbol, &pc0, &size) ==
                SANITIZER_SUCCESS) {
            T.mod = G.mods[i].mod;
            r = SANITIZER_SUCCESS;
        }
    }
    /* the driver's own answer: the module the launched function belongs to */
    CUmodule fm = NULL;
    if (r != SANITIZER_SUCCESS && T.func && G.d.func_module &&
        G.d.func_module(&fm, T.func) == CUDA_SUCCESS && fm && fm != T.mod &&
        sanitizerGetFunctionPcAndSize(fm, T.symbol, &pc0, &size) == SANITIZER_SUCCESS) {
        T.mod = fm;
        r = SANITIZER_SUCCESS;
    }
    if (r != SANITIZER_SUCCESS) {
        note(INJ_SAN_NO_FUNCTION, T.symbol, (unsigned long long)(uintptr_t)T.mod,
             (unsigned long long)(uintptr_t)fm, G.nmods);
        bl_fail(&res->err, GPU_KERNEL_ECOUNTERS, BL_NOWHERE, KRN_CALL_FAILED,
                "sanitizerGetFunctionPcAndSize", "not found");
        return;
    }
    struct san_row rows[SAN_PCS];
    struct san_check chk;
    int n = san_table_rows(G.host, pc0, size, rows, SAN_PCS, &chk);
    if (G.pat)
        san_write_patterns(G.pat, T.symbol, T.ordinal, G.host, pc0, size);
    keep_patterns(res, pc0, size);
    if (chk.mismatch)
        note(INJ_SAN_MISMATCH, chk.mismatch, chk.patterns, T.symbol, chk.first_pc);
    if (chk.outside)
        note(INJ_SAN_OUTSIDE, (unsigned long long)chk.outside, T.symbol);
    if (G.host->overflow)
        note(INJ_SAN_OVERFLOW, T.symbol, SAN_PCS, G.host->overflow);
    struct sassm_run sr = {0};
    sr.rows = calloc(n ? (size_t)n : 1, sizeof *sr.rows);
    if (!sr.rows) {
        bl_fail(&res->err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, GPU_OUT_OF_MEMORY);
        return;
    }
    for (int i = 0; i < n; i++) {
        struct sassm_row *row = &sr.rows[sr.nrows++];
        row->pc = rows[i].pc;
        row->inst[rows[i].op] = rows[i].inst;
        row->wf = rows[i].wavefronts;
        row->ideal = rows[i].ideal;
    }
    sr.caprows = sr.nrows;
    struct sassm_cfg cfg = {.configured = 1, .have_ideal = 1};
    kres_add_file(res, "?");
    const struct module *m = module_cubin(T.mod, T.symbol);
    if (!m) {
        bl_fail(&res->err, GPU_KERNEL_ECOUNTERS, BL_NOWHERE, KRN_CUBIN_NOT_SEEN, T.symbol);
    } else {
        struct sassm_code code = {m->cubin, m->size, T.symbol, G.in.sm, NULL, NULL, NULL};
        if (sassm_build(G.have_cupti ? &G.c : NULL, &code, &cfg, &sr, res, NULL))
            bl_fail(&res->err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, GPU_OUT_OF_MEMORY);
        else
            sassm_own_lines(G.have_cupti ? &G.c : NULL, &code, res);
        other_rule(res, rows, n, pc0);
    }
    one_worst(res);
    free(sr.rows);
    res->timing.run = t_run;
}

/* Gives the turn back once no measured launch follows within TURN_IDLE_MS, or the slice is
 * over; it takes G.mu only between launches (a measured launch holds it throughout). */
static void *turn_keeper(void *arg)
{
    (void)arg;
    for (;;) {
        usleep(10000);
        if (pthread_mutex_trylock(&G.mu))
            continue;
        double now = bl_now_ms();
        if (G.held && ((!G.setup && now - G.last_end >= TURN_IDLE_MS) ||
                       now - G.held_t0 >= TURN_SLICE_MS)) {
            devlock_release(G.in.lock);
            G.held = 0;
        }
        pthread_mutex_unlock(&G.mu);
    }
    return NULL;
}

/* (G.mu held) the thread that gives the turn back: started once */
static void start_keeper(void)
{
    if (!G.keeper) {
        pthread_t th;
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        G.keeper = pthread_create(&th, &at, turn_keeper, NULL) == 0;
        pthread_attr_destroy(&at);
        if (!G.keeper) { /* no thread: give the turn back now, as each launch did before */
            devlock_release(G.in.lock);
            G.held = 0;
        }
    }
}

/* After a measured launch (G.mu held): the turn stays ours a little, for the next launch. */
static void keep_turn(void)
{
    G.last_end = bl_now_ms();
    G.setup = 0;
    start_keeper();
}

/* A context is about to be made on dev: the device's turn first (see TURN_SLICE_MS above). */
static void context_starting(const Sanitizer_ResourceContextData *cd)
{
    pthread_mutex_lock(&G.mu);
    if (!G.lock_tried && !G.broken) {
        inj_open_lock(&G.in, cd->device);
        G.lock_tried = 1;
    }
    if (G.in.lock && !G.held) {
        take_turn("a context");
        G.setup = G.held;
        if (G.held)
            start_keeper();
    }
    pthread_mutex_unlock(&G.mu);
}

static void launch_end(const Sanitizer_LaunchData *ld)
{
    if (!T.selected)
        return;
    T.selected = 0;
    struct gpu_kernel_result *res = calloc(1, sizeof *res);
    SanitizerResult r = sanitizerStreamSynchronize(ld->hStream);
    double t_run = bl_now_ms() - T.t0;
    if (r == SANITIZER_SUCCESS)
        r = sanitizerMemcpyDeviceToHost(G.host, T.cb->dev, sizeof(struct san_table), ld->hStream);
    if (G.held)
        keep_turn();
    if (res) {
        if (r != SANITIZER_SUCCESS) {
            const char *s = NULL;
            sanitizerGetResultString(r, &s);
            bl_fail(&res->err, GPU_KERNEL_EFAULT, BL_NOWHERE, KRN_KERNEL_FAULTED,
                    s ? s : "sanitizer error");
        } else {
            table_result(res, t_run);
        }
        inj_fill_head(&G.in, res, T.symbol, T.grid, T.block, T.func, T.turn);
        res->phase = GPU_KPHASE_DONE;
        inj_send(&G.in, res, T.ordinal, T.nth);
        inj_dbg(&G.in, "measured (%s)\n", T.symbol);
        G.measured++;
    }
    pthread_mutex_unlock(&G.mu);
}

static void SANITIZERAPI on_callback(void *ud, Sanitizer_CallbackDomain dom,
                                     Sanitizer_CallbackId id, const void *data)
{
    (void)ud;
    if (dom == SANITIZER_CB_DOMAIN_RESOURCE && id == SANITIZER_CBID_RESOURCE_MODULE_LOADED)
        module_loaded(data);
    else if (dom == SANITIZER_CB_DOMAIN_RESOURCE &&
             id == SANITIZER_CBID_RESOURCE_CONTEXT_CREATION_STARTING)
        context_starting(data);
    else if (dom == SANITIZER_CB_DOMAIN_LAUNCH && id == SANITIZER_CBID_LAUNCH_BEGIN)
        launch_begin(data);
    else if (dom == SANITIZER_CB_DOMAIN_LAUNCH && id == SANITIZER_CBID_LAUNCH_END)
        launch_end(data);
}

/* ---- the entry point ---- */

static int load_api(void)
{
    void *cuda = bl_cuda_open();
    if (!cuda) {
        note(INJ_NO_LIBCUDA);
        return -1;
    }
    static const struct ksym ds[] = {
#define S(field, name, opt) {offsetof(struct san_drv, field), name, opt}
        S(func_module, "cuFuncGetModule", 1),
#undef S
    };
    struct bl_err e = {0};
    if (inj_drv_syms(cuda, &G.in, &e) || KSYMS(cuda, ds, &G.d, &e, -1, KRN_INJECT_SYM_MISSING)) {
        inj_note_msg(&G.in, &e.why, e.msg);
        return -1;
    }
    void *cupti = bl_cupti_open(); /* only for the line table; without it lines read "?" */
    G.have_cupti = cupti && !sassm_cupti_syms(cupti, &G.c, &e, KRN_INJECT_SYM_MISSING);
    if (!G.have_cupti)
        note(INJ_SAN_NO_CUPTI);
    return 0;
}

__attribute__((visibility("default"))) int InitializeInjection(void);
__attribute__((visibility("default"))) int InitializeInjection(void)
{
    G.patch = sys_env("BANKLAB_SANITIZE_PATCH");
    if (!G.patch || !*G.patch)
        return 1;
    const char *dir = inj_begin(&G.in);
    if (!dir)
        return 1;
    char path[PATH_MAX];
    const char *pat = sys_env("BANKLAB_SANITIZE_PATTERNS"); /* tests/gpu/sanitize.sh keeps them */
    if (pat && *pat)
        bl_fmt(path, sizeof path, "%s", pat);
    else
        bl_fmt(path, sizeof path, "%s/patterns", dir);
    int pfd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
    G.pat = pfd >= 0 ? fdopen(pfd, "a") : NULL;
    const char *re = NULL;
    if (kpick_init(&G.pick, 0, &re)) {
        note(INJ_BAD_REGEX, re);
        return 1;
    }
    G.host = calloc(1, sizeof *G.host);
    inj_dbg(&G.in, "sanitizer route: injected\n");
    if (!G.host || load_api())
        return 1;
    SanitizerResult r = sanitizerSubscribe(&G.sub, on_callback, NULL);
    if (r == SANITIZER_SUCCESS)
        r = sanitizerEnableDomain(1, G.sub, SANITIZER_CB_DOMAIN_RESOURCE);
    if (r == SANITIZER_SUCCESS)
        r = sanitizerEnableDomain(1, G.sub, SANITIZER_CB_DOMAIN_LAUNCH);
    if (r != SANITIZER_SUCCESS)
        san_note(r, "sanitizerSubscribe");
    return 1;
}
