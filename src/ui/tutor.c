/* tutor.c: the main screen: a step's text, hints, the simulated code with parameter values
 * filled in, the bank grid, the results panel, the quiz, and presenter mode's large layout.
 * Screen = enter (tutor_enter_step) / draw / key. The draw path does not allocate. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

const struct lesson_step *app_step(const struct app *a)
{
    if (!a->have_lessons || a->li < 0 || a->li >= a->set.nlessons)
        return NULL;
    const struct lesson *l = &a->set.lessons[a->li];
    if (a->si < 0 || a->si >= l->nsteps)
        return NULL;
    return &l->steps[a->si];
}

static const char *tr(const struct app *a, const struct lesson_text *t)
{
    const char *s = lesson_tr(t, a->lang);
    return s ? s : "";
}

static int hidden(const struct app *a)
{
    const struct lesson_step *st = app_step(a);
    return st && st->quiz && st->quiz->predict && !a->quiz.answered && !a->quiz.revealed;
}

void tutor_enter_step(struct app *a)
{
    const struct lesson_step *st = app_step(a);
    memset(&a->quiz, 0, sizeof a->quiz);
    a->quiz.choice = -1;
    memset(&a->insp, 0, sizeof a->insp);
    a->hints_shown = 0;
    a->text_scroll = 0;
    a->has_last = a->pending = 0;
    scene_load(a, &a->sc, st ? st->scene : NULL);
    if (!st)
        return;
    const struct lesson *l = &a->set.lessons[a->li];
    for (int i = 0; i < a->prog.nquiz; i++) {
        const struct progress_quiz *q = &a->prog.quiz[i];
        if (!strcmp(q->lesson_id, l->id) && !strcmp(q->step_id, st->id) && q->attempts > 0) {
            a->quiz.answered = 1;
            a->quiz.correct = q->correct;
            if (st->quiz && st->quiz->kind == QUIZ_CHOICE)   /* mark the choice given then */
                a->quiz.choice = atoi(q->given) - 1;
        }
    }
    if (st->scene && !hidden(a))
        scene_submit(a, &a->sc);
}

void tutor_resubmit(struct app *a)
{
    a->has_last = a->pending = 0;
    if (a->sc.ls && !hidden(a))
        scene_submit(a, &a->sc);
}

/* --- quiz ------------------------------------------------------------------------------- */

static void record(struct app *a, int correct, const char *given)
{
    const struct lesson_step *st = app_step(a);
    const struct lesson *l = &a->set.lessons[a->li];
    progress_record_quiz(&a->prog, l->id, st->id, correct, given);
    int was_hidden = hidden(a);
    a->quiz.answered = 1;
    a->quiz.correct = correct;
    if (was_hidden && st->scene)
        scene_submit(a, &a->sc);
    app_save_soon(a);
}

static void answer_choice(struct app *a, int k)
{
    const struct lesson_quiz *q = app_step(a)->quiz;
    if (k < 0 || k >= q->nchoices) {
        app_msg(a, 0, "choose 1..%d", q->nchoices);
        return;
    }
    a->quiz.choice = k;
    char given[16];
    snprintf(given, sizeof given, "%d", k + 1);
    record(a, k == q->answer, given);
}

static void answer_number(struct app *a)
{
    const struct lesson_quiz *q = app_step(a)->quiz;
    char *end;
    double v = strtod(a->quiz.input, &end);
    if (end == a->quiz.input || *end) {
        app_msg(a, 1, "type a number, then Enter");
        return;
    }
    record(a, fabs(v - q->number) <= q->tolerance + 1e-9, a->quiz.input);
}

static int quiz_lines(const struct app *a, const struct lesson_quiz *q, int w, int full)
{
    int n = text_count(tr(a, &q->question), w - 2);
    if (!full && a->quiz.answered && a->quiz.correct) {   /* right: only the explanation */
        n = 0;
    } else if (q->kind == QUIZ_CHOICE) {
        for (int i = 0; i < q->nchoices; i++)
            n += text_count(tr(a, &q->choices[i]), w - 6);
    } else {
        n += 1;
    }
    if (a->quiz.answered || a->quiz.revealed)
        n += 1 + text_count(tr(a, &q->explanation), w - 2);
    else
        n += 1;
    return n;
}

