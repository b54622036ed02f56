/* cuda_sassm.c: CUPTI's SASS metrics for one launch (kmeasure/cuda_sassm.h): the metric table, their
 * configuration and enabling, the flushed records summed per pc, decoded from the cubin
 * (compile/sass.c) and mapped to source lines through cuptiGetSassToSourceCorrelation. Shared
 * by `banklab kernel` (kmeasure/cuda_sass.c) and `banklab run` (kmeasure/cuda_inject.c). Never prints but to
 * the debug log it is given. */
#include <limits.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/utf8.h"
#include "cuda_state.h"
#include "cuda_sassm.h"
#include "../compile/compile.h"
#include "../cuda/cudalib.h"

/* The SASS metrics read per instruction, each with what it counts. One that this CUPTI does
 * not know is left out; the wavefronts are required. The names are those of CUDA 13's CUPTI
 * on GH100 (cuptiSassMetricsGetMetrics). */
enum { ROLE_INST, ROLE_WF, ROLE_IDEAL };
static const struct {
    const char *name;
    int role, op, required;
} metric_table[] = {
    {"smsp__sass_inst_executed_op_shared_ld", ROLE_INST, GPU_KOP_LD, 0},
    {"smsp__sass_inst_executed_op_shared_st", ROLE_INST, GPU_KOP_ST, 0},
    {"smsp__sass_inst_executed_op_shared_atom", ROLE_INST, GPU_KOP_ATOM, 0},
    {"smsp__sass_inst_executed_op_ldsm", ROLE_INST, GPU_KOP_LDSM, 0},
    {"smsp__sass_inst_executed_op_shared_stsm", ROLE_INST, GPU_KOP_STSM, 0},
    {"smsp__sass_inst_executed_op_ldgsts", ROLE_INST, GPU_KOP_LDGSTS, 0},
    {"smsp__sass_inst_executed_op_shared_gmma", ROLE_INST, GPU_KOP_GMMA, 0},
    {"smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared", ROLE_WF, 0, 1},
    {"smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal", ROLE_IDEAL, 0, 0},
};
#define NMETRICS (sizeof metric_table / sizeof metric_table[0])

void kdbg(FILE *dbg, const char *fmt, ...)
{
    if (!dbg)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(dbg, fmt, ap);
    va_end(ap);
    fflush(dbg);
}

int sassm_cupti_syms(void *lib, struct cupti *c, struct bl_err *err, int id)
{
    static const struct ksym syms[] = {
#define S(field, name) {offsetof(struct cupti, field), name, 0}
        S(result_string, "cuptiGetResultString"), S(prof_init, "cuptiProfilerInitialize"),
        S(prof_deinit, "cuptiProfilerDeInitialize"), S(chip_name, "cuptiDeviceGetChipName"),
        S(num_metrics, "cuptiSassMetricsGetNumOfMetrics"),
        S(metrics, "cuptiSassMetricsGetMetrics"), S(properties, "cuptiSassMetricsGetProperties"),
        S(set_config, "cuptiSassMetricsSetConfig"), S(unset_config, "cuptiSassMetricsUnsetConfig"),
        S(enable, "cuptiSassMetricsEnable"), S(disable, "cuptiSassMetricsDisable"),
        S(data_props, "cuptiSassMetricsGetDataProperties"), S(flush, "cuptiSassMetricsFlushData"),
        S(correlate, "cuptiGetSassToSourceCorrelation"),
#undef S
    };
    return KSYMS(lib, syms, c, err, GPU_KERNEL_ECOUNTERS, id);
}

int sassm_resolve(const struct cupti *c, const char *chip, struct sassm_cfg *m, FILE *dbg,
                  struct bl_err *err)
{
    if (m->configured)
        return 0;
    for (size_t i = 0; i < NMETRICS && m->ncfg < sizeof m->cfg / sizeof m->cfg[0]; i++) {
        CUPTI_PARAMS(CUpti_SassMetrics_GetProperties_Params, pp);
        pp.pChipName = chip;
        pp.pMetricName = metric_table[i].name;
        CUptiResult r = c->properties(&pp);
        if (r != CUPTI_SUCCESS) {
            kdbg(dbg, "metric %s: not on %s (%d)\n", metric_table[i].name, chip, (int)r);
            if (metric_table[i].required)
                return bl_fail(err, GPU_KERNEL_ECOUNTERS, BL_NOWHERE, KRN_NO_SASS_METRIC,
                               metric_table[i].name, chip);
            continue;
        }
        m->cfg[m->ncfg].metricId = pp.metric.metricId;
        m->cfg[m->ncfg].outputGranularity = CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU;
        m->which[m->ncfg++] = i;
        if (metric_table[i].role == ROLE_IDEAL)
            m->have_ideal = 1;
    }
    m->configured = 1;
    return 0;
}

