/* tutor.c: the main screen, a lesson step: entering a step (its scene, its quiz as progress
 * has it, its measurement unless a prediction comes first) and the step's keys: next / back,
 * reveal, quiz answers, text scrolling, hints, inspect, element type, warp, access, sweep,
 * SVG export, the lesson's parameter keys. Drawing is in tutor_draw.c. */
#include <stdio.h>
#include <string.h>

#include "tutor.h"

static int tutor_hidden(const struct tutor *t, const struct lesson_step *st)
{
    return quiz_hidden(&t->quiz, st);
}

static void measured(void *ctx, const struct gpu_result *r)
{
    struct tutor *t = ctx;
    struct app *a = t->app;
    const struct lesson_step *st = app_step(a);
    char where[2 * PROGRESS_ID_MAX + 2];
    if (st)
        snprintf(where, sizeof where, "%s/%s", a->set.lessons[a->li].id, st->id);
    else
        snprintf(where, sizeof where, "playground");
    scene_record(a, &a->sc, r, where);
}

/* without a GPU (nor a recording) nothing answers the measurement: the step's access at the
 * values shown when its quiz is answered goes into the explored list with the model's
 * numbers alone, so the report says what was explored (while the runner is still being
 * opened too: a measurement that comes later adds its own row) */
static void record_model(struct tutor *t)
{
    struct app *a = t->app;
    if (req_hub_ready(&a->hub) || !a->sc.ok || a->sc.held)
        return;
    struct gpu_result none;
    memset(&none, 0, sizeof none);   /* GPU_OK, nothing measured */
    measured(t, &none);
}

static void tutor_init(struct app *a, void *st)
{
    struct tutor *t = st;
    t->app = a;
    t->quiz.choice = -1;
    scene_init(&a->sc, measured, t);
}

static void tutor_done(struct app *a, void *st)
{
    scene_clear(a, &a->sc);
}

/* enter the current step */
static int tutor_enter(struct app *a, void *st)
{
    struct tutor *t = st;
    const struct lesson_step *step = app_step(a);
    memset(&t->insp, 0, sizeof t->insp);
    memset(&t->entry, 0, sizeof t->entry);
    t->hints_shown = 0;
    t->text_scroll = 0;
    t->leave_warned = ACT_NONE;
    t->below_warned = 0;
    quiz_load(&t->quiz, a, step ? &a->set.lessons[a->li] : NULL, step);
    scene_load(a, &a->sc, step ? step->scene : NULL);
    a->sc.held = step && tutor_hidden(t, step);
    task_update(a, &t->task, &a->set.lessons[a->li], step);
    tutor_qvals_enter(a, t);
    if (step && step->scene)
        tutor_qvals_show(a, t, step); /* answered before: the question's values */
    if (step && step->scene)
        scene_measure(a, &a->sc);     /* nothing while the answer is held */
    return 0;
}

/* back from a screen above (the sweep may have moved a parameter) */
static void tutor_resume(struct app *a, void *st)
{
    struct tutor *t = st;
    if (t->insp.on)
        grid_inspect_clamp(&a->sc, &t->insp);
    if (app_step(a))
        task_update(a, &t->task, &a->set.lessons[a->li], app_step(a));
}

/* scroll the reading area to show block `must` and, when the quiz has one, its verdict and
 * as much of the explanation as fits (end: show up to the flow's end) */
static void show_block(struct app *a, struct tutor *t, const struct lesson_step *st, int which,
                       int to_end)
{
    struct tutor_layout L;
    tutor_layout(a, t, st, &L);
    int must = which == -2 ? L.status : which;
    if (must < 0)
        return;
    t->text_scroll = flow_scroll_to(&L.flow, L.read, t->text_scroll, flow_top(&L.flow, must),
                                    to_end ? L.flow.rows : 0);
}

/* page through the reading area: a page is its height less one row kept for context */
static void scroll_page(struct app *a, struct tutor *t, const struct lesson_step *st, int dir)
{
    struct tutor_layout L;
    tutor_layout(a, t, st, &L);
    int page = L.read > 2 ? L.read - 1 : 1;
    int s = t->text_scroll < L.maxscroll ? t->text_scroll : L.maxscroll;
    s += dir * page;
    t->text_scroll = s < 0 ? 0 : s > L.maxscroll ? L.maxscroll : s;
}

/* the quiz answered or revealed: the scene is no longer held, and it shows the values the
 * question named (its parameters, type and access: qvals.c), in every mode */
static void release(struct app *a, struct tutor *t, const struct lesson_step *st)
{
    a->sc.held = 0;
    tutor_qvals_show(a, t, st);
    scene_measure(a, &a->sc);
    record_model(t);
}

