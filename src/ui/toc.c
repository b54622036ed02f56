/* toc.c: the table of contents (c): every chapter with the steps done of those that ask
 * something, every step with its mark (done, answered wrong, waiting for an answer), the
 * overall progress in the title and what the marks mean under the list; the cursor starts on
 * the current step, Enter goes to the step under it. Its state (cursor, first row shown) is
 * private to this file. Drawing does not allocate. */
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "quiz.h"

struct toc {
    int cursor;               /* entry under the cursor (chapter lines count) */
    int top;                  /* first entry shown */
};

/* rows of the list: all but the title, the legend and the key bar */
static int toc_rows(const struct app *a)
{
    return a->H - 3;
}

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
    return ui_follow(t->top, t->cursor, rows);
}

static int toc_enter(struct app *a, void *st)
{
    struct toc *t = st;
    if (!a->have_lessons) {
        app_msg(a, 0, "%s", ui_str(a, UIS_MSG_NO_LESSONS));
        return -1;
    }
    t->cursor = toc_index(a, a->li, a->si);
    t->top = toc_top(t, toc_rows(a));
    return 0;
}

/* a step's mark: done at the first try, done after a wrong try (or a reveal), answered wrong
 * (a quiz's last answer), revealed without an answer, waiting, or nothing to do */
static const char *step_mark(const struct app *a, int li, int si)
{
    const struct lesson *l = &a->set.lessons[li];
    const struct lesson_step *st = &l->steps[si];
    int state = app_step_state(a, li, si);
    if (state < 0)
        return " ";
    if (state > 0)
        return state == 2 ? a->g->right : a->g->late;
    const struct progress_quiz *q = st->quiz ? app_record(a, l, st, 0) : NULL;
    if (q && !strcmp(q->given, QUIZ_REVEALED))
        return a->g->revealed;   /* seen without an answer: not answered wrong */
    return q ? a->g->wrong : a->g->todo;
}

/* one entry's line: a chapter with its steps done, or a step with the current-step mark and
 * its own; *right: what goes at the right end ("" for none) */
static attr_t toc_line(const struct app *a, int k, char *buf, size_t size, char *right,
                       size_t rsize)
{
    int li, si;
    toc_entry(a, k, &li, &si);
    const struct lesson *l = &a->set.lessons[li];
    right[0] = 0;
    if (si < 0) {
        int done, first, total;
        app_chapter_score(a, li, &done, &first, &total);
        snprintf(buf, size, "%2d  %s", l->chapter, lesson_tr(&l->title, a->lang));
        if (total)
            snprintf(right, rsize, ui_str(a, UIS_TOC_CHAPTER), done, total, first);
        return theme_attr(a, UIC_HEADER) | A_BOLD;
    }
    const struct lesson_step *st = &l->steps[si];
    snprintf(buf, size, "%s %2d.%-2d %s %s", li == a->li && si == a->si ? ">" : " ", l->chapter,
             si + 1, step_mark(a, li, si), lesson_tr(&st->title, a->lang));
    return A_NORMAL;
}

static void toc_draw(const struct app *a, const void *st)
{
    const struct toc *t = st;
    int W = a->W, rows = toc_rows(a);
    char buf[UI_MSG_MAX], right[160];
    int done, first, total;
    app_progress(a, &done, &first, &total);
    int steps = 0;
    for (int i = 0; i < a->set.nlessons; i++)
        steps += a->set.lessons[i].nsteps;
    /* the count `banklab report` gives: of the steps that ask something, and of all */
    snprintf(right, sizeof right, ui_str(a, UIS_TOC_DONE), done, total, steps, first);
    app_title(a, ui_str(a, UIS_TOC_TITLE), right);
    int n = toc_count(a), top = toc_top(t, rows);
    for (int r = 0; r < rows && top + r < n; r++) {
        attr_t at = toc_line(a, top + r, buf, sizeof buf, right, sizeof right);
        if (top + r == t->cursor) {
            text_fill(1 + r, 0, W, theme_attr(a, UIC_CURSOR));
            at = theme_attr(a, UIC_CURSOR);
        }
        int rw = right[0] ? text_width(right) + 2 : 0;
        text_puts(a, 1 + r, 1, W - 2 - rw, buf, at);
        if (rw)
            text_puts(a, 1 + r, W - rw, rw - 1, right, at);
    }
    snprintf(buf, sizeof buf, ui_str(a, UIS_TOC_LEGEND), a->g->right, a->g->late, a->g->wrong,
             a->g->revealed, a->g->todo);
    text_puts(a, a->H - 2, 1, W - 2, buf, theme_attr(a, UIC_DIM));
    app_keybar(a, KS_TOC, NULL, 0);
}

static enum ui_result toc_key(struct app *a, void *st, const struct ui_key *k)
{
    struct toc *t = st;
    int n = toc_count(a);
    switch (k->action) {
    case ACT_UP: t->cursor--; break;
    case ACT_DOWN: t->cursor++; break;
    case ACT_PGUP: t->cursor -= toc_rows(a) - 1; break;
    case ACT_PGDN: t->cursor += toc_rows(a) - 1; break;
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
    t->top = toc_top(t, toc_rows(a));
    return UI_HANDLED;
}

const struct ui_screen screen_toc = {
    .name = "contents", .state_size = sizeof(struct toc), .enter = toc_enter, .draw = toc_draw,
    .key = toc_key, .keys = KS_TOC,
};
