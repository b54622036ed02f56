/* run.c: `banklab run [OPTIONS] -- PROGRAM [ARGS]`: an unmodified CUDA program run under
 * banklab's CUPTI injection library, its output let through, and for each measured launch
 * (the first of each kernel; --kernel, --launch-skip, --launch-count as in ncu) the
 * shared-memory figures per source line, as `banklab kernel` prints them, or one JSON object.
 * The running and reading live behind src/kernel/kernel.h; this file reads options, prints
 * and picks the exit status. No curses, no cJSON. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/fmt.h"
#include "../base/utf8.h"
#include "../compile/compile.h"
#include "../kernel/kernel.h"
#include "../store/files.h"
#include "../store/json_write.h"
#include "../render/grid_text.h"
#include "cli.h"
#include "measured.h"
#include "kernel_out.h"
#include "../kmeasure/kmeasure.h"
#include "../sys/sys.h"

enum { ROUTE_AUTO = 0, ROUTE_SANITIZER, ROUTE_CUPTI };

struct run_args {
    const char *kernel_re;
    long skip, count;
    int json, sass, view, grid;
    int route;                   /* ROUTE_AUTO, ROUTE_SANITIZER, ROUTE_CUPTI */
    char **argv;                 /* the program and its arguments */
};

static void short_usage(FILE *f)
{
    cli_say(f, CLI_USAGE_RUN);
}

static void help(FILE *f);

enum { OPT_KERNEL = CLI_KEY_FIRST, OPT_SKIP, OPT_COUNT, OPT_ROUTE };

#define SET(name, help, field) CLI_ROW_SET(name, help, struct run_args, field)
static const struct cli_opt run_options[] = {
    CLI_ROW("route", 0, "auto|sanitizer|cupti", CLI_OH_RUN_ROUTE, OPT_ROUTE),
    CLI_ROW_TEXT(CLI_HT_RUN_1),
    CLI_ROW("kernel", 0, "REGEX", CLI_OH_RUN_KERNEL, OPT_KERNEL),
    CLI_ROW("launch-skip", 0, "N", CLI_OH_RUN_LAUNCH_SKIP, OPT_SKIP),
    CLI_ROW("launch-count", 0, "N", CLI_OH_RUN_LAUNCH_COUNT, OPT_COUNT),
    CLI_ROW_TEXT(CLI_HT_RUN_2),
    SET("sass", CLI_OH_RUN_SASS, sass),
    SET("grid", CLI_OH_RUN_GRID, grid),
    SET("view", CLI_OH_RUN_VIEW, view),
    SET("json", CLI_OH_RUN_JSON, json),
    CLI_ROW_TEXT(CLI_HT_RUN_3),
    CLI_LANG_ROW(0),
    CLI_ROW_HELP(0),
    CLI_ROW_END};
#undef SET

static int run_opt(void *ctx, int key, const char *name, const char *val);

static const struct cli_cmd run_cmd = {"run", run_options, 1, CLI_UNKNOWN_OPTION_RUN, short_usage,
                                       help, run_opt, 25, 2, 0};

static void help(FILE *f)
{
    cli_say(f, CLI_HELP_RUN);
    cli_opt_help(f, &run_cmd);
}

static int run_opt(void *ctx, int key, const char *name, const char *val)
{
    struct run_args *a = ctx;
    if (!val)
        return cli_usage_error(&run_cmd, CLI_E_NEEDS_VALUE, name);
    if (key == OPT_ROUTE) {
        static const char *const routes[] = {"auto", "sanitizer", "cupti"};
        for (int i = 0; i < 3; i++)
            if (!strcmp(val, routes[i])) {
                a->route = i;
                return 0;
            }
        return cli_usage_error(&run_cmd, CLI_E_ROUTE_TAKES_AUTO_SANITIZER_OR);
    }
    if (key == OPT_KERNEL) {
        regex_t re;
        if (regcomp(&re, val, REG_EXTENDED | REG_NOSUB))
            return cli_usage_error(&run_cmd, CLI_E_KERNEL_TAKES_EXTENDED_REGULAR_EXPRESSION);
        regfree(&re);
        a->kernel_re = val;
        return 0;
    }
    return cli_count_opt(&run_cmd, name, val, key == OPT_SKIP ? &a->skip : &a->count);
}

