/* open.c: where the CUDA libraries live, the one place that opens them (cudalib.h): libcuda
 * (the driver), libcupti ($BANKLAB_CUPTI, then the usual names and CUDA_HOME) and libnvrtc
 * ($BANKLAB_NVRTC, then the same), in C so that the range profiler (counters.cu), the
 * runner, `banklab kernel`'s measuring process and compiler, `banklab run` and its injection
 * library open them the same way. Never unloaded (a caller may dlclose what it opened). */
#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>

#include "cudalib.h"
#include "../sys/sys.h"

/* open_first: $env_name when set and loadable, else the first of names[n] that loads */
static void *open_first(const char *env_name, const char *const *names, size_t n)
{
    const char *env = sys_env(env_name);
    if (env && *env) {
        void *h = dlopen(env, RTLD_NOW | RTLD_LOCAL);
        if (h)
            return h;
    }
    for (size_t i = 0; i < n; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (h)
            return h;
    }
    return NULL;
}

void *bl_cuda_open(void)
{
    return dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
}

void *bl_cupti_open(void)
{
    static const char *const names[] = {
        "libcupti.so.13", "libcupti.so",
#ifdef BANKLAB_CUDA_HOME
        BANKLAB_CUDA_HOME "/lib64/libcupti.so.13",
        BANKLAB_CUDA_HOME "/extras/CUPTI/lib64/libcupti.so.13",
#endif
        "/usr/local/cuda/lib64/libcupti.so.13", "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13",
        "/usr/local/cuda/lib64/libcupti.so",
    };
    return open_first("BANKLAB_CUPTI", names, sizeof names / sizeof names[0]);
}

void *bl_nvrtc_open(void)
{
    static const char *const names[] = {
        "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so",
#ifdef BANKLAB_CUDA_HOME
        BANKLAB_CUDA_HOME "/lib64/libnvrtc.so.13", BANKLAB_CUDA_HOME "/lib64/libnvrtc.so.12",
        BANKLAB_CUDA_HOME "/lib64/libnvrtc.so",
#endif
        "/usr/local/cuda/lib64/libnvrtc.so.13", "/usr/local/cuda/lib64/libnvrtc.so.12",
        "/usr/local/cuda/lib64/libnvrtc.so",
    };
    return open_first("BANKLAB_NVRTC", names, sizeof names / sizeof names[0]);
}

void *bl_nvrtc_open_at(const char *path)
{
    return dlopen(path, RTLD_NOW | RTLD_LOCAL);
}