static int check(struct sassm_run *sr, CUptiResult r, const char *call)
{
    if (r == CUPTI_SUCCESS)
        return 0;
    sr->failed_call = call;
    sr->failed = r;
    return -1;
}

int sassm_set_config(const struct cupti *c, const struct sassm_cfg *m, int device,
                     struct sassm_run *sr)
{
    CUPTI_PARAMS(CUpti_SassMetricsSetConfig_Params, sp);
    sp.pConfigs = (CUpti_SassMetrics_Config *)m->cfg;
    sp.numOfMetricConfig = m->ncfg;
    sp.deviceIndex = (uint32_t)device;
    if (check(sr, c->set_config(&sp), "cuptiSassMetricsSetConfig"))
        return -1;
    sr->configured = 1;
    return 0;
}

int sassm_enable(const struct cupti *c, struct sassm_run *sr)
{
    CUPTI_PARAMS(CUpti_SassMetricsEnable_Params, ep);
    ep.enableLazyPatching = 1;
    if (check(sr, c->enable(&ep), "cuptiSassMetricsEnable"))
        return -1;
    sr->enabled = 1;
    return 0;
}

int sassm_flush(const struct cupti *c, struct sassm_run *sr, FILE *dbg)
{
    CUPTI_PARAMS(CUpti_SassMetricsGetDataProperties_Params, dp);
    if (check(sr, c->data_props(&dp), "cuptiSassMetricsGetDataProperties"))
        return -1;
    sr->nrec = dp.numOfPatchedInstructionRecords;
    sr->ninst = dp.numOfInstances ? dp.numOfInstances : 1;
    kdbg(dbg, "records %zu instances %zu\n", sr->nrec, sr->ninst);
    if (!sr->nrec)
        return 0;
    sr->data = calloc(sr->nrec, sizeof *sr->data);
    if (!sr->data) {
        sr->oom = 1;
        return -1;
    }
    for (size_t i = 0; i < sr->nrec; i++) {
        sr->data[i].structSize = sizeof sr->data[i];
        sr->data[i].pInstanceValues = calloc(sr->ninst, sizeof *sr->data[i].pInstanceValues);
        if (!sr->data[i].pInstanceValues) {
            sr->oom = 1;
            return -1;
        }
    }
    CUPTI_PARAMS(CUpti_SassMetricsFlushData_Params, fp);
    fp.numOfPatchedInstructionRecords = sr->nrec;
    fp.numOfInstances = sr->ninst;
    fp.pMetricsData = sr->data;
    return check(sr, c->flush(&fp), "cuptiSassMetricsFlushData");
}

void sassm_disable(const struct cupti *c, struct sassm_run *sr)
{
    if (!sr->enabled)
        return;
    CUPTI_PARAMS(CUpti_SassMetricsDisable_Params, xp);
    c->disable(&xp);
    sr->enabled = 0;
}

void sassm_unset(const struct cupti *c, int device, struct sassm_run *sr)
{
    if (!sr->configured)
        return;
    CUPTI_PARAMS(CUpti_SassMetricsUnsetConfig_Params, up);
    up.deviceIndex = (uint32_t)device;
    c->unset_config(&up);
    sr->configured = 0;
}

static struct sassm_row *row_of(struct sassm_run *sr, uint32_t pc)
{
    for (int i = 0; i < sr->nrows; i++)
        if (sr->rows[i].pc == pc)
            return &sr->rows[i];
    if (sr->nrows == sr->caprows) {
        int nc = sr->caprows ? sr->caprows * 2 : 64;
        struct sassm_row *w = realloc(sr->rows, (size_t)nc * sizeof *w);
        if (!w)
            return NULL;
        sr->rows = w;
        sr->caprows = nc;
    }
    struct sassm_row *r = &sr->rows[sr->nrows++];
    memset(r, 0, sizeof *r);
    r->pc = pc;
    return r;
}

