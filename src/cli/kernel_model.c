/* kernel_model.c: the model's side of `banklab kernel`: `--model` prints the prediction of
 * every line (src/predict/predict.h) without a GPU, labelled as the model's, with the
 * worst pass of each conflicting line and a fix checked with the model, or why a line cannot
 * be predicted; `--fix` writes the patched copy FILE.fixed.cu (never over an existing file)
 * for kernel.c to measure; and the predicted wavefronts kernel.c prints beside the measured
 * ones. No curses; JSON through src/store/json_write.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/fmt.h"
#include "../base/utf8.h"
#include "../predict/predict.h"
#include "../predict/exec.h"
#include "../compile/compile.h"
#include "../store/files.h"
#include "../sys/sys.h"
#include "cli.h"
#include "kernel_model.h"
#include "kernel_out.h"

/* the kernel's name as the compiler instantiates it: --name, else the only kernel's */
static void name_expr(const char *src, size_t len, const struct gpu_kernel_request *req,
                      char *out, size_t n)
{
    static char names[64][GPU_KERNEL_TEXT];
    int tmpl[64];
    if (req->name[0]) {
        bl_fmt(out, n, "%s", req->name);
        return;
    }
    int k = kp_kernels(src, len, names, tmpl, 64);
    bl_fmt(out, n, "%s", k >= 1 && !tmpl[0] ? names[0] : "");
}

/* m rendered in language g into buf (KP_TEXT bytes) */
static const char *kp_text(const struct bl_msg *m, enum bl_lang g, char *buf)
{
    bl_msg_render(m, g, buf, KP_TEXT);
    return buf;
}

/* the lines main's launch of the kernel (run) finds conflicting in r's lines: 1 each, or
 * NULL when none does or main never ran it (no fix to look for) */
static unsigned char *run_conflicts(const struct kxrt_result *run, const char *expr,
                                    const char *path, const struct kp_result *r)
{
    struct kp_result x = *r;
    x.line = malloc((size_t)(r->nlines ? r->nlines : 1) * sizeof *x.line);
    unsigned char *only = calloc((size_t)(r->nlines ? r->nlines : 1), 1);
    int n = 0;
    if (x.line && only) {
        memcpy(x.line, r->line, (size_t)r->nlines * sizeof *x.line);
        x.warps = NULL;
        x.nwarps = 0;
        kxrt_apply(run, expr, path, &x);
        for (int i = 0; x.executed && i < r->nlines; i++)
            n += only[i] = x.line[i].state == KP_OK && x.line[i].excess > 0;
        free(x.warps);
    }
    free(x.line);
    if (!n) {
        free(only);
        return NULL;
    }
    return only;
}

/* 0 when BANKLAB_KERNEL_FIXES is "0": the figures without the search for a fix (each candidate
 * an nvcc and an execution), for suites that compare figures only */
static int want_fixes(void)
{
    const char *v = sys_env("BANKLAB_KERNEL_FIXES");
    return !v || strcmp(v, "0");
}

/* the prediction of req's kernel, driven by the SASS of c (NULL: not compiled, why says why) */
static int predict_with(const struct ksl_cubin *c, const struct bl_msg *why, const char *src,
                        size_t len, const struct gpu_kernel_request *req,
                        const struct kxrt_result *run, struct kp_result *r, struct bl_err *err)
{
    struct kp_sass sass = {0};
    char expr[GPU_KERNEL_TEXT];
    struct bl_msg kwhy = {0};
    name_expr(src, len, req, expr, sizeof expr);
    int have = c && ksl_kernel(c, expr, src, len, &sass, &kwhy) == 0;
    int rc = kp_predict_sass(src, len, req, have ? &sass : NULL, r, err);
    if (rc) {
        kp_sass_free(&sass);
        return -1;
    }
    if (!have)
        r->sass_note = c ? kwhy : *why;
    /* the compile stopped by its guard (--time-limit, the memory limit): the execution's and
       the fixes' compiles of the same file would be stopped too, each after as long */
    if (!c && why && (why->id == KRN_TIMEOUT_COMPILE || why->id == KRN_COMPILER_MEMORY)) {
        kp_sass_free(&sass);
        r->exec_note = *why;             /* not executed: no figures, the guard says why */
        kp_unexecuted(r);
        return 0;
    }
    /* a program run: only the lines main's launch finds conflicting get a fix (each candidate
       is an nvcc of the whole program); a line the run finds conflict free needs none */
    unsigned char *only = run ? run_conflicts(run, expr, req->path, r) : NULL;
    if (!run)
        kexec_prefetch(src, len, req, expr, r); /* the execution below, beside the fixes' */
    if ((!run || only) && want_fixes())
        kp_fixes_exec(src, len, req, have ? &sass : NULL, expr, only, r);
    free(only);
    kp_sass_free(&sass);
    if (run)                             /* a program run: main's launch of it */
        kxrt_apply(run, expr, req->path, r);
    else                                 /* the kernel's PTX with the request's launch */
        kexec_apply(src, len, req, expr, r);
    kp_unexecuted(r);                    /* not executed: no figures, only why */
    return 0;
}

