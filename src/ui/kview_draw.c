/* kview_draw.c: the kernel view's layout and drawing: the launch and the totals on top; a
 * header; per line the cursor mark, the number, the heat (the line's share of the kernel's
 * excess wavefronts in quarters of glyphs, coloured, never colour alone), the figure columns
 * that leave the source at least KV_MIN_SOURCE columns, the source cut with an ellipsis; under
 * the table the cursor's figures, a compile error or why the file cannot run; the run in
 * flight or what is watched; the key bar. Nothing here allocates or changes the state. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../base/fmt.h"
#include "../base/utf8.h"
#include "kview.h"

/* the figure columns, in the order they are added as the width allows */
enum kv_col { KC_EXCESS, KC_WAYS, KC_WAVEFRONTS, KC_IDEAL, KC_INST, KC_COUNT };
static const struct {
    enum ui_str name;
    int width;
} columns[KC_COUNT] = {
    [KC_EXCESS] = {UIS_KV_EXCESS, 8}, [KC_WAYS] = {UIS_KV_WAYS, 5},
    [KC_WAVEFRONTS] = {UIS_KV_WAVEFRONTS, 10}, [KC_IDEAL] = {UIS_KV_IDEAL, 8},
    [KC_INST] = {UIS_KV_INST, 8},
};
/* ... and the order they stand in, left to right */
static const enum kv_col col_order[KC_COUNT] = {KC_INST, KC_WAVEFRONTS, KC_IDEAL, KC_EXCESS,
                                                KC_WAYS};

struct kv_layout {
    int lw;                   /* line number columns */
    int shown[KC_COUNT];      /* which figure columns fit */
    int src_x;                /* where the source starts */
    int table_y, table_h;
    int info_y, info_h;
    char info[UI_MSG_MAX * 6];/* under the table: the cursor's figures, an error, the model's */
    enum ui_role info_role;
};

/* v in at most width columns: exact, else 3 significant digits with k, M or G */
static const char *fmt_num(double v, int width, char *buf, size_t size)
{
    bl_fmt(buf, size, "%.0f", v);
    if ((int)strlen(buf) <= width)
        return buf;
    static const char units[] = "kMGTP";
    double x = v;
    int u = -1;
    while (x >= 999.5 && u < 4) {
        x /= 1000;
        u++;
    }
    bl_fmt(buf, size, "%.3g%c", x, u >= 0 ? units[u] : ' ');
    return buf;
}

void kv_fmt_dims(const unsigned d[3], char *buf, size_t size)
{
    if (d[2] > 1)
        bl_fmt(buf, size, "%ux%ux%u", d[0], d[1], d[2]);
    else if (d[1] > 1)
        bl_fmt(buf, size, "%ux%u", d[0], d[1]);
    else
        bl_fmt(buf, size, "%u", d[0]);
}

/* the SASS instructions of result line li, e.g. "LDS, STS.128" */
static void sass_of(const struct gpu_kernel_result *r, int li, char *buf, size_t size)
{
    const struct gpu_kernel_line *l = &r->lines[li];
    size_t o = 0;
    buf[0] = 0;
    for (int i = 0; i < r->ninsts; i++) {
        const struct gpu_kernel_inst *in = &r->insts[i];
        if (in->file != l->file || in->line != l->line || strstr(buf, in->sass))
            continue;
        o += bl_fmt(buf + o, size - o, "%s%s", o ? ", " : "", in->sass);
    }
}

