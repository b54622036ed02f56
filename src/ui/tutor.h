/* tutor.h: the tutor screen's private state and layout, shared by its two files only: tutor.c
 * (enter, keys) and tutor_draw.c (layout, drawing, presenter mode). */
#ifndef BANKLAB_UI_TUTOR_H
#define BANKLAB_UI_TUTOR_H

#include "app.h"
#include "entry.h"
#include "quiz.h"
#include "task.h"

/* A setting of the scene a quiz may name: every parameter's value, the element type and the
 * access drawn. */
struct qsetting {
    long long v[PATTERN_MAX_PARAMS];
    int type, access;
};

struct tutor {
    struct app *app;          /* for the measurement callback */
    struct quiz quiz;
    struct task_panel task;   /* the step's graded task, if any */
    struct entry entry;       /* a parameter's value being typed (=) */
    struct ui_inspect insp;
    int hints_shown;
    int text_scroll;          /* rows of the reading area scrolled away (clamped by the layout) */
    enum key_action leave_warned; /* n or b just warned that a typed number is left */
    struct qsetting own;      /* the scene's values before the question's were shown (Q) */
    int below_warned;         /* n warned once that the quiz is below the fold */
};

/* The values a quiz names (its check's parameters, type and access, which may be the scene's
 * defaults) against the panel, once it is answered or revealed: QV_NONE (not answered, or the
 * question's values are the only ones there are to show: the scene's defaults, never moved),
 * QV_QUIZ (the panel shows the question's values; Q: the ones shown before, or the scene's),
 * QV_OWN (other values: Q shows the question's). tutor_qvals_note: the line under the verdict
 * that says which, or "". */
enum { QV_NONE = 0, QV_QUIZ = 1, QV_OWN = 2 };
int tutor_qvals(const struct app *a, const struct tutor *t, const struct lesson_step *st);
/* tutor_qvals_yours: QV_QUIZ, and Q goes to values the learner set, not the scene's defaults */
int tutor_qvals_yours(const struct app *a, const struct tutor *t, const struct lesson_step *st);
const char *tutor_qvals_note(const struct app *a, const struct tutor *t,
                             const struct lesson_step *st, char *buf, size_t size);
/* tutor_qvals_show: the quiz answered or revealed: the panel goes to the question's values
 * (the values shown before are kept for Q). tutor_qvals_key: Q, the scene's own values and
 * back, or a message why not. */
void tutor_qvals_show(struct app *a, struct tutor *t, const struct lesson_step *st);
/* tutor_qvals_enter: a step entered, its scene loaded: the values shown are the ones Q knows */
void tutor_qvals_enter(struct app *a, struct tutor *t);
void tutor_qvals_key(struct app *a, struct tutor *t, const struct lesson_step *st);

/* The tutor screen at the terminal's size. The reading area (the text, the hints shown and
 * the quiz, as one flow) scrolls; under it the scene: code, parameters, the grid (or why
 * there is none), the legend, the inspect lines, the results, a graded task's panel.
 * Presenter mode: the key sentence and the scene first, the task and the quiz in what is
 * left. */
struct tutor_layout {
    struct flow flow;         /* the reading area's blocks */
    int read;                 /* rows shown of it */
    int maxscroll;            /* it scrolls 0..maxscroll */
    int quiz, status;         /* blocks: the question, the verdict or prompt; -1: no quiz */
    int key;                  /* presenter: rows of the key sentence */
    int code, grid, legend, insp, results, task;   /* rows of the scene's parts */
};

void tutor_layout(const struct app *a, const struct tutor *t, const struct lesson_step *st,
                  struct tutor_layout *L);
void tutor_draw(const struct app *a, const void *st);

#endif
