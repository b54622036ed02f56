/* lesson.h: a lesson as C structs (format in docs/lessons.md and assets/lesson.schema.json),
 * and what is done with one once it is in memory: checking its expectations, quizzes and tasks
 * through the model, scene environments, every setting of a scene, freeing. Reading lesson
 * files is src/store's (store/lesson_load.h): this room has no cJSON and opens no files.
 * Depends on the model (pattern.h). */
#ifndef BANKLAB_LESSON_H
#define BANKLAB_LESSON_H

#include <stddef.h>

#include "../base/err.h"
#include "../model/pattern.h"

#define LESSON_FORMAT 1
#define LESSON_FILE_MAX (8u << 20)    /* larger lesson files are refused unread */
#define LESSON_PROBLEMS_SHOWN 100     /* problems reported per file; the rest only counted */

enum lesson_lang { LANG_ZH = 0, LANG_EN = 1 };

/* A text in both languages; both are required by the loader (non-empty UTF-8). */
struct lesson_text {
    char *zh;
    char *en;
};

/* lesson_tr: the text in lang, else in the other language (when lang's is NULL or empty),
 * else "". Never NULL: the one zh/en picker for lesson text (screen, lab, reports). */
const char *lesson_tr(const struct lesson_text *t, enum lesson_lang lang);

/* lesson_lang_code: "zh" or "en", the language's name on the command line (--lang), in the
 * progress file and in reports. lesson_lang_parse: the language named code ("zh" or "en")
 * into *out, 0; -1 (and *out unchanged) for any other text or NULL. */
const char *lesson_lang_code(enum lesson_lang lang);
int lesson_lang_parse(const char *code, enum lesson_lang *out);

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
};

/* A model result that must hold for given parameter values. -1 = not checked. */
struct lesson_expect {
    struct lesson_binding bind;
    int access;
    int wavefronts, conflicts, ways, passes;
};

/* A graded workshop task: the learner finds parameter values meeting a requirement. */
struct lesson_task {
    struct lesson_text goal;
    int access;
    int max_wavefronts, max_conflicts, max_ways;  /* requirements, -1 = none */
    int points;
};

/* The result fields a figure may quote: struct gpu_result's names, which are also the
 * recording's (docs/gpu.md). Space-separated. */
#define LESSON_FIGURE_FIELDS "ms_median ms_min ms_max clk_per_request bytes_per_clk_per_sm " \
                             "gbps wavefronts_ld wavefronts_st conflicts_ld conflicts_st " \
                             "clk_per_access ns_per_access slowdown"

/* A measured figure the step's text quotes, tied to a recording row so that a new recording
 * cannot leave stale prose (recording_check_figures, store/recording.h). The value is field
 * of the row with this group and label; with over, that divided by the same field of row over
 * (same group); with percent, 100 * (that ratio - 1). */
enum { LESSON_FIG_ABOUT = 0, LESSON_FIG_AT_MOST = 1, LESSON_FIG_AT_LEAST = 2 };

struct lesson_figure {
    char *group;                 /* the row's group, e.g. "transpose" */
    char *label;                 /* the row's label, e.g. "transpose_padded PAD=1" */
    char *field;                 /* one of LESSON_FIGURE_FIELDS */
    char *over;                  /* label of the row it is divided by, or NULL */
    int percent;                 /* 1: quoted as a percentage above (below: negative) over */
    double value;                /* as quoted */
    int decimals;                /* digits after the point in the quote: its precision */
    char text[32];               /* the quote as written in the file, e.g. "3495", "2.2" */
    int bound;                   /* what the sentence claims of it (read from the text, the
                                  * same in zh and en): LESSON_FIG_ABOUT, the value rounds to
                                  * the quote; _AT_MOST, "within 11 %" (the lexicon's
                                  * AT_MOST_BEFORE): its size is at most the quote's;
                                  * _AT_LEAST, "more than" (AT_LEAST_BEFORE) */
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
};

struct lesson {
    char *path;                  /* file it came from */
    char *id;
    int chapter;
    struct lesson_text title;
    int nsteps;
    struct lesson_step *steps;
};

struct lesson_set {
    int nlessons;
    struct lesson *lessons;      /* sorted by chapter, then path */
};

