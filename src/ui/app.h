/* app.h: what the tutorial's screens share (one struct app passed everywhere): options,
 * terminal, the lessons and the current step, progress, the GPU request hub, the screen stack,
 * the message line; colour roles, glyph tables and the helpers the screens use. A screen's
 * own state is not here: it lives in the screen's file (screen.h). Only src/ui includes this
 * header and curses. */
#ifndef BANKLAB_UI_APP_H
#define BANKLAB_UI_APP_H

#include <curses.h>
#include <stdint.h>
#include <stdio.h>

#include "../base/err.h"
#include "../base/fmt.h"
#include "../gpu/gpu.h"
#include "../keys/keys.h"
#include "../lesson/scene.h"
#include "../store/progress.h"
#include "../model/bank.h"
#include "../model/pattern.h"
#include "requests.h"
#include "screen.h"
#include "ui.h"

/* Display lines are clipped to the screen anyway: a truncated snprintf is intended here. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

#define UI_CODE_MAX 2048
#define UI_MSG_MAX 512
#define UI_PATH_MAX 1024
#define UI_MIN_W 72               /* below this the compact grid does not fit */
#define UI_MIN_H 20
#define UI_PRESENT_MIN_W 100
#define UI_PRESENT_MIN_H 26
#define UI_LOAD_ERRORS_SHOWN 8    /* problems listed on the error screen */

/* Colour roles: mapped to colour pairs (or monochrome attributes) in theme.c's one table. */
enum ui_role {
    UIC_NORMAL = 0, UIC_TITLE, UIC_KEYBAR, UIC_KEY, UIC_MSG, UIC_WARN, UIC_TEXTCODE, UIC_CODE,
    UIC_HEADER, UIC_LANE, UIC_BROADCAST, UIC_CONFLICT, UIC_WORST, UIC_OK, UIC_ERROR, UIC_MEASURED,
    UIC_DIM, UIC_CURSOR, UIC_QUIZ, UIC_RIGHT, UIC_WRONG, UIC_BAR, UIC_MARK, UIC_COUNT
};

/* Glyphs: one UTF-8 table and one ASCII table, chosen once at start. Each is one column. */
struct ui_glyphs {
    int utf8;
    const char *hline, *vline, *tl, *tr, *bl, *br;
    const char *dot;          /* empty bank in the first row */
    const char *broadcast;    /* cell: one word read by several lanes */
    const char *conflict;     /* cell: its bank serves several words in this pass */
    const char *both;         /* broadcast in a conflicting bank */
    const char *worst;        /* under the worst bank of a pass */
    const char *bar, *bar_top;/* sweep chart */
    const char *mark;         /* current value in the sweep */
    const char *right, *wrong;
    const char *late;         /* contents: done, but not right at the first try */
    const char *ellipsis;
    const char *up, *down;    /* a scrolled area has more above, more below */
    const char *todo;         /* contents: a step whose quiz waits for an answer */
    const char *revealed;     /* contents: a quiz revealed (e) and not answered since */
    const char *sep;          /* between items of a status line */
};

struct app;

static inline int ui_min(int x, int y) { return x < y ? x : y; }
static inline int ui_max(int x, int y) { return x > y ? x : y; }
/* ui_follow: the first row shown of a list scrolled to top, moved as little as it takes to
 * show row cur in rows rows */
static inline int ui_follow(int top, int cur, int rows)
{
    return cur < top ? cur : cur >= top + rows ? cur - rows + 1 : top;
}

/* The reader's language for messages of the rooms below (src/base/msg.h): strings.c. */
enum bl_lang ui_lang(const struct app *a);
/* ui_msg: the message m (English text en) in the screen's language, rendered into buf; en as
 * it is where m holds no message (bl_msg_or_text: English text is never read back). */
const char *ui_msg(const struct app *a, const struct bl_msg *m, const char *en, char *buf,
                   size_t n);
/* ui_err: the failure e in the screen's language (bl_err_text; one that came as its English
 * text alone, from a recording or an older peer, in English): the one way a screen shows an
 * error of a room below. Returns the text (buf). */
const char *ui_err(const struct app *a, const struct bl_err *e, char *buf, size_t n);

/* The screen's own words, in the current language: one line each in strings.def. */
enum ui_str {
#define S(name, en, zh) name,
#include "strings.def"
#undef S
    UIS_COUNT
};
const char *ui_str(const struct app *a, enum ui_str s);

/* The drawn access: a lesson scene or the playground's text, evaluated through the model, and
 * the measurement of it that the screen shows. */