int sassm_sum(const struct sassm_cfg *m, struct sassm_run *sr, const char *function, FILE *dbg)
{
    for (size_t i = 0; i < sr->nrec; i++) {
        const CUpti_SassMetrics_Data *rec = &sr->data[i];
        if (!rec->functionName || strcmp(rec->functionName, function))
            continue;
        for (size_t k = 0; k < sr->ninst; k++) {
            const CUpti_SassMetrics_InstanceValue *v = &rec->pInstanceValues[k];
            for (size_t j = 0; j < m->ncfg; j++) {
                if (m->cfg[j].metricId != v->metricId)
                    continue;
                int role = metric_table[m->which[j]].role;
                kdbg(dbg, "pc %#x %s = %llu\n", rec->pcOffset, metric_table[m->which[j]].name,
                     (unsigned long long)v->value);
                if (!v->value)
                    continue;
                struct sassm_row *row = row_of(sr, rec->pcOffset);
                if (!row) {
                    sr->oom = 1;
                    return -1;
                }
                if (role == ROLE_INST)
                    row->inst[metric_table[m->which[j]].op] += (double)v->value;
                else if (role == ROLE_WF)
                    row->wf += (double)v->value;
                else
                    row->ideal += (double)v->value;
            }
        }
    }
    return 0;
}

void sassm_free(struct sassm_run *sr)
{
    for (size_t i = 0; sr->data && i < sr->nrec; i++) {
        free((void *)sr->data[i].functionName);
        free(sr->data[i].pInstanceValues);
    }
    free(sr->data);
    free(sr->rows);
    sr->data = NULL;
    sr->rows = NULL;
    sr->nrec = 0;
    sr->nrows = sr->caprows = 0;
}

/* CUPTI's name for the file nvcc compiled by its bytes raw: the path, or (for a name nvcc
 * was given as a link with '?' for its odd bytes: kernel_nvcc.c) its file name. */
static int same_file(const char *told, const char *raw)
{
    const char *a = strrchr(told, '/'), *b = strrchr(raw, '/');
    return bl_name_same(told, raw) || bl_name_same(a ? a + 1 : told, b ? b + 1 : raw);
}

/* pc -> (file, line) through CUPTI's correlation on the cubin. */
static void correlate(const struct cupti *c, const struct sassm_code *code,
                      struct gpu_kernel_result *res, struct gpu_kernel_inst *in)
{
    CUpti_GetSassToSourceCorrelationParams p = {.size = CUpti_GetSassToSourceCorrelationParamsSize};
    p.cubin = code->cubin;
    p.cubinSize = code->size;
    p.functionName = code->function;
    p.pcOffset = in->pc;
    in->file = 0;
    in->line = 0;
    if (!c || c->correlate(&p) != CUPTI_SUCCESS) /* no CUPTI: no line */
        return;
    in->line = (int)p.lineNumber;
    if (p.fileName) {
        /* CUPTI splits the program's name into a directory and a file name */
        char full[PATH_MAX];
        if (p.fileName[0] != '/' && p.dirName && p.dirName[0])
            bl_fmt(full, sizeof full, "%s/%s", p.dirName, p.fileName);
        else
            bl_fmt(full, sizeof full, "%s", p.fileName);
        const char *mp = code->main_path;
        const char *raw = code->main_raw;
        if (!mp || (strcmp(full, mp) && strcmp(p.fileName, mp) &&
                    (!raw || !same_file(full, raw)))) {
            const char *show = full;
            size_t dl = code->dir ? strlen(code->dir) : 0;
            if (dl && !strncmp(full, code->dir, dl) && full[dl] == '/')
                show = full + dl + 1;
            int f = kres_add_file(res, show);
            in->file = f < 0 ? 0 : f;
        }
    }
    free(p.fileName);
    free(p.dirName);
}

int sassm_build(const struct cupti *c, const struct sassm_code *code, const struct sassm_cfg *m,
                const struct sassm_run *sr, struct gpu_kernel_result *res, FILE *dbg)
{
    const uint8_t *text = NULL;
    size_t text_size = 0;
    int decode = sass_arch_known(code->sm) &&
                 sass_function_code(code->cubin, code->size, code->function, &text,
                                    &text_size) == 0;
    res->insts = calloc(sr->nrows ? (size_t)sr->nrows : 1, sizeof *res->insts);
    if (!res->insts)
        return -1;
    for (int i = 0; i < sr->nrows; i++) {
        struct gpu_kernel_inst *in = &res->insts[res->ninsts++];
        const struct sassm_row *row = &sr->rows[i];
        in->pc = row->pc;
        int op = -1;
        for (int o = 0; o < GPU_KOP_COUNT; o++) /* each metric that counts it counts the same */
            if (row->inst[o] > in->inst || (op < 0 && row->inst[o] > 0)) {
                in->inst = row->inst[o];
                op = o;
            }
        in->wavefronts = row->wf;
        snprintf(in->sass, sizeof in->sass, "?");
        struct sass_insn si;
        int decoded = decode && (size_t)row->pc + 16 <= text_size &&
                      sass_decode(text + row->pc, &si);
        if (decoded) {
            snprintf(in->sass, sizeof in->sass, "%s", si.text);
            in->bytes = si.bytes;
            if (op < 0)
                op = si.op;
            else if (si.op != op)
                kdbg(dbg, "pc %#x: decoded %s (%s), metrics say %s\n", row->pc, si.text,
                     gpu_kernel_op_name(si.op), gpu_kernel_op_name(op));
        }
        in->op = op < 0 ? GPU_KOP_LD : op;
        if (m->have_ideal) {
            in->ideal = row->ideal;
            in->ideal_known = 1;
        } else if (decoded && si.op == in->op) {
            in->ideal = in->inst * si.ideal;
            in->ideal_known = 1;
        }
        correlate(c, code, res, in);
        kdbg(dbg, "inst pc %#x %s op %s line %d inst %.0f wf %.0f ideal %.0f\n", in->pc, in->sass,
             gpu_kernel_op_name(in->op), in->line, in->inst, in->wavefronts, in->ideal);
    }
    return kres_build_lines(res);
}

