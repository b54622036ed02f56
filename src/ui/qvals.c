/* qvals.c: the values a step's quiz names (its check: parameters, element type, access; the
 * same setting `banklab check` holds the answer to) against the scene's own. Once the quiz is
 * answered or revealed the panel shows the question's values, so the grid and the numbers
 * agree with the verdict (5.1: "PAD = 1", 1 wavefront); Q goes to the scene's own values and
 * back. Part of the tutor screen (tutor.h); no curses calls here. */
#include <stdio.h>
#include <string.h>

#include "tutor.h"

static int nparams(const struct lesson_scene *ls)
{
    return ls->nparams < PATTERN_MAX_PARAMS ? ls->nparams : PATTERN_MAX_PARAMS;
}

/* the scene's defaults */
static void own_defaults(const struct lesson_scene *ls, struct qsetting *q)
{
    memset(q, 0, sizeof *q);
    for (int i = 0; i < nparams(ls); i++)
        q->v[i] = ls->params[i].def;
    q->access = ls->access;
}

/* the setting the quiz names: the scene's defaults with its check's binding and access; -1
 * when the quiz is no model fact of this scene */
static int quiz_setting(const struct app *a, const struct lesson_step *st, struct qsetting *q)
{
    const struct lesson_quiz *lq = st->quiz;
    const struct lesson_scene *ls = st->scene;
    if (!lq || !ls || a->sc.ls != ls || lq->check.field == FIELD_NONE)
        return -1;
    own_defaults(ls, q);
    const struct lesson_binding *b = &lq->check.bind;
    for (int j = 0; j < b->nvalues; j++)
        for (int i = 0; i < nparams(ls); i++)
            if (b->names && b->names[j] && !strcmp(b->names[j], ls->params[i].name))
                q->v[i] = b->values[j];
    for (int k = 0; b->type && k < ls->ntypes; k++)
        if (!strcmp(b->type, ls->types[k]))
            q->type = k;
    q->access = lq->check.access;
    return 0;
}

static void current(const struct app *a, struct qsetting *q)
{
    memset(q, 0, sizeof *q);
    for (int i = 0; i < nparams(a->sc.ls); i++)
        q->v[i] = a->sc.value[i];
    q->type = a->sc.ls->ntypes > 1 ? a->sc.type_index : 0;
    q->access = a->sc.access;
}

static int same(const struct lesson_scene *ls, const struct qsetting *x, const struct qsetting *y)
{
    for (int i = 0; i < nparams(ls); i++)
        if (x->v[i] != y->v[i])
            return 0;
    return x->type == y->type && x->access == y->access;
}

/* the quiz names a setting of this scene (its values may be the scene's defaults): in *q */
static int names_values(const struct app *a, const struct lesson_step *st, struct qsetting *q)
{
    return quiz_setting(a, st, q) == 0;
}

/* the setting Q goes back to from the question's values q: the one shown before them, or
 * the scene's defaults when that was q itself; 0 when there is none other than q */
static int other_setting(const struct lesson_scene *ls, const struct tutor *t,
                         const struct qsetting *q, struct qsetting *o)
{
    *o = t->own;
    if (same(ls, o, q))
        own_defaults(ls, o);
    return !same(ls, o, q);
}

int tutor_qvals(const struct app *a, const struct tutor *t, const struct lesson_step *st)
{
    struct qsetting q, now, o;
    if (!st || !(t->quiz.answered || t->quiz.revealed) || !names_values(a, st, &q))
        return QV_NONE;
    current(a, &now);
    if (!same(st->scene, &q, &now))
        return QV_OWN;
    return other_setting(st->scene, t, &q, &o) ? QV_QUIZ : QV_NONE;
}

int tutor_qvals_yours(const struct app *a, const struct tutor *t, const struct lesson_step *st)
{
    struct qsetting q, o, def;
    if (tutor_qvals(a, t, st) != QV_QUIZ || quiz_setting(a, st, &q) != 0)
        return 0;
    other_setting(st->scene, t, &q, &o);
    own_defaults(st->scene, &def);
    return !same(st->scene, &o, &def);
}

