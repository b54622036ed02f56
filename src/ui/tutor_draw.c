/* tutor_draw.c: drawing the tutor screen: the layout (how many rows the reading area, code,
 * grid, legend, results and task panel get at this terminal size), the title, the reading
 * area (text, hints and quiz as one scrolled flow), the simulated code with parameter values
 * filled in (or the value being typed), the bank grid or why there is none, the inspect lines,
 * the results panel, a graded task's panel, the key bar; and presenter mode's large layout.
 * Changes nothing and does not allocate. */
#include <stdio.h>
#include <string.h>

#include "tutor.h"

/* where the measurements come from, in words a learner reads: long ("replay: recorded on
 * H200") or short ("replay") */
static void backend_words(const struct app *a, int shrt, char *buf, size_t size)
{
    const struct gpu_info *info = req_hub_info(&a->hub);
    char dev[64];
    app_device_short(info->device, dev, sizeof dev);
    if (req_hub_opening(&a->hub))
        snprintf(buf, size, "%s", ui_str(a, UIS_TB_LOOKING));
    else if (!req_hub_ready(&a->hub))
        snprintf(buf, size, "%s", ui_str(a, shrt ? UIS_TB_NONE_SHORT : UIS_TB_NONE));
    else if (info->backend == GPU_BACKEND_REPLAY && !shrt && dev[0])
        snprintf(buf, size, ui_str(a, UIS_TB_REPLAY), dev);
    else if (info->backend == GPU_BACKEND_REPLAY)
        snprintf(buf, size, "%s", ui_str(a, UIS_TB_REPLAY_SHORT));
    else if (!shrt && dev[0])
        snprintf(buf, size, ui_str(a, UIS_TB_GPU), dev);
    else
        snprintf(buf, size, "%s", ui_str(a, UIS_TB_GPU_SHORT));
}

/* " 2.3/5 chapter · step" and "done 3/56, 2 first try · replay: recorded on H200 · en": the
 * chapter title shrinks first, then the right side's words */
static void title_draw(const struct app *a)
{
    const struct lesson_step *st = app_step(a);
    const struct lesson *l = &a->set.lessons[a->li];
    char place[32], right[4][160], prog[2][96], be[2][96], major[UI_MSG_MAX], left[UI_MSG_MAX];
    int done, first, total;
    app_progress(a, &done, &first, &total);
    snprintf(place, sizeof place, " %d.%d/%d ", l->chapter, a->si + 1, l->nsteps);
    snprintf(prog[0], sizeof prog[0], ui_str(a, UIS_DONE_FIRST), done, total, first);
    snprintf(prog[1], sizeof prog[1], ui_str(a, UIS_DONE_OF), done, total);
    backend_words(a, 0, be[0], sizeof be[0]);
    backend_words(a, 1, be[1], sizeof be[1]);
    const char *lang = ui_str(a, UIS_LANG_SHOWN), *sep = a->g->sep;
    const char *chapter = lesson_tr(&l->title, a->lang), *step = lesson_tr(&st->title, a->lang);
    int fixed = text_width(place) + text_width(sep) + text_width(step) + 1, pick = 3;
    if (a->opt.present) {
        snprintf(right[3], sizeof right[3], "banklab%s%s ", sep, lang);
    } else {
        snprintf(right[0], sizeof right[0], "%s%sbanklab%s%s%s%s ", prog[0], sep, sep, be[0],
                 sep, lang);
        snprintf(right[1], sizeof right[1], "%s%s%s%s%s ", prog[0], sep, be[0], sep, lang);
        snprintf(right[2], sizeof right[2], "%s%s%s%s%s ", prog[0], sep, be[1], sep, lang);
        snprintf(right[3], sizeof right[3], "%s%s%s%s%s ", prog[1], sep, be[1], sep, lang);
        /* the first that leaves the whole chapter title, else the first that leaves the
         * step (the progress with its first tries before the chapter's title) */
        for (pick = 0; pick < 3 && fixed + text_width(chapter) + text_width(right[pick]) > a->W;)
            pick++;
        if (pick == 3)
            for (pick = 1; pick < 3 && fixed + text_width(right[pick]) > a->W;)
                pick++;
    }
    int room = a->W - text_width(right[pick]) - 1 - fixed;   /* for the chapter title */
    if (room >= text_width(chapter))
        snprintf(major, sizeof major, "%s", chapter);
    else if (room > 8)
        text_clip(chapter, room, a->g->ellipsis, major, sizeof major);
    else
        major[0] = 0;
    snprintf(left, sizeof left, "%s%s%s%s", place, major, major[0] ? sep : "", step);
    app_title(a, left, right[pick]);
}

