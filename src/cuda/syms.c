/* syms.c: a table of function pointers filled from a dlopen'ed library (cudalib.h: libcuda,
 * libcupti, libnvrtc), one way for every table of them. */
#include <dlfcn.h>
#include <string.h>

#include "cudalib.h"

int ksyms(void *lib, const struct ksym *syms, size_t n, void *table, struct bl_err *err,
          int status, int id)
{
    for (size_t i = 0; i < n; i++) {
        void *f = dlsym(lib, syms[i].name);
        if (!f && !syms[i].optional)
            return bl_fail(err, status, BL_NOWHERE, id, syms[i].name);
        memcpy((char *)table + syms[i].off, &f, sizeof f);
    }
    return 0;
}
