/* tutor_draw.c: drawing the tutor screen: the layout (how many rows the text, hints, code,
 * grid and quiz get at this terminal size), the step's text, hints, the simulated code with
 * parameter values filled in, the bank grid or why there is none, the inspect lines, the
 * results panel, the quiz, the key bar; and presenter mode's large layout. Changes nothing and
 * does not allocate. */
#include <stdio.h>
#include <string.h>

#include "tutor.h"

static int min_i(int x, int y) { return x < y ? x : y; }
static int max_i(int x, int y) { return x > y ? x : y; }

static void title_for(const struct app *a, char *left, size_t ls, char *right, size_t rs)
{
    const struct lesson_step *st = app_step(a);
    const struct lesson *l = &a->set.lessons[a->li];
    snprintf(left, ls, " %d.%d/%d %s%s%s", l->chapter, a->si + 1, l->nsteps,
             lesson_tr(&l->title, a->lang), a->g->sep, lesson_tr(&st->title, a->lang));
    snprintf(right, rs, "banklab%s%s%s%s ", a->g->sep,
             a->opt.present ? "" : gpu_backend_name(req_hub_info(&a->hub)->backend),
             a->opt.present ? "" : a->g->sep, a->lang == LANG_ZH ? "zh" : "en");
}

/* the feedback under the scene: the task panel, then the quiz (full: the quiz's question also
 * after a right answer) */
static int feedback_lines(const struct app *a, const struct tutor *t,
                          const struct lesson_step *st, int w, int full)
{
    return task_lines(a, &t->task, st, w) +
           (st->quiz ? quiz_lines(a, &t->quiz, st->quiz, w, full) : 0);
}

static void feedback_draw(const struct app *a, const struct tutor *t,
                          const struct lesson_step *st, int y, int x, int w, int h, int full)
{
    int r = task_draw(a, &t->task, st, y, x, w, h);
    if (st->quiz && r < h)
        quiz_draw(a, &t->quiz, y + r, x, w, h - r, st->quiz, full);
}

/* --- presenter mode --------------------------------------------------------------------- */

/* the key sentence, or the text's first sentence when the step has none */
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
        if (!strncmp(t + n, "\xe3\x80\x82", 3)) {   /* 。 */
            n += 3;
            break;
        }
        n++;
    }
    memcpy(first, t, n);
    first[n] = 0;
    return first;
}

/* the scene in large cells, or the prompt to predict first; returns the next free row */
static int present_scene(const struct app *a, const struct tutor *t, const struct lesson_step *st,
                         int y)
{
    char buf[UI_MSG_MAX];
    int W = a->W, H = a->H;
    int hid = quiz_hidden(&t->quiz, st);
    int cl = min_i(text_count(a->sc.shown, W - 4), 2);
    y += text_draw(a, y, 2, W - 4, cl, a->sc.shown, 0, theme_attr(a, UIC_CODE) | A_BOLD);
    if (t->entry.on)
        entry_text(a, &t->entry, &a->sc, buf, sizeof buf);
    else
        params_line(a, &a->sc, KS_TUTOR, buf, sizeof buf);
    text_puts(a, y++, 2, W - 4, buf, A_BOLD);
    /* After an answer or a reveal the class reads the explanation: it gets its rows before
     * the grid's extra rows (the grid keeps its header, a row a pass and the footers). */
    int after = st->quiz && (t->quiz.answered || t->quiz.revealed);
    int room = H - y - 1 - results_rows(a) - 1;   /* grid + quiz */
    int qh = after ? quiz_explain_lines(a, &t->quiz, st->quiz, W - 4)
             : (st->quiz && hid) ? min_i(quiz_lines(a, &t->quiz, st->quiz, W - 2, 1), 8) : 0;
    qh += min_i(task_lines(a, &t->task, st, W - 4), 3);
    if (after && a->sc.ok)
        qh = max_i(0, min_i(qh, room - grid_rows_min(&a->sc)));
    int gh = room - qh;
    if (a->sc.ok && gh < grid_rows_min(&a->sc))   /* the grid first, the quiz gets the rest */
        gh = min_i(grid_rows_min(&a->sc), room);
    if (hid) {
        text_puts(a, y + 1, 2, W - 4, ui_str(a, UIS_PRESENT_HIDDEN),
                  theme_attr(a, UIC_QUIZ) | A_BOLD);
        y += 3;
    } else if (a->sc.ok) {
        gh = min_i(grid_rows_wanted(a, &a->sc), gh);
        int cw = (W - 4) / 32 > 4 ? 4 : (W - 4) / 32;
        int gx = max_i(0, (W - (4 + 32 * cw)) / 2);
        grid_draw(a, y, gx, W - gx, gh, &a->sc, NULL, 1);
        y += gh + 1;
        y += results_draw(a, y, 2, W - 4, results_rows(a), &a->sc, 1);
    } else {
        text_puts(a, y++, 2, W - 4, a->sc.errtext, theme_attr(a, UIC_ERROR));
    }
    return y;
}

