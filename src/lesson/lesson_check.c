/* lesson_check.c: runs a loaded lesson's expectations, quiz checks and graded tasks through
 * the model (scene_run). Never prints, never exits. No cJSON, no files: it works on lesson.h
 * structs; problems go through lesson_problem. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../base/fmt.h"
#include "scene.h"

#define TASK_SEARCH_MAX 4096   /* parameter combinations tried to show a task is solvable */
#define TASK_BUDGET 65536      /* task evaluations per lesson_check (bounds hostile input) */

struct chk {
    long budget;               /* task evaluations left */
    struct lesson_problems P;
};

static const char *type_of(const struct lesson_scene *s, const struct lesson_binding *b)
{
    if (s->ntypes == 0)
        return NULL;
    return b && b->type ? b->type : s->types[0];
}

/* One access of scene s under binding b through the model: 0, or -1 with why. desc: the
 * binding, for the message. */
static int model_run(const struct lesson_scene *s, const struct lesson_binding *b, int access,
                     struct bank_result *res, char *desc, size_t dsz, struct bl_err *why)
{
    struct scene_run r = {0};
    struct bank_access acc;
    struct scene_in in = {.scene = s, .bind = b, .access = access, .warp = -1};
    bl_err_clear(why);
    int rc = scene_run(&r, &in, &acc, res, why);
    lesson_binding_text(&r.env, type_of(s, b), access, desc, dsz);
    scene_run_free(&r);
    return rc;
}

static int field_value(const struct bank_result *r, enum lesson_field f)
{
    const int v[] = {-1, r->wavefronts, r->conflicts, r->ways, r->passes};
    return f > FIELD_NONE && f <= FIELD_PASSES ? v[f] : -1;
}

static const char *const field_name[] = {"", "wavefronts", "conflicts", "ways", "passes"};

static void check_expect(struct chk *C, int si, int ei, const struct lesson_scene *s,
                         const struct lesson_expect *e)
{
    struct bank_result res;
    struct bl_err why;
    char desc[256];
    if (model_run(s, &e->bind, e->access, &res, desc, sizeof desc, &why)) {
        lesson_problem(&C->P, 0, NULL, "steps[%d].expect[%d]: %s (%s)", si, ei,
                       why.msg, desc);
        return;
    }
    const int said[5] = {-1, e->wavefronts, e->conflicts, e->ways, e->passes};
    for (int f = 1; f <= 4; f++) {
        if (said[f] < 0)
            continue;
        int got = field_value(&res, (enum lesson_field)f);
        if (got != said[f]) {
            lesson_problem(&C->P, 0, NULL,
                           "steps[%d].expect[%d]: %s is %d by the model, the lesson "
                           "says %d (%s)", si, ei, field_name[f], got, said[f], desc);
        }
    }
}

static int fmt_num(double v, char *buf, size_t size)
{
    if (v == floor(v) && fabs(v) < 1e15)
        return snprintf(buf, size, "%.0f", v);
    return snprintf(buf, size, "%g", v);
}

static void check_quiz(struct chk *C, int si, const struct lesson_scene *s,
                       const struct lesson_quiz *q)
{
    if (q->check.field == FIELD_NONE)
        return;
    struct bank_result res;
    struct bl_err why;
    char desc[256], a[40];
    if (model_run(s, &q->check.bind, q->check.access, &res, desc, sizeof desc, &why)) {
        lesson_problem(&C->P, 0, NULL, "steps[%d].quiz.check: %s (%s)", si,
                       why.msg, desc);
        return;
    }
    const char *fname = field_name[q->check.field];
    int got = field_value(&res, q->check.field);
    if (q->kind == QUIZ_NUMBER) {
        if (q->number != (double)got) {
            fmt_num(q->number, a, sizeof a);
            lesson_problem(&C->P, 0, NULL,
                           "steps[%d].quiz.answer: the answer is %s, the model's %s "
                           "is %d (%s)", si, a, fname, got, desc);
        }
        return;
    }
    if (q->answer < 0 || q->answer >= q->nchoices || !q->choice_values)
        return;
    double v = q->choice_values[q->answer];
    int right = !isnan(v) && v == (double)got;
    if (!right) {
        fmt_num(v, a, sizeof a);
        lesson_problem(&C->P, 0, NULL,
                       "steps[%d].quiz.answer: choice %d (\"%s\") has value %s, the "
                       "model's %s is %d (%s)", si, q->answer, q->choices[q->answer].en ?
                       q->choices[q->answer].en : "", isnan(v) ? "none" : a, fname, got, desc);
    }
    for (int k = 0; k < q->nchoices && right; k++)
        if (k != q->answer && q->choice_values[k] == (double)got) {
            lesson_problem(&C->P, 0, NULL,
                           "steps[%d].quiz.choices[%d]: its value %d is also the "
                           "model's %s (%s): two choices would be right", si, k, got, fname, desc);
        }
}

