/* ui.h: the interactive tutorial (ncursesw). The command line (src/cli/tutorial.c) parses
 * options and opens the GPU runner; everything on the screen lives behind ui_run.
 * This header exposes no curses: callers need only the lesson and gpu headers. */
#ifndef BANKLAB_UI_H
#define BANKLAB_UI_H

#include "../gpu/gpu.h"

struct ui_options {
    const char *lessons_dir;   /* --lessons DIR, or NULL: lesson_find_dir decides */
    int lang;                  /* -1: saved choice, else the locale; LANG_ZH or LANG_EN */
    int chapter, step;         /* --chapter N --step M (1-based), 0 when not given */
    int reset;                 /* --reset: forget saved progress */
    int ascii;                 /* --ascii: ASCII glyphs even in a UTF-8 locale */
    int no_color;              /* --no-color (NO_COLOR in the environment does the same) */
    int present;               /* --present: presenter mode (progress kept in memory only,
                                  so the presenter's own earlier answers never show) */
    int keep_progress;         /* --keep-progress: presenter mode with the saved progress */
    double t_start;            /* bl_now_ms() when the program started (timing) */
    int device;                /* CUDA device to open in the background when gpu is NULL */
    const char *server;        /* --server SOCKET: the GPU server to ask (gpu_open_auto) */
    int no_server;             /* --no-server: measure in this process */
    int model_only;            /* --model-only (BANKLAB_MODEL_ONLY): without a GPU the model
                                  alone, not the shipped recording's figures */
    const char *kernel_file;   /* banklab FILE.cu: start on the kernel view of this file */
    int kernel_nopts;          /* ... with these launch options (--arg n=1024 ...) */
    const char *const *kernel_opt, *const *kernel_val;
    const char *kernel_measured; /* --measured FILE: the kernel view shows this recording of
                                  `banklab run --json` as the file's measurement (its warps in
                                  the grid), instead of measuring */
};

/* ui_run: run the tutorial until the learner quits or a signal (SIGINT, SIGTERM, SIGHUP)
 * arrives; progress is saved on quit, on step changes and on signals, and the terminal is
 * restored in every case. gpu and info describe the runner (e.g. a replay handle); the UI polls
 * it and never blocks on it; the caller keeps ownership and closes it afterwards. When gpu is
 * NULL the UI opens device opt->device itself on a background thread after the first frame
 * (finding a device and creating a context can take a second) and closes it before returning;
 * until it answers, the results panel says it is looking for a GPU.
 * Returns the exit status: 0 after q, 128+signal after a signal, 2 when stdin or stdout is
 * not a terminal or the terminal could not be used (message on stderr). */
int ui_run(const struct ui_options *opt, struct gpu *gpu, const struct gpu_info *info);

#endif
