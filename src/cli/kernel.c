/* kernel.c: `banklab kernel FILE.cu`: compile a learner's kernel, run it in a child process
 * and print, next to the source, per line: shared-memory instructions executed, wavefronts,
 * the ideal wavefronts for the instructions' width, the excess (bank conflicts) and the
 * average ways; or one JSON object (--json). The measuring lives behind src/kernel/kernel.h;
 * this file reads options, prints and picks the exit status. No curses; JSON through
 * src/store/json_write.h. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kernel/kernel.h"
#include "../compile/compile.h"
#include "../store/files.h"
#include "../store/json_write.h"
#include "cli.h"
#include "../base/fmt.h"
#include "kernel_model.h"
#include "kernel_prog.h"
#include "../predict/exec.h"
#include "../predict/program.h"
#include "measured.h"
#include "kernel_out.h"
#include "../kmeasure/kmeasure.h"

#define MAX_CLI_OPTS 96

struct kernel_args {
    const char *file;
    char opt[MAX_CLI_OPTS][16];  /* launch options, applied after the file's */
    const char *val[MAX_CLI_OPTS];
    int nopts;
    int json, sass, sort_excess, timings, no_cache, no_server, counters, launch_only;
    int model, fix, zh;          /* --model, --fix, --lang zh (kernel_model.c) */
    long skip, count;            /* --launch-skip, --launch-count (a program); -1: not given */
};

static void short_usage(FILE *f)
{
    cli_say(f, CLI_USAGE_KERNEL);
}

static void help(FILE *f);

enum { OPT_LANG = CLI_KEY_FIRST, OPT_SORT, OPT_SKIP, OPT_COUNT };

#define SET(name, help, field) CLI_ROW_SET(name, help, struct kernel_args, field)
/* in the order of --help; the launch options are the kernel room's (gpu_kernel_opts) */
static const struct cli_opt kernel_options[] = {
    CLI_ROW_LAUNCH(GPU_KOPT_PICK | GPU_KOPT_SHAPE, 1),
    CLI_ROW_TEXT(CLI_HT_KERNEL_1),
    CLI_ROW_LAUNCH(GPU_KOPT_COMPILE, 1),
    CLI_ROW_TEXT(CLI_HT_KERNEL_2),
    CLI_ROW_LAUNCH(GPU_KOPT_DEVICE | GPU_KOPT_LIMIT, 1),
    SET("counters", CLI_OH_KERNEL_COUNTERS, counters),
    SET("no-cache", CLI_OH_KERNEL_NO_CACHE, no_cache),
    SET("no-server", CLI_OH_KERNEL_NO_SERVER, no_server),
    SET("launch-only", CLI_OH_KERNEL_LAUNCH_ONLY, launch_only),
    CLI_ROW_TEXT(CLI_HT_KERNEL_3),
    CLI_ROW("launch-skip", 0, "N", CLI_OH_KERNEL_LAUNCH_SKIP, OPT_SKIP),
    CLI_ROW("launch-count", 0, "N", CLI_OH_KERNEL_LAUNCH_COUNT, OPT_COUNT),
    CLI_ROW_TEXT(CLI_HT_KERNEL_4),
    CLI_ROW("sort", 0, "line|excess", CLI_OH_KERNEL_SORT, OPT_SORT),
    SET("sass", CLI_OH_KERNEL_SASS, sass),
    SET("json", CLI_OH_KERNEL_JSON, json),
    SET("timings", CLI_OH_KERNEL_TIMINGS, timings),
    CLI_ROW_TEXT(CLI_HT_KERNEL_5),
    SET("model", CLI_OH_KERNEL_MODEL, model),
    SET("fix", CLI_OH_KERNEL_FIX, fix),
    CLI_ROW_TEXT(CLI_HT_KERNEL_6),
    CLI_ROW("lang", 0, "en|zh", 0, OPT_LANG),
    CLI_ROW_HELP(0),
    CLI_ROW_END};
#undef SET

static int kernel_opt(void *ctx, int key, const char *name, const char *val);

static const struct cli_cmd kernel_cmd = {"kernel", kernel_options, 0, CLI_UNKNOWN_OPTION_OF,
                                          short_usage, help, kernel_opt, 25, 2, 0};

static void help(FILE *f)
{
    cli_say(f, CLI_HELP_KERNEL);
    cli_opt_help(f, &kernel_cmd);
}

static int kernel_opt(void *ctx, int key, const char *name, const char *val)
{
    struct kernel_args *a = ctx;
    if (key == CLI_LAUNCH) {
        if (!val)
            return cli_usage_error(&kernel_cmd, CLI_E_NEEDS_VALUE, name);
        if (a->nopts == MAX_CLI_OPTS)
            return cli_usage_error(&kernel_cmd, CLI_E_TOO_MANY_OPTIONS);
        snprintf(a->opt[a->nopts], sizeof a->opt[0], "%s", name);
        a->val[a->nopts++] = val;
    } else if (key == OPT_LANG) {
        if (!val || (strcmp(val, "en") && strcmp(val, "zh")))
            return cli_usage_error(&kernel_cmd, CLI_E_LANG_TAKES_EN_OR_ZH);
        a->zh = !strcmp(val, "zh");
    } else if (key == OPT_SKIP || key == OPT_COUNT) {
        return cli_count_opt(&kernel_cmd, name, val, key == OPT_SKIP ? &a->skip : &a->count);
    } else if (key == OPT_SORT) {
        if (!val)
            return cli_usage_error(&kernel_cmd, CLI_E_SORT_NEEDS_VALUE_LINE_OR);
        if (strcmp(val, "excess") && strcmp(val, "line"))
            return cli_usage_error(&kernel_cmd, CLI_E_SORT_TAKES_LINE_OR_EXCESS,
                                   CLI_CLEAN(val));
        a->sort_excess = !strcmp(val, "excess");
    } else if (a->file) {
        return cli_usage_error(&kernel_cmd, CLI_E_ONE_FILE_AT_TIME_THEN,
                               CLI_CLEAN(a->file), CLI_CLEAN(val));
    } else {
        a->file = val;
    }
    return 0;
}