static int parse_args(int argc, char **argv, struct run_args *a)
{
    memset(a, 0, sizeof *a);
    a->skip = a->count = -1;
    int i, rc = cli_parse(&run_cmd, argc, argv, a, &i);
    if (rc)
        return rc;
    if (i >= argc)
        return cli_usage_error(&run_cmd, CLI_E_WHICH_PROGRAM_BANKLAB_RUN_PROGRAM);
    if (a->json && (a->sass || a->view || a->grid))
        return cli_usage_error(&run_cmd, CLI_E_JSON_HOLDS_EVERYTHING_NO_SASS_2);
    a->argv = argv + i;
    return 0;
}

/* ---- printing ---- */

static void put_clean(FILE *f, const char *s, size_t n)
{
    char raw[1024], clean[4096];
    bl_fmt(raw, sizeof raw, "%.*s", (int)(n < sizeof raw ? n : sizeof raw - 1), s);
    for (char *t = raw; *t; t++) /* tabs as blanks: one line, columns kept roughly */
        if (*t == '\t')
            *t = ' ';
    fputs(bl_clean(clean, sizeof clean, raw), f);
}

/* The lines of the file last asked for (read once per file). */
struct src_cache {
    char path[PATH_MAX];
    char *text;
    struct text_lines lines;
};

static int source_line(struct src_cache *c, const char *path, int line, const char **at,
                       size_t *n)
{
    if (strcmp(c->path, path)) {
        size_t len = 0;
        free(c->text);
        kout_lines_free(&c->lines);
        c->text = files_read(path, 8u << 20, &len, NULL);
        if (c->text)
            kout_lines(c->text, len, &c->lines);
        bl_fmt(c->path, sizeof c->path, "%s", path);
    }
    if (line < 1 || line > c->lines.n)
        return 0;
    *at = c->lines.at[line - 1];
    *n = (size_t)c->lines.len[line - 1];
    return 1;
}

static void src_cache_done(struct src_cache *c)
{
    free(c->text);
    kout_lines_free(&c->lines);
}

static void put_insts(FILE *f, const struct gpu_kernel_result *r, int file, int line, int all)
{
    for (int i = 0; i < r->ninsts; i++) {
        const struct gpu_kernel_inst *in = &r->insts[i];
        if (!all && (in->file != file || in->line != line))
            continue;
        fprintf(f, "%6s", "");
        kout_figures(f, in->inst, in->wavefronts, in->ideal_known, in->ideal);
        fprintf(f, " |   pc 0x%04x  %-12s %s\n", in->pc, CLI_CLEAN(in->sass),
                gpu_kernel_op_name(in->op));
    }
}

/* Under a conflicting line: per instruction, the warps the sanitizer route kept (how many
 * warps each distinct pattern stands for, its wavefronts) and its worst warp; --grid: that
 * warp's bank grid. */
static void put_warps(FILE *f, const struct run_args *a, const struct gpu_kernel_result *r,
                      const struct gpu_kernel_line *ln)
{
    for (int i = 0; i < r->ninsts; i++) {
        const struct gpu_kernel_inst *in = &r->insts[i];
        if (in->file != ln->file || in->line != ln->line || in->wavefronts <= in->ideal)
            continue;
        const struct gpu_kernel_pattern *worst = NULL;
        int each = sass_each_lane(in->op, in->sass);
        char list[512] = "";
        size_t o = 0;
        for (int k = 0; k < r->npats; k++) {
            const struct gpu_kernel_pattern *q = &r->pats[k];
            if (q->pc != in->pc)
                continue;
            if (q->slot < 0)
                worst = q;
            else
                o += bl_fmt(list + o, sizeof list - o, cli_msg(RUN_WARPS_ITEM), o ? ", " : "",
                            q->count, each ? q->wavefronts_each : q->wavefronts);
        }
        if (!worst)
            continue;
        cli_say(f, RUN_WARPS, "", CLI_CLEAN(in->sass), list, in->inst, worst->warp,
                worst->block[0], worst->block[1], worst->block[2],
                each ? worst->wavefronts_each : worst->wavefronts);
        if (!a->grid)
            continue;
        struct bank_access acc;
        static struct bank_result br;
        gpu_kernel_pattern_access(worst, each, &acc);
        if (bank_simulate(&acc, &br, NULL) != BANK_OK)
            continue;
        struct grid_text_options opt;
        grid_text_options_init(&opt);
        cli_say(f, RUN_MEASURED_WARP, worst->warp, worst->block[0], worst->block[1],
                worst->block[2]);
        struct bank_cg_detail cg;
        int cgw = sass_cg(in->sass) ? bank_cg_wavefronts(&acc, &cg) : -1;
        if (cgw >= 0)
            cli_say(f, RUN_CG_GRID, cgw, cg.chunks, cg.groups);
        grid_text_write(f, &br, acc.width, acc.op, acc.mask, &opt);
    }
}

