/* task.h: a graded workshop task on the tutor screen (task.c): the step's goal and points, and
 * live whether the scene's current values meet it, graded like `banklab lab` does (the model's
 * result for the task's access at the scene's warp, lesson_task_met). The first time a task is
 * met its result is saved in the progress as banklab lab saves it ("lab:<lesson id>", the
 * values as given), so that `r` and `banklab report` count its points. Part of the tutor
 * screen (tutor.c owns one). */
#ifndef BANKLAB_UI_TASK_H
#define BANKLAB_UI_TASK_H

#include "app.h"

struct task_panel {
    int graded;               /* the step has a task and the model evaluates it */
    int number, count;        /* task number in its lesson, tasks in the lesson */
    int wavefronts, conflicts, ways;  /* the model's result for the current values */
    int met;
    int solved;               /* solved (now or before, as progress says) */
    int score, max;           /* points solved in all lessons, points of all tasks */
    char values[UI_MSG_MAX / 2];  /* the current values, "PAD=2" / "K=1, C=0, T=float4" */
};

/* task_update: grade step st of lesson l at the scene's current values (after entering the
 * step and after every change); the first time it is met, save it and say so. */
void task_update(struct app *a, struct task_panel *tp, const struct lesson *l,
                 const struct lesson_step *st);

/* task_lines: rows the panel wants at width w (0 when the step has no task). */
int task_lines(const struct app *a, const struct task_panel *tp, const struct lesson_step *st,
               int w);
/* task_draw: the goal, points and met / not met in h rows; returns rows drawn. */
int task_draw(const struct app *a, const struct task_panel *tp, const struct lesson_step *st,
              int y, int x, int w, int h);

#endif