/* The first --arg or --buffer-size whose NAME an earlier one of the same option gave, or
 * -1 (the command line overrides the file's comment, but not itself). */
static int named_twice(const struct kernel_args *a)
{
    for (int i = 0; i < a->nopts; i++)
        for (int j = 0; j < i; j++) {
            if (strcmp(a->opt[i], a->opt[j]) ||
                (strcmp(a->opt[i], "--arg") && strcmp(a->opt[i], "--buffer-size")))
                continue;
            size_t ni = strcspn(a->val[i], "="), nj = strcspn(a->val[j], "=");
            if (ni == nj && !strncmp(a->val[i], a->val[j], ni))
                return i;
        }
    return -1;
}

static int parse_args(int argc, char **argv, struct kernel_args *a)
{
    memset(a, 0, sizeof *a);
    a->skip = a->count = -1;
    a->zh = cli_lang() == BL_LANG_ZH;
    int rc = cli_parse(&kernel_cmd, argc, argv, a, NULL), twice = rc ? -1 : named_twice(a);
    if (rc)
        return rc;
    if (twice >= 0)
        return cli_usage_error(&kernel_cmd, CLI_E_THAT_NAME_IS_GIVEN_TWICE, a->opt[twice], CLI_CLEAN(a->val[twice]));
    if (!a->file)
        return cli_usage_error(&kernel_cmd, CLI_E_WHICH_FILE_BANKLAB_KERNEL_FILE);
    if (a->json && (a->sass || a->sort_excess || a->timings))
        return cli_usage_error(&kernel_cmd, CLI_E_JSON_HOLDS_EVERYTHING_NO_SASS);
    return 0;
}

/* ---- printing ---- */

/* the model's wavefronts for a line: the number, '-' where it cannot know, '' for none */
static void put_model(FILE *f, const struct kp_line *m)
{
    if (m && m->state == KP_OK)
        fprintf(f, " %11.0f", m->wavefronts);
    else
        fprintf(f, " %11s", m && m->state == KP_CANNOT ? "-" : "");
}

static void put_row(FILE *f, const char *label, const struct gpu_kernel_line *l,
                    const struct kp_line *m)
{
    fprintf(f, "%6s", label);
    if (l)
        kout_figures(f, l->inst, l->wavefronts, l->ideal_known, l->ideal);
    else
        fprintf(f, "%*s", 12 * 5 + 8 - 1, "");
    put_model(f, m);
    fputs(" | ", f);
}

static void put_insts(FILE *f, const struct gpu_kernel_result *r, const struct gpu_kernel_line *l)
{
    for (int i = 0; i < r->ninsts; i++) {
        const struct gpu_kernel_inst *in = &r->insts[i];
        if (in->file != l->file || in->line != l->line)
            continue;
        fprintf(f, "%6s %11.0f %12.0f", "", in->inst, in->wavefronts);
        if (in->ideal_known)
            fprintf(f, " %11.0f", in->ideal);
        else
            fprintf(f, " %11s", "-");
        fprintf(f, "%20s |   pc 0x%04x  %-12s %s\n", "", in->pc, CLI_CLEAN(in->sass),
                gpu_kernel_op_name(in->op));
    }
}

static const struct gpu_kernel_line *line_of(const struct gpu_kernel_result *r, int file, int line)
{
    for (int i = 0; i < r->nlines; i++)
        if (r->lines[i].file == file && r->lines[i].line == line)
            return &r->lines[i];
    return NULL;
}

static int cmp_excess(const void *a, const void *b)
{
    const struct gpu_kernel_line *x = *(const struct gpu_kernel_line *const *)a;
    const struct gpu_kernel_line *y = *(const struct gpu_kernel_line *const *)b;
    if (x->excess != y->excess)
        return x->excess > y->excess ? -1 : 1;
    if (x->file != y->file)
        return x->file - y->file;
    return x->line - y->line;
}

/* The text of line `line` of file index `file` ("" when unknown); other files are read once. */
struct sources {
    struct text_lines main;
    char *other_text[16];
    struct text_lines other[16];
};

static void source_text(struct sources *s, const struct gpu_kernel_result *r, const char *dir,
                        int file, int line, const char **at, int *len)
{
    *at = "";
    *len = 0;
    struct text_lines *t = NULL;
    if (file == 0) {
        t = &s->main;
    } else if (file < 16) {
        if (!s->other_text[file]) {
            char path[4096];
            const char *name = r->files[file];
            if (name[0] == '/')
                snprintf(path, sizeof path, "%s", name);
            else
                snprintf(path, sizeof path, "%s/%s", dir, name);
            size_t n = 0;
            s->other_text[file] = files_read(path, 4u << 20, &n, NULL);
            if (!s->other_text[file] || kout_lines(s->other_text[file], n, &s->other[file]))
                return;
        }
        t = &s->other[file];
    }
    if (t && line >= 1 && line <= t->n) {
        *at = t->at[line - 1];
        *len = t->len[line - 1];
    }
}