static void reveal(struct app *a, struct tutor *t, const struct lesson_step *st)
{
    quiz_reveal(a, &t->quiz, &a->set.lessons[a->li], st);
    release(a, t, st);
    show_block(a, t, st, -2, 1);
}

/* n / b with a typed number not answered: say so once; the same key again leaves it */
static int keep_typed(struct app *a, struct tutor *t, const struct ui_key *k)
{
    if (!quiz_pending(&t->quiz) || t->leave_warned == k->action)
        return 0;
    t->leave_warned = k->action;
    app_msg(a, 1, "%s%s%s", ui_str(a, UIS_TYPED_1), t->quiz.input, ui_str(a, UIS_TYPED_2));
    return 1;
}

/* n (or Enter going on) while the step's quiz is not answered and its question is below the
 * reading area: the question is scrolled into view and the message says so, once; the same
 * key again goes on */
static int quiz_below(struct app *a, struct tutor *t, const struct lesson_step *st,
                      const struct ui_key *k)
{
    if (!st->quiz || t->quiz.answered || t->quiz.revealed || t->below_warned)
        return 0;
    struct tutor_layout L;
    tutor_layout(a, t, st, &L);
    int scroll = t->text_scroll < L.maxscroll ? t->text_scroll : L.maxscroll;
    if (L.quiz < 0 || flow_top(&L.flow, L.quiz) < scroll + L.read)
        return 0;
    t->below_warned = 1;
    show_block(a, t, st, L.status, 0);
    show_block(a, t, st, L.quiz, 0);
    char key[16];
    app_msg(a, 1, ui_str(a, UIS_MSG_QUIZ_BELOW), keys_name(k->key, a->lang == LANG_ZH, key,
                                                           sizeof key));
    return 1;
}

static void hint(struct app *a, struct tutor *t, const struct lesson_step *st)
{
    if (st->nhints == 0) {
        app_msg(a, 0, "%s", ui_str(a, UIS_NO_HINTS));
    } else if (t->hints_shown < st->nhints) {
        t->hints_shown++;
        show_block(a, t, st, t->hints_shown, 0);   /* block 0 is the text */
    } else {
        app_msg(a, 0, ui_str(a, UIS_NO_MORE_HINTS), st->nhints);
    }
}

static void inspect(struct app *a, struct tutor *t, int hid)
{
    if (!a->sc.ls || !a->sc.ok || hid) {
        app_msg(a, 0, "%s", ui_str(a, hid ? UIS_MSG_ANSWER_FIRST : UIS_MSG_NOTHING_TO_INSPECT));
        return;
    }
    t->insp.on = 1;
    t->insp.pass = t->insp.row = 0;   /* start on the worst bank: the interesting one */
    t->insp.bank = a->sc.res.pass[0].worst_bank > 0 ? a->sc.res.pass[0].worst_bank : 0;
    grid_inspect_clamp(&a->sc, &t->insp);
}

static void export_svg(struct app *a, const struct lesson_step *st, int hid)
{
    if (!a->sc.ok || hid) {
        app_msg(a, 0, "%s", ui_str(a, UIS_MSG_NO_GRID));
        return;
    }
    char name[2 * PROGRESS_ID_MAX + 32];
    snprintf(name, sizeof name, "banklab-%s-%s-%d.svg", a->set.lessons[a->li].id, st->id,
             a->sc.access + 1);
    app_export_svg(a, &a->sc, name);
}

static void open_sweep(struct app *a)
{
    if (!a->sc.ls || !a->sc.parsed)
        app_msg(a, 0, "%s", ui_str(a, UIS_MSG_NO_SWEEP_SCENE));
    else if (a->sc.ls->nparams == 0)
        app_msg(a, 0, "%s", ui_str(a, UIS_MSG_NO_SWEEP_PARAM));
    else
        ui_push(a, UI_SWEEP);
}

/* keys that change the scene: type, warp, access (and the lesson's parameter keys) */
static int scene_key(struct app *a, struct tutor *t, const struct ui_key *k)
{
    switch (k->action) {
    case ACT_TYPE: scene_cycle_type(a, &a->sc); break;
    case ACT_WARP_NEXT: scene_warp(a, &a->sc, 1); return 1;
    case ACT_WARP_PREV: scene_warp(a, &a->sc, -1); return 1;
    case ACT_ACCESS: scene_next_access(a, &a->sc); break;
    default:
        if (!a->sc.ls || !scene_param_key(a, &a->sc, k->key))
            return 0;
        break;
    }
    grid_inspect_clamp(&a->sc, &t->insp);
    task_update(a, &t->task, &a->set.lessons[a->li], app_step(a));
    return 1;
}

