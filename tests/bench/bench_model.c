/* bench_model.c: how fast the bank model is (docs/model.md: a full sweep of strides
 * 1..1024 x widths {1,2,4,8,16} must take well under 10 ms). Measures bank_simulate accesses
 * per second, the full sweep in ms, and pattern parse+eval per second (the five patterns of
 * `banklab sim --help`), with clock_gettime, many repetitions, median of runs.
 * Prints one line per figure; exits 1 when the sweep takes 10 ms or more. Model only.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../src/model/bank.h"
#include "../../src/model/pattern.h"

#define NSTRIDES 1024
#define NWIDTHS 5
#define NACC (NSTRIDES * NWIDTHS)  /* 5120 accesses in a sweep */
#define RUNS 15
#define SWEEP_LIMIT_MS 10.0

static const unsigned widths[NWIDTHS] = {1, 2, 4, 8, 16};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Access i of the sweep: stride s elements of width w, all lanes, a load. */
static void sweep_access(int i, struct bank_access *acc)
{
    unsigned s = (unsigned)(i / NWIDTHS) + 1, w = widths[i % NWIDTHS];
    acc->width = w;
    acc->op = BANK_LOAD;
    acc->mask = 0xffffffffu;
    for (unsigned n = 0; n < BANK_LANES; n++)
        acc->offset[n] = (uint64_t)n * s * w;
}

/* One full sweep, offsets built as it goes (what a stride plot does). Returns the sum of
 * wavefronts, so the work cannot be optimised away and every run can be checked. */
static long sweep(void)
{
    static struct bank_access acc;
    static struct bank_result res;
    long sum = 0;
    for (int i = 0; i < NACC; i++) {
        sweep_access(i, &acc);
        if (bank_simulate(&acc, &res, NULL) != BANK_OK)
            return -1;
        sum += res.wavefronts;
    }
    return sum;
}

/* 1. bank_simulate alone over prepared accesses (the sweep's mix of widths and strides).
 * 0, or 1 after the message when a checksum is off. */
static int bench_mix(int reps, long expect)
{
    static struct bank_access accs[NACC];
    static struct bank_result res;
    for (int i = 0; i < NACC; i++)
        sweep_access(i, &accs[i]);
    double rate[RUNS];
    for (int r = 0; r < RUNS; r++) {
        long sum = 0;
        double t0 = now_s();
        for (int k = 0; k < reps; k++)
            for (int i = 0; i < NACC; i++) {
                bank_simulate(&accs[i], &res, NULL);
                sum += res.wavefronts;
            }
        double dt = now_s() - t0;
        if (sum != expect * reps) {
            fprintf(stderr, "bench_model: checksum %ld, expected %ld\n", sum, expect * reps);
            return 1;
        }
        rate[r] = (double)reps * NACC / dt;
    }
    double rate_med = median(rate, RUNS);
    printf("model: bank_simulate %.2f M warp accesses/s (%.0f ns each), median of %d runs x %d "
           "accesses, range %.2f-%.2f M/s\n",
           rate_med / 1e6, 1e9 / rate_med, RUNS, reps * NACC, rate[0] / 1e6,
           rate[RUNS - 1] / 1e6);
    return 0;
}

/* 1b. The two ends of the mix: conflict-free stride-1 floats, 32-way stride-32 floats. 0, or
 * 1 after the message when a result is off. */
static int bench_ends(int reps)
{
    static const struct { const char *name; unsigned stride; } ends[] = {
        {"stride 1 (conflict-free)", 1}, {"stride 32 (32-way)", 32}};
    static struct bank_result res;
    for (int e = 0; e < 2; e++) {
        static struct bank_access one;
        sweep_access((int)(ends[e].stride - 1) * NWIDTHS + 2, &one);  /* width 4 */
        double r1[RUNS];
        int n1 = reps * 500;
        for (int r = 0; r < RUNS; r++) {
            long sum = 0;
            double t0 = now_s();
            for (int k = 0; k < n1; k++) {
                bank_simulate(&one, &res, NULL);
                sum += res.wavefronts;
            }
            r1[r] = n1 / (now_s() - t0);
            if (sum != (long)n1 * (e ? 32 : 1)) {
                fprintf(stderr, "bench_model: %s gave %ld wavefronts\n", ends[e].name, sum);
                return 1;
            }
        }
        double m1 = median(r1, RUNS);
        printf("model: bank_simulate, float %s: %.2f M accesses/s (%.0f ns each)\n",
               ends[e].name, m1 / 1e6, 1e9 / m1);
    }
    return 0;
}

/* 2. The full sweep, offsets included: median of runs, each the mean of reps sweeps. 0 when
 * it is under the limit, 1 when it is not; -1 after the message when the checksum changed. */
