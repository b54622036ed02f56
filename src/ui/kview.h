/* kview.h: the kernel view's private state, shared by its files only: kview.c (the file, its
 * runs, watching, the keys, the screen), kview_draw.c (layout and drawing) and kview_prompt.c
 * (the file prompt). See kview.c for what the view does. */
#ifndef BANKLAB_UI_KVIEW_H
#define BANKLAB_UI_KVIEW_H

#include <time.h>

#include "../kernel/kernel.h"
#include "../predict/predict.h"
#include "app.h"
#include "../kmeasure/kmeasure.h"

#define KV_OPTS 32            /* launch options kept for the runs */
#define KV_FILES 16           /* a result's other files (headers) whose lines are shown */
#define KV_SETTLE_MS 150      /* how long a changed file stays unchanged before it runs */
#define KV_MIN_SOURCE 48      /* columns the source keeps before a figure column is added */
#define KV_HEAT 4             /* columns of the heat glyphs */

struct kv_opt {
    char opt[24];
    char val[GPU_KERNEL_TEXT];
};

struct kv_open {              /* a file and the launch options given with it */
    char path[UI_PATH_MAX];
    struct kv_opt opt[KV_OPTS];
    int nopt;
};

struct kv_stat {              /* what watching compares */
    int ok;
    long long mtime_ns, size;
    unsigned long long ino;
};

#define KV_EXAMPLES 24

struct kv_example {           /* a shipped example kernel and the first sentence about it */
    char name[64];
    char what[160];
};

struct kv_row {
    int file, line;           /* the result's file index (0: the file itself), 1-based line */
    const char *text;         /* its source text (not terminated) */
    int tlen;
    int li;                   /* its figures: index in res.lines, or -1 */
    int diag;                 /* its first compiler message, or -1 */
};

struct kview {
    struct kv_open file;      /* the file shown and its launch options */
    int cli_taken;            /* the command line's file was opened */
    /* what is shown: a text and what was measured on it */
    char *src;
    size_t srclen;
    struct gpu_kernel_request req;    /* that text's launch (for the playground) */
    struct gpu_kernel_result res;
    int has_res;
    char *other[KV_FILES];
    struct kv_row *rows;
    int nrows, nsrc;          /* the first nsrc rows are the file's lines */
    struct bl_err problem;    /* why it cannot run (unreadable file, bad option) */
    int problem_line;         /* the line of the file it stands on, 0: none */
    char why[UI_MSG_MAX];     /* why the cursor's line has no grid (Enter), until it moves */
    struct kp_result pred;    /* the model's prediction of the text shown (kview_model.c) */
    int has_pred;
    struct kv_pjob *pjob;     /* the prediction being made, on its thread (kview_model.c) */
    int pred_stale;           /* its text is no longer shown: drop its result */
    int pred_placed;          /* the cursor was put on the worst predicted line once */
    struct bl_msg prog_note;  /* a program's run: why it gave no figures, or how it ended */
    int prog_told;            /* prog_note was put on the message line */
    time_t last_run;
    /* the run in flight */
    struct gpu_kernel_job *job;
    char *job_src;
    size_t job_len;
    struct gpu_kernel_request job_req;
    enum gpu_kernel_phase phase;
    double job_t0;            /* bl_now_ms() when it started */
    int again;                /* r while measuring: once more when it ends */
    /* watching */
    int shown_now;            /* on the stack (watching waits while the view is left) */
    int watch;
    struct kv_stat seen;      /* the file as the last run read it */
    struct kv_stat moved;     /* a change not settled yet ... */
    double moved_at;          /* ... since (bl_now_ms) */
    /* the cursor */
    int cur, top, hscroll;
    /* the file prompt */
    int prompting;
    char input[UI_PATH_MAX];
    int ilen, icur;
    char exdir[UI_PATH_MAX];  /* the shipped examples (assets/kernels), listed while prompting */
    struct kv_example ex[KV_EXAMPLES];
    int nex, exsel;           /* how many; the one Up/Down picked (-1: none) */
    struct kv_open ask;       /* what Enter asked to open (kv_prompt_key returned 1) */
};

/* kview_prompt.c: the file prompt (o, or z the first time): start it on the file shown (or
 * the examples' directory). kv_prompt_key: its keys (KS_KPROMPT): 1 when Enter asks to open
 * a file (the path and options checked, in k->ask, the prompt closed), 0 when the key was the
 * prompt's, -1 when it is the loop's (F1). */
void kv_prompt_start(struct kview *k);
int kv_prompt_key(struct app *a, struct kview *k, const struct ui_key *key);

/* kview_model.c: the model's prediction of the text shown (kv_predict, when it is shown),
 * the line of it for a row (NULL: none), whether the columns show it (nothing measured),
 * its totals, the text under the table for the cursor's line, and f: kv_fix returns 1 when
 * it wrote the fixed copy, whose path and options are in k->ask to be opened */
void kv_predict(struct kview *k);
void kv_predict_free(struct kview *k);
/* kv_predict_poll: 1 when a prediction arrived for the text shown (k->pred, has_pred);
 * kv_pred_worst: the row of the predicted line with the most excess, -1 none */
int kv_predict_poll(struct kview *k);
int kv_pred_worst(const struct kview *k);
/* kv_prog_note: a program's prog_note on the message line, once */
void kv_prog_note(struct app *a, struct kview *k);
/* kv_executing: the shown text is being executed on the CPU (its warps are still to come) */
int kv_executing(const struct kview *k);
const struct kp_line *kv_pred_line(const struct kview *k, const struct kv_row *w);
int kv_model_shown(const struct kview *k);
void kv_model_total(const struct kview *k, double *inst, double *wf, double *ideal, double *ex);
void kv_model_info(const struct app *a, const struct kview *k, char *buf, size_t size);
int kv_fix(struct app *a, struct kview *k);
/* kv_cur_row: the cursor's row, NULL when there is none */
const struct kv_row *kv_cur_row(const struct kview *k);

/* kview_play.c: row w's access in the playground: 0 (opened), or -1 with why (size bytes)
 * saying why not */
int kv_play_open(struct app *a, const struct kview *k, const struct kv_row *w, char *why,
                 size_t size);

/* kview_draw.c */
void kv_draw(const struct app *a, const void *st);
/* kv_table_rows: the rows of source the screen shows at its size now */
int kv_table_rows(const struct app *a, const struct kview *k);
/* kv_first_shown: the first row shown, k->top moved as little as possible to show the cursor */
int kv_first_shown(const struct kview *k, int height);
/* kv_fmt_dims: "32x32", "256", "8x8x4" */
void kv_fmt_dims(const unsigned d[3], char *buf, size_t size);

#endif