/* A measured line out of order (sorted, or in another file): its row, its source, its SASS. */
static void put_measured(FILE *f, const struct kernel_args *a, const struct gpu_kernel_result *r,
                         struct sources *s, const char *dir, const char *label,
                         const struct gpu_kernel_line *l)
{
    const char *at;
    int len;
    put_row(f, label, l, NULL);
    source_text(s, r, dir, l->file, l->line, &at, &len);
    kout_source(f, at, len);
    fputc('\n', f);
    if (a->sass)
        put_insts(f, r, l);
}

/* the model beside the measurement, in one line */
static void put_model_summary(FILE *f, const struct gpu_kernel_result *r,
                              const struct kp_result *m)
{
    int n = 0, same = 0;
    for (int i = 0; i < m->nlines; i++) {
        const struct gpu_kernel_line *l = line_of(r, 0, i + 1);
        n += m->line[i].state == KP_OK;
        same += m->line[i].state == KP_OK && m->line[i].wavefronts == (l ? l->wavefronts : 0);
    }
    cli_say(f, KRN_MODEL_SUMMARY, n, n == 1 ? "" : "s", same, m->ncannot);
}

/* the columns' names, right-aligned in display columns (a Chinese character takes 2) */
static void put_head(FILE *f)
{
    static const int col_id[7] = {KM_COL_LINE, KRN_COL_INST, KM_COL_WAVEFRONTS, KM_COL_IDEAL,
                                  KM_COL_EXCESS, KM_COL_WAYS, KRN_COL_MODEL};
    static const int col_w[7] = {6, 11, 12, 11, 11, 7, 11};
    kout_head(f, col_id, col_w, 7, KM_COL_SOURCE);
}

static void print_text(const struct kernel_args *a, const struct gpu_kernel_result *r,
                       const char *src, size_t srclen, const struct kp_result *m)
{
    FILE *f = stdout;
    struct sources s;
    memset(&s, 0, sizeof s);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", a->file);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    kout_lines(src, srclen, &s.main);

    cli_say(f, KRN_HEAD, CLI_CLEAN(a->file),
            CLI_CLEAN(r->kernel), r->grid[0], r->grid[1], r->grid[2], r->block[0], r->block[1],
            r->block[2], r->smem, CLI_CLEAN(r->device));
    cli_say(f, KRN_REGS, r->regs, r->static_smem, r->smem);
    if (r->timing.cache_hit)
        cli_say(f, KRN_FROM_CACHE);
    if (r->timing.warm)
        cli_say(f, KRN_WARM);
    fputc('\n', f);
    if (r->lock_note[0])
        cli_say(f, KRN_MEASURED_LOCK, CLI_CLEAN(CLI_NOTE(&r->lock_msg, r->lock_note)));
    else if (r->timing.wait >= 100)
        cli_say(f, KRN_WAITED, r->timing.wait / 1e3);
    fputc('\n', f);
    put_head(f);
    char label[32];
    if (a->sort_excess) {
        const struct gpu_kernel_line **order = malloc((size_t)(r->nlines ? r->nlines : 1) *
                                                      sizeof *order);
        if (order) {
            for (int i = 0; i < r->nlines; i++)
                order[i] = &r->lines[i];
            qsort(order, (size_t)r->nlines, sizeof *order, cmp_excess);
            for (int i = 0; i < r->nlines; i++) {
                const struct gpu_kernel_line *l = order[i];
                if (l->file)
                    snprintf(label, sizeof label, "%.20s:%d", CLI_CLEAN(r->files[l->file]), l->line);
                else
                    snprintf(label, sizeof label, "%d", l->line);
                put_measured(f, a, r, &s, dir, label, l);
            }
            free(order);
        }
    } else {
        for (int ln = 1; ln <= s.main.n; ln++) {
            const struct gpu_kernel_line *l = line_of(r, 0, ln);
            snprintf(label, sizeof label, "%d", ln);
            const struct kp_line *ml = m && ln <= m->nlines ? &m->line[ln - 1] : NULL;
            put_row(f, label, l, ml);
            kout_source(f, s.main.at[ln - 1], s.main.len[ln - 1]);
            fputc('\n', f);
            if (l && l->excess > 0 && ml)     /* measured conflicts: the model's why and fix */
                kmodel_put_notes(f, ml, a->zh);
            if (l && a->sass)
                put_insts(f, r, l);
        }
        /* lines the file does not have (line 0: no line info) and other files (headers) */
        for (int i = 0; i < r->nlines; i++) {
            const struct gpu_kernel_line *l = &r->lines[i];
            if (l->file == 0 && l->line >= 1 && l->line <= s.main.n)
                continue;
            if (l->file)
                snprintf(label, sizeof label, "%.20s:%d", CLI_CLEAN(r->files[l->file]), l->line);
            else
                snprintf(label, sizeof label, "%s", l->line ? "?" : "(none)");
            put_measured(f, a, r, &s, dir, label, l);
        }
    }
    struct gpu_kernel_line tot;
    memset(&tot, 0, sizeof tot);
    tot.inst = r->totals.inst;
    tot.wavefronts = r->totals.wavefronts;
    tot.ideal = r->totals.ideal;
    tot.excess = r->totals.excess;
    tot.ways = tot.ideal > 0 ? tot.wavefronts / tot.ideal : 0;
    tot.ideal_known = 1;
    for (int i = 0; i < r->nlines; i++)
        if (!r->lines[i].ideal_known)
            tot.ideal_known = 0;
    put_row(f, cli_msg(KM_TOTAL), &tot, NULL);
    cli_say(f, KRN_NLINES, r->nlines, r->nlines == 1 ? "" : "s");
    cli_say(f, KRN_LEGEND);
    cli_say(f, KRN_LEGEND_MODEL);
    if (m)
        put_model_summary(f, r, m);
    if (a->counters) {
        if (r->has_counters) {
            const struct gpu_kernel_counters *c = &r->counters;
            cli_say(f, KRN_RANGE, c->wavefronts, r->totals.wavefronts, c->wavefronts_ld, c->wavefronts_st,
                    c->conflicts_ld, c->conflicts_st, c->inst_ld, c->inst_st);
        } else {
            cli_say(f, KRN_RANGE_NONE, r->counters_note[0]
                                           ? CLI_CLEAN(CLI_NOTE(&r->counters_msg, r->counters_note))
                                           : cli_msg(KRN_NO_FIGURES));
        }
    }
    if (a->timings) {
        const struct gpu_kernel_timing *t = &r->timing;
        fprintf(f, "timings (ms): %s, process start %.1f, cuInit %.1f, context %.1f, compile %.1f%s, "
                "load %.1f, CUPTI setup %.1f, wait for the GPU %.1f, run %.1f, collect %.1f, "
                "counters %.1f, total %.1f\n",
                t->warm ? "warm server" : "new process", t->start, t->init, t->context,
                t->compile, t->cache_hit ? " (cache)" : "", t->load, t->cupti, t->wait, t->run,
                t->collect, t->counters, t->total);
    }
    kout_lines_free(&s.main);
    for (int i = 0; i < 16; i++) {
        free(s.other_text[i]);
        kout_lines_free(&s.other[i]);
    }
}

