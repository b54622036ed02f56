/* kernel_xrun.c: `banklab kernel FILE.cu --model` on a file with main(), where this build has
 * banklab's CUDA runtime (src/gpu/kernel_xrt.h): the program runs as it is, each kernel main
 * launches on the CPU through the PTX executor, and every launch is printed with its
 * shared-memory lines in the columns of --model (text, or JSON); the program's own output goes
 * to stderr, apart from the figures. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/fmt.h"
#include "../gpu/kernel_xrt.h"
#include "../store/json_write.h"
#include "cli.h"
#include "kernel_model.h"
#include "kernel_out.h"

/* a program may run this long on the CPU unless --time-limit asks for longer */
#define KXRUN_SECONDS 120

/* one message of msg.def in the reader's language, a newline after it */
static void say_msg(FILE *f, int zh, int id, ...)
{
    struct bl_msg m;
    char text[1024];
    va_list ap;
    va_start(ap, id);
    bl_msg_vset(&m, NULL, 0, id, ap);
    va_end(ap);
    bl_msg_render(&m, zh ? BL_LANG_ZH : BL_LANG_EN, text, sizeof text);
    fprintf(f, "%s\n", text);
}

static const char *config_text(const struct kxrt_launch *l, char *buf, size_t n)
{
    bl_fmt(buf, n, "(%u,%u,%u), (%u,%u,%u), %llu", l->grid[0], l->grid[1], l->grid[2],
           l->block[0], l->block[1], l->block[2], l->smem);
    return buf;
}

static void print_launch(FILE *f, const char *file, const struct text_lines *src, int i,
                         const struct kxrt_launch *l, int zh)
{
    char cfg[128];
    say_msg(f, zh, KXRT_HEAD, CLI_CLEAN(file), i + 1, CLI_CLEAN(l->kernel), config_text(l, cfg, sizeof cfg));
    if (l->status && !l->note[0]) {   /* refused: it never ran */
        say_msg(f, zh, KXRT_REFUSED, CLI_CLEAN(l->error), CLI_CLEAN(l->error_text));
        return;
    }
    if (l->status)
        say_msg(f, zh, KXRT_FAULT, CLI_CLEAN(l->error), CLI_CLEAN(l->error_text),
                CLI_CLEAN(l->note));
    if (l->nlines == 0) {
        say_msg(f, zh, KXRT_NO_SHARED);
        return;
    }
    fprintf(f, "\n%6s %11s %12s %11s %11s %7s | %s\n", "line", "model inst", "wavefronts", "ideal",
            "excess", "ways", "source");
    double t[3] = {0, 0, 0};
    for (int k = 0; k < l->nlines; k++) {
        const struct kxrt_line *x = &l->lines[k];
        fprintf(f, "%6d", x->line);
        kout_figures(f, x->inst, x->wavefronts, 1, x->ideal);
        fputs(" | ", f);
        if (x->in_file && x->line >= 1 && x->line <= src->n)
            kout_source(f, src->at[x->line - 1], src->len[x->line - 1]);
        else
            fprintf(f, "(%s:%d)", CLI_CLEAN(x->file), x->line);
        fputc('\n', f);
        t[0] += x->inst;
        t[1] += x->wavefronts;
        t[2] += x->ideal;
    }
    fprintf(f, "%6s", "total");
    kout_figures(f, t[0], t[1], 1, t[2]);
    fputs(" |\n", f);
    if (l->unmodelled > 0)
        say_msg(f, zh, KXRT_UNMODELLED, l->unmodelled);
}

