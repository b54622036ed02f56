/* bench.c: `banklab bench`: GPU measurements against the model. A stride sweep of the pattern
 * kernel (every width, loads and stores) with the time of one warp access and its slowdown
 * against the conflict-free access; the copy ceiling (cudaMemcpy device to device and a copy
 * kernel that reaches it) and the transpose family as a share of it; the case kernels; a
 * table of predicted vs measured, or the recording format (--json, docs/gpu.md) or CSV.
 * No curses. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../gpu/gpu.h"
#include "../store/recording.h"
#include "../model/bank.h"
#include "cli.h"

#define BENCH_TIMEOUT_MS 120000
#define BENCH_LATENCY_RUNS 7

struct bench_row {
    struct recording_row row;
    double pred_slowdown;    /* model wavefronts / those of the conflict-free access (sweep) */
};

struct bench_opts {
    int json, csv, quick, device, no_server;
    const char *server;
};

struct bench {
    struct bench_opts o;
    struct gpu_info info;
    struct bench_row *rows;
    int n, cap, failures;
    uint64_t id;
    double lat[BENCH_LATENCY_RUNS];
    int nlat;
};

static void usage(FILE *f)
{
    fprintf(f, "usage: banklab bench [--json | --csv] [--device N] [--quick] [--server SOCKET | --no-server]\n"
               "  GPU measurements vs the bank model: a stride sweep of every width (time per\n"
               "  warp access, slowdown against the conflict-free access), the copy ceiling and\n"
               "  the transposes as a share of it, the case kernels.\n"
               "  --json writes the recording format (docs/gpu.md) that --replay reads.\n"
               "  --quick: fewer strides, no case kernels.\n"
               "  --server SOCKET: ask the GPU server there (banklab serve; also BANKLAB_SERVER);\n"
               "  by default the device's own server. --no-server: measure in this process.\n");
}

static int parse_args(int argc, char **argv, struct bench_opts *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 1, r; i < argc; i++) {
        if ((r = cli_server_arg("bench", argc, argv, &i, &o->server, &o->no_server))) {
            if (r < 0)
                return EXIT_USAGE;
        } else if (!strcmp(argv[i], "--json"))
            o->json = 1;
        else if (!strcmp(argv[i], "--csv"))
            o->csv = 1;
        else if (!strcmp(argv[i], "--quick"))
            o->quick = 1;
        else if (!strcmp(argv[i], "--device")) {
            long long v;
            if (cli_int_arg("bench", "--device", i + 1 < argc ? argv[++i] : NULL, 0,
                            CLI_DEVICE_MAX, &v))
                return EXIT_USAGE;
            o->device = (int)v;
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return -1;
        } else {
            fprintf(stderr, "banklab bench: unknown argument '%s'\n", CLI_CLEAN(argv[i]));
            usage(stderr);
            return EXIT_USAGE;
        }
    }
    if (o->json && o->csv) {
        fprintf(stderr, "banklab bench: --json and --csv exclude each other\n");
        return EXIT_USAGE;
    }
    return 0;
}

static void now_utc(char *buf, size_t n)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void stride_access(struct bank_access *a, unsigned width, unsigned stride, int store)
{
    memset(a, 0, sizeof *a);
    a->width = width;
    a->op = store ? BANK_STORE : BANK_LOAD;
    a->mask = 0xffffffffu;
    for (int l = 0; l < BANK_LANES; l++)
        a->offset[l] = (uint64_t)l * stride * width;
}

static int model_of(const struct bank_access *a, int *wf, int *cf)
{
    struct bank_result r;
    if (bank_simulate(a, &r, NULL) != BANK_OK)
        return -1;
    *wf = r.wavefronts;
    *cf = r.conflicts;
    return 0;
}

/* The model's view of a case kernel's taught shared load (the table's model, gpu.h). -1 when
 * the kernel has none. */
static int case_model(const struct gpu_request *q, int *conf)
{
    struct bank_access a;
    int wf;
    if (gpu_case_model(q, &a) || model_of(&a, &wf, conf))
        return -1;
    return wf;
}

/* ---- the requests ---- */

static struct bench_row *new_row(struct bench *B, const char *group)
{
    if (B->n == B->cap) {
        int nc = B->cap ? B->cap * 2 : 128;
        struct bench_row *nr = realloc(B->rows, (size_t)nc * sizeof *nr);
        if (!nr)
            return NULL;
        B->rows = nr;
        B->cap = nc;
    }
    struct bench_row *b = &B->rows[B->n++];
    memset(b, 0, sizeof *b);
    b->row.rec.req.id = B->id++;
    b->row.agree = -1;
    b->pred_slowdown = NAN;
    snprintf(b->row.group, sizeof b->row.group, "%s", group);
    return b;
}