/* The numbers of names and v (n of them) as members of w's open object. */
static void json_fields(struct jw *w, const char *const *names, const double *v, int n)
{
    for (int i = 0; i < n; i++)
        jw_numf(w, names[i], "%.17g", v[i]);
}

static void json_line(struct jw *w, const struct gpu_kernel_result *r, int i,
                      const struct text_lines *t, const struct kp_result *m)
{
    const struct gpu_kernel_line *l = &r->lines[i];
    jw_obj(w, NULL);
    jw_str(w, "file", r->files[l->file]);
    jw_int(w, "line", l->line);
    if (l->file == 0 && l->line >= 1 && l->line <= t->n)
        jw_strn(w, "source", t->at[l->line - 1], (size_t)t->len[l->line - 1]);
    else
        jw_null(w, "source");
    jw_numf(w, "inst", "%.17g", l->inst);
    jw_numf(w, "wavefronts", "%.17g", l->wavefronts);
    jw_numf(w, "ideal", "%.17g", l->ideal_known ? l->ideal : NAN);
    jw_numf(w, "excess", "%.17g", l->ideal_known ? l->excess : NAN);
    jw_numf(w, "ways", "%.17g", l->ideal_known ? l->ways : NAN);
    const struct kp_line *ml = m && l->file == 0 && l->line >= 1 && l->line <= m->nlines
                                   ? &m->line[l->line - 1] : NULL;
    jw_numf(w, "model_wavefronts", "%.17g", ml && ml->state == KP_OK ? ml->wavefronts : NAN);
    jw_arr(w, "instructions");
    for (int k = 0; k < r->ninsts; k++) {
        const struct gpu_kernel_inst *in = &r->insts[k];
        if (in->file != l->file || in->line != l->line)
            continue;
        jw_obj(w, NULL);
        jw_int(w, "pc", in->pc);
        jw_str(w, "sass", in->sass);
        jw_str(w, "op", gpu_kernel_op_name(in->op));
        jw_numf(w, "inst", "%.17g", in->inst);
        jw_numf(w, "wavefronts", "%.17g", in->wavefronts);
        jw_numf(w, "ideal", "%.17g", in->ideal_known ? in->ideal : NAN);
        jw_end(w);
    }
    jw_end(w);
    jw_end(w);
}

