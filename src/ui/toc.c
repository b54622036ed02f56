/* toc.c: the table of contents (c): every chapter and step with its quiz mark (? not answered
 * yet, right, wrong); the cursor starts on the current step, Enter goes to the step under it.
 * Its state (cursor, first row shown) is private to this file. Drawing does not allocate. */
#include <stdio.h>
#include <string.h>

#include "app.h"

#include "../lesson/report.h"

struct toc {
    int cursor;               /* entry under the cursor (chapter lines count) */
    int top;                  /* first entry shown */
};

static int toc_count(const struct app *a)
{
    int n = 0;
    for (int i = 0; i < a->set.nlessons; i++)
        n += 1 + a->set.lessons[i].nsteps;
    return n;
}

/* entry k -> lesson, step (-1 for the chapter line) */
static void toc_entry(const struct app *a, int k, int *li, int *si)
{
    for (int i = 0; i < a->set.nlessons; i++) {
        int n = 1 + a->set.lessons[i].nsteps;
        if (k < n) {
            *li = i;
            *si = k - 1;
            return;
        }
        k -= n;
    }
    *li = *si = -1;
}

static int toc_index(const struct app *a, int li, int si)
{
    int k = 0;
    for (int i = 0; i < li; i++)
        k += 1 + a->set.lessons[i].nsteps;
    return k + 1 + si;
}

/* the first entry shown: t->top, moved just enough to show the cursor in rows rows */
static int toc_top(const struct toc *t, int rows)
{
    int top = t->top;
    if (t->cursor < top)
        top = t->cursor;
    if (t->cursor >= top + rows)
        top = t->cursor - rows + 1;
    return top;
}

static int toc_enter(struct app *a, void *st)
{
    struct toc *t = st;
    if (!a->have_lessons) {
        app_msg(a, 0, "no lessons loaded");
        return -1;
    }
    t->cursor = toc_index(a, a->li, a->si);
    t->top = toc_top(t, a->H - 3);
    return 0;
}

static const struct progress_quiz *quiz_of(const struct app *a, const char *lid, const char *sid)
{
    for (int i = 0; i < a->prog.nquiz; i++)
        if (!strcmp(a->prog.quiz[i].lesson_id, lid) && !strcmp(a->prog.quiz[i].step_id, sid))
            return &a->prog.quiz[i];
    return NULL;
}

/* one entry's line: a chapter, or a step with the current-step and quiz marks */
static attr_t toc_line(const struct app *a, int k, char *buf, size_t size)
{
    int li, si;
    toc_entry(a, k, &li, &si);
    const struct lesson *l = &a->set.lessons[li];
    if (si < 0) {
        snprintf(buf, size, "%2d  %s", l->chapter, lesson_tr(&l->title, a->lang));
        return theme_attr(a, UIC_HEADER) | A_BOLD;
    }
    const struct lesson_step *st = &l->steps[si];
    char task_id[PROGRESS_ID_MAX];   /* a task's result is saved as banklab lab saves it */
    snprintf(task_id, sizeof task_id, "%s%s", REPORT_TASK_PREFIX, l->id);
    const struct progress_quiz *q = st->quiz   ? quiz_of(a, l->id, st->id)
                                    : st->task ? quiz_of(a, task_id, st->id)
                                               : NULL;
    const char *mark = !st->quiz && !st->task ? " "
                       : !q                   ? "?"
                       : q->correct           ? a->g->right
                                              : a->g->wrong;
    snprintf(buf, size, "%s %2d.%-2d %s %s", li == a->li && si == a->si ? ">" : " ", l->chapter,
             si + 1, mark, lesson_tr(&st->title, a->lang));
    return A_NORMAL;
}

static void toc_draw(const struct app *a, const void *st)
{
    const struct toc *t = st;
    int W = a->W, rows = a->H - 3;
    app_title(a, ui_str(a, UIS_TOC_TITLE), "");
    int n = toc_count(a), top = toc_top(t, rows);
    char buf[UI_MSG_MAX];
    for (int r = 0; r < rows && top + r < n; r++) {
        attr_t at = toc_line(a, top + r, buf, sizeof buf);
        if (top + r == t->cursor) {
            text_fill(1 + r, 0, W, theme_attr(a, UIC_CURSOR));
            at = theme_attr(a, UIC_CURSOR);
        }
        text_puts(a, 1 + r, 1, W - 2, buf, at);
    }
    app_keybar_for(a, KS_TOC, NULL);
}

static enum ui_result toc_key(struct app *a, void *st, const struct ui_key *k)
{
    struct toc *t = st;
    int n = toc_count(a);
    switch (k->action) {
    case ACT_UP: t->cursor--; break;
    case ACT_DOWN: t->cursor++; break;
    case ACT_PGUP: t->cursor -= a->H - 4; break;
    case ACT_PGDN: t->cursor += a->H - 4; break;
    case ACT_HOME: t->cursor = 0; break;
    case ACT_END: t->cursor = n - 1; break;
    case ACT_GO: {
        int li, si;
        toc_entry(a, t->cursor, &li, &si);
        app_goto(a, li, si < 0 ? 0 : si);
        return UI_HANDLED;
    }
    default:
        return UI_IGNORED;    /* Esc and c (back) are the loop's */
    }
    if (t->cursor < 0)
        t->cursor = 0;
    if (t->cursor >= n)
        t->cursor = n - 1;
    t->top = toc_top(t, a->H - 3);
    return UI_HANDLED;
}

const struct ui_screen screen_toc = {
    .name = "contents", .state_size = sizeof(struct toc), .enter = toc_enter, .draw = toc_draw,
    .key = toc_key, .keys = KS_TOC,
};
