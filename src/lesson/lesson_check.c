/* lesson_check.c: runs a loaded lesson's expectations, quiz checks and graded tasks through
 * the model (pattern_eval + bank_simulate); builds scene environments; finds and loads the
 * lessons directory. Never prints, never exits. No cJSON here: it works on lesson.h structs. */
#include <dirent.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lesson.h"
#include "recording.h"

#define TASK_SEARCH_MAX 4096   /* parameter combinations tried to show a task is solvable */
#define TASK_BUDGET 65536      /* task evaluations per lesson_check (bounds hostile input) */

int lesson_scene_env(const struct lesson_scene *s, const struct lesson_binding *bind,
                     int type_index, struct pattern_env *env, char *code_buf, size_t size)
{
    pattern_env_init(env);
    if (!s || !s->code || !code_buf || size == 0)
        return -1;
    for (int k = 0; k < 3; k++)
        env->block[k] = s->block[k] ? s->block[k] : 1;
    env->warp = s->warp;
    env->dyn_bytes = s->dyn_bytes;
    for (int k = 0; k < s->nparams; k++)
        if (s->params[k].name && pattern_env_set(env, s->params[k].name, s->params[k].def))
            return -1;
    if (bind) {
        for (int k = 0; k < bind->nvalues; k++) {
            int found = 0;
            for (int q = 0; q < s->nparams; q++)
                found |= s->params[q].name && !strcmp(s->params[q].name, bind->names[k]);
            if (!found || pattern_env_set(env, bind->names[k], bind->values[k]))
                return -1;
        }
    }
    int n;
    if (s->ntypes > 0) {
        const char *t;
        if (bind && bind->type)
            t = bind->type;
        else
            t = s->types[type_index < 0 ? 0 : type_index % s->ntypes];
        n = snprintf(code_buf, size, "typedef %s T; %s", t, s->code);
    } else {
        n = snprintf(code_buf, size, "%s", s->code);
    }
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* ---------------------------------------------------------------- check */

struct chk {
    long budget;               /* task evaluations left */
    const struct lesson *l;
    void (*report)(const struct lesson_error *e, void *ctx);
    void *ctx;
    int problems;
};

static void chk_problem(struct chk *C, int line, int col, const char *fmt, ...)
{
    if (C->problems >= LESSON_PROBLEMS_SHOWN) {  /* counted, not shown */
        C->problems++;
        return;
    }
    struct lesson_error e;
    memset(&e, 0, sizeof e);
    snprintf(e.file, sizeof e.file, "%s", C->l->path ? C->l->path : "(lesson)");
    e.line = line;
    e.col = col;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e.msg, sizeof e.msg, fmt, ap);
    va_end(ap);
    C->problems++;
    if (C->report)
        C->report(&e, C->ctx);
}

void lesson_binding_text(const struct pattern_env *env, const char *type, int access,
                         char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = 0;
    for (int k = 0; k < env->nparams && n < size; k++)
        n += (size_t)snprintf(buf + n, size - n, "%s=%lld, ", env->param[k].name,
                              env->param[k].value);
    if (type && n < size)
        n += (size_t)snprintf(buf + n, size - n, "T=%s, ", type);
    if (n < size)
        snprintf(buf + n, size - n, "access %d", access);
}

static const char *type_of(const struct lesson_scene *s, const struct lesson_binding *b)
{
    if (s->ntypes == 0)
        return NULL;
    return b && b->type ? b->type : s->types[0];
}

/* One access of scene s under binding b through the model. Returns 0, or -1 with why. */
static int model_run(const struct lesson_scene *s, const struct lesson_binding *b, int access,
                     struct bank_result *res, char *desc, size_t dsz, char *why, size_t wsz)
{
    struct pattern_env env;
    size_t size = strlen(s->code) + 128;
    char *code = malloc(size);
    int rc = -1;
    why[0] = 0;
    desc[0] = 0;
    if (!code) {
        snprintf(why, wsz, "out of memory");
        return -1;
    }
    if (lesson_scene_env(s, b, 0, &env, code, size)) {
        snprintf(why, wsz, "the binding does not fit the scene");
        free(code);
        return -1;
    }
    lesson_binding_text(&env, type_of(s, b), access, desc, dsz);
    struct pattern *p = NULL;
    struct pattern_error pe;
    memset(&pe, 0, sizeof pe);
    if (pattern_parse(code, &p, &pe)) {
        snprintf(why, wsz, "%s", pe.msg);
    } else if (access >= pattern_access_count(p)) {
        snprintf(why, wsz, "the code has no access %d", access);
    } else {
        struct bank_access acc;
        int bad_lane = -1;
        if (pattern_eval(p, &env, access, &acc, NULL, &pe))
            snprintf(why, wsz, "%s", pe.msg);
        else if (bank_simulate(&acc, res, &bad_lane) != BANK_OK)
            snprintf(why, wsz, "the model refuses the access (lane %d misaligned or bad width)",
                     bad_lane);
        else
            rc = 0;
    }
    pattern_free(p);
    free(code);
    return rc;
}

