/* task.c: the step's graded task (task.h): grading the scene's current values after every
 * change, saving a task the first time it is met, and drawing the goal, the points and met /
 * not met. The draw path does not allocate. */
#include <stdio.h>
#include <string.h>

#include "task.h"

#include "../store/report.h"

/* the points of every task of this lesson (one lab), and of those solved: one score per lab,
 * as `banklab lab` and `banklab report` give it */
static void totals(const struct app *a, int *score, int *max)
{
    *score = *max = 0;
    for (int i = a->li; i == a->li && i < a->set.nlessons; i++) {
        const struct lesson *l = &a->set.lessons[i];
        for (int j = 0; j < l->nsteps; j++) {
            const struct lesson_step *st = &l->steps[j];
            if (!st->task)
                continue;
            *max += st->task->points;
            const struct progress_quiz *q = app_record(a, l, st, 1);
            if (q && q->correct)
                *score += st->task->points;
        }
    }
}

/* "PAD=2", "K=1, C=0", "PAD=4, T=float4": the values as banklab lab writes them */
static void values_text(const struct ui_scene *s, char *buf, size_t size)
{
    size_t o = 0;
    buf[0] = 0;
    for (int i = 0; i < s->ls->nparams && i < PATTERN_MAX_PARAMS; i++)
        o += bl_fmt(buf + o, size - o, "%s%s=%lld", i ? ", " : "", s->ls->params[i].name,
                    s->value[i]);
    if (s->ls->ntypes > 0)
        bl_fmt(buf + o, size - o, "%sT=%s", o ? ", " : "",
               s->ls->types[s->type_index % s->ls->ntypes]);
}

/* the model's result for the task's access at the scene's warp (how banklab lab grades) */
static int grade(struct ui_scene *s, const struct lesson_task *t, struct task_panel *tp)
{
    if (!s->ok || !s->parsed)
        return -1;
    struct pattern_env env = s->env;
    env.warp = s->ls->warp;
    struct bank_access acc;
    struct bank_result res;
    struct scene_in in = {.code = s->run.code.s, .env = &env, .access = t->access, .warp = -1};
    if (scene_run(&s->run, &in, &acc, &res, NULL) != 0)
        return -1;
    tp->wavefronts = res.wavefronts;
    tp->conflicts = res.conflicts;
    tp->ways = res.ways;
    return 0;
}

void task_update(struct app *a, struct task_panel *tp, const struct lesson *l,
                 const struct lesson_step *st)
{
    memset(tp, 0, sizeof *tp);
    if (!st || !st->task || !st->scene || a->sc.ls != st->scene)
        return;
    for (int j = 0; j < l->nsteps; j++)
        if (l->steps[j].task) {
            tp->count++;
            if (&l->steps[j] == st)
                tp->number = tp->count;
        }
    const struct progress_quiz *q = app_record(a, l, st, 1);
    tp->solved = q && q->correct;
    tp->graded = grade(&a->sc, st->task, tp) == 0;
    tp->met = tp->graded && lesson_task_met(st->task, tp->wavefronts, tp->conflicts, tp->ways);
    values_text(&a->sc, tp->values, sizeof tp->values);
    if (tp->met && !tp->solved) {
        char lid[PROGRESS_ID_MAX];
        snprintf(lid, sizeof lid, "%s%s", REPORT_TASK_PREFIX, l->id);
        progress_record_quiz(&a->prog, lid, st->id, 1, tp->values);
        app_save_soon(a);
        tp->solved = 1;
        totals(a, &tp->score, &tp->max);
        app_msg(a, 0, "%s %d %s: +%d %s (%s %d / %d)", ui_str(a, UIS_TASK), tp->number,
                ui_str(a, UIS_TASK_SOLVED), st->task->points, ui_str(a, UIS_POINTS),
                ui_str(a, UIS_SCORE), tp->score, tp->max);
        return;
    }
    totals(a, &tp->score, &tp->max);
}

/* "Task 1/4 (3 points): GOAL" */
static void goal_text(const struct app *a, const struct task_panel *tp, const struct lesson_step *st,
                      char *buf, size_t size)
{
    snprintf(buf, size, "%s %d/%d%s%d %s%s%s", ui_str(a, UIS_TASK), tp->number, tp->count,
             ui_str(a, UIS_PAREN), st->task->points, ui_str(a, UIS_POINTS),
             ui_str(a, UIS_PAREN_COLON), lesson_tr(&st->task->goal, a->lang));
}

/* "needs conflicts ≤ 0 · now 7 · ✗ not met · score 3 / 9" */
static void state_text(const struct app *a, const struct task_panel *tp,
                       const struct lesson_task *t, char *buf, size_t size)
{
    const struct {
        enum ui_str name;
        int bound, now;
    } b[] = {{UIS_WAVEFRONTS, t->max_wavefronts, tp->wavefronts},
             {UIS_CONFLICTS, t->max_conflicts, tp->conflicts},
             {UIS_WAYS, t->max_ways, tp->ways}};
    const char *le = a->g->utf8 ? "\u2264" : "<=";
    size_t o = bl_fmt(buf, size, "%s", ui_str(a, UIS_NEEDS));
    int k = 0;
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++)
        if (b[i].bound >= 0)
            o += bl_fmt(buf + o, size - o, "%s%s %s %d", k++ ? ", " : "", ui_str(a, b[i].name),
                        le, b[i].bound);
    k = 0;
    if (tp->graded) {
        o += bl_fmt(buf + o, size - o, "%s%s", a->g->sep, ui_str(a, UIS_NOW));
        for (size_t i = 0; i < sizeof b / sizeof b[0]; i++)
            if (b[i].bound >= 0)
                o += bl_fmt(buf + o, size - o, "%s%d", k++ ? ", " : "", b[i].now);
    }
    o += bl_fmt(buf + o, size - o, "%s%s %s", a->g->sep, tp->met ? a->g->right : a->g->wrong,
                ui_str(a, tp->met ? UIS_MET : UIS_NOT_MET));
    if (!tp->met && tp->solved)
        o += bl_fmt(buf + o, size - o, "%s%s%s", ui_str(a, UIS_PAREN),
                    ui_str(a, UIS_SOLVED_BEFORE), ui_str(a, UIS_PAREN_CLOSE));
    bl_fmt(buf + o, size - o, "%s%s %d / %d", a->g->sep, ui_str(a, UIS_SCORE), tp->score,
           tp->max);
}

int task_lines(const struct app *a, const struct task_panel *tp, const struct lesson_step *st,
               int w)
{
    if (!tp->number)
        return 0;
    char buf[UI_MSG_MAX];
    goal_text(a, tp, st, buf, sizeof buf);
    int n = text_count(buf, w);
    state_text(a, tp, st->task, buf, sizeof buf);
    return n + text_count(buf, w - 2);
}

int task_draw(const struct app *a, const struct task_panel *tp, const struct lesson_step *st,
              int y, int x, int w, int h)
{
    if (!tp->number || h <= 0)
        return 0;
    char buf[UI_MSG_MAX];
    goal_text(a, tp, st, buf, sizeof buf);
    int r = text_draw(a, y, x, w, h, buf, 0, theme_attr(a, UIC_QUIZ));
    state_text(a, tp, st->task, buf, sizeof buf);
    r += text_draw(a, y + r, x + 2, w - 2, h - r, buf, 0,
                   theme_attr(a, tp->met ? UIC_RIGHT : UIC_WRONG));
    return r;
}