int lesson_task_met(const struct lesson_task *t, long wavefronts, long conflicts, long ways)
{
    return (t->max_wavefronts < 0 || wavefronts <= t->max_wavefronts) &&
           (t->max_conflicts < 0 || conflicts <= t->max_conflicts) &&
           (t->max_ways < 0 || ways <= t->max_ways);
}

/* Runs the task's access at in (its binding's values, its type). Returns 1 met, 0 not met, -1
 * the code fails there (such points are skipped) or the budget is spent. */
static int task_try(struct chk *C, const struct lesson_task *task, struct scene_run *r,
                    const struct scene_in *in)
{
    if (C->budget <= 0)
        return -1;
    C->budget--;
    struct bank_access acc;
    struct bank_result res;
    if (scene_run(r, in, &acc, &res, NULL))
        return -1;
    return lesson_task_met(task, res.wavefronts, res.conflicts, res.ways);
}

static void check_task(struct chk *C, int si, const struct lesson_scene *s,
                       const struct lesson_task *t)
{
    if (s->nparams == 0 || s->nparams > PATTERN_MAX_PARAMS)
        return;
    long long vals[PATTERN_MAX_PARAMS], count[PATTERN_MAX_PARAMS];
    double space = s->ntypes > 0 ? s->ntypes : 1;
    for (int k = 0; k < s->nparams; k++) {
        if (!s->params[k].name || s->params[k].step <= 0)
            return;
        vals[k] = s->params[k].def;
        count[k] = (s->params[k].max - s->params[k].min) / s->params[k].step + 1;
        space *= (double)count[k];
    }
    const int bound[] = {-1, t->max_wavefronts, t->max_conflicts, t->max_ways};
    char req[96] = "";
    for (size_t f = FIELD_WAVEFRONTS, n = 0; f <= FIELD_WAYS; f++)
        if (bound[f] >= 0)
            n += bl_fmt(req + n, sizeof req - n, "%s%s <= %d", n ? " " : "", field_name[f],
                        bound[f]);
    char *names[PATTERN_MAX_PARAMS];
    for (int k = 0; k < s->nparams; k++)
        names[k] = s->params[k].name;
    struct lesson_binding b = {s->nparams, names, vals, NULL};
    struct scene_run r = {0};
    int ntypes = s->ntypes > 0 ? s->ntypes : 1;
    int solved_default = 0, solvable = 0, searched_all = space <= TASK_SEARCH_MAX;
    for (int ti = 0; ti < ntypes && !solvable; ti++) {
        struct scene_in in = {.scene = s, .type = ti, .access = -1, .warp = -1};
        if (scene_run(&r, &in, NULL, NULL, NULL) || t->access >= r.naccess)
            continue;
        in.bind = &b;
        in.access = t->access;
        for (int k = 0; k < s->nparams; k++)
            vals[k] = s->params[k].def;
        if (ti == 0 && task_try(C, t, &r, &in) == 1)
            solved_default = 1;
        if (searched_all) {
            /* every combination: an odometer over the parameters */
            long long idx[PATTERN_MAX_PARAMS] = {0};
            for (;;) {
                for (int k = 0; k < s->nparams; k++)
                    vals[k] = s->params[k].min + idx[k] * s->params[k].step;
                if (task_try(C, t, &r, &in) == 1) {
                    solvable = 1;
                    break;
                }
                int k = 0;
                while (k < s->nparams && ++idx[k] >= count[k])
                    idx[k++] = 0;
                if (k == s->nparams)
                    break;
            }
        } else {
            /* too many: one parameter at a time, the others at their defaults */
            for (int k = 0; k < s->nparams && !solvable; k++) {
                long long stride = count[k] > TASK_SEARCH_MAX ? count[k] / TASK_SEARCH_MAX : 1;
                for (long long i = 0; i < count[k] && !solvable; i += stride) {
                    for (int q = 0; q < s->nparams; q++)
                        vals[q] = s->params[q].def;
                    vals[k] = s->params[k].min + i * s->params[k].step;
                    solvable = task_try(C, t, &r, &in) == 1;
                }
            }
        }
    }
    scene_run_free(&r);
    if (!solvable && C->budget <= 0)
        return;   /* not searched to the end: no verdict */
    if (solved_default)
        lesson_problem(&C->P, 0, NULL,
                       "steps[%d].task: already solved at the defaults "
                       "(%s); nothing to find", si, req);
    else if (!solvable)
        lesson_problem(&C->P, 0, NULL,
                       "steps[%d].task: no parameter values within the ranges give %s%s", si,
                       req, searched_all ? "" : " (searched one parameter at a time)");
}

