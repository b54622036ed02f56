/* results.c: the results panel under a grid: the model's line, then what was measured and
 * where it comes from. What was measured is a few items, each in a long and shorter forms
 * (docs/gpu.md): the counters of one warp (a pattern), the time per access under load (every
 * SM busy: never the latency of a lone warp), a case kernel's counters over the whole kernel
 * and its own time, and the provenance. They are packed into as few lines as the width
 * allows, two when they fit, else three; every form keeps the conflicts, what the time is
 * and what it is compared with, and the provenance is shortened at its commas, never cut
 * inside a word. Draws with curses; no allocation. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "app.h"

#define FORMS 3
#define ITEMS 5
#define LINES 3

struct item {
    char form[FORMS][UI_MSG_MAX / 2];   /* longest first */
    int n;                              /* forms; 0: the item is not there */
    int dim;                            /* where it comes from, not a figure */
};

struct panel {
    char line[LINES][UI_MSG_MAX];
    int dim[LINES];
    int n;
};

static void form(struct item *it, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void form(struct item *it, const char *fmt, ...)
{
    if (it->n >= FORMS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(it->form[it->n], sizeof it->form[0], fmt, ap);
    va_end(ap);
    if (it->n == 0 || strcmp(it->form[it->n], it->form[it->n - 1]))
        it->n++;
}

/* one of a count's two words: the singular string one, or the plural one + 1 */
static const char *plural(const struct app *a, int n, enum ui_str one)
{
    return ui_str(a, n == 1 ? one : one + 1);
}

static int is_case(const struct ui_scene *s)
{
    const char *k = s->ls ? s->ls->kernel : NULL;
    return k && *k && strcmp(k, "pattern");
}

void app_device_short(const char *dev, char *buf, size_t size)
{
    if (!strncmp(dev, "recorded on ", 12))
        dev += 12;
    if (!strncmp(dev, "NVIDIA ", 7))
        dev += 7;
    size_t n = strcspn(dev, "(,");
    while (n > 0 && dev[n - 1] == ' ')
        n--;
    snprintf(buf, size, "%.*s", (int)(n < 40 ? n : 40), dev);
}

/* the date YYYY-MM-DD in a device text ("..., 2026-12-01T02:01:55Z"), or "" */
static void date_of(const char *dev, char *buf, size_t size)
{
    buf[0] = 0;
    for (const char *p = dev; *p; p++) {
        int ok = 1;
        for (int i = 0; i < 10 && ok; i++)
            ok = i == 4 || i == 7 ? p[i] == '-' : p[i] >= '0' && p[i] <= '9';
        if (ok) {
            snprintf(buf, size, "%.10s", p);
            return;
        }
    }
}

/* the device text whole, its first part and the date, its name and the date */
static void device_forms(const char *dev, char out[3][GPU_TEXT_MAX], int zh)
{
    char date[16], name[64];
    const char *comma = bl_msg_format(BL_COMMA, zh ? BL_LANG_ZH : BL_LANG_EN);
    date_of(dev, date, sizeof date);
    app_device_short(dev, name, sizeof name);
    const char *cut = zh ? strstr(dev, comma) : strchr(dev, ',');
    int n = cut ? (int)(cut - dev) : (int)strlen(dev);
    snprintf(out[0], GPU_TEXT_MAX, "%s", dev);
    snprintf(out[1], GPU_TEXT_MAX, "%.*s%s%s", n, dev, date[0] ? comma : "", date);
    snprintf(out[2], GPU_TEXT_MAX, "%s%s%s", name[0] ? name : dev, date[0] ? comma : "", date);
    if (zh) { /* app_device_short reads the English form: the name before its full-width "(" here */
        const char *paren = strstr(dev, bl_msg_format(BL_PAREN_OPEN, BL_LANG_ZH));
        const char *from = !strncmp(dev, "NVIDIA ", 7) ? dev + 7 : dev;
        int m = paren && paren > from ? (int)(paren - from) : n - (int)(from - dev);
        snprintf(out[2], GPU_TEXT_MAX, "%.*s%s%s", m > 0 ? m : 0, from, date[0] ? comma : "",
                 date);
    }
}

/* where the answer comes from: recorded (replay), measured now, without counters (why) */
static void provenance(const struct app *a, const struct gpu_result *g, struct item *it)
{
    const struct gpu_info *info = req_hub_info(&a->hub);
    int rec = info->backend == GPU_BACKEND_REPLAY;
    const char *dev = rec && !strncmp(info->device, "recorded on ", 12) ? info->device + 12
                                                                         : info->device;
    char zdev[GPU_TEXT_MAX], full[GPU_TEXT_MAX];
    if (rec && ui_lang(a) == BL_LANG_ZH && info->device_msg.id == GPU_RECORDED_ON) {
        /* the recording's device and date in Chinese (its msg.def rows), without the lead */
        const char *f = bl_msg_format(GPU_RECORDED_ON, BL_LANG_ZH);
        size_t k = strcspn(f, "%");
        bl_msg_render(&info->device_msg, BL_LANG_ZH, full, sizeof full);
        if (!strncmp(full, f, k)) {
            snprintf(zdev, sizeof zdev, "%s", full + k);
            dev = zdev;
        }
    } else if (!rec && ui_lang(a) == BL_LANG_ZH && info->device_msg.id != BL_MSG_NONE) {
        bl_msg_render(&info->device_msg, BL_LANG_ZH, zdev, sizeof zdev);   /* its SMs, clock */
        dev = zdev;
    }
    char d[3][GPU_TEXT_MAX];
    device_forms(dev, d, dev == zdev);
    it->dim = 1;
    if (!rec && g && g->err.status == GPU_OK && g->from_cache) {
        /* the GPU server's cache answered: measured for an earlier request, this long ago */
        int age = (int)(g->cached_age_s + 0.5);
        for (int f = 0; f < 3; f++)
            form(it, ui_str(a, UIS_SRC_CACHED), d[f], age);
        form(it, ui_str(a, UIS_SERVE_CACHED), age);
        return;
    }
    for (int f = 0; f < 3; f++) {
        if (rec)
            form(it, ui_str(a, UIS_SRC_RECORDED), d[f]);
        else if (g && g->err.status == GPU_OK && !g->has_counters && f < 2)
            form(it, ui_str(a, UIS_SRC_TIMING), d[f],
                 g->counters_note[0] ? bl_msg_or_text(&g->counters_msg, g->counters_note, ui_lang(a),
                                                      (char[GPU_TEXT_MAX]){0}, GPU_TEXT_MAX)
                                     : ui_err(a, &info->counters_err, (char[GPU_TEXT_MAX]){0},
                                              GPU_TEXT_MAX));
        else if (g && g->err.status == GPU_OK && !g->has_counters)
            form(it, ui_str(a, UIS_SRC_TIMING_SHORT), d[f]);
        else
            form(it, ui_str(a, UIS_SRC_COUNTERS), d[f]);
    }
}

/* the items of a measurement r of s: counters, time, whole kernel, kernel time */
static void measured_items(const struct app *a, const struct gpu_result *r,
                           const struct ui_scene *s, struct item *it)
{
    int st = s->acc.op == BANK_STORE, kcase = is_case(s);
    double wf = st ? r->wavefronts_st : r->wavefronts_ld, cf = st ? r->conflicts_st : r->conflicts_ld;
    const char *sep = a->g->sep, *x = a->g->utf8 ? "\u00d7" : "x";
    const char *op = st ? "store" : "load";   /* load and store stay English (glossary) */
    if (r->has_counters && !kcase) {
        form(&it[0], ui_str(a, UIS_M_WF_CF), wf, cf);
        form(&it[0], ui_str(a, UIS_M_WF_CF_SHORT), wf, cf);
    }
    if (r->has_access_timing) {
        form(&it[1], ui_str(a, UIS_M_NS_LONG), r->ns_per_access, r->clk_per_access, sep,
             r->slowdown, x, op);
        form(&it[1], ui_str(a, UIS_M_NS_CLK), r->ns_per_access, r->clk_per_access, sep,
             r->slowdown, x);
        form(&it[1], ui_str(a, UIS_M_NS), r->ns_per_access, sep, r->slowdown, x);
    }
    if (kcase && r->has_counters) {
        /* a case kernel's counters are the whole kernel's (docs/gpu.md: the offset); a kernel
         * that executes no shared instruction of this kind has nothing to count */
        if ((st ? r->inst_st : r->inst_ld) <= 0) {
            form(&it[2], "%s", ui_str(a, st ? UIS_WK_NONE_ST : UIS_WK_NONE_LD));
            form(&it[2], "%s", ui_str(a, st ? UIS_WK_NONE_ST_SHORT : UIS_WK_NONE_LD_SHORT));
        } else {
            form(&it[2], ui_str(a, st ? UIS_SRC_KERNEL_ST : UIS_SRC_KERNEL_LD), wf, cf, "", "");
            form(&it[2], ui_str(a, st ? UIS_WK_ST_SHORT : UIS_WK_LD_SHORT), wf, cf);
        }
    }
    if (kcase && r->has_timing) {
        char k[96];
        int n = snprintf(k, sizeof k, ui_str(a, UIS_M_KERNEL_MS), r->ms_median);
        if (r->gbps > 0 && n > 0 && (size_t)n < sizeof k)
            snprintf(k + n, sizeof k - (size_t)n, ui_str(a, UIS_M_GBPS), r->gbps);
        form(&it[3], "%s", k);
    }
}

/* each item on the current line in its longest form that fits what is left, else on a new
 * line in its longest form that fits one (compact: the shortest forms); lines past LINES go
 * onto the last (cut with an ellipsis when drawn). Returns the lines needed. */
static int pack(const struct app *a, const struct item *it, int w, int compact, struct panel *p)
{
    int need = 0, sw = text_width(a->g->sep);
    p->n = 0;
    for (int i = 0; i < ITEMS; i++) {
        if (!it[i].n)
            continue;
        int f0 = compact ? it[i].n - 1 : 0, placed = 0;
        for (int f = f0; p->n && f < it[i].n && !placed; f++) {
            char *l = p->line[p->n - 1];
            if (text_width(l) + sw + text_width(it[i].form[f]) <= w) {
                size_t o = strlen(l);
                snprintf(l + o, sizeof p->line[0] - o, "%s%s", a->g->sep, it[i].form[f]);
                placed = 1;
            }
        }
        if (placed)
            continue;
        int f = f0;
        while (f < it[i].n - 1 && text_width(it[i].form[f]) > w)
            f++;
        if (++need > LINES) {   /* no room: onto the last line */
            size_t o = strlen(p->line[LINES - 1]);
            snprintf(p->line[LINES - 1] + o, sizeof p->line[0] - o, "%s%s", a->g->sep,
                     it[i].form[f]);
            continue;
        }
        snprintf(p->line[p->n], sizeof p->line[0], "%s", it[i].form[f]);
        p->dim[p->n++] = it[i].dim;
    }
    return need;
}

/* the lines of what was measured for s in w columns, or of why nothing is (yet) */
static void measured_panel(const struct app *a, const struct ui_scene *s, int w, struct panel *p)
{
    struct item it[ITEMS];
    memset(it, 0, sizeof it);
    memset(p, 0, sizeof *p);
    const struct req_slot *m = &s->slot;
    const struct gpu_result *g = m->state == REQ_DONE ? &m->result : NULL;
    provenance(a, g, &it[4]);
    if (m->state == REQ_WAITING || m->state == REQ_RUNNING) {
        /* the device's turn goes to other processes first, or another profiler holds the
         * counters: say so, with how long (printf formats: seconds, then turns ahead) */
        const struct gpu_progress *pr = req_hub_progress(&a->hub);
        if (m->state == REQ_RUNNING && pr->phase == GPU_PHASE_WAITING)
            form(&it[0], ui_str(a, UIS_WAITING_GPU), (int)pr->seconds, pr->ahead);
        else if (m->state == REQ_RUNNING && pr->phase == GPU_PHASE_COUNTERS_BUSY)
            form(&it[0], ui_str(a, UIS_COUNTERS_BUSY), (int)pr->seconds);
        else if (m->state == REQ_RUNNING && pr->phase == GPU_PHASE_RECONNECTING)
            form(&it[0], ui_str(a, UIS_SERVE_RECONNECTING), (int)pr->seconds);
        else
            form(&it[0], "%s%s", ui_str(a, UIS_MEASURING), a->g->ellipsis);
        it[0].dim = 1;
    } else if (!g) {
        form(&it[0], "-");
    } else if (g->err.status != GPU_OK) {
        char why[GPU_TEXT_MAX];
        form(&it[0], "-%s%s%s", ui_str(a, UIS_PAREN),
             g->err.msg[0] ? ui_err(a, &g->err, why, sizeof why) : ui_str(a, UIS_NO_RESULT),
             ui_str(a, UIS_PAREN_CLOSE));
        it[0].dim = 1;
    } else {
        measured_items(a, g, s, it);
    }
    /* a state or why there is no figure: the provenance on the next line */
    if (it[0].dim || !g || g->err.status != GPU_OK) {
        snprintf(p->line[0], sizeof p->line[0], "%s", it[0].form[0]);
        p->dim[0] = it[0].dim;
        int f = 0;
        while (f < it[4].n - 1 && text_width(it[4].form[f]) > w)
            f++;
        snprintf(p->line[1], sizeof p->line[1], "%s", it[4].form[f]);
        p->dim[1] = 1;
        p->n = 2;
        return;
    }
    if (pack(a, it, w, 0, p) <= 2)
        return;
    struct panel c;
    if (pack(a, it, w, 1, &c) <= 2)
        *p = c;
}

/* the columns the measured lines get in a panel of w columns */
static int panel_w(const struct app *a, int w, int big)
{
    return w - (big ? text_width(ui_str(a, UIS_MEASURED)) + text_width(ui_str(a, UIS_COLON)) : 10);
}

int results_rows(const struct app *a, const struct ui_scene *s, int w, int big)
{
    if (!req_hub_ready(&a->hub))
        return 2;
    struct panel p;
    measured_panel(a, s, panel_w(a, w, big), &p);
    return 1 + (p.n > 2 ? p.n : 2);
}

/* the model's line: wavefronts, conflicts, ways, passes, or why the model has none */
static void model_line(const struct app *a, int y, int x, int w, const struct ui_scene *s,
                       int big)
{
    char buf[UI_MSG_MAX], b2[UI_MSG_MAX];
    const struct bank_result *r = &s->res;
    int lab = big ? 0 : 10;
    if (!big)
        text_puts(a, y, x, w, ui_str(a, UIS_MODEL), theme_attr(a, UIC_HEADER));
    if (!s->ok) {             /* the error itself stands above, where the grid would */
        text_puts(a, y, x + lab, w - lab, ui_str(a, UIS_MODEL_NO_RESULT), theme_attr(a, UIC_DIM));
        return;
    }
    char wf[64], cf[64], ways[64], passes[64];
    snprintf(wf, sizeof wf, plural(a, r->wavefronts, UIS_N_WAVEFRONT), r->wavefronts);
    snprintf(cf, sizeof cf, plural(a, r->conflicts, UIS_N_CONFLICT), r->conflicts);
    snprintf(ways, sizeof ways, ui_str(a, UIS_N_WAY), r->ways);
    snprintf(passes, sizeof passes, plural(a, r->passes, UIS_N_PASS), r->passes);
    snprintf(buf, sizeof buf, "%s%s%s%s%s%s%s%s", wf, a->g->sep, cf, a->g->sep, ways, a->g->sep,
             passes, r->paired ? ui_str(a, UIS_PAIRS_FUSED) : "");
    attr_t at = theme_attr(a, r->conflicts ? UIC_CONFLICT : UIC_OK);
    if (big) {
        snprintf(b2, sizeof b2, "%s%s%s", ui_str(a, UIS_MODEL), ui_str(a, UIS_COLON), buf);
        text_puts(a, y, x, w, b2, at);
    } else {
        text_puts(a, y, x + lab, w - lab, buf, at);
    }
}

int results_draw(const struct app *a, int y, int x, int w, int h, const struct ui_scene *s,
                 int big)
{
    char buf[UI_MSG_MAX];
    if (h < 1)
        return 0;
    model_line(a, y, x, w, s, big);
    if (h < 2)
        return 1;
    const struct gpu_info *info = req_hub_info(&a->hub);
    if (req_hub_opening(&a->hub)) {
        snprintf(buf, sizeof buf, "%s%s", ui_str(a, UIS_GPU_LOOKING), a->g->ellipsis);
        text_puts(a, y + 1, x, w, buf, theme_attr(a, UIC_DIM));
        return 2;
    }
    if (!req_hub_ready(&a->hub)) {
        char why[GPU_TEXT_MAX];
        snprintf(buf, sizeof buf, "%s%s%s", ui_str(a, UIS_NO_GPU), ui_str(a, UIS_COLON),
                 info->err.msg[0] ? ui_err(a, &info->err, why, sizeof why)
                                 : ui_str(a, UIS_NO_RUNNER));
        text_puts(a, y + 1, x, w, buf, theme_attr(a, UIC_DIM));
        return 2;
    }
    struct panel p;
    int pw = panel_w(a, w, big), lab = w - pw;
    measured_panel(a, s, pw, &p);
    if (big) {
        snprintf(buf, sizeof buf, "%s%s", ui_str(a, UIS_MEASURED), ui_str(a, UIS_COLON));
        text_puts(a, y + 1, x, lab, buf, theme_attr(a, UIC_MEASURED));
    } else {
        text_puts(a, y + 1, x, lab, ui_str(a, UIS_MEASURED), theme_attr(a, UIC_HEADER));
    }
    int rows = 1;
    for (int i = 0; i < p.n && rows < h; i++, rows++)
        text_puts(a, y + rows, x + lab, pw, p.line[i],
                  theme_attr(a, p.dim[i] ? UIC_DIM : UIC_MEASURED));
    return rows;
}