static int add_stride(struct bench *B, unsigned width, unsigned stride, int store)
{
    struct bench_row *b = new_row(B, "sweep");
    if (!b)
        return -1;
    struct gpu_request *q = &b->row.rec.req;
    q->kind = GPU_REQ_PATTERN;
    stride_access(&q->access, width, stride, store);
    q->want_timing = q->want_counters = 1;
    snprintf(b->row.label, sizeof b->row.label, "%u B %s stride %u", width, store ? "st" : "ld",
             stride);
    model_of(&q->access, &b->row.model_wavefronts, &b->row.model_conflicts);
    struct bank_access ref;
    int rwf, rcf;
    stride_access(&ref, width, 1, store);
    if (model_of(&ref, &rwf, &rcf) == 0 && rwf > 0)
        b->pred_slowdown = (double)b->row.model_wavefronts / rwf;
    return 0;
}

/* The stride sweep: every width, loads and stores (--quick: a few strides). */
static int add_sweep(struct bench *B)
{
    static const unsigned quick4[] = {1, 2, 3, 4, 8, 16, 17, 32, 33};
    static const unsigned few[] = {1, 2, 4, 8, 16, 32, 33}, narrow[] = {64, 128};
    static const unsigned widths[] = {1, 2, 4, 8, 16};
    int rc = 0;
    if (B->o.quick) {
        static const unsigned s8[] = {1, 2, 16, 32}, s16[] = {1, 2, 8, 33}, st4[] = {1, 2, 32};
        for (size_t i = 0; i < sizeof quick4 / sizeof quick4[0]; i++)
            rc |= add_stride(B, 4, quick4[i], 0);
        for (int i = 0; i < 4; i++)
            rc |= add_stride(B, 8, s8[i], 0) | add_stride(B, 16, s16[i], 0);
        for (int i = 0; i < 3; i++)
            rc |= add_stride(B, 4, st4[i], 1);
        return rc;
    }
    for (int st = 0; st <= 1; st++)
        for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
            unsigned width = widths[w];
            if (!st || width == 4) /* loads of every width and 4-byte stores: 1..33 */
                for (unsigned s = 1; s <= 33; s++)
                    rc |= add_stride(B, width, s, st);
            else
                for (size_t i = 0; i < sizeof few / sizeof few[0]; i++)
                    rc |= add_stride(B, width, few[i], st);
            if (width < 4 && !st)
                for (size_t i = 0; i < sizeof narrow / sizeof narrow[0]; i++)
                    rc |= add_stride(B, width, narrow[i], st);
        }
    return rc;
}

static void add_param(struct gpu_request *q, const char *name, long long v)
{
    if (q->nparams >= GPU_CASE_MAX_PARAMS)
        return;
    snprintf(q->param_name[q->nparams], sizeof q->param_name[0], "%s", name);
    q->param_value[q->nparams++] = v;
}

/* Every setting bench measures of every case kernel of the table (gpu.h), in its order: the
 * matrix group (copies, transposes) or the others. */
static int add_cases(struct bench *B, int matrix)
{
    for (int ci = 0; ci < GPU_CASE_COUNT; ci++) {
        const struct gpu_case *gc = gpu_case_at(ci);
        if (gc->matrix != matrix)
            continue;
        for (int k = 0; k < gc->nbench; k++) {
            struct bench_row *b = new_row(B, matrix ? "transpose" : "case");
            if (!b)
                return -1;
            struct gpu_request *q = &b->row.rec.req;
            q->kind = GPU_REQ_CASE;
            snprintf(q->case_name, sizeof q->case_name, "%s", gc->name);
            for (int p = 0; p < gc->nparams; p++)
                add_param(q, gc->params[p].name, gc->bench[k * gc->nparams + p]);
            q->want_timing = 1;
            q->want_counters = !gc->uncounted; /* no kernel to count */
            size_t l = (size_t)snprintf(b->row.label, sizeof b->row.label, "%s", gc->name);
            for (int p = 0; p < q->nparams && l < sizeof b->row.label; p++)
                l += (size_t)snprintf(b->row.label + l, sizeof b->row.label - l, " %s=%lld",
                                      q->param_name[p], q->param_value[p]);
            int conf = -1, wf = case_model(q, &conf);
            b->row.model_wavefronts = wf;
            b->row.model_conflicts = wf >= 0 ? conf : -1;
        }
    }
    return 0;
}

