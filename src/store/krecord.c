/* krecord.c: a kernel's measurement recorded by `banklab run --json` read back (krecord.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/fmt.h"
#include "files.h"
#include "json.h"
#include "krecord.h"

static const char *base_of(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static const cJSON *item(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

static int num(const cJSON *o, const char *k, double *v)
{
    const cJSON *j = item(o, k);
    if (!cJSON_IsNumber(j))
        return -1;
    *v = j->valuedouble;
    return 0;
}

static const char *str(const cJSON *o, const char *k)
{
    const cJSON *j = item(o, k);
    return cJSON_IsString(j) ? j->valuestring : NULL;
}

static int op_of(const char *name)
{
    for (int op = 0; name && op < GPU_KOP_COUNT; op++)
        if (!strcmp(gpu_kernel_op_name(op), name))
            return op;
    return -1;
}

static int uints(const cJSON *o, const char *k, uint32_t *v, int n)
{
    const cJSON *a = item(o, k), *e;
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != n)
        return -1;
    int i = 0;
    cJSON_ArrayForEach(e, a) {
        if (!cJSON_IsNumber(e) || e->valuedouble < 0 || e->valuedouble > 4294967295.0)
            return -1;
        v[i++] = (uint32_t)e->valuedouble;
    }
    return 0;
}

/* the launch's file index for a recorded path: 0 for a file of cu_path's base name */
static int file_of(struct gpu_kernel_result *res, const char *cu_path, const char *path)
{
    if (!path || !strcmp(base_of(path), base_of(cu_path)))
        return 0;
    return kres_add_file(res, path);
}

static int take_insts(const cJSON *l, const char *cu_path, struct gpu_kernel_result *res)
{
    const cJSON *a = item(l, "instructions"), *e;
    int n = cJSON_GetArraySize(a);
    if (!cJSON_IsArray(a) || !(res->insts = calloc((size_t)(n ? n : 1), sizeof *res->insts)))
        return -1;
    cJSON_ArrayForEach(e, a) {
        struct gpu_kernel_inst *in = &res->insts[res->ninsts];
        double pc, line;
        const char *sass = str(e, "sass");
        in->op = op_of(str(e, "op"));
        if (num(e, "pc", &pc) || num(e, "line", &line) || num(e, "inst", &in->inst) ||
            num(e, "wavefronts", &in->wavefronts) || in->op < 0 || !sass)
            return -1;
        in->ideal_known = num(e, "ideal", &in->ideal) == 0 && !isnan(in->ideal);
        in->pc = (uint32_t)pc;
        in->line = (int)line;
        bl_fmt(in->sass, sizeof in->sass, "%s", sass);
        if ((in->file = file_of(res, cu_path, str(e, "file"))) < 0)
            return -1;
        res->ninsts++;
    }
    return 0;
}

static int take_warps(const cJSON *l, struct gpu_kernel_result *res)
{
    const cJSON *a = item(l, "warps"), *e;
    if (!a)                     /* recorded before warps were kept, or by the CUPTI route */
        return 0;
    int n = cJSON_GetArraySize(a);
    if (!cJSON_IsArray(a) || !(res->pats = calloc((size_t)(n ? n : 1), sizeof *res->pats)))
        return -1;
    cJSON_ArrayForEach(e, a) {
        struct gpu_kernel_pattern *q = &res->pats[res->npats];
        double pc, count, wf, width, matrices, warp;
        const char *kind = str(e, "kind"), *mask = str(e, "mask");
        q->op = op_of(str(e, "op"));
        if (num(e, "pc", &pc) || num(e, "warps", &count) || num(e, "wavefronts", &wf) ||
            num(e, "width", &width) || num(e, "matrices", &matrices) || num(e, "warp", &warp) ||
            !kind || !mask || q->op < 0 || width < 1 || width > 16 ||
            uints(e, "block", q->block, 3) || uints(e, "offsets", q->addr, 32))
            return -1;
        if (item(e, "sources") && uints(e, "sources", q->src, 32))
            return -1;
        char *end;
        q->mask = (uint32_t)strtoul(mask, &end, 16);
        if (*end)
            return -1;
        q->pc = (uint32_t)pc;
        q->count = (uint32_t)count;
        q->wavefronts = q->wavefronts_each = (uint32_t)wf;
        q->width = (uint32_t)width;
        q->matrices = (uint32_t)matrices;
        q->warp = (uint32_t)warp;
        q->slot = !strcmp(kind, "worst") ? -1 : 0;
        for (int k = 0; k < res->npats && q->slot >= 0; k++)   /* 0, 1, ... per instruction */
            q->slot += res->pats[k].pc == q->pc && res->pats[k].slot >= 0;
        res->npats++;
    }
    return 0;
}