static void print_json(const struct kernel_args *a, const struct gpu_kernel_result *r,
                       const char *src, size_t srclen, const struct kp_result *m)
{
    struct text_lines t;
    memset(&t, 0, sizeof t);
    kout_lines(src, srclen, &t);
    struct jw *w = jw_new(0);
    jw_str(w, "file", a->file);
    measured_kernel_json(w, r);
    jw_arr(w, "lines");
    for (int i = 0; i < r->nlines; i++)
        json_line(w, r, i, &t, m);
    jw_end(w);
    jw_obj(w, "totals");
    jw_numf(w, "inst", "%.17g", r->totals.inst);
    jw_numf(w, "wavefronts", "%.17g", r->totals.wavefronts);
    jw_numf(w, "ideal", "%.17g", r->totals.ideal);
    jw_numf(w, "excess", "%.17g", r->totals.excess);
    for (int o = 0; o < GPU_KOP_COUNT; o++) {
        char key[32];
        snprintf(key, sizeof key, "wavefronts_%s", gpu_kernel_op_name(o));
        jw_numf(w, key, "%.17g", r->totals.op_wavefronts[o]);
        snprintf(key, sizeof key, "inst_%s", gpu_kernel_op_name(o));
        jw_numf(w, key, "%.17g", r->totals.op_inst[o]);
    }
    jw_end(w);
    if (m)
        kmodel_json_lines(w, "model", src, srclen, m);
    else
        jw_null(w, "model");
    if (r->has_counters) {
        const struct gpu_kernel_counters *c = &r->counters;
        static const char *names[] = {"wavefronts_ld", "wavefronts_st", "conflicts_ld",
                                      "conflicts_st", "inst_ld", "inst_st", "wavefronts"};
        const double v[] = {c->wavefronts_ld, c->wavefronts_st, c->conflicts_ld, c->conflicts_st,
                            c->inst_ld, c->inst_st, c->wavefronts};
        jw_obj(w, "counters");
        json_fields(w, names, v, (int)(sizeof v / sizeof v[0]));
        jw_end(w);
    } else {
        jw_null(w, "counters");
    }
    const struct gpu_kernel_timing *tm = &r->timing;
    static const char *tnames[] = {"start", "init", "context", "compile", "load",
                                   "cupti", "wait", "run", "collect", "counters", "total"};
    const double tv[] = {tm->start, tm->init, tm->context, tm->compile, tm->load,
                         tm->cupti, tm->wait, tm->run, tm->collect, tm->counters, tm->total};
    jw_obj(w, "timing_ms");
    json_fields(w, tnames, tv, (int)(sizeof tv / sizeof tv[0]));
    jw_bool(w, "cached", tm->cache_hit);
    jw_bool(w, "warm", tm->warm);
    jw_end(w);
    jw_str(w, "lock", r->lock_note[0] ? r->lock_note : "measured in the device's turn");
    jw_print(w, stdout, 1);   /* main() reports output that could not be written */
    jw_free(w);
    kout_lines_free(&t);
}

/* n bytes of a source line, each byte of a control character or bad UTF-8 as '?' (bl_mask):
 * the caret below keeps its column. */
static void put_masked(FILE *f, const char *s, size_t n)
{
    char *c = malloc(n + 1);
    if (!c)
        return;
    memcpy(c, s, n);
    fwrite(bl_mask(c, n), 1, n, f);
    free(c);
}

/* "banklab kernel: TEXT" on stderr, TEXT escaped (it quotes files, NVRTC and the learner). */
static void say(const char *text)
{
    fputs("banklab kernel: ", stderr);
    cli_put_clean(stderr, text, 0);
    fputc('\n', stderr);
}

/* say e, in Chinese with --lang zh */
static void say_err(const struct bl_err *e, int zh)
{
    char buf[BL_ERR_TEXT * 2];
    say(cli_err_text(e, zh, buf, sizeof buf));
}

/* no GPU to measure: the one line, with the way to the model's figures without one */
static void say_nogpu(const struct bl_err *e, const struct kernel_args *a)
{
    char why[BL_ERR_TEXT * 2], line[BL_ERR_TEXT * 3];
    snprintf(line, sizeof line, cli_msg(KRN_NOGPU_TRY_MODEL),
             cli_err_text(e, a->zh, why, sizeof why), a->file);
    say(line);
}

static int has_error(const struct gpu_kernel_result *r)
{
    for (int i = 0; i < r->ndiags; i++)
        if (r->diags[i].error)
            return 1;
    return 0;
}

/* Compile errors as FILE:LINE:COL: error: message, with the line and a caret. */
static void print_diags(const struct gpu_kernel_result *r, const char *file, const char *src,
                        size_t srclen)
{
    struct text_lines t;
    memset(&t, 0, sizeof t);
    kout_lines(src, srclen, &t);
    for (int i = 0; i < r->ndiags; i++) {
        const struct gpu_kernel_diag *d = &r->diags[i];
        if (d->line > 0 && d->col > 0)
            fprintf(stderr, "%s:%d:%d: %s: %s\n", CLI_CLEAN(d->file), d->line, d->col,
                    d->error ? "error" : "warning", CLI_CLEAN(d->message));
        else if (d->line > 0)
            fprintf(stderr, "%s:%d: %s: %s\n", CLI_CLEAN(d->file), d->line,
                    d->error ? "error" : "warning", CLI_CLEAN(d->message));
        else
            fprintf(stderr, "%s: %s: %s\n", CLI_CLEAN(d->file), d->error ? "error" : "warning",
                    CLI_CLEAN(d->message));
        if (!strcmp(d->file, file) && d->line >= 1 && d->line <= t.n) {
            fputs("  ", stderr);
            put_masked(stderr, t.at[d->line - 1], (size_t)t.len[d->line - 1]);
            fputc('\n', stderr);
            if (d->col > 0 && d->col <= t.len[d->line - 1] + 1) {
                fputs("  ", stderr);
                for (int c = 0; c < d->col - 1; c++)
                    fputc(t.at[d->line - 1][c] == '\t' ? '\t' : ' ', stderr);
                fputs("^\n", stderr);
            }
        }
    }
    kout_lines_free(&t);
}

/* The text of the source at path (*len bytes), its path into req. NULL after the message. */
static char *read_source(const char *path, struct gpu_kernel_request *req, size_t *len, int zh)
{
    struct bl_err why = {0};
    char buf[BL_ERR_TEXT * 2];
    int fits = strlen(path) < sizeof req->path;
    char *src = fits ? files_read(path, GPU_KERNEL_MAX_SOURCE, len, &why) : NULL;
    if (!src && !fits)
        bl_fail(&why, 2, BL_NOWHERE, BL_TEXT, "path too long");
    if (!src)
    {
        fputs("banklab kernel: ", stderr);
        fprintf(stderr, bl_msg_format(CLI_PATH_SAYS, zh ? BL_LANG_ZH : BL_LANG_EN), CLI_CLEAN(path),
                CLI_CLEAN(cli_err_text(&why, zh, buf, sizeof buf)));
        fputc('\n', stderr);
    }
    else
        snprintf(req->path, sizeof req->path, "%s", path);
    return src;
}

