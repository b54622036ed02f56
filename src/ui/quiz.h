/* quiz.h: a step's quiz on the tutor screen (quiz.c): what the learner answered, the number
 * being typed, whether a predict step's grid was revealed without an answer; its keys, its
 * height and its drawing. Part of the tutor screen (tutor.c owns one). */
#ifndef BANKLAB_UI_QUIZ_H
#define BANKLAB_UI_QUIZ_H

#include "app.h"

struct quiz {
    int answered;             /* answered in this visit (or earlier, from progress) */
    int correct;
    int choice;               /* chosen index, -1 */
    char input[32];           /* number being typed */
    int revealed;             /* predict step shown without an answer (e, Enter) */
};

/* quiz_load: the quiz state of step st of lesson l: fresh, or answered as progress says. */
void quiz_load(struct quiz *q, const struct app *a, const struct lesson *l,
               const struct lesson_step *st);

/* quiz_hidden: st is a predict step whose grid and numbers wait for an answer. */
int quiz_hidden(const struct quiz *q, const struct lesson_step *st);

/* quiz_modes: the key table's modes of the quiz now (KS_CHOICE, KS_NUMBER or 0). */
unsigned quiz_modes(const struct quiz *q, const struct lesson_step *st);

/* quiz_key: answer keys (a choice, digits of a number, Backspace, Enter after a number).
 * Records an answer in the progress. 1 when the key was the quiz's, else 0. */
int quiz_key(struct app *a, struct quiz *q, const struct lesson *l, const struct lesson_step *st,
             const struct ui_key *k);

/* quiz_lines: rows the quiz wants at width w (full: the question also after a right answer). */
int quiz_lines(const struct app *a, const struct quiz *q, const struct lesson_quiz *lq, int w,
               int full);
/* quiz_draw: question, choices or the number prompt, verdict and explanation in h rows;
 * returns rows drawn. */
int quiz_draw(const struct app *a, const struct quiz *q, int y, int x, int w, int h,
              const struct lesson_quiz *lq, int full);

#endif