/* --- layout ----------------------------------------------------------------------------- */

/* presenter mode's sentence: the step's key sentence, or its text's first sentence */
static const char *key_sentence(const struct app *a, const struct lesson_step *st, char *first,
                                size_t size)
{
    const char *key = lesson_tr(&st->key, a->lang);
    if (*key)
        return key;
    const char *t = lesson_tr(&st->text, a->lang);
    size_t n = 0;
    while (t[n] && t[n] != '\n' && n + 4 < size) {
        if ((t[n] == '.' || t[n] == '!' || t[n] == '?') && (t[n + 1] == ' ' || !t[n + 1])) {
            n++;
            break;
        }
        const char *stop = bl_msg_format(BL_FULL_STOP, BL_LANG_ZH);
        if (!strncmp(t + n, stop, strlen(stop))) {
            n += strlen(stop);
            break;
        }
        n++;
    }
    memcpy(first, t, n);
    first[n] = 0;
    return first;
}

/* the last step of a chapter says so, with the chapter's score (right at the first try of
 * the steps that ask something) and what n does next */
static void chapter_end(const struct app *a, struct flow *f, int x, int w)
{
    const struct lesson *l = &a->set.lessons[a->li];
    int done, first, total;
    app_chapter_score(a, a->li, &done, &first, &total);
    const char *end = total ? flow_fmt(f, ui_str(a, UIS_CH_END), l->chapter, first, total, done)
                            : flow_fmt(f, ui_str(a, UIS_CH_END_BARE), l->chapter);
    const char *next = "";
    if (a->li + 1 < a->set.nlessons) {
        const struct lesson *nl = &a->set.lessons[a->li + 1];
        next = flow_fmt(f, ui_str(a, UIS_CH_END_NEXT), nl->chapter, lesson_tr(&nl->title, a->lang));
    }
    flow_add(f, flow_fmt(f, "%s%s", end, next), x, w, theme_attr(a, UIC_HEADER));
}

/* the reading area: the text, the hints shown, the quiz */
static void reading_flow(const struct app *a, const struct tutor *t, const struct lesson_step *st,
                         struct tutor_layout *L, int x, int w)
{
    struct flow *f = &L->flow;
    flow_init(f);
    L->quiz = L->status = -1;
    if (!a->opt.present)
        flow_add(f, lesson_tr(&st->text, a->lang), x, w, A_NORMAL);
    for (int i = 0; !a->opt.present && i < t->hints_shown && i < st->nhints; i++) {
        int k = flow_add(f, lesson_tr(&st->hints[i], a->lang), x + 8, w - 8, A_NORMAL);
        flow_label(f, k, flow_fmt(f, "%s %d", ui_str(a, UIS_HINT), i + 1), x, 7,
                   theme_attr(a, UIC_KEY));
    }
    if (st->quiz) {
        char note[UI_MSG_MAX];
        const char *nt = flow_fmt(f, "%s", tutor_qvals_note(a, t, st, note, sizeof note));
        L->quiz = f->n;
        /* presenter mode, once answered or revealed: the class reads the explanation */
        if (a->opt.present && (t->quiz.answered || t->quiz.revealed))
            L->status = quiz_flow_verdict(a, &t->quiz, f, x, w, st->quiz, nt);
        else
            L->status = quiz_flow(a, &t->quiz, f, x, w, st->quiz, nt);
    }
    /* the chapter's score once its last quiz is answered, not beside an open question */
    if (!a->opt.present && a->si == a->set.lessons[a->li].nsteps - 1 &&
        (!st->quiz || t->quiz.answered || t->quiz.revealed))
        chapter_end(a, f, x, w);
}

