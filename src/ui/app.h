/* app.h: the tutorial's internal state (one struct app passed everywhere), colour roles,
 * glyph tables and the helpers the screens share. Only src/ui includes this header and curses.
 * Screens are init/draw/key; one input loop in app.c dispatches and redraws once per event. */
#ifndef BANKLAB_UI_APP_H
#define BANKLAB_UI_APP_H

#include <curses.h>
#include <stdint.h>
#include <stdio.h>

#include "../gpu/gpu.h"
#include "../lesson/lesson.h"
#include "../lesson/progress.h"
#include "../model/bank.h"
#include "../model/pattern.h"
#include "ui.h"

/* Display lines are clipped to the screen anyway: a truncated snprintf is intended here. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

#define UI_CODE_MAX 2048
#define UI_MSG_MAX 512
#define UI_PATH_MAX 1024
#define UI_SWEEP_MAX 128
#define UI_MIN_W 72               /* below this the compact grid does not fit */
#define UI_MIN_H 20
#define UI_PRESENT_MIN_W 100
#define UI_PRESENT_MIN_H 26

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
    const char *ellipsis;
    const char *sep;          /* between items of a status line */
};

struct app;

/* The screen's own words, in the current language (strings.c). */
enum ui_str {
    UIS_NEXTBACK = 0, UIS_KEYS, UIS_INSPECT_KEYS, UIS_HIDDEN, UIS_PRESENT_HIDDEN,
    UIS_CHOICE_PREDICT, UIS_CHOICE, UIS_NUMBER_PREDICT, UIS_NUMBER, UIS_ANSWER_PROMPT, UIS_RIGHT,
    UIS_WRONG, UIS_ANSWER, UIS_REVEALED, UIS_HINT, UIS_CODE, UIS_MODEL, UIS_MEASURED, UIS_NO_GPU,
    UIS_TOC_TITLE, UIS_TOC_KEYS, UIS_SWEEP_KEYS, UIS_PLAY_TITLE, UIS_PLAY_INTRO, UIS_PLAY_KEYS,
    UIS_COUNT
};
const char *ui_str(const struct app *a, enum ui_str s);

enum ui_screen { SCR_TUTOR = 0, SCR_TOC, SCR_PLAY, SCR_SWEEP, SCR_ERROR };

/* The drawn access: a lesson scene or the playground's text, evaluated through the model. */
struct ui_scene {
    const struct lesson_scene *ls;        /* NULL in the playground */
    struct pattern *pat;                  /* parsed code, owned */
    char code[UI_CODE_MAX];               /* text given to the parser */
    char shown[UI_CODE_MAX];              /* code with parameter values filled in */
    struct pattern_env env;
    int type_index;
    long long value[PATTERN_MAX_PARAMS];  /* current value of ls->params[i] */
    const char *bind_name[PATTERN_MAX_PARAMS];
    int access, naccess;
    unsigned warp, nwarps;
    int parsed;                           /* pat is valid */
    int ok;                               /* acc/res valid */
    struct pattern_error err;
    char errtext[UI_MSG_MAX];             /* one line: what went wrong */
    struct bank_access acc;
    struct bank_result res;
    uint64_t req_id;                      /* GPU request for this state (0: none) */
};

struct ui_quiz_state {
    int answered;             /* answered in this visit (or earlier, from progress) */
    int correct;
    int choice;               /* chosen index, -1 */
    char input[32];           /* number being typed */
    int revealed;             /* predict step shown without an answer (e, Enter) */
};

struct ui_inspect {
    int on;
    int pass, row, bank;
    int k;                    /* which lane of the cell is detailed (Enter cycles) */
};

struct ui_sweep {
    int n;
    int param;                            /* index in ls->params, -1 none */
    long long value[UI_SWEEP_MAX];
    int wavefronts[UI_SWEEP_MAX];         /* -1 when the model failed */
    double measured[UI_SWEEP_MAX];        /* clk/request or ms; <0 when not (yet) measured */
    int measured_is_clk;
    uint64_t req_base;                    /* ids req_base+i belong to value i */
    int next_submit;                      /* next value to submit */
};

struct ui_play {
    char text[PROGRESS_CODE_MAX];
    int len, cursor;
    int hist;                             /* browsing history index, -1 none */
    char filtered[PROGRESS_CODE_MAX];     /* text without NAME=VALUE statements */
    int colmap[PROGRESS_CODE_MAX];        /* filtered column -> text column */
    char params[UI_MSG_MAX];              /* "PAD=1 block=32x8" */
    char unset[UI_MSG_MAX];               /* parameters the text uses but nobody set (0) */
    struct ui_scene sc;
};

struct app {
    struct ui_options opt;
    const struct ui_glyphs *g;
    int color;                            /* colour pairs in use */
    int utf8;
    enum lesson_lang lang;
    int W, H;

    /* lessons */
    struct lesson_set set;
    int have_lessons;
    char lessons_dir[UI_PATH_MAX];
    char load_errors[UI_MSG_MAX * 2];     /* what failed to load (first few) */
    int nload_errors;
    int li, si;                           /* current lesson, step */

    /* progress */
    struct progress prog;
    char prog_path[UI_PATH_MAX];
    int have_prog_path;

    /* GPU */
    struct gpu *gpu;
    int own_gpu;                          /* opened here (closed by ui_run) */
    int opening;                          /* the background gpu_open is running */
    struct gpu_info info;
    uint64_t next_id;
    struct gpu_result last;               /* result for the current scene state */
    int has_last, pending;
    int inflight;                         /* requests submitted and not yet polled */
    struct ui_scene *submit_due;          /* scene whose request waits for a free runner */