static int field_value(const struct bank_result *r, enum lesson_field f)
{
    switch (f) {
    case FIELD_WAVEFRONTS: return r->wavefronts;
    case FIELD_CONFLICTS: return r->conflicts;
    case FIELD_WAYS: return r->ways;
    case FIELD_PASSES: return r->passes;
    default: return -1;
    }
}

static const char *const field_name[] = {"", "wavefronts", "conflicts", "ways", "passes"};

static void check_expect(struct chk *C, int si, int ei, const struct lesson_scene *s,
                         const struct lesson_expect *e)
{
    struct bank_result res;
    char desc[256], why[PATTERN_MSG_MAX];
    if (model_run(s, &e->bind, e->access, &res, desc, sizeof desc, why, sizeof why)) {
        chk_problem(C, e->line, e->col, "steps[%d].expect[%d]: %s (%s)", si, ei, why, desc);
        return;
    }
    const int said[5] = {-1, e->wavefronts, e->conflicts, e->ways, e->passes};
    for (int f = 1; f <= 4; f++) {
        if (said[f] < 0)
            continue;
        int got = field_value(&res, (enum lesson_field)f);
        if (got != said[f]) {
            int line = e->at[f].line ? e->at[f].line : e->line;
            int col = e->at[f].line ? e->at[f].col : e->col;
            chk_problem(C, line, col, "steps[%d].expect[%d]: %s is %d by the model, the lesson "
                        "says %d (%s)", si, ei, field_name[f], got, said[f], desc);
        }
    }
}

static int fmt_num(double v, char *buf, size_t size)
{
    if (v == floor(v) && fabs(v) < 1e15)
        return snprintf(buf, size, "%.0f", v);
    return snprintf(buf, size, "%g", v);
}

static void check_quiz(struct chk *C, int si, const struct lesson_scene *s,
                       const struct lesson_quiz *q)
{
    if (q->check.field == FIELD_NONE)
        return;
    struct bank_result res;
    char desc[256], why[PATTERN_MSG_MAX], a[40], m[40];
    int line = q->answer_at.line ? q->answer_at.line : q->line;
    int col = q->answer_at.line ? q->answer_at.col : q->col;
    if (model_run(s, &q->check.bind, q->check.access, &res, desc, sizeof desc, why, sizeof why)) {
        chk_problem(C, q->line, q->col, "steps[%d].quiz.check: %s (%s)", si, why, desc);
        return;
    }
    const char *fname = field_name[q->check.field];
    int got = field_value(&res, q->check.field);
    if (q->kind == QUIZ_NUMBER) {
        if (q->number != (double)got) {
            fmt_num(q->number, a, sizeof a);
            chk_problem(C, line, col, "steps[%d].quiz.answer: the answer is %s, the model's %s "
                        "is %d (%s)", si, a, fname, got, desc);
        }
        return;
    }
    if (q->answer < 0 || q->answer >= q->nchoices || !q->choice_values)
        return;
    double v = q->choice_values[q->answer];
    int right = !isnan(v) && v == (double)got;
    if (!right) {
        fmt_num(v, a, sizeof a);
        chk_problem(C, line, col, "steps[%d].quiz.answer: choice %d (\"%s\") has value %s, the "
                    "model's %s is %d (%s)", si, q->answer, q->choices[q->answer].en ?
                    q->choices[q->answer].en : "", isnan(v) ? "none" : a, fname, got, desc);
    }
    for (int k = 0; k < q->nchoices && right; k++)
        if (k != q->answer && q->choice_values[k] == (double)got) {
            snprintf(m, sizeof m, "%d", got);
            chk_problem(C, line, col, "steps[%d].quiz.choices[%d]: its value %s is also the "
                        "model's %s (%s): two choices would be right", si, k, m, fname, desc);
        }
}

