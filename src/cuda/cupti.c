/* cupti.c: where libcupti lives (bl_cupti_open, cuda/cudalib.h), in C so that the
 * range profiler (cuda/counters.cu), `banklab kernel`'s measuring process (kmeasure/cuda_state.c) and
 * `banklab run`'s injection library (kmeasure/cuda_inject.c) open it the same way. */
#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>

#include "cudalib.h"

void *bl_cupti_open(void)
{
    static const char *names[] = {
        "libcupti.so.13", "libcupti.so",
#ifdef BANKLAB_CUDA_HOME
        BANKLAB_CUDA_HOME "/lib64/libcupti.so.13",
        BANKLAB_CUDA_HOME "/extras/CUPTI/lib64/libcupti.so.13",
#endif
        "/usr/local/cuda/lib64/libcupti.so.13", "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13",
        "/usr/local/cuda/lib64/libcupti.so",
    };
    const char *env = getenv("BANKLAB_CUPTI");
    if (env && *env) {
        void *h = dlopen(env, RTLD_NOW | RTLD_LOCAL);
        if (h)
            return h;
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (h)
            return h;
    }
    return NULL;
}
