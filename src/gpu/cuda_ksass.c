/* cuda_ksass.c: what CUPTI counts in one run of a learner's kernel (cuda_kstate.h): the SASS
 * metrics per instruction (shared instructions executed, wavefronts and their ideal), summed
 * per pc, decoded from the cubin (sass_decode.c) and mapped to source lines through
 * cuptiGetSassToSourceCorrelation; and, for --counters, the range profiler's whole-kernel
 * counters (cuda_counters.cu). Runs the kernel through cuda_klaunch.c. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_counters.h"
#include "cuda_kstate.h"

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

/* The range profiler's figures for --counters: the six `banklab bench` reads, then all kinds
 * of shared wavefronts together (read with the six when this CUPTI knows it). */
#define RANGE_ALL_KINDS "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"

/* The SASS metrics' ids on this chip (once per process). 0, or -1 with why. */
int ksass_resolve(struct kstate *st, char *why, size_t whysz)
{
    if (st->configured)
        return 0;
    for (size_t i = 0; i < NMETRICS && st->ncfg < sizeof st->cfg / sizeof st->cfg[0]; i++) {
        CUpti_SassMetrics_GetProperties_Params pp;
        memset(&pp, 0, sizeof pp);
        pp.structSize = CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE;
        pp.pChipName = st->chip;
        pp.pMetricName = metric_table[i].name;
        CUptiResult r = st->c.properties(&pp);
        if (r != CUPTI_SUCCESS) {
            kdbg(st, "metric %s: not on %s (%d)\n", metric_table[i].name, st->chip, (int)r);
            if (metric_table[i].required) {
                bl_fmt(why, whysz, "counters not available: this CUPTI has no SASS metric %s on %s",
                      metric_table[i].name, st->chip);
                return -1;
            }
            continue;
        }
        st->cfg[st->ncfg].metricId = pp.metric.metricId;
        st->cfg[st->ncfg].outputGranularity = CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU;
        st->which[st->ncfg++] = i;
        if (metric_table[i].role == ROLE_IDEAL)
            st->have_ideal = 1;
    }
    st->configured = 1;
    return 0;
}

/* The per-pc sums of the SASS metrics. */
struct pc_row {
    uint32_t pc;
    double inst[GPU_KOP_COUNT];
    double wf, ideal;
};

static struct pc_row *pc_row(struct pc_row **rows, int *n, int *cap, uint32_t pc)
{
    for (int i = 0; i < *n; i++)
        if ((*rows)[i].pc == pc)
            return &(*rows)[i];
    if (*n == *cap) {
        int nc = *cap ? *cap * 2 : 64;
        struct pc_row *w = realloc(*rows, (size_t)nc * sizeof *w);
        if (!w)
            return NULL;
        *rows = w;
        *cap = nc;
    }
    struct pc_row *r = &(*rows)[(*n)++];
    memset(r, 0, sizeof *r);
    r->pc = pc;
    return r;
}

/* pc -> (file, line) through CUPTI's correlation on our cubin. */
static void correlate(struct child *ch, struct gpu_kernel_inst *in)
{
    CUpti_GetSassToSourceCorrelationParams p;
    memset(&p, 0, sizeof p);
    p.size = CUpti_GetSassToSourceCorrelationParamsSize;
    p.cubin = ch->comp.cubin;
    p.cubinSize = ch->comp.cubin_size;
    p.functionName = ch->comp.lowered;
    p.pcOffset = in->pc;
    in->file = 0;
    in->line = 0;
    if (ch->st->c.correlate(&p) != CUPTI_SUCCESS)
        return;
    in->line = (int)p.lineNumber;
    if (p.fileName) {
        /* CUPTI splits the program's name into a directory and a file name */
        char full[PATH_MAX];
        if (p.fileName[0] != '/' && p.dirName && p.dirName[0])
            bl_fmt(full, sizeof full, "%s/%s", p.dirName, p.fileName);
        else
            bl_fmt(full, sizeof full, "%s", p.fileName);
        if (strcmp(full, ch->realpath) && strcmp(p.fileName, ch->realpath)) {
            const char *show = full;
            size_t dl = strlen(ch->dir);
            if (!strncmp(full, ch->dir, dl) && full[dl] == '/')
                show = full + dl + 1;
            int f = kres_add_file(ch->res, show);
            in->file = f < 0 ? 0 : f;
        }
    }
    free(p.fileName);
    free(p.dirName);
}