int lesson_task_met(const struct lesson_task *t, long wavefronts, long conflicts, long ways)
{
    return (t->max_wavefronts < 0 || wavefronts <= t->max_wavefronts) &&
           (t->max_conflicts < 0 || conflicts <= t->max_conflicts) &&
           (t->max_ways < 0 || ways <= t->max_ways);
}

/* Evaluates the task's access with parameters vals and type index t on parsed pattern p.
 * Returns 1 met, 0 not met, -1 the code fails there (such points are skipped). */
static int task_try(struct chk *C, const struct lesson_scene *s, const struct lesson_task *task,
                    struct pattern *p, const long long *vals)
{
    if (C->budget <= 0)
        return -1;
    C->budget--;
    struct pattern_env env;
    pattern_env_init(&env);
    for (int k = 0; k < 3; k++)
        env.block[k] = s->block[k] ? s->block[k] : 1;
    env.warp = s->warp;
    env.dyn_bytes = s->dyn_bytes;
    for (int k = 0; k < s->nparams; k++)
        pattern_env_set(&env, s->params[k].name, vals[k]);
    struct bank_access acc;
    struct bank_result res;
    struct pattern_error pe;
    if (pattern_eval(p, &env, task->access, &acc, NULL, &pe))
        return -1;
    if (bank_simulate(&acc, &res, NULL) != BANK_OK)
        return -1;
    return lesson_task_met(task, res.wavefronts, res.conflicts, res.ways);
}

static void check_task(struct chk *C, int si, const struct lesson_scene *s,
                       const struct lesson_task *t)
{
    if (s->nparams == 0 || s->nparams > PATTERN_MAX_PARAMS)
        return;
    long long vals[PATTERN_MAX_PARAMS], count[PATTERN_MAX_PARAMS];
    double space = s->ntypes > 0 ? s->ntypes : 1;
    for (int k = 0; k < s->nparams; k++) {
        if (!s->params[k].name || s->params[k].step <= 0)
            return;
        vals[k] = s->params[k].def;
        count[k] = (s->params[k].max - s->params[k].min) / s->params[k].step + 1;
        space *= (double)count[k];
    }
    char req[96] = "";
    size_t n = 0;
    if (t->max_wavefronts >= 0)
        n += (size_t)snprintf(req + n, sizeof req - n, "wavefronts <= %d ", t->max_wavefronts);
    if (t->max_conflicts >= 0 && n < sizeof req)
        n += (size_t)snprintf(req + n, sizeof req - n, "conflicts <= %d ", t->max_conflicts);
    if (t->max_ways >= 0 && n < sizeof req)
        snprintf(req + n, sizeof req - n, "ways <= %d ", t->max_ways);
    n = strlen(req);
    if (n > 0)
        req[n - 1] = 0;
    size_t size = strlen(s->code) + 128;
    char *code = malloc(size);
    if (!code)
        return;
    int ntypes = s->ntypes > 0 ? s->ntypes : 1;
    int solved_default = 0, solvable = 0, searched_all = space <= TASK_SEARCH_MAX;
    for (int ti = 0; ti < ntypes && !solvable; ti++) {
        struct pattern_env env;
        struct pattern *p = NULL;
        struct pattern_error pe;
        if (lesson_scene_env(s, NULL, ti, &env, code, size) || pattern_parse(code, &p, &pe))
            continue;
        if (t->access >= pattern_access_count(p)) {
            pattern_free(p);
            continue;
        }
        for (int k = 0; k < s->nparams; k++)
            vals[k] = s->params[k].def;
        if (ti == 0 && task_try(C, s, t, p, vals) == 1)
            solved_default = 1;
        if (searched_all) {
            /* every combination: an odometer over the parameters */
            long long idx[PATTERN_MAX_PARAMS] = {0};
            for (;;) {
                for (int k = 0; k < s->nparams; k++)
                    vals[k] = s->params[k].min + idx[k] * s->params[k].step;
                if (task_try(C, s, t, p, vals) == 1) {
                    solvable = 1;
                    break;
                }
                int k = 0;
                while (k < s->nparams && ++idx[k] >= count[k])
                    idx[k++] = 0;
                if (k == s->nparams)
                    break;
            }
        } else {
            /* too many: one parameter at a time, the others at their defaults */
            for (int k = 0; k < s->nparams && !solvable; k++) {
                long long stride = count[k] > TASK_SEARCH_MAX ? count[k] / TASK_SEARCH_MAX : 1;
                for (long long i = 0; i < count[k] && !solvable; i += stride) {
                    for (int q = 0; q < s->nparams; q++)
                        vals[q] = s->params[q].def;
                    vals[k] = s->params[k].min + i * s->params[k].step;
                    solvable = task_try(C, s, t, p, vals) == 1;
                }
            }
        }
        pattern_free(p);
    }
    free(code);
    if (!solvable && C->budget <= 0)
        return;   /* not searched to the end: no verdict */
    if (solved_default)
        chk_problem(C, t->line, t->col, "steps[%d].task: already solved at the defaults "
                    "(%s); nothing to find", si, req);
    else if (!solvable)
        chk_problem(C, t->line, t->col, "steps[%d].task: no parameter values within the ranges "
                    "give %s%s", si, req, searched_all ? "" : " (searched one parameter at a time)");
}

