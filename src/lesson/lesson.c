/* lesson.c: what every user of a lesson in memory shares: the zh/en picker, the language
 * from the locale, freeing a lesson and its parts, and the problem list of lessons
 * (lesson_problem), used by the loader in src/store and by the checker. No cJSON, no files;
 * never prints, never exits. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../base/fmt.h"
#include "lesson.h"
#include "../sys/sys.h"

const char *lesson_tr(const struct lesson_text *t, enum lesson_lang lang)
{
    if (!t)
        return "";
    const char *a = lang == LANG_ZH ? t->zh : t->en;
    const char *b = lang == LANG_ZH ? t->en : t->zh;
    return a && a[0] ? a : b ? b : "";
}

const char *lesson_lang_code(enum lesson_lang lang)
{
    static const char *const code[] = {[LANG_EN] = "en", [LANG_ZH] = "zh"};
    return code[lang == LANG_ZH ? LANG_ZH : LANG_EN];
}

int lesson_lang_parse(const char *code, enum lesson_lang *out)
{
    if (!code || (strcmp(code, "zh") && strcmp(code, "en")))
        return -1;
    *out = strcmp(code, "zh") ? LANG_EN : LANG_ZH;
    return 0;
}

enum lesson_lang lesson_lang_from_env(void)
{
    const char *v[] = {"LC_ALL", "LC_MESSAGES", "LANG"};
    for (int i = 0; i < 3; i++) {
        const char *s = sys_env(v[i]);
        if (s && *s)
            return !strncmp(s, "zh", 2) ? LANG_ZH : LANG_EN;
    }
    return LANG_EN;
}

void lesson_text_free(struct lesson_text *t)
{
    if (!t)
        return;
    free(t->zh);
    free(t->en);
}

void lesson_binding_free(struct lesson_binding *b)
{
    if (!b)
        return;
    for (int k = 0; k < b->nvalues; k++)
        free(b->names[k]);
    free(b->names);
    free(b->values);
    free(b->type);
}

void lesson_scene_free(struct lesson_scene *s)
{
    if (!s)
        return;
    free(s->code);
    for (int k = 0; k < s->ntypes; k++)
        free(s->types[k]);
    free(s->types);
    for (int k = 0; k < s->nparams; k++) {
        free(s->params[k].name);
        lesson_text_free(&s->params[k].label);
    }
    free(s->params);
    free(s->kernel);
    free(s->sweep);
    free(s);
}

static void lesson_quiz_free(struct lesson_quiz *q)
{
    if (!q)
        return;
    lesson_text_free(&q->question);
    for (int k = 0; k < q->nchoices; k++)
        lesson_text_free(&q->choices[k]);
    free(q->choices);
    free(q->choice_values);
    lesson_text_free(&q->explanation);
    lesson_binding_free(&q->check.bind);
    free(q);
}

static void lesson_clear(struct lesson *l)
{
    free(l->path);
    free(l->id);
    lesson_text_free(&l->title);
    for (int i = 0; i < l->nsteps; i++) {
        struct lesson_step *st = &l->steps[i];
        free(st->id);
        lesson_text_free(&st->title);
        lesson_text_free(&st->text);
        lesson_text_free(&st->key);
        lesson_scene_free(st->scene);
        for (int k = 0; k < st->nhints; k++)
            lesson_text_free(&st->hints[k]);
        free(st->hints);
        lesson_quiz_free(st->quiz);
        for (int k = 0; k < st->nexpects; k++)
            lesson_binding_free(&st->expects[k].bind);
        free(st->expects);
        if (st->task)
            lesson_text_free(&st->task->goal);
        free(st->task);
        for (int k = 0; k < st->nfigures; k++)
            lesson_figure_free(&st->figures[k]);
        free(st->figures);
    }
    free(l->steps);
}

void lesson_free(struct lesson *l)
{
    if (!l)
        return;
    lesson_clear(l);
    free(l);
}

void lesson_set_done(struct lesson_set *set)
{
    if (!set)
        return;
    for (int i = 0; i < set->nlessons; i++)
        lesson_clear(&set->lessons[i]);
    free(set->lessons);
    memset(set, 0, sizeof *set);
}

void lesson_figure_free(struct lesson_figure *f)
{
    if (!f)
        return;
    free(f->group);
    free(f->label);
    free(f->field);
    free(f->over);
    memset(f, 0, sizeof *f);
}

/* One problem to P->report, its place at (0: by its path) turned into line:col of P->text:
 * its message m after path; msg its English text. */
