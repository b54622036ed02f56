/* ptx.h: the PTX executor's interface (src/ptx, branch ptx). PLACEHOLDER on branch xrt: the
 * interface copied so that src/xrt compiles; the executor itself, and this header's final
 * text, come from branch ptx. */
#ifndef BANKLAB_PTX_PTX_H
#define BANKLAB_PTX_PTX_H

#include <stddef.h>
#include <stdint.h>

#include "../base/err.h"

struct ptx_module *ptx_module_parse(const char *text, size_t len, struct bl_err *err);
void ptx_module_free(struct ptx_module *m);
int ptx_kernel_count(const struct ptx_module *m);
const char *ptx_kernel_name(const struct ptx_module *m, int k);          /* mangled */
int ptx_kernel_find(const struct ptx_module *m, const char *mangled);    /* -1: none */
int ptx_kernel_nparams(const struct ptx_module *m, int k);
size_t ptx_kernel_param_size(const struct ptx_module *m, int k, int i);
enum ptx_akind { PTX_LD = 0, PTX_ST, PTX_ATOM, PTX_LDSM, PTX_STSM, PTX_CPASYNC };
struct ptx_access { unsigned loc; unsigned pc; unsigned char width; unsigned char kind;
    uint32_t mask; uint32_t addr[32]; unsigned block[3], warp; };
struct ptx_frame { const char *file; unsigned line, col; };
int ptx_loc(const struct ptx_module *m, unsigned loc, struct ptx_frame *out, int max);
typedef void (*ptx_sink)(void *ctx, const struct ptx_access *a);
struct ptx_launch { unsigned grid[3], block[3]; size_t dyn_smem; void **args;
    uint64_t max_blocks; ptx_sink sink; void *ctx;
    int (*global_ok)(void *ctx, uint64_t addr, size_t n); };
int ptx_run(const struct ptx_module *m, int k, const struct ptx_launch *l, struct bl_err *err);

#endif