/* what the line under the table says */
static void info_words(const struct app *a, const struct kview *k, char *buf, size_t size,
                       enum ui_role *role)
{
    const struct kv_row *w = kv_cur_row(k);
    const struct gpu_kernel_result *r = &k->res;
    const char *sep = a->g->sep;
    *role = UIC_NORMAL;
    buf[0] = 0;
    if (k->prompting) {
        *role = UIC_DIM;
        bl_fmt(buf, size, "%s", ui_str(a, UIS_KV_INTRO));
    } else if (bl_err_failed(&k->problem)) {
        *role = UIC_WARN;
        bl_fmt(buf, size, "%s", ui_err(a, &k->problem, (char[UI_MSG_MAX]){0}, UI_MSG_MAX));
    } else if (k->why[0]) {
        *role = UIC_WARN;
        bl_fmt(buf, size, "%s", k->why);
    } else if (!k->has_res) {
        return;
    } else if ((w && w->diag >= 0) || (r->err.status == GPU_KERNEL_ECOMPILE && r->ndiags > 0)) {
        int di = w && w->diag >= 0 ? w->diag : 0, nerr = 0, at = 0;
        for (int i = 0; i < r->ndiags; i++)
            if (r->diags[i].error) {
                nerr++;
                if (i <= di)
                    at = nerr;
            }
        const struct gpu_kernel_diag *d = &r->diags[di];
        size_t o = d->col > 0 ? bl_fmt(buf, size, "%s:%d:%d: ", d->file, d->line, d->col)
                              : bl_fmt(buf, size, "%s:%d: ", d->file, d->line);
        o += bl_fmt(buf + o, size - o, "%s%s%s", ui_str(a, d->error ? UIS_KV_DIAG_ERROR : UIS_KV_DIAG_WARNING),
                    ui_str(a, UIS_COLON), d->message);
        if (nerr > 1 && d->error) {
            o += bl_fmt(buf + o, size - o, "%s", sep);
            bl_fmt(buf + o, size - o, ui_str(a, UIS_KV_ERRORS), at, nerr);
        }
        *role = d->error ? UIC_ERROR : UIC_WARN;
    } else if (r->err.status != GPU_KERNEL_OK) {
        *role = UIC_WARN;
        bl_fmt(buf, size, "%s", ui_err(a, &r->err, (char[UI_MSG_MAX]){0}, UI_MSG_MAX));
    } else if (w && w->li >= 0) {
        const struct gpu_kernel_line *l = &r->lines[w->li];
        char label[GPU_KERNEL_TEXT + 16], sass[128];
        if (w->file > 0 && w->file < r->nfiles)
            bl_fmt(label, sizeof label, "%s:%d", r->files[w->file], w->line);
        else
            bl_fmt(label, sizeof label, "%s %d", ui_str(a, UIS_KV_LINE), w->line);
        sass_of(r, w->li, sass, sizeof sass);
        size_t o = bl_fmt(buf, size, "%s: %s %.0f%s%s %.0f", label, ui_str(a, UIS_KV_INST),
                          l->inst, sep, ui_str(a, UIS_KV_WAVEFRONTS), l->wavefronts);
        if (l->ideal_known) {
            o += bl_fmt(buf + o, size - o, "%s%s %.0f%s%s %.0f", sep, ui_str(a, UIS_KV_IDEAL),
                        l->ideal, sep, ui_str(a, UIS_KV_EXCESS), l->excess);
            if (l->excess > 0 && r->totals.excess > 0) {
                double pct = 100.0 * l->excess / r->totals.excess;
                char share[16];
                bl_fmt(share, sizeof share, pct < 1 ? "<1%%" : "%.0f%%", pct);
                o += bl_fmt(buf + o, size - o, " (");
                o += bl_fmt(buf + o, size - o, ui_str(a, UIS_KV_OF_KERNEL), share);
                o += bl_fmt(buf + o, size - o, ")");
            }
            o += bl_fmt(buf + o, size - o, "%s%s %.2f", sep, ui_str(a, UIS_KV_WAYS), l->ways);
        }
        o += bl_fmt(buf + o, size - o, "%s%s", sep, sass);
        if (!w->file)
            bl_fmt(buf + o, size - o, "%s%s", sep, ui_str(a, UIS_KV_HINT_ENTER));
    } else if (w) {
        bl_fmt(buf, size, "%s %d: %s%s%s", ui_str(a, UIS_KV_LINE), w->line,
               ui_str(a, UIS_KV_NO_SHARED), sep, ui_str(a, UIS_KV_HINT_ENTER));
    }
}

/* what the line under the table says, escaped: it quotes paths, the compiler and the file */
static void info_text(const struct app *a, const struct kview *k, char *buf, size_t size,
                      enum ui_role *role)
{
    char raw[UI_MSG_MAX * 2], model[UI_MSG_MAX * 4];
    info_words(a, k, raw, sizeof raw, role);
    size_t o = strlen(bl_clean(buf, size, raw));
    kv_model_info(a, k, model, sizeof model);    /* cleaned there; its lines kept apart */
    if (model[0] && !bl_err_failed(&k->problem) && !k->why[0])
        bl_fmt(buf + o, size - o, "%s%s", o ? "\n" : "", model);
}