int kmodel_predict(const char *src, size_t len, const struct gpu_kernel_request *req,
                   struct kp_result *r, struct bl_err *err)
{
    char expr[GPU_KERNEL_TEXT];
    struct bl_msg why = {0};
    name_expr(src, len, req, expr, sizeof expr);
    struct ksl_cubin *c = ksl_compile(src, len, req, expr, NULL, &why);
    int rc = predict_with(c, &why, src, len, req, NULL, r, err);
    ksl_free(c);
    return rc;
}

/* " (lines 13, 19: each says why)": the lines not predicted, a few of them */
static const char *not_lines(const struct kp_result *r, enum bl_lang g, char *buf, size_t size)
{
    size_t o = 0;
    int n = 0;
    buf[0] = 0;
    if (!r->ncannot)
        return buf;
    enum bl_lang lang = g;
    o += bl_fmt(buf, size, bl_msg_format(KM_NOT_LINES_OPEN, lang), r->ncannot > 1 ? "s" : "");
    for (int i = 0; i < r->nlines; i++) {
        if (r->line[i].state != KP_CANNOT)
            continue;
        if (n++ == 8) {
            o += bl_fmt(buf + o, size - o, "%s", bl_msg_format(KM_NOT_LINES_MORE, lang));
            break;
        }
        o += bl_fmt(buf + o, size - o, "%s%d", n > 1 ? bl_msg_format(KM_NOT_LINES_SEP, lang) : "",
                    r->line[i].line);
    }
    bl_fmt(buf + o, size - o, "%s", bl_msg_format(KM_NOT_LINES_CLOSE, lang));
    return buf;
}

/* text right-aligned in width display columns after sep: a character from U+2E80 on (CJK,
 * full-width forms) takes 2, any other 1, whatever the locale */
static void put_col(FILE *f, const char *sep, const char *text, int width)
{
    int w = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if ((*p & 0xc0) == 0x80)
            continue;
        unsigned u = (*p & 0xf0) == 0xe0 && p[1] && p[2]
                         ? (*p & 0x0fu) << 12 | (p[1] & 0x3fu) << 6 | (p[2] & 0x3fu) : 0;
        w += u >= 0x2e80 ? 2 : 1;
    }
    fprintf(f, "%s%*s%s", sep, w < width ? width - w : 0, "", text);
}