static void apply(struct app *a, struct tutor *t, const struct qsetting *q)
{
    struct ui_scene *s = &a->sc;
    for (int i = 0; i < nparams(s->ls); i++)
        s->value[i] = q->v[i];
    if (s->ls->ntypes > 1)
        s->type_index = q->type;
    s->access = q->access;
    scene_eval(a, s);
    scene_measure(a, s);
    grid_inspect_clamp(s, &t->insp);
    task_update(a, &t->task, &a->set.lessons[a->li], app_step(a));
}

void tutor_qvals_enter(struct app *a, struct tutor *t)
{
    memset(&t->own, 0, sizeof t->own);
    if (a->sc.ls)
        current(a, &t->own);
}

void tutor_qvals_show(struct app *a, struct tutor *t, const struct lesson_step *st)
{
    struct qsetting q, now;
    if (!(t->quiz.answered || t->quiz.revealed) || !names_values(a, st, &q))
        return;
    current(a, &now);
    if (!same(st->scene, &q, &now)) {     /* what was shown stays one key (Q) away */
        t->own = now;
        apply(a, t, &q);
    }
}

void tutor_qvals_key(struct app *a, struct tutor *t, const struct lesson_step *st)
{
    char key[16];
    struct qsetting q, o;
    keys_first(KS_TUTOR, ACT_QUIZ_VALUES, a->lang == LANG_ZH, key, sizeof key);
    int state = tutor_qvals(a, t, st);
    if (!a->sc.ls || !names_values(a, st, &q)) {
        app_msg(a, 0, "%s", ui_str(a, UIS_MSG_QV_NONE));
    } else if (!(t->quiz.answered || t->quiz.revealed)) {
        app_msg(a, 0, ui_str(a, UIS_MSG_QV_FIRST), key);
    } else if (state == QV_QUIZ) {
        other_setting(st->scene, t, &q, &o);
        apply(a, t, &o);
    } else if (state == QV_OWN) {
        current(a, &t->own);
        apply(a, t, &q);
    } else {                              /* the question's values are the only ones shown */
        app_msg(a, 0, "%s", ui_str(a, UIS_MSG_QV_NONE));
    }
}

/* the parts of x that differ from y: "PAD = 1", "float2, D = 2", "access 2" */
static const char *setting_text(const struct app *a, const struct lesson_scene *ls,
                                const struct qsetting *x, const struct qsetting *y, char *buf,
                                size_t size)
{
    size_t o = 0;
    const char *sep = ui_str(a, UIS_QV_SEP);
    buf[0] = 0;
    if (x->type != y->type && x->type < ls->ntypes)
        o += bl_fmt(buf + o, size - o, "%s", ls->types[x->type]);
    for (int i = 0; i < nparams(ls); i++)
        if (x->v[i] != y->v[i])
            o += bl_fmt(buf + o, size - o, "%s%s = %lld", o ? sep : "", ls->params[i].name,
                        x->v[i]);
    if (x->access != y->access) {
        o += bl_fmt(buf + o, size - o, "%s", o ? sep : "");
        o += bl_fmt(buf + o, size - o, ui_str(a, UIS_QV_ACCESS), x->access + 1);
    }
    return buf;
}

const char *tutor_qvals_note(const struct app *a, const struct tutor *t,
                             const struct lesson_step *st, char *buf, size_t size)
{
    char key[16], qs[UI_MSG_MAX / 4], os[UI_MSG_MAX / 4];
    struct qsetting q, now;
    int state = tutor_qvals(a, t, st);
    buf[0] = 0;
    if (state == QV_NONE || quiz_setting(a, st, &q) != 0)
        return buf;
    keys_first(KS_TUTOR, ACT_QUIZ_VALUES, a->lang == LANG_ZH, key, sizeof key);
    if (state == QV_QUIZ) {
        struct qsetting own;
        other_setting(st->scene, t, &q, &own);
        /* the setting Q goes to: the scene's defaults, or the learner's own */
        enum ui_str form = tutor_qvals_yours(a, t, st) ? UIS_QV_QUIZ_YOURS : UIS_QV_QUIZ;
        bl_fmt(buf, size, ui_str(a, form), setting_text(a, st->scene, &q, &own, qs, sizeof qs),
               key, setting_text(a, st->scene, &own, &q, os, sizeof os));
    } else {
        current(a, &now);
        bl_fmt(buf, size, ui_str(a, UIS_QV_OWN), setting_text(a, st->scene, &now, &q, os, sizeof os),
               key, setting_text(a, st->scene, &q, &now, qs, sizeof qs));
    }
    return buf;
}
