/* entry.h: typing a lesson parameter's value on the tutor screen (entry.c): = opens it on the
 * scene's first parameter, digits and - type, Tab (or = again) moves to the next parameter,
 * Enter sets the value when it is a whole number in the parameter's range (else it says the
 * range and stays open), Esc cancels. Part of the tutor screen (tutor.c owns one). */
#ifndef BANKLAB_UI_ENTRY_H
#define BANKLAB_UI_ENTRY_H

#include "app.h"

struct entry {
    int on;
    int param;                /* index in the scene's parameters */
    char text[24];
};

/* entry_open: start typing a value of the scene's first parameter (a message when the scene
 * has none). */
void entry_open(struct app *a, struct entry *e, const struct ui_scene *s);

/* entry_key: the entry's keys (KS_VALUE); 1 when the key was the entry's. A value set goes
 * through scene_set_param (evaluated and measured again). */
int entry_key(struct app *a, struct entry *e, struct ui_scene *s, const struct ui_key *k);

/* entry_text: the line shown instead of the parameter line: "PAD = 12_  (0..8, now 1)". */
void entry_text(const struct app *a, const struct entry *e, const struct ui_scene *s, char *buf,
                size_t size);

#endif