static void layout(const struct app *a, const struct kview *k, struct kv_layout *L)
{
    memset(L, 0, sizeof *L);
    int digits = 1;
    for (int n = k->nsrc; n >= 10; n /= 10)
        digits++;
    L->lw = ui_max(4, digits);
    int left = a->W - (1 + L->lw + 1 + KV_HEAT + 3);
    for (int c = 0; c < KC_COUNT; c++)
        if (left - (columns[c].width + 1) >= KV_MIN_SOURCE) {
            L->shown[c] = 1;
            left -= columns[c].width + 1;
        } else {
            break;
        }
    L->src_x = a->W - left;
    info_text(a, k, L->info, sizeof L->info, &L->info_role);
    L->info_h = L->info[0] ? ui_min(ui_min(8, a->H - 9), text_count(L->info, a->W - 2)) : 0;
    L->table_y = 4;
    L->info_y = a->H - 2 - L->info_h;
    L->table_h = ui_max(1, L->info_y - L->table_y);
}

int kv_table_rows(const struct app *a, const struct kview *k)
{
    struct kv_layout L;
    layout(a, k, &L);
    return L.table_h;
}

int kv_first_shown(const struct kview *k, int height)
{
    return ui_max(0, ui_min(ui_follow(k->top, k->cur, height), k->nrows - height));
}

/* ---------------------------------------------------------------- drawing */

static void put_right(const struct app *a, int y, int x, int width, const char *s, attr_t at)
{
    int w = text_width(s);
    text_puts(a, y, x + ui_max(0, width - w), width, s, at);
}

/* a share of the excess in quarters of glyphs, or the mark of none */
static void draw_share(const struct app *a, int y, int x, double excess, double total)
{
    if (excess <= 0 || total <= 0) {
        text_puts(a, y, x + 1, KV_HEAT - 1, a->g->right, theme_attr(a, UIC_OK));
        return;
    }
    double share = excess / total;
    int n = ui_max(1, ui_min(KV_HEAT, (int)(share * KV_HEAT + 0.999)));
    attrset(theme_attr(a, share >= 0.5 ? UIC_WORST : UIC_CONFLICT));
    for (int i = 0; i < n; i++)
        mvaddstr(y, x + i, a->g->bar);
    attrset(A_NORMAL);
}

/* the heat of a row: its share of the kernel's excess wavefronts, in quarters of glyphs */
static void draw_heat(const struct app *a, const struct kview *k, const struct kv_row *w, int y,
                      int x)
{
    const struct gpu_kernel_result *r = &k->res;
    if (w->diag >= 0 && r->diags[w->diag].error) {
        text_puts(a, y, x + 1, KV_HEAT - 1, a->g->wrong, theme_attr(a, UIC_ERROR));
        return;
    }
    const struct kp_line *m = kv_model_shown(k) ? kv_pred_line(k, w) : NULL;
    if (w->li < 0 && m && m->state == KP_OK) {     /* nothing measured: the model's heat */
        double tot[4];
        kv_model_total(k, &tot[0], &tot[1], &tot[2], &tot[3]);
        draw_share(a, y, x, m->excess, tot[3]);
        return;
    }
    if (w->li < 0)
        return;
    const struct gpu_kernel_line *l = &r->lines[w->li];
    if (!l->ideal_known) {
        text_puts(a, y, x + 1, KV_HEAT - 1, "?", theme_attr(a, UIC_DIM));
    } else {
        draw_share(a, y, x, l->excess, r->totals.excess);
    }
}

/* a source line (or any text from outside, ui_source_text) from column hscroll; text_puts
 * ends it in an ellipsis where it is cut */
static void draw_source(const struct app *a, int y, int x, int width, const char *s, int n,
                        int hscroll, attr_t at)
{
    char clean[UI_SOURCE_TEXT];
    ui_source_text(s, n, clean, sizeof clean);
    int skipped;
    size_t from = text_fit(clean, strlen(clean), hscroll, &skipped);
    text_puts(a, y, x, width, clean + from, at);
}