static void print_text(FILE *f, const char *file, const char *src, size_t len,
                       const struct kp_result *r, enum bl_lang g, int sass, int own)
{
    enum bl_lang lang = g;
    fprintf(f, "%s: %s<<<(%u,%u,%u), (%u,%u,%u), %llu>>>: %s\n\n", CLI_CLEAN(file),
            CLI_CLEAN(r->kernel), r->grid[0],
            r->grid[1], r->grid[2], r->block[0], r->block[1], r->block[2], r->smem,
            bl_msg_format(KM_PREDICTION, lang));
    if (!r->executed && r->exec_note.id != BL_MSG_NONE) {   /* no figures: why, once */
        char clean[KP_TEXT * 2];
        fprintf(f, bl_msg_format(KEX_NOT_EXECUTED, lang),
                bl_clean(clean, sizeof clean, kp_text(&r->exec_note, g, (char[KP_TEXT]){0})));
        fprintf(f, "\n\n%s\n", bl_msg_format(KM_FOOTER, lang));
        return;
    }
    static const int col_id[7] = {KM_COL_LINE, KM_COL_INST, KM_COL_WAVEFRONTS, KM_COL_IDEAL,
                                  KM_COL_EXCESS, KM_COL_WAYS, KM_COL_SOURCE};
    static const int col_w[6] = {6, 11, 12, 11, 11, 7};
    for (int c = 0; c < 6; c++)
        put_col(f, c ? " " : "", bl_msg_format(col_id[c], lang), col_w[c]);
    fprintf(f, " | %s\n", bl_msg_format(col_id[6], lang));
    double t[4] = {0, 0, 0, 0};
    struct text_lines lines;
    kout_lines(src, len, &lines);
    for (int i = 0; i < r->nlines; i++) {
        const struct kp_line *l = &r->line[i];
        /* own: one kernel of several, its own lines (and any other line it has figures on) */
        if (own && (l->line < r->name_line || l->line > r->last) && l->state == KP_NONE &&
            l->nsass <= 0)
            continue;
        fprintf(f, "%6d", l->line);
        if (l->state == KP_OK) {
            fprintf(f, " %11.0f %12.0f %11.0f %11.0f %7.2f | ", l->inst, l->wavefronts, l->ideal,
                    l->excess, l->ideal > 0 ? l->wavefronts / l->ideal : 0);
            t[0] += l->inst;
            t[1] += l->wavefronts;
            t[2] += l->ideal;
            t[3] += l->excess;
        } else {
            fprintf(f, "%57s | ", l->state == KP_CANNOT ? "-" : "");
        }
        if (l->line >= 1 && l->line <= lines.n)
            kout_source(f, lines.at[l->line - 1], lines.len[l->line - 1]);
        fputc('\n', f);
        kmodel_put_notes(f, l, g == BL_LANG_ZH);
        if (sass && l->nsass > 0)
            fprintf(f, "%6s   sass: %s\n", "", l->sass);
    }
    kout_lines_free(&lines);
    put_col(f, "", bl_msg_format(KM_TOTAL, lang), 6);
    fprintf(f, " %11.0f %12.0f %11.0f %11.0f %7.2f |\n", t[0], t[1], t[2], t[3],
            t[2] > 0 ? t[1] / t[2] : 0);
    char list[160];
    int unnamed = 0;
    for (int i = 0; i < r->nlines; i++)
        unnamed += r->line[i].nsass > 0 && r->line[i].state == KP_NONE;
    fprintf(f, bl_msg_format(KM_PREDICTED, lang), r->npredicted, r->npredicted == 1 ? "" : "s",
            r->ncannot, not_lines(r, g, list, sizeof list));
    if (r->sass_known)
        fprintf(f, bl_msg_format(KM_SASS_LINES, lang), r->nsass_lines,
                r->nsass_lines == 1 ? "" : "s", unnamed);
    else
        fprintf(f, bl_msg_format(KM_NOT_COMPILED, lang),
                kp_text(&r->sass_note, g, (char[KP_TEXT]){0}));
    if (r->main_launch) {
        fprintf(f, bl_msg_format(KXRT_EXECUTED, lang), r->main_launch, r->main_launches);
        fputc('\n', f);
    }
    fprintf(f, "\n%s\n", bl_msg_format(KM_FOOTER, lang));
}

void kmodel_put_notes(FILE *f, const struct kp_line *l, int zh)
{
    char clean[KP_TEXT * 2], t[KP_TEXT];
    enum bl_lang g = zh ? BL_LANG_ZH : BL_LANG_EN;
    if (l->state == KP_CANNOT)
    {
        fprintf(f, "%6s   ", "");
        fprintf(f, bl_msg_format(KM_NOT_PREDICTED, zh ? BL_LANG_ZH : BL_LANG_EN),
                bl_clean(clean, sizeof clean, kp_text(&l->reason, g, t)));
        fputc('\n', f);
    }
    if (l->state == KP_OK && l->why.id != BL_MSG_NONE)
        fprintf(f, "%6s   %s\n", "", bl_clean(clean, sizeof clean, kp_text(&l->why, g, t)));
    if (l->state == KP_OK && l->fix.id != BL_MSG_NONE)
        fprintf(f, "%6s   %s\n", "", bl_clean(clean, sizeof clean, kp_text(&l->fix, g, t)));
    if (l->compiler.id != BL_MSG_NONE)
        fprintf(f, "%6s   %s\n", "", bl_clean(clean, sizeof clean, kp_text(&l->compiler, g, t)));
}

