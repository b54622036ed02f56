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
    int text_scroll;          /* lines of the text scrolled away (clamped by the layout) */
    enum key_action leave_warned; /* n or b just warned that a typed number is left */
};

/* Rows of each part of the normal (not presenter) layout at the terminal's size. */
struct tutor_layout {
    int text, hint, code, grid;
    int quiz;                 /* the feedback: the task panel, then the quiz */
    int legend;               /* a spare row under the grid explains the marks */
    int text_need;            /* rows the whole text wants */
    int maxscroll;            /* the text scrolls 0..maxscroll */
};

void tutor_layout(const struct app *a, const struct tutor *t, const struct lesson_step *st,
                  struct tutor_layout *L);
void tutor_draw(const struct app *a, const void *st);

#endif
