/* bench_ptx.c: how fast the PTX executor runs (docs/benchmarks.md: at least 1e8 executed
 * lane-instructions per second on one core). One kernel of the shape the learner's kernels
 * have: a tile written to shared memory, a barrier, then a loop of shared loads (a column of
 * the tile: a 32-way conflict), integer index arithmetic and float adds, 64 blocks of 256
 * threads. Measured three ways, the median of 5 runs each: without a sink (the executor
 * alone), with a sink that only counts records, and with the aggregation (every record priced
 * by bank_simulate), in the thread's CPU time (one core, however loaded the machine). Prints lane-instructions per second; exits 1 when the executor alone
 * stays under 1e8. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../src/ptx/ptx.h"
#include "../../src/ptx/ptx_agg.h"

#define RUNS 5

static const char *kernel =
    ".version 9.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry bench(.param .u64 bench_param_0, .param .u32 bench_param_1)\n{\n"
    " .reg .pred %p<4>;\n .reg .b32 %r<32>;\n .reg .b64 %rd<8>;\n .reg .f32 %f<8>;\n"
    " .shared .align 4 .b8 tile[4096];\n"
    " .loc 1 3 1\n"
    " ld.param.u64 %rd1, [bench_param_0];\n ld.param.u32 %r20, [bench_param_1];\n"
    " mov.u32 %r1, %tid.x;\n mov.u32 %r2, %ctaid.x;\n mov.u32 %r3, tile;\n"
    " and.b32 %r4, %r1, 1023;\n shl.b32 %r5, %r4, 2;\n add.s32 %r6, %r3, %r5;\n"
    " cvt.rn.f32.u32 %f1, %r1;\n .loc 1 5 3\n st.shared.f32 [%r6], %f1;\n"
    " .loc 1 6 3\n bar.sync 0;\n"
    " and.b32 %r7, %r1, 31;\n shl.b32 %r8, %r7, 7;\n mov.f32 %f2, 0f00000000;\n"
    " mov.u32 %r9, 0;\n"
    "$LOOP:\n .loc 1 8 5\n"
    " add.s32 %r10, %r9, %r1;\n and.b32 %r11, %r10, 31;\n shl.b32 %r12, %r11, 2;\n"
    " add.s32 %r13, %r8, %r12;\n and.b32 %r14, %r13, 4095;\n add.s32 %r15, %r3, %r14;\n"
    " ld.shared.f32 %f3, [%r15];\n add.f32 %f2, %f2, %f3;\n"
    " mad.lo.s32 %r16, %r9, 3, %r1;\n xor.b32 %r17, %r16, %r2;\n"
    " add.s32 %r9, %r9, 1;\n setp.lt.u32 %p1, %r9, %r20;\n @%p1 bra $LOOP;\n"
    " .loc 1 10 3\n"
    " mul.wide.u32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;\n st.global.f32 [%rd3], %f2;\n"
    " ret;\n}\n.file 1 \"bench.cu\"\n";

static unsigned long long nrec;

static void count(void *ctx, const struct ptx_access *a)
{
    (void)ctx;
    (void)a;
    nrec++;
}

/* the thread's CPU time in ms: the figure is per core, whatever else the machine runs */
static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* mode 0: no sink, 1: counting sink, 2: the aggregation; lane-instructions per second */
static double measure(const struct ptx_module *m, int mode, uint64_t *steps_out)
{
    static float out[256];
    uint64_t p = (uint64_t)(uintptr_t)out;
    uint32_t trips = 256;
    void *args[2] = {&p, &trips};
    double rate[RUNS];
    for (int r = 0; r < RUNS; r++) {
        struct ptx_agg agg;
        ptx_agg_init(&agg, m, 0);
        uint64_t steps = 0;
        struct ptx_launch L = {{64, 1, 1}, {256, 1, 1}, 0, args, 0,
                               mode == 0 ? NULL : mode == 1 ? count : ptx_agg_sink,
                               mode == 2 ? (void *)&agg : NULL, NULL, 0, &steps, NULL};
        struct bl_err err;
        bl_err_clear(&err);
        /* every block writes out[0..255]: the same buffer for all, it only has to be valid */
        double t0 = cpu_ms();
        if (ptx_run(m, 0, &L, &err)) {
            fprintf(stderr, "bench_ptx: %s\n", err.msg);
            exit(1);
        }
        double t1 = cpu_ms();
        ptx_agg_free(&agg);
        rate[r] = (double)steps / ((t1 - t0) / 1e3);
        *steps_out = steps;
    }
    qsort(rate, RUNS, sizeof rate[0], cmp_double);
    return rate[RUNS / 2];
}

int main(void)
{
    struct bl_err err;
    bl_err_clear(&err);
    struct ptx_module *m = ptx_module_parse(kernel, strlen(kernel), &err);
    if (!m) {
        fprintf(stderr, "bench_ptx: %s\n", err.msg);
        return 1;
    }
    uint64_t steps = 0;
    double alone = measure(m, 0, &steps);
    double counted = measure(m, 1, &steps);
    double priced = measure(m, 2, &steps);
    printf("ptx executor: %.3g lane-instructions/s alone, %.3g with a counting sink, %.3g with "
           "every access priced (%llu lane-instructions a run, median of %d)\n",
           alone, counted, priced, (unsigned long long)steps, RUNS);
    ptx_module_free(m);
    if (alone < 1e8) {
        printf("bench_ptx: under 1e8 lane-instructions/s\n");
        return 1;
    }
    return 0;
}