/* presenter mode: the key sentence and the scene in large cells first, the quiz below */
static void layout_present(const struct app *a, const struct tutor *t,
                           const struct lesson_step *st, struct tutor_layout *L)
{
    int W = a->W, H = a->H;
    int hid = quiz_hidden(&t->quiz, st);
    char first[UI_MSG_MAX];
    L->key = ui_min(text_count(key_sentence(a, st, first, sizeof first), W - 4), 3);
    int y = 2 + L->key + 1;
    if (a->sc.ls) {
        L->code = ui_min(text_count(a->sc.shown, W - 4), 2);
        y += L->code + 1;
        if (hid) {
            y += 3;
        } else if (a->sc.ok) {
            L->results = results_rows(a, &a->sc, W - 4, 1);
            int room = H - y - 1 - L->results - 1;   /* grid + task + quiz */
            /* after an answer or a reveal the explanation gets its rows before the grid's
             * extra rows (the grid keeps its header, a row a pass and the footers) */
            int after = st->quiz && (t->quiz.answered || t->quiz.revealed);
            int qh = (after ? L->flow.rows : st->quiz ? ui_min(L->flow.rows, 8) : 0) + L->task;
            if (after)
                qh = ui_max(0, ui_min(qh, room - grid_rows_min(&a->sc)));
            int gh = ui_max(room - qh, ui_min(grid_rows_min(&a->sc), room));
            L->grid = ui_min(grid_rows_wanted(a, &a->sc), gh);
            y += L->grid + 1 + L->results;
        } else {
            y += 1;
        }
    }
    L->read = ui_max(0, H - 1 - y - L->task);
}

/* rows of the normal layout: the scene's parts at their least, the reading area up to half
 * the screen (all of its need when it fits), then the legend, the grid, the code grow */
static void layout_normal(const struct app *a, const struct tutor *t,
                          const struct lesson_step *st, struct tutor_layout *L)
{
    int tw = a->W - 2, avail = a->H - 2;
    int hid = quiz_hidden(&t->quiz, st);
    int scene = a->sc.ls != NULL, grid_on = scene && !hid;
    int code_need = scene ? text_count(a->sc.shown, tw - 6) : 0;
    L->code = ui_min(code_need, 2);
    L->task = ui_min(task_lines(a, &t->task, st, tw), 3);   /* the goal and met / not met */
    /* hidden: the line saying so */
    L->results = scene ? (hid ? 1 : results_rows(a, &a->sc, tw, 0)) : 0;
    L->insp = grid_on && t->insp.on ? 2 : 0;
    int grid_need = grid_on ? (a->sc.ok ? grid_rows_wanted(a, &a->sc) : 3) : 0;
    int grid_min = grid_on ? (a->sc.ok ? ui_min(grid_rows_min(&a->sc), grid_need) : 3) : 0;
    int legend_need = grid_on && a->sc.ok ? 1 : 0;
    int rest = avail - (scene ? L->code + 1 : 0) - L->results - L->insp - L->task - grid_min;
    if (legend_need && rest - legend_need >= 5) {   /* the legend unless reading gets cramped */
        rest -= legend_need;
        L->legend = legend_need;
        legend_need = 0;
    }
    int need = L->flow.rows;
    int floor = ui_min(need, ui_max(3, avail / 2));
    int read = ui_max(0, ui_min(need, rest));
    int more = grid_need - grid_min + legend_need;   /* what the grid and legend would add */
    if (read > floor && rest - read < more)
        read = ui_max(floor, rest - more);
    int left = ui_max(0, rest - read);
    L->read = read;
    L->legend += ui_min(left, legend_need);
    left -= ui_min(left, legend_need);
    L->grid = grid_min + ui_min(left, grid_need - grid_min);
    left -= L->grid - grid_min;
    L->code += ui_min(left, code_need - L->code);
}

void tutor_layout(const struct app *a, const struct tutor *t, const struct lesson_step *st,
                  struct tutor_layout *L)
{
    L->key = L->code = L->grid = L->legend = L->insp = L->results = L->task = 0;
    if (a->opt.present) {
        L->task = ui_min(task_lines(a, &t->task, st, a->W - 4), 3);
        reading_flow(a, t, st, L, 2, a->W - 4);
        layout_present(a, t, st, L);
    } else {
        reading_flow(a, t, st, L, 1, a->W - 2);
        layout_normal(a, t, st, L);
    }
    L->maxscroll = ui_max(0, L->flow.rows - L->read);
}

/* --- presenter mode --------------------------------------------------------------------- */