static void json_launches(const char *file, const struct kxrt_result *r)
{
    struct jw *w = jw_new(0);
    if (!w)
        return;
    jw_str(w, "file", file);
    jw_str(w, "source", "model-run");
    jw_arr(w, "launches");
    for (int i = 0; i < r->nlaunches; i++) {
        const struct kxrt_launch *l = &r->launches[i];
        jw_obj(w, NULL);
        jw_str(w, "kernel", l->kernel);
        jw_uints(w, "grid", l->grid, 3);
        jw_uints(w, "block", l->block, 3);
        jw_int(w, "dynamic_smem", (long long)l->smem);
        jw_str(w, "status", l->status ? l->error : "cudaSuccess");
        jw_str(w, "note", l->note[0] ? l->note : NULL);
        jw_numf(w, "unmodelled", "%.17g", l->unmodelled);
        jw_arr(w, "model");
        for (int k = 0; k < l->nlines; k++) {
            const struct kxrt_line *x = &l->lines[k];
            jw_obj(w, NULL);
            jw_str(w, "file", x->file);
            jw_int(w, "line", x->line);
            jw_str(w, "instructions", x->kinds);
            jw_numf(w, "inst", "%.17g", x->inst);
            jw_numf(w, "wavefronts", "%.17g", x->wavefronts);
            jw_numf(w, "ideal", "%.17g", x->ideal);
            jw_numf(w, "excess", "%.17g", x->wavefronts - x->ideal);
            jw_end(w);
        }
        jw_end(w);
        jw_end(w);
    }
    jw_end(w);
    jw_int(w, "exit_status", r->end == KXRT_ENDED ? r->status : -1);
    jw_str(w, "unsupported", r->end == KXRT_UNSUPPORTED ? r->what : NULL);
    jw_print(w, stdout, 1);
    jw_free(w);
}

/* how the program ended, on stderr; the exit status of banklab */
static int ending(const char *file, const struct kxrt_result *r, int zh)
{
    switch (r->end) {
    case KXRT_UNSUPPORTED:
        say_msg(stderr, zh, KXRT_SAY_UNSUPPORTED, CLI_CLEAN(file), CLI_CLEAN(r->what));
        return EXIT_USAGE;
    case KXRT_SETUP:
        say_msg(stderr, zh, KXRT_SAY_SETUP, CLI_CLEAN(file), CLI_CLEAN(r->what));
        return EXIT_USAGE;
    case KXRT_TIMEOUT:
        say_msg(stderr, zh, KXRT_SAY_TIMEOUT, CLI_CLEAN(file), r->status);
        return EXIT_CHECK;
    case KXRT_SIGNAL:
        say_msg(stderr, zh, KXRT_SAY_SIGNAL, CLI_CLEAN(file), r->status);
        return EXIT_CHECK;
    default:
        if (r->status == 0)
            return 0;
        say_msg(stderr, zh, KXRT_STATUS, CLI_CLEAN(file), r->status);
        return EXIT_CHECK;
    }
}

int kxrun_print(const char *file, const char *src, size_t len, const struct gpu_kernel_request *req,
                const char *lib_dir, int json, int zh)
{
    static struct kxrt_result r;
    struct bl_err err = {0};
    int secs = req->time_limit > KXRUN_SECONDS ? (int)req->time_limit : KXRUN_SECONDS;
    if (kxrt_run(file, req, lib_dir, secs, &r, &err)) {
        if (r.err && r.err[0])
            cli_put_clean(stderr, r.err, 1);
        char text[BL_ERR_TEXT];
        fprintf(stderr, "banklab kernel: %s: %s\n", CLI_CLEAN(file),
                bl_err_text(&err, zh ? BL_LANG_ZH : BL_LANG_EN, text, sizeof text));
        kxrt_done(&r);
        return EXIT_USAGE;
    }
    for (int s = 0; s < 2; s++) {
        const char *t = s ? r.err : r.out;
        if (t && t[0]) {
            say_msg(stderr, zh, KXRT_OUTPUT, s ? "stderr" : "stdout");
            cli_put_clean(stderr, t, 1);
            if (t[strlen(t) - 1] != '\n')
                fputc('\n', stderr);
        }
    }
    if (json) {
        json_launches(file, &r);
    } else {
        struct text_lines lines;
        kout_lines(src, len, &lines);
        for (int i = 0; i < r.nlaunches; i++) {
            if (i)
                fputc('\n', stdout);
            print_launch(stdout, file, &lines, i, &r.launches[i], zh);
        }
        kout_lines_free(&lines);
        if (r.nlaunches == 0)
            say_msg(stdout, zh, KXRT_NO_LAUNCH, CLI_CLEAN(file));
        if (r.launches_cut)
            say_msg(stdout, zh, KXRT_CUT, KXRT_MAX_LAUNCHES);
        fputc('\n', stdout);
        say_msg(stdout, zh, KXRT_FOOT);
    }
    fflush(stdout);
    int rc = ending(file, &r, zh);
    kxrt_done(&r);
    return rc;
}