static enum ui_result step_key(struct app *a, struct tutor *t, const struct lesson_step *st,
                               const struct ui_key *k)
{
    int hid = tutor_hidden(t, st);
    switch (k->action) {
    case ACT_NEXT:
        if (!keep_typed(a, t, k) && !quiz_below(a, t, st, k))
            app_goto(a, a->li, a->si + 1);
        return UI_HANDLED;
    case ACT_PREV:
        if (!keep_typed(a, t, k))
            app_goto(a, a->li, a->si - 1);
        return UI_HANDLED;
    case ACT_ENTER:
        if (hid)
            reveal(a, t, st);
        else if (!quiz_below(a, t, st, k))
            app_goto(a, a->li, a->si + 1);
        return UI_HANDLED;
    case ACT_REVEAL:
        if (hid)
            reveal(a, t, st);
        else
            app_msg(a, 0, "%s", ui_str(a, UIS_NOTHING_HIDDEN));
        return UI_HANDLED;
    case ACT_PGDN: scroll_page(a, t, st, 1); return UI_HANDLED;
    case ACT_PGUP: scroll_page(a, t, st, -1); return UI_HANDLED;
    case ACT_HINT: hint(a, t, st); return UI_HANDLED;
    case ACT_INSPECT: inspect(a, t, hid); return UI_HANDLED;
    case ACT_SWEEP: open_sweep(a); return UI_HANDLED;
    case ACT_SVG: export_svg(a, st, hid); return UI_HANDLED;
    case ACT_VALUE: entry_open(a, &t->entry, &a->sc); return UI_HANDLED;
    case ACT_QUIZ_VALUES: tutor_qvals_key(a, t, st); return UI_HANDLED;
    case ACT_TYPE: case ACT_WARP_NEXT: case ACT_WARP_PREV: case ACT_ACCESS:
        if (!a->sc.ls) {
            app_msg(a, 0, "%s", ui_str(a, UIS_MSG_NO_SCENE));
            return UI_HANDLED;
        }
        /* fall through */
    default:
        return scene_key(a, t, k) ? UI_HANDLED : UI_IGNORED;
    }
}

static enum ui_result tutor_key(struct app *a, void *st, const struct ui_key *k)
{
    struct tutor *t = st;
    const struct lesson_step *step = app_step(a);
    if (!step)
        return UI_IGNORED;
    if (t->insp.on) {
        switch (k->action) {
        case ACT_LEFT: case ACT_RIGHT: case ACT_UP: case ACT_DOWN: case ACT_HOME: case ACT_END:
        case ACT_LANE:
            grid_inspect_move(&a->sc, &t->insp, k->action);
            return UI_HANDLED;
        case ACT_LEAVE:
            t->insp.on = 0;
            return UI_HANDLED;
        default:
            break;
        }
    }
    if (t->entry.on) {
        if (entry_key(a, &t->entry, &a->sc, k)) {
            grid_inspect_clamp(&a->sc, &t->insp);
            task_update(a, &t->task, &a->set.lessons[a->li], step);
            return UI_HANDLED;
        }
        t->entry.on = 0;          /* another key: the value typed is dropped, the key acts */
    }
    if (k->action != ACT_NEXT && k->action != ACT_PREV)
        t->leave_warned = ACT_NONE;
    struct quiz before = t->quiz;
    if (quiz_key(a, &t->quiz, &a->set.lessons[a->li], step, k)) {
        if (!before.answered && !before.revealed && t->quiz.answered && step->scene)
            release(a, t, step);          /* answered: now measure what was predicted */
        /* an answer: its verdict and explanation in view; typing: the number in view */
        int answered = t->quiz.answered != before.answered || t->quiz.correct != before.correct ||
                       t->quiz.choice != before.choice || t->quiz.submitted > before.submitted;
        show_block(a, t, step, -2, answered);
        return UI_HANDLED;
    }
    return step_key(a, t, step, k);
}

static unsigned tutor_modes(const struct app *a, const void *st)
{
    const struct tutor *t = st;
    if (t->entry.on)
        return KS_VALUE;          /* digits are the value's, not the quiz's */
    return (t->insp.on ? KS_INSPECT : 0) | quiz_modes(&t->quiz, app_step(a));
}

const struct ui_screen screen_tutor = {
    .name = "tutor", .state_size = sizeof(struct tutor), .init = tutor_init, .done = tutor_done,
    .enter = tutor_enter, .resume = tutor_resume, .draw = tutor_draw, .key = tutor_key,
    .keys = KS_TUTOR, .modes = tutor_modes,
};
