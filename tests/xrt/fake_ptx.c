/* fake_ptx.c: a TEST DOUBLE of the PTX executor (src/ptx/ptx.h), for tests/sh/xrt.sh while
 * the real executor is not on this branch. It executes nothing: it finds the .entry names of
 * the PTX text and, per launch, checks each pointer-sized argument with global_ok (a pointer
 * cudaMalloc gave must pass) and hands the sink one made-up shared load per warp (4 bytes,
 * lane l at byte 4*l, so 1 wavefront), charged to one location whose frame is line 1 of
 * "fake.cu". A kernel's global writes do not happen: tests check launches, not results. */
#include <stdlib.h>
#include <string.h>

#include "../../src/ptx/ptx.h"

struct ptx_module {
    int n;
    char name[64][256];
    int nparams[64];
    size_t psize[64][32];
};

struct ptx_module *ptx_module_parse(const char *text, size_t len, struct bl_err *err)
{
    struct ptx_module *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    const char *p = text, *end = text + len;
    while (m->n < 64 && (p = strstr(p, ".entry ")) && p < end) {
        p += 7;
        size_t k = strcspn(p, "( \n");
        if (k >= sizeof m->name[0])
            k = sizeof m->name[0] - 1;
        memcpy(m->name[m->n], p, k);
        const char *close = strchr(p, ')');
        for (const char *q = strstr(p, ".param "); q && close && q < close && m->nparams[m->n] < 32;
             q = strstr(q + 7, ".param ")) {
            size_t sz = !strncmp(q + 7, ".u64", 4) || !strncmp(q + 7, ".f64", 4) ||
                        !strncmp(q + 7, ".b64", 4) || !strncmp(q + 7, ".s64", 4) ? 8 : 4;
            m->psize[m->n][m->nparams[m->n]++] = sz;
        }
        m->n++;
    }
    return m;
}

void ptx_module_free(struct ptx_module *m) { free(m); }
int ptx_kernel_count(const struct ptx_module *m) { return m->n; }
const char *ptx_kernel_name(const struct ptx_module *m, int k) { return m->name[k]; }
int ptx_kernel_nparams(const struct ptx_module *m, int k) { return m->nparams[k]; }
size_t ptx_kernel_param_size(const struct ptx_module *m, int k, int i) { return m->psize[k][i]; }

int ptx_kernel_find(const struct ptx_module *m, const char *mangled)
{
    for (int k = 0; k < m->n; k++)
        if (!strcmp(m->name[k], mangled))
            return k;
    return -1;
}

int ptx_loc(const struct ptx_module *m, unsigned loc, struct ptx_frame *out, int max)
{
    if (max < 1)
        return 0;
    out[0] = (struct ptx_frame){"fake.cu", 1, 1};
    return 1;
}

int ptx_run(const struct ptx_module *m, int k, const struct ptx_launch *l, struct bl_err *err)
{
    for (int i = 0; i < m->nparams[k]; i++) {
        uint64_t v = 0;
        if (m->psize[k][i] != 8)
            continue;
        memcpy(&v, l->args[i], 8);
        if (v > 4096 && !l->global_ok(l->ctx, v, 1))
            return bl_fail(err, 1, BL_NOWHERE, BL_TEXT, "fake executor: argument not in device memory");
    }
    unsigned threads = l->block[0] * l->block[1] * l->block[2];
    uint64_t blocks = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
    struct ptx_access a;
    memset(&a, 0, sizeof a);
    a.kind = PTX_LD;
    a.width = 4;
    for (int ln = 0; ln < 32; ln++)
        a.addr[ln] = 4u * (unsigned)ln;
    for (uint64_t b = 0; b < blocks && b < l->max_blocks; b++)
        for (unsigned w = 0; w * 32 < threads; w++) {
            unsigned left = threads - w * 32;
            a.mask = left >= 32 ? 0xffffffffu : (1u << left) - 1;
            a.warp = w;
            a.block[0] = (unsigned)b;
            l->sink(l->ctx, &a);
        }
    return 0;
}