/* launch l into res: 0, or -1 when a field is missing or wrong (its name in *what) */
static int take_launch(const cJSON *l, const char *cu_path, struct gpu_kernel_result *res,
                       const char **what)
{
    double smem = 0;
    *what = "kernel";
    const char *kernel = str(l, "kernel"), *sym = str(l, "symbol"), *dev = str(l, "device");
    if (!kernel)
        return -1;
    bl_fmt(res->kernel, sizeof res->kernel, "%s", kernel);
    bl_fmt(res->lowered, sizeof res->lowered, "%s", sym ? sym : "");
    bl_fmt(res->device, sizeof res->device, "%s", dev ? dev : "");
    bl_fmt(res->arch, sizeof res->arch, "%s", str(l, "arch") ? str(l, "arch") : "");
    *what = "grid, block";
    if (uints(l, "grid", res->grid, 3) || uints(l, "block", res->block, 3))
        return -1;
    num(l, "dynamic_smem", &smem);
    res->smem = (unsigned long long)smem;
    *what = "instructions";
    if (kres_add_file(res, cu_path) != 0 || take_insts(l, cu_path, res))
        return -1;
    *what = "warps";
    if (take_warps(l, res))
        return -1;
    *what = "lines";
    return kres_build_lines(res);
}

/* the launch has a line (or an instruction) in a file of cu_path's base name */
static int in_file(const cJSON *l, const char *cu_path)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, item(l, "lines")) {
        const char *f = str(e, "file");
        if (f && !strcmp(base_of(f), base_of(cu_path)))
            return 1;
    }
    return 0;
}

int krec_read(const char *path, const char *cu_path, const char *name,
              struct gpu_kernel_result *res, struct bl_err *err)
{
    memset(res, 0, sizeof *res);
    size_t len = 0;
    struct bl_err why = {0};
    char *text = files_read(path, KREC_MAX_BYTES, &len, &why);
    cJSON *root = NULL;
    int rc = text ? json_read(text, len, "a recording", &root, &why) : -1;
    free(text);
    if (rc)
        return bl_fail(err, GPU_KERNEL_EINPUT, BL_NOWHERE, REC_FILE, path, why.msg);
    const cJSON *launches = item(root, "launches"), *l;
    if (!cJSON_IsArray(launches)) {
        cJSON_Delete(root);
        return bl_fail(err, GPU_KERNEL_EINPUT, BL_NOWHERE, KREC_NOT_RUN, path);
    }
    int n = 0;
    cJSON_ArrayForEach(l, launches) {
        n++;
        const char *k = str(l, "kernel"), *st = str(l, "status");
        if (!k || !st || strcmp(st, "ok") || (name && name[0] && strcmp(k, name)) ||
            !in_file(l, cu_path))
            continue;
        const char *what;
        if (take_launch(l, cu_path, res, &what)) {
            gpu_kernel_result_done(res);
            memset(res, 0, sizeof *res);
            cJSON_Delete(root);
            return bl_fail(err, GPU_KERNEL_EINPUT, BL_NOWHERE, KREC_BAD, path, n, what);
        }
        res->phase = GPU_KPHASE_DONE;
        cJSON_Delete(root);
        return 0;
    }
    cJSON_Delete(root);
    return bl_fail(err, GPU_KERNEL_EINPUT, BL_NOWHERE, KREC_NO_LAUNCH, path,
                   name && name[0] ? name : base_of(cu_path));
}