static void draw_present(const struct app *a, const struct tutor *t, const struct lesson_step *st)
{
    char left[UI_MSG_MAX], right[64], first[UI_MSG_MAX];
    title_for(a, left, sizeof left, right, sizeof right);
    app_title(a, left, right);
    int W = a->W, H = a->H, y = 2;
    const char *key = key_sentence(a, st, first, sizeof first);
    int kl = min_i(text_count(key, W - 4), 3);
    y += text_draw(a, y, 2, W - 4, kl, key, 0, A_BOLD);
    y++;
    if (a->sc.ls)
        y = present_scene(a, t, st, y);
    if (y < H - 1) {
        y += task_draw(a, &t->task, st, y, 2, W - 4, H - 1 - y);
        if (st->quiz && y < H - 1 && (t->quiz.answered || t->quiz.revealed))
            quiz_explain_draw(a, &t->quiz, y, 2, W - 4, H - 1 - y, st->quiz);
        else if (st->quiz && y < H - 1)
            quiz_draw(a, &t->quiz, y, 2, W - 4, H - 1 - y, st->quiz, 1);
    }
    if (a->msg[0])
        app_keybar(a, "");
}

/* --- layout ----------------------------------------------------------------------------- */

void tutor_layout(const struct app *a, const struct tutor *t, const struct lesson_step *st,
                  struct tutor_layout *L)
{
    int W = a->W, H = a->H, tw = W - 2;
    int hid = quiz_hidden(&t->quiz, st);
    int has_scene = a->sc.ls != NULL;
    int fixed = has_scene ? 1 + (hid ? 1 : results_rows(a)) + (t->insp.on && !hid ? 2 : 0) : 0;
    int rem = H - 2 - fixed;
    int text_need = text_count(lesson_tr(&st->text, a->lang), tw);
    int hint_need = 0;
    for (int i = 0; i < t->hints_shown && i < st->nhints; i++)
        hint_need += text_count(lesson_tr(&st->hints[i], a->lang), tw - 8);
    int code_need = has_scene ? text_count(a->sc.shown, tw - 6) : 0;
    int grid_need = has_scene && !hid ? (a->sc.ok ? grid_rows_wanted(a, &a->sc) : 3) : 0;
    /* after a right answer the grid keeps the rows; without a grid the question stays */
    int quiz_need = feedback_lines(a, t, st, W - 2, !has_scene);

    int code = min_i(code_need, 2);
    int hint = min_i(hint_need, 3);
    int room = rem - code - hint;
    int grid_min = grid_need ? min_i(grid_need, grid_rows_min(&a->sc)) : 0;
    int text_min = min_i(text_need, max_i(2, (H - 2) / 4));
    int quiz = min_i(quiz_need, max_i(0, room - grid_min - text_min));
    int grid = grid_need ? max_i(grid_min, min_i(grid_need, room - quiz - text_min)) : 0;
    int text = room - quiz - grid;
    L->legend = 0;
    if (text < 0) {
        hint = max_i(0, hint + text);
        text = 0;
    }
    if (text > text_need) {           /* rows to spare: to the grid, code, quiz, hints */
        int spare = text - text_need;
        text = text_need;
        int g = min_i(spare, max_i(0, grid_need - grid)); grid += g; spare -= g;
        g = min_i(spare, code_need - code); code += g; spare -= g;
        g = min_i(spare, quiz_need - quiz); quiz += g; spare -= g;
        g = min_i(spare, hint_need - hint); hint += g; spare -= g;
        if (spare > 0 && grid > 0 && a->sc.ok)
            L->legend = 1;  /* a row to spare: explain the marks under the grid */
        /* other blank rows stay at the bottom */
    }
    L->text = text < 0 ? 0 : text;
    L->hint = hint;
    L->code = code;
    L->grid = grid;
    L->quiz = quiz;
    L->text_need = text_need;
    L->maxscroll = max_i(0, text_need - L->text);
}

/* --- the normal screen ------------------------------------------------------------------ */

static int draw_text(const struct app *a, const struct tutor *t, const struct lesson_step *st,
                     const struct tutor_layout *L, int y)
{
    char buf[UI_MSG_MAX];
    int W = a->W, tw = W - 2;
    int scroll = min_i(t->text_scroll, L->maxscroll);
    text_draw(a, y, 1, tw, L->text, lesson_tr(&st->text, a->lang), scroll, A_NORMAL);
    if (L->maxscroll > 0 && L->text > 0) {
        snprintf(buf, sizeof buf, " %s PgDn/PgUp %d/%d ", a->g->ellipsis, scroll + L->text,
                 L->text_need);
        text_puts(a, y + L->text - 1, W - text_width(buf) - 1, text_width(buf), buf,
                  theme_attr(a, UIC_KEY));
    }
    y += L->text;
    char label[32];
    for (int i = 0, r = 0; i < t->hints_shown && i < st->nhints && r < L->hint; i++) {
        snprintf(label, sizeof label, "%s %d", ui_str(a, UIS_HINT), i + 1);
        text_puts(a, y + r, 1, 7, label, theme_attr(a, UIC_KEY));
        r += text_draw(a, y + r, 9, tw - 8, L->hint - r, lesson_tr(&st->hints[i], a->lang), 0,
                       A_NORMAL);
    }
    return y + L->hint;
}

