/* entry.c: typing a lesson parameter's value (entry.h). No curses calls; no allocation. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "entry.h"

void entry_open(struct app *a, struct entry *e, const struct ui_scene *s)
{
    memset(e, 0, sizeof *e);
    if (!s->ls || s->ls->nparams == 0) {
        app_msg(a, 0, "%s", ui_str(a, UIS_NO_PARAM));
        return;
    }
    e->on = 1;
}

/* Enter: the typed text as a whole number in range sets the parameter */
static void set(struct app *a, struct entry *e, struct ui_scene *s)
{
    const struct lesson_param *p = &s->ls->params[e->param];
    char *end;
    errno = 0;
    long long v = strtoll(e->text, &end, 10);
    if (!e->text[0] || *end || errno || v < p->min || v > p->max) {
        app_msg(a, 1, "%s %s %lld..%lld", p->name, ui_str(a, UIS_TAKES), p->min, p->max);
        return;
    }
    e->on = 0;
    scene_set_param(a, s, e->param, v);
}

int entry_key(struct app *a, struct entry *e, struct ui_scene *s, const struct ui_key *k)
{
    if (!e->on || !s->ls)
        return 0;
    size_t n = strlen(e->text);
    switch (k->action) {
    case ACT_DIGIT:
        if (n + 1 < sizeof e->text && (k->key != '-' || n == 0)) {
            e->text[n] = (char)k->key;
            e->text[n + 1] = 0;
        }
        return 1;
    case ACT_RUBOUT:
        if (n > 0)
            e->text[n - 1] = 0;
        return 1;
    case ACT_FIELD:
        e->param = (e->param + 1) % s->ls->nparams;
        e->text[0] = 0;
        return 1;
    case ACT_ENTER:
        set(a, e, s);
        return 1;
    case ACT_LEAVE:
        e->on = 0;
        return 1;
    default:
        return 0;
    }
}

void entry_text(const struct app *a, const struct entry *e, const struct ui_scene *s, char *buf,
                size_t size)
{
    const struct lesson_param *p = &s->ls->params[e->param];
    snprintf(buf, size, "%s = %s_  (%lld..%lld%s%s%lld)", p->name, e->text, p->min, p->max,
             a->g->sep, ui_str(a, UIS_NOW), s->value[e->param]);
}