/* the parameter line, or the value being typed (=) in its place */
static void scene_params(const struct app *a, const struct tutor *t, char *buf, size_t size)
{
    if (t->entry.on)
        entry_text(a, &t->entry, &a->sc, buf, size);
    else
        params_line(a, &a->sc, KS_TUTOR, buf, size);
}

/* --- the code line ----------------------------------------------------------------------- */

/* where byte off of the scene's own code stands in the code shown (values filled in) */
static size_t shown_offset(const struct ui_scene *s, size_t off)
{
    char pre[UI_CODE_MAX], out[UI_CODE_MAX];
    snprintf(pre, sizeof pre, "%.*s", (int)off, s->ls->code);
    int k = pattern_substitute(pre, &s->env, out, sizeof out);
    return k < 0 ? off : (size_t)k;
}

/* the rows that text s takes at width w up to byte end */
static int rows_to(const char *s, int w, size_t end)
{
    size_t n = strlen(s), pos = 0;
    int rows = 0;
    while (pos < n) {
        size_t nx, len = text_line(s + pos, n - pos, w, &nx);
        rows++;
        if (pos + len >= end || nx == 0)
            break;
        pos += nx;
    }
    return rows;
}

/* The code as the panel draws it in rows lines of w columns: all of it when it fits or the
 * drawn access stands in the lines that fit; else it starts at the first wrapped line from
 * which the access shows, after an ellipsis (6.5's "^ threadIdx.x", 7.3's two accesses at
 * 80x24), so a cut never hides the access the grid draws. */
static const char *code_shown(const struct app *a, int w, int rows, char *buf, size_t size)
{
    const struct ui_scene *s = &a->sc;
    const char *code = s->shown, *el = a->g->ellipsis;
    if (rows < 1 || w < 8 || text_count(code, w) <= rows || !s->ls || !s->parsed || !s->run.pat)
        return code;
    const struct pattern_access_info *ai = pattern_access(s->run.pat, s->access);
    long st = ai ? ai->col - 1 - (long)s->run.prefix : -1;
    if (st < 0 || (size_t)st + (size_t)ai->len > strlen(s->ls->code))
        return code;
    size_t a0 = shown_offset(s, (size_t)st), a1 = shown_offset(s, (size_t)st + (size_t)ai->len);
    size_t n = strlen(code), pos = 0, from = a0;
    if (rows_to(code, w, a1) <= rows)
        return code;
    while (pos < n && pos <= a0) {          /* the earliest line start that shows the access */
        size_t nx;
        text_line(code + pos, n - pos, w, &nx);
        if (nx == 0)
            break;
        pos += nx;
        if (pos > a0)
            break;
        bl_fmt(buf, size, "%s%s", el, code + pos);
        if (rows_to(buf, w, strlen(el) + (a1 - pos)) <= rows) {
            from = pos;
            break;
        }
    }
    bl_fmt(buf, size, "%s%s", el, code + from);
    return buf;
}

/* the scene in large cells, or the prompt to predict first; returns the next free row */
static int present_scene(const struct app *a, const struct tutor *t, const struct lesson_step *st,
                         const struct tutor_layout *L, int y)
{
    char buf[UI_MSG_MAX], code[UI_CODE_MAX];
    int W = a->W;
    y += text_draw(a, y, 2, W - 4, L->code, code_shown(a, W - 4, L->code, code, sizeof code), 0,
                   theme_attr(a, UIC_CODE) | A_BOLD);
    scene_params(a, t, buf, sizeof buf);
    text_puts(a, y++, 2, W - 4, buf, A_BOLD);
    if (quiz_hidden(&t->quiz, st)) {
        text_puts(a, y + 1, 2, W - 4, ui_str(a, UIS_PRESENT_HIDDEN),
                  theme_attr(a, UIC_QUIZ) | A_BOLD);
        return y + 3;
    }
    if (!a->sc.ok) {
        scene_error_text(a, &a->sc, buf, sizeof buf);
        text_puts(a, y, 2, W - 4, buf, theme_attr(a, UIC_ERROR));
        return y + 1;
    }
    grid_draw(a, y, 0, W, L->grid, &a->sc, NULL, 1);
    y += L->grid + 1;
    return y + results_draw(a, y, 2, W - 4, L->results, &a->sc, 1);
}

