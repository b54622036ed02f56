/* sweep.c: the sweep chart (s): the model's wavefronts for every value of one parameter of
 * the step's scene (its "sweep", else its first), and below them what the GPU measured for
 * each, asked through the hub as one series. Left/Right (and the lesson's keys) move the
 * step's value; the scene follows. Its state is private to this file; drawing does not
 * allocate. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

#define SWEEP_MAX 128

struct sweep {
    struct app *app;                      /* for the hub's callbacks */
    int n;
    int param;                            /* index in ls->params */
    long long value[SWEEP_MAX];
    int wavefronts[SWEEP_MAX];            /* -1 when the model failed */
    double measured[SWEEP_MAX];           /* in unit; <0 when not (yet) */
    double slowdown[SWEEP_MAX];           /* SW_NS: against the conflict-free access */
    enum { SW_NONE = 0, SW_NS, SW_WAVEFRONTS } unit;  /* one unit for the whole chart */
    long long step;                       /* between two values (the parameter's, or more) */
};

static int sweep_param(const struct app *a)
{
    const struct lesson_scene *ls = a->sc.ls;
    if (!ls || ls->nparams == 0)
        return -1;
    if (ls->sweep)
        for (int i = 0; i < ls->nparams; i++)
            if (!strcmp(ls->params[i].name, ls->sweep))
                return i;
    return 0;
}

/* the hub asks for value i's request when the runner can take it */
static int fill(void *ctx, int i, struct gpu_request *rq)
{
    struct sweep *sw = ctx;
    return scene_request(sw->app, &sw->app->sc, sw->param, sw->value[i], rq);
}

static void answer(void *ctx, int i, const struct gpu_result *r)
{
    struct sweep *sw = ctx;
    if (i < 0 || i >= sw->n || r->err.status != GPU_OK)
        return;
    /* the time of one warp access where the runner or the recording has it, else the
     * counters; never two units in one chart (a value in the other unit is left out) */
    if (r->has_access_timing && r->ns_per_access > 0 && sw->unit != SW_WAVEFRONTS) {
        sw->measured[i] = r->ns_per_access;
        sw->slowdown[i] = r->slowdown;
        sw->unit = SW_NS;
    } else if (r->has_counters && sw->unit != SW_NS) {
        sw->measured[i] = r->wavefronts_ld > 0 ? r->wavefronts_ld : r->wavefronts_st;
        sw->unit = SW_WAVEFRONTS;
    }
}

static void sweep_init(struct app *a, void *st)
{
    struct sweep *sw = st;
    sw->app = a;
}

static int sweep_enter(struct app *a, void *st)
{
    struct sweep *sw = st;
    if (a->sc.held) {      /* the chart would show the answer */
        app_msg(a, 0, "%s", ui_str(a, UIS_MSG_HELD_SWEEP));
        return -1;
    }
    int p = sweep_param(a);
    if (p < 0)
        return -1;
    const struct lesson_param *lp = &a->sc.ls->params[p];
    long long step = lp->step > 0 ? lp->step : 1;
    long long count = (lp->max - lp->min) / step + 1;
    while (count > SWEEP_MAX) {
        step *= 2;
        count = (lp->max - lp->min) / step + 1;
    }
    memset(sw, 0, sizeof *sw);
    sw->app = a;
    sw->param = p;
    sw->step = step;
    struct bank_result res;
    for (long long v = lp->min; v <= lp->max && sw->n < SWEEP_MAX; v += step) {
        sw->value[sw->n] = v;
        sw->wavefronts[sw->n] = scene_eval_values(a, &a->sc, p, v, &res, NULL) == 0
                                    ? res.wavefronts : -1;
        sw->measured[sw->n] = -1;
        sw->n++;
    }
    req_series_start(&a->hub, sw, sw->n, fill, answer);
    return 0;
}

static void sweep_leave(struct app *a, void *st)
{
    req_series_stop(&a->hub, st);
}

static int sweep_cur(const struct app *a, const struct sweep *sw)
{
    long long v = a->sc.value[sw->param];
    int best = 0;
    for (int i = 0; i < sw->n; i++)
        if (llabs(sw->value[i] - v) < llabs(sw->value[best] - v))
            best = i;
    return best;
}

/* Which of the n values column c of shown columns draws: all of them when they fit, else an
 * even sample from the first to the last, so that the axis always spans the whole sweep. */
static int column_value(int c, int shown, int n)
{
    if (shown >= n || shown < 2)
        return c;
    return (int)(((long long)c * (n - 1) * 2 + (shown - 1)) / (2 * (shown - 1)));
}

