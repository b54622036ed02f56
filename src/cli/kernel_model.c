/* kernel_model.c: the model's side of `banklab kernel`: `--model` prints the prediction of
 * every line (src/gpu/kernel_predict.h) without a GPU, labelled as the model's, with the
 * worst pass of each conflicting line and a fix checked with the model, or why a line cannot
 * be predicted; `--fix` writes the patched copy FILE.fixed.cu (never over an existing file)
 * for kernel.c to measure; and the predicted wavefronts kernel.c prints beside the measured
 * ones. No curses; JSON through src/store/json_write.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/fmt.h"
#include "../base/utf8.h"
#include "../gpu/kernel_predict.h"
#include "../store/files.h"
#include "cli.h"
#include "kernel_model.h"
#include "kernel_out.h"

int kmodel_predict(const char *src, size_t len, const struct gpu_kernel_request *req,
                   struct kp_result *r, struct bl_err *err)
{
    if (kp_predict(src, len, req, r, err))
        return -1;
    kp_fixes(src, len, req, r);
    return 0;
}

static void print_text(FILE *f, const char *file, const char *src, size_t len,
                       const struct kp_result *r, int g)
{
    fprintf(f, "%s: %s<<<(%u,%u,%u), (%u,%u,%u), %llu>>>: %s\n\n", CLI_CLEAN(file),
            CLI_CLEAN(r->kernel), r->grid[0],
            r->grid[1], r->grid[2], r->block[0], r->block[1], r->block[2], r->smem,
            g == KP_ZH ? "模型的预测（没有在 GPU 上实测）" : "the model's prediction (nothing measured)");
    fprintf(f, "%6s %11s %12s %11s %11s %7s | %s\n", "line", "model inst", "wavefronts", "ideal",
            "excess", "ways", "source");
    double t[4] = {0, 0, 0, 0};
    struct text_lines lines;
    kout_lines(src, len, &lines);
    for (int i = 0; i < r->nlines; i++) {
        const struct kp_line *l = &r->line[i];
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
        kmodel_put_notes(f, l, g == KP_ZH);
    }
    kout_lines_free(&lines);
    fprintf(f, "%6s %11.0f %12.0f %11.0f %11.0f %7.2f |\n", "total", t[0], t[1], t[2], t[3],
            t[2] > 0 ? t[1] / t[2] : 0);
    if (g == KP_ZH)
        fprintf(f, "模型预测了 %d 行，%d 行无法表达\n\nmodel：bank 模型对这次启动每个 block 的每个 "
                "warp 的预测（docs/kernel.md）；excess = wavefronts - ideal（冲突）。\n",
                r->npredicted, r->ncannot);
    else
        fprintf(f, "%d line%s predicted by the model, %d it cannot express\n\nmodel: the bank "
                "model's figures for every warp of every block of this launch (docs/kernel.md); "
                "nothing here was\nmeasured. excess = wavefronts - ideal (the conflicts); ways = "
                "wavefronts / ideal.\n", r->npredicted, r->npredicted == 1 ? "" : "s", r->ncannot);
}

void kmodel_put_notes(FILE *f, const struct kp_line *l, int zh)
{
    char clean[KP_TEXT * 2];
    int g = zh ? KP_ZH : KP_EN;
    if (l->state == KP_CANNOT)
        fprintf(f, "%6s   %s %s\n", "", g == KP_ZH ? "无法预测：" : "not predicted:",
                bl_clean(clean, sizeof clean, l->reason[g]));
    if (l->state == KP_OK && l->why[g][0])
        fprintf(f, "%6s   %s\n", "", bl_clean(clean, sizeof clean, l->why[g]));
    if (l->state == KP_OK && l->fix[g][0])
        fprintf(f, "%6s   %s\n", "", bl_clean(clean, sizeof clean, l->fix[g]));
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
            jw_str(w, "why", l->why[KP_EN][0] ? l->why[KP_EN] : NULL);
            jw_str(w, "fix", l->fix[KP_EN][0] ? l->fix[KP_EN] : NULL);
        } else {
            jw_str(w, "reason", l->reason[KP_EN]);
        }
        jw_end(w);
    }
    jw_end(w);
    kout_lines_free(&lines);
}

/* "banklab kernel: FILE: why" on stderr: the exit status of a prediction that failed. */
static int kmodel_refused(const char *file, const struct bl_err *err)
{
    fprintf(stderr, "banklab kernel: %s: %s\n", CLI_CLEAN(file), CLI_CLEAN(err->msg));
    return EXIT_USAGE;
}

int kmodel_print(const char *file, const char *src, size_t len,
                 const struct gpu_kernel_request *req, int json, int zh)
{
    static struct kp_result r;
    struct bl_err err = {0};
    if (kmodel_predict(src, len, req, &r, &err))
        return kmodel_refused(file, &err);
    if (json) {
        struct jw *w = jw_new(0);
        jw_str(w, "file", file);
        jw_str(w, "kernel", r.kernel);
        jw_str(w, "source", "model");
        jw_uints(w, "grid", r.grid, 3);
        jw_uints(w, "block", r.block, 3);
        jw_int(w, "dynamic_smem", (long long)r.smem);
        kmodel_json_lines(w, "model", src, len, &r);
        jw_int(w, "predicted", r.npredicted);
        jw_int(w, "cannot", r.ncannot);
        jw_print(w, stdout, 1);
        jw_free(w);
    } else {
        print_text(stdout, file, src, len, &r, zh ? KP_ZH : KP_EN);
    }
    kp_free(&r);
    return 0;
}

int kmodel_write_fix(const char *file, const char *src, size_t len,
                     const struct gpu_kernel_request *req, char *fixed, size_t fsz, int json)
{
    FILE *o = json ? stderr : stdout;      /* --json keeps stdout one object */
    static struct kp_result r;
    struct bl_err err = {0};
    if (kmodel_predict(src, len, req, &r, &err))
        return kmodel_refused(file, &err);
    int line = kp_worst_fixable(&r), rc = 0;
    size_t plen = 0;
    char *patched = line ? kp_patch(src, len, &r, line, &plen) : NULL;
    char clean[KP_TEXT * 2];
    if (!patched) {
        int conflicting = 0;
        for (int i = 0; i < r.nlines; i++)
            conflicting += r.line[i].state == KP_OK && r.line[i].excess > 0;
        fprintf(stderr, "banklab kernel: %s: %s\n", CLI_CLEAN(file),
                conflicting ? "no fix found for its conflicting lines (--model says why)"
                            : "the model finds no conflicting line to fix");
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
        fprintf(stderr, "banklab kernel: %s\n", bl_clean(clean, sizeof clean, werr.msg));
        rc = EXIT_USAGE;
    } else {
        fprintf(o, "%s:%d: %s\n", CLI_CLEAN(file), line,
                bl_clean(clean, sizeof clean, r.line[line - 1].fix[KP_EN]));
        fprintf(o, "wrote %s (line %d fixed); measuring it\n\n", CLI_CLEAN(fixed), line);
    }
    free(patched);
    kp_free(&r);
    return rc;
}
