/* progress.h: the learner's saved state (position, language, quiz results, patterns explored,
 * measurements seen) under $XDG_STATE_HOME/banklab/progress.json (fallback
 * ~/.local/state/banklab). Several banklab processes may share it (a tutorial left open, a
 * lab run, a second tutorial): a save merges with what is on disk, entry by entry, the newest
 * change winning, under a lock (flock on progress.lock beside the file), then replaces the
 * file atomically (temp file, fsync, rename). Every change is stamped (unix seconds, to the
 * millisecond) by the functions below. A corrupt file is moved aside
 * (progress.json.corrupt-<unix time>) with a warning and the learner starts fresh. Strings
 * read from the file are made valid UTF-8 without control characters.
 * Uses cJSON internally; nothing here exposes it. No curses, no CUDA. */
#ifndef BANKLAB_PROGRESS_H
#define BANKLAB_PROGRESS_H

#include <stddef.h>

#include "../base/err.h"

#define PROGRESS_ID_MAX 64
#define PROGRESS_CODE_MAX 512
#define PROGRESS_MAX_QUIZ 256
#define PROGRESS_MAX_EXPLORED 64   /* most recent patterns kept */

struct progress_quiz {
    char lesson_id[PROGRESS_ID_MAX];
    char step_id[PROGRESS_ID_MAX];
    int attempts;                  /* answers given */
    int correct;                   /* 1 when the last answer was right */
    int first_correct;             /* 1 when the first answer was right (the grade) */
    char given[64];                /* last answer as text */
    double when;                   /* unix time of the last answer; 0 = unknown (older file) */
};

/* One pattern the learner looked at, with what the model predicted and what was measured. */
struct progress_explored {
    char code[PROGRESS_CODE_MAX];  /* pattern text with parameter values filled in */
    char where[2 * PROGRESS_ID_MAX]; /* "lesson/step" or "playground" */
    int wavefronts, conflicts, ways;  /* model */
    int has_measured;
    double measured_wavefronts, measured_conflicts; /* counters per instruction */
    double ms;                     /* case kernel: kernel time (median), 0 if none */
    double ns_per_access;          /* time of one warp access (docs/gpu.md), 0 if none */
    double slowdown;               /* against the conflict-free access, 0 if none */
    char device[128];              /* "" when nothing was measured */
    long long when;                /* unix time */
};

struct progress {
    char lesson_id[PROGRESS_ID_MAX];  /* last position */
    char step_id[PROGRESS_ID_MAX];
    char lang[8];                  /* "zh", "en" or "" (from locale) */
    int nquiz;
    struct progress_quiz quiz[PROGRESS_MAX_QUIZ];
    int nexplored;                 /* ring: oldest dropped when full */
    struct progress_explored explored[PROGRESS_MAX_EXPLORED];
    int nhistory;                  /* playground history, most recent last */
    char history[16][PROGRESS_CODE_MAX];
    int task_score, task_max;      /* graded tasks solved (points) */
    /* when each part last changed (unix seconds; 0 = unknown): the newer side wins a merge */
    double position_when, lang_when, task_when, history_when;
    double reset_when;             /* --reset: what changed before this is forgotten */
};

/* progress_default_path: $XDG_STATE_HOME/banklab/progress.json or
 * $HOME/.local/state/banklab/progress.json into buf. Returns buf, or NULL when neither
 * variable is set or it does not fit. Creates nothing. */
const char *progress_default_path(char *buf, size_t size);

/* progress_init: an empty state. */
void progress_init(struct progress *p);

/* progress_load: read path into *p. A missing file gives an empty state and returns 0.
 * A corrupt or unreadable file is renamed aside, *p is empty, warn (if not NULL) gets a
 * message naming the kept copy, and it returns 1. Returns -1 only when the file could not be
 * renamed either (warn says why); *p is still usable. */
int progress_load(const char *path, struct progress *p, struct bl_err *warn);

/* progress_read: read path into *p without touching the file (for reports and tools).
 * A missing file gives an empty state and returns 0. Returns -1 when the file is unreadable
 * or not a valid progress file: *p is then empty and err (if not NULL) says why. */
int progress_read(const char *path, struct progress *p, struct bl_err *err);

/* progress_save: merge *p with the file at path and write the result there, creating parent
 * directories (0700). Under an exclusive lock on progress.lock in the same directory (waited
 * for up to PROGRESS_LOCK_WAIT_MS): the file is read again, each quiz entry, the position, the
 * language, the task score and the playground history are taken from whichever side changed
 * them last (p on a tie), explored patterns are joined (the newest PROGRESS_MAX_EXPLORED
 * kept), anything older than the newer reset_when is dropped; the result is written
 * atomically and also left in *p. A corrupt file found there is moved aside first.
 * Returns 0, or -1 with err filled (the lock not obtained, a write error). Safe to call after
 * a signal was caught (from the main loop), not from inside a signal handler. */
#define PROGRESS_LOCK_WAIT_MS 3000
int progress_save(const char *path, struct progress *p, struct bl_err *err);


/* progress_set_position / _set_lang / _set_tasks: change that part and stamp it (only when
 * the value changes, for the position and the language). */
void progress_set_position(struct progress *p, const char *lesson_id, const char *step_id);
void progress_set_lang(struct progress *p, const char *lang);
void progress_set_tasks(struct progress *p, int score, int max);

/* progress_reset: an empty state that, once saved, forgets what was saved before now
 * (banklab --reset); entries other sessions save later are kept. */
void progress_reset(struct progress *p);

/* progress_record_quiz: add or update the result for lesson_id/step_id (stamped now). */
void progress_record_quiz(struct progress *p, const char *lesson_id, const char *step_id,
                          int correct, const char *given);

/* progress_record_explored: append (dropping the oldest when full). */
void progress_record_explored(struct progress *p, const struct progress_explored *e);

/* progress_push_history: add a playground pattern (moved to the end if already present;
 * stamps the history). */
void progress_push_history(struct progress *p, const char *code);

#endif
