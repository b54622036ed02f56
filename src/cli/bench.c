/* bench.c: `banklab bench`: GPU measurements against the model. A stride sweep of the pattern
 * kernel (every width, loads and stores) with the time of one warp access and its slowdown
 * against the conflict-free access; the copy ceiling (cudaMemcpy device to device and a copy
 * kernel that reaches it) and the transpose family as a share of it; the case kernels; a
 * table of predicted vs measured, or the recording format (--json, docs/gpu.md) or CSV.
 * --both measures everything through the GPU server (as learners do) and again in this
 * process and fails when the two disagree. No curses. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../base/wrap.h"
#include "../base/buf.h"
#include "../base/err.h"
#include "../gpu/gpu.h"
#include "../serve/serve.h"
#include "../store/recording.h"
#include "../model/bank.h"
#include "cli.h"
#include "../sys/sys.h"

#define BENCH_TIMEOUT_MS 120000
#define BENCH_LATENCY_RUNS 7
#define BOTH_TIME_TOLERANCE 0.10  /* --both: a time of one path within 10 % of the other's */
#define BOTH_LIST 40

struct bench_row {
    struct recording_row row;
    double pred_slowdown;    /* model wavefronts / those of the conflict-free access (sweep) */
    unsigned stride;         /* the sweep's stride in elements (row.label says it in English) */
};

struct bench_opts {
    int json, csv, quick, device, no_server, both;
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
    int lat_cached;              /* latency requests the server's cache answered (not counted) */
};

static void usage(FILE *f);

enum { OPT_JSON = CLI_KEY_FIRST, OPT_CSV, OPT_QUICK, OPT_BOTH, OPT_DEVICE };

static const struct cli_opt bench_options[] = {
    CLI_ROW("json", 0, NULL, CLI_OH_BENCH_JSON, OPT_JSON),
    CLI_ROW("csv", 0, NULL, 0, OPT_CSV),
    CLI_ROW("quick", 0, NULL, CLI_OH_BENCH_QUICK, OPT_QUICK),
    CLI_SERVER_ROWS(CLI_OH_BENCH_SERVER, CLI_OH_BENCH_NO_SERVER),
    CLI_ROW("both", 0, NULL, CLI_OH_BENCH_BOTH, OPT_BOTH),
    CLI_ROW("device", 0, "VALUE", 0, OPT_DEVICE),
    CLI_LANG_ROW(0),
    CLI_ROW_HELP(0),
    CLI_ROW_END};

static int bench_opt(void *ctx, int key, const char *name, const char *val);

static const struct cli_cmd bench_cmd = {"bench", bench_options, 0, CLI_UNKNOWN_ARGUMENT, usage,
    usage, bench_opt, 19, 2, 0};

/* --help, and after a usage error: the usage and what bench does, then its options */
static void usage(FILE *f)
{
    cli_say(f, CLI_HELP_BENCH);
    cli_opt_help(f, &bench_cmd);
}

