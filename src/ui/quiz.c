/* quiz.c: the step's quiz (quiz.h): answering a choice (1-9) or a number (digits, '.', '-',
 * Backspace, Enter), recording the answer in the progress, and the question, choices, verdict
 * and explanation as blocks of the tutor's reading area (flow.c). Does not allocate. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quiz.h"

void quiz_load(struct quiz *q, const struct app *a, const struct lesson *l,
               const struct lesson_step *st)
{
    memset(q, 0, sizeof *q);
    q->choice = -1;
    if (!st || !st->quiz)
        return;
    const struct progress_quiz *p = app_record(a, l, st, 0);
    if (!p || p->attempts <= 0)
        return;
    if (!strcmp(p->given, QUIZ_REVEALED)) {   /* seen without an answer: no verdict */
        q->revealed = 1;
        return;
    }
    q->answered = 1;
    q->correct = p->correct;
    q->first_right = p->first_correct;
    if (st->quiz->kind == QUIZ_CHOICE) {      /* mark the choice given then */
        q->choice = atoi(p->given) - 1;
    } else {                                  /* and show the number given then */
        snprintf(q->input, sizeof q->input, "%s", p->given);
        q->submitted = 1;
    }
}

int quiz_hidden(const struct quiz *q, const struct lesson_step *st)
{
    return st && st->quiz && st->quiz->predict && !q->answered && !q->revealed;
}

int quiz_pending(const struct quiz *q)
{
    return q->input[0] && !q->submitted;
}

unsigned quiz_modes(const struct quiz *q, const struct lesson_step *st)
{
    if (!st || !st->quiz)
        return 0;
    if (st->quiz->kind == QUIZ_CHOICE)
        return KS_CHOICE;
    return q->answered && q->correct ? 0 : KS_NUMBER;
}

static void record(struct app *a, struct quiz *q, const struct lesson *l,
                   const struct lesson_step *st, int correct, const char *given)
{
    progress_record_quiz(&a->prog, l->id, st->id, correct, given);
    q->answered = 1;
    q->correct = correct;
    const struct progress_quiz *p = app_record(a, l, st, 0);
    q->first_right = p && p->first_correct;   /* the grade is the progress's, not this visit's */
    app_save_soon(a);
}

void quiz_reveal(struct app *a, struct quiz *q, const struct lesson *l,
                 const struct lesson_step *st)
{
    if (st->quiz && !q->answered && !q->revealed) {
        progress_record_quiz(&a->prog, l->id, st->id, 0, QUIZ_REVEALED);
        app_save_soon(a);
    }
    q->revealed = 1;
}

static void answer_choice(struct app *a, struct quiz *q, const struct lesson *l,
                          const struct lesson_step *st, int k)
{
    const struct lesson_quiz *lq = st->quiz;
    if (k < 0 || k >= lq->nchoices) {
        app_msg(a, 0, "%s 1-%d", ui_str(a, UIS_CHOOSE), lq->nchoices);
        return;
    }
    q->choice = k;
    char given[16];
    snprintf(given, sizeof given, "%d", k + 1);
    record(a, q, l, st, k == lq->answer, given);
}

static void answer_number(struct app *a, struct quiz *q, const struct lesson *l,
                          const struct lesson_step *st)
{
    const struct lesson_quiz *lq = st->quiz;
    char *end;
    double v = strtod(q->input, &end);
    if (end == q->input || *end) {
        app_msg(a, 1, "%s", ui_str(a, UIS_NUMBER));
        return;
    }
    q->submitted = 1;
    record(a, q, l, st, fabs(v - lq->number) <= lq->tolerance + 1e-9, q->input);
}

/* Enter with nothing typed: on a quiz not answered yet it answers nothing and says what to
 * do (a predict step is revealed only with e; presenter mode reveals with Enter too).
 * 1 when Enter stops here. */
static int empty_enter(struct app *a, const struct quiz *q, const struct lesson_step *st)
{
    const struct lesson_quiz *lq = st->quiz;
    if (q->answered || a->opt.present)
        return 0;
    if (lq->kind == QUIZ_CHOICE && !quiz_hidden(q, st))
        return 0;                  /* Enter goes on, as n does */
    enum ui_str say = lq->kind == QUIZ_CHOICE ? UIS_CHOICE_PREDICT
                      : quiz_hidden(q, st)    ? UIS_NUMBER_PREDICT
                                              : UIS_NUMBER;
    app_msg(a, 0, "%s", ui_str(a, say));
    return 1;
}

int quiz_key(struct app *a, struct quiz *q, const struct lesson *l, const struct lesson_step *st,
             const struct ui_key *k)
{
    if (!st->quiz)
        return 0;
    switch (k->action) {
    case ACT_CHOICE:
        answer_choice(a, q, l, st, k->key - '1');
        return 1;
    case ACT_DIGIT: {
        if (q->submitted) {        /* a new answer starts over */
            q->input[0] = 0;
            q->submitted = 0;
        }
        size_t n = strlen(q->input);
        if (n + 1 < sizeof q->input) {
            q->input[n] = (char)k->key;
            q->input[n + 1] = 0;
        }
        return 1;
    }
    case ACT_RUBOUT: {
        size_t n = strlen(q->input);
        if (n == 0)
            return 0;
        q->input[n - 1] = 0;
        q->submitted = 0;
        return 1;
    }
    case ACT_ENTER:
        if (!quiz_pending(q))
            return empty_enter(a, q, st);   /* else Enter's other meanings: reveal, next */
        if (!(quiz_modes(q, st) & KS_NUMBER))
            return 0;
        answer_number(a, q, l, st);
        return 1;
    default:
        return 0;
    }
}

