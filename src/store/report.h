/* report.h: a learner's lab report (Markdown for people, JSON for graders) built from saved
 * progress (progress.h), the lesson set (titles, which steps are quizzes and tasks) and the
 * device that measured. Files are named banklab-report-<YYYY-MM-DD>.md / .json and written
 * atomically into the one directory the caller names; nothing is written anywhere else.
 * No curses, no CUDA; the JSON is written through json_write.h. Never prints, never exits. */
#ifndef BANKLAB_REPORT_H
#define BANKLAB_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "../base/err.h"
#include "../lesson/lesson.h"
#include "progress.h"

#define REPORT_FORMAT 1          /* "format" field of the JSON report */

/* Graded task results are kept in progress as quiz entries whose lesson id is
 * "lab:<lesson id>" (progress_record_quiz(p, "lab:lab-padding", step, solved, "PAD=1")); the
 * report lists them under graded tasks, not quizzes. Steps with a task and no quiz in the
 * lesson set are treated the same way. */
#define REPORT_TASK_PREFIX "lab:"

enum report_formats { REPORT_MD = 1, REPORT_JSON = 2, REPORT_BOTH = 3 };

/* What the report says about where it was made. Every pointer may be NULL. */
struct report_meta {
    const char *device;          /* e.g. gpu_info.device; NULL or "" = "no GPU (model only)" */
    const char *backend;         /* "cuda", "none" or "replay"; NULL = not stated */
    const char *learner;         /* free text (e.g. $USER); NULL = omitted */
    long long now;               /* unix time of the report; 0 = time(NULL) */
};

/* report_write_md: the Markdown report to f. set may be NULL (steps are then named by id
 * only and totals count what progress holds). lang picks the language of lesson titles.
 * Returns 0, or -1 when a write failed. */
int report_write_md(FILE *f, const struct progress *p, const struct lesson_set *set,
                    enum lesson_lang lang, const struct report_meta *meta);

/* report_write_json: the JSON report (fields documented in docs/teaching.md) to f.
 * Returns 0, or -1 when a write failed or memory ran out. */
int report_write_json(FILE *f, const struct progress *p, const struct lesson_set *set,
                      enum lesson_lang lang, const struct report_meta *meta);

/* report_write_dir: write the report(s) chosen by formats (REPORT_MD | REPORT_JSON),
 * "banklab-report-<YYYY-MM-DD>.md" and ".json" (local date of meta->now; 0 = time(NULL)), into
 * the existing directory dir (NULL = "."), each through a temp file in dir, fsync and rename;
 * an existing report of the same date is replaced. written (if not NULL) receives the paths
 * written, separated by "\n". Returns 0, or -1 with err filled (nothing half-written is left
 * behind). */
int report_write_dir(const char *dir, int formats, const struct progress *p,
                     const struct lesson_set *set, enum lesson_lang lang,
                     const struct report_meta *meta, char *written, size_t writtensz,
                     struct bl_err *err);

#endif