/* Records -> instructions of res: kind from the instruction metrics, wavefronts and ideal
 * from theirs, the SASS text (and, without CUPTI's ideal, the width) from the cubin. */
static int build_insts(struct child *ch, const struct pc_row *rows, int nrows, int have_ideal)
{
    struct kstate *st = ch->st;
    const uint8_t *code = NULL;
    size_t code_size = 0;
    int decode = sass_arch_known(st->sm) &&
                 sass_function_code(ch->comp.cubin, ch->comp.cubin_size, ch->comp.lowered, &code,
                                    &code_size) == 0;
    ch->res->insts = calloc(nrows ? (size_t)nrows : 1, sizeof *ch->res->insts);
    if (!ch->res->insts)
        return -1;
    for (int i = 0; i < nrows; i++) {
        struct gpu_kernel_inst *in = &ch->res->insts[ch->res->ninsts++];
        const struct pc_row *row = &rows[i];
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
        int decoded = decode && (size_t)row->pc + 16 <= code_size && sass_decode(code + row->pc, &si);
        if (decoded) {
            snprintf(in->sass, sizeof in->sass, "%s", si.text);
            in->bytes = si.bytes;
            if (op < 0)
                op = si.op;
            else if (si.op != op)
                kdbg(st, "pc %#x: decoded %s (%s), metrics say %s\n", row->pc, si.text,
                     gpu_kernel_op_name(si.op), gpu_kernel_op_name(op));
        }
        in->op = op < 0 ? GPU_KOP_LD : op;
        if (have_ideal) {
            in->ideal = row->ideal;
            in->ideal_known = 1;
        } else if (decoded && si.op == in->op) {
            in->ideal = in->inst * si.ideal;
            in->ideal_known = 1;
        }
        correlate(ch, in);
        kdbg(st, "inst pc %#x %s op %s line %d inst %.0f wf %.0f ideal %.0f\n", in->pc, in->sass,
             gpu_kernel_op_name(in->op), in->line, in->inst, in->wavefronts, in->ideal);
    }
    return kres_build_lines(ch->res);
}

/* One run under SASS metrics: what was switched on (to switch off), the records CUPTI flushed
 * and their sums per pc. */
struct sass_run {
    int configured, enabled;
    CUpti_SassMetrics_Data *data;
    size_t nrec, ninst;
    struct pc_row *rows;
    int nrows, caprows;
};

/* 0 when r is CUPTI_SUCCESS; else the failed call into the result, and -1. */
static int cupti_check(struct child *ch, CUptiResult r, const char *call)
{
    if (r == CUPTI_SUCCESS)
        return 0;
    char why[GPU_KERNEL_TEXT];
    kcupti_why(&ch->st->c, r, call, why, sizeof why);
    FAIL(ch, GPU_KERNEL_ECOUNTERS, "%s", why);
    return -1;
}

/* The resolved metrics configured and enabled for the next launch. 0, or -1 (the result says
 * why). */
static int sass_enable(struct child *ch, struct sass_run *sr)
{
    struct kstate *st = ch->st;
    st->sass_used = 1; /* whatever happens next, this process configures SASS metrics once */
    CUpti_SassMetricsSetConfig_Params sp;
    memset(&sp, 0, sizeof sp);
    sp.structSize = CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE;
    sp.pConfigs = st->cfg;
    sp.numOfMetricConfig = st->ncfg;
    sp.deviceIndex = (uint32_t)st->device;
    if (cupti_check(ch, st->c.set_config(&sp), "cuptiSassMetricsSetConfig"))
        return -1;
    sr->configured = 1;
    CUpti_SassMetricsEnable_Params ep;
    memset(&ep, 0, sizeof ep);
    ep.structSize = CUpti_SassMetricsEnable_Params_STRUCT_SIZE;
    ep.enableLazyPatching = 1;
    if (cupti_check(ch, st->c.enable(&ep), "cuptiSassMetricsEnable"))
        return -1;
    sr->enabled = 1;
    return 0;
}

