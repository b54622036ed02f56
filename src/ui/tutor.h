/* tutor.h: the tutor screen's private state and layout, shared by its two files only: tutor.c
 * (enter, keys) and tutor_draw.c (layout, drawing, presenter mode). */
#ifndef BANKLAB_UI_TUTOR_H
#define BANKLAB_UI_TUTOR_H

#include "app.h"
#include "entry.h"
#include "quiz.h"
#include "task.h"

struct tutor {
    struct app *app;          /* for the measurement callback */
    struct quiz quiz;
    struct task_panel task;   /* the step's graded task, if any */
    struct entry entry;       /* a parameter's value being typed (=) */
    struct ui_inspect insp;
    int hints_shown;
    int text_scroll;          /* rows of the reading area scrolled away (clamped by the layout) */
    enum key_action leave_warned; /* n or b just warned that a typed number is left */
};

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
