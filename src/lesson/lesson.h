/* lesson.h: lessons as C structs, loaded from the JSON files in lessons/ (format in
 * docs/lessons.md and assets/lesson.schema.json). Only src/lesson includes cJSON.h; nothing in
 * this header exposes cJSON. Depends on the model (pattern.h) for checking scenes. */
#ifndef BANKLAB_LESSON_H
#define BANKLAB_LESSON_H

#include <stddef.h>

#include "../model/pattern.h"

#define LESSON_FORMAT 1
#define LESSON_MSG_MAX 512
#define LESSON_FILE_MAX (8u << 20)    /* larger lesson files are refused unread */
#define LESSON_PROBLEMS_SHOWN 100     /* problems reported per file; the rest only counted */

enum lesson_lang { LANG_ZH = 0, LANG_EN = 1 };

/* A text in both languages; both are required by the loader (non-empty UTF-8). */
struct lesson_text {
    char *zh;
    char *en;
};

/* Where a field stands in its file (1-based; 0 when absent). */
struct lesson_pos {
    int line, col;
};

/* lesson_tr: the text in lang, else in the other language (when lang's is NULL or empty),
 * else "". Never NULL: the one zh/en picker for lesson text (screen, lab, reports). */
const char *lesson_tr(const struct lesson_text *t, enum lesson_lang lang);

/* lesson_lang_from_env: LANG_ZH when the first of LC_ALL, LC_MESSAGES, LANG that is set and
 * not empty starts with "zh", else LANG_EN. */
enum lesson_lang lesson_lang_from_env(void);

/* A named integer parameter the learner changes with keys. */
struct lesson_param {
    char *name;                  /* identifier used in the scene code, e.g. "PAD" */
    struct lesson_text label;    /* optional; zh/en NULL when absent */
    long long def, min, max, step;
    int key_dec, key_inc;        /* keys that lower/raise it, e.g. 'p' / 'P' (Shift = more);
                                  * 0 if none */
};

/* One assignment of parameter values (and optionally the element type). */
struct lesson_binding {
    int nvalues;
    char **names;                /* parameter names */
    long long *values;
    char *type;                  /* value for typedef T, or NULL */
};

struct lesson_scene {
    char *code;                  /* pattern text (pattern.h); may use T when types given */
    unsigned block[3];           /* default 32 x 1 x 1 */
    unsigned warp;               /* default 0 */
    int access;                  /* access drawn first (0-based) */
    unsigned long long dyn_bytes;/* dynamic shared memory bytes */
    int ntypes;
    char **types;                /* element types cycled for T ("float", "float2", ...) */
    int nparams;
    struct lesson_param *params;
    char *kernel;                /* kernel to launch: "pattern" or a case kernel name */
    char *sweep;                 /* parameter name for the sweep view, or NULL */
    int line, col;               /* where the scene object starts in its file */
};

enum lesson_quiz_kind { QUIZ_CHOICE = 0, QUIZ_NUMBER = 1 };
enum lesson_field { FIELD_NONE = 0, FIELD_WAVEFRONTS, FIELD_CONFLICTS, FIELD_WAYS, FIELD_PASSES };

/* Ties a quiz answer to the model: the answer must equal this model result. */
struct lesson_check {
    enum lesson_field field;     /* FIELD_NONE when the quiz is not a model fact */
    int access;
    struct lesson_binding bind;
};

struct lesson_quiz {
    enum lesson_quiz_kind kind;
    int predict;                 /* 1: hide grid and results until answered */
    struct lesson_text question;
    int nchoices;
    struct lesson_text *choices;
    double *choice_values;       /* per choice numeric value or NAN (for check) */
    int answer;                  /* choice: 0-based index */
    double number;               /* number: the answer */
    double tolerance;            /* number: accepted |given - number| */
    struct lesson_text explanation;
    struct lesson_check check;
    int line, col;
    struct lesson_pos answer_at; /* where "answer" stands */
};

/* A model result that must hold for given parameter values. -1 = not checked. */
struct lesson_expect {
    struct lesson_binding bind;
    int access;
    int wavefronts, conflicts, ways, passes;
    int line, col;
    struct lesson_pos at[5];     /* where each stated field stands, indexed by enum lesson_field */
};

/* A graded workshop task: the learner finds parameter values meeting a requirement. */
struct lesson_task {
    struct lesson_text goal;
    int access;
    int max_wavefronts, max_conflicts, max_ways;  /* requirements, -1 = none */
    int points;
    int line, col;
};

