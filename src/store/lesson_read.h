/* lesson_read.h: private to the lesson loader (lesson_load.c, lesson_read_*.c): the reader's
 * state over one file and the readers each file lends the others. Each reader returns 0 when
 * its part was read, -1 after reporting its problems (a field reader: 1 when an optional field
 * is absent). */
#ifndef BANKLAB_STORE_LESSON_READ_H
#define BANKLAB_STORE_LESSON_READ_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "../lesson/lesson.h"
#include "json.h"

#define PATH_BUF 192                  /* "steps[12].scene.params[3].keys" */
#define INT_SAFE 9007199254740992.0   /* 2^53: integers a double holds exactly */

/* One file being read; a problem is added with lesson_problem(&L->P, 0, PATH, ...). */
struct ld {
    const char *name;
    struct lesson_problems P;
    int oom;                     /* memory ran out: the file is given up */
};

/* ---- lesson_read_fields.c: paths, keys and typed fields ---- */

/* Paths for messages ("steps[2].scene.code"), cut with "..." past PATH_BUF. */
const char *lr_sub(char *buf, const char *path, const char *name);
const char *lr_subi(char *buf, const char *path, int index);

char *lr_dupstr(struct ld *L, const char *s);          /* sets L->oom on failure */
void *lr_calloc(struct ld *L, size_t n, size_t size);  /* n (at least 1) zeroed; ditto */
const cJSON *lr_get(const cJSON *obj, const char *name);
/* lr_field: obj's field name, NULL when absent; its path (path.name) into p (PATH_BUF) */
const cJSON *lr_field(const cJSON *obj, const char *name, const char *path, char *p);
int lr_is_ident_char(int c, int first);

/* lr_check_keys: obj has only the allowed keys (NULL-terminated), once each; an unknown one
 * is reported with the nearest valid name. Returns the number of problems. */
int lr_check_keys(struct ld *L, const cJSON *obj, const char *path, const char *const *allowed);
int lr_expect_object(struct ld *L, const cJSON *j, const char *path);
void lr_missing(struct ld *L, const char *path, const char *name);
/* lr_int_literal: 1 when the number j is written as an integer ("32", not "32.0", "3.2e1") */
int lr_int_literal(const cJSON *j);

/* Typed fields of obj: 0 read, 1 absent and optional, -1 after a problem. what words the
 * accepted range of an integer ("in 0..7"). A string must be non-blank text without control
 * characters but \n. */
int lr_get_int(struct ld *L, const cJSON *obj, const char *name, const char *path,
               int required, long long lo, long long hi, const char *what, long long *out);
/* lr_get_counts: the optional integer fields names (NULL-terminated) of obj, each in 0..1024,
 * into *dst[k]; returns how many are given, each problem counted in *bad. */
int lr_get_counts(struct ld *L, const cJSON *obj, const char *const *names, const char *path,
                  int *const *dst, int *bad);
int lr_get_bool(struct ld *L, const cJSON *obj, const char *name, const char *path, int *out);
int lr_get_string(struct ld *L, const cJSON *obj, const char *name, const char *path,
                  int required, const char **out);
int lr_get_id(struct ld *L, const cJSON *obj, const char *path, char **out);

/* A {"zh": ..., "en": ...} object (with is_choice also "value", into *value). */
int lr_read_text(struct ld *L, const cJSON *j, const char *path, struct lesson_text *out,
                 int is_choice, double *value);
int lr_get_text(struct ld *L, const cJSON *obj, const char *name, const char *path,
                int required, struct lesson_text *out);

/* ---- lesson_read_scene.c ---- */

/* lr_read_scene: the scene at j into s, its code run through the pattern language at the
 * defaults, every type and each parameter's min and max. Returns the number of accesses of
 * the code, or -1 after a problem. */
int lr_read_scene(struct ld *L, const cJSON *j, const char *path, struct lesson_scene *s);

/* ---- lesson_read_figure.c ---- */

/* lr_read_figures: the step's "figures" (gj) into st: each quoted by the step's texts in both
 * languages, with the claim the words around the quote make (struct lesson_figure's bound)
 * the same in both; a ratio's and a percentage's quotes written as one. Needs the step's
 * texts, hints, quiz and task read first. */
int lr_read_figures(struct ld *L, const cJSON *gj, const char *path, struct lesson_step *st);

/* ---- lesson_read_step.c ---- */

/* The step ids of one file, hashed: a repeated id is found in linear time however many steps
 * a file has. */
struct lr_ids {
    const struct lesson_step *steps;
    int *slot;                   /* step index + 1, 0 = empty */
    size_t cap;                  /* a power of two, at least twice the steps */
};

/* lr_read_step: step j into st (an element of ids->steps), with its scene, hints, quiz,
 * expectations, task and figures; parts with a problem are reported and left out. */
int lr_read_step(struct ld *L, const cJSON *j, const char *path, struct lesson_step *st,
                 struct lr_ids *ids);

#endif