static void print_launch(FILE *f, const struct run_args *a, const struct gpu_run_launch *l,
                         struct src_cache *cache)
{
    const struct gpu_kernel_result *r = &l->res;
    char name[GPU_KERNEL_TEXT * 2];
    bl_clean(name, sizeof name, r->kernel);
    cli_say(f, RUN_LAUNCH_HEAD, name, r->grid[0], r->grid[1], r->grid[2], r->block[0],
            r->block[1], r->block[2], r->smem, CLI_CLEAN(r->device), l->nth, l->ordinal, l->pid);
    if (r->err.status != GPU_KERNEL_OK) {
        bl_clean(name, sizeof name, r->err.msg);
        cli_say(f, RUN_NOT_MEASURED, name);
        return;
    }
    cli_say(f, KRN_REGS, r->regs, r->static_smem, r->smem);
    if (r->lock_note[0])
        cli_say(f, RUN_MEASURED_LOCK, CLI_CLEAN(CLI_NOTE(&r->lock_msg, r->lock_note)));
    fputs("\n\n", f);
    int lineinfo = 0;
    for (int i = 0; i < r->nlines; i++)
        lineinfo |= r->lines[i].line > 0;
    static const int col_id[6] = {KM_COL_LINE, KRN_COL_INST, KM_COL_WAVEFRONTS, KM_COL_IDEAL,
                                  KM_COL_EXCESS, KM_COL_WAYS};
    static const int col_w[6] = {6, 11, 12, 11, 11, 7};
    kout_head(f, col_id, col_w, 6, lineinfo ? KM_COL_SOURCE : RUN_COL_SASS);
    if (!lineinfo) {
        put_insts(f, r, 0, 0, 1);
    } else {
        int last_file = -1;
        for (int i = 0; i < r->nlines; i++) {
            const struct gpu_kernel_line *ln = &r->lines[i];
            const char *path = ln->file >= 0 && ln->file < r->nfiles ? r->files[ln->file] : "?";
            if (ln->file != last_file) {
                fputs(cli_msg(RUN_FILE), f);
                put_clean(f, path, strlen(path));
                fputc('\n', f);
                last_file = ln->file;
            }
            char label[16];
            if (ln->line > 0)
                snprintf(label, sizeof label, "%d", ln->line);
            else
                snprintf(label, sizeof label, "?");
            fprintf(f, "%6s", label);
            kout_figures(f, ln->inst, ln->wavefronts, ln->ideal_known, ln->ideal);
            fputs(" | ", f);
            const char *at;
            size_t n;
            if (source_line(cache, path, ln->line, &at, &n))
                put_clean(f, at, n);
            fputc('\n', f);
            if (a->sass)
                put_insts(f, r, ln->file, ln->line, 0);
            if (ln->excess > 0)
                put_warps(f, a, r, ln);
        }
    }
    kout_pad(f, cli_msg(KM_TOTAL), 6);
    kout_figures(f, r->totals.inst, r->totals.wavefronts, 1, r->totals.ideal);
    fputs(" | ", f);
    if (lineinfo)
        cli_say(f, KRN_NLINES, r->nlines, r->nlines == 1 ? "" : "s");
    else
        cli_say(f, RUN_NINSTS, r->ninsts, r->ninsts == 1 ? "" : "s");
    if (!lineinfo && r->ninsts)
        cli_say(f, RUN_NO_LINEINFO);
}

