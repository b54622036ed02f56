/* cuda_sassm.h: CUPTI's SASS metrics for one launch, shared by the two measuring processes:
 * `banklab kernel`'s child (kmeasure/cuda_sass.c) and `banklab run`'s injection library
 * (kmeasure/cuda_inject.c): the metrics' ids on a chip, their configuration, the records of a run
 * summed per pc, and those sums decoded from the cubin (compile/sass.c) and mapped to source
 * lines (cuptiGetSassToSourceCorrelation) into a result. Not for use outside src/kmeasure/cuda_*. */
#ifndef BANKLAB_CUDA_SASSM_H
#define BANKLAB_CUDA_SASSM_H

#include <stdio.h>

#include <cupti_sass_metrics.h>

#include "../kernel/kernel.h"

struct cupti;                    /* kmeasure/cuda_state.h: the CUPTI calls used */

/* kdbg: a line in a debug log (BANKLAB_KERNEL_DEBUG, BANKLAB_RUN_DEBUG) when dbg is one. */
void kdbg(FILE *dbg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* CUPTI_PARAMS: v, a CUPTI parameter struct of type T, zeroed but for its structSize. */
#define CUPTI_PARAMS(T, v) T v = {.structSize = T##_STRUCT_SIZE}

/* The metrics read per instruction, resolved on a chip once. */
struct sassm_cfg {
    int configured;              /* ids resolved */
    CUpti_SassMetrics_Config cfg[16];
    size_t which[16], ncfg;      /* the metric table's index of cfg[i] */
    int have_ideal;              /* the _ideal metric is among them */
};

/* The per-pc sums of one run. */
struct sassm_row {
    uint32_t pc;
    double inst[GPU_KOP_COUNT];
    double wf, ideal;
};

/* One run under SASS metrics: what was switched on (to switch off), the records CUPTI
 * flushed, their sums per pc, and the CUPTI call that failed (with its result). */
struct sassm_run {
    int configured, enabled;
    CUpti_SassMetrics_Data *data;
    size_t nrec, ninst;
    struct sassm_row *rows;
    int nrows, caprows;
    const char *failed_call;     /* NULL, or the failed call ("cuptiSassMetricsEnable") */
    CUptiResult failed;
    int oom;                     /* out of memory */
};

/* sassm_cupti_syms: the CUPTI functions of struct cupti from lib (libcupti, dlopen'ed), for
 * banklab kernel's measuring process and banklab run's injection library alike. 0, or -1
 * with err (GPU_KERNEL_ECOUNTERS, message id: its %s the first one missing). */
int sassm_cupti_syms(void *lib, struct cupti *c, struct bl_err *err, int id);

/* sassm_resolve: the metrics' ids on chip (once: m->configured). 0, or -1 with err. */
int sassm_resolve(const struct cupti *c, const char *chip, struct sassm_cfg *m, FILE *dbg,
                  struct bl_err *err);

/* sassm_set_config: m's metrics configured on device (once per process: CUPTI refuses a
 * second). sassm_enable: collection on for what runs next (lazy patching). sassm_flush: the
 * records of the range into sr (within it). sassm_disable: collection off. sassm_unset: the
 * configuration removed. Each 0, or -1 with sr->failed_call (or sr->oom). */
int sassm_set_config(const struct cupti *c, const struct sassm_cfg *m, int device,
                     struct sassm_run *sr);
int sassm_enable(const struct cupti *c, struct sassm_run *sr);
int sassm_flush(const struct cupti *c, struct sassm_run *sr, FILE *dbg);
void sassm_disable(const struct cupti *c, struct sassm_run *sr);
void sassm_unset(const struct cupti *c, int device, struct sassm_run *sr);

/* sassm_sum: the records of function `function` summed per pc into sr->rows, each metric by
 * its role. 0, or -1 (out of memory). sassm_free: the records and sums freed (sr zeroed but
 * for its configured/enabled flags). */
int sassm_sum(const struct sassm_cfg *m, struct sassm_run *sr, const char *function, FILE *dbg);
void sassm_free(struct sassm_run *sr);

/* What the sums are decoded and correlated against. */
struct sassm_code {
    const void *cubin;
    size_t size;
    const char *function;        /* the symbol in the cubin */
    int sm;                      /* the GPU's compute capability as 90 (decoding) */
    const char *main_path;       /* a source file that is files[0] of the result (NULL: none) */
    const char *main_raw;        /* the same file by its real bytes, as nvcc names it (or NULL) */
    const char *dir;             /* other files are shown relative to it (NULL: as named) */
};

/* sassm_build: sr's rows into res: instructions (kind from the metrics, the SASS text and,
 * without CUPTI's ideal, the width from the cubin), their source lines, the lines and totals.
 * 0, or -1 out of memory. */
int sassm_build(const struct cupti *c, const struct sassm_code *code, const struct sassm_cfg *m,
                const struct sassm_run *sr, struct gpu_kernel_result *res, FILE *dbg);

/* sassm_own_lines: after sassm_build, the instructions CUPTI's line table charges to a header
 * of the CUDA toolkit (atomicAdd, __half2float, cub, wmma) charged instead to the line of the
 * kernel's own file that called it (ksl_own_lines): code's main file, else the file of its
 * other instructions, else (c not NULL) the file of its first instruction; the lines and
 * totals rebuilt. Every route that measures calls it, so the learner's line is the same in
 * each. */
void sassm_own_lines(const struct cupti *c, const struct sassm_code *code,
                     struct gpu_kernel_result *res);

#endif