int lesson_check(const struct lesson *l,
                 void (*report)(const struct lesson_error *e, void *ctx), void *ctx)
{
    if (!l)
        return 0;
    struct chk C = {TASK_BUDGET, l, report, ctx, 0};
    for (int i = 0; i < l->nsteps; i++) {
        const struct lesson_step *st = &l->steps[i];
        if (!st->scene || !st->scene->code)
            continue;
        for (int k = 0; k < st->nexpects; k++)
            check_expect(&C, i, k, st->scene, &st->expects[k]);
        if (st->quiz)
            check_quiz(&C, i, st->scene, st->quiz);
        if (st->task)
            check_task(&C, i, st->scene, st->task);
    }
    if (C.problems > LESSON_PROBLEMS_SHOWN && report) {
        struct lesson_error e;
        memset(&e, 0, sizeof e);
        snprintf(e.file, sizeof e.file, "%s", l->path ? l->path : "(lesson)");
        snprintf(e.msg, sizeof e.msg, "%d more problems not shown",
                 C.problems - LESSON_PROBLEMS_SHOWN);
        report(&e, ctx);
    }
    return C.problems;
}

/* ---------------------------------------------------------------- quoted figures */

/* Field f (a word of LESSON_FIGURE_FIELDS) of a recorded result; NAN when it was not measured
 * (the request failed, or the field is a timing, counter or time per access the row has none
 * of). */
static double result_field(const struct gpu_result *r, const char *f)
{
    enum { TIMING, COUNTER, ACCESS };
    static const struct {
        const char *name;
        size_t off;
        int kind;
    } tab[] = {
        {"ms_median", offsetof(struct gpu_result, ms_median), TIMING},
        {"ms_min", offsetof(struct gpu_result, ms_min), TIMING},
        {"ms_max", offsetof(struct gpu_result, ms_max), TIMING},
        {"clk_per_request", offsetof(struct gpu_result, clk_per_request), TIMING},
        {"bytes_per_clk_per_sm", offsetof(struct gpu_result, bytes_per_clk_per_sm), TIMING},
        {"gbps", offsetof(struct gpu_result, gbps), TIMING},
        {"wavefronts_ld", offsetof(struct gpu_result, wavefronts_ld), COUNTER},
        {"wavefronts_st", offsetof(struct gpu_result, wavefronts_st), COUNTER},
        {"conflicts_ld", offsetof(struct gpu_result, conflicts_ld), COUNTER},
        {"conflicts_st", offsetof(struct gpu_result, conflicts_st), COUNTER},
        {"clk_per_access", offsetof(struct gpu_result, clk_per_access), ACCESS},
        {"ns_per_access", offsetof(struct gpu_result, ns_per_access), ACCESS},
        {"slowdown", offsetof(struct gpu_result, slowdown), ACCESS},
    };
    if (r->status != GPU_OK)
        return NAN;
    for (size_t k = 0; k < sizeof tab / sizeof *tab; k++)
        if (!strcmp(tab[k].name, f)) {
            int have = tab[k].kind == COUNTER ? r->has_counters
                       : tab[k].kind == ACCESS ? r->has_access_timing : r->has_timing;
            if (!have)
                return NAN;
            double v;
            memcpy(&v, (const char *)r + tab[k].off, sizeof v);
            return v;
        }
    return NAN;
}

