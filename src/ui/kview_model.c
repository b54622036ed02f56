/* kview_model.c: the kernel view's model side: the bank model's prediction of every line of
 * the text shown, for its launch (src/predict/predict.h), made whenever a text is shown;
 * the figure columns show it where nothing was measured (no GPU); under the table, for the
 * cursor's line, the prediction (beside the measured figures when there are some), why it
 * conflicts and the fix checked with the model; f writes the fixed copy next to the file
 * (FILE.fixed.cu, never over an existing file) and hands it back to be opened and measured
 * (or predicted, without a GPU). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../base/fmt.h"
#include "../base/utf8.h"
#include "../compile/compile.h"
#include "../predict/exec.h"
#include "../predict/program.h"
#include "../store/files.h"
#include "kview.h"

/* The prediction runs on a thread of its own (compiling for the SASS and predicting a long
 * kernel take time): the view stays answering keys and picks the result up on its idle tick
 * (kv_predict_poll). One at a time (the model's scratch is static): a text shown while one
 * runs waits for it, and a result for a text no longer shown is dropped. It comes in two
 * steps: the reading (kp_predict_sass: the lines, the arrays, the fixes, each fix checked by
 * executing its edited copy), shown at once without figures (kp_unexecuted), then the kernel
 * executed on the CPU (kexec_apply: nvcc's PTX with the view's launch, seconds more) on a copy
 * of it, which gives the figures and warps; a file with main() is run as a program on
 * banklab's CUDA runtime instead where this build has it (kxrt_run: its own process group,
 * time and memory limits, killed when cancelled), and main's first launch of the kernel shown
 * gives the figures and warps (kxrt_apply). Where the execution fails (a fault, no nvcc, a
 * program that never launches the kernel) the lines stay without figures, and why is said
 * once on the message line (kv_prog_note). */
#define KV_PROG_SECONDS 120                 /* the program's time limit (as the command's) */
struct kv_pjob {
    pthread_t th;
    char *src;
    size_t len;
    struct gpu_kernel_request req;
    struct kp_result res;
    int exec;                               /* the second step: res is the reading's copy */
    int prog;                               /* ... by running the program (a file with main) */
    char path[UI_PATH_MAX], lib[UI_PATH_MAX];   /* its file and banklab's CUDA runtime */
    struct bl_msg note;                     /* why the program gave no figures, or how it ended */
    int ok;
    atomic_int done;
    atomic_int cancel;                      /* its result will be dropped: stop the compiler */
};

/* how a program that ran ended, when not well, into *m */
static void prog_end(const struct kxrt_result *run, const char *path, int secs, struct bl_msg *m)
{
    switch (run->end) {
    case KXRT_UNSUPPORTED:
        bl_msg_set(m, NULL, 0, KXRT_SAY_UNSUPPORTED, path, run->what);
        break;
    case KXRT_SETUP:
        bl_msg_set(m, NULL, 0, KXRT_SAY_SETUP, path, run->what);
        break;
    case KXRT_TIMEOUT:
        bl_msg_set(m, NULL, 0, KXRT_SAY_TIMEOUT, path, secs);
        break;
    case KXRT_SIGNAL:
        bl_msg_set(m, NULL, 0, KXRT_SAY_SIGNAL, path, run->status);
        break;
    default:
        if (run->status != 0)
            bl_msg_set(m, NULL, 0, KXRT_STATUS, path, run->status);
    }
}

/* the second step of a file with main(): the program run, main's launch of the kernel */
static void run_program(struct kv_pjob *j)
{
    struct kxrt_result run;
    struct bl_err err = {0};
    int secs = j->req.time_limit > KV_PROG_SECONDS ? (int)j->req.time_limit : KV_PROG_SECONDS;
    j->ok = 0;
    if (kxrt_run(j->path, &j->req, j->lib, secs, &j->cancel, &run, &err)) {
        j->note = err.why;
        kxrt_done(&run);
        return;
    }
    kxrt_apply(&run, j->req.name, j->path, &j->res);
    j->ok = j->res.executed;
    prog_end(&run, j->path, secs, &j->note);
    if (j->note.id == BL_MSG_NONE && !j->ok)
        j->note = j->res.exec_note;
    kxrt_done(&run);
}

