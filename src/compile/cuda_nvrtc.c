/* cuda_nvrtc.c: NVRTC for `banklab kernel`: libnvrtc (opened once per process, cuda/open.c), the
 * options (line info, the target architecture, the file's directory and the toolkit's
 * include directory), the lowered name of the chosen kernel, and a cache of cubins keyed by
 * everything that goes into them (source, quoted includes, options, NVRTC version), so an
 * unchanged file is not compiled twice. Runs in the measuring process only. Never prints. */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nvrtc.h>

#include "compile.h"
#include "../base/hash.h"
#include "../cuda/cudalib.h"
#include "../sys/sys.h"

/* ---- libnvrtc ---- */

/* The entry points used, each named as libnvrtc exports it. */
struct rtc_api {
    void *lib;
    nvrtcResult (*nvrtcVersion)(int *, int *);
    nvrtcResult (*nvrtcCreateProgram)(nvrtcProgram *, const char *, const char *, int,
                                      const char *const *, const char *const *);
    nvrtcResult (*nvrtcCompileProgram)(nvrtcProgram, int, const char *const *);
    nvrtcResult (*nvrtcGetProgramLogSize)(nvrtcProgram, size_t *);
    nvrtcResult (*nvrtcGetProgramLog)(nvrtcProgram, char *);
    nvrtcResult (*nvrtcGetCUBINSize)(nvrtcProgram, size_t *);
    nvrtcResult (*nvrtcGetCUBIN)(nvrtcProgram, char *);
    nvrtcResult (*nvrtcAddNameExpression)(nvrtcProgram, const char *);
    nvrtcResult (*nvrtcGetLoweredName)(nvrtcProgram, const char *, const char **);
    nvrtcResult (*nvrtcDestroyProgram)(nvrtcProgram *);
    const char *(*nvrtcGetErrorString)(nvrtcResult);
};

static int rtc_load(struct rtc_api *r, struct bl_err *err)
{
    memset(r, 0, sizeof *r);
    r->lib = bl_nvrtc_open();
    if (!r->lib)
        return bl_fail(err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, KRN_NO_NVRTC);
    static const struct ksym syms[] = {
#define S(sym) {offsetof(struct rtc_api, sym), #sym, 0}
        S(nvrtcVersion), S(nvrtcCreateProgram), S(nvrtcCompileProgram),
        S(nvrtcGetProgramLogSize), S(nvrtcGetProgramLog), S(nvrtcGetCUBINSize), S(nvrtcGetCUBIN),
        S(nvrtcAddNameExpression), S(nvrtcGetLoweredName), S(nvrtcDestroyProgram),
        S(nvrtcGetErrorString),
#undef S
    };
    return KSYMS(r->lib, syms, r, err, GPU_KERNEL_ESYSTEM, KRN_NVRTC_MISSING);
}

struct rtc {
    int tried, loaded;
    struct bl_err err;           /* why loading failed */
    struct rtc_api api;
};

struct rtc *krtc_new(void)
{
    return calloc(1, sizeof(struct rtc));
}

void krtc_free(struct rtc *r)
{
    free(r); /* libnvrtc stays loaded for the process */
}

/* NVRTC, once per process. */
static int rtc_ready(struct rtc *r)
{
    if (!r->tried) {
        r->tried = 1;
        r->loaded = rtc_load(&r->api, &r->err) == 0;
    }
    return r->loaded;
}