static void json_figures(struct jw *w, double inst, double wf, int ideal_known, double ideal)
{
    jw_numf(w, "inst", "%.17g", inst);
    jw_numf(w, "wavefronts", "%.17g", wf);
    jw_numf(w, "ideal", "%.17g", ideal_known ? ideal : NAN);
    jw_numf(w, "excess", "%.17g", ideal_known ? wf - ideal : NAN);
    jw_numf(w, "ways", "%.17g", !ideal_known ? NAN : ideal > 0 ? wf / ideal : 0);
}

/* the warp executions of r's instruction at pc when it stands on (file, line) (file -1: any);
 * -1 when it does not */
static double inst_execs(const struct gpu_kernel_result *r, uint32_t pc, int file, int line)
{
    for (int i = 0; i < r->ninsts; i++)
        if (r->insts[i].pc == pc)
            return file < 0 || (r->insts[i].file == file && r->insts[i].line == line)
                       ? r->insts[i].inst : -1;
    return -1;
}

static void json_launch(struct jw *w, const struct gpu_run_launch *l, struct src_cache *cache)
{
    const struct gpu_kernel_result *r = &l->res;
    jw_obj(w, NULL);
    measured_kernel_json(w, r);
    jw_int(w, "pid", l->pid);
    jw_int(w, "launch", l->ordinal);
    jw_int(w, "kernel_launch", l->nth);
    jw_str(w, "status", r->err.status == GPU_KERNEL_OK ? "ok" : "failed");
    jw_str(w, "error", r->err.status == GPU_KERNEL_OK ? NULL : r->err.msg);
    jw_arr(w, "lines");
    for (int i = 0; i < r->nlines; i++) {
        const struct gpu_kernel_line *ln = &r->lines[i];
        const char *path = ln->file >= 0 && ln->file < r->nfiles ? r->files[ln->file] : "?";
        const char *at;
        size_t n;
        jw_obj(w, NULL);
        jw_str(w, "file", path);
        jw_int(w, "line", ln->line);
        if (source_line(cache, path, ln->line, &at, &n))
            jw_strn(w, "source", at, n);
        else
            jw_null(w, "source");
        json_figures(w, ln->inst, ln->wavefronts, ln->ideal_known, ln->ideal);
        jw_arr(w, "warps");        /* those of its instructions */
        for (int k = 0; k < r->npats; k++) {
            double of = inst_execs(r, r->pats[k].pc, ln->file, ln->line);
            if (of >= 0)
                kout_warp_json(w, &r->pats[k], of);
        }
        jw_end(w);
        jw_end(w);
    }
    jw_end(w);
    jw_arr(w, "warps");            /* the sanitizer route's: worst warp, distinct patterns */
    for (int i = 0; i < r->npats; i++)
        kout_warp_json(w, &r->pats[i], inst_execs(r, r->pats[i].pc, -1, -1));
    jw_end(w);
    jw_arr(w, "instructions");
    for (int i = 0; i < r->ninsts; i++) {
        const struct gpu_kernel_inst *in = &r->insts[i];
        jw_obj(w, NULL);
        jw_int(w, "pc", in->pc);
        jw_str(w, "sass", in->sass);
        jw_str(w, "op", gpu_kernel_op_name(in->op));
        jw_int(w, "line", in->line);
        json_figures(w, in->inst, in->wavefronts, in->ideal_known, in->ideal);
        jw_end(w);
    }
    jw_end(w);
    jw_obj(w, "totals");
    json_figures(w, r->totals.inst, r->totals.wavefronts, 1, r->totals.ideal);
    jw_end(w);
    jw_end(w);
}

/* The run as JSON (--json, and the recording --view hands to the kernel view) into f. */
static int write_json(FILE *f, const struct run_args *a, const struct gpu_run_output *o)
{
    struct src_cache cache;
    memset(&cache, 0, sizeof cache);
    struct jw *w = jw_new(0);
    jw_arr(w, "program");
    for (int i = 0; a->argv[i]; i++)
        jw_str(w, NULL, a->argv[i]);
    jw_end(w);
    jw_int(w, "exit_status", o->status);
    jw_int(w, "processes", o->injected);
    jw_arr(w, "launches");
    for (int i = 0; i < o->nlaunches; i++)
        json_launch(w, &o->launches[i], &cache);
    jw_end(w);
    jw_arr(w, "notes");
    for (int i = 0; i < o->nnotes; i++)
        jw_str(w, NULL, o->notes[i].text);
    jw_end(w);
    int rc = jw_print(w, f, 1);
    jw_free(w);
    free(cache.text);
    return rc;
}