static void *predict_main(void *arg)
{
    struct kv_pjob *j = arg;
    if (j->prog) {
        run_program(j);
        atomic_store(&j->done, 1);
        return NULL;
    }
    if (j->exec) {                          /* the kernel's PTX with the view's launch */
        j->ok = kexec_apply(j->src, j->len, &j->req, j->req.name, &j->res) == 0;
        if (!j->ok)
            j->note = j->res.exec_note;
        atomic_store(&j->done, 1);
        return NULL;
    }
    struct bl_msg why = {0}, kwhy = {0};
    struct kp_sass sass = {0};
    struct ksl_cubin *c = ksl_compile(j->src, j->len, &j->req, j->req.name, &j->cancel, &why);
    int have = c && ksl_kernel(c, j->req.name, j->src, j->len, &sass, &kwhy) == 0;
    j->ok = kp_predict_sass(j->src, j->len, &j->req, have ? &sass : NULL, &j->res, NULL) == 0;
    if (j->ok) {
        if (!have)
            j->res.sass_note = c ? kwhy : why;
        kp_fixes_exec(j->src, j->len, &j->req, have ? &sass : NULL, j->req.name, NULL,
                      &j->res);
    }
    kp_sass_free(&sass);
    ksl_free(c);
    atomic_store(&j->done, 1);
    return NULL;
}

/* from (NULL: the reading) is the reading to execute on: copied; a file with main() only
 * where this build has banklab's CUDA runtime */
static void pjob_start(struct kview *k, const struct kp_result *from)
{
    char lib[UI_PATH_MAX];
    int prog = from && kexec_has_main(k->src, k->srclen) && kxrt_lib_dir(lib, sizeof lib) == 0;
    struct kv_pjob *j = calloc(1, sizeof *j);
    if (!j)
        return;
    if (prog) {
        j->prog = 1;
        bl_fmt(j->lib, sizeof j->lib, "%s", lib);
        bl_fmt(j->path, sizeof j->path, "%s", k->file.path);
    }
    if (from) {
        j->exec = 1;
        j->res = *from;
        j->res.warps = NULL;
        j->res.nwarps = 0;
        j->res.line = malloc((size_t)(from->nlines ? from->nlines : 1) * sizeof *from->line);
        if (!j->res.line) {
            free(j);
            return;
        }
        memcpy(j->res.line, from->line, (size_t)from->nlines * sizeof *from->line);
    }
    j->src = malloc(k->srclen + 1);
    if (!j->src) {
        free(j);
        return;
    }
    memcpy(j->src, k->src, k->srclen);
    j->src[k->srclen] = 0;
    j->len = k->srclen;
    j->req = k->req;
    if (!j->req.name[0]) {                  /* the only kernel: its name, for the compiler */
        static char names[8][GPU_KERNEL_TEXT];
        int tmpl[8];
        if (kp_kernels(j->src, j->len, names, tmpl, 8) == 1 && !tmpl[0])
            bl_fmt(j->req.name, sizeof j->req.name, "%s", names[0]);
    }
    atomic_init(&j->done, 0);
    atomic_init(&j->cancel, 0);
    if (pthread_create(&j->th, NULL, predict_main, j)) {
        if (j->exec)
            kp_free(&j->res);
        free(j->src);
        free(j);
        return;
    }
    k->pjob = j;
}

static void pjob_end(struct kv_pjob *j, struct kp_result *into)
{
    pthread_join(j->th, NULL);
    if (into && j->ok)
        *into = j->res;
    else if (j->ok || j->exec)
        kp_free(&j->res);
    free(j->src);
    free(j);
}

int kv_predict_poll(struct kview *k)
{
    struct kv_pjob *j = k->pjob;
    if (!j || !atomic_load(&j->done))
        return 0;
    k->pjob = NULL;
    if (k->pred_stale || !k->src) {         /* for a text no longer shown: again */
        pjob_end(j, NULL);
        k->pred_stale = 0;
        if (k->src)
            pjob_start(k, NULL);
        return 0;
    }
    int ok = j->ok;
    if (j->exec) {                          /* the executed figures replace the reading's */
        k->prog_note = j->note;
        k->prog_told = 0;
        if (!ok || !k->has_pred) {
            pjob_end(j, NULL);
            return k->has_pred && k->prog_note.id != BL_MSG_NONE;   /* its why to say */
        }
        kp_free(&k->pred);
        pjob_end(j, &k->pred);
        return 1;
    }
    pjob_end(j, &k->pred);
    k->has_pred = ok;
    if (ok)                                 /* the reading's copy, to be executed */
        pjob_start(k, &k->pred);
    if (ok)                                 /* shown without figures until executed */
        kp_unexecuted(&k->pred);
    return ok;
}