struct ui_scene {
    const struct lesson_scene *ls;        /* NULL in the playground */
    struct scene_run run;                 /* the text parsed (run.code.s, run.pat), owned */
    char shown[UI_CODE_MAX];              /* code with parameter values filled in */
    struct pattern_env env;
    int type_index;
    long long value[PATTERN_MAX_PARAMS];  /* current value of ls->params[i] */
    const char *bind_name[PATTERN_MAX_PARAMS];
    int access, naccess;
    unsigned warp, nwarps;
    int parsed;                           /* run.pat is valid */
    int ok;                               /* acc/res valid */
    struct bl_err err;
    char errtext[UI_MSG_MAX];             /* one line: what went wrong (in English) */
    struct bank_access acc;
    struct bank_result res;
    struct req_slot slot;                 /* its measurement (requests.h) */
    int held;                             /* a quiz's answer is hidden: the scene is not
                                           * measured, recorded, exported, swept or carried
                                           * into the playground until it is answered */
};

/* The inspect cursor on the grid (the step's; grid.c draws and moves it). */
struct ui_inspect {
    int on;
    int pass, row, bank;
    int k;                    /* which lane of the cell is detailed (Enter cycles) */
};

struct app {
    struct ui_options opt;
    const struct ui_glyphs *g;
    int color;                            /* colour pairs in use */
    int utf8;
    enum lesson_lang lang;
    int W, H;

    /* lessons and the current step */
    struct lesson_set set;
    int have_lessons;
    char lessons_dir[UI_PATH_MAX];
    char load_errors[UI_MSG_MAX * 4];     /* what failed to load or check (first few) */
    int nload_errors, nload_shown;        /* problems, and of those in load_errors */
    int nload_files;                      /* files with a problem (not shown) */
    char load_last_file[256];
    int li, si;                           /* current lesson, step */
    struct ui_scene sc;                   /* the step's scene: the tutor draws it, the sweep
                                           * moves its parameter */

    /* progress */
    struct progress prog;
    char prog_path[UI_PATH_MAX];
    int have_prog_path;
    int save_due;                         /* progress changed: saved when the input is idle */

    struct req_hub hub;                   /* the GPU: every request goes through it */
    int said_recorded;                    /* said once why recorded figures stand in */
    struct ui_stack stack;                /* the screens (screen.h) */

    char msg[UI_MSG_MAX];                 /* one-line message over the key bar until a key */
    int msg_warn;
    int dirty;                            /* redraw needed */
    int quit;

    FILE *timing;                         /* BANKLAB_TIMING */
};

/* theme.c */
void theme_init(struct app *a);                       /* colours + glyphs, once */
attr_t theme_attr(const struct app *a, enum ui_role r);

/* text.c: UTF-8 measured in display columns (wcwidth), never bytes. */
int text_width(const char *s);
size_t text_fit(const char *s, size_t n, int maxcols, int *cols);
/* text_line: the next wrapped line of s[0..n) at width cols: returns its byte length;
 * *next gets the offset where the following line starts (n at the end). Backticks are
 * zero-width (they mark code). Breaks at spaces, between wide characters, after the comma of
 * a list written without spaces, at '\n'. */
size_t text_line(const char *s, size_t n, int width, size_t *next);
/* text_puts: one line of s in maxcols columns; a line that does not fit ends in an ellipsis
 * (never a silent cut). Returns columns used. */
int text_puts(const struct app *a, int y, int x, int maxcols, const char *s, attr_t at);
/* text_clip: s in at most cols columns into buf: whole, or cut and ended by ell. Returns buf. */
const char *text_clip(const char *s, int cols, const char *ell, char *buf, size_t size);
/* text_count: lines s wraps into at width. */
int text_count(const char *s, int width);
/* text_draw: wrapped s from line skip, at most h lines; returns lines drawn. A word cut
 * because it is wider than w, and the last line when more text follows, end in an ellipsis. */
int text_draw(const struct app *a, int y, int x, int w, int h, const char *s, int skip,
              attr_t at);
/* text_draw_ex: text_draw; mark_more 0 leaves the last line unmarked (a scrolled area marks
 * what follows itself). */
int text_draw_ex(const struct app *a, int y, int x, int w, int h, const char *s, int skip,
                 attr_t at, int mark_more);
void text_fill(int y, int x, int w, attr_t at);
/* ui_source_line: line `line` (1-based) of text (len bytes): its start and its length
 * without the newline (and a \r before it); 1, or 0 when there is no such line. */
int ui_source_line(const char *text, size_t len, int line, const char **at, int *n);

/* ui_source_text: a source line (s, n bytes: from a learner's file, text from outside) to
 * show: tabs to 8 columns, control characters and bytes that are not UTF-8 escaped (bl_clean:
 * a \r or an escape sequence in a file must not move the cursor), at most 1,000 columns, into
 * buf (UI_SOURCE_TEXT bytes hold any). Returns buf. */
#define UI_SOURCE_TEXT 2048
const char *ui_source_text(const char *s, int n, char *buf, size_t size);

