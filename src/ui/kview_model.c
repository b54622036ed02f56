/* kview_model.c: the kernel view's model side: the bank model's prediction of every line of
 * the text shown, for its launch (src/gpu/kernel_predict.h), made whenever a text is shown;
 * the figure columns show it where nothing was measured (no GPU); under the table, for the
 * cursor's line, the prediction (beside the measured figures when there are some), why it
 * conflicts and the fix checked with the model; f writes the fixed copy next to the file
 * (FILE.fixed.cu, never over an existing file) and hands it back to be opened and measured
 * (or predicted, without a GPU). */
#include <stdlib.h>
#include <string.h>

#include "../base/fmt.h"
#include "../base/utf8.h"
#include "../store/files.h"
#include "kview.h"

const struct kv_row *kv_cur_row(const struct kview *k)
{
    return k->nrows > 0 ? &k->rows[ui_min(k->cur, k->nrows - 1)] : NULL;
}

void kv_predict(struct kview *k)
{
    kv_predict_free(k);
    if (!k->src)
        return;
    if (kp_predict(k->src, k->srclen, &k->req, &k->pred, NULL) == 0) {
        kp_fixes(k->src, k->srclen, &k->req, &k->pred);
        k->has_pred = 1;
    }
}

void kv_predict_free(struct kview *k)
{
    if (k->has_pred)
        kp_free(&k->pred);
    k->has_pred = 0;
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
    int g = a->lang == LANG_ZH ? KP_ZH : KP_EN;
    const char *sep = a->g->sep;
    char clean[KP_TEXT * 2], way[32];
    buf[0] = 0;
    if (!l || l->state == KP_NONE || k->prompting)
        return;
    if (l->state == KP_CANNOT) {
        bl_fmt(buf, size, ui_str(a, UIS_KV_MODEL_CANNOT), bl_clean(clean, sizeof clean,
                                                                   l->reason[g]));
        return;
    }
    bl_fmt(way, sizeof way, ui_str(a, UIS_KV_WAY), l->ways);
    size_t o = bl_fmt(buf, size, "%s %s %d: %s %.0f%s%s %.0f%s%s %.0f%s%s %.0f%s%s",
                      ui_str(a, UIS_KV_MODEL), ui_str(a, UIS_KV_LINE), l->line,
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
    if (l->why[g][0])
        o += bl_fmt(buf + o, size - o, "\n%s", bl_clean(clean, sizeof clean, l->why[g]));
    if (l->fix[g][0])
        o += bl_fmt(buf + o, size - o, "\n%s", bl_clean(clean, sizeof clean, l->fix[g]));
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
    int g = a->lang == LANG_ZH ? KP_ZH : KP_EN;
    char note[KP_TEXT * 2];
    app_msg(a, 0, ui_str(a, UIS_KV_FIX_WROTE), bl_clean(clean, sizeof clean, path),
            bl_clean(note, sizeof note, l->fix[g]));
    k->ask = k->file;
    bl_fmt(k->ask.path, sizeof k->ask.path, "%s", path);
    return 1;
}