void kv_prog_note(struct app *a, struct kview *k)
{
    char t[KP_TEXT * 2], clean[KP_TEXT * 4];
    if (k->prog_told || k->prog_note.id == BL_MSG_NONE)
        return;
    k->prog_told = 1;
    bl_msg_render(&k->prog_note, a->lang == LANG_ZH ? BL_LANG_ZH : BL_LANG_EN, t, sizeof t);
    app_msg(a, 1, "%s", bl_clean(clean, sizeof clean, t));
}

int kv_executing(const struct kview *k)
{
    return k->pjob && k->pjob->exec && !k->pred_stale;
}

const struct kv_row *kv_cur_row(const struct kview *k)
{
    return k->nrows > 0 ? &k->rows[ui_min(k->cur, k->nrows - 1)] : NULL;
}

void kv_predict(struct kview *k)
{
    memset(&k->prog_note, 0, sizeof k->prog_note);
    if (k->has_pred)
        kp_free(&k->pred);
    k->has_pred = 0;
    if (!k->src)
        return;
    if (k->pjob) {
        k->pred_stale = 1;                  /* the running one's result is dropped */
        atomic_store(&k->pjob->cancel, 1);
    }
    else
        pjob_start(k, NULL);
}

void kv_predict_free(struct kview *k)
{
    if (k->has_pred)
        kp_free(&k->pred);
    k->has_pred = 0;
    if (k->pjob) {                          /* never waited for: its result is dropped */
        k->pred_stale = 1;
        atomic_store(&k->pjob->cancel, 1);  /* and its compiler stopped now */
    }
}

int kv_pred_worst(const struct kview *k)
{
    int best = -1;
    double ex = 0;
    for (int i = 0; k->has_pred && i < k->nrows; i++) {
        const struct kp_line *l = kv_pred_line(k, &k->rows[i]);
        if (l && l->state == KP_OK && l->excess > ex) {
            best = i;
            ex = l->excess;
        }
    }
    return best;
}

const struct kp_line *kv_pred_line(const struct kview *k, const struct kv_row *w)
{
    if (!k->has_pred || !w || w->file != 0 || w->line < 1 || w->line > k->pred.nlines)
        return NULL;
    return &k->pred.line[w->line - 1];
}

int kv_model_shown(const struct kview *k)
{
    return k->has_pred && (!k->has_res || k->res.err.status != GPU_KERNEL_OK);
}

void kv_model_total(const struct kview *k, double *inst, double *wf, double *ideal, double *ex)
{
    *inst = *wf = *ideal = *ex = 0;
    for (int i = 0; k->has_pred && i < k->pred.nlines; i++) {
        const struct kp_line *l = &k->pred.line[i];
        if (l->state != KP_OK)
            continue;
        *inst += l->inst;
        *wf += l->wavefronts;
        *ideal += l->ideal;
        *ex += l->excess;
    }
}