/* ---- running ---- */

static void run_rows(struct gpu *g, struct bench *B)
{
    int tty = !B->o.json && !B->o.csv && isatty(2);
    for (int i = 0; i < B->n; i++) {
        struct bench_row *b = &B->rows[i];
        struct gpu_result *r = &b->row.rec.res;
        gpu_run(g, &b->row.rec.req, r, BENCH_TIMEOUT_MS);
        if (r->err.status != GPU_OK) {
            B->failures++;
            fprintf(stderr, "banklab bench: %s: %s\n", b->row.label, CLI_CLEAN(r->err.msg));
        }
        if (b->row.rec.req.kind == GPU_REQ_PATTERN && r->has_counters &&
            b->row.model_wavefronts >= 0) {
            double w = b->row.rec.req.access.op == BANK_STORE ? r->wavefronts_st : r->wavefronts_ld;
            b->row.agree = fabs(w - b->row.model_wavefronts) < 0.01;
        }
        if (tty)
            fprintf(stderr, "\r%d/%d", i + 1, B->n);
    }
    if (tty)
        fprintf(stderr, "\r");
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* What a learner waits for after changing a parameter: one new access, timed on all SMs
 * (with its conflict-free reference already measured) and counted on one warp. */
static void measure_latency(struct gpu *g, struct bench *B)
{
    for (unsigned s = 5; s < 5 + BENCH_LATENCY_RUNS; s++) {
        struct gpu_request q;
        struct gpu_result r;
        struct timespec t0, t1;
        memset(&q, 0, sizeof q);
        q.id = B->id++;
        q.kind = GPU_REQ_PATTERN;
        stride_access(&q.access, 4, s, 0);
        q.want_timing = q.want_counters = 1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        gpu_run(g, &q, &r, BENCH_TIMEOUT_MS);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (r.err.status == GPU_OK)
            B->lat[B->nlat++] = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
    }
    qsort(B->lat, (size_t)B->nlat, sizeof B->lat[0], cmp_double);
}

/* ---- output ---- */

static int write_json(struct bench *B)
{
    struct recording rec;
    recording_init(&rec);
    snprintf(rec.device, sizeof rec.device, "%s", B->info.device);
    now_utc(rec.date, sizeof rec.date);
    snprintf(rec.command, sizeof rec.command, "banklab bench --json%s", B->o.quick ? " --quick" : "");
    for (int i = 0; i < B->n; i++)
        if (recording_add(&rec, &B->rows[i].row)) {
            fprintf(stderr, "banklab bench: out of memory\n");
            B->failures++;
            break;
        }
    if (B->nlat)
        fprintf(stderr, "parameter change -> timing + counters: median %.1f ms\n",
                B->lat[B->nlat / 2]);
    if (recording_write(stdout, &rec)) {
        fprintf(stderr, "banklab bench: cannot write the recording\n");
        B->failures++;
    }
    recording_done(&rec);
    return 0;
}

static void write_csv(const struct bench *B)
{
    printf("group,label,model_wavefronts,counter_wavefronts_ld,counter_wavefronts_st,"
           "counter_conflicts_ld,counter_conflicts_st,ns_per_access,clk_per_access,slowdown,"
           "predicted_slowdown,ms_median,ms_min,ms_max,bytes_per_clk_per_sm,gbps,verified,"
           "status\n");
    for (int i = 0; i < B->n; i++) {
        const struct bench_row *b = &B->rows[i];
        const struct gpu_result *r = &b->row.rec.res;
        printf("%s,\"%s\",%d,%.3f,%.3f,%.3f,%.3f,%.4f,%.3f,%.4f,%.4f,%.5f,%.5f,%.5f,%.2f,%.1f,%d,"
               "%s\n", b->row.group, b->row.label, b->row.model_wavefronts, r->wavefronts_ld,
               r->wavefronts_st, r->conflicts_ld, r->conflicts_st, r->ns_per_access,
               r->clk_per_access, r->slowdown, b->pred_slowdown, r->ms_median, r->ms_min,
               r->ms_max, r->bytes_per_clk_per_sm, r->gbps, r->verified,
               r->err.status == GPU_OK ? "ok" : r->err.msg);
    }
}

static void print_sweep(const struct bench *B)
{
    printf("\nStride sweep (pattern kernel on all SMs). Time per warp access = SM clocks one warp\n"
           "instruction costs while every SM runs 64 warps of it (docs/gpu.md); slowdown = that\n"
           "time / the time of the conflict-free access of the same width and kind, measured by\n"
           "this process; pred = model wavefronts / those of the conflict-free access\n");
    printf("%-18s %5s %9s %9s %8s %8s %8s %7s %7s %9s\n", "access", "model", "counters",
           "conflicts", "ns/acc", "clk/acc", "slowdown", "pred", "err%", "B/clk/SM");
    double worst[17] = {0}, best_bw = 0;
    for (int i = 0; i < B->n; i++) {
        const struct bench_row *b = &B->rows[i];
        const struct gpu_result *r = &b->row.rec.res;
        if (strcmp(b->row.group, "sweep"))
            continue;
        int st = b->row.rec.req.access.op == BANK_STORE;
        unsigned w = b->row.rec.req.access.width;
        double err = r->has_access_timing && b->pred_slowdown > 0
                         ? (r->slowdown / b->pred_slowdown - 1) * 100 : NAN;
        if (!isnan(err) && !st && w <= 16 && fabs(err) > worst[w])
            worst[w] = fabs(err);
        if (w == 4 && !st && r->bytes_per_clk_per_sm > best_bw)
            best_bw = r->bytes_per_clk_per_sm;
        char cw[16] = "-", cc[16] = "-";
        if (r->has_counters) {
            snprintf(cw, sizeof cw, "%.2f", st ? r->wavefronts_st : r->wavefronts_ld);
            snprintf(cc, sizeof cc, "%.2f", st ? r->conflicts_st : r->conflicts_ld);
        }
        printf("%-18s %5d %9s %9s %8.2f %8.2f %8.2f %7.2f %7.1f %9.1f%s\n", b->row.label,
               b->row.model_wavefronts, cw, cc, r->ns_per_access, r->clk_per_access, r->slowdown,
               b->pred_slowdown, err, r->bytes_per_clk_per_sm,
               r->err.status == GPU_OK ? "" : "  FAILED");
    }
    double limit = 128.0 * B->info.sm_count * B->info.clock_khz * 1e3 / 1e12;
    printf("4-byte loads: worst |measured/predicted ratio - 1| = %.1f %% (goal <= 5 %%)\n", worst[4]);
    printf("other loads, worst |slowdown / predicted - 1|: 1 B %.1f %%, 2 B %.1f %%, 8 B %.1f %%, "
           "16 B %.1f %%\n", worst[1], worst[2], worst[8], worst[16]);
    printf("conflict-free 4-byte load: %.1f B/clk/SM = %.1f %% of 128 B/clk/SM "
           "(%.2f of %.2f TB/s at %.0f MHz x %d SMs)\n", best_bw, best_bw / 128 * 100,
           best_bw * B->info.sm_count * B->info.clock_khz * 1e3 / 1e12, limit,
           B->info.clock_khz / 1e3, B->info.sm_count);
}

static const struct gpu_result *find_case(const struct bench *B, const char *name)
{
    for (int i = 0; i < B->n; i++)
        if (B->rows[i].row.rec.req.kind == GPU_REQ_CASE &&
            !strcmp(B->rows[i].row.rec.req.case_name, name) &&
            B->rows[i].row.rec.res.err.status == GPU_OK)
            return &B->rows[i].row.rec.res;
    return NULL;
}

static void print_transposes(const struct bench *B)
{
    const struct gpu_result *mc = find_case(B, "memcpy"), *ck = find_case(B, "copy");
    double ceiling = 0;
    if (mc && mc->gbps > ceiling)
        ceiling = mc->gbps;
    if (ck && ck->gbps > ceiling)
        ceiling = ck->gbps;
    printf("\nCopy ceiling and transposes, 8192 x 8192 float (GB/s = bytes read + written)\n");
    printf("copy ceiling: %.0f GB/s (cudaMemcpy device to device %.0f, copy kernel %.0f)\n",
           ceiling, mc ? mc->gbps : 0, ck ? ck->gbps : 0);
    printf("%-22s %10s %9s %10s %6s %9s %9s %8s\n", "kernel", "ms median", "GB/s", "of ceiling",
           "model", "ld wf/in", "ld cf/in", "checked");
    for (int i = 0; i < B->n; i++) {
        const struct bench_row *b = &B->rows[i];
        const struct gpu_result *r = &b->row.rec.res;
        if (strcmp(b->row.group, "transpose"))
            continue;
        char cw[16] = "-", cc[16] = "-", mw[16] = "-";
        if (r->has_counters && r->inst_ld > 0) {
            snprintf(cw, sizeof cw, "%.2f", r->wavefronts_ld);
            snprintf(cc, sizeof cc, "%.2f", r->conflicts_ld);
        }
        if (b->row.model_wavefronts >= 0)
            snprintf(mw, sizeof mw, "%d", b->row.model_wavefronts);
        printf("%-22s %10.4f %9.0f %9.0f%% %6s %9s %9s %8s\n", b->row.rec.req.case_name,
               r->ms_median, r->gbps, ceiling > 0 ? r->gbps / ceiling * 100 : 0, mw, cw, cc,
               r->verified ? "yes" : (r->err.status == GPU_OK ? "-" : "FAILED"));
    }
}

static void print_cases(const struct bench *B)
{
    printf("\nCase kernels (counters per shared instruction of the whole kernel; model = the "
           "taught access; ms = kernel time)\n");
    printf("%-36s %6s %9s %9s %9s %10s %8s\n", "case", "model", "ld wf/in", "ld cf/in",
           "st wf/in", "ms median", "checked");
    for (int i = 0; i < B->n; i++) {
        const struct bench_row *b = &B->rows[i];
        const struct gpu_result *r = &b->row.rec.res;
        if (strcmp(b->row.group, "case"))
            continue;
        char cw[16] = "-", cc[16] = "-", sw[16] = "-", mw[16] = "-";
        if (r->has_counters) {
            snprintf(cw, sizeof cw, "%.2f", r->wavefronts_ld);
            snprintf(cc, sizeof cc, "%.2f", r->conflicts_ld);
            snprintf(sw, sizeof sw, "%.2f", r->wavefronts_st);
        }
        if (b->row.model_wavefronts >= 0)
            snprintf(mw, sizeof mw, "%d", b->row.model_wavefronts);
        printf("%-36s %6s %9s %9s %9s %10.4f %8s\n", b->row.label, mw, cw, cc, sw, r->ms_median,
               r->verified ? "yes" : (r->err.status == GPU_OK ? "-" : "FAILED"));
    }
}

static void print_text(const struct bench *B)
{
    printf("device: %s\n", CLI_CLEAN(B->info.device));
    print_sweep(B);
    print_transposes(B);
    if (!B->o.quick)
        print_cases(B);
    if (B->nlat)
        printf("\nparameter change -> new timing + counters (warm, 4-byte strides 5..11): median "
               "%.1f ms, min %.1f, max %.1f (aim < 150 ms)\n", B->lat[B->nlat / 2], B->lat[0],
               B->lat[B->nlat - 1]);
    if (!B->info.counters)
        printf("\ncounters: %s\n", CLI_CLEAN(B->info.counters_err.msg));
}

int cmd_bench(int argc, char **argv)
{
    static struct bench B;
    memset(&B, 0, sizeof B);
    B.id = 1;
    int rc = parse_args(argc, argv, &B.o);
    if (rc)
        return rc < 0 ? 0 : rc;
    struct gpu *g = gpu_open_auto(B.o.device, B.o.server, B.o.no_server, &B.info);
    if (!g) {
        fprintf(stderr, "banklab bench: out of memory\n");
        return EXIT_USAGE;
    }
    if (!B.info.available) {
        fprintf(stderr, "banklab bench: no GPU: %s\n", CLI_CLEAN(B.info.err.msg));
        gpu_close(g);
        return EXIT_NOGPU;
    }
    if (!B.info.counters && !B.o.json && !B.o.csv)
        printf("counters: %s (timings and the model are still shown)\n",
               CLI_CLEAN(B.info.counters_err.msg));
    if (add_sweep(&B) || add_cases(&B, 1) || (!B.o.quick && add_cases(&B, 0))) {
        gpu_close(g);
        free(B.rows);
        fprintf(stderr, "banklab bench: out of memory\n");
        return EXIT_USAGE;
    }
    run_rows(g, &B);
    measure_latency(g, &B);
    gpu_close(g);
    if (B.o.json)
        write_json(&B);
    else if (B.o.csv)
        write_csv(&B);
    else
        print_text(&B);
    free(B.rows);
    return B.failures ? EXIT_CHECK : 0;
}