/* the grid, or why the scene has none (with a caret under the code) */
static void draw_grid(const struct app *a, const struct tutor *t, int y, int rows)
{
    int W = a->W, tw = W - 2;
    if (a->sc.ok) {
        int cw = (W - 4) / 32 > 3 ? 3 : (W - 4) / 32;
        int gx = max_i(0, (W - (4 + 32 * cw)) / 2);
        grid_draw(a, y, gx, W - gx, rows, &a->sc, &t->insp, 0);
        return;
    }
    text_puts(a, y, 1, tw, a->sc.errtext, theme_attr(a, UIC_ERROR));
    if (a->sc.err.col > 0 && a->sc.code[0]) {
        char caret[UI_CODE_MAX * 2];
        pattern_error_caret(a->sc.code, &a->sc.err, caret, sizeof caret);
        text_draw(a, y + 1, 1, tw, rows - 1, caret, 0, A_NORMAL);
    }
}

static int draw_scene(const struct app *a, const struct tutor *t, const struct lesson_step *st,
                      const struct tutor_layout *L, int y)
{
    char buf[UI_MSG_MAX];
    int tw = a->W - 2;
    text_puts(a, y, 1, 5, ui_str(a, UIS_CODE), theme_attr(a, UIC_HEADER));
    text_draw(a, y, 7, tw - 6, L->code, a->sc.shown, 0, theme_attr(a, UIC_CODE));
    y += L->code;
    if (t->entry.on)
        entry_text(a, &t->entry, &a->sc, buf, sizeof buf);
    else
        params_line(a, &a->sc, KS_TUTOR, buf, sizeof buf);
    text_puts(a, y++, 1, tw, buf, t->entry.on ? theme_attr(a, UIC_KEY) : A_NORMAL);
    if (quiz_hidden(&t->quiz, st)) {
        text_puts(a, y++, 1, tw, ui_str(a, UIS_HIDDEN), theme_attr(a, UIC_QUIZ));
        return y;
    }
    if (L->grid > 0)
        draw_grid(a, t, y, L->grid);
    y += L->grid;
    if (L->legend) {
        grid_legend(a, buf, sizeof buf);
        text_puts(a, y++, 1, tw, buf, theme_attr(a, UIC_DIM));
    }
    if (t->insp.on) {
        char l1[UI_MSG_MAX], l2[UI_MSG_MAX];
        grid_inspect_text(a, &a->sc, &t->insp, l1, l2, sizeof l1);
        text_puts(a, y, 1, tw, l1, theme_attr(a, UIC_CURSOR));
        text_puts(a, y + 1, 1, tw, l2, A_NORMAL);
        y += 2;
    }
    return y + results_draw(a, y, 1, tw, results_rows(a), &a->sc, 0);
}

static void draw_keybar(const struct app *a, const struct tutor *t)
{
    char lesson[64] = "", bar[UI_MSG_MAX];
    const struct lesson_scene *ls = a->sc.ls;
    if (ls && ls->nparams > 0 && ls->params[0].key_inc)
        snprintf(lesson, sizeof lesson, "%c/%c %s", ls->params[0].key_dec,
                 ls->params[0].key_inc, ls->params[0].name);
    unsigned mode = t->entry.on ? KS_VALUE : t->insp.on ? KS_INSPECT : 0;
    size_t o = mode ? keys_bar(mode, a->lang == LANG_ZH, NULL, bar, sizeof bar) : 0;
    keys_bar(KS_TUTOR, a->lang == LANG_ZH, lesson, bar + o, sizeof bar - o);
    app_keybar(a, bar);
}

void tutor_draw(const struct app *a, const void *state)
{
    const struct tutor *t = state;
    const struct lesson_step *st = app_step(a);
    if (!st)
        return;
    if (a->opt.present) {
        draw_present(a, t, st);
        return;
    }
    char left[UI_MSG_MAX], right[64];
    title_for(a, left, sizeof left, right, sizeof right);
    app_title(a, left, right);
    struct tutor_layout L;
    tutor_layout(a, t, st, &L);
    int y = draw_text(a, t, st, &L, 1);
    if (a->sc.ls)
        y = draw_scene(a, t, st, &L, y);
    if (L.quiz > 0)
        feedback_draw(a, t, st, y, 1, a->W - 2, L.quiz, !a->sc.ls);
    draw_keybar(a, t);
}
