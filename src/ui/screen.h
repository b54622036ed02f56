/* screen.h: what a screen is, and the stack of screens (screen.c). A screen is a row of the
 * screen table: its private state (a struct only its own file knows, allocated once at start)
 * and enter / resume / draw / key / leave functions. The loop in app.c sends each key to the
 * screen on top (with the key's action on that screen, from the key table in src/keys), falls
 * back to the global keys when it is ignored, and draws the stack after every event. Only the
 * stack functions below change which screen is shown; draw functions get const pointers and
 * change nothing. Adding a screen: one file defining `const struct ui_screen screen_NAME`, an
 * id below and its entry in the table in app.c, which hands the table to the stack: the stack
 * knows no screen by name, so the screens can call it without a circle. (htop's Panel and
 * ScreenManager; ncdu keeps each screen's state in its own file.) */
#ifndef BANKLAB_UI_SCREEN_H
#define BANKLAB_UI_SCREEN_H

#include <stddef.h>

#include "../keys/keys.h"

struct app;

enum ui_screen_id {
    UI_TUTOR = 0,     /* a lesson step (tutor.c) */
    UI_ERROR,         /* no lessons could be loaded (error.c) */
    UI_TOC,           /* the contents (toc.c) */
    UI_SWEEP,         /* the sweep chart of the step's scene (sweep.c) */
    UI_PLAY,          /* the playground (play.c) */
    UI_HELP,          /* the key help, over the screen below (help.c) */
    UI_KERNEL,        /* a learner's .cu file, line by line (kview.c) */
    UI_KGRID,         /* a line's measured or executed warps in the bank grid (kgrid.c) */
    UI_SCREENS
};

/* What a key handler did with a key. */
enum ui_result {
    UI_IGNORED = 0,   /* not this screen's key: the loop tries the global keys */
    UI_HANDLED,       /* done (the loop redraws after every key) */
    UI_QUIT,          /* leave the program */
};

/* A key as a screen receives it: the named key, and what the key table says it does on
 * that screen now (ACT_NONE: no binding, e.g. a lesson's parameter key). */
struct ui_key {
    int key;
    enum key_action action;
};

struct ui_screen {
    const char *name;
    int overlay;              /* drawn over the screen below it (help) */
    size_t state_size;        /* private state, zeroed, allocated once for the whole run */
    void (*init)(struct app *a, void *st);        /* once after allocation (NULL: none) */
    void (*done)(struct app *a, void *st);        /* once at the end (NULL: none) */
    /* pushed, or the base screen re-entered (a new step); -1 refuses (after a message) */
    int (*enter)(struct app *a, void *st);
    void (*resume)(struct app *a, void *st);      /* the screen above was popped (NULL: none) */
    void (*leave)(struct app *a, void *st);       /* popped (NULL: none) */
    void (*draw)(const struct app *a, const void *st);
    enum ui_result (*key)(struct app *a, void *st, const struct ui_key *k);
    /* the input is idle (about every 100 ms): work of its own in progress, called for every
     * screen, shown or not (NULL: none); 1 asks for a redraw */
    int (*idle)(struct app *a, void *st);
    unsigned keys;            /* the key table's screens (KS_*) its keys act on */
    /* ... and the modes on now (the tutor's inspect and quiz); NULL: keys alone */
    unsigned (*modes)(const struct app *a, const void *st);
};

extern const struct ui_screen screen_tutor, screen_error, screen_toc, screen_sweep, screen_play,
    screen_help, screen_kernel, screen_kgrid;

#define UI_STACK_MAX 8

struct ui_stack {
    const struct ui_screen *const *table;   /* UI_SCREENS rows, by id (ui_screens_init) */
    int depth;
    enum ui_screen_id id[UI_STACK_MAX];
    void *state[UI_SCREENS];  /* each screen's private state */
};

/* ui_screens_init: take the screen table (UI_SCREENS rows by id, kept: it must outlive a),
 * allocate and init every screen's state. -1 when out of memory. */
int ui_screens_init(struct app *a, const struct ui_screen *const *table);
/* ui_screens_done: leave what is on the stack, done and free every state. */
void ui_screens_done(struct app *a);

/* ui_push: show screen id on top (if it is on the stack already, pop back to it); its enter
 * may refuse (-1, the stack unchanged). */
int ui_push(struct app *a, enum ui_screen_id id);
/* ui_pop: back to the screen below (never pops the base). */
void ui_pop(struct app *a);
/* ui_reset: pop to the base screen id and enter it again (a new step). */
void ui_reset(struct app *a, enum ui_screen_id base);

/* ui_under: the screen below the top one (the one an overlay is drawn over); UI_ERROR when
 * there is none. */
enum ui_screen_id ui_under(const struct app *a);
void *ui_state(const struct app *a, enum ui_screen_id id);
/* ui_keyset: the key table's screens the top screen's keys act on now. */
unsigned ui_keyset(const struct app *a);

/* ui_key: send key k to the top screen. */
enum ui_result ui_key(struct app *a, const struct ui_key *k);
/* ui_idle: every screen's idle work; 1 when one of them asks for a redraw. */
int ui_idle(struct app *a);
/* ui_draw: draw the top screen, over the ones below when it is an overlay. */
void ui_draw(const struct app *a);
/* ui_overlay_on_top: the top screen is drawn over another (a key closing it keeps the
 * message line). */
int ui_overlay_on_top(const struct app *a);

#endif