/* The run's records, flushed from CUPTI into sr->data. 0, or -1 (the result says why). */
static int sass_flush(struct child *ch, struct sass_run *sr)
{
    struct kstate *st = ch->st;
    CUpti_SassMetricsGetDataProperties_Params dp;
    memset(&dp, 0, sizeof dp);
    dp.structSize = CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE;
    if (cupti_check(ch, st->c.data_props(&dp), "cuptiSassMetricsGetDataProperties"))
        return -1;
    sr->nrec = dp.numOfPatchedInstructionRecords;
    sr->ninst = dp.numOfInstances ? dp.numOfInstances : 1;
    kdbg(st, "records %zu instances %zu\n", sr->nrec, sr->ninst);
    if (!sr->nrec)
        return 0;
    sr->data = calloc(sr->nrec, sizeof *sr->data);
    if (!sr->data) {
        FAIL(ch, GPU_KERNEL_ESYSTEM, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < sr->nrec; i++) {
        sr->data[i].structSize = sizeof sr->data[i];
        sr->data[i].pInstanceValues = calloc(sr->ninst, sizeof *sr->data[i].pInstanceValues);
        if (!sr->data[i].pInstanceValues) {
            FAIL(ch, GPU_KERNEL_ESYSTEM, "out of memory");
            return -1;
        }
    }
    CUpti_SassMetricsFlushData_Params fp;
    memset(&fp, 0, sizeof fp);
    fp.structSize = CUpti_SassMetricsFlushData_Params_STRUCT_SIZE;
    fp.numOfPatchedInstructionRecords = sr->nrec;
    fp.numOfInstances = sr->ninst;
    fp.pMetricsData = sr->data;
    return cupti_check(ch, st->c.flush(&fp), "cuptiSassMetricsFlushData");
}

/* The records of our kernel summed per pc into sr->rows, each metric by its role. 0, or -1
 * (out of memory, in the result). */
static int sass_sum(struct child *ch, struct sass_run *sr)
{
    struct kstate *st = ch->st;
    const CUpti_SassMetrics_Config *cfg = st->cfg;
    const size_t *which = st->which, ncfg = st->ncfg;
    for (size_t i = 0; i < sr->nrec; i++) {
        const CUpti_SassMetrics_Data *rec = &sr->data[i];
        if (!rec->functionName || strcmp(rec->functionName, ch->comp.lowered))
            continue;
        for (size_t k = 0; k < sr->ninst; k++) {
            const CUpti_SassMetrics_InstanceValue *v = &rec->pInstanceValues[k];
            for (size_t m = 0; m < ncfg; m++) {
                if (cfg[m].metricId != v->metricId)
                    continue;
                int role = metric_table[which[m]].role;
                kdbg(st, "pc %#x %s = %llu\n", rec->pcOffset, metric_table[which[m]].name,
                     (unsigned long long)v->value);
                if (!v->value)
                    continue;
                struct pc_row *row = pc_row(&sr->rows, &sr->nrows, &sr->caprows, rec->pcOffset);
                if (!row) {
                    FAIL(ch, GPU_KERNEL_ESYSTEM, "out of memory");
                    return -1;
                }
                if (role == ROLE_INST)
                    row->inst[metric_table[which[m]].op] += (double)v->value;
                else if (role == ROLE_WF)
                    row->wf += (double)v->value;
                else
                    row->ideal += (double)v->value;
            }
        }
    }
    return 0;
}

/* The metrics switched off and unset as far as they were switched on; the records freed. */
static void sass_done(struct kstate *st, struct sass_run *sr)
{
    if (sr->enabled) {
        CUpti_SassMetricsDisable_Params xp;
        memset(&xp, 0, sizeof xp);
        xp.structSize = CUpti_SassMetricsDisable_Params_STRUCT_SIZE;
        st->c.disable(&xp);
    }
    if (sr->configured) {
        CUpti_SassMetricsUnsetConfig_Params up;
        memset(&up, 0, sizeof up);
        up.structSize = CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE;
        up.deviceIndex = (uint32_t)st->device;
        st->c.unset_config(&up);
    }
    for (size_t i = 0; sr->data && i < sr->nrec; i++) {
        free((void *)sr->data[i].functionName);
        free(sr->data[i].pInstanceValues);
    }
    free(sr->data);
    free(sr->rows);
}

/* SASS metrics around one run of the kernel, then correlation and decoding into res. */
int ksass_measure(struct child *ch)
{
    struct kstate *st = ch->st;
    char why[GPU_KERNEL_TEXT];
    double t0 = kclock_ms();
    if (kstate_cupti(st)) {
        FAIL(ch, GPU_KERNEL_ECOUNTERS, "%s", st->cupti_why);
        return -1;
    }
    if (ksass_resolve(st, why, sizeof why)) {
        FAIL(ch, GPU_KERNEL_ECOUNTERS, "%s", why);
        return -1;
    }
    struct sass_run sr;
    memset(&sr, 0, sizeof sr);
    sr.ninst = 1;
    int rv = -1;
    if (sass_enable(ch, &sr))
        goto out;
    ch->res->timing.cupti = kclock_ms() - t0;

    t0 = kclock_ms();
    if (klaunch_run(ch))
        goto out;
    ch->res->timing.run = kclock_ms() - t0;
    kchild_phase(ch, GPU_KPHASE_COLLECT);
    t0 = kclock_ms();
    if (sass_flush(ch, &sr) || sass_sum(ch, &sr))
        goto out;
    if (build_insts(ch, sr.rows, sr.nrows, st->have_ideal)) {
        FAIL(ch, GPU_KERNEL_ESYSTEM, "out of memory");
        goto out;
    }
    ch->res->timing.collect = kclock_ms() - t0;
    rv = 0;
out:
    sass_done(st, &sr);
    return rv;
}

static int counters_launch(void *arg)
{
    return klaunch_run(arg);
}

void kcounters_measure(struct child *ch)
{
    double t0 = kclock_ms();
    char why[GPU_KERNEL_TEXT];
    static const char *range_metrics[BL_NMETRICS];
    for (int i = 0; i < BL_NMETRICS; i++)
        range_metrics[i] = bl_counters_metric(i);
    /* the list ends with the all-kinds figure (RANGE_ALL_KINDS, BL_WAVEFRONTS_ALL); a CUPTI
     * without it or the matrix instructions' metrics: the six alone */
    int n = BL_NMETRICS;
    struct bl_counters *c = bl_counters_open_metrics(ch->st->device, range_metrics, n, why,
                                                     sizeof why);
    if (!c) {
        n = BL_INST_ST + 1;
        c = bl_counters_open_metrics(ch->st->device, range_metrics, n, why, sizeof why);
    }
    if (!c) {
        bl_fmt(ch->res->counters_note, sizeof ch->res->counters_note, "%s", why);
        return;
    }
    double v[BL_NMETRICS];
    if (bl_counters_measure(c, counters_launch, ch, v, why, sizeof why) == 0) {
        struct gpu_kernel_counters *k = &ch->res->counters;
        ch->res->has_counters = 1;
        k->wavefronts_ld = v[BL_WAVEFRONTS_LD];
        k->wavefronts_st = v[BL_WAVEFRONTS_ST];
        k->conflicts_ld = v[BL_CONFLICTS_LD];
        k->conflicts_st = v[BL_CONFLICTS_ST];
        k->inst_ld = v[BL_INST_LD];
        k->inst_st = v[BL_INST_ST];
        k->wavefronts = n > BL_WAVEFRONTS_ALL ? v[BL_WAVEFRONTS_ALL] : -1;
    } else if (ch->res->status == GPU_KERNEL_OK) {
        bl_fmt(ch->res->counters_note, sizeof ch->res->counters_note, "%s", why);
    }
    bl_counters_close(c);
    ch->res->timing.counters = kclock_ms() - t0;
}