/* A header of the CUDA toolkit (CUDA's own include directories), where the code of
 * atomicAdd, __half2float, cuda::memcpy_async, cub and wmma stands. */
static int toolkit_file(const char *path)
{
    return strstr(path, "/include/") && (strstr(path, "/cuda") || strstr(path, "/cccl/"));
}

/* Instructions CUPTI's line table charges to a header of the toolkit are charged instead to
 * the line of the kernel's own file that called it (the outermost frames of the DWARF
 * inlined-at chain in that file, ksl_lines), as Nsight Compute's source page shows them: the
 * learner's line, not CUDA's. */
void sassm_own_lines(const struct cupti *c, const struct sassm_code *code,
                     struct gpu_kernel_result *res)
{
    const char *own = code->main_raw ? code->main_raw : code->main_path;
    int moved = 0, fo = own ? 0 : -1; /* the main file is files[0] (sassm_build) */
    for (int i = 0; i < res->ninsts && !own; i++) {
        int f = res->insts[i].file;
        if (f > 0 && f < res->nfiles && !toolkit_file(res->files[f]))
            own = res->files[f];
    }
    char entry[GPU_KERNEL_TEXT];
    if (!own && c) { /* every shared access in a header (cub): the kernel's own line */
        CUpti_GetSassToSourceCorrelationParams p = {.size = CUpti_GetSassToSourceCorrelationParamsSize};
        p.cubin = code->cubin;
        p.cubinSize = code->size;
        p.functionName = code->function;
        p.pcOffset = 0;
        if (c->correlate(&p) == CUPTI_SUCCESS && p.fileName) {
            if (p.fileName[0] != '/' && p.dirName && p.dirName[0])
                bl_fmt(entry, sizeof entry, "%s/%s", p.dirName, p.fileName);
            else
                bl_fmt(entry, sizeof entry, "%s", p.fileName);
            if (!toolkit_file(entry))
                own = entry;
        }
        free(p.fileName);
        free(p.dirName);
    }
    if (!own)
        return;
    char ownpath[GPU_KERNEL_TEXT];
    bl_fmt(ownpath, sizeof ownpath, "%s", own);
    /* every instruction in a header, decoded or not (an atomic whose SASS form the decoder
     * does not name is still the route's shared instruction) */
    unsigned *pcs = calloc(res->ninsts ? (size_t)res->ninsts : 1, sizeof *pcs);
    int *lines = calloc(res->ninsts ? (size_t)res->ninsts : 1, sizeof *lines);
    int n = 0;
    for (int i = 0; pcs && lines && i < res->ninsts; i++) {
        const struct gpu_kernel_inst *in = &res->insts[i];
        if (in->file > 0 && in->file < res->nfiles && toolkit_file(res->files[in->file]))
            pcs[n++] = in->pc;
    }
    if (fo < 0 && n)
        fo = kres_add_file(res, ownpath);
    if (n && fo >= 0 &&
        !ksl_own_lines(code->cubin, code->size, code->function, ownpath, pcs, n, lines)) {
        for (int i = 0, k = 0; i < res->ninsts && k < n; i++) {
            struct gpu_kernel_inst *in = &res->insts[i];
            if (in->pc != pcs[k])
                continue;
            if (lines[k] > 0) {
                in->file = fo;
                in->line = lines[k];
                moved++;
            }
            k++;
        }
    }
    free(pcs);
    free(lines);
    if (moved)
        kres_build_lines(res);
}