static int quiz_draw(struct app *a, int y, int x, int w, int h, const struct lesson_quiz *q,
                     int full)
{
    int r = 0;
    char buf[UI_MSG_MAX];
    attr_t qa = theme_attr(a, UIC_QUIZ);
    if (full || !a->quiz.answered || !a->quiz.correct) {
        text_puts(a, y, x, 2, "?", qa);
        r += text_draw(a, y + r, x + 2, w - 2, h - r, tr(a, &q->question), 0, qa);
        if (q->kind == QUIZ_CHOICE) {
            for (int i = 0; i < q->nchoices && r < h; i++) {
                int chosen = a->quiz.answered && a->quiz.choice == i;
                int right = (a->quiz.answered || a->quiz.revealed) && i == q->answer;
                snprintf(buf, sizeof buf, "%s%d)", chosen ? ">" : " ", i + 1);
                text_puts(a, y + r, x + 1, 4, buf, theme_attr(a, UIC_KEY));
                enum ui_role role = right ? UIC_RIGHT : chosen ? UIC_WRONG : UIC_NORMAL;
                r += text_draw(a, y + r, x + 5, w - 6, h - r, tr(a, &q->choices[i]), 0,
                               theme_attr(a, role));
            }
        } else if (r < h) {
            snprintf(buf, sizeof buf, "%s%s_", ui_str(a, UIS_ANSWER_PROMPT), a->quiz.input);
            text_puts(a, y + r, x + 2, w - 2, buf, theme_attr(a, UIC_KEY));
            r++;
        }
    }
    if (r >= h)
        return r;
    if (a->quiz.answered || a->quiz.revealed) {
        if (!a->quiz.answered)
            snprintf(buf, sizeof buf, "%s", ui_str(a, UIS_REVEALED));
        else if (q->kind == QUIZ_CHOICE)
            snprintf(buf, sizeof buf, "%s %s (%s %d)", a->quiz.correct ? a->g->right : a->g->wrong,
                     ui_str(a, a->quiz.correct ? UIS_RIGHT : UIS_WRONG), ui_str(a, UIS_ANSWER),
                     q->answer + 1);
        else
            snprintf(buf, sizeof buf, "%s %s (%s %g)", a->quiz.correct ? a->g->right : a->g->wrong,
                     ui_str(a, a->quiz.correct ? UIS_RIGHT : UIS_WRONG), ui_str(a, UIS_ANSWER),
                     q->number);
        text_puts(a, y + r, x, w, buf,
                  theme_attr(a, !a->quiz.answered ? UIC_DIM : a->quiz.correct ? UIC_RIGHT : UIC_WRONG));
        r++;
        r += text_draw(a, y + r, x + 2, w - 2, h - r, tr(a, &q->explanation), 0, A_NORMAL);
    } else {
        text_puts(a, y + r, x, w,
                  ui_str(a, q->kind == QUIZ_CHOICE ? (q->predict ? UIS_CHOICE_PREDICT : UIS_CHOICE)
                                                   : (q->predict ? UIS_NUMBER_PREDICT : UIS_NUMBER)),
                  theme_attr(a, UIC_DIM));
        r++;
    }
    return r;
}

/* --- drawing ---------------------------------------------------------------------------- */

static void title_for(struct app *a, char *left, size_t ls, char *right, size_t rs)
{
    const struct lesson_step *st = app_step(a);
    const struct lesson *l = &a->set.lessons[a->li];
    snprintf(left, ls, " %d.%d/%d %s%s%s", l->chapter, a->si + 1, l->nsteps, tr(a, &l->title),
             a->g->sep, tr(a, &st->title));
    snprintf(right, rs, "banklab%s%s%s%s ", a->g->sep,
             a->opt.present ? "" : gpu_backend_name(a->info.backend),
             a->opt.present ? "" : a->g->sep, a->lang == LANG_ZH ? "zh" : "en");
}

static int min_i(int x, int y) { return x < y ? x : y; }
static int max_i(int x, int y) { return x > y ? x : y; }

