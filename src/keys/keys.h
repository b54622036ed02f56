/* keys.h: every key binding of the tutorial in one table (keys.def): which keys do what on
 * which screen, and the words the key bars and the help screen use for them, in English and
 * Chinese. The UI dispatches through it (keys_action) and derives its key bars and help
 * screen from it; the lesson checker derives the keys a lesson parameter may not take
 * (keys_reserved); a unit test holds the man page to it. Pure C over src/base alone:
 * no curses (src/ui/input.c turns the terminal's key codes into the names below). */
#ifndef BANKLAB_KEYS_H
#define BANKLAB_KEYS_H

#include <stddef.h>

/* Named keys. A printable ASCII key is its own character ('a', '?', ' '); control keys keep
 * their code; keys without one are numbered above 0xff. Enter is one key whether the terminal
 * sends CR, LF or KEY_ENTER; Backspace likewise for DEL, Ctrl-H and KEY_BACKSPACE. */
enum key {
    K_NONE = 0,
    K_CTRL_A = 1, K_CTRL_E = 5, K_CTRL_H = 8, K_TAB = 9, K_CTRL_U = 21, K_CTRL_X = 24,
    K_ESC = 27, K_SPACE = ' ', K_DEL = 127,   /* Ctrl-H and DEL: what terminals send for Backspace */
    K_ENTER = 0x100, K_BACKSPACE, K_DELETE, K_LEFT, K_RIGHT, K_UP, K_DOWN, K_HOME, K_END,
    K_PGUP, K_PGDN, K_F1,
};

/* Where a binding acts. A screen (or a mode of one) asks with the set that is true now; the
 * rows of a mode (KS_MODES) win over the rows of its screen (Enter in inspect mode steps
 * through a cell's lanes, elsewhere on the step it goes on). */
enum key_screen {
    KS_TUTOR = 1u << 0,    /* a lesson step */
    KS_INSPECT = 1u << 1,  /* mode: the step's inspect cursor is on */
    KS_CHOICE = 1u << 2,   /* mode: the step asks a choice quiz */
    KS_NUMBER = 1u << 3,   /* mode: the step asks for a number not yet given right */
    KS_TOC = 1u << 4,      /* the contents */
    KS_SWEEP = 1u << 5,    /* the sweep chart */
    KS_PLAY = 1u << 6,     /* the playground: printable keys are text there */
    KS_ERROR = 1u << 7,    /* no lessons could be loaded */
    KS_VALUE = 1u << 8,    /* mode: a parameter's value is being typed (=) */
    KS_NOTICE = 1u << 9,   /* mode of the error screen: lessons were refused, others loaded */
    KS_SCROLL = 1u << 10,  /* key bars only: the step's reading area scrolls (PgDn/PgUp) */
    KS_HELP = 1u << 11,    /* the help box: its scroll keys; any other key closes it */
    KS_KERNEL = 1u << 12,  /* the kernel view: a learner's .cu file, line by line */
    KS_KPROMPT = 1u << 13, /* the kernel view's file prompt: printable keys are text */
    /* key bars only: the step's keys that act on this step alone (the bar offers no key
     * that would be refused) */
    KS_CAN_SWEEP = 1u << 14,   /* the scene has a parameter to sweep (s) */
    KS_CAN_INSPECT = 1u << 15, /* the grid is drawn (i) */
    KS_CAN_HINT = 1u << 16,    /* a hint is left to show (h) */
    KS_QUIZ_VALS = 1u << 17,   /* answered: Q shows the values the question named */
    KS_OWN_VALS = 1u << 18,    /* answered, the question's values shown: Q shows the scene's */
    KS_CAN_NEXT = 1u << 19,    /* a step follows (n): not on the last step of the course */
    KS_CAN_BACK = 1u << 20,    /* a step comes before (b): not on the first */
    KS_YOUR_VALS = 1u << 21,   /* answered, the question's values shown: Q shows the values
                                * the learner had set before answering */
    KS_KGRID = 1u << 22,       /* the kernel view's warp grid: a line's measured or executed
                                * warps (kgrid.c) */
};
#define KS_MODES (KS_INSPECT | KS_CHOICE | KS_NUMBER | KS_VALUE)
#define KS_STEP (KS_TUTOR | KS_MODES)
#define KS_GLOBAL (KS_STEP | KS_TOC | KS_SWEEP | KS_ERROR)   /* everywhere but the playground */

/* What a key does: each action is named in the row of keys.def that binds it first. The loop
 * acts on its own (quit, help, contents, playground, kernel, lang, report, back) where a screen
 * leaves the key to it; the rest mean what the screen that receives them says. */