/* --fix: write the patched copy (kernel_model.c) and go on with it instead of the file: the
 * text in *src (the old one freed), the path in a->file and req->path. Returns 0 or the exit
 * status (*src freed). */
static int fixed_copy(struct kernel_args *a, struct gpu_kernel_request *req, char **src,
                      size_t *len)
{
    static char fixed[4096];
    int rc = kmodel_write_fix(a->file, *src, *len, req, fixed, sizeof fixed, a->json);
    free(*src);
    *src = NULL;
    if (rc)
        return rc;
    a->file = fixed;
    *src = read_source(a->file, req, len, a->zh);
    return *src ? 0 : EXIT_USAGE;
}

/* req for kernel `name` ("" = the request's own): the defaults, the launch the file's host
 * code writes for that kernel, then the file's // banklab: options and the command line's,
 * which win. 0, or the exit status (said). */
static int build_request(const struct kernel_args *a, const char *src, size_t len,
                         const char *name, struct gpu_kernel_request *req)
{
    char err[512], path[sizeof req->path];
    bl_fmt(path, sizeof path, "%s", a->file);
    gpu_kernel_request_init(req);
    bl_fmt(req->path, sizeof req->path, "%s", path);
    if (name[0])
        kp_file_launch(src, len, name, req);
    if (gpu_kernel_file_options(req, src, len, err, sizeof err)) {
        fprintf(stderr, "%s:%s\n", CLI_CLEAN(a->file), CLI_CLEAN(err));
        return EXIT_USAGE;
    }
    for (int i = 0; i < a->nopts; i++) {
        if (gpu_kernel_option(req, a->opt[i], a->val[i], err, sizeof err) != 1) {
            say(err);
            return EXIT_USAGE;
        }
    }
    return 0;
}

/* 1 when kernel (a name of the file: "dyn::table_walk", or an instance "rotate_rows<float>")
 * is the one name asks for: the same, its name without namespaces, or the template's name
 * for every instance */
static int kernel_is(const char *kernel, const char *name)
{
    size_t kn = strcspn(kernel, "<");
    const char *tail = kernel;
    for (const char *p = kernel; p < kernel + kn; p++)
        if (p[0] == ':' && p[1] == ':')
            tail = p + 2;
    if (!strcmp(kernel, name) || !strcmp(tail, name))
        return 1;
    return !strchr(name, '<') && (strlen(name) == kn ? !strncmp(kernel, name, kn)
                                  : strlen(name) == (size_t)(kernel + kn - tail) &&
                                    !strncmp(tail, name, strlen(name)));
}

/* 1 when the file defines a __global__ function that name asks for (kernel_is) */
static int file_has_kernel(const char *src, size_t len, const char *name)
{
    static char names[64][GPU_KERNEL_TEXT];
    int tmpl[64], k = kp_kernels(src, len, names, tmpl, 64);
    size_t n = strcspn(name, "<");
    char base[GPU_KERNEL_TEXT];
    bl_fmt(base, sizeof base, "%.*s", (int)n, name);
    for (int i = 0; i < k; i++)
        if (kernel_is(names[i], base))
            return 1;
    return 0;
}

/* the kernels --model reports: --name's, the only one, or every kernel of the file (a
 * template: every instance main launched in run, else the one the file names; one without its
 * arguments is left out, said on stderr); n of them into reqs */
static int model_requests(const struct kernel_args *a, const char *src, size_t len,
                          const struct kxrt_result *run, struct gpu_kernel_request *reqs, int max,
                          int *n)
{
    static char names[64][GPU_KERNEL_TEXT], launched[64][GPU_KERNEL_TEXT];
    int tmpl[64];
    int rc = build_request(a, src, len, "", &reqs[0]);
    if (rc)
        return rc;
    *n = 1;
    int k = kp_kernels(src, len, names, tmpl, 64);
    int several = k == 1 && tmpl[0] && kxrt_instances(run, names[0], launched, 64) > 1;
    char want[GPU_KERNEL_TEXT], base[GPU_KERNEL_TEXT]; /* --name with main's run: it selects */
    bl_fmt(want, sizeof want, "%s", run ? reqs[0].name : "");
    bl_fmt(base, sizeof base, "%.*s", (int)strcspn(want, "<"), want);
    if ((reqs[0].name[0] && !run) || (k <= 1 && !several)) {
        char one[GPU_KERNEL_TEXT];      /* build_request clears reqs[0] */
        bl_fmt(one, sizeof one, "%s", reqs[0].name[0] ? reqs[0].name : k ? names[0] : "");
        if (!reqs[0].name[0] && k == 1 && tmpl[0] &&    /* a template: the instance main launches */
            kp_file_instance(src, len, names[0], one, sizeof one) == 0)
            bl_fmt(one, sizeof one, "%s", names[0]);
        rc = build_request(a, src, len, one, &reqs[0]);
        if (!rc && !reqs[0].name[0] && strchr(one, '<'))
            bl_fmt(reqs[0].name, sizeof reqs[0].name, "%s", one);
        return rc;
    }
    *n = 0;
    for (int i = 0; i < k && *n < max; i++) {
        char inst[GPU_KERNEL_TEXT];
        bl_fmt(inst, sizeof inst, "%s", names[i]);
        if (want[0] && !kernel_is(names[i], base))
            continue;
        int m = tmpl[i] ? kxrt_instances(run, names[i], launched, 64) : 0;
        for (int j = 0; j < m && *n < max; j++) {
            if (want[0] && strcmp(want, base) && !kernel_is(launched[j], want))
                continue;
            if ((rc = build_request(a, src, len, launched[j], &reqs[*n])))
                return rc;
            bl_fmt(reqs[*n].name, sizeof reqs[*n].name, "%s", launched[j]);
            (*n)++;
        }
        if (m)
            continue;
        if (tmpl[i] && !kp_file_instance(src, len, names[i], inst, sizeof inst)) {
            cli_tell("kernel", CLI_F_IS_TEMPLATE_NAME_PREDICTS_INSTANCE, CLI_CLEAN(a->file), CLI_CLEAN(names[i]), CLI_CLEAN(names[i]));
            continue;
        }
        if ((rc = build_request(a, src, len, inst, &reqs[*n])))
            return rc;
        bl_fmt(reqs[*n].name, sizeof reqs[*n].name, "%s", inst);
        (*n)++;
    }
    if (*n == 0)
        return build_request(a, src, len, want, &reqs[0]), *n = 1, 0;
    return 0;
}