/* one line of text, cut with an ellipsis where it does not fit */
static void put_line(const struct app *a, int y, const char *s, attr_t at)
{
    draw_source(a, y, 1, a->W - 2, s, (int)strlen(s), 0, at);
}

static void draw_header(const struct app *a, const struct kv_layout *L, int y)
{
    attr_t at = theme_attr(a, UIC_HEADER);
    char buf[UI_MSG_MAX];
    put_right(a, y, 1, L->lw, ui_str(a, UIS_KV_LINE), at);
    text_puts(a, y, 1 + L->lw + 1, KV_HEAT, ui_str(a, UIS_KV_HEAT), at);
    int x = 1 + L->lw + 1 + KV_HEAT;
    for (int i = 0; i < KC_COUNT; i++) {
        enum kv_col c = col_order[i];
        if (!L->shown[c])
            continue;
        put_right(a, y, x + 1, columns[c].width, ui_str(a, columns[c].name), at);
        x += columns[c].width + 1;
    }
    text_puts(a, y, x + 1, 1, a->g->vline, theme_attr(a, UIC_DIM));
    int sx = L->src_x, used = text_puts(a, y, sx, a->W - sx - 1, ui_str(a, UIS_KV_SOURCE), at);
    bl_fmt(buf, sizeof buf, ui_str(a, UIS_KV_LEGEND), a->g->bar, a->g->right);
    if (sx + used + 3 + text_width(buf) < a->W)
        text_puts(a, y, sx + used + 3, a->W - sx - used - 4, buf, theme_attr(a, UIC_DIM));
}

static void draw_row(const struct app *a, const struct kview *k, const struct kv_layout *L,
                     int i, int y)
{
    const struct kv_row *w = &k->rows[i];
    const struct gpu_kernel_result *r = &k->res;
    int is_cur = i == k->cur, err = w->diag >= 0 && r->diags[w->diag].error;
    char buf[64];
    if (is_cur)
        text_puts(a, y, 0, 1, ">", theme_attr(a, UIC_CURSOR));
    if (w->file == 0 && w->line >= 1 && w->line <= k->nsrc)
        bl_fmt(buf, sizeof buf, "%d", w->line);
    else
        bl_fmt(buf, sizeof buf, w->file ? "+" : "?");   /* a header's line; no line info */
    put_right(a, y, 1, L->lw, buf,
              theme_attr(a, is_cur ? UIC_CURSOR : err ? UIC_ERROR : UIC_DIM));
    draw_heat(a, k, w, y, 1 + L->lw + 1);
    int x = 1 + L->lw + 1 + KV_HEAT;
    const struct gpu_kernel_line *l = w->li >= 0 ? &r->lines[w->li] : NULL;
    const struct kp_line *m = kv_model_shown(k) ? kv_pred_line(k, w) : NULL;
    struct gpu_kernel_line ml;                   /* nothing measured: the model's figures */
    if (!l && m && m->state == KP_OK) {
        memset(&ml, 0, sizeof ml);
        ml.ideal_known = 1;
        ml.inst = m->inst;
        ml.wavefronts = m->wavefronts;
        ml.ideal = m->ideal;
        ml.excess = m->excess;
        ml.ways = m->ideal > 0 ? m->wavefronts / m->ideal : 0;
        l = &ml;
    }
    for (int c = 0; c < KC_COUNT; c++) {
        enum kv_col col = col_order[c];
        if (!L->shown[col])
            continue;
        int cw = columns[col].width;
        if (l) {
            int known = l->ideal_known || col == KC_INST || col == KC_WAVEFRONTS;
            double v = col == KC_INST ? l->inst : col == KC_WAVEFRONTS ? l->wavefronts
                     : col == KC_IDEAL ? l->ideal : col == KC_EXCESS ? l->excess : l->ways;
            if (!known)
                bl_fmt(buf, sizeof buf, "-");
            else if (col == KC_WAYS)
                bl_fmt(buf, sizeof buf, "%.2f", v);
            else
                fmt_num(v, cw, buf, sizeof buf);
            enum ui_role role = k->job ? UIC_DIM     /* a newer run is in flight */
                                : col == KC_EXCESS && known && v > 0 ? UIC_CONFLICT : UIC_NORMAL;
            put_right(a, y, x + 1, cw, buf, theme_attr(a, role));
        }
        x += cw + 1;
    }
    text_puts(a, y, x + 1, 1, a->g->vline, theme_attr(a, UIC_DIM));
    int sx = L->src_x, sw = a->W - sx;
    if (w->file > 0 && w->file < r->nfiles) {   /* a line of a header: its place first */
        bl_fmt(buf, sizeof buf, "%s:%d: ", r->files[w->file], w->line);
        int used = text_puts(a, y, sx, sw, buf, theme_attr(a, UIC_DIM));
        sx += used;
        sw -= used;
    }
    if (sw > 0)
        draw_source(a, y, sx, sw, w->text, w->tlen, k->hscroll,
                    theme_attr(a, err ? UIC_ERROR : l ? UIC_NORMAL : UIC_NORMAL));
}