static void print_json(const struct run_args *a, const struct gpu_run_output *o)
{
    write_json(stdout, a, o);   /* the caller reports output that could not be written */
}

struct view_rec {
    const struct run_args *a;
    const struct gpu_run_output *o;
};

static int emit_view_rec(FILE *f, void *ctx)
{
    const struct view_rec *v = ctx;
    return write_json(f, v->a, v->o) ? -1 : 0;
}

/* --view: the kernel view on the launch with the most excess, showing what this run measured
 * (the program's own launch and data: its warps, not a new run with banklab's buffers). The
 * run is kept as JSON in the learner's state directory ($XDG_STATE_HOME/banklab/run-view.json)
 * and the view reads it (`banklab FILE.cu --name K --measured REC`), in place of this process.
 * Returns only when it cannot. */
static int open_view(const struct run_args *a, const struct gpu_run_output *o)
{
    const struct gpu_kernel_result *best = NULL;
    for (int i = 0; i < o->nlaunches; i++) {
        const struct gpu_kernel_result *r = &o->launches[i].res;
        if (r->err.status == GPU_KERNEL_OK && r->nlines && (!best || r->totals.excess > best->totals.excess))
            best = r;
    }
    if (!best) {
        cli_tell("run", CLI_F_VIEW_NO_MEASURED_KERNEL_WITH);
        return EXIT_CHECK;
    }
    const struct gpu_kernel_line *top = NULL;
    for (int i = 0; i < best->nlines; i++)
        if (best->lines[i].line > 0 && (!top || best->lines[i].excess > top->excess))
            top = &best->lines[i];
    const char *file = top && top->file < best->nfiles ? best->files[top->file] : "";
    size_t fl = strlen(file);
    if (fl < 4 || strcmp(file + fl - 3, ".cu") || access(file, R_OK)) {
        char c[PATH_MAX];
        cli_tell("run", CLI_F_VIEW_KERNEL_SOURCE_IS_NOT, bl_clean(c, sizeof c, file[0] ? file : "(no line info)"));
        return EXIT_CHECK;
    }
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        cli_tell("run", CLI_F_VIEW_NEEDS_TERMINAL);
        return EXIT_USAGE;
    }
    char rec[PATH_MAX], dir[PATH_MAX];
    struct bl_err err = {0};
    struct view_rec v = {a, o};
    if (!files_xdg_path("XDG_STATE_HOME", ".local/state", "banklab", dir, sizeof dir)) {
        cli_tell("run", CLI_F_VIEW_NO_STATE_DIR);
        return EXIT_CHECK;
    }
    bl_fmt(rec, sizeof rec, "%s/run-view.json", dir);
    if (files_mkdirs(dir, 0700, &err) || files_write_atomic(rec, 0600, emit_view_rec, &v, &err)) {
        cli_tell("run", CLI_F_VIEW_CANNOT_KEEP_RUN, CLI_ERR(&err));
        return EXIT_CHECK;
    }
    char *argv[] = {"banklab", (char *)file, "--name", (char *)best->kernel, "--measured", rec, NULL};
    fflush(NULL);
    sys_exec_self(argv);
    cli_tell("run", CLI_F_VIEW_CANNOT_START_KERNEL_VIEW, strerror(errno));
    return EXIT_CHECK;
}

/* The kernels the library names in "replay:" notes (their first launches came after the
 * one measured in that run of the program): taken out of o's notes into names[], at most max.
 * Returns their number. */
static int take_replays(struct gpu_run_output *o, char (*names)[2 * GPU_KERNEL_TEXT], int max,
                        int *left)
{
    int n = 0, k = 0;
    *left = 0;
    for (int i = 0; i < o->nnotes; i++) {
        if (!strncmp(o->notes[i].text, "replay:", 7)) {
            if (n < max)
                bl_fmt(names[n++], sizeof names[0], "%s", o->notes[i].text + 7);
            else
                (*left)++;
            free(o->notes[i].msg);
            continue;
        }
        if (k != i)
            o->notes[k] = o->notes[i];
        k++;
    }
    o->nnotes = k;
    return n;
}