/* A file with a main() is measured as the program it is (kernel_prog.h), unless a launch of
 * one kernel is asked for (an option of GPU_KOPT_SHAPE: --grid, --block, ...) or the model,
 * a fix or a single launch for ncu. */
static int as_program(const struct kernel_args *a, const char *src, size_t len)
{
    if (a->model || a->fix || a->launch_only || a->counters || !kexec_has_main(src, len))
        return 0;
    for (int i = 0; i < a->nopts; i++)
        if (gpu_kernel_opt_find(a->opt[i], GPU_KOPT_SHAPE))
            return 0;
    /* with a GPU: the program; without one, a file of one kernel is still compiled and
       checked as before (its errors as FILE:LINE:COL), one of several is said so here */
    struct bl_err e = {0};
    static char kn[64][GPU_KERNEL_TEXT];
    int tm[64];
    return !gpu_run_check(&e) || kp_kernels(src, len, kn, tm, 64) > 1;
}

static int program(const struct kernel_args *a, const struct gpu_kernel_request *req)
{
    struct bl_err e = {0};
    if (gpu_run_check(&e)) {
        cli_tell("kernel", CLI_F_HAS_MAIN_MEASURING_PROGRAM_NEEDS, CLI_CLEAN(a->file),
                CLI_CLEAN(CLI_ERR(&e)), CLI_CLEAN(a->file));
        return EXIT_NOGPU;
    }
    /* --name as the user gave it: the request's own (the only kernel, a template's instance
       main launches) would leave the program's other launches out */
    static struct gpu_kernel_request pr;
    pr = *req;
    pr.name[0] = '\0';
    for (int i = 0; i < a->nopts; i++)
        if (!strcmp(a->opt[i], "--name"))
            bl_fmt(pr.name, sizeof pr.name, "%s", a->val[i]);
    return kprog_run(&pr, a->skip, a->count, a->json);
}

/* --model on a file with main() and no launch of the command line (--grid, --arg, ...: the
 * model reads that launch, as it does with -I/-D; --name only selects the kernels of main's run,
 * --time-limit and --device change nothing), where this build has banklab's CUDA runtime: the program is run
 * as it is into *run (kernel_xrun.c). 1 when it ran, 0 when the model reads the source
 * (*rc 0), or 0 with *rc the exit status when it could not be built. */
static int model_run_main(const struct kernel_args *a, const char *src, size_t len,
                          const struct gpu_kernel_request *req, struct kxrt_result *run, int *rc)
{
    char dir[4096];
    *rc = 0;
    for (int i = 0; i < a->nopts; i++) { /* a launch of the command line: the model reads it */
        if (gpu_kernel_opt_find(a->opt[i], GPU_KOPT_SHAPE | GPU_KOPT_COMPILE))
            return 0;                      /* (--time-limit and --device are no launch) */
        if (!strcmp(a->opt[i], "--name") && !file_has_kernel(src, len, a->val[i]))
            return 0;                      /* (a --name not in the file: said without a run) */
    }
    if (!a->model || a->fix || !kexec_has_main(src, len) || kxrt_lib_dir(dir, sizeof dir) != 0)
        return 0;
    int r = kxrun_start(a->file, req, dir, a->zh, a->json, run);
    if (r > 0)
        *rc = r;
    return r == 0;
}

/* --model: every kernel of the file (model_requests), with main's run where there is one.
 * The exit status. */
static int model_report(const struct kernel_args *a, const char *src, size_t len,
                        const struct gpu_kernel_request *req)
{
    static struct kxrt_result run;
    static struct gpu_kernel_request reqs[64];
    int rc = 0, n = 0;
    int ran = model_run_main(a, src, len, req, &run, &rc);
    if (rc)
        return rc;
    rc = model_requests(a, src, len, ran ? &run : NULL, reqs, 64, &n);
    for (int i = 0; i < n; i++)
        bl_fmt(reqs[i].cache_dir, sizeof reqs[i].cache_dir, "%s", req->cache_dir);
    if (!rc)
        rc = kmodel_print(a->file, src, len, reqs, n, a->json, a->zh, a->sass, ran ? &run : NULL);
    if (ran) {
        int end = kxrun_end(a->file, &run, a->zh);
        rc = rc ? rc : end;
        kxrt_done(&run);
    }
    return rc;
}