/* line 2: the totals t (instructions, wavefronts, ideal, excess) after label, the ways when
 * ways >= 0, and the count of lines (the string `lines`): exact figures where they fit, else
 * three digits, else without the count */
static void draw_totals(const struct app *a, enum ui_str label, const double t[4], double ways,
                        enum ui_str lines, int nlines, attr_t at)
{
    static const enum ui_str names[4] = {UIS_KV_INST, UIS_KV_WAVEFRONTS, UIS_KV_IDEAL,
                                         UIS_KV_EXCESS};
    const char *sep = a->g->sep;
    char buf[UI_MSG_MAX * 2], n[32];
    for (int pass = 0; pass < 3; pass++) {
        size_t o = bl_fmt(buf, sizeof buf, "%s%s", ui_str(a, label), ui_str(a, UIS_COLON));
        for (int i = 0; i < 4; i++)
            o += bl_fmt(buf + o, sizeof buf - o, "%s%s %s", i ? sep : "", ui_str(a, names[i]),
                        fmt_num(t[i], pass == 0 ? 12 : 4, n, sizeof n));
        if (ways >= 0)
            o += bl_fmt(buf + o, sizeof buf - o, "%s%s %.2f", sep, ui_str(a, UIS_KV_WAYS), ways);
        if (pass < 2) {
            o += bl_fmt(buf + o, sizeof buf - o, "%s", sep);
            bl_fmt(buf + o, sizeof buf - o, ui_str(a, lines), nlines);
        }
        if (text_width(buf) <= a->W - 2)
            break;
    }
    put_line(a, 2, buf, at);
}

/* the launch (or the file) on line 1, the totals on line 2 */
static void draw_summary(const struct app *a, const struct kview *k)
{
    const struct gpu_kernel_result *r = &k->res;
    const char *sep = a->g->sep;
    char buf[UI_MSG_MAX * 2], g[32], b[32];
    if (k->has_res && r->err.status == GPU_KERNEL_OK) {
        kv_fmt_dims(r->grid, g, sizeof g);
        kv_fmt_dims(r->block, b, sizeof b);
        size_t o = bl_fmt(buf, sizeof buf, "%s<<<%s, %s, %llu>>>%s%s%s", r->kernel, g, b, r->smem,
                          sep, r->device, sep);
        bl_fmt(buf + o, sizeof buf - o, ui_str(a, UIS_KV_RESOURCES), r->regs, sep, r->static_smem,
               r->smem);
    } else {
        bl_fmt(buf, sizeof buf, ui_str(a, UIS_KV_FILE_LINES), k->file.path, sep, k->nsrc);
    }
    put_line(a, 1, buf, A_NORMAL);
    double t[4];
    if (kv_model_shown(k)) {                     /* nothing measured: the model's totals */
        kv_model_total(k, &t[0], &t[1], &t[2], &t[3]);
        draw_totals(a, UIS_KV_MODEL_TOTAL, t, -1, UIS_KV_MODEL_LINES, k->pred.npredicted,
                    theme_attr(a, UIC_DIM) | A_BOLD);
    } else if (k->has_res && r->err.status == GPU_KERNEL_OK) {
        const struct gpu_kernel_totals *m = &r->totals;
        t[0] = m->inst;
        t[1] = m->wavefronts;
        t[2] = m->ideal;
        t[3] = m->excess;
        draw_totals(a, UIS_KV_TOTAL, t, m->ideal > 0 ? m->wavefronts / m->ideal : 0,
                    UIS_KV_LINES, r->nlines, A_BOLD);
    }
}

