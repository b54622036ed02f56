/* bench.c: `banklab bench`: GPU measurements against the model. A stride sweep of the pattern
 * kernel (4-byte strides 1..32, 8- and 16-byte cases, a few stores), the transpose family and
 * the case kernels; a table of predicted vs measured with ratios, or the recording format
 * (--json, docs/gpu.md) or CSV. No curses. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../gpu/gpu.h"
#include "../lesson/recording.h"
#include "../model/bank.h"
#include "cli.h"

#define BENCH_TIMEOUT_MS 120000

struct bench_row {
    struct recording_row row;
    double pred_ratio;       /* predicted time ratio to the reference row (sweep) */
    double meas_ratio;       /* measured */
    int ref;                 /* index of the reference row (-1: none) */
};

static void usage(FILE *f)
{
    fprintf(f, "usage: banklab bench [--json | --csv] [--device N] [--quick]\n"
               "  GPU measurements vs the bank model: stride sweep, transpose, case kernels.\n"
               "  --json writes the recording format (docs/gpu.md) that --replay reads.\n");
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

static long long pv(const struct gpu_request *q, const char *name, long long def)
{
    for (int i = 0; i < q->nparams; i++)
        if (!strcmp(q->param_name[i], name))
            return q->param_value[i];
    return def;
}

/* The model's view of a case kernel's taught shared load (lane l's byte offset at the first
 * step of its loop; the other steps shift every lane alike). -1 when not modelled here. */
static int case_model(const struct gpu_request *q, int *conf)
{
    const char *name = q->case_name;
    struct bank_access a;
    memset(&a, 0, sizeof a);
    a.width = 4;
    a.mask = 0xffffffffu;
    for (int l = 0; l < BANK_LANES; l++) {
        uint64_t off;
        if (!strcmp(name, "transpose_tile32"))
            off = (uint64_t)l * 32 * 4;
        else if (!strcmp(name, "transpose_padded"))
            off = (uint64_t)l * (uint64_t)(32 + pv(q, "PAD", 1)) * 4;
        else if (!strcmp(name, "transpose_swizzled"))
            off = ((uint64_t)l * 32 + (uint64_t)(0 ^ l)) * 4;
        else if (!strcmp(name, "row_col"))
            off = pv(q, "COLUMN", 1) ? (uint64_t)l * (uint64_t)(32 + pv(q, "PAD", 0)) * 4
                                     : (uint64_t)l * 4;
        else if (!strcmp(name, "vector_width")) {
            long long vec = pv(q, "VEC", 4);
            a.width = (unsigned)(4 * vec);
            off = (uint64_t)l * (uint64_t)(32 + pv(q, "PAD", 0) * vec) * 4;
        } else if (!strcmp(name, "aos_soa"))
            off = pv(q, "SOA", 0) ? (uint64_t)l * 4 : (uint64_t)l * (uint64_t)pv(q, "FIELDS", 4) * 4;
        else if (!strcmp(name, "remap"))
            off = (uint64_t)l * 32 * 4 + (pv(q, "REMAP", 1) ? (uint64_t)l * 4 : 0);
        else if (!strcmp(name, "broadcast"))
            off = (uint64_t)(((l / pv(q, "GROUP", 32)) * pv(q, "STRIDE", 1)) & 1023) * 4;
        else
            return -1;
        a.offset[l] = off;
    }
    int wf;
    if (model_of(&a, &wf, conf))
        return -1;
    return wf;
}

static void add_param(struct gpu_request *q, const char *name, long long v)
{
    if (q->nparams >= GPU_CASE_MAX_PARAMS)
        return;
    snprintf(q->param_name[q->nparams], sizeof q->param_name[0], "%s", name);
    q->param_value[q->nparams++] = v;
}

struct case_spec {
    const char *group, *name, *p1;
    long long v1;
    const char *p2;
    long long v2;
};

static const struct case_spec transpose_cases[] = {
    {"transpose", "copy", NULL, 0, NULL, 0},
    {"transpose", "transpose_naive", NULL, 0, NULL, 0},
    {"transpose", "transpose_tile32", NULL, 0, NULL, 0},
    {"transpose", "transpose_padded", "PAD", 1, NULL, 0},
    {"transpose", "transpose_swizzled", NULL, 0, NULL, 0},
};

static const struct case_spec other_cases[] = {
    {"case", "row_col", "PAD", 0, "COLUMN", 0},
    {"case", "row_col", "PAD", 0, "COLUMN", 1},
    {"case", "row_col", "PAD", 1, "COLUMN", 1},
    {"case", "vector_width", "VEC", 1, "PAD", 0},
    {"case", "vector_width", "VEC", 1, "PAD", 1},
    {"case", "vector_width", "VEC", 2, "PAD", 0},
    {"case", "vector_width", "VEC", 2, "PAD", 1},
    {"case", "vector_width", "VEC", 4, "PAD", 0},
    {"case", "vector_width", "VEC", 4, "PAD", 1},
    {"case", "aos_soa", "FIELDS", 2, "SOA", 0},
    {"case", "aos_soa", "FIELDS", 3, "SOA", 0},
    {"case", "aos_soa", "FIELDS", 4, "SOA", 0},
    {"case", "aos_soa", "FIELDS", 4, "SOA", 1},
    {"case", "remap", "REMAP", 0, NULL, 0},
    {"case", "remap", "REMAP", 1, NULL, 0},
    {"case", "broadcast", "GROUP", 32, "STRIDE", 1},
    {"case", "broadcast", "GROUP", 4, "STRIDE", 1},
    {"case", "broadcast", "GROUP", 1, "STRIDE", 32},
    {"case", "dynamic_carve", "N", 1024, "PAD_BYTES", 0},
    {"case", "dynamic_carve", "N", 1000, "PAD_BYTES", 0},
};

int cmd_bench(int argc, char **argv)
{
    int json = 0, csv = 0, quick = 0, device = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = 1;
        else if (!strcmp(argv[i], "--csv"))
            csv = 1;
        else if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--device")) {
            long long v;
            if (cli_int_arg("bench", "--device", i + 1 < argc ? argv[++i] : NULL, 0, CLI_DEVICE_MAX,
                            &v))
                return EXIT_USAGE;
            device = (int)v;
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "banklab bench: unknown argument '%s'\n", argv[i]);
            usage(stderr);
            return EXIT_USAGE;
        }
    }
    if (json && csv) {
        fprintf(stderr, "banklab bench: --json and --csv exclude each other\n");
        return EXIT_USAGE;
    }
    struct gpu_info info;
    struct gpu *g = gpu_open(device, &info);
    if (!g) {
        fprintf(stderr, "banklab bench: out of memory\n");
        return EXIT_USAGE;
    }
    if (!info.available) {
        fprintf(stderr, "banklab bench: no GPU: %s\n", info.reason);
        gpu_close(g);
        return EXIT_NOGPU;
    }
    if (!info.counters && !json && !csv)
        printf("counters: %s (timings and the model are still shown)\n", info.counters_reason);

    struct bench_row *rows = NULL;
    int nrows = 0, cap = 0, failures = 0;
    uint64_t id = 1;

    /* Requests: sweep first, then transposes and cases. */
    struct sweep_item {
        unsigned width, stride;
        int store;
    } sweep[64];
    int nsweep = 0;
    static const unsigned quick4[] = {1, 2, 3, 4, 8, 16, 17, 32, 33};
    if (quick) {
        for (size_t i = 0; i < sizeof quick4 / sizeof quick4[0]; i++)
            sweep[nsweep++] = (struct sweep_item){4, quick4[i], 0};
    } else {
        for (unsigned s = 1; s <= 32; s++)
            sweep[nsweep++] = (struct sweep_item){4, s, 0};
        sweep[nsweep++] = (struct sweep_item){4, 33, 0};
    }
    static const unsigned s8[] = {1, 2, 16, 32}, s16[] = {1, 2, 8, 33};
    for (int i = 0; i < 4; i++)
        sweep[nsweep++] = (struct sweep_item){8, s8[i], 0};
    for (int i = 0; i < 4; i++)
        sweep[nsweep++] = (struct sweep_item){16, s16[i], 0};
    sweep[nsweep++] = (struct sweep_item){4, 1, 1};
    sweep[nsweep++] = (struct sweep_item){4, 2, 1};
    sweep[nsweep++] = (struct sweep_item){4, 32, 1};

    int total = nsweep + (int)(sizeof transpose_cases / sizeof transpose_cases[0]) +
                (quick ? 0 : (int)(sizeof other_cases / sizeof other_cases[0]));
    rows = calloc((size_t)total, sizeof *rows);
    if (!rows) {
        gpu_close(g);
        fprintf(stderr, "banklab bench: out of memory\n");
        return EXIT_USAGE;
    }
    cap = total;
    int ref_of_width[17] = {0};
    for (int i = 0; i < 17; i++)
        ref_of_width[i] = -1;
    for (int i = 0; i < nsweep && nrows < cap; i++) {
        struct bench_row *b = &rows[nrows];
        struct gpu_request *q = &b->row.rec.req;
        q->id = id++;
        q->kind = GPU_REQ_PATTERN;
        stride_access(&q->access, sweep[i].width, sweep[i].stride, sweep[i].store);
        q->want_timing = 1;
        q->want_counters = 1;
        snprintf(b->row.group, sizeof b->row.group, "sweep");
        snprintf(b->row.label, sizeof b->row.label, "%u B %s stride %u", sweep[i].width,
                 sweep[i].store ? "st" : "ld", sweep[i].stride);
        model_of(&q->access, &b->row.model_wavefronts, &b->row.model_conflicts);
        b->row.agree = -1;
        b->ref = -1;
        if (!sweep[i].store) {
            if (sweep[i].stride == 1)
                ref_of_width[sweep[i].width] = nrows;
            b->ref = ref_of_width[sweep[i].width];
        } else {
            b->ref = sweep[i].stride == 1 ? nrows : nrows - (sweep[i].stride == 2 ? 1 : 2);
        }
        nrows++;
    }
    const struct case_spec *lists[2] = {transpose_cases, other_cases};
    int lens[2] = {(int)(sizeof transpose_cases / sizeof transpose_cases[0]),
                   quick ? 0 : (int)(sizeof other_cases / sizeof other_cases[0])};
    for (int li = 0; li < 2; li++) {
        for (int i = 0; i < lens[li] && nrows < cap; i++) {
            const struct case_spec *c = &lists[li][i];
            struct bench_row *b = &rows[nrows];
            struct gpu_request *q = &b->row.rec.req;
            q->id = id++;
            q->kind = GPU_REQ_CASE;
            snprintf(q->case_name, sizeof q->case_name, "%s", c->name);
            if (c->p1)
                add_param(q, c->p1, c->v1);
            if (c->p2)
                add_param(q, c->p2, c->v2);
            q->want_timing = 1;
            q->want_counters = 1;
            snprintf(b->row.group, sizeof b->row.group, "%s", c->group);
            if (c->p2)
                snprintf(b->row.label, sizeof b->row.label, "%s %s=%lld %s=%lld", c->name, c->p1,
                         c->v1, c->p2, c->v2);
            else if (c->p1)
                snprintf(b->row.label, sizeof b->row.label, "%s %s=%lld", c->name, c->p1, c->v1);
            else
                snprintf(b->row.label, sizeof b->row.label, "%s", c->name);
            int conf = -1, wf = case_model(q, &conf);
            b->row.model_wavefronts = wf;
            b->row.model_conflicts = wf >= 0 ? conf : -1;
            b->row.agree = -1;
            b->ref = -1;
            nrows++;
        }
    }

    for (int i = 0; i < nrows; i++) {
        struct gpu_result *r = &rows[i].row.rec.res;
        gpu_run(g, &rows[i].row.rec.req, r, BENCH_TIMEOUT_MS);
        if (r->status != GPU_OK) {
            failures++;
            fprintf(stderr, "banklab bench: %s: %s\n", rows[i].row.label, r->error);
        }
        if (!json && !csv && isatty(2))
            fprintf(stderr, "\r%d/%d", i + 1, nrows);
    }
    if (!json && !csv && isatty(2))
        fprintf(stderr, "\r");
    /* What a learner waits for after changing a parameter: one new access, timed on all SMs
     * and counted on one warp (warm: the context, buffers and CUPTI are set up). */
    double lat[7];
    int nlat = 0;
    for (unsigned s = 5; s < 12; s++) {
        struct gpu_request q;
        struct gpu_result r;
        struct timespec t0, t1;
        memset(&q, 0, sizeof q);
        q.id = id++;
        q.kind = GPU_REQ_PATTERN;
        stride_access(&q.access, 4, s, 0);
        q.want_timing = q.want_counters = 1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        gpu_run(g, &q, &r, BENCH_TIMEOUT_MS);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (r.status == GPU_OK)
            lat[nlat++] = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
    }
    gpu_close(g);
    double lat_med = 0;
    if (nlat) {
        for (int i = 0; i < nlat; i++)
            for (int j = i + 1; j < nlat; j++)
                if (lat[j] < lat[i]) {
                    double t = lat[i];
                    lat[i] = lat[j];
                    lat[j] = t;
                }
        lat_med = lat[nlat / 2];
    }

    for (int i = 0; i < nrows; i++) {
        struct bench_row *b = &rows[i];
        int ref = b->ref;
        b->pred_ratio = b->meas_ratio = NAN;
        if (ref >= 0 && rows[ref].row.rec.res.has_timing && b->row.rec.res.has_timing &&
            rows[ref].row.model_wavefronts > 0) {
            /* Launches differ in accesses per thread (about the same time each), so compare
             * time per request: clk/request. */
            b->pred_ratio = (double)b->row.model_wavefronts / rows[ref].row.model_wavefronts;
            if (rows[ref].row.rec.res.clk_per_request > 0)
                b->meas_ratio = b->row.rec.res.clk_per_request /
                                rows[ref].row.rec.res.clk_per_request;
        }
        if (b->row.rec.res.has_counters && b->row.model_wavefronts >= 0 &&
            !strcmp(b->row.group, "sweep")) {
            double w = b->row.rec.req.access.op == BANK_STORE ? b->row.rec.res.wavefronts_st
                                                               : b->row.rec.res.wavefronts_ld;
            b->row.agree = fabs(w - b->row.model_wavefronts) < 0.01;
        }
    }

    if (json) {
        struct recording rec;
        recording_init(&rec);
        snprintf(rec.device, sizeof rec.device, "%s", info.device);
        now_utc(rec.date, sizeof rec.date);
        snprintf(rec.command, sizeof rec.command, "banklab bench --json%s", quick ? " --quick" : "");
        for (int i = 0; i < nrows; i++)
            if (recording_add(&rec, &rows[i].row)) {
                fprintf(stderr, "banklab bench: out of memory\n");
                failures++;
                break;
            }
        if (nlat)
            fprintf(stderr, "parameter change -> timing + counters: median %.1f ms\n", lat_med);
        if (recording_write(stdout, &rec)) {
            fprintf(stderr, "banklab bench: cannot write the recording\n");
            failures++;
        }
        recording_done(&rec);
        free(rows);
        return failures ? EXIT_CHECK : 0;
    }
    if (csv) {
        printf("group,label,model_wavefronts,counter_wavefronts_ld,counter_wavefronts_st,"
               "counter_conflicts_ld,counter_conflicts_st,ms_median,ms_min,ms_max,"
               "predicted_ratio,measured_ratio,clk_per_request,bytes_per_clk_per_sm,gbps,"
               "verified,status\n");
        for (int i = 0; i < nrows; i++) {
            const struct bench_row *b = &rows[i];
            const struct gpu_result *r = &b->row.rec.res;
            printf("%s,\"%s\",%d,%.3f,%.3f,%.3f,%.3f,%.5f,%.5f,%.5f,%.4f,%.4f,%.3f,%.2f,%.1f,%d,%s\n",
                   b->row.group, b->row.label, b->row.model_wavefronts, r->wavefronts_ld,
                   r->wavefronts_st, r->conflicts_ld, r->conflicts_st, r->ms_median, r->ms_min,
                   r->ms_max, b->pred_ratio, b->meas_ratio, r->clk_per_request,
                   r->bytes_per_clk_per_sm, r->gbps, r->verified,
                   r->status == GPU_OK ? "ok" : r->error);
        }
        free(rows);
        return failures ? EXIT_CHECK : 0;
    }

    printf("device: %s\n", info.device);
    printf("\nStride sweep (pattern kernel, all SMs; ratio = time per request / that of stride 1 "
           "of the same width and op;\n pred = model wavefronts / those of stride 1)\n");
    printf("%-18s %5s %9s %9s %8s %8s %8s %7s %7s %9s\n", "access", "model", "counters",
           "conflicts", "clk/req", "spread%", "ratio", "pred", "err%", "B/clk/SM");
    double worst = 0, best_bw = 0;
    for (int i = 0; i < nrows; i++) {
        const struct bench_row *b = &rows[i];
        const struct gpu_result *r = &b->row.rec.res;
        if (strcmp(b->row.group, "sweep"))
            continue;
        int st = b->row.rec.req.access.op == BANK_STORE;
        double err = isnan(b->meas_ratio) ? NAN : (b->meas_ratio / b->pred_ratio - 1) * 100;
        if (!isnan(err) && b->row.rec.req.access.width == 4 && !st && fabs(err) > worst)
            worst = fabs(err);
        if (b->row.rec.req.access.width == 4 && !st && r->bytes_per_clk_per_sm > best_bw)
            best_bw = r->bytes_per_clk_per_sm;
        char cw[16] = "-", cc[16] = "-";
        if (r->has_counters) {
            snprintf(cw, sizeof cw, "%.2f", st ? r->wavefronts_st : r->wavefronts_ld);
            snprintf(cc, sizeof cc, "%.2f", st ? r->conflicts_st : r->conflicts_ld);
        }
        printf("%-18s %5d %9s %9s %8.2f %8.1f %8.2f %7.2f %7.1f %9.1f%s\n", b->row.label,
               b->row.model_wavefronts, cw, cc, r->clk_per_request,
               r->ms_median > 0 ? (r->ms_max - r->ms_min) / r->ms_median * 100 : 0,
               b->meas_ratio, b->pred_ratio, err, r->bytes_per_clk_per_sm,
               r->status == GPU_OK ? "" : "  FAILED");
    }
    double limit = 128.0 * info.sm_count * info.clock_khz * 1e3 / 1e12;
    printf("4-byte loads: worst |measured/predicted ratio - 1| = %.1f %% (goal <= 5 %%)\n", worst);
    printf("conflict-free 4-byte load: %.1f B/clk/SM = %.1f %% of 128 B/clk/SM "
           "(%.2f of %.2f TB/s at %.0f MHz x %d SMs)\n", best_bw, best_bw / 128 * 100,
           best_bw * info.sm_count * info.clock_khz * 1e3 / 1e12, limit, info.clock_khz / 1e3,
           info.sm_count);

    printf("\nTranspose 8192 x 8192 float (GB/s = read + write)\n");
    printf("%-22s %10s %9s %8s %6s %9s %9s %8s\n", "kernel", "ms median", "GB/s", "of copy",
           "model", "ld wf/in", "ld cf/in", "checked");
    double copy_gbps = 0;
    for (int i = 0; i < nrows; i++)
        if (!strcmp(rows[i].row.rec.req.case_name, "copy"))
            copy_gbps = rows[i].row.rec.res.gbps;
    for (int i = 0; i < nrows; i++) {
        const struct bench_row *b = &rows[i];
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
        printf("%-22s %10.4f %9.0f %7.0f%% %6s %9s %9s %8s\n", b->row.label, r->ms_median,
               r->gbps, copy_gbps > 0 ? r->gbps / copy_gbps * 100 : 0, mw, cw, cc,
               r->verified ? "yes" : (r->status == GPU_OK ? "-" : "FAILED"));
    }

    if (!quick) {
        printf("\nCase kernels (per shared load instruction; model = the taught access)\n");
        printf("%-36s %6s %9s %9s %9s %9s %10s %8s\n", "case", "model", "ld wf/in", "ld cf/in",
               "st wf/in", "clk/req", "ms median", "checked");
        for (int i = 0; i < nrows; i++) {
            const struct bench_row *b = &rows[i];
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
            printf("%-36s %6s %9s %9s %9s %9.2f %10.4f %8s\n", b->row.label, mw, cw, cc, sw,
                   r->clk_per_request, r->ms_median,
                   r->verified ? "yes" : (r->status == GPU_OK ? "-" : "FAILED"));
        }
    }
    if (nlat)
        printf("\nparameter change -> new timing + counters (warm, 4-byte strides 5..11): median "
               "%.1f ms, min %.1f, max %.1f (aim < 150 ms)\n", lat_med, lat[0], lat[nlat - 1]);
    if (!info.counters)
        printf("\ncounters: %s\n", info.counters_reason);
    free(rows);
    return failures ? EXIT_CHECK : 0;
}