/* A problem found while loading or checking a lesson. err.msg is worded "PATH: message", the
 * JSON path naming the field ("steps[2].scene.code"); err.where.at is the byte offset + 1 of
 * a JSON syntax error in the file and line:col its place (1-based, columns in characters),
 * all 0 for a problem that its path locates. */
struct lesson_error {
    char file[256];
    int line, col;
    struct bl_err err;           /* err.why: the message alone, without its path */
    char path[128];              /* the JSON path before the message ("" for none) */
};

/* The problem list of one file: the loader (src/store) and the checker add each problem they
 * find with lesson_problem; it goes to report (if not NULL), the first LESSON_PROBLEMS_SHOWN
 * of them, and n counts them all. */
struct lesson_problems {
    const char *file;            /* the name in every message */
    void (*report)(const struct lesson_error *e, void *ctx);
    void *ctx;
    int n;                       /* problems found, shown or not */
    const char *text;            /* the file's text (len bytes) for line:col, or NULL */
    size_t len;
};

/* lesson_problem: the one way to add a problem: at the byte offset at - 1 of P->text (a
 * syntax error), or at 0 where the path locates it; worded "PATH: message" (path NULL or "":
 * the message alone), the message a row of msg.def (id, its arguments), so that it can be
 * said in either language. The loader and the checker go on past a problem and add each one.
 * lesson_problem_err: the same with the message of the error e. */
void lesson_problem(struct lesson_problems *P, int at, const char *path, int id, ...);
void lesson_problem_err(struct lesson_problems *P, int at, const char *path,
                        const struct bl_err *e);

/* lesson_error_line: e as one line into buf (n bytes): "file:line:col: message", or
 * "file: message" when its path locates it. Returns buf. The one wording of a problem. */
const char *lesson_error_line(const struct lesson_error *e, char *buf, size_t n);
/* lesson_error_text: the same in lang (the message from its row of msg.def) */
const char *lesson_error_text(const struct lesson_error *e, enum bl_lang lang, char *buf,
                              size_t n);

/* lesson_problems_end: when more than LESSON_PROBLEMS_SHOWN were found, one last report
 * "N more problems not shown". */
void lesson_problems_end(struct lesson_problems *P);

void lesson_free(struct lesson *l);

/* The parts of a lesson, freed one by one (the loader drops a broken part and keeps the
 * rest). Each takes NULL; scene and quiz free the struct itself, the others its contents. */
void lesson_text_free(struct lesson_text *t);
void lesson_binding_free(struct lesson_binding *b);
void lesson_scene_free(struct lesson_scene *s);
void lesson_figure_free(struct lesson_figure *f);

/* lesson_task_met: 1 when a result (the model's, or counters rounded to whole numbers) is at
 * or below every bound of task t: the one grading rule of `banklab check`, `banklab lab` and
 * the tutorial. */
int lesson_task_met(const struct lesson_task *t, long wavefronts, long conflicts, long ways);

/* lesson_check: run every expectation and quiz check of l through the model. Calls report
 * once per problem (if not NULL; the first LESSON_PROBLEMS_SHOWN, then one "N more problems
 * not shown") and returns the number of problems (0 = all hold). */
int lesson_check(const struct lesson *l,
                 void (*report)(const struct lesson_error *e, void *ctx), void *ctx);

/* lesson_check_text: what `banklab check` holds a lesson's prose to beyond lesson_check (not
 * the tutorial's loading: a lesson that breaks these still shows): a step's title, text and key
 * sentence do not give its quiz's answer (a number quiz's number, or a choice's value, as a
 * token followed by what the quiz's check measures: "2 wavefronts", "2-way", a number,
 * a Chinese measure word and a noun; a choice without a value: 4 English words or 5 Chinese
 * characters of the right choice in a row that no other choice has); no code span would be
 * cut on the tutorial's reading screen at 80x24 (src/base/wrap.h's rules; checked only under
 * a UTF-8 locale). Reports each problem as lesson_check does; returns their number. */
int lesson_check_text(const struct lesson *l,
                      void (*report)(const struct lesson_error *e, void *ctx), void *ctx);

void lesson_set_done(struct lesson_set *set);

/* lesson_binding_msg: an env's parameter values, the element type (NULL: none) and the access
 * index as a message for a problem's %M ("STRIDE=32, T=float, access 0"), rendered in the
 * reader's language where the problem is shown. */
void lesson_binding_msg(const struct pattern_env *env, const char *type, int access,
                        struct bl_msg *m);

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
