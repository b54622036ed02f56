/* quiz.c: the step's quiz (quiz.h): answering a choice (1-9) or a number (digits, '.', '-',
 * Backspace, Enter), recording the answer in the progress, and drawing question, choices,
 * verdict and explanation. The draw path does not allocate. */
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
    if (!st)
        return;
    for (int i = 0; i < a->prog.nquiz; i++) {
        const struct progress_quiz *p = &a->prog.quiz[i];
        if (!strcmp(p->lesson_id, l->id) && !strcmp(p->step_id, st->id) && p->attempts > 0) {
            q->answered = 1;
            q->correct = p->correct;
            if (st->quiz && st->quiz->kind == QUIZ_CHOICE)   /* mark the choice given then */
                q->choice = atoi(p->given) - 1;
        }
    }
}

int quiz_hidden(const struct quiz *q, const struct lesson_step *st)
{
    return st && st->quiz && st->quiz->predict && !q->answered && !q->revealed;
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
    app_save_soon(a);
}

static void answer_choice(struct app *a, struct quiz *q, const struct lesson *l,
                          const struct lesson_step *st, int k)
{
    const struct lesson_quiz *lq = st->quiz;
    if (k < 0 || k >= lq->nchoices) {
        app_msg(a, 0, "choose 1..%d", lq->nchoices);
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
        app_msg(a, 1, "type a number, then Enter");
        return;
    }
    record(a, q, l, st, fabs(v - lq->number) <= lq->tolerance + 1e-9, q->input);
}

int quiz_key(struct app *a, struct quiz *q, const struct lesson *l, const struct lesson_step *st,
             const struct ui_key *k)
{
    size_t n = strlen(q->input);
    switch (k->action) {
    case ACT_CHOICE:
        answer_choice(a, q, l, st, k->key - '1');
        return 1;
    case ACT_DIGIT:
        if (n + 1 < sizeof q->input) {
            q->input[n] = (char)k->key;
            q->input[n + 1] = 0;
        }
        return 1;
    case ACT_RUBOUT:
        if (n == 0)
            return 0;
        q->input[n - 1] = 0;
        return 1;
    case ACT_ENTER:
        if (n == 0 || !(quiz_modes(q, st) & KS_NUMBER))
            return 0;              /* Enter's other meanings: reveal, next */
        answer_number(a, q, l, st);
        q->input[0] = 0;
        return 1;
    default:
        return 0;
    }
}

int quiz_lines(const struct app *a, const struct quiz *q, const struct lesson_quiz *lq, int w,
               int full)
{
    int n = text_count(lesson_tr(&lq->question, a->lang), w - 2);
    if (!full && q->answered && q->correct) {   /* right: only the explanation */
        n = 0;
    } else if (lq->kind == QUIZ_CHOICE) {
        for (int i = 0; i < lq->nchoices; i++)
            n += text_count(lesson_tr(&lq->choices[i], a->lang), w - 6);
    } else {
        n += 1;
    }
    if (q->answered || q->revealed)
        n += 1 + text_count(lesson_tr(&lq->explanation, a->lang), w - 2);
    else
        n += 1;
    return n;
}

/* the question with its choices or the number prompt; returns rows drawn */
static int draw_question(const struct app *a, const struct quiz *q, int y, int x, int w, int h,
                         const struct lesson_quiz *lq)
{
    int r = 0;
    char buf[UI_MSG_MAX];
    attr_t qa = theme_attr(a, UIC_QUIZ);
    text_puts(a, y, x, 2, "?", qa);
    r += text_draw(a, y + r, x + 2, w - 2, h - r, lesson_tr(&lq->question, a->lang), 0, qa);
    if (lq->kind == QUIZ_CHOICE) {
        for (int i = 0; i < lq->nchoices && r < h; i++) {
            int chosen = q->answered && q->choice == i;
            int right = (q->answered || q->revealed) && i == lq->answer;
            snprintf(buf, sizeof buf, "%s%d)", chosen ? ">" : " ", i + 1);
            text_puts(a, y + r, x + 1, 4, buf, theme_attr(a, UIC_KEY));
            enum ui_role role = right ? UIC_RIGHT : chosen ? UIC_WRONG : UIC_NORMAL;
            r += text_draw(a, y + r, x + 5, w - 6, h - r, lesson_tr(&lq->choices[i], a->lang), 0,
                           theme_attr(a, role));
        }
    } else if (r < h) {
        snprintf(buf, sizeof buf, "%s%s_", ui_str(a, UIS_ANSWER_PROMPT), q->input);
        text_puts(a, y + r, x + 2, w - 2, buf, theme_attr(a, UIC_KEY));
        r++;
    }
    return r;
}

int quiz_draw(const struct app *a, const struct quiz *q, int y, int x, int w, int h,
              const struct lesson_quiz *lq, int full)
{
    int r = 0;
    char buf[UI_MSG_MAX];
    if (full || !q->answered || !q->correct)
        r += draw_question(a, q, y, x, w, h, lq);
    if (r >= h)
        return r;
    if (q->answered || q->revealed) {
        const char *mark = q->correct ? a->g->right : a->g->wrong;
        const char *verdict = ui_str(a, q->correct ? UIS_RIGHT : UIS_WRONG);
        if (!q->answered)
            snprintf(buf, sizeof buf, "%s", ui_str(a, UIS_REVEALED));
        else if (lq->kind == QUIZ_CHOICE)
            snprintf(buf, sizeof buf, "%s %s (%s %d)", mark, verdict, ui_str(a, UIS_ANSWER),
                     lq->answer + 1);
        else
            snprintf(buf, sizeof buf, "%s %s (%s %g)", mark, verdict, ui_str(a, UIS_ANSWER),
                     lq->number);
        enum ui_role role = !q->answered ? UIC_DIM : q->correct ? UIC_RIGHT : UIC_WRONG;
        text_puts(a, y + r, x, w, buf, theme_attr(a, role));
        r++;
        r += text_draw(a, y + r, x + 2, w - 2, h - r, lesson_tr(&lq->explanation, a->lang), 0,
                       A_NORMAL);
    } else {
        enum ui_str prompt = lq->kind == QUIZ_CHOICE
                                 ? (lq->predict ? UIS_CHOICE_PREDICT : UIS_CHOICE)
                                 : (lq->predict ? UIS_NUMBER_PREDICT : UIS_NUMBER);
        text_puts(a, y + r, x, w, ui_str(a, prompt), theme_attr(a, UIC_DIM));
        r++;
    }
    return r;
}