/* the column nearest to value index cur */
static int column_of(int cur, int shown, int n)
{
    int best = 0;
    for (int c = 1; c < shown; c++)
        if (abs(column_value(c, shown, n) - cur) < abs(column_value(best, shown, n) - cur))
            best = c;
    return best;
}

/* the value labels under the chart (columns from x, right edge `right`, exclusive): as many
 * as fit with a space between them, the first and the last always */
static void value_labels(const struct app *a, const struct sweep *sw, int y, int x, int right,
                         int colw, int shown)
{
    char buf[32];
    int widest = 1;
    for (int c = 0; c < shown; c++) {
        int len = snprintf(buf, sizeof buf, "%lld", sw->value[column_value(c, shown, sw->n)]);
        widest = ui_max(widest, len);
    }
    int every = ui_max(1, (widest + 1 + colw - 1) / colw);
    int last_len = snprintf(buf, sizeof buf, "%lld",
                            sw->value[column_value(shown - 1, shown, sw->n)]);
    int last_x = ui_min(x + (shown - 1) * colw, right - last_len);
    text_puts(a, y, last_x, last_len, buf, theme_attr(a, UIC_DIM));
    for (int c = 0; c + 1 < shown; c += every) {
        int cx = x + c * colw;
        int len = snprintf(buf, sizeof buf, "%lld", sw->value[column_value(c, shown, sw->n)]);
        if (cx + len + 1 > last_x)
            break;      /* it would run into the last label */
        text_puts(a, y, cx, len, buf, theme_attr(a, UIC_DIM));
    }
}

/* one bar chart: label row, bars (the current value marked), value labels under them */
static void chart(const struct app *a, const struct sweep *sw, int y, int x, int w, int h,
                  const double *v, const char *label, enum ui_role role)
{
    int n = sw->n;
    double maxv = 0;
    for (int i = 0; i < n; i++)
        if (v[i] > maxv)
            maxv = v[i];
    if (maxv <= 0)
        maxv = 1;
    char buf[64];
    int axis = 7;
    int colw = ui_max(1, ui_min(4, (w - axis) / (n > 0 ? n : 1)));
    int shown = ui_min(n, (w - axis) / colw);
    int cur = column_of(sweep_cur(a, sw), shown, n);
    text_puts(a, y, x, w, label, theme_attr(a, UIC_HEADER));
    int ch = h - 3;  /* label row, axis row, value row */
    if (ch < 1 || shown < 1)
        return;
    snprintf(buf, sizeof buf, "%6.4g", maxv);
    text_puts(a, y + 1, x, axis, buf, theme_attr(a, UIC_DIM));
    text_puts(a, y + ch, x, axis, "     0", theme_attr(a, UIC_DIM));
    for (int c = 0; c < shown; c++) {
        int cx = x + axis + c * colw;
        double val = v[column_value(c, shown, n)];
        if (val < 0) {
            text_puts(a, y + ch, cx, colw, "?", theme_attr(a, UIC_DIM));
            continue;
        }
        int bh = (int)(val / maxv * ch + 0.5);
        if (val > 0 && bh == 0)
            bh = 1;
        attrset(theme_attr(a, c == cur ? UIC_MARK : role));
        for (int r = 0; r < bh; r++)
            for (int k = 0; k < (colw > 1 ? colw - 1 : 1); k++)
                mvaddstr(y + ch - r, cx + k, a->g->bar);
        attrset(A_NORMAL);
        if (bh < ch) {   /* the value on top of its bar, where it fits with a space after it */
            snprintf(buf, sizeof buf, "%.3g", val);
            if ((int)strlen(buf) < colw)
                text_puts(a, y + ch - bh, cx, colw - 1, buf, theme_attr(a, UIC_DIM));
        }
    }
    text_puts(a, y + ch + 1, x + axis + cur * colw, 1, a->g->mark, theme_attr(a, UIC_MARK));
    value_labels(a, sw, y + ch + 2, x + axis, x + w, colw, shown);
}