/* the line over the key bar: the prompt, the run in flight, or what is watched */
static void draw_status(const struct app *a, const struct kview *k, int y)
{
    char buf[UI_MSG_MAX * 2], when[32] = "", note[GPU_KERNEL_TEXT * 2];
    const char *sep = a->g->sep;
    if (k->prompting) {
        const char *p = ui_str(a, UIS_KV_PROMPT);
        int px = 1 + text_puts(a, y, 1, a->W - 2, p, theme_attr(a, UIC_KEY));
        int iw = a->W - px - 1, start = ui_max(0, k->icur - (iw - 1));
        attrset(theme_attr(a, UIC_CODE));
        mvaddnstr(y, px, k->input + start, iw);
        attrset(theme_attr(a, UIC_CURSOR));
        char cc[2] = {k->icur < k->ilen ? k->input[k->icur] : ' ', 0};
        mvaddstr(y, px + k->icur - start, cc);
        attrset(A_NORMAL);
        return;
    }
    if (k->last_run) {
        struct tm tm;
        localtime_r(&k->last_run, &tm);
        strftime(when, sizeof when, "%H:%M:%S", &tm);
    }
    /* the path, or its last part where the whole line does not fit */
    const char *base = strrchr(k->file.path, '/');
    for (int pass = 0; pass < 2; pass++) {
        const char *name = pass == 0 || !base ? k->file.path : base + 1;
        size_t o;
        if (k->job) {
            static const enum ui_str phases[GPU_KPHASE_DONE + 1] = {
                [GPU_KPHASE_START] = UIS_KV_PH_START, [GPU_KPHASE_DEVICE] = UIS_KV_PH_DEVICE,
                [GPU_KPHASE_COMPILE] = UIS_KV_PH_COMPILE, [GPU_KPHASE_SETUP] = UIS_KV_PH_SETUP,
                [GPU_KPHASE_WAIT] = UIS_KV_PH_WAIT, [GPU_KPHASE_RUN] = UIS_KV_PH_RUN,
                [GPU_KPHASE_COLLECT] = UIS_KV_PH_COLLECT, [GPU_KPHASE_DONE] = UIS_KV_PH_COLLECT};
            double t = (bl_now_ms() - k->job_t0) / 1e3;
            o = bl_fmt(buf, sizeof buf, "%c ", "|/-\\"[(int)(t * 10) % 4]);
            o += bl_fmt(buf + o, sizeof buf - o, ui_str(a, UIS_KV_MEASURING), name,
                        ui_str(a, phases[(unsigned)k->phase <= GPU_KPHASE_DONE ? k->phase : 0]),
                        t);
            /* the figures shown are dimmed meanwhile; the note where it fits */
            if (k->has_res && text_width(buf) + 1 + text_width(ui_str(a, UIS_KV_PREVIOUS)) <=
                                  a->W - 2)
                bl_fmt(buf + o, sizeof buf - o, " %s", ui_str(a, UIS_KV_PREVIOUS));
        } else {
            o = bl_fmt(buf, sizeof buf, ui_str(a, k->watch ? UIS_KV_WATCHING
                                                           : UIS_KV_NOT_WATCHING), name);
            if (when[0]) {
                o += bl_fmt(buf + o, sizeof buf - o, "%s", sep);
                o += bl_fmt(buf + o, sizeof buf - o, ui_str(a, UIS_KV_LAST_RUN), when);
            }
            /* the device's turn (devlock): measured without it, or after waiting for it */
            if (k->has_res && k->res.lock_note[0])
                bl_fmt(buf + o, sizeof buf - o, "%s%s", sep,
                       bl_msg_or_text(&k->res.lock_msg, k->res.lock_note, ui_lang(a), note,
                                      sizeof note));
            else if (k->has_res && k->res.timing.wait >= 100)
                bl_fmt(buf + o, sizeof buf - o, ui_str(a, UIS_KV_WAITED), sep,
                       k->res.timing.wait / 1e3);
        }
        if (text_width(buf) <= a->W - 2)
            break;
    }
    put_line(a, y, buf, theme_attr(a, k->job ? UIC_MEASURED : UIC_DIM));
}