/* The result fields a figure may quote: struct gpu_result's names, which are also the
 * recording's (docs/gpu.md). Space-separated. */
#define LESSON_FIGURE_FIELDS "ms_median ms_min ms_max clk_per_request bytes_per_clk_per_sm " \
                             "gbps wavefronts_ld wavefronts_st conflicts_ld conflicts_st " \
                             "clk_per_access ns_per_access slowdown"

/* A measured figure the step's text quotes, tied to a recording row so that a new recording
 * cannot leave stale prose (lesson_check_figures). The value is field of the row with this
 * group and label; with over, that divided by the same field of row over (same group); with
 * percent, 100 * (that ratio - 1). */
struct lesson_figure {
    char *group;                 /* the row's group, e.g. "transpose" */
    char *label;                 /* the row's label, e.g. "transpose_padded PAD=1" */
    char *field;                 /* one of LESSON_FIGURE_FIELDS */
    char *over;                  /* label of the row it is divided by, or NULL */
    int percent;                 /* 1: quoted as a percentage above (below: negative) over */
    double value;                /* as quoted */
    int decimals;                /* digits after the point in the quote: its precision */
    char text[32];               /* the quote as written in the file, e.g. "3495", "2.2" */
    int line, col;
};

struct lesson_step {
    char *id;
    struct lesson_text title;
    struct lesson_text text;     /* paragraphs separated by blank lines */
    struct lesson_text key;      /* one key sentence (presenter mode); NULL fields if absent */
    struct lesson_scene *scene;  /* NULL when the step has none */
    int nhints;
    struct lesson_text *hints;
    struct lesson_quiz *quiz;    /* NULL when none */
    int nexpects;
    struct lesson_expect *expects;
    struct lesson_task *task;    /* NULL when not graded */
    int nfigures;
    struct lesson_figure *figures;
    int line, col;
};

struct lesson {
    char *path;                  /* file it came from */
    char *id;
    struct lesson_pos id_at;     /* where "id" stands (for cross-file messages) */
    int chapter;
    struct lesson_text title;
    int nsteps;
    struct lesson_step *steps;
};

struct lesson_set {
    int nlessons;
    struct lesson *lessons;      /* sorted by chapter, then path */
};

/* A problem found while loading or checking: file:line:col: message. */
struct lesson_error {
    char file[256];
    int line, col;               /* 1-based; 0 when unknown */
    char msg[LESSON_MSG_MAX];
};

/* lesson_load_file: parse and validate one file (types, ranges, both languages, scene syntax).
 * Returns a new lesson (free with lesson_free) or NULL with err filled (first error wins). */
struct lesson *lesson_load_file(const char *path, struct lesson_error *err);

/* lesson_load_buffer: the same from memory; name is used in messages. */
struct lesson *lesson_load_buffer(const char *name, const char *data, size_t len,
                                  struct lesson_error *err);

/* lesson_load_report: like lesson_load_buffer (data NULL: read the file name), but goes on
 * after a problem and calls report once per problem (the loader's first error wins only
 * within one field), for the first LESSON_PROBLEMS_SHOWN problems; past those one last call
 * (line 0) says "N more problems not shown". Returns the lesson when there was no problem,
 * else NULL; *nproblems (if not NULL) receives the number of problems found, shown or not.
 * A file that cannot be read (missing, not a regular file, larger than LESSON_FILE_MAX) is
 * reported with line 0 and *nproblems = -1. Strings with control characters other than \n
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

void lesson_free(struct lesson *l);

/* lesson_task_met: 1 when a result (the model's, or counters rounded to whole numbers) is at
 * or below every bound of task t: the one grading rule of `banklab check`, `banklab lab` and
 * the tutorial. */
int lesson_task_met(const struct lesson_task *t, long wavefronts, long conflicts, long ways);

/* lesson_check: run every expectation and quiz check of l through the model. Calls report
 * once per problem (if not NULL; the first LESSON_PROBLEMS_SHOWN, then one "N more problems
 * not shown" with line 0) and returns the number of problems (0 = all hold). */
int lesson_check(const struct lesson *l,
                 void (*report)(const struct lesson_error *e, void *ctx), void *ctx);

struct recording;

/* lesson_check_figures: compare every quoted figure of l with recording r (recording.h): the
 * rows must exist, hold the field, and give the quoted value at its precision (3495 holds
 * 3494.5..3495.5; 2.2 holds 2.15..2.25). Calls report once per problem and returns the
 * number of problems. */