/* Moves what run r measured and noted into o (notes said once); r is emptied. 0, or -1 out of
 * memory. */
static int merge_run(struct gpu_run_output *o, struct gpu_run_output *r)
{
    if (r->nlaunches) {
        struct gpu_run_launch *l = realloc(o->launches, (size_t)(o->nlaunches + r->nlaunches) *
                                                            sizeof *l);
        if (!l)
            return -1;
        memcpy(l + o->nlaunches, r->launches, (size_t)r->nlaunches * sizeof *l);
        o->launches = l;
        o->nlaunches += r->nlaunches;
        free(r->launches);
        r->launches = NULL;
        r->nlaunches = 0;
    }
    for (int i = 0; i < r->nnotes; i++)
        gpu_run_note(o, r->notes[i].text, strlen(r->notes[i].text), r->notes[i].msg);
    gpu_run_notes_unique(o); /* each said once: sorted, not compared pairwise */
    if (!o->status)
        o->status = r->status;
    gpu_run_output_done(r);
    return 0;
}

#define RUN_REPLAYS 64 /* kernels measured by running the program again, at most */

/* Application replay, as Nsight Compute's: CUPTI's SASS metrics count one kernel per process
 * (a second kernel of a process had no records on the H200), so the program runs again for
 * each further kernel it launched, with that kernel alone selected (its mangled name, exactly).
 * The program must launch the same kernels each time (ncu asks the same). */
static void replay_kernels(struct gpu_run_request *req, char **argv, struct gpu_run_output *o)
{
    static char names[RUN_REPLAYS][2 * GPU_KERNEL_TEXT];
    int left;
    int n = take_replays(o, names, RUN_REPLAYS, &left);
    if (left > 0) { /* said, never dropped silently */
        char en[GPU_TEXT_MAX];
        struct bl_msg m;
        bl_msg_set(&m, en, sizeof en, RUN_REPLAYS_LEFT, left, RUN_REPLAYS + 1);
        gpu_run_note(o, en, strlen(en), &m);
    }
    for (int i = 0; i < n; i++) {
        char re[4 * GPU_KERNEL_TEXT + 8], clean[4 * GPU_KERNEL_TEXT], why[PATH_MAX + 256];
        size_t k = 0;
        re[k++] = '^';
        for (const char *c = names[i]; *c && k + 3 < sizeof re; c++) {
            if (strchr(".[]()*+?{}|^$\\", *c))
                re[k++] = '\\';
            re[k++] = *c;
        }
        re[k++] = '$';
        re[k] = '\0';
        cli_tell("run", CLI_F_RUNNING_AGAIN_FOR_CUPTI_MEASURES, bl_clean(clean, sizeof clean, argv[0]),
                bl_clean(why, sizeof why, names[i]));
        req->kernel_re = re;
        struct gpu_run_output r;
        struct bl_err e = {0};
        if (gpu_run_program(req, argv, &r, &e)) {
            fprintf(stderr, "banklab run: %s\n", CLI_CLEAN(CLI_ERR(&e)));
            break;
        }
        /* replay notes of this run: kernels that run 1 named already */
        char (*skip)[2 * GPU_KERNEL_TEXT] = malloc(sizeof names);
        int named;
        if (skip)
            take_replays(&r, skip, RUN_REPLAYS, &named);
        free(skip);
        if (merge_run(o, &r)) {
            gpu_run_output_done(&r);
            break;
        }
    }
}

static int run_measure(struct run_args *a);

int cmd_run(int argc, char **argv)
{
    struct run_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    return run_measure(&a);
}

int cli_run_program(char **argv, const char *kernel_re, long skip, long count, int json)
{
    struct run_args a;
    memset(&a, 0, sizeof a);
    a.argv = argv;
    a.kernel_re = kernel_re;
    a.skip = skip;
    a.count = count;
    a.json = json;
    return run_measure(&a);
}