/* the right answer as a value: the right choice's text, or the number (with its tolerance).
 * Writes into buf (always terminated) and returns buf. */
static const char *quiz_answer_text(const struct app *a, const struct lesson_quiz *lq, char *buf,
                             size_t size)
{
    if (lq->kind == QUIZ_CHOICE && lq->answer >= 0 && lq->answer < lq->nchoices)
        snprintf(buf, size, "%s", lesson_tr(&lq->choices[lq->answer], a->lang));
    else if (lq->kind == QUIZ_CHOICE)
        snprintf(buf, size, "?");
    else if (lq->tolerance > 0)
        snprintf(buf, size, "%g %s %g", lq->number, a->g->utf8 ? "\u00b1" : "+-", lq->tolerance);
    else
        snprintf(buf, size, "%g", lq->number);
    return buf;
}

/* the line after the question: the verdict with the answer as a value, or "revealed" */
static const char *verdict_text(const struct app *a, const struct quiz *q,
                                const struct lesson_quiz *lq, char *buf, size_t size)
{
    char value[UI_MSG_MAX / 2];
    if (!q->answered)
        snprintf(buf, size, "%s", ui_str(a, UIS_REVEALED));
    else
        snprintf(buf, size, "%s %s%s%s%s%s", q->correct ? a->g->right : a->g->wrong,
                 ui_str(a, !q->correct ? UIS_WRONG : q->first_right ? UIS_RIGHT : UIS_RIGHT_LATE),
                 ui_str(a, UIS_PAREN),
                 ui_str(a, UIS_ANSWER), quiz_answer_text(a, lq, value, sizeof value),
                 ui_str(a, UIS_PAREN_CLOSE));
    return buf;
}

/* the question and its choices (the one chosen marked >, the right one once shown), or the
 * number typed */
static void flow_question(const struct app *a, const struct quiz *q, struct flow *f, int x,
                          int w, const struct lesson_quiz *lq)
{
    attr_t qa = theme_attr(a, UIC_QUIZ);
    int i = flow_add(f, lesson_tr(&lq->question, a->lang), x + 2, w - 2, qa);
    flow_label(f, i, "?", x, 2, qa);
    /* a quiz about another access than the one drawn says so, in every mode */
    const struct ui_scene *s = &a->sc;
    const struct pattern_access_info *ai =
        lq->check.field != FIELD_NONE && s->parsed && s->run.pat && lq->check.access != s->access
            ? pattern_access(s->run.pat, lq->check.access)
            : NULL;
    if (ai)
        flow_add(f, flow_fmt(f, ui_str(a, UIS_QUIZ_ACCESS), lq->check.access + 1, s->naccess,
                             ai->kind == PATTERN_STORE ? "store" : "load", ai->array,
                             s->access + 1),
                 x + 2, w - 2, theme_attr(a, UIC_DIM));
    if (lq->kind != QUIZ_CHOICE) {
        flow_add(f, flow_fmt(f, "%s%s%s", ui_str(a, UIS_ANSWER_PROMPT), q->input,
                             q->submitted ? "" : "_"),
                 x + 2, w - 2, theme_attr(a, UIC_KEY));
        return;
    }
    for (int c = 0; c < lq->nchoices; c++) {
        int chosen = q->answered && q->choice == c;
        int right = (q->answered || q->revealed) && c == lq->answer;
        enum ui_role role = right ? UIC_RIGHT : chosen ? UIC_WRONG : UIC_NORMAL;
        int k = flow_add(f, lesson_tr(&lq->choices[c], a->lang), x + 5, w - 5, theme_attr(a, role));
        flow_label(f, k, flow_fmt(f, "%s%d)", chosen ? ">" : right ? a->g->right : " ", c + 1),
                   x + 1, 4, theme_attr(a, UIC_KEY));
    }
}

int quiz_flow_verdict(const struct app *a, const struct quiz *q, struct flow *f, int x, int w,
                      const struct lesson_quiz *lq, const char *note)
{
    char buf[UI_MSG_MAX];
    if (!q->answered && !q->revealed)
        return -1;
    enum ui_role role = !q->answered ? UIC_DIM : q->correct ? UIC_RIGHT : UIC_WRONG;
    int v = flow_add(f, flow_fmt(f, "%s", verdict_text(a, q, lq, buf, sizeof buf)), x, w,
                     theme_attr(a, role));
    if (note && *note)
        flow_add(f, flow_fmt(f, "%s", note), x + 2, w - 2, theme_attr(a, UIC_KEY));
    flow_add(f, lesson_tr(&lq->explanation, a->lang), x + 2, w - 2, A_NORMAL);
    return v;
}

int quiz_flow(const struct app *a, const struct quiz *q, struct flow *f, int x, int w,
              const struct lesson_quiz *lq, const char *note)
{
    flow_question(a, q, f, x, w, lq);
    if (q->answered || q->revealed)
        return quiz_flow_verdict(a, q, f, x, w, lq, note);
    enum ui_str prompt = lq->kind == QUIZ_CHOICE
                             ? (lq->predict ? UIS_CHOICE_PREDICT : UIS_CHOICE)
                             : (lq->predict ? UIS_NUMBER_PREDICT : UIS_NUMBER);
    return flow_add(f, ui_str(a, prompt), x, w, theme_attr(a, UIC_DIM));
}