/* req for the file's kernel: --name's, the only one (a template: the instance main launches)
 * or none named; 0 or the exit status */
static int the_request(const struct kernel_args *a, const char *src, size_t len,
                       struct gpu_kernel_request *req)
{
    static char names[64][GPU_KERNEL_TEXT];
    int tmpl[64], rc = build_request(a, src, len, "", req);
    if (rc)
        return rc;
    int k = kp_kernels(src, len, names, tmpl, 64);
    char one[GPU_KERNEL_TEXT];          /* build_request clears req */
    bl_fmt(one, sizeof one, "%s", req->name[0] ? req->name : k == 1 ? names[0] : "");
    if (!req->name[0] && k == 1 && tmpl[0] &&    /* a template: the instance main launches */
        kp_file_instance(src, len, names[0], one, sizeof one) == 0)
        bl_fmt(one, sizeof one, "%s", names[0]);
    if (one[0] && (rc = build_request(a, src, len, one, req)))
        return rc;
    if (!req->name[0] && strchr(one, '<'))
        bl_fmt(req->name, sizeof req->name, "%s", one);
    return 0;
}

int cmd_kernel(int argc, char **argv)
{
    static struct kernel_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    size_t len = 0;
    static struct gpu_kernel_request req;
    gpu_kernel_request_init(&req);
    char *src = read_source(a.file, &req, &len, a.zh);
    if (!src)
        return EXIT_USAGE;
    if ((rc = the_request(&a, src, len, &req))) {
        free(src);
        return rc;
    }
    if (as_program(&a, src, len)) {
        free(src);
        return program(&a, &req);
    }
    if (!a.no_cache && !files_xdg_path("XDG_CACHE_HOME", ".cache", "banklab/kernels",
                                       req.cache_dir, sizeof req.cache_dir))
        req.cache_dir[0] = '\0';
    struct bl_err cache_err = {0};
    if (req.cache_dir[0] && kernel_cache_refused(req.cache_dir, &cache_err)) {
        cli_tell("kernel", CLI_F_NOT_USING_KERNEL_CACHE,
                CLI_CLEAN(CLI_ERR(&cache_err)));
        req.cache_dir[0] = '\0';
    }
    if (a.fix && (rc = fixed_copy(&a, &req, &src, &len)) != 0)
        return rc;
    if (a.model) {
        rc = model_report(&a, src, len, &req);
        free(src);
        return rc;
    }
    req.counters = a.counters;
    req.launch_only = a.launch_only;
    req.server_idle = a.no_server || a.launch_only ? 0 : gpu_kernel_server_idle();
    struct bl_err e = {0};
    struct gpu_kernel_job *job = gpu_kernel_start(&req, src, len, &e);
    if (!job) {
        say_err(&e, a.zh);
        free(src);
        return 1;
    }
    struct gpu_kernel_result r;
    gpu_kernel_wait(job, &r);
    if (r.output[0]) {
        cli_put_clean(stderr, r.output, 1);  /* the kernel's printf: lines, escaped */
        if (r.output[strlen(r.output) - 1] != '\n')
            fputc('\n', stderr);
    }
    static struct kp_result model;
    struct bl_err merr = {0};
    int has_model = r.err.status == GPU_KERNEL_OK && !a.launch_only &&
                    kmodel_predict(src, len, &req, &model, &merr) == 0;
    if (has_model && !model.executed && model.exec_note.id != BL_MSG_NONE) { /* no figures */
        kp_free(&model);
        has_model = 0;
    }
    switch (r.err.status) {
    case GPU_KERNEL_OK:
        if (a.launch_only)
            cli_tell("kernel", CLI_F_RAN_ONCE_ON_LAUNCH_ONLY,
                    CLI_CLEAN(r.kernel), CLI_CLEAN(r.device));
        else if (a.json)
            print_json(&a, &r, src, len, has_model ? &model : NULL);
        else
            print_text(&a, &r, src, len, has_model ? &model : NULL);
        rc = 0;
        break;
    case GPU_KERNEL_ECOMPILE:
        print_diags(&r, a.file, src, len);
        if (r.ndiags == 0 || !has_error(&r))  /* the reason must show (a message without a line) */
            say_err(&r.err, a.zh);
        rc = EXIT_USAGE;
        break;
    case GPU_KERNEL_EINPUT:
        say_err(&r.err, a.zh);
        rc = EXIT_USAGE;
        break;
    case GPU_KERNEL_ENOGPU:
    case GPU_KERNEL_ECOUNTERS:
        if (r.err.status == GPU_KERNEL_ENOGPU && !a.json && !a.fix && !a.sass)
            say_nogpu(&r.err, &a);
        else
            say_err(&r.err, a.zh);
        rc = EXIT_NOGPU;
        if ((a.fix || a.sass) && !a.json) {  /* no GPU to measure: the prediction, its SASS */
            cli_say(stdout, KM_NO_GPU_PREDICT, CLI_CLEAN(a.file));
            rc = kmodel_print(a.file, src, len, &req, 1, 0, a.zh, a.sass, NULL);
        }
        break;
    default:
        say_err(&r.err, a.zh);
        rc = 1;
    }
    fflush(stdout);
    if (has_model)
        kp_free(&model);
    gpu_kernel_result_done(&r);
    gpu_kernel_free(job);
    free(src);
    return rc;
}