void kv_model_info(const struct app *a, const struct kview *k, char *buf, size_t size)
{
    const struct kv_row *w = kv_cur_row(k);
    const struct kp_line *l = kv_pred_line(k, w);
    enum bl_lang g = a->lang == LANG_ZH ? BL_LANG_ZH : BL_LANG_EN;
    const char *sep = a->g->sep;
    char clean[KP_TEXT * 2], way[32], t[KP_TEXT];
    buf[0] = 0;
    if (!l || l->state == KP_NONE || k->prompting)
        return;
    if (l->state == KP_CANNOT) {
        bl_msg_render(&l->reason, g, t, sizeof t);
        bl_fmt(buf, size, ui_str(a, UIS_KV_MODEL_CANNOT), bl_clean(clean, sizeof clean, t));
        return;
    }
    if (l->compiler.id != BL_MSG_NONE && l->nsass == 0) {  /* nvcc emitted nothing: what it did */
        size_t h = bl_fmt(buf, size, ui_str(a, UIS_KV_MODEL_LINE), l->line);
        bl_msg_render(&l->compiler, g, t, sizeof t);
        bl_fmt(buf + h, size - h, "%s", bl_clean(clean, sizeof clean, t));
        return;
    }
    bl_fmt(way, sizeof way, ui_str(a, UIS_KV_WAY), l->ways);
    size_t o = bl_fmt(buf, size, ui_str(a, UIS_KV_MODEL_LINE), l->line);
    o += bl_fmt(buf + o, size - o, "%s %.0f%s%s %.0f%s%s %.0f%s%s %.0f%s%s",
                      ui_str(a, UIS_KV_INST), l->inst, sep, ui_str(a, UIS_KV_WAVEFRONTS),
                      l->wavefronts, sep, ui_str(a, UIS_KV_IDEAL), l->ideal, sep,
                      ui_str(a, UIS_KV_EXCESS), l->excess, sep, way);
    if (k->has_res && k->res.err.status == GPU_KERNEL_OK) {   /* beside what the GPU measured */
        double m = w->li >= 0 ? k->res.lines[w->li].wavefronts : 0;
        o += bl_fmt(buf + o, size - o, " (");
        o += m == l->wavefronts ? bl_fmt(buf + o, size - o, "%s", ui_str(a, UIS_KV_MODEL_SAME))
                                : bl_fmt(buf + o, size - o, ui_str(a, UIS_KV_MODEL_DIFF), m);
        o += bl_fmt(buf + o, size - o, ")");
    }
    struct bl_msg ran = {0};                /* a program's: which launch of main ran */
    if (k->pred.executed && k->pred.main_launch > 0)
        bl_msg_set(&ran, NULL, 0, KXRT_EXECUTED, k->pred.main_launch, k->pred.main_launches);
    const struct bl_msg *notes[] = {&l->why, &l->fix, &l->compiler, &ran};
    for (int i = 0; i < 4; i++)
        if (notes[i]->id != BL_MSG_NONE && bl_msg_render(notes[i], g, t, sizeof t) > 0)
            o += bl_fmt(buf + o, size - o, "\n%s", bl_clean(clean, sizeof clean, t));
    if (l->fix_kind != KP_FIX_NONE)
        bl_fmt(buf + o, size - o, "%s%s", sep, ui_str(a, UIS_KV_FIX_KEY));
}

int kv_fix(struct app *a, struct kview *k)
{
    const struct kv_row *w = kv_cur_row(k);
    const struct kp_line *l = kv_pred_line(k, w);
    if (!l || l->fix_kind == KP_FIX_NONE) {
        app_msg(a, 1, "%s", ui_str(a, UIS_KV_FIX_NONE));
        return 0;
    }
    size_t len = 0;
    char *text = kp_patch(k->src, k->srclen, &k->pred, l->line, &len);
    if (!text) {
        app_msg(a, 1, "%s", ui_str(a, UIS_KV_FIX_NONE));
        return 0;
    }
    char path[UI_PATH_MAX], clean[UI_MSG_MAX];
    struct bl_err err = {0};
    size_t n = strlen(k->file.path);
    if (n > 3 && !strcmp(k->file.path + n - 3, ".cu"))
        bl_fmt(path, sizeof path, "%.*s.fixed.cu", (int)(n - 3), k->file.path);
    else
        bl_fmt(path, sizeof path, "%s.fixed.cu", k->file.path);
    int rc = strlen(path) + 1 >= sizeof path ? -1
             : files_create_new(path, text, len, &err);
    free(text);
    if (rc != 0) {
        /* the store's own English line in either language (tui_kernel_model.sh reads it) */
        app_msg(a, 1, "%s", bl_clean(clean, sizeof clean, rc < 0 && !err.msg[0] ? path : err.msg));
        return 0;
    }
    char note[KP_TEXT * 2], t[KP_TEXT];
    bl_msg_render(&l->fix, a->lang == LANG_ZH ? BL_LANG_ZH : BL_LANG_EN, t, sizeof t);
    app_msg(a, 0, ui_str(a, UIS_KV_FIX_WROTE), bl_clean(clean, sizeof clean, path),
            bl_clean(note, sizeof note, t));
    k->ask = k->file;
    bl_fmt(k->ask.path, sizeof k->ask.path, "%s", path);
    return 1;
}