/* flow.c: a column of wrapped texts that scrolls as one (the step's text, hints and quiz): each
 * block a text at its own indent and width with an optional label on its first row. A flow
 * lives on the caller's stack; its texts must outlive it (flow_fmt keeps formatted ones). */
#define FLOW_BLOCKS 48
#define FLOW_POOL 2048
struct flow_block {
    const char *text;         /* wrapped at x in w columns (backticks mark code) */
    int x, w;
    attr_t at;
    const char *label;        /* drawn at lx in lw columns on the block's first row, or NULL */
    int lx, lw;
    attr_t lat;
    int top, rows;            /* its first row in the flow, rows it takes (at least 1) */
};
struct flow {
    struct flow_block b[FLOW_BLOCKS];
    int n, rows;              /* blocks, rows of them all */
    char pool[FLOW_POOL];     /* texts made by flow_fmt */
    size_t used;
};
void flow_init(struct flow *f);
/* flow_add: a block (text "" is a blank row), measured now; its index, -1 when full */
int flow_add(struct flow *f, const char *text, int x, int w, attr_t at);
void flow_label(struct flow *f, int i, const char *label, int lx, int lw, attr_t lat);
/* flow_fmt: a formatted text kept in f's pool ("" when full); lives as long as f */
const char *flow_fmt(struct flow *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int flow_top(const struct flow *f, int i);   /* block i's first row (i out of range: the end) */
/* flow_draw: rows skip..skip+h-1 of the flow, the first at screen row y */
void flow_draw(const struct app *a, const struct flow *f, int y, int h, int skip);
/* flow_scroll_to: the scroll (first row shown, 0..rows-h) that shows row must in h rows,
 * starting from scroll; with want_end > must, as much of must..want_end-1 as fits, must
 * first. */
int flow_scroll_to(const struct flow *f, int h, int scroll, int must, int want_end);
/* flow_scrollbar: marks in column x of the h rows at y: up when rows above are scrolled
 * away, down when more follow */
void flow_scrollbar(const struct app *a, int y, int x, int h, int scroll, int rows);

/* scene.c: evaluate scenes through the lesson layer, the pattern language and the model, and
 * ask the hub to measure them. */
void scene_init(struct ui_scene *s, req_answer_fn measured, void *ctx);  /* once */
void scene_clear(struct app *a, struct ui_scene *s);  /* frees; the slot's callback stays */
int scene_load(struct app *a, struct ui_scene *s, const struct lesson_scene *ls);
/* scene_set_code: parse code into s unless it is what s holds already; 0, or -1 with errtext */
int scene_set_code(struct ui_scene *s, const char *code);
void scene_eval(struct app *a, struct ui_scene *s);
/* scene_error_text: why s has no grid, in the screen's language (the pattern language's
 * messages stay as the parser wrote them) */
void scene_error_text(const struct app *a, const struct ui_scene *s, char *buf, size_t size);
int scene_eval_values(struct app *a, const struct ui_scene *s, int param, long long v,
                      struct bank_result *res, struct bank_access *acc_out);
/* scene_request: the GPU request for s with parameter index param set to v (param -1: the
 * current values): the case kernel's parameters for a case scene, else the access's offsets.
 * 0, or -1 when the model cannot evaluate that value. */
int scene_request(struct app *a, const struct ui_scene *s, int param, long long v,
                  struct gpu_request *rq);
void scene_measure(struct app *a, struct ui_scene *s);   /* ask the hub for the current state */
/* scene_record: an answer for s goes into the progress's explored list (where: "LESSON/STEP"
 * or "playground"). */
void scene_record(struct app *a, const struct ui_scene *s, const struct gpu_result *r,
                  const char *where);
/* scene_set_param: parameter i to v (the caller keeps it in range), evaluated and measured */
void scene_set_param(struct app *a, struct ui_scene *s, int i, long long v);
int scene_param_key(struct app *a, struct ui_scene *s, int ch);
void scene_cycle_type(struct app *a, struct ui_scene *s);
void scene_warp(struct app *a, struct ui_scene *s, int delta);
void scene_next_access(struct app *a, struct ui_scene *s);

/* grid.c */
int grid_rows_wanted(const struct app *a, const struct ui_scene *s);
int grid_rows_min(const struct ui_scene *s);   /* every pass with one row and its footer */
/* grid_draw: the grid of s in h rows, centred in columns x..x+w-1 (cells of up to 3 columns,
 * 4 when big), the inspect cursor in (NULL: none) */
void grid_draw(const struct app *a, int y, int x, int w, int h, const struct ui_scene *s,
               const struct ui_inspect *in, int big);
int grid_inspect_text(const struct app *a, const struct ui_scene *s, const struct ui_inspect *in,
                      char *l1, char *l2, size_t size);
/* grid_legend: what the grid's marks mean, in whole items that fit cols columns */
void grid_legend(const struct app *a, const struct bank_result *r, int cols, char *buf,
                 size_t size);
void grid_inspect_move(const struct ui_scene *s, struct ui_inspect *in, enum key_action act);
void grid_inspect_clamp(const struct ui_scene *s, struct ui_inspect *in);
/* results.c: the model's line and what was measured, in w columns (big: presenter mode):
 * results_rows: the rows results_draw takes (2 without a GPU or recording, else 3 or 4) */
int results_rows(const struct app *a, const struct ui_scene *s, int w, int big);
int results_draw(const struct app *a, int y, int x, int w, int h, const struct ui_scene *s,
                 int big);
/* app_device_short: a device's name alone ("H200" of "recorded on NVIDIA H200 (sm_90), ...") */
void app_device_short(const char *dev, char *buf, size_t size);
/* params_line: the parameter line (values, type, warp, access) with the keys that change each
 * on the key-table screens `keys` ("[w/W]" on a step, "[PgDn/PgUp]" in the playground); keys 0:
 * values only (an SVG's subtitle). */
void params_line(const struct app *a, const struct ui_scene *s, unsigned keys, char *buf,
                 size_t size);

/* play.c: the playground on text (a line of the kernel view): what was typed before goes into
 * the history. 0, or -1 when the text is longer than the playground takes. */
int play_open(struct app *a, const char *text);

/* input.c: a curses key code as the key table names it (enum key), K_NONE for none. */
int ui_key_name(int ch);
/* ui_line_key: an editing key on a line of text (len bytes, the cursor at *cur, size bytes of
 * room): a printable key inserted, the cursor moved, a character rubbed out or deleted, the
 * line cleared. 1 when the text changed, 0 when it did not, -2 when the line is full (the key
 * not inserted), -1 when k is no editing key. */
int ui_line_key(char *text, int size, int *len, int *cur, const struct ui_key *k);

/* frame.c: around every screen */
void app_msg(struct app *a, int warn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* app_title: the title line, left and right (NULL: the language shown) */
void app_title(const struct app *a, const char *left, const char *right);
/* app_keybar: the last line: the key bar of key-table screens `screens` (keys_bar: the items
 * that fit the width), lesson[0..nlesson) standing for the lesson's keys; or the message
 * until the next key, with the bar's items that never go (help, quit) beside it where it
 * leaves room. screens 0 (presenter mode too): the message alone, if any. */
void app_keybar(const struct app *a, unsigned screens, const char *const *lesson, int nlesson);
void small_draw(const struct app *a, int need_w, int need_h);   /* "terminal too small" */

/* session.c: the learner's place, saving, exports */
const struct lesson_step *app_step(const struct app *a);   /* NULL without lessons */
/* app_record: the progress's entry of step st of lesson l (task: of its graded task, as
 * banklab lab names it, "lab:<lesson id>"); NULL when there is none */
const struct progress_quiz *app_record(const struct app *a, const struct lesson *l,
                                       const struct lesson_step *st, int task);
void app_goto(struct app *a, int li, int si);   /* go to a step: the stack back to the tutor */
/* app_step_state: step si of lesson li: 2 when it asks something (a quiz, a task) and that
 * was done right at the first try, 1 when it is done after a wrong try or a reveal (answered
 * right now, met; in the tutorial or in `banklab lab`), 0 while it waits, -1 when it asks
 * nothing */
int app_step_state(const struct app *a, int li, int si);
/* app_chapter_score: lesson li's steps that ask something (*total), done (*done) and done at
 * the first try (*first) */
void app_chapter_score(const struct app *a, int li, int *done, int *first, int *total);
/* app_progress: the same over every lesson */
void app_progress(const struct app *a, int *done, int *first, int *total);
/* app_save: 0 saved; 1 nowhere to save (presenter mode); -1 not saved (err, when not NULL,
 * says why; the message line too) */
int app_save(struct app *a, struct bl_err *err);
/* app_say_saved: after the terminal is restored, one line on stdout: progress saved where
 * (and the step it resumes at), or not saved in presenter mode (a failure is said apart) */
void app_say_saved(struct app *a, int saved);
void app_save_soon(struct app *a);     /* save at the next idle tick (never delays a frame) */
void app_export_svg(struct app *a, const struct ui_scene *s, const char *name);
void app_export_report(struct app *a);

/* start.c: what ui_run does before the first frame */
void app_start_locale(struct app *a);       /* locale, UTF-8, BANKLAB_TIMING */
void app_start_progress(struct app *a);     /* progress file and the language */
double app_start_lessons(struct app *a);    /* lessons, start step; returns the ms taken */

#endif
