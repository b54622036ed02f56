/* quiz.h: a step's quiz on the tutor screen (quiz.c): what the learner answered, the number
 * being typed, whether a predict step's grid was revealed without an answer; its keys and its
 * blocks in the tutor's reading area. Part of the tutor screen (tutor.c owns one).
 *
 * The rules (tests/sh/tui_quiz.sh): an answer is stated as a value ("answer: 32", the
 * choice's text, never its number); revealing a predict step without answering (e) is
 * recorded as a wrong attempt, so an answer after it is never right at the first try; Enter
 * with nothing typed answers nothing; a typed number stays on the screen after Enter and
 * after leaving and coming back; a typed number not yet answered is never dropped silently
 * (quiz_pending: the tutor asks before leaving the step). */
#ifndef BANKLAB_UI_QUIZ_H
#define BANKLAB_UI_QUIZ_H

#include "app.h"

/* The progress's "given" of a reveal without an answer. */
#define QUIZ_REVEALED "(revealed)"

struct quiz {
    int answered;             /* answered in this visit (or earlier, from progress) */
    int correct;
    int first_right;          /* the first answer was right (progress's first_correct) */
    int choice;               /* chosen index, -1 */
    char input[32];           /* number being typed, or the last one answered */
    int submitted;            /* input is the answer given (a new digit starts over) */
    int revealed;             /* predict step shown without an answer (e) */
};

/* quiz_load: the quiz state of step st of lesson l: fresh, or answered as progress says. */
void quiz_load(struct quiz *q, const struct app *a, const struct lesson *l,
               const struct lesson_step *st);

/* quiz_hidden: st is a predict step whose grid and numbers wait for an answer. */
int quiz_hidden(const struct quiz *q, const struct lesson_step *st);

/* quiz_pending: a number is typed and not answered yet. */
int quiz_pending(const struct quiz *q);

/* quiz_modes: the key table's modes of the quiz now (KS_CHOICE, KS_NUMBER or 0). */
unsigned quiz_modes(const struct quiz *q, const struct lesson_step *st);

/* quiz_reveal: show a predict step's grid without an answer; recorded in the progress as a
 * wrong attempt unless the quiz was answered already. */
void quiz_reveal(struct app *a, struct quiz *q, const struct lesson *l,
                 const struct lesson_step *st);

/* quiz_key: answer keys (a choice, digits of a number, Backspace, Enter after a number; Enter
 * with nothing typed on a quiz not answered yet says what to type). Records an answer in the
 * progress. 1 when the key was the quiz's, else 0. */
int quiz_key(struct app *a, struct quiz *q, const struct lesson *l, const struct lesson_step *st,
             const struct ui_key *k);


/* quiz_flow: the quiz as blocks of f at x in w columns: the question, its choices or the
 * number typed, then the verdict (the answer as a value), note under it (the values the
 * panel shows; NULL or "": none) and the explanation, or what to press. Returns the block of
 * the verdict (or of what to press): the row to show after an answer. */
int quiz_flow(const struct app *a, const struct quiz *q, struct flow *f, int x, int w,
              const struct lesson_quiz *lq, const char *note);

/* quiz_flow_verdict: the verdict ("right (answer: 2)", or revealed) and the explanation
 * alone, once answered or revealed (presenter mode: the class reads the explanation);
 * returns the verdict's block, -1 when there is none yet. */
int quiz_flow_verdict(const struct app *a, const struct quiz *q, struct flow *f, int x, int w,
                      const struct lesson_quiz *lq, const char *note);

#endif