/* Checks figure f against every pair of rows it names. Returns the number of problems. */
static int check_figure(struct chk *C, int si, int fi, const struct lesson_figure *f,
                        const struct recording *r)
{
    int na = 0, nb = 0, problems = 0;
    for (int a = 0; a < r->nrows; a++) {
        const struct recording_row *ra = &r->rows[a];
        if (strcmp(ra->group, f->group) || strcmp(ra->label, f->label))
            continue;
        na++;
        double x = result_field(&ra->rec.res, f->field);
        if (isnan(x)) {
            chk_problem(C, f->line, f->col, "steps[%d].figures[%d]: %s \"%s\" has no %s in the "
                        "recording (not measured)", si, fi, f->group, f->label, f->field);
            problems++;
            continue;
        }
        for (int b = 0; f->over && b < r->nrows; b++) {
            const struct recording_row *rb = &r->rows[b];
            if (strcmp(rb->group, f->group) || strcmp(rb->label, f->over))
                continue;
            nb++;
            double y = result_field(&rb->rec.res, f->field);
            if (isnan(y) || y == 0) {
                chk_problem(C, f->line, f->col, "steps[%d].figures[%d]: %s \"%s\" has no %s "
                            "to divide by in the recording", si, fi, f->group, f->over, f->field);
                problems++;
                x = NAN;
                break;
            }
            x = f->percent ? 100.0 * (x / y - 1.0) : x / y;
            break;   /* the first row with that label */
        }
        if (isnan(x) || (f->over && nb == 0))
            continue;
        double half = 0.5 * pow(10.0, -f->decimals);
        if (fabs(x - f->value) > half * (1 + 1e-9)) {
            char how[200];
            if (f->over)
                snprintf(how, sizeof how, "%s \"%s\" %s over \"%s\"%s", f->group, f->label,
                         f->field, f->over, f->percent ? ", as a percentage above" : "");
            else
                snprintf(how, sizeof how, "%s \"%s\" %s", f->group, f->label, f->field);
            chk_problem(C, f->line, f->col, "steps[%d].figures[%d]: the recording gives %.*f "
                        "(%s); the lesson quotes %s", si, fi, f->decimals, x, how, f->text);
            problems++;
        }
    }
    if (na == 0) {
        chk_problem(C, f->line, f->col, "steps[%d].figures[%d]: no row %s \"%s\" in the "
                    "recording", si, fi, f->group, f->label);
        problems++;
    } else if (f->over && nb == 0 && problems == 0) {
        chk_problem(C, f->line, f->col, "steps[%d].figures[%d]: no row %s \"%s\" in the "
                    "recording", si, fi, f->group, f->over);
        problems++;
    }
    return problems;
}

int lesson_check_figures(const struct lesson *l, const struct recording *r,
                         void (*report)(const struct lesson_error *e, void *ctx), void *ctx)
{
    if (!l || !r)
        return 0;
    struct chk C = {0, l, report, ctx, 0};
    for (int i = 0; i < l->nsteps; i++)
        for (int k = 0; k < l->steps[i].nfigures; k++)
            check_figure(&C, i, k, &l->steps[i].figures[k], r);
    return C.problems;
}

/* ---------------------------------------------------------------- sets and directories */