static int bench_opt(void *ctx, int key, const char *name, const char *val)
{
    struct bench_opts *o = ctx;
    int *flag[] = {&o->json, &o->csv, &o->quick, &o->both};
    if (key >= OPT_JSON && key <= OPT_BOTH) {
        *flag[key - OPT_JSON] = 1;
        return 0;
    }
    if (key == OPT_DEVICE)
        return cli_int_opt(&bench_cmd, name, val, 0, CLI_DEVICE_MAX, &o->device);
    if (key == CLI_SERVER || key == CLI_NO_SERVER)
        return cli_server_opt(&bench_cmd, key, val, &o->server, &o->no_server);
    return cli_usage_error(&bench_cmd, bench_cmd.unknown, CLI_CLEAN(val ? val : name));
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
    if (bl_grow(&B->rows, &B->cap, B->n + 1, sizeof *B->rows, 128))
        return NULL;
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
    snprintf(b->row.label, sizeof b->row.label, bl_msg_format(BN_SWEEP_LABEL, BL_LANG_EN), width,
             store ? "st" : "ld", stride);   /* English: the JSON, CSV and recording's label */
    b->stride = stride;
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
            cli_tell("bench", CLI_PATH_SAYS, b->row.label, CLI_CLEAN(CLI_ERR(&r->err)));
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
 * (with its conflict-free reference already measured) and counted on one warp. New also to a
 * GPU server's cache: the strides 5..11 the sweep measured, moved by a multiple of 128 bytes
 * (the same banks, the same figures) that this run picks, so the server measures them; an
 * answer from its cache all the same (another run picked the same) is not counted. */
static void measure_latency(struct gpu *g, struct bench *B)
{
    /* at most 8 KiB further: the launch keeps its 8 blocks an SM */
    uint64_t base = 128u * (1u + ((uint64_t)bl_now_ms() ^ (uint64_t)getpid() * 2654435761u) % 64u);
    B->nlat = B->lat_cached = 0;
    for (unsigned s = 5; s < 5 + BENCH_LATENCY_RUNS; s++) {
        struct gpu_request q;
        struct gpu_result r;
        memset(&q, 0, sizeof q);
        q.id = B->id++;
        q.kind = GPU_REQ_PATTERN;
        stride_access(&q.access, 4, s, 0);
        for (int l = 0; l < BANK_LANES; l++)
            q.access.offset[l] += base;
        q.want_timing = q.want_counters = 1;
        double t0 = bl_now_ms();
        gpu_run(g, &q, &r, BENCH_TIMEOUT_MS);
        if (r.err.status == GPU_OK && r.from_cache)
            B->lat_cached++;
        else if (r.err.status == GPU_OK)
            B->lat[B->nlat++] = bl_now_ms() - t0;
    }
    qsort(B->lat, (size_t)B->nlat, sizeof B->lat[0], cmp_double);
}

/* ---- --both: through the server and in this process ---- */

struct bench_both {
    struct gpu_result *in;       /* each row's result in this process */
    double lat[BENCH_LATENCY_RUNS];
    int nlat;
    int agree, differ, one_path;
    double worst_time;           /* the largest |in-process / server - 1| of a compared time */
};

/* the time of one path against the other's: within BOTH_TIME_TOLERANCE (both > 0) */
static int time_near(double a, double b, double *worst)
{
    if (!(a > 0 && b > 0))
        return 1;
    double d = fabs(b / a - 1);
    *worst = d > *worst ? d : *worst;
    return d <= BOTH_TIME_TOLERANCE;
}

/* 1: row b's result a (server) and c (in-process) agree; 0: they differ; -1: one path could
 * not measure it (not a difference). Counters per instruction equal (a whole kernel's within
 * 1 %), the same checked output, times within 10 %. */
static int row_agrees(const struct bench_row *b, const struct gpu_result *a,
                      const struct gpu_result *c, double *worst)
{
    if (a->err.status == GPU_EINVAL || c->err.status == GPU_EINVAL)
        return a->err.status == c->err.status;
    if (a->err.status != GPU_OK || c->err.status != GPU_OK)
        return a->err.status == GPU_EVERIFY || c->err.status == GPU_EVERIFY ? 0 : -1;
    int is_case = b->row.rec.req.kind == GPU_REQ_CASE;
    if (is_case && !a->verified != !c->verified)
        return 0;
    if (a->has_counters && c->has_counters) {
        const double x[] = {a->wavefronts_ld, a->wavefronts_st, a->conflicts_ld, a->conflicts_st};
        const double y[] = {c->wavefronts_ld, c->wavefronts_st, c->conflicts_ld, c->conflicts_st};
        for (int i = 0; i < 4; i++)
            if (fabs(x[i] - y[i]) > (is_case ? fmax(0.02, 0.01 * fabs(x[i])) : 0.01))
                return 0;
    } else if (a->has_counters != c->has_counters) {
        return -1;
    }
    int ok = 1;
    if (a->has_access_timing && c->has_access_timing)
        ok &= time_near(a->clk_per_access, c->clk_per_access, worst);
    if (is_case && a->has_timing && c->has_timing)
        ok &= time_near(a->ms_median, c->ms_median, worst);
    return ok;
}

/* --both's second path: every row and the latency again in this process (or, with
 * BANKLAB_SERVE_FAKE=1, on the fake device in this process), then compared. 0, or the exit
 * status after one line. */
static int bench_in_process(struct bench *B, struct bench_both *bb)
{
    bb->in = malloc((size_t)(B->n ? B->n : 1) * sizeof *bb->in);
    struct gpu_result *srv = malloc((size_t)(B->n ? B->n : 1) * sizeof *srv);
    if (!bb->in || !srv) {
        free(srv);
        cli_tell("bench", CLI_F_OUT_MEMORY);
        return EXIT_USAGE;
    }
    for (int i = 0; i < B->n; i++)
        srv[i] = B->rows[i].row.rec.res;
    struct timespec ts = {1, 500000000L};  /* the server gives the counters back after a quiet
                                              second (runner/cuda_gpu.c) */
    while (nanosleep(&ts, &ts) == -1) {
    }
    const char *fake = sys_env("BANKLAB_SERVE_FAKE");
    unsetenv("BANKLAB_SERVER");         /* it would win over --no-server */
    struct gpu_info info;
    int rc = EXIT_USAGE;
    struct gpu *g = fake && !strcmp(fake, "1")
                        ? serve_fake_open(0, &info)
                        : cli_open_gpu("bench", NULL, B->o.device, NULL, 1, &info, &rc);
    if (!g) {
        free(srv);
        return rc;
    }
    int failures = B->failures;
    double lat[BENCH_LATENCY_RUNS];
    int nlat = B->nlat;
    memcpy(lat, B->lat, sizeof lat);
    run_rows(g, B);
    measure_latency(g, B);
    gpu_close(g);
    B->failures = failures;
    memcpy(bb->lat, B->lat, sizeof bb->lat);
    bb->nlat = B->nlat;
    memcpy(B->lat, lat, sizeof lat);
    B->nlat = nlat;
    for (int i = 0; i < B->n; i++) {
        bb->in[i] = B->rows[i].row.rec.res;
        B->rows[i].row.rec.res = srv[i];
        int s = row_agrees(&B->rows[i], &srv[i], &bb->in[i], &bb->worst_time);
        bb->agree += s == 1;
        bb->differ += s == 0;
        bb->one_path += s < 0;
    }
    free(srv);
    return 0;
}

static void print_both(const struct bench *B, const struct bench_both *bb, FILE *f)
{
    int listed = 0;
    for (int i = 0; i < B->n && listed < BOTH_LIST; i++) {
        const struct bench_row *b = &B->rows[i];
        const struct gpu_result *a = &b->row.rec.res, *c = &bb->in[i];
        double w = 0;
        if (row_agrees(b, a, c, &w) != 0)
            continue;
        listed++;
        cli_say(f, BN_BOTH_DIFFER, b->row.label, gpu_status_name((enum gpu_status)a->err.status) ?
                gpu_status_name((enum gpu_status)a->err.status) : "?", a->wavefronts_ld,
                a->conflicts_ld, a->wavefronts_st, a->conflicts_st, a->clk_per_access,
                a->ms_median, a->verified ? cli_msg(BN_BOTH_CHECKED) : "",
                gpu_status_name((enum gpu_status)c->err.status) ?
                gpu_status_name((enum gpu_status)c->err.status) : "?", c->wavefronts_ld,
                c->conflicts_ld, c->wavefronts_st, c->conflicts_st, c->clk_per_access,
                c->ms_median, c->verified ? cli_msg(BN_BOTH_CHECKED) : "");
    }
    cli_say(f, BN_BOTH_SUM, bb->agree,
            bb->agree + bb->differ + bb->one_path, bb->differ, bb->one_path, bb->worst_time * 100);
    if (B->nlat && bb->nlat)
        cli_say(f, BN_BOTH_LATENCY, B->lat[B->nlat / 2], B->lat[0], B->lat[B->nlat - 1], bb->lat[bb->nlat / 2],
                bb->lat[0], bb->lat[bb->nlat - 1]);
}

/* ---- output ---- */

static int write_json(struct bench *B)
{
    struct recording rec;
    recording_init(&rec);
    snprintf(rec.device, sizeof rec.device, "%s", B->info.device);
    cli_now_utc(rec.date, sizeof rec.date);
    snprintf(rec.command, sizeof rec.command, "banklab bench --json%s", B->o.quick ? " --quick" : "");
    for (int i = 0; i < B->n; i++)
        if (recording_add(&rec, &B->rows[i].row)) {
            cli_tell("bench", CLI_F_OUT_MEMORY);
            B->failures++;
            break;
        }
    if (B->nlat)
        cli_say(stderr, BN_JSON_LATENCY, B->lat[B->nlat / 2]);
    if (recording_write(stdout, &rec)) {
        cli_tell("bench", CLI_F_CANNOT_WRITE_RECORDING);
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

/* A table cell: v with 2 decimals ("%.0f": whole) when have, else "-". CELL and MODEL_CELL
 * (a row's model wavefronts, -1: none) keep the text until the end of the statement. */
static const char *cell(char *buf, size_t n, int have, const char *fmt, double v)
{
    if (!have)
        return "-";
    snprintf(buf, n, fmt, v);
    return buf;
}
#define CELL(have, v) cell((char[16]){0}, 16, (have), "%.2f", (v))
#define MODEL_CELL(b) cell((char[16]){0}, 16, (b)->row.model_wavefronts >= 0, "%.0f", \
                           (double)(b)->row.model_wavefronts)

/* s in a column w wide (negative: left-aligned), counted in columns (a Chinese character
 * takes 2) */
static void cell_text(const char *s, int w)
{
    int cols = bl_cols(s);
    int pad = (w < 0 ? -w : w) - cols;
    printf("%*s%s%*s", w > 0 && pad > 0 ? pad : 0, "", s, w < 0 && pad > 0 ? pad : 0, "");
}

/* a table's head: each message id in its column (cell_text), a space between */
static void head(const int *id, const int *w, int n)
{
    for (int i = 0; i < n; i++) {
        if (i)
            putchar(' ');
        cell_text(cli_msg(id[i]), w[i]);
    }
    putchar('\n');
}

static void print_sweep(const struct bench *B)
{
    cli_say(stdout, BN_SWEEP_TITLE);
    head((const int[]){BN_ACCESS, BN_MODEL, BN_COUNTERS, BN_CONFLICTS, BN_NS_ACC, BN_CLK_ACC,
                       BN_SLOWDOWN, BN_PRED, BN_ERR, BN_BW},
         (const int[]){-18, 5, 9, 9, 8, 8, 8, 7, 7, 9}, 10);
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
        int c = r->has_counters;
        char label[64];       /* row.label in the language of the text */
        snprintf(label, sizeof label, cli_msg(BN_SWEEP_LABEL), w, st ? "st" : "ld", b->stride);
        cell_text(label, -18);
        printf(" %5d %9s %9s %8.2f %8.2f %8.2f %7.2f %7.1f %9.1f%s\n", b->row.model_wavefronts, CELL(c, st ? r->wavefronts_st : r->wavefronts_ld),
               CELL(c, st ? r->conflicts_st : r->conflicts_ld), r->ns_per_access,
               r->clk_per_access, r->slowdown, b->pred_slowdown, err, r->bytes_per_clk_per_sm,
               r->err.status == GPU_OK ? "" : cli_msg(BN_FAILED_MARK));
    }
    double limit = 128.0 * B->info.sm_count * B->info.clock_khz * 1e3 / 1e12;
    cli_say(stdout, BN_WORST4, worst[4]);
    cli_say(stdout, BN_WORST_OTHER, worst[1], worst[2], worst[8], worst[16]);
    cli_say(stdout, BN_BANDWIDTH, best_bw, best_bw / 128 * 100,
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
    cli_say(stdout, BN_COPY_TITLE);
    cli_say(stdout, BN_CEILING, ceiling, mc ? mc->gbps : 0, ck ? ck->gbps : 0);
    head((const int[]){BN_KERNEL, BN_MS_MEDIAN, BN_GBS, BN_OF_CEILING, BN_MODEL, BN_LD_WF,
                       BN_LD_CF, BN_CHECKED},
         (const int[]){-22, 10, 9, 10, 6, 9, 9, 8}, 8);
    for (int i = 0; i < B->n; i++) {
        const struct bench_row *b = &B->rows[i];
        const struct gpu_result *r = &b->row.rec.res;
        if (strcmp(b->row.group, "transpose"))
            continue;
        int ld = r->has_counters && r->inst_ld > 0;
        printf("%-22s %10.4f %9.0f %9.0f%% %6s %9s %9s %8s\n", b->row.rec.req.case_name,
               r->ms_median, r->gbps, ceiling > 0 ? r->gbps / ceiling * 100 : 0, MODEL_CELL(b),
               CELL(ld, r->wavefronts_ld), CELL(ld, r->conflicts_ld),
               r->verified ? cli_msg(GT_YES) : (r->err.status == GPU_OK ? "-" : cli_msg(BN_FAILED)));
    }
}

static void print_cases(const struct bench *B)
{
    cli_say(stdout, BN_CASES_TITLE);
    head((const int[]){BN_CASE, BN_MODEL, BN_LD_WF, BN_LD_CF, BN_ST_WF, BN_MS_MEDIAN, BN_CHECKED},
         (const int[]){-36, 6, 9, 9, 9, 10, 8}, 7);
    for (int i = 0; i < B->n; i++) {
        const struct bench_row *b = &B->rows[i];
        const struct gpu_result *r = &b->row.rec.res;
        if (strcmp(b->row.group, "case"))
            continue;
        printf("%-36s %6s %9s %9s %9s %10.4f %8s\n", b->row.label, MODEL_CELL(b),
               CELL(r->has_counters, r->wavefronts_ld), CELL(r->has_counters, r->conflicts_ld),
               CELL(r->has_counters, r->wavefronts_st), r->ms_median,
               r->verified ? cli_msg(GT_YES) : (r->err.status == GPU_OK ? "-" : cli_msg(BN_FAILED)));
    }
}

static void print_text(const struct bench *B)
{
    cli_say(stdout, VER_DEVICE, CLI_CLEAN(B->info.device));
    print_sweep(B);
    print_transposes(B);
    if (!B->o.quick)
        print_cases(B);
    if (B->nlat)
        cli_say(stdout, BN_LATENCY, B->lat[B->nlat / 2], B->lat[0], B->lat[B->nlat - 1]);
    if (!B->info.counters)
        cli_say(stdout, BN_NO_COUNTERS, CLI_CLEAN(CLI_ERR(&B->info.counters_err)));
}

int cmd_bench(int argc, char **argv)
{
    static struct bench B;
    memset(&B, 0, sizeof B);
    B.id = 1;
    int rc = cli_parse(&bench_cmd, argc, argv, &B.o, NULL);
    if (!rc && B.o.json && B.o.csv)
        rc = cli_usage_error(&bench_cmd, CLI_E_JSON_AND_CSV_EXCLUDE_EACH);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (B.o.both && B.o.no_server)
        return cli_usage_error(&bench_cmd, CLI_E_BOTH_AND_NO_SERVER_EXCLUDE);
    if (B.o.both)
        unsetenv("BANKLAB_NO_SERVER");    /* --both: the server first, whatever it says */
    struct gpu *g = cli_open_gpu("bench", NULL, B.o.device, B.o.server, B.o.no_server, &B.info,
                                 &rc);
    if (!g)
        return rc;
    if (!B.info.counters && !B.o.json && !B.o.csv)
        cli_say(stdout, BN_NO_COUNTERS_STILL, CLI_CLEAN(CLI_ERR(&B.info.counters_err)));
    if (add_sweep(&B) || add_cases(&B, 1) || (!B.o.quick && add_cases(&B, 0))) {
        gpu_close(g);
        free(B.rows);
        cli_tell("bench", CLI_F_OUT_MEMORY);
        return EXIT_USAGE;
    }
    run_rows(g, &B);
    measure_latency(g, &B);
    gpu_close(g);
    struct bench_both bb;
    memset(&bb, 0, sizeof bb);
    if (B.o.both && (rc = bench_in_process(&B, &bb)) != 0) {
        free(B.rows);
        return rc;
    }
    if (B.o.json)
        write_json(&B);
    else if (B.o.csv)
        write_csv(&B);
    else
        print_text(&B);
    if (bb.in) {
        print_both(&B, &bb, B.o.json || B.o.csv ? stderr : stdout);
        free(bb.in);
    }
    free(B.rows);
    if (B.lat_cached)
        cli_tell("bench", CLI_F_PARAMETER_CHANGE_REQUEST_ANSWERED_FROM, B.lat_cached);
    return B.failures || bb.differ ? EXIT_CHECK : bb.one_path ? EXIT_UNMEASURED : 0;
}