/* what a shipped example shows, in the screen's language (strings.def); another file: the
 * first sentence of its comment */
static const char *example_text(const struct app *a, const struct kv_example *e)
{
    static const struct {
        const char *name;
        enum ui_str what;
    } known[] = {
        {"atomics.cu", UIS_KV_EX_ATOMICS}, {"carve.cu", UIS_KV_EX_CARVE},
        {"cp_async.cu", UIS_KV_EX_CP_ASYNC}, {"ldmatrix.cu", UIS_KV_EX_LDMATRIX},
        {"stores.cu", UIS_KV_EX_STORES}, {"strided.cu", UIS_KV_EX_STRIDED},
        {"transpose_seed.cu", UIS_KV_EX_TRANSPOSE},
        {"transpose_seed_padded.cu", UIS_KV_EX_TRANSPOSE_PAD}, {"vectors.cu", UIS_KV_EX_VECTORS},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (!strcmp(e->name, known[i].name))
            return ui_str(a, known[i].what);
    return e->what;
}

/* the shipped examples while the prompt is open: name and what it shows, the picked one
 * marked; h rows from y */
static void draw_examples(const struct app *a, const struct kview *k, int y, int h)
{
    char buf[UI_MSG_MAX];
    if (h < 2)
        return;
    bl_fmt(buf, sizeof buf, ui_str(a, UIS_KV_EXAMPLES), k->exdir);
    put_line(a, y, buf, theme_attr(a, UIC_HEADER));
    int nw = 0;
    for (int i = 0; i < k->nex; i++)
        nw = ui_max(nw, text_width(k->ex[i].name));
    int rows = h - 1, first = k->exsel >= rows ? k->exsel - rows + 1 : 0;
    for (int i = 0; i < rows && first + i < k->nex; i++) {
        const struct kv_example *e = &k->ex[first + i];
        int sel = first + i == k->exsel, row = y + 1 + i;
        if (sel)
            text_puts(a, row, 1, 1, ">", theme_attr(a, UIC_CURSOR));
        text_puts(a, row, 3, nw, e->name, theme_attr(a, sel ? UIC_CURSOR : UIC_CODE));
        const char *what = example_text(a, e);
        if (a->W - 6 - nw > 0)
            draw_source(a, row, 5 + nw, a->W - 6 - nw, what, (int)strlen(what), 0, A_NORMAL);
    }
}

void kv_draw(const struct app *a, const void *st)
{
    const struct kview *k = st;
    char title[UI_MSG_MAX];
    const char *base = strrchr(k->file.path, '/');
    char name[UI_PATH_MAX];
    bl_clean(name, sizeof name, base ? base + 1 : k->file.path);
    bl_fmt(title, sizeof title, "%s%s%s", ui_str(a, UIS_KV_TITLE), k->file.path[0] ? " " : "", name);
    app_title(a, title, NULL);
    struct kv_layout L;
    layout(a, k, &L);
    if (k->prompting && k->nex > 0) {
        draw_examples(a, k, 2, L.info_y - 3);
    } else if (k->nrows > 0) {
        draw_summary(a, k);
        draw_header(a, &L, 3);
        int top = kv_first_shown(k, L.table_h);
        for (int i = 0; i < L.table_h && top + i < k->nrows; i++)
            draw_row(a, k, &L, top + i, L.table_y + i);
    } else if (bl_err_failed(&k->problem) && !k->prompting) {
        put_line(a, 1, k->file.path, A_NORMAL);
    }
    if (L.info_h)
        text_draw(a, L.info_y, 1, a->W - 2, L.info_h, L.info, 0, theme_attr(a, L.info_role));
    draw_status(a, k, a->H - 2);
    app_keybar(a, k->prompting ? KS_KPROMPT : KS_KERNEL, NULL, 0);
}