static void draw_present(const struct app *a, const struct tutor *t, const struct lesson_step *st,
                         const struct tutor_layout *L)
{
    char first[UI_MSG_MAX];
    int W = a->W, y = 2;
    text_draw(a, y, 2, W - 4, L->key, key_sentence(a, st, first, sizeof first), 0, A_BOLD);
    y += L->key + 1;
    if (a->sc.ls)
        y = present_scene(a, t, st, L, y);
    y += task_draw(a, &t->task, st, y, 2, W - 4, L->task);
    if (L->read > 0) {
        int scroll = ui_min(t->text_scroll, L->maxscroll);
        flow_draw(a, &L->flow, y, L->read, scroll);
        flow_scrollbar(a, y, W - 1, L->read, scroll, L->flow.rows);
    }
    app_keybar(a, 0, NULL, 0);
}

/* --- the normal screen ------------------------------------------------------------------ */

/* the part of a one-line code around an error, cut to w columns with an ellipsis where it is
 * cut, into line; a caret under the error's place into caret. 0 when the error has no place
 * in the code. A long scene's code wraps on the screen, and a caret under the whole of it
 * would stand rows away from its place, or not be shown at all (7.3 at 80x24). */
static int error_window(const struct app *a, const char *code, const struct bl_err *e, int w,
                        char *line, char *caret, size_t size)
{
    int n = (int)strlen(code), at = e->where.at - 1, len = e->where.len > 0 ? e->where.len : 1;
    const char *el = a->g->ellipsis;
    int ew = text_width(el), room = w - 2 * ew;
    if (at < 0 || at > n || room < 8 || strchr(code, '\n') || (size_t)w + 2 * strlen(el) >= size)
        return 0;
    int start = at - room / 3;                   /* the error a third of the way in */
    if (start + room > n)
        start = n - room;
    if (start < 0)
        start = 0;
    int end = start + room < n ? start + room : n;
    int lead = start > 0 ? ew : 0;
    snprintf(line, size, "%s%.*s%s", start > 0 ? el : "", end - start, code + start,
             end < n ? el : "");
    int col = lead + at - start, o = 0;
    for (int i = 0; i < col && o + 1 < (int)size; i++)
        caret[o++] = ' ';
    for (int i = 0; i < len && col + i < w && o + 1 < (int)size; i++)
        caret[o++] = i ? '~' : '^';
    caret[o] = 0;
    return 1;
}

/* the grid, or why the scene has none (with a caret under the code) */
static void draw_grid(const struct app *a, const struct tutor *t, int y, int rows)
{
    int W = a->W, tw = W - 2;
    if (a->sc.ok) {
        grid_draw(a, y, 0, W, rows, &a->sc, &t->insp, 0);
        return;
    }
    char buf[UI_MSG_MAX];
    scene_error_text(a, &a->sc, buf, sizeof buf);
    int r = text_draw(a, y, 1, tw, rows, buf, 0, theme_attr(a, UIC_ERROR));
    char code[UI_MSG_MAX], caret[UI_MSG_MAX];
    if (r + 2 <= rows && error_window(a, a->sc.run.code.s, &a->sc.err, tw, code, caret,
                                      sizeof code)) {
        text_puts(a, y + r, 1, tw, code, theme_attr(a, UIC_CODE));
        text_puts(a, y + r + 1, 1, tw, caret, theme_attr(a, UIC_ERROR));
    }
}