/* the line under the charts: the current value, the model's and the GPU's numbers */
static void status_line(const struct app *a, const struct sweep *sw, char *buf, size_t size)
{
    const struct lesson_param *lp = &a->sc.ls->params[sw->param];
    const struct gpu_info *info = req_hub_info(&a->hub);
    int cur = sweep_cur(a, sw), wf = sw->wavefronts[cur];
    if (wf >= 0)
        snprintf(buf, size, ui_str(a, wf == 1 ? UIS_SWEEP_WF1 : UIS_SWEEP_WFN), lp->name,
                 sw->value[cur], wf);
    else
        snprintf(buf, size, ui_str(a, UIS_SWEEP_NO_MODEL), lp->name, sw->value[cur]);
    size_t o = strlen(buf);
    if (sw->measured[cur] >= 0 && sw->unit == SW_NS)
        snprintf(buf + o, size - o, ui_str(a, UIS_SWEEP_NS_NOW), a->g->sep, sw->measured[cur],
                 sw->slowdown[cur], a->g->utf8 ? "\u00d7" : "x");
    else if (sw->measured[cur] >= 0)
        snprintf(buf + o, size - o, ui_str(a, UIS_SWEEP_WF_NOW), a->g->sep, sw->measured[cur]);
    else if (!req_hub_ready(&a->hub)) {
        char why[GPU_TEXT_MAX];
        snprintf(buf + o, size - o, "%s%s%s%s", a->g->sep, ui_str(a, UIS_NO_GPU),
                 ui_str(a, UIS_COLON), ui_err(a, &info->err, why, sizeof why));
    }
}

static void sweep_draw(const struct app *a, const void *st)
{
    const struct sweep *sw = st;
    const struct lesson_param *lp = &a->sc.ls->params[sw->param];
    char buf[UI_MSG_MAX];
    snprintf(buf, sizeof buf, ui_str(a, UIS_SWEEP_TITLE), lp->name, sw->value[0],
             sw->value[sw->n > 0 ? sw->n - 1 : 0]);
    if (sw->step != (lp->step > 0 ? lp->step : 1)) {   /* more values than the chart holds */
        size_t o = strlen(buf);
        snprintf(buf + o, sizeof buf - o, "%s%s %lld%s", ui_str(a, UIS_PAREN), ui_str(a, UIS_EVERY),
                 sw->step, ui_str(a, UIS_PAREN_CLOSE));
    }
    app_title(a, buf, "");
    int W = a->W, H = a->H;
    double model[SWEEP_MAX];
    int any_measured = 0;
    for (int i = 0; i < sw->n; i++) {
        model[i] = sw->wavefronts[i];
        if (sw->measured[i] >= 0)
            any_measured = 1;
    }
    int y = 1;
    text_draw(a, y, 1, W - 2, 1, a->sc.shown, 0, theme_attr(a, UIC_CODE));
    y += 2;
    int avail = H - y - 3;
    int mh = any_measured ? avail / 2 : 0;
    snprintf(buf, sizeof buf, ui_str(a, UIS_SWEEP_MODEL), lp->name);
    chart(a, sw, y, 1, W - 2, avail - mh, model, buf, UIC_BAR);
    y += avail - mh;
    if (any_measured) {
        snprintf(buf, sizeof buf, ui_str(a, sw->unit == SW_NS ? UIS_SWEEP_NS : UIS_SWEEP_WF),
                 lp->name, a->g->sep,
                 ui_msg(a, &req_hub_info(&a->hub)->device_msg, req_hub_info(&a->hub)->device,
                        (char[GPU_TEXT_MAX]){0}, GPU_TEXT_MAX));
        chart(a, sw, y, 1, W - 2, mh, sw->measured, buf, UIC_MEASURED);
    }
    status_line(a, sw, buf, sizeof buf);
    text_puts(a, H - 2, 1, W - 2, buf, A_BOLD);
    app_keybar(a, KS_SWEEP, NULL, 0);
}

static enum ui_result sweep_key(struct app *a, void *st, const struct ui_key *k)
{
    struct sweep *sw = st;
    if (k->action == ACT_LEFT || k->action == ACT_RIGHT) {
        int cur = sweep_cur(a, sw) + (k->action == ACT_LEFT ? -1 : 1);
        if (cur < 0 || cur >= sw->n)
            return UI_HANDLED;
        scene_set_param(a, &a->sc, sw->param, sw->value[cur]);
        return UI_HANDLED;
    }
    if (k->action == ACT_NONE && scene_param_key(a, &a->sc, k->key))
        return UI_HANDLED;
    return UI_IGNORED;        /* Esc and s (back) are the loop's */
}

const struct ui_screen screen_sweep = {
    .name = "sweep", .state_size = sizeof(struct sweep), .init = sweep_init, .enter = sweep_enter,
    .leave = sweep_leave, .draw = sweep_draw, .key = sweep_key, .keys = KS_SWEEP,
};