static void lesson_report(struct lesson_problems *P, int at, const char *path,
                          const struct bl_msg *m, const char *msg)
{
    struct lesson_error e = {.line = 0};
    bl_err_clear(&e.err);
    bl_fmt(e.file, sizeof e.file, "%s", P->file ? P->file : "(lesson)");
    bl_fmt(e.path, sizeof e.path, "%s", path ? path : "");
    bl_fail(&e.err, -1, at > 0 ? BL_AT(at - 1, 1, -1) : BL_NOWHERE, BL_TEXT, msg);
    e.err.why = *m;
    if (at > 0 && P->text) {
        e.line = e.col = 1;
        for (size_t i = 0; i + 1 < (size_t)at && i < P->len; i++) {
            if (P->text[i] == '\n') {
                e.line++;
                e.col = 1;
            } else if (((unsigned char)P->text[i] & 0xC0) != 0x80) {
                e.col++;
            }
        }
    }
    P->report(&e, P->ctx);
}

void lesson_problem(struct lesson_problems *P, int at, const char *path, int id, ...)
{
    if (P->n++ >= LESSON_PROBLEMS_SHOWN || !P->report)
        return;  /* past the cap a problem is counted, not shown */
    char msg[BL_ERR_TEXT];
    size_t n = path && *path ? bl_fmt(msg, sizeof msg, "%s: ", path) : 0;
    struct bl_msg m;
    va_list ap;
    va_start(ap, id);
    bl_msg_vset(&m, msg + n, sizeof msg - n, id, ap);
    va_end(ap);
    lesson_report(P, at, path, &m, msg);
}

void lesson_problem_err(struct lesson_problems *P, int at, const char *path,
                        const struct bl_err *e)
{
    if (P->n++ >= LESSON_PROBLEMS_SHOWN || !P->report)
        return;
    char msg[BL_ERR_TEXT];
    size_t n = path && *path ? bl_fmt(msg, sizeof msg, "%s: ", path) : 0;
    bl_fmt(msg + n, sizeof msg - n, "%s", e->msg);
    struct bl_msg m;
    bl_err_msg(e, &m);
    lesson_report(P, at, path, &m, msg);
}

const char *lesson_error_text(const struct lesson_error *e, enum bl_lang lang, char *buf,
                              size_t n)
{
    char said[BL_ERR_TEXT * 2];
    const char *msg = e->err.msg;
    if (lang != BL_LANG_EN && e->err.why.id != BL_MSG_NONE) {
        size_t k = e->path[0] ? bl_fmt(said, sizeof said, "%s%s", e->path,
                                       bl_msg_format(BL_COLON, lang)) : 0;
        bl_msg_render(&e->err.why, lang, said + k, sizeof said - k);
        msg = said;
    }
    if (e->line > 0)
        bl_fmt(buf, n, "%s:%d:%d%s%s", e->file, e->line, e->col, bl_msg_format(BL_COLON, lang),
               msg);
    else
        bl_fmt(buf, n, "%s%s%s", e->file, bl_msg_format(BL_COLON, lang), msg);
    return buf;
}

const char *lesson_error_line(const struct lesson_error *e, char *buf, size_t n)
{
    return lesson_error_text(e, BL_LANG_EN, buf, n);
}

void lesson_problems_end(struct lesson_problems *P)
{
    if (P->n <= LESSON_PROBLEMS_SHOWN || !P->report)
        return;
    char msg[64];
    struct bl_msg m;
    bl_msg_set(&m, msg, sizeof msg, LP_MORE_NOT_SHOWN, P->n - LESSON_PROBLEMS_SHOWN);
    lesson_report(P, 0, NULL, &m, msg);
}