/* the predicted lines as the array key of w's open object */
void kmodel_json_lines(struct jw *w, const char *key, const char *src, size_t len,
                       const struct kp_result *r)
{
    struct text_lines lines;
    kout_lines(src, len, &lines);
    jw_arr(w, key);
    for (int i = 0; i < r->nlines; i++) {
        const struct kp_line *l = &r->line[i];
        char t[KP_TEXT];
        if (l->state == KP_NONE)
            continue;
        int in = l->line >= 1 && l->line <= lines.n;
        jw_obj(w, NULL);
        jw_int(w, "line", l->line);
        jw_strn(w, "source", in ? lines.at[l->line - 1] : "", in ? (size_t)lines.len[l->line - 1] : 0);
        if (l->state == KP_OK) {
            jw_numf(w, "inst", "%.17g", l->inst);
            jw_numf(w, "wavefronts", "%.17g", l->wavefronts);
            jw_numf(w, "ideal", "%.17g", l->ideal);
            jw_numf(w, "excess", "%.17g", l->excess);
            jw_numf(w, "ways", "%.17g", l->ideal > 0 ? l->wavefronts / l->ideal : 0);
            jw_int(w, "max_ways", l->ways);
            jw_str(w, "why", l->why.id != BL_MSG_NONE ? kp_text(&l->why, BL_LANG_EN, t) : NULL);
            jw_str(w, "fix", l->fix.id != BL_MSG_NONE ? kp_text(&l->fix, BL_LANG_EN, t) : NULL);
            jw_arr(w, "warps");    /* executed (kexec_apply): worst warps, distinct patterns */
            for (int k = 0; k < r->nwarps; k++)
                if (r->warps[k].line == l->line)
                    kout_warp_json(w, &r->warps[k].p, r->warps[k].inst);
            jw_end(w);
        } else {
            jw_str(w, "reason", kp_text(&l->reason, BL_LANG_EN, t));
        }
        if (l->nsass >= 0) {
            jw_str(w, "sass", l->sass);
            jw_int(w, "sass_count", l->nsass);
        }
        if (l->compiler.id != BL_MSG_NONE)
            jw_str(w, "compiler", kp_text(&l->compiler, BL_LANG_EN, t));
        if (l->call_line)
            jw_int(w, "inlined_at", l->call_line);
        jw_end(w);
    }
    jw_end(w);
    kout_lines_free(&lines);
}

/* "banklab kernel: FILE: why" on stderr: the exit status of a prediction that failed. */
static int kmodel_refused(const char *file, const struct bl_err *err)
{
    fprintf(stderr, "banklab kernel: %s: %s\n", CLI_CLEAN(file), CLI_CLEAN(CLI_ERR(err)));
    return EXIT_USAGE;
}

static void json_one(struct jw *w, const char *file, const char *src, size_t len,
                     const struct kp_result *r)
{
    jw_str(w, "file", file);
    jw_str(w, "kernel", r->kernel);
    jw_str(w, "source", "model");
    jw_uints(w, "grid", r->grid, 3);
    jw_uints(w, "block", r->block, 3);
    jw_int(w, "dynamic_smem", (long long)r->smem);
    kmodel_json_lines(w, "model", src, len, r);
    jw_int(w, "predicted", r->npredicted);
    jw_int(w, "cannot", r->ncannot);
    jw_bool(w, "executed", r->executed);
    if (r->main_launch) {
        jw_int(w, "main_launch", r->main_launch);
        jw_int(w, "main_launches", r->main_launches);
    }
    if (r->executed)
        jw_int(w, "lane_instructions", (long long)r->exec_steps);
    else if (r->exec_note.id != BL_MSG_NONE)
        jw_str(w, "exec_note", kp_text(&r->exec_note, BL_LANG_EN, (char[KP_TEXT]){0}));
    jw_bool(w, "sass", r->sass_known);
    if (r->sass_known) {
        jw_int(w, "sass_lines", r->nsass_lines);
        jw_int(w, "sass_instructions", r->sass_total);
    }
    else
        jw_str(w, "sass_note", kp_text(&r->sass_note, BL_LANG_EN, (char[KP_TEXT]){0}));
}