static void draw_present(struct app *a, const struct lesson_step *st)
{
    char left[UI_MSG_MAX], right[64], buf[UI_MSG_MAX];
    title_for(a, left, sizeof left, right, sizeof right);
    app_title(a, left, right);
    int W = a->W, H = a->H, y = 2;
    const char *key = tr(a, &st->key);
    char first[UI_MSG_MAX];
    if (!*key) {   /* the key sentence defaults to the first sentence of the text */
        const char *t = tr(a, &st->text);
        size_t n = 0;
        while (t[n] && t[n] != '\n' && n + 4 < sizeof first) {
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
        key = first;
    }
    int kl = min_i(text_count(key, W - 4), 3);
    y += text_draw(a, y, 2, W - 4, kl, key, 0, A_BOLD);
    y++;
    int hid = hidden(a);
    if (a->sc.ls) {
        int cl = min_i(text_count(a->sc.shown, W - 4), 2);
        y += text_draw(a, y, 2, W - 4, cl, a->sc.shown, 0, theme_attr(a, UIC_CODE) | A_BOLD);
        params_line(a, &a->sc, buf, sizeof buf);
        text_puts(a, y++, 2, W - 4, buf, A_BOLD);
        int qh = (st->quiz && (hid || a->quiz.answered)) ? min_i(quiz_lines(a, st->quiz, W - 2, 1), 8) : 0;
        int room = H - y - 1 - results_rows(a) - 1;   /* grid + quiz */
        int gh = room - qh;
        if (a->sc.ok && gh < grid_rows_min(&a->sc))   /* the grid first, the quiz gets the rest */
            gh = min_i(grid_rows_min(&a->sc), room);
        if (hid) {
            text_puts(a, y + 1, 2, W - 4, ui_str(a, UIS_PRESENT_HIDDEN),
                      theme_attr(a, UIC_QUIZ) | A_BOLD);
            y += 3;
        } else if (a->sc.ok) {
            int need = grid_rows_wanted(a, &a->sc);
            gh = min_i(need, gh);
            int cw = (W - 4) / 32 > 4 ? 4 : (W - 4) / 32;
            int gx = max_i(0, (W - (4 + 32 * cw)) / 2);
            grid_draw(a, y, gx, W - gx, gh, &a->sc, NULL, 1);
            y += gh + 1;
            y += results_draw(a, y, 2, W - 4, results_rows(a), &a->sc, 1);
        } else {
            text_puts(a, y++, 2, W - 4, a->sc.errtext, theme_attr(a, UIC_ERROR));
        }
        if (st->quiz && y < H - 1)
            quiz_draw(a, y, 2, W - 4, H - 1 - y, st->quiz, 1);
    } else if (st->quiz) {
        quiz_draw(a, y, 2, W - 4, H - 1 - y, st->quiz, 1);
    }
    if (a->msg[0])
        app_keybar(a, "");
}

void tutor_draw(struct app *a)
{
    const struct lesson_step *st = app_step(a);
    if (!st) {
        error_draw(a);
        return;
    }
    if (a->opt.present) {
        draw_present(a, st);
        return;
    }
    char left[UI_MSG_MAX], right[64], buf[UI_MSG_MAX];
    title_for(a, left, sizeof left, right, sizeof right);
    app_title(a, left, right);
    int W = a->W, H = a->H;
    int tw = W - 2;
    const char *body = tr(a, &st->text);
    int hid = hidden(a);
    int has_scene = a->sc.ls != NULL;
    int fixed = 0;
    if (has_scene)
        fixed += 1 + (hid ? 1 : results_rows(a)) + (a->insp.on && !hid ? 2 : 0);
    int rem = H - 2 - fixed;
    int text_need = text_count(body, tw);
    int hint_need = 0;
    for (int i = 0; i < a->hints_shown && i < st->nhints; i++)
        hint_need += text_count(tr(a, &st->hints[i]), tw - 8);
    int code_need = has_scene ? text_count(a->sc.shown, tw - 6) : 0;
    int grid_need = has_scene && !hid ? (a->sc.ok ? grid_rows_wanted(a, &a->sc) : 3) : 0;
    int quiz_need = st->quiz ? quiz_lines(a, st->quiz, W - 2, 0) : 0;

    int code = min_i(code_need, 2);
    int hint = min_i(hint_need, 3);
    int room = rem - code - hint;
    int grid_min = grid_need ? min_i(grid_need, grid_rows_min(&a->sc)) : 0;
    int text_min = min_i(text_need, max_i(2, (H - 2) / 4));
    int quiz = min_i(quiz_need, max_i(0, room - grid_min - text_min));
    int grid = grid_need ? max_i(grid_min, min_i(grid_need, room - quiz - text_min)) : 0;
    int text = room - quiz - grid;
    int legend = 0;
    if (text < 0) {
        hint = max_i(0, hint + text);
        text = 0;
    }
    if (text > text_need) {
        int spare = text - text_need;
        text = text_need;
        int g = min_i(spare, max_i(0, grid_need - grid)); grid += g; spare -= g;
        g = min_i(spare, code_need - code); code += g; spare -= g;
        g = min_i(spare, quiz_need - quiz); quiz += g; spare -= g;
        g = min_i(spare, hint_need - hint); hint += g; spare -= g;
        if (spare > 0 && grid > 0 && a->sc.ok)
            legend = 1;  /* a row to spare: explain the marks under the grid */
        /* other blank rows stay at the bottom */
    }
    if (text < 0)
        text = 0;

    int y = 1;
    /* text */
    int maxscroll = max_i(0, text_need - text);
    if (a->text_scroll > maxscroll)
        a->text_scroll = maxscroll;
    text_draw(a, y, 1, tw, text, body, a->text_scroll, A_NORMAL);
    if (maxscroll > 0 && text > 0) {
        snprintf(buf, sizeof buf, " %s PgDn/PgUp %d/%d ", a->g->ellipsis, a->text_scroll + text,
                 text_need);
        text_puts(a, y + text - 1, W - text_width(buf) - 1, text_width(buf), buf,
                  theme_attr(a, UIC_KEY));
    }
    y += text;
    /* hints */
    for (int i = 0, r = 0; i < a->hints_shown && i < st->nhints && r < hint; i++) {
        snprintf(buf, sizeof buf, "%s %d", ui_str(a, UIS_HINT), i + 1);
        text_puts(a, y + r, 1, 7, buf, theme_attr(a, UIC_KEY));
        r += text_draw(a, y + r, 9, tw - 8, hint - r, tr(a, &st->hints[i]), 0, A_NORMAL);
    }
    y += hint;
    if (has_scene) {
        text_puts(a, y, 1, 5, ui_str(a, UIS_CODE), theme_attr(a, UIC_HEADER));
        text_draw(a, y, 7, tw - 6, code, a->sc.shown, 0, theme_attr(a, UIC_CODE));
        y += code;
        params_line(a, &a->sc, buf, sizeof buf);
        text_puts(a, y++, 1, tw, buf, A_NORMAL);
        if (hid) {
            text_puts(a, y++, 1, tw,
                      ui_str(a, UIS_HIDDEN),
                      theme_attr(a, UIC_QUIZ));
        } else {
            if (grid > 0) {
                if (a->sc.ok) {
                    int cw = (W - 4) / 32 > 3 ? 3 : (W - 4) / 32;
                    int gx = max_i(0, (W - (4 + 32 * cw)) / 2);
                    grid_draw(a, y, gx, W - gx, grid, &a->sc, &a->insp, 0);
                } else {
                    text_puts(a, y, 1, tw, a->sc.errtext, theme_attr(a, UIC_ERROR));
                    if (a->sc.err.col > 0 && a->sc.code[0]) {
                        char caret[UI_CODE_MAX * 2];
                        pattern_error_caret(a->sc.code, &a->sc.err, caret, sizeof caret);
                        text_draw(a, y + 1, 1, tw, grid - 1, caret, 0, A_NORMAL);
                    }
                }
            }
            y += grid;
            if (legend) {
                grid_legend(a, buf, sizeof buf);
                text_puts(a, y++, 1, tw, buf, theme_attr(a, UIC_DIM));
            }
            if (a->insp.on) {
                char l1[UI_MSG_MAX], l2[UI_MSG_MAX];
                grid_inspect_text(a, &a->sc, &a->insp, l1, l2, sizeof l1);
                text_puts(a, y, 1, tw, l1, theme_attr(a, UIC_CURSOR));
                text_puts(a, y + 1, 1, tw, l2, A_NORMAL);
                y += 2;
            }
            y += results_draw(a, y, 1, tw, results_rows(a), &a->sc, 0);
        }
    }
    if (st->quiz && quiz > 0)
        quiz_draw(a, y, 1, tw, quiz, st->quiz, 0);

    /* key bar */
    size_t o = 0;
    buf[0] = 0;
    if (a->insp.on)
        o += (size_t)snprintf(buf, sizeof buf, "%s", ui_str(a, UIS_INSPECT_KEYS));
    o += (size_t)snprintf(buf + o, sizeof buf - o, "%s", ui_str(a, UIS_NEXTBACK));
    if (has_scene && a->sc.ls->nparams > 0 && a->sc.ls->params[0].key_inc)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%c/%c %s  ", a->sc.ls->params[0].key_inc,
                              a->sc.ls->params[0].key_dec, a->sc.ls->params[0].name);
    snprintf(buf + o, sizeof buf - o, "%s", ui_str(a, UIS_KEYS));
    app_keybar(a, buf);
}