static int bench_sweep(int reps, long expect)
{
    double ms[RUNS];
    for (int r = 0; r < RUNS; r++) {
        double t0 = now_s();
        for (int k = 0; k < reps; k++)
            if (sweep() != expect) {
                fprintf(stderr, "bench_model: sweep checksum changed\n");
                return -1;
            }
        ms[r] = (now_s() - t0) * 1e3 / reps;
    }
    double ms_med = median(ms, RUNS);
    int ok = ms_med < SWEEP_LIMIT_MS;
    printf("model: full sweep (strides 1..%d x widths 1,2,4,8,16 = %d accesses) %.3f ms, median "
           "of %d runs x %d sweeps, range %.3f-%.3f ms (limit %.0f ms: %s)\n",
           NSTRIDES, NACC, ms_med, RUNS, reps, ms[0], ms[RUNS - 1], SWEEP_LIMIT_MS,
           ok ? "ok" : "TOO SLOW");
    printf("model: sweep checksum %ld wavefronts\n", expect);
    return ok ? 0 : 1;
}

/* The five patterns of `banklab sim --help`, with the wavefronts each must give. */
static const struct { const char *text, *param; unsigned by; int wavefronts; } pats[] = {
    {"__shared__ float data[32][32]; data[threadIdx.x][0]", NULL, 1, 32},
    {"__shared__ float tile[32][32 + PAD]; tile[threadIdx.x][threadIdx.y]", "PAD", 8, 1},
    {"__shared__ struct { float x, y, z; } p[256]; p[lane].x", NULL, 1, 1},
    {"__shared__ float4 v[64]; v[lane * 2]", NULL, 1, 8},
    {"__shared__ float s[1024]; s[lane * 32] = 1.0f", NULL, 1, 32},
};
#define NPATS ((int)(sizeof pats / sizeof pats[0]))

/* Pattern i from text to wavefronts; the parse's time added to *t_parse. 0, or 1 after the
 * message when it fails or gives another result. */
static int one_pattern(int i, double *t_parse)
{
    static struct bank_result res;
    struct pattern *pt = NULL;
    struct bl_err err;
    struct pattern_env env;
    struct bank_access acc;
    double t0 = now_s();
    if (pattern_parse(pats[i].text, &pt, &err)) {
        fprintf(stderr, "bench_model: pattern %d: %s\n", i, err.msg);
        return 1;
    }
    *t_parse += now_s() - t0;
    pattern_env_init(&env);
    env.block[1] = pats[i].by;
    if (pats[i].param)
        pattern_env_set(&env, pats[i].param, 1);
    if (pattern_eval(pt, &env, 0, &acc, NULL, &err) ||
        bank_simulate(&acc, &res, NULL) != BANK_OK ||
        res.wavefronts != pats[i].wavefronts) {
        fprintf(stderr, "bench_model: pattern %d: wrong result (%s)\n", i, err.msg);
        pattern_free(pt);
        return 1;
    }
    pattern_free(pt);
    return 0;
}

/* 3. Pattern text -> offsets -> model, as the playground does on every key press. 0, or 1
 * after the message. */
static int bench_patterns(int quick)
{
    int preps = quick ? 200 : 4000;
    double prate[RUNS], erate[RUNS];
    for (int r = 0; r < RUNS; r++) {
        double t_parse = 0;
        long n = 0;
        double tall0 = now_s();
        for (int k = 0; k < preps; k++) {
            for (int i = 0; i < NPATS; i++) {
                if (one_pattern(i, &t_parse))
                    return 1;
                n++;
            }
        }
        double all = now_s() - tall0;
        erate[r] = n / all;
        prate[r] = n / t_parse;
    }
    double e_med = median(erate, RUNS), p_med = median(prate, RUNS);
    printf("model: pattern parse+eval+simulate %.0f k patterns/s (%.1f us each; parse alone "
           "%.1f us), median of %d runs x %d, the 5 patterns of banklab sim --help\n",
           e_med / 1e3, 1e6 / e_med, 1e6 / p_med, RUNS, preps * NPATS);
    return 0;
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && !strcmp(argv[1], "--quick");  /* smoke test: fewer repetitions */
    int reps = quick ? 2 : 20;

    /* Warm-up, and the checksum every run must reproduce. */
    long expect = sweep();
    if (expect <= 0) {
        fprintf(stderr, "bench_model: bank_simulate failed in the sweep\n");
        return 1;
    }
    if (bench_mix(reps, expect) || bench_ends(reps))
        return 1;
    int slow = bench_sweep(reps, expect);
    if (slow < 0 || bench_patterns(quick))
        return 1;
    return slow;
}