/* A number quiz about a figure its step quotes accepts what the text's roundings give: when
 * the step quotes the figure more finely (2.15) than the answer it asks for (2.2, at the
 * coarsest quote's precision), every number at that precision that the finer quote rounds to
 * (2.1 and 2.2) is within the tolerance. */
static void check_quiz_figures(struct chk *C, int si, const struct lesson_step *st)
{
    const struct lesson_quiz *q = st->quiz;
    if (!q || q->kind != QUIZ_NUMBER)
        return;
    int coarse = -1;
    for (int k = 0; k < st->nfigures; k++) {
        const struct lesson_figure *f = &st->figures[k];
        double half = 0.5 * pow(10.0, -f->decimals);
        if (fabs(f->value - q->number) <= half + q->tolerance + 1e-9 &&
            (coarse < 0 || f->decimals < coarse))
            coarse = f->decimals;
    }
    if (coarse < 0 || coarse > 9)
        return;
    double unit = pow(10.0, -coarse);
    for (int k = 0; k < st->nfigures; k++) {
        const struct lesson_figure *f = &st->figures[k];
        if (f->decimals <= coarse ||
            fabs(f->value - q->number) > 0.5 * unit + q->tolerance + 1e-9)
            continue;
        for (double v = floor(f->value / unit) * unit; v <= f->value + unit; v += unit)
            if (fabs(v - f->value) <= 0.5 * unit + 1e-9 &&
                fabs(v - q->number) > q->tolerance + 1e-9) {
                lesson_problem(&C->P, 0, NULL,
                               "steps[%d].quiz.answer: %.*f is refused (answer %g, tolerance %g), "
                               "but the step quotes %s, which rounds to it at %d decimal%s",
                               si, coarse, v, q->number, q->tolerance, f->text, coarse,
                               coarse == 1 ? "" : "s");
                return;
            }
    }
}

int lesson_check(const struct lesson *l,
                 void (*report)(const struct lesson_error *e, void *ctx), void *ctx)
{
    if (!l)
        return 0;
    struct chk C = {TASK_BUDGET, {l->path, report, ctx, 0, NULL, 0}};
    for (int i = 0; i < l->nsteps; i++) {
        const struct lesson_step *st = &l->steps[i];
        check_quiz_figures(&C, i, st);
        if (!st->scene || !st->scene->code)
            continue;
        for (int k = 0; k < st->nexpects; k++)
            check_expect(&C, i, k, st->scene, &st->expects[k]);
        if (st->quiz)
            check_quiz(&C, i, st->scene, st->quiz);
        if (st->task)
            check_task(&C, i, st->scene, st->task);
    }
    lesson_problems_end(&C.P);
    return C.P.n;
}

