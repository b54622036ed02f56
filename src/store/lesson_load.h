/* lesson_load.h: lesson files (JSON, docs/lessons.md) read into the structs of
 * lesson/lesson.h, every problem named by its JSON path (a syntax error by its line:col);
 * the lessons directory and a set of lessons read from it. The JSON side of lessons:
 * src/store owns cJSON and the files; src/lesson works on what is read. Never prints, never exits. */
#ifndef BANKLAB_STORE_LESSON_LOAD_H
#define BANKLAB_STORE_LESSON_LOAD_H

#include <stddef.h>

#include "../lesson/lesson.h"

/* lesson_load_file: parse and validate one file (types, ranges, both languages, scene syntax).
 * Returns a new lesson (free with lesson_free) or NULL with err filled (first error wins). */
struct lesson *lesson_load_file(const char *path, struct lesson_error *err);

/* lesson_load_report: like lesson_load_file, from data (len bytes; name is used in messages)
 * or, data NULL, from the file name, but goes on
 * after a problem and calls report once per problem (the loader's first error wins only
 * within one field), for the first LESSON_PROBLEMS_SHOWN problems; past those one last call
 * says "N more problems not shown". Returns the lesson when there was no problem, else NULL;
 * *nproblems (if not NULL) receives the number of problems found, shown or not. A file that
 * cannot be read (missing, not a regular file, larger than LESSON_FILE_MAX) is reported with
 * no place and *nproblems = -1. Strings with control characters other than \n
 * are problems: a lesson cannot drive the terminal it is shown on. */
struct lesson *lesson_load_report(const char *name, const char *data, size_t len,
                                  void (*report)(const struct lesson_error *e, void *ctx),
                                  void *ctx, int *nproblems);

/* lesson_load_partial: like lesson_load_report, but when the file is JSON and only some parts
 * have problems, returns what could be read anyway, with those parts left out (a broken
 * scene, with the quiz check, expectations and task that depend on it; an expectation or task
 * with a problem; a quiz check with a problem), so that lesson_check can go on over the rest.
 * NULL when the file cannot be read, is not JSON, or memory ran out. For `banklab check`:
 * such a lesson is never shown to a learner. */
struct lesson *lesson_load_partial(const char *name, const char *data, size_t len,
                                   void (*report)(const struct lesson_error *e, void *ctx),
                                   void *ctx, int *nproblems);

/* lesson_set_load: load every *.json in the directory path (sorted), or the one lesson file
 * path names. Files that fail to load are reported via report and skipped; with checked, so
 * are lessons that fail lesson_check (its problems are reported, then one line saying the
 * file was skipped): what `banklab check` refuses is never shown to a learner. Returns 0 if
 * at least one lesson loaded, -1 otherwise. Free the set with lesson_set_done. */
int lesson_set_load(struct lesson_set *set, const char *path, int checked,
                    void (*report)(const struct lesson_error *e, void *ctx), void *ctx);

/* lesson_set_load_dir: lesson_set_load without the model check (reports, verify). */
int lesson_set_load_dir(struct lesson_set *set, const char *dir,
                        void (*report)(const struct lesson_error *e, void *ctx), void *ctx);

/* lesson_find_dir: the lessons directory: explicit (from --lessons) if not NULL, else
 * $BANKLAB_LESSONS, else the installed share directory (BANKLAB_SHARE_DIR "/lessons"),
 * else ./lessons. The first two may name one lesson file instead. Writes into buf; returns
 * buf or NULL if none exists. */
const char *lesson_find_dir(const char *explicit_dir, char *buf, size_t size);

#endif