    /* screens */
    enum ui_screen screen, back;          /* back: where Esc returns from TOC/sweep/play */
    int help;                             /* help overlay on top */
    struct ui_scene sc;                   /* the current step's scene */
    struct ui_quiz_state quiz;
    struct ui_inspect insp;
    struct ui_sweep sweep;
    struct ui_play play;
    int hints_shown;
    int text_scroll;
    int toc_cursor, toc_top;
    char msg[UI_MSG_MAX];                 /* one-line message over the key bar until a key */
    int msg_warn;
    int dirty;                            /* redraw needed */
    int save_due;                         /* progress changed: saved when the input is idle */
    int quit;

    FILE *timing;                         /* BANKLAB_TIMING */
};

/* theme.c */
void theme_init(struct app *a);                       /* colours + glyphs, once */
attr_t theme_attr(const struct app *a, enum ui_role r);

/* text.c: UTF-8 measured in display columns (wcwidth), never bytes. */
int text_width(const char *s);
int text_width_n(const char *s, size_t n);
size_t text_fit(const char *s, size_t n, int maxcols, int *cols);
/* text_line: the next wrapped line of s[0..n) at width cols: returns its byte length;
 * *next gets the offset where the following line starts (n at the end). Backticks are
 * zero-width (they mark code). Breaks at spaces, between wide characters, at '\n'. */
size_t text_line(const char *s, size_t n, int width, size_t *next);
/* text_put: draw s (n bytes, clipped to maxcols) at y,x; returns columns used.
 * rich: backticks toggle UIC_TEXTCODE and are not drawn. */
int text_put(const struct app *a, int y, int x, int maxcols, const char *s, size_t n,
             attr_t at, int rich);
int text_puts(const struct app *a, int y, int x, int maxcols, const char *s, attr_t at);
/* text_count: lines s wraps into at width. */
int text_count(const char *s, int width);
/* text_draw: wrapped s from line skip, at most h lines; returns lines drawn. */
int text_draw(const struct app *a, int y, int x, int w, int h, const char *s, int skip,
              attr_t at);
void text_fill(int y, int x, int w, attr_t at);

/* scene.c: evaluate scenes through the lesson layer, the pattern language and the model. */
void scene_clear(struct ui_scene *s);
int scene_load(struct app *a, struct ui_scene *s, const struct lesson_scene *ls);
void scene_eval(struct app *a, struct ui_scene *s);
int scene_eval_values(struct app *a, const struct ui_scene *s, int param, long long v,
                      struct bank_result *res, struct bank_access *acc_out);
void scene_submit(struct app *a, struct ui_scene *s);
/* scene_case_request: the case-kernel request for s (kernel parameters only, defaults filled
 * in), with parameter index param set to v (param -1: the current values). */
void scene_case_request(const struct ui_scene *s, int param, long long v, struct gpu_request *rq);
int scene_param_key(struct app *a, struct ui_scene *s, int ch);
void scene_cycle_type(struct app *a, struct ui_scene *s);
void scene_warp(struct app *a, struct ui_scene *s, int delta);
void scene_next_access(struct app *a, struct ui_scene *s);

/* grid.c */
int grid_rows_wanted(const struct app *a, const struct ui_scene *s);
int grid_rows_min(const struct ui_scene *s);   /* every pass with one row and its footer */
void grid_draw(const struct app *a, int y, int x, int w, int h, const struct ui_scene *s,
               const struct ui_inspect *in, int big);
int grid_inspect_text(const struct app *a, const struct ui_scene *s, const struct ui_inspect *in,
                      char *l1, char *l2, size_t size);
void grid_legend(const struct app *a, char *buf, size_t size);  /* one line: what marks mean */
void grid_inspect_move(const struct ui_scene *s, struct ui_inspect *in, int key);
void grid_inspect_clamp(const struct ui_scene *s, struct ui_inspect *in);
int results_rows(const struct app *a);  /* 2, or 3 with a GPU or a recording */
int results_draw(const struct app *a, int y, int x, int w, int h, const struct ui_scene *s,
                 int big);
void params_line(const struct app *a, const struct ui_scene *s, char *buf, size_t size);

/* tutor.c: the main screen */
void tutor_enter_step(struct app *a);
void tutor_resubmit(struct app *a);   /* measure the step's access again (back from elsewhere) */
void tutor_draw(struct app *a);
int tutor_key(struct app *a, int ch);
const struct lesson_step *app_step(const struct app *a);

/* screens.c: contents, help, sweep, error, too small */
void toc_open(struct app *a);
void toc_draw(struct app *a);
int toc_key(struct app *a, int ch);
void help_draw(struct app *a);
void sweep_open(struct app *a);
void sweep_draw(struct app *a);
int sweep_key(struct app *a, int ch);
void sweep_result(struct app *a, const struct gpu_result *r);
void sweep_pump(struct app *a);
void error_draw(struct app *a);
void small_draw(struct app *a, int need_w, int need_h);

/* play.c: the playground */
void play_open(struct app *a);
void play_draw(struct app *a);
int play_key(struct app *a, int ch);
void play_close(struct app *a);

/* app.c */
void app_msg(struct app *a, int warn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void app_save(struct app *a);
void app_save_soon(struct app *a);     /* save at the next idle tick (never delays a frame) */
void app_goto(struct app *a, int li, int si);
void app_export_svg(struct app *a, const struct ui_scene *s, const char *name);
void app_export_report(struct app *a);
void app_keybar(struct app *a, const char *keys);
void app_title(struct app *a, const char *left, const char *right);
const char *app_export_dir(void);

#endif