enum key_action {
    ACT_NONE = 0,
#define ROW(actions, ...) actions
#define NEW(...) __VA_ARGS__,
#define NO_NEW
#include "keys.def"
#undef ROW
#undef NEW
#undef NO_NEW
};

#define KEYS_PER_ROW 9     /* keys of one row; the last entry stays 0 to end the list */
#define KEYS_ALWAYS 9      /* a key-bar item never dropped for room (help, quit, leaving; a
                            * step's next and back) */

/* One key (or a range of keys) and what it does. */
struct key_bind {
    int key;                      /* enum key or a printable character; 0 ends a row's list */
    int last;                     /* a range key..last (e.g. '1'..'9'); 0: just key */
    enum key_action action;
};

/* One row of the table: keys that belong together on the help screen and the key bar. A row
 * with no keys and only bar text is a note of a key bar; a row with `lesson` set stands for
 * the lesson's parameter keys (they act where its screens say). */
struct key_row {
    struct key_bind keys[KEYS_PER_ROW];
    unsigned screens;             /* where the keys act (KS_*) */
    unsigned bar;                 /* the key bars that show the row (KS_*) */
    const char *bar_keys;         /* how the bar names the keys ("Esc/c"); NULL: the first
                                   * key's name; "": no keys, the text alone */
    int bar_text;                 /* the word after the keys (in key bars, and in the summary
                                   * of --help): a row of the catalogue (msg_keys.def) */
    int help_keys;                /* keys column of the help screen (a row); 0: the names */
    int help;                     /* the help line (a row); 0: not on the help screen */
    int pair;                     /* the help screen puts the next row on the same line */
    int lesson;                   /* stands for the lesson's parameter keys */
    int keep;                     /* on a key bar too narrow for all its items, those with the
                                   * lowest keep go first; KEYS_ALWAYS never goes */
};

/* keys_rows: the table, in the order of the help screen and the key bars; *n its length.
 * The pointer is static. */
const struct key_row *keys_rows(int *n);

/* keys_action: what key does on a screen whose bindings are `screens` (a KS_* set, e.g.
 * KS_TUTOR | KS_INSPECT): the rows of a mode in that set first, then the rest, in table order.
 * ACT_NONE when no row binds it there (a lesson key, or nothing). */
enum key_action keys_action(unsigned screens, int key);

/* keys_word: the text of a row's word (bar_text, help_keys, help: an id of msg_keys.def) in
 * Chinese when zh, else English; NULL for 0 (none). */
const char *keys_word(int id, int zh);

/* keys_name: the name of one key as the help screen and the man page write it ("Esc",
 * "Ctrl-U", "PgDn", "Space", "?"); zh only changes Space. Writes into buf (always
 * terminated) and returns buf. */
const char *keys_name(int key, int zh, char *buf, size_t size);

/* keys_label: a row's keys for the help screen: help_keys when the row has them, else the
 * names of its keys joined by spaces, ranges as "1-9" ("printable keys" for all of them). */
const char *keys_label(const struct key_row *r, int zh, char *buf, size_t size);

/* keys_bar: the key bar of the screens in `screens` in cols display columns (width(s): the
 * columns s takes on the screen): "KEYS WORD" for every row whose bar includes one of them,
 * in table order, two spaces between items. When they do not all fit, items go by their
 * row's keep, the lowest first and the rightmost first among equals; an item of keep
 * KEYS_ALWAYS never goes. lesson[0..nlesson): the items that stand for the lesson's keys
 * ("p/P PAD", one per parameter), shown where the table's lesson row stands, with its keep.
 * Writes into buf (always terminated); returns the length. */
size_t keys_bar(unsigned screens, int zh, const char *const *lesson, int nlesson, int cols,
                int (*width)(const char *), char *buf, size_t size);

/* keys_summary: every key of the help screen as "KEYS WORD" joined by ", " ("n/Space/Right
 * next, b/Left back, ...") for --help texts. Writes into buf (always terminated); returns
 * the length. */
size_t keys_summary(int zh, char *buf, size_t size);

/* keys_first: the name of the first key (keys_name) that does act on `screens`, for a hint
 * such as "[w/W]" or "[PgDn/PgUp]"; "" when no key does. Writes into buf and returns it. */
const char *keys_first(unsigned screens, enum key_action act, int zh, char *buf, size_t size);

/* keys_reserved: 1 when the program binds printable key ch on a screen where the lesson's
 * parameter keys act, so a lesson may not take it; else 0. */
int keys_reserved(int ch);

/* keys_reserved_text: the reserved keys for a message, e.g. "- . ? W a b ..., digits, space".
 * Writes into buf (always terminated) and returns buf. */
const char *keys_reserved_text(char *buf, size_t size);

#endif