/* --- keys ------------------------------------------------------------------------------- */

int tutor_key(struct app *a, int ch)
{
    const struct lesson_step *st = app_step(a);
    if (!st)
        return 0;
    const struct lesson_quiz *q = st->quiz;
    int hid = hidden(a);
    if (a->insp.on) {
        if (ch == KEY_LEFT || ch == KEY_RIGHT || ch == KEY_UP || ch == KEY_DOWN || ch == KEY_HOME ||
            ch == KEY_END || ch == '\r' || ch == '\n' || ch == KEY_ENTER) {
            grid_inspect_move(&a->sc, &a->insp, ch);
            return 1;
        }
        if (ch == 'i' || ch == 27) {
            a->insp.on = 0;
            return 1;
        }
    }
    /* quiz input */
    if (q && q->kind == QUIZ_NUMBER && !(a->quiz.answered && a->quiz.correct)) {
        size_t n = strlen(a->quiz.input);
        if ((ch >= '0' && ch <= '9') || ((ch == '-' || ch == '.') && q->kind == QUIZ_NUMBER)) {
            if (n + 1 < sizeof a->quiz.input) {
                a->quiz.input[n] = (char)ch;
                a->quiz.input[n + 1] = 0;
            }
            return 1;
        }
        if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && n > 0) {
            a->quiz.input[n - 1] = 0;
            return 1;
        }
        if ((ch == '\n' || ch == '\r' || ch == KEY_ENTER) && n > 0) {
            answer_number(a);
            a->quiz.input[0] = 0;
            return 1;
        }
    }
    if (q && q->kind == QUIZ_CHOICE && ch >= '1' && ch <= '9') {
        answer_choice(a, ch - '1');
        return 1;
    }
    switch (ch) {
    case 'n': case ' ': case KEY_RIGHT:
        app_goto(a, a->li, a->si + 1);
        return 1;
    case '\n': case '\r': case KEY_ENTER:
        if (hid) {
            a->quiz.revealed = 1;
            scene_submit(a, &a->sc);
        } else {
            app_goto(a, a->li, a->si + 1);
        }
        return 1;
    case 'b': case KEY_LEFT:
        app_goto(a, a->li, a->si - 1);
        return 1;
    case 'e':
        if (hid) {
            a->quiz.revealed = 1;
            scene_submit(a, &a->sc);
        } else {
            app_msg(a, 0, "nothing hidden on this step");
        }
        return 1;
    case KEY_NPAGE:
        a->text_scroll += 5;
        return 1;
    case KEY_PPAGE:
        a->text_scroll = a->text_scroll > 5 ? a->text_scroll - 5 : 0;
        return 1;
    case 'h':
        if (st->nhints == 0)
            app_msg(a, 0, "this step has no hints");
        else if (a->hints_shown < st->nhints)
            a->hints_shown++;
        else
            app_msg(a, 0, "no more hints (%d shown)", st->nhints);
        return 1;
    case 'i':
        if (!a->sc.ls || !a->sc.ok || hid) {
            app_msg(a, 0, hid ? "answer first, then inspect" : "nothing to inspect on this step");
            return 1;
        }
        a->insp.on = 1;
        a->insp.pass = a->insp.row = 0;   /* start on the worst bank: the interesting one */
        a->insp.bank = a->sc.res.pass[0].worst_bank > 0 ? a->sc.res.pass[0].worst_bank : 0;
        grid_inspect_clamp(&a->sc, &a->insp);
        return 1;
    case 't':
        if (!a->sc.ls) { app_msg(a, 0, "no scene on this step"); return 1; }
        scene_cycle_type(a, &a->sc);
        grid_inspect_clamp(&a->sc, &a->insp);
        return 1;
    case 'w': case 'W':
        if (!a->sc.ls) { app_msg(a, 0, "no scene on this step"); return 1; }
        scene_warp(a, &a->sc, ch == 'w' ? 1 : -1);
        return 1;
    case 'a': case '\t':
        if (!a->sc.ls) { app_msg(a, 0, "no scene on this step"); return 1; }
        scene_next_access(a, &a->sc);
        grid_inspect_clamp(&a->sc, &a->insp);
        return 1;
    case 's':
        if (!a->sc.ls || !a->sc.parsed) { app_msg(a, 0, "no scene to sweep on this step"); return 1; }
        if (a->sc.ls->nparams == 0) { app_msg(a, 0, "this scene has no parameter to sweep"); return 1; }
        sweep_open(a);
        return 1;
    case 'x':
        if (!a->sc.ok || hid) { app_msg(a, 0, "no grid to export"); return 1; }
        {
            char name[2 * PROGRESS_ID_MAX + 32];
            snprintf(name, sizeof name, "banklab-%s-%s-%d.svg", a->set.lessons[a->li].id, st->id,
                     a->sc.access + 1);
            app_export_svg(a, &a->sc, name);
        }
        return 1;
    }
    if (a->sc.ls && scene_param_key(a, &a->sc, ch)) {
        grid_inspect_clamp(&a->sc, &a->insp);
        return 1;
    }
    return 0;
}