static int is_dir(const char *p)
{
    struct stat sb;
    return p && *p && stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static int is_file(const char *p)
{
    struct stat sb;
    return p && *p && stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

const char *lesson_find_dir(const char *explicit_dir, char *buf, size_t size)
{
    const char *cand = NULL;
    if (!buf || size == 0)
        return NULL;
    if (explicit_dir) {
        cand = explicit_dir;
    } else if (getenv("BANKLAB_LESSONS") && *getenv("BANKLAB_LESSONS")) {
        cand = getenv("BANKLAB_LESSONS");
    } else {
#ifdef BANKLAB_SHARE_DIR
        if (is_dir(BANKLAB_SHARE_DIR "/lessons"))
            cand = BANKLAB_SHARE_DIR "/lessons";
#endif
        if (!cand)
            cand = "lessons";
    }
    if (!is_dir(cand) && !((explicit_dir || getenv("BANKLAB_LESSONS")) && is_file(cand)))
        return NULL;
    int n = snprintf(buf, size, "%s", cand);
    if (n < 0 || (size_t)n >= size)
        return NULL;
    return buf;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_lesson(const void *a, const void *b)
{
    const struct lesson *x = a, *y = b;
    if (x->chapter != y->chapter)
        return x->chapter < y->chapter ? -1 : 1;
    return strcmp(x->path ? x->path : "", y->path ? y->path : "");
}

static void set_report(void (*report)(const struct lesson_error *e, void *ctx), void *ctx,
                       const char *file, const char *fmt, const char *a, const char *b)
{
    struct lesson_error e;
    memset(&e, 0, sizeof e);
    snprintf(e.file, sizeof e.file, "%s", file);
    snprintf(e.msg, sizeof e.msg, fmt, a, b);
    if (report)
        report(&e, ctx);
}

/* The *.json files of dir, sorted, as malloc'ed paths; *n their number. NULL with *n 0 when
 * there are none or dir cannot be read (-1 in *err then). */
static char **dir_files(const char *dir, size_t *n, int *err)
{
    *n = 0;
    *err = 0;
    DIR *d = opendir(dir);
    if (!d) {
        *err = -1;
        return NULL;
    }
    char **names = NULL;
    size_t cap = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t ln = strlen(de->d_name);
        if (de->d_name[0] == '.' || ln < 6 || strcmp(de->d_name + ln - 5, ".json"))
            continue;
        if (*n == cap) {
            size_t nc = cap ? cap * 2 : 16;
            char **nn = realloc(names, nc * sizeof *nn);
            if (!nn)
                break;
            names = nn;
            cap = nc;
        }
        size_t need = strlen(dir) + ln + 2;
        char *p = malloc(need);
        if (!p)
            break;
        snprintf(p, need, "%s/%s", dir, de->d_name);
        names[(*n)++] = p;
    }
    closedir(d);
    if (*n)
        qsort(names, *n, sizeof *names, cmp_str);
    return names;
}

/* Adds lesson l (loaded from path) to set unless its id is taken or, with checked, it fails
 * lesson_check; a lesson left out is freed and reported. */
static void set_add(struct lesson_set *set, struct lesson *l, const char *path, int checked,
                    void (*report)(const struct lesson_error *e, void *ctx), void *ctx)
{
    for (int k = 0; k < set->nlessons; k++)
        if (!strcmp(set->lessons[k].id, l->id)) {
            set_report(report, ctx, path, "lesson id \"%s\" is also the id of %s; "
                       "file skipped", l->id, set->lessons[k].path);
            lesson_free(l);
            return;
        }
    if (checked) {
        int problems = lesson_check(l, report, ctx);
        if (problems > 0) {
            char count[32];
            snprintf(count, sizeof count, "%d", problems);
            set_report(report, ctx, path, "file skipped: %s problem%s above (banklab check "
                       "lists them)", count, problems == 1 ? "" : "s");
            lesson_free(l);
            return;
        }
    }
    set->lessons[set->nlessons++] = *l;
    free(l);  /* the shell only: its contents moved into the set */
}

int lesson_set_load(struct lesson_set *set, const char *path, int checked,
                    void (*report)(const struct lesson_error *e, void *ctx), void *ctx)
{
    if (!set)
        return -1;
    memset(set, 0, sizeof *set);
    size_t nnames = 0;
    char **names = NULL;
    int err = 0;
    if (path && is_file(path)) {           /* one lesson file */
        names = malloc(sizeof *names);
        if (names && (names[0] = strdup(path)))
            nnames = 1;
    } else {
        names = path ? dir_files(path, &nnames, &err) : NULL;
        if (!path || err) {
            set_report(report, ctx, path ? path : "(none)", "cannot open the lessons "
                       "directory%s%s", "", "");
            return -1;
        }
    }
    set->lessons = nnames ? calloc(nnames, sizeof *set->lessons) : NULL;
    for (size_t i = 0; i < nnames; i++) {
        struct lesson *l = set->lessons ? lesson_load_report(names[i], NULL, 0, report, ctx,
                                                             NULL) : NULL;
        if (l)
            set_add(set, l, names[i], checked, report, ctx);
        free(names[i]);
    }
    free(names);
    if (set->nlessons > 1)
        qsort(set->lessons, (size_t)set->nlessons, sizeof *set->lessons, cmp_lesson);
    if (set->nlessons == 0) {
        free(set->lessons);
        set->lessons = NULL;
        if (nnames == 0)
            set_report(report, ctx, path, "no lesson files (*.json) in the directory%s%s", "", "");
        return -1;
    }
    return 0;
}

int lesson_set_load_dir(struct lesson_set *set, const char *dir,
                        void (*report)(const struct lesson_error *e, void *ctx), void *ctx)
{
    return lesson_set_load(set, dir, 0, report, ctx);
}
