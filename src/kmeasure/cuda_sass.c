/* cuda_sass.c: what CUPTI counts in one run of a learner's kernel (kmeasure/cuda_state.h): the SASS
 * metrics per instruction (shared instructions executed, wavefronts and their ideal), summed
 * per pc, decoded from the cubin and mapped to source lines (kmeasure/cuda_sassm.c, shared with
 * `banklab run`); and, for --counters, the range profiler's whole-kernel counters
 * (cuda/counters.cu). Runs the kernel through kmeasure/cuda_launch.c. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../cuda/cudalib.h"
#include "cuda_state.h"
#include "kmeasure.h"

/* The range profiler's figures for --counters: the six `banklab bench` reads, then all kinds
 * of shared wavefronts together (read with the six when this CUPTI knows it). */
#define RANGE_ALL_KINDS "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"

int ksass_resolve(struct kstate *st, struct bl_err *err)
{
    return sassm_resolve(&st->c, st->chip, &st->sassm, st->dbg, err);
}

/* 0 when the step went; else the failed CUPTI call (or out of memory) into the result, -1. */
static int sass_check(struct child *ch, int rc, const struct sassm_run *sr)
{
    if (rc == 0)
        return 0;
    if (sr->oom || !sr->failed_call)
        return bl_fail(&ch->res->err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, GPU_OUT_OF_MEMORY);
    return kcupti_fail(&ch->res->err, &ch->st->c, sr->failed, sr->failed_call);
}

/* SASS metrics around one run of the kernel, then correlation and decoding into res. */
int ksass_measure(struct child *ch)
{
    struct kstate *st = ch->st;
    double t0 = bl_now_ms();
    if (kstate_cupti(st)) {
        ch->res->err = st->cupti_err;
        return -1;
    }
    if (ksass_resolve(st, &ch->res->err))
        return -1;
    struct sassm_run sr = {.ninst = 1};
    int rv = -1;
    st->sass_used = 1; /* whatever happens next, this process configures SASS metrics once */
    if (sass_check(ch, sassm_set_config(&st->c, &st->sassm, st->device, &sr), &sr) ||
        sass_check(ch, sassm_enable(&st->c, &sr), &sr))
        goto out;
    ch->res->timing.cupti = bl_now_ms() - t0;

    t0 = bl_now_ms();
    if (klaunch_run(ch))
        goto out;
    ch->res->timing.run = bl_now_ms() - t0;
    kchild_phase(ch, GPU_KPHASE_COLLECT);
    t0 = bl_now_ms();
    if (sass_check(ch, sassm_flush(&st->c, &sr, st->dbg), &sr) ||
        sass_check(ch, sassm_sum(&st->sassm, &sr, ch->comp.lowered, st->dbg), &sr))
        goto out;
    struct sassm_code code = {.cubin = ch->comp.cubin, .size = ch->comp.cubin_size,
                              .function = ch->comp.lowered, .sm = st->sm,
                              .main_path = ch->realpath, .main_raw = ch->rawpath, .dir = ch->dir};
    if (sassm_build(&st->c, &code, &st->sassm, &sr, ch->res, st->dbg)) {
        bl_fail(&ch->res->err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, GPU_OUT_OF_MEMORY);
        goto out;
    }
    sassm_own_lines(&st->c, &code, ch->res);
    ch->res->timing.collect = bl_now_ms() - t0;
    rv = 0;
out:
    sassm_disable(&st->c, &sr);
    sassm_unset(&st->c, st->device, &sr);
    sassm_free(&sr);
    return rv;
}

static int counters_launch(void *arg)
{
    return klaunch_run(arg);
}

void kcounters_measure(struct child *ch)
{
    double t0 = bl_now_ms();
    struct bl_err why = {0};
    static const char *range_metrics[BL_NMETRICS];
    for (int i = 0; i < BL_NMETRICS; i++)
        range_metrics[i] = bl_counters_metric(i);
    /* the list ends with the all-kinds figure (RANGE_ALL_KINDS, BL_WAVEFRONTS_ALL); a CUPTI
     * without it or the matrix instructions' metrics: the six alone */
    int n = BL_NMETRICS;
    struct bl_counters *c = bl_counters_open_metrics(ch->st->device, range_metrics, n, &why);
    if (!c) {
        n = BL_INST_ST + 1;
        bl_err_clear(&why);
        c = bl_counters_open_metrics(ch->st->device, range_metrics, n, &why);
    }
    if (!c) {
        gpu_kernel_note(ch->res, &why);
        return;
    }
    double v[BL_NMETRICS];
    if (bl_counters_measure(c, counters_launch, ch, v, &why) == 0) {
        struct gpu_kernel_counters *k = &ch->res->counters;
        ch->res->has_counters = 1;
        k->wavefronts_ld = v[BL_WAVEFRONTS_LD];
        k->wavefronts_st = v[BL_WAVEFRONTS_ST];
        k->conflicts_ld = v[BL_CONFLICTS_LD];
        k->conflicts_st = v[BL_CONFLICTS_ST];
        k->inst_ld = v[BL_INST_LD];
        k->inst_st = v[BL_INST_ST];
        k->wavefronts = n > BL_WAVEFRONTS_ALL ? v[BL_WAVEFRONTS_ALL] : -1;
    } else if (ch->res->err.status == GPU_KERNEL_OK) {
        gpu_kernel_note(ch->res, &why);
    }
    bl_counters_close(c);
    ch->res->timing.counters = bl_now_ms() - t0;
}