/* Runs a->argv under the chosen route and prints what it measured. */
static int run_measure(struct run_args *ap)
{
    struct run_args a = *ap;
    int rc;
    const char *other = sys_env("CUDA_INJECTION64_PATH");
    char why[PATH_MAX + 256];
    if (other && *other) {
        bl_clean(why, sizeof why, other);
        cli_tell("run", CLI_F_ANOTHER_PROFILER_IS_INJECTED_ALREADY, why);
        return EXIT_NOGPU;
    }
    /* BANKLAB_RUN_NO_GPU_CHECK: tests/sh/run.sh's program that writes results itself */
    struct bl_err e = {0};
    if (!sys_env("BANKLAB_RUN_NO_GPU_CHECK") && gpu_run_check(&e)) {
        cli_tell("run", CLI_F_MEASURING_PROGRAM_NEEDS_GPU, CLI_CLEAN(CLI_ERR(&e)));
        return EXIT_NOGPU;
    }
    char lib[PATH_MAX + 256];
    if (gpu_run_find_lib(lib, sizeof lib, &e)) {
        fprintf(stderr, "banklab run: %s\n", CLI_CLEAN(CLI_ERR(&e))); /* it names $BANKLAB_INJECT */
        return EXIT_NOGPU;
    }
    char slib[PATH_MAX + 256], patch[PATH_MAX + 256];
    const char *use_patch = NULL;
    if (a.route != ROUTE_CUPTI) {
        struct bl_err se = {0};
        if (!gpu_run_find_sanitizer(slib, patch, sizeof slib, &se)) {
            bl_fmt(lib, sizeof lib, "%s", slib);
            use_patch = patch;
        } else if (a.route == ROUTE_SANITIZER) {
            fprintf(stderr, "banklab run: %s\n", CLI_CLEAN(CLI_ERR(&se)));
            return EXIT_NOGPU;
        }
    }
    /* CUPTI: the first launch of each kernel (of those --kernel names), one a run of the
     * program; the sanitizer route measures them all in one run */
    int one = !use_patch && a.skip < 0 && a.count < 0;
    struct gpu_run_request req = {lib, a.kernel_re, a.skip, a.count, a.json, one, use_patch};
    struct gpu_run_output o;
    if (gpu_run_program(&req, a.argv, &o, &e)) {
        fprintf(stderr, "banklab run: %s\n", CLI_CLEAN(CLI_ERR(&e))); /* it names argv[0] */
        return EXIT_CHECK;
    }
    if (one)
        replay_kernels(&req, a.argv, &o);
    fflush(stderr);
    if (a.json) {
        print_json(&a, &o);
    } else {
        struct src_cache cache;
        memset(&cache, 0, sizeof cache);
        for (int i = 0; i < o.nlaunches; i++)
            print_launch(stdout, &a, &o.launches[i], &cache);
        src_cache_done(&cache);
        if (o.nlaunches)
            cli_say(stdout, KRN_LEGEND);
    }
    fflush(stdout);
    char prog[512];
    bl_clean(prog, sizeof prog, a.argv[0]);
    for (int i = 0; i < o.nnotes; i++) {
        char t[4 * GPU_KERNEL_TEXT], n[8 * GPU_KERNEL_TEXT];
        const char *s = bl_msg_or_text(o.notes[i].msg, o.notes[i].text, cli_lang(), t, sizeof t);
        fprintf(stderr, "banklab run: %s\n", bl_clean(n, sizeof n, s));
    }
    rc = 0;
    if (o.status)
        cli_tell("run", CLI_F_EXITED_WITH_STATUS, prog, o.status);
    if (!o.nlaunches && o.nnotes)
        rc = EXIT_NOGPU;
    else if (!o.nlaunches && !o.injected)
        cli_tell("run", CLI_F_NEVER_STARTED_CUDA_NOTHING_WAS, prog);
    else if (!o.nlaunches)
        cli_tell("run", a.kernel_re ? CLI_F_LAUNCHED_NO_KERNEL_MATCHING
                                    : CLI_F_LAUNCHED_NO_KERNEL_TO_MEASURE, prog,
                 a.kernel_re ? CLI_CLEAN(a.kernel_re) : "");
    if (!rc && (o.status || !o.nlaunches))
        rc = EXIT_CHECK;
    if (a.view && o.nlaunches)
        rc = open_view(&a, &o);
    gpu_run_output_done(&o);
    return rc;
}