static void draw_scene(const struct app *a, const struct tutor *t, const struct lesson_step *st,
                       const struct tutor_layout *L, int y)
{
    char buf[UI_MSG_MAX], code[UI_CODE_MAX];
    int tw = a->W - 2;
    text_puts(a, y, 1, 5, ui_str(a, UIS_CODE), theme_attr(a, UIC_HEADER));
    text_draw(a, y, 7, tw - 6, L->code, code_shown(a, tw - 6, L->code, code, sizeof code), 0,
              theme_attr(a, UIC_CODE));
    y += L->code;
    scene_params(a, t, buf, sizeof buf);
    text_puts(a, y++, 1, tw, buf, t->entry.on ? theme_attr(a, UIC_KEY) : A_NORMAL);
    if (quiz_hidden(&t->quiz, st)) {
        text_puts(a, y, 1, tw, ui_str(a, UIS_HIDDEN), theme_attr(a, UIC_QUIZ));
        task_draw(a, &t->task, st, y + 1, 1, tw, L->task);
        return;
    }
    if (L->grid > 0)
        draw_grid(a, t, y, L->grid);
    y += L->grid;
    if (L->legend) {
        grid_legend(a, &a->sc.res, tw, buf, sizeof buf);
        text_puts(a, y++, 1, tw, buf, theme_attr(a, UIC_DIM));
    }
    if (L->insp) {
        char l1[UI_MSG_MAX], l2[UI_MSG_MAX];
        grid_inspect_text(a, &a->sc, &t->insp, l1, l2, sizeof l1);
        text_puts(a, y, 1, tw, l1, theme_attr(a, UIC_CURSOR));
        text_puts(a, y + 1, 1, tw, l2, A_NORMAL);
        y += 2;
    }
    y += results_draw(a, y, 1, tw, L->results, &a->sc, 0);
    task_draw(a, &t->task, st, y, 1, tw, L->task);
}

/* the key bar's keys that act on this step alone (tutor.c refuses them elsewhere): next and
 * back where a step follows or comes before, the sweep with a parameter to sweep and the
 * answer not held, inspect with a grid drawn, a hint left, Q where there are other values
 * to go to */
static unsigned step_keys(const struct app *a, const struct tutor *t, const struct lesson_step *st)
{
    unsigned k = 0;
    if (a->li + 1 < a->set.nlessons || a->si + 1 < a->set.lessons[a->li].nsteps)
        k |= KS_CAN_NEXT;
    if (a->li > 0 || a->si > 0)
        k |= KS_CAN_BACK;
    if (a->sc.ls && a->sc.parsed && a->sc.ls->nparams > 0 && !a->sc.held)
        k |= KS_CAN_SWEEP;
    if (a->sc.ls && a->sc.ok && !quiz_hidden(&t->quiz, st))
        k |= KS_CAN_INSPECT;
    if (t->hints_shown < st->nhints)
        k |= KS_CAN_HINT;
    int qv = tutor_qvals(a, t, st);
    if (qv == QV_OWN)
        k |= KS_QUIZ_VALS;
    else if (qv == QV_QUIZ)
        k |= tutor_qvals_yours(a, t, st) ? KS_YOUR_VALS : KS_OWN_VALS;
    return k;
}

/* the key bar: the step's keys, one item per parameter with keys, the scroll keys when the
 * reading area scrolls, the inspect keys in inspect mode */
static void draw_keybar(const struct app *a, const struct tutor *t, const struct lesson_step *st,
                        const struct tutor_layout *L)
{
    char items[PATTERN_MAX_PARAMS][64];
    const char *lesson[PATTERN_MAX_PARAMS];
    int n = 0;
    const struct lesson_scene *ls = a->sc.ls;
    for (int i = 0; ls && i < ls->nparams && i < PATTERN_MAX_PARAMS; i++) {
        const struct lesson_param *p = &ls->params[i];
        if (!p->key_inc)
            continue;
        snprintf(items[n], sizeof items[n], "%c/%c %s", p->key_dec, p->key_inc, p->name);
        lesson[n] = items[n];
        n++;
    }
    unsigned mode = t->entry.on ? KS_VALUE : t->insp.on ? KS_INSPECT : 0;
    unsigned screens = KS_TUTOR | mode | (L->maxscroll ? KS_SCROLL : 0) | step_keys(a, t, st);
    app_keybar(a, screens, lesson, n);
}

void tutor_draw(const struct app *a, const void *state)
{
    const struct tutor *t = state;
    const struct lesson_step *st = app_step(a);
    if (!st)
        return;
    title_draw(a);
    struct tutor_layout L;
    tutor_layout(a, t, st, &L);
    if (a->opt.present) {
        draw_present(a, t, st, &L);
        return;
    }
    int scroll = ui_min(t->text_scroll, L.maxscroll);
    flow_draw(a, &L.flow, 1, L.read, scroll);
    flow_scrollbar(a, 1, a->W - 1, L.read, scroll, L.flow.rows);
    if (a->sc.ls)
        draw_scene(a, t, st, &L, 1 + L.read);
    draw_keybar(a, t, st, &L);
}