int kmodel_print(const char *file, const char *src, size_t len,
                 const struct gpu_kernel_request *reqs, int n, int json, int zh, int sass,
                 const struct kxrt_result *run)
{
    static struct kp_result r;
    struct bl_err err = {0};
    char expr[GPU_KERNEL_TEXT];
    struct bl_msg why = {0};
    name_expr(src, len, &reqs[0], expr, sizeof expr);
    struct ksl_cubin *c = ksl_compile(src, len, &reqs[0], expr, NULL, &why);
    struct jw *w = json ? jw_new(n > 1) : NULL;
    int rc = 0;
    for (int k = 0; k < n; k++) {
        if (predict_with(c, &why, src, len, &reqs[k], run, &r, &err)) {
            if (n == 1) {
                rc = kmodel_refused(file, &err);
                break;
            }
            fprintf(stderr, "banklab kernel: %s: %s: %s\n", CLI_CLEAN(file), CLI_CLEAN(reqs[k].name),
                    CLI_CLEAN(CLI_ERR(&err)));
            rc = EXIT_USAGE;
            continue;
        }
        if (w) {
            if (n > 1)
                jw_obj(w, NULL);
            json_one(w, file, src, len, &r);
            if (n > 1)
                jw_end(w);
        } else {
            if (k)
                fputs("\n", stdout);
            print_text(stdout, file, src, len, &r, zh ? BL_LANG_ZH : BL_LANG_EN, sass, n > 1);
        }
        kp_free(&r);
    }
    if (w) {
        if (rc == 0 || n > 1)
            jw_print(w, stdout, 1);
        jw_free(w);
    }
    ksl_free(c);
    return rc;
}

int kmodel_write_fix(const char *file, const char *src, size_t len,
                     const struct gpu_kernel_request *req, char *fixed, size_t fsz, int json)
{
    FILE *o = json ? stderr : stdout;      /* --json keeps stdout one object */
    static struct kp_result r;
    struct bl_err err = {0};
    if (kmodel_predict(src, len, req, &r, &err))
        return kmodel_refused(file, &err);
    if (!r.executed && r.exec_note.id != BL_MSG_NONE) {   /* not executed: no figures */
        char why[KP_TEXT], c1[KP_TEXT * 2], c2[KP_TEXT * 2];
        kp_text(&r.exec_note, cli_lang(), why);
        cli_tell("kernel", KEX_NO_FIX_UNEXECUTED, bl_clean(c1, sizeof c1, file),
                 bl_clean(c2, sizeof c2, why));
        kp_free(&r);
        return EXIT_CHECK;
    }
    int line = kp_worst_fixable(&r), rc = 0;
    size_t plen = 0;
    char *patched = line ? kp_patch(src, len, &r, line, &plen) : NULL;
    char clean[KP_TEXT * 2];
    if (!patched) {
        int conflicting = 0, unchecked = 0;
        for (int i = 0; i < r.nlines; i++) {
            const struct kp_line *l = &r.line[i];
            conflicting += l->state == KP_OK && l->excess > 0;
            unchecked += l->state == KP_OK && l->excess > 0 && l->fix_unchecked &&
                         l->fix.id != BL_MSG_NONE;
        }
        cli_tell("kernel", unchecked ? KM_FIX_UNCHECKED : conflicting ? KM_FIX_NONE_FOUND
                                                                      : KM_FIX_NO_CONFLICT,
                 CLI_CLEAN(file));
        kp_free(&r);
        return EXIT_CHECK;
    }
    size_t n = strlen(file);
    if (n > 3 && !strcmp(file + n - 3, ".cu"))
        bl_fmt(fixed, fsz, "%.*s.fixed.cu", (int)(n - 3), file);
    else
        bl_fmt(fixed, fsz, "%s.fixed.cu", file);
    struct bl_err werr = {0};
    int w = files_create_new(fixed, patched, plen, &werr);
    if (w != 0) {
        cli_tell("kernel", BL_TEXT, bl_clean(clean, sizeof clean, CLI_ERR(&werr)));
        rc = EXIT_USAGE;
    } else {
        const char *note = "";
        enum bl_lang g = cli_lang();
        char t[KP_TEXT];
        for (int i = 0; i < r.nlines; i++)
            if (r.line[i].line == line)
                note = kp_text(&r.line[i].fix, g, t);
        fprintf(o, "%s:%d: %s\n", CLI_CLEAN(file), line, bl_clean(clean, sizeof clean, note));
        cli_say(o, KM_WROTE_FIX, CLI_CLEAN(fixed), line);
    }
    free(patched);
    kp_free(&r);
    return rc;
}