int lesson_check_figures(const struct lesson *l, const struct recording *r,
                         void (*report)(const struct lesson_error *e, void *ctx), void *ctx);

/* lesson_set_load: load every *.json in the directory path (sorted), or the one lesson file
 * path names. Files that fail to load are reported via report and skipped; with checked, so
 * are lessons that fail lesson_check (its problems are reported, then one line saying the
 * file was skipped): what `banklab check` refuses is never shown to a learner. Returns 0 if
 * at least one lesson loaded, -1 otherwise. */
int lesson_set_load(struct lesson_set *set, const char *path, int checked,
                    void (*report)(const struct lesson_error *e, void *ctx), void *ctx);

/* lesson_set_load_dir: lesson_set_load without the model check (reports, verify). */
int lesson_set_load_dir(struct lesson_set *set, const char *dir,
                        void (*report)(const struct lesson_error *e, void *ctx), void *ctx);

void lesson_set_done(struct lesson_set *set);

/* lesson_find_dir: the lessons directory: explicit (from --lessons) if not NULL, else
 * $BANKLAB_LESSONS, else the installed share directory (BANKLAB_SHARE_DIR "/lessons"),
 * else ./lessons. The first two may name one lesson file instead. Writes into buf; returns
 * buf or NULL if none exists. */
const char *lesson_find_dir(const char *explicit_dir, char *buf, size_t size);

/* lesson_scene_env: an env for scene s with its defaults, overridden by bind (may be NULL).
 * Fills code_buf with the code to parse (with "typedef <type> T; " prefixed when the scene
 * has types). The type is bind->type when bind gives one, else types[type_index] (index
 * taken modulo ntypes; negative means 0). Returns 0, or -1 when the code does not fit or a
 * binding name is not a parameter of the scene. */
int lesson_scene_env(const struct lesson_scene *s, const struct lesson_binding *bind,
                     int type_index, struct pattern_env *env, char *code_buf, size_t size);

/* lesson_binding_text: an env's parameter values, the element type (NULL: none) and the access
 * for a message: "PAD=0, T=float2, access 1". Writes into buf (always terminated). */
void lesson_binding_text(const struct pattern_env *env, const char *type, int access,
                         char *buf, size_t size);

/* ---- every setting of a scene (settings.c): what `banklab verify` measures and the shipped
 * recording covers, so replay has a measurement for every value a learner can choose. ---- */

#define LESSON_SETTINGS_MAX 1024  /* scenes with more parameter combinations are thinned */
#define LESSON_SWEEP_MAX 128      /* values of one parameter at most, as in the sweep view */

/* lesson_scene_settings: call fn once per parameter setting of scene s: every combination of
 * its parameters' values (min..max by step) when there are at most LESSON_SETTINGS_MAX;
 * otherwise the defaults, then each parameter alone over its values (others at their
 * defaults), its step doubled until it has at most LESSON_SWEEP_MAX values as the sweep view
 * does. The binding passed to fn names every parameter (type NULL) and lives for the call
 * only. fn returns nonzero to stop. Returns the number of settings visited, or -1 when fn
 * stopped. */
int lesson_scene_settings(const struct lesson_scene *s,
                          int (*fn)(const struct lesson_binding *bind, void *ctx), void *ctx);

/* lesson_scene_accesses: call fn for every access the learner can draw at one setting (bind,
 * NULL for the defaults): each element type (only bind->type when it names one), each warp of
 * the block, each access of the code that the model evaluates (an access that fails, e.g.
 * out of bounds at that value, is skipped). fn returns nonzero to stop. Returns the number of
 * accesses visited, or -1 when fn stopped or the code does not parse. */
int lesson_scene_accesses(const struct lesson_scene *s, const struct lesson_binding *bind,
                          int (*fn)(const struct bank_access *acc, int type_index,
                                    unsigned warp, int access, void *ctx),
                          void *ctx);

/* lesson_scenes_digest: a 64-bit hash of what decides which accesses a learner can draw in
 * set (lesson and step ids, every scene's code, block, warp, access, dynamic bytes, types,
 * parameters and kernel, every expectation's binding), as 16 hex digits in buf (17 bytes).
 * `banklab verify --json` writes it into the recording; a recording whose digest equals the
 * lessons' covers every setting of every scene. Text changes leave it unchanged. */
void lesson_scenes_digest(const struct lesson_set *set, char buf[17]);

#endif