int kcompile(struct rtc *r, const struct kcompile_in *in, struct compiled *out, int *cache_hit,
             struct bl_err *err)
{
    memset(out, 0, sizeof *out);
    *cache_hit = 0;
    char opt_arch[32], opt_inc[PATH_MAX + 4], opt_cuda[PATH_MAX + 4];
    snprintf(opt_arch, sizeof opt_arch, "--gpu-architecture=sm_%d", in->arch);
    snprintf(opt_inc, sizeof opt_inc, "-I%s", in->dir);
    const char *home = sys_env("CUDA_HOME");
#ifdef BANKLAB_CUDA_HOME
    if (!home || !*home)
        home = BANKLAB_CUDA_HOME;
#endif
    if (!home || !*home)
        home = "/usr/local/cuda";
    snprintf(opt_cuda, sizeof opt_cuda, "-I%s/include", home);
    const char *opts[5 + GPU_KERNEL_MAX_FLAGS] = {opt_arch, "-lineinfo", "--std=c++17", opt_inc,
                                                  opt_cuda};
    int nopts = 5;
    for (int i = 0; i < in->nflags && i < GPU_KERNEL_MAX_FLAGS; i++) /* -I, -D, --nvcc-flag */
        opts[nopts++] = in->flags[i];
    if (in->nvcc) { /* the toolkit's nvcc (compile/nvcc.c): the same cache, its own key */
        int rv = kcompile_nvcc(in, out, cache_hit, err);
        if (rv == 0 && out->ok && in->name_expr && !in->ptx && !out->lowered[0])
            rv = bl_fail(err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, KRN_NVCC_NO_KERNEL, in->name,
                         in->name_expr);
        return rv;
    }
    if (!rtc_ready(r)) {
        *err = r->err;
        return -1;
    }
    struct rtc_api *api = &r->api;
    int vmaj = 0, vmin = 0;
    api->nvrtcVersion(&vmaj, &vmin);

    /* the cache key: everything that goes into the cubin */
    struct bl_buf key = KCACHE_KEY();
    char cname[64] = "", compiler[64];
    snprintf(compiler, sizeof compiler, "nvrtc %d.%d", vmaj, vmin);
    int use_cache = kcache_key_compile(in, "cubin", compiler, opts, nopts, &key, cname,
                                       sizeof cname) == 0;
    if (use_cache && kcache_get(in->cache_dir, cname, &key, out) == 0) {
        *cache_hit = 1;
        bl_buf_release(&key);
        return 0;
    }
    int rv = 0;
    nvrtcProgram prog;
    nvrtcResult nr = api->nvrtcCreateProgram(&prog, in->src, in->name, 0, NULL, NULL);
    if (nr != NVRTC_SUCCESS) {
        bl_fail(err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, KRN_NVRTC_REFUSED,
                api->nvrtcGetErrorString(nr));
        bl_buf_release(&key);
        return -1;
    }
    if (in->name_expr)
        api->nvrtcAddNameExpression(prog, in->name_expr);
    nvrtcResult cr = api->nvrtcCompileProgram(prog, nopts, opts);
    size_t ls = 0;
    api->nvrtcGetProgramLogSize(prog, &ls);
    out->log = malloc(ls + 1);
    if (out->log) {
        out->log[0] = '\0';
        if (ls)
            api->nvrtcGetProgramLog(prog, out->log);
        out->log[ls] = '\0';
    }
    if (cr == NVRTC_SUCCESS) {
        const char *low = NULL;
        size_t cs = 0;
        if (in->name_expr &&
            api->nvrtcGetLoweredName(prog, in->name_expr, &low) == NVRTC_SUCCESS && low)
            snprintf(out->lowered, sizeof out->lowered, "%s", low);
        if (api->nvrtcGetCUBINSize(prog, &cs) == NVRTC_SUCCESS && cs &&
            (out->cubin = malloc(cs)) &&
            api->nvrtcGetCUBIN(prog, (char *)out->cubin) == NVRTC_SUCCESS) {
            out->cubin_size = cs;
            out->ok = 1;
        } else {
            rv = bl_fail(err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, KRN_NVRTC_NO_CUBIN, in->name);
        }
    }
    api->nvrtcDestroyProgram(&prog);
    if (rv == 0 && out->ok && use_cache && out->lowered[0])
        kcache_put(in, cname, &key, out->log, out->lowered, out->cubin, out->cubin_size, NULL);
    bl_buf_release(&key);
    return rv;
}
