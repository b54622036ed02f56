/* lab.c: `banklab lab FILE`: a graded workshop lab. For each step with a "task" it prints the
 * goal and the scene, asks for parameter values one line at a time (any terminal, screen
 * readers, pipes), grades them with the model (and the GPU's counters where a GPU answers),
 * allows retries and prints a score. --answers makes it non-interactive for scripts and CI.
 * Uses lesson, model, gpu and progress; no curses, no cJSON here. */
#include <ctype.h>
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../gpu/gpu.h"
#include "../lesson/scene.h"
#include "../store/lesson_load.h"
#include "../store/progress.h"
#include "../store/report.h"
#include "cli.h"
#include "lab.h"
#include "../serve/serve.h"

#define LAB_MAX_ANSWERS 64
#define LAB_MAX_PARAMS 16
#define LAB_SEARCH_LIMIT 20000   /* parameter combinations tried when showing a solution */
#define LAB_GPU_TIMEOUT_MS 30000

/* One NAME=V from --answers; step is "" when it applies to every task. */
struct lab_answer {
    char step[PROGRESS_ID_MAX];
    char name[PATTERN_NAME_MAX];
    char text[64];               /* the value as given (a number, or a type name for T) */
    int used;
};

struct lab {
    const struct lesson *l;
    enum lesson_lang lang;
    int tries;
    int scripted;                /* --answers given: no prompts, one try per task */
    int nanswers;
    struct lab_answer answers[LAB_MAX_ANSWERS];
    struct gpu *gpu;
    struct gpu_info info;
    int quit;                    /* learner typed q, or input ended */
    uint64_t next_id;
    struct progress *prog;       /* NULL when not saving */
};

/* The value of a task's parameters (and type) for one try. */
struct lab_values {
    long long v[LAB_MAX_PARAMS];
    int type;                    /* index into scene->types, 0 when none */
};

/* Strings in the learner's language; messages of the rooms below (src/base/msg.def) in it. */
/* the printf format of a catalogue row (msg_lab.def) in the lab's language */
#define LT(lab, id) bl_msg_format((id), (lab)->lang == LANG_ZH ? BL_LANG_ZH : BL_LANG_EN)
#define BL_LANG(lang) ((lang) == LANG_ZH ? BL_LANG_ZH : BL_LANG_EN)
#define MSG(lab, m, en) bl_msg_or_text((m), (en), BL_LANG((lab)->lang), (char[512]){0}, 512)

static const struct cli_cmd lab_cmd;  /* its options, below */

static const char *tr(const struct lab *lab, const struct lesson_text *t)
{
    return lesson_tr(t, lab->lang);
}

static void usage(FILE *f)
{
    cli_say(f, CLI_HELP_LAB);
    cli_opt_help(f, &lab_cmd);
}

static int parse_ll(const char *s, long long *out)
{
    char *end;
    while (isspace((unsigned char)*s))
        s++;
    if (!*s)
        return -1;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    while (isspace((unsigned char)*end))
        end++;
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

/* Splits "A=1,B=2,step.C=3" into lab->answers. An empty list and a name given twice (for
 * the same step, also across --answers options) are refused: no answer silently wins.
 * Returns 0, or EXIT_USAGE after a message. */
static int parse_answers(struct lab *lab, const char *list)
{
    char buf[4096];
    if (strlen(list) >= sizeof buf)
        return cli_usage_error(&lab_cmd, CLI_E_ANSWERS_IS_TOO_LONG);
    strcpy(buf, list);
    int before = lab->nanswers;
    for (char *save = NULL, *item = strtok_r(buf, ",", &save); item;
         item = strtok_r(NULL, ",", &save)) {
        while (isspace((unsigned char)*item))
            item++;
        if (!*item)
            continue;
        char *eq = strchr(item, '=');
        if (!eq || eq == item || !eq[1])
            return cli_usage_error(&lab_cmd, CLI_E_ANSWERS_WANTS_NAME_VALUE_ITEMS,
                                   CLI_CLEAN(item));
        *eq = 0;
        if (lab->nanswers == LAB_MAX_ANSWERS)
            return cli_usage_error(&lab_cmd, CLI_E_MORE_THAN_ANSWERS, LAB_MAX_ANSWERS);
        struct lab_answer *a = &lab->answers[lab->nanswers];
        memset(a, 0, sizeof *a);
        char *dot = strrchr(item, '.');
        const char *name = item;
        if (dot) {
            *dot = 0;
            name = dot + 1;
            if (strlen(item) >= sizeof a->step || !*item)
                return cli_usage_error(&lab_cmd, CLI_E_BAD_STEP_NAME_IN_ANSWERS,
                                       CLI_CLEAN(item));
            strcpy(a->step, item);
        }
        char *end = eq - 1;
        while (end > name && isspace((unsigned char)*end))
            *end-- = 0;
        const char *val = eq + 1;
        while (isspace((unsigned char)*val))
            val++;
        if (!*name || strlen(name) >= sizeof a->name || strlen(val) >= sizeof a->text)
            return cli_usage_error(&lab_cmd, CLI_E_BAD_ITEM_IN_ANSWERS, CLI_CLEAN(name),
                                   CLI_CLEAN(val));
        strcpy(a->name, name);
        strcpy(a->text, val);
        for (int k = 0; k < lab->nanswers; k++)
            if (!strcmp(lab->answers[k].step, a->step) && !strcmp(lab->answers[k].name, name))
                return cli_usage_error(&lab_cmd, CLI_E_ANSWERS_IS_GIVEN_TWICE, a->step,
                                       a->step[0] ? "." : "", CLI_CLEAN(name));
        lab->nanswers++;
    }
    if (lab->nanswers == before)
        return cli_usage_error(&lab_cmd, CLI_E_ANSWERS_IS_EMPTY_GIVE_NAME);
    return 0;
}

static int value_ok(const struct lesson_param *p, long long v)
{
    long long step = p->step > 0 ? p->step : 1;
    return v >= p->min && v <= p->max && (v - p->min) % step == 0;
}

static void range_text(const struct lab *lab, const struct lesson_param *p, char *buf,
                       size_t size)
{
    if (p->step > 1)
        snprintf(buf, size, LT(lab, LAB_RANGE_STEP), p->min,
                 p->max, p->step);
    else
        snprintf(buf, size, "%lld..%lld", p->min, p->max);
}

/* "PAD=1, T=float2" */
static void values_text(const struct lesson_scene *s, const struct lab_values *v, char *buf,
                        size_t size)
{
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < s->nparams && i < LAB_MAX_PARAMS && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s=%lld", i ? ", " : "",
                                s->params[i].name, v->v[i]);
    if (s->ntypes > 0 && len < size)
        snprintf(buf + len, size - len, "%sT=%s", len ? ", " : "", s->types[v->type]);
}

static int task_access(const struct lesson_step *st)
{
    return st->task->access >= 0 ? st->task->access : st->scene->access;
}

/* The model's result for these values. Returns 0, or -1 with the message (and a caret under
 * an evaluation's failure) in err. shown (when not NULL) takes the code as run with the
 * values filled in (the scene's code where that does not fit). */
static int evaluate(const struct lesson_step *st, const struct lab_values *v,
                    struct bank_access *acc, struct bank_result *res, char *err, size_t errsz,
                    enum lesson_lang lang, char *shown, size_t shownsz)
{
    const struct lesson_scene *s = st->scene;
    char *names[LAB_MAX_PARAMS];
    long long vals[LAB_MAX_PARAMS];
    int n = s->nparams < LAB_MAX_PARAMS ? s->nparams : LAB_MAX_PARAMS;
    for (int i = 0; i < n; i++) {
        names[i] = s->params[i].name;
        vals[i] = v->v[i];
    }
    struct lesson_binding bind = {n, names, vals, NULL};
    struct scene_in in = {.scene = s, .bind = &bind, .type = v->type, .access = task_access(st),
                          .warp = -1};
    struct scene_run r = {0};
    struct bl_err e;
    bl_err_clear(&e);
    int rc = scene_run(&r, &in, acc, res, &e);
    if (rc) {
        char pm[2 * PATTERN_MSG_MAX], caret[1024];
        bl_err_text(&e, BL_LANG(lang), pm, sizeof pm);
        if (e.status == SCENE_EEVAL && e.where.at > 0 && strlen(r.code.s) < 400)
            snprintf(err, errsz, "%s\n%s", pm, pattern_error_caret(r.code.s, &e, caret, sizeof caret));
        else
            snprintf(err, errsz, "%s", pm);
    } else if (shown && pattern_substitute(r.code.s, &r.env, shown, shownsz) < 0) {
        snprintf(shown, shownsz, "%s", s->code);
    }
    scene_run_free(&r);
    return rc;
}

static void print_requirement(const struct lab *lab, const struct lesson_task *t)
{
    const char *sep = "";
    lab_out("%s", LT(lab, LAB_REQUIRED));
    if (t->max_wavefronts >= 0) {
        lab_out(LT(lab, LAB_WAVEFRONTS), t->max_wavefronts);
        sep = LT(lab, LAB_COMMA);
    }
    if (t->max_conflicts >= 0) {
        lab_out(LT(lab, LAB_CONFLICTS), sep, t->max_conflicts);
        sep = LT(lab, LAB_COMMA);
    }
    if (t->max_ways >= 0)
        lab_out(LT(lab, LAB_WAYS), sep, t->max_ways);
    lab_out("\n");
}

/* Prints each bound with the model's number and whether it is met. */
static void print_bounds(const struct lab *lab, const struct lesson_task *t,
                         const struct bank_result *r)
{
    const struct {
        const char *name;
        int bound, got;
    } b[] = {{LT(lab, LAB_WAVEFRONTS_NAME), t->max_wavefronts, r->wavefronts},
             {LT(lab, LAB_CONFLICTS_NAME), t->max_conflicts, r->conflicts},
             {LT(lab, LAB_WAYS_NAME), t->max_ways, r->ways}};
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++) {
        if (b[i].bound < 0)
            continue;
        int ok = b[i].got <= b[i].bound;
        lab_out(LT(lab, LAB_REQUIREMENT_ROW), b[i].name, b[i].got,
               ok ? "<=" : ">", b[i].bound,
               ok ? LT(lab, LAB_MET) : LT(lab, LAB_NOT_MET));
    }
}

static void print_result(const struct lab *lab, const char *what, const struct bank_result *r)
{
    lab_out(LT(lab, LAB_WAVEFRONTS_PASSES_CONFLICTS_WAYS),
           what, r->wavefronts, r->passes, r->conflicts, r->ways);
    int worst = -1, cost = 0;
    for (int p = 0; p < r->npasses && p < BANK_MAX_PASSES; p++)
        if (r->pass[p].cost > cost) {
            cost = r->pass[p].cost;
            worst = r->pass[p].worst_bank;
        }
    if (worst >= 0 && cost > 1)
        lab_out(LT(lab, LAB_WORST_BANK_SERVES_WORDS),
               worst, cost);
    lab_out("\n");
}

/* Asks the GPU for the counters and the time of acc. Returns 1 with *wf, *cf set when
 * measured; *ns and *slow the time per warp access and its ratio to the conflict-free
 * access where the answer has them (else 0). */
static int measure(struct lab *lab, const struct lesson_step *st, const struct bank_access *acc,
                   double *wf, double *cf, double *ns, double *slow)
{
    if (!lab->gpu || !lab->info.available)
        return 0;
    if (st->scene->kernel && strcmp(st->scene->kernel, "pattern")) {
        lab_out(LT(lab, LAB_GPU_THIS_SCENE_RUNS_THE), st->scene->kernel);
        return 0;
    }
    struct gpu_request req;
    memset(&req, 0, sizeof req);
    req.id = ++lab->next_id;
    req.kind = GPU_REQ_PATTERN;
    req.access = *acc;
    req.want_counters = 1;
    req.want_timing = 1;
    struct gpu_result res;
    memset(&res, 0, sizeof res);
    enum gpu_status s = gpu_submit(lab->gpu, &req);
    int got = 0;
    if (s == GPU_OK) {
        time_t start = time(NULL);
        while (!got && time(NULL) - start < LAB_GPU_TIMEOUT_MS / 1000 + 1) {
            if (!gpu_wait(lab->gpu, &res, 1000))
                continue;
            got = res.id == req.id;
        }
    }
    if (!got) {
        lab_out(LT(lab, LAB_GPU_NO_ANSWER_GRADED_BY),
               LT(lab, s == GPU_OK ? LAB_GPU_TIMEOUT : LAB_GPU_BUSY));
        return 0;
    }
    if (res.err.status != GPU_OK || !res.has_counters) {
        lab_out(LT(lab, LAB_GPU_GRADED_BY_THE_MODEL),
               CLI_CLEAN(res.err.status != GPU_OK ? MSG(lab, &res.err.why, res.err.msg)
                         : res.counters_note[0] ? MSG(lab, &res.counters_msg, res.counters_note)
                                                : LT(lab, LAB_NO_COUNTERS)));
        return 0;
    }
    *wf = acc->op == BANK_STORE ? res.wavefronts_st : res.wavefronts_ld;
    *cf = acc->op == BANK_STORE ? res.conflicts_st : res.conflicts_ld;
    /* where it was measured: replay's "recorded on <device>, <date>" in the learner's words */
    const char *prov = res.provenance[0] && strcmp(res.provenance, lab->info.device)
                           ? res.provenance : MSG(lab, &lab->info.device_msg, lab->info.device);
    lab_out(LT(lab, LAB_MEASURED_WAVEFRONTS_CONFLICTS_PER_INSTRUCTION), CLI_CLEAN(prov), *wf, *cf);
    *ns = res.has_access_timing ? res.ns_per_access : 0;
    *slow = res.has_access_timing ? res.slowdown : 0;
    if (res.has_access_timing)
        lab_out(LT(lab, LAB_TIME_PER_WARP_ACCESS_NS), *ns, *slow);
    return 1;
}

/* Reads one line from stdin into buf (newline removed). Returns 0, or -1 at end of input. */
static int read_line(char *buf, size_t size)
{
    lab_flush();
    if (!fgets(buf, (int)size, stdin))
        return -1;
    size_t n = strlen(buf);
    if (n && buf[n - 1] == '\n') {
        buf[--n] = 0;
    } else if (n == size - 1) {  /* longer than the buffer: drop the rest of the line */
        int c;
        while ((c = getchar()) != EOF && c != '\n')
            ;
    }
    while (n && (buf[n - 1] == '\r' || isspace((unsigned char)buf[n - 1])))
        buf[--n] = 0;
    return 0;
}

static void show_hint(struct lab *lab, const struct lesson_step *st, int *next_hint)
{
    if (!st->nhints) {
        lab_out("%s\n", LT(lab, LAB_NO_HINT_FOR_THIS_TASK));
        return;
    }
    int i = *next_hint < st->nhints ? *next_hint : st->nhints - 1;
    char h[4096];
    snprintf(h, sizeof h, "%s %d/%d%s%s", LT(lab, LAB_HINT), i + 1, st->nhints,
             LT(lab, LAB_COLON), tr(lab, &st->hints[i]));
    lab_out("%s\n", h);
    if (*next_hint < st->nhints)
        (*next_hint)++;
}

/* One answer at a prompt (hints shown on the way): 1 with the answer in line, 0 when the
 * learner kept the value (Enter alone), -1 when they stopped (q or end of input). */
static int answer(struct lab *lab, const struct lesson_step *st, int *next_hint,
                  const char *prompt, char *line, size_t size)
{
    for (;;) {
        lab_out("%s", prompt);
        if (read_line(line, size) < 0) {
            lab_out("\n%s\n", LT(lab, LAB_END_OF_INPUT_STOPPING));
            return -1;
        }
        if (!strcmp(line, "q") || !strcmp(line, "quit"))
            return -1;
        if (strcmp(line, "?") && strcmp(line, "h") && strcmp(line, "hint"))
            return line[0] != 0;
        show_hint(lab, st, next_hint);
    }
}

/* The index of the scene's element type named t, or -1. */
static int type_index(const struct lesson_scene *s, const char *t)
{
    for (int k = 0; k < s->ntypes; k++)
        if (!strcmp(t, s->types[k]))
            return k;
    return -1;
}

/* An answer for parameter p (1 taken into *v) or for the type (p NULL: into *type); 0 with
 * the reason when it does not fit. */
static int take(struct lab *lab, const struct lesson_scene *s, const struct lesson_param *p,
                const char *line, const char *range, long long *v, int *type)
{
    long long x = 0;
    int t = p ? 0 : type_index(s, line), number = p && parse_ll(line, &x) == 0;
    if (t < 0)
        lab_out(LT(lab, LAB_IS_NOT_ONE_OF), CLI_CLEAN(line), range);
    else if (p && !number)
        lab_out(LT(lab, LAB_IS_NOT_A_WHOLE_NUMBER),
                CLI_CLEAN(line), range);
    else if (p && !value_ok(p, x))
        lab_out(LT(lab, LAB_LD_IS_OUTSIDE_TRY_AGAIN), x, range);
    else if (p)
        *v = x;
    else
        *type = t;
    return p ? number && value_ok(p, x) : t >= 0;
}

/* Interactive: asks for each parameter (and the type). Returns 0, or -1 when the learner
 * stopped (q or end of input). */
static int ask(struct lab *lab, const struct lesson_step *st, struct lab_values *v, int *next_hint)
{
    const struct lesson_scene *s = st->scene;
    char line[256], range[256], prompt[512];
    int n = s->nparams < LAB_MAX_PARAMS ? s->nparams : LAB_MAX_PARAMS;
    for (int i = 0; i < n + (s->ntypes > 1); i++) {
        const struct lesson_param *p = i < n ? &s->params[i] : NULL;
        if (p) {
            range_text(lab, p, range, sizeof range);
            snprintf(prompt, sizeof prompt, LT(lab, LAB_PROMPT_NOW),
                     p->name, range, v->v[i]);
        } else {
            size_t len = 0;
            for (int k = 0; k < s->ntypes && len < sizeof range; k++)
                len += (size_t)snprintf(range + len, sizeof range - len, "%s%s", k ? "|" : "",
                                        s->types[k]);
            snprintf(prompt, sizeof prompt, LT(lab, LAB_PROMPT_TYPE), range,
                     s->types[v->type]);
        }
        for (int bad = 0;; bad++) {
            if (bad >= 20) {
                lab_out("%s\n", LT(lab, LAB_TOO_MANY_UNUSABLE_ANSWERS_STOPPING));
                return -1;
            }
            int got = answer(lab, st, next_hint, prompt, line, sizeof line);
            if (got < 0)
                return -1;
            if (!got || take(lab, s, p, line, range, p ? &v->v[i] : NULL, &v->type))
                break;
        }
    }
    return 0;
}

/* Scripted: applies --answers to the task's values. Returns 0, or EXIT_USAGE after a message
 * when an answer is out of range or not a number or type. */
static int apply_answers(struct lab *lab, const struct lesson_step *st, struct lab_values *v)
{
    const struct lesson_scene *s = st->scene;
    /* general answers first, then step-specific ones win */
    for (int pass = 0; pass < 2; pass++) {
        for (int k = 0; k < lab->nanswers; k++) {
            struct lab_answer *a = &lab->answers[k];
            if (pass == 0 ? a->step[0] != 0 : strcmp(a->step, st->id) != 0)
                continue;
            if (!strcmp(a->name, "T") && s->ntypes > 0) {
                int found = type_index(s, a->text);
                if (found < 0)
                    return cli_usage_error(&lab_cmd, CLI_E_STEP_T_IS_NOT_ONE, st->id, CLI_CLEAN(a->text));
                v->type = found;
                a->used = 1;
                continue;
            }
            for (int i = 0; i < s->nparams && i < LAB_MAX_PARAMS; i++) {
                const struct lesson_param *p = &s->params[i];
                if (strcmp(p->name, a->name))
                    continue;
                long long x;
                char range[96];
                range_text(lab, p, range, sizeof range);
                if (parse_ll(a->text, &x) < 0)
                    return cli_usage_error(&lab_cmd, CLI_E_STEP_IS_NOT_WHOLE_NUMBER, st->id,
                                           a->name, CLI_CLEAN(a->text));
                if (!value_ok(p, x))
                    return cli_usage_error(&lab_cmd, CLI_E_STEP_IS_OUTSIDE, st->id,
                                           a->name, x, range);
                v->v[i] = x;
                a->used = 1;
            }
        }
    }
    return 0;
}

/* Looks for parameter values that solve the task (model only), to show after the last try. */
static int find_solution(const struct lesson_step *st, struct lab_values *out)
{
    const struct lesson_scene *s = st->scene;
    int n = s->nparams < LAB_MAX_PARAMS ? s->nparams : LAB_MAX_PARAMS;
    double combos = s->ntypes > 0 ? s->ntypes : 1;
    for (int i = 0; i < n; i++) {
        long long step = s->params[i].step > 0 ? s->params[i].step : 1;
        combos *= (double)((s->params[i].max - s->params[i].min) / step + 1);
    }
    if (combos > LAB_SEARCH_LIMIT)
        return 0;
    struct lab_values v;
    memset(&v, 0, sizeof v);
    for (int t = 0; t < (s->ntypes > 0 ? s->ntypes : 1); t++) {
        v.type = t;
        for (int i = 0; i < n; i++)
            v.v[i] = s->params[i].min;
        for (;;) {
            struct bank_access acc;
            struct bank_result res;
            char err[512];
            if (evaluate(st, &v, &acc, &res, err, sizeof err, LANG_EN, NULL, 0) == 0 &&
                lesson_task_met(st->task, res.wavefronts, res.conflicts, res.ways)) {
                *out = v;
                return 1;
            }
            int i = 0;
            for (; i < n; i++) {  /* next combination, odometer style */
                long long step = s->params[i].step > 0 ? s->params[i].step : 1;
                if (v.v[i] + step <= s->params[i].max) {
                    v.v[i] += step;
                    break;
                }
                v.v[i] = s->params[i].min;
            }
            if (i == n)
                break;
        }
    }
    return 0;
}

static void record(struct lab *lab, const struct lesson_step *st, const char *given, int solved,
                   const struct bank_result *res, int measured, const double m[4],
                   const char *code)
{
    if (!lab->prog)
        return;
    char lid[PROGRESS_ID_MAX];
    snprintf(lid, sizeof lid, REPORT_TASK_PREFIX "%s", lab->l->id ? lab->l->id : "lab");
    progress_record_quiz(lab->prog, lid, st->id, solved, given);
    if (!res)
        return;
    struct progress_explored e;
    memset(&e, 0, sizeof e);
    snprintf(e.code, sizeof e.code, "%s", code);
    snprintf(e.where, sizeof e.where, "%s/%s", lab->l->id ? lab->l->id : "lab", st->id);
    e.wavefronts = res->wavefronts;
    e.conflicts = res->conflicts;
    e.ways = res->ways;
    e.has_measured = measured;
    e.measured_wavefronts = m[0];
    e.measured_conflicts = m[1];
    e.ns_per_access = m[2];
    e.slowdown = m[3];
    if (measured)
        snprintf(e.device, sizeof e.device, "%.127s", lab->info.device);
    e.when = (long long)time(NULL);
    progress_record_explored(lab->prog, &e);
}

/* A task's goal, its text for the prompts and its scene. */
static void print_task_text(const struct lab *lab, const struct lesson_step *st)
{
    const struct lesson_scene *s = st->scene;
    const struct lesson_task *t = st->task;
    static char txt[8192];
    snprintf(txt, sizeof txt, "%s%s", LT(lab, LAB_GOAL), tr(lab, &t->goal));
    lab_out("%s\n", txt);
    if (st->text.en || st->text.zh) {
        /* the tutorial's keys ("with p / P") as what to type at the prompts below */
        lab_prompt_text(s, lab->lang, tr(lab, &st->text), txt, sizeof txt);
        lab_out("%s\n", txt);
    }
    lab_out("%s%s\n", LT(lab, LAB_SCENE), s->code);
    /* the access counted from 1, as the tutorial's "access 1/2" */
    lab_out(LT(lab, LAB_BLOCK_X_X_WARP_ACCESS),
           s->block[0] ? s->block[0] : 1, s->block[1] ? s->block[1] : 1,
           s->block[2] ? s->block[2] : 1, s->warp, task_access(st) + 1, lab_access_count(s));
}

/* Runs one task. Returns 1 when solved. */
static int run_task(struct lab *lab, const struct lesson_step *st, int k, int ntasks)
{
    const struct lesson_scene *s = st->scene;
    const struct lesson_task *t = st->task;
    lab_out(LT(lab, LAB_TASK_HEAD),
           LT(lab, LAB_TASK), k, ntasks, st->id,
           tr(lab, &st->title), t->points, LT(lab, t->points == 1 ? LAB_POINT : LAB_POINTS));
    print_task_text(lab, st);
    struct lab_values v;
    memset(&v, 0, sizeof v);
    for (int i = 0; i < s->nparams && i < LAB_MAX_PARAMS; i++) {
        const struct lesson_param *p = &s->params[i];
        char range[96];
        range_text(lab, p, range, sizeof range);
        v.v[i] = p->def;
        const char *label = p->label.en || p->label.zh ? tr(lab, &p->label) : "";
        lab_out(LT(lab, LAB_PARAM_ROW), p->name,
               label[0] ? " - " : "", label, range,
               LT(lab, LAB_DEFAULT), p->def);
    }
    if (s->ntypes > 0) {
        lab_out("  T:");
        for (int i = 0; i < s->ntypes; i++)
            lab_out(" %s", s->types[i]);
        lab_out(" (%s %s)\n", LT(lab, LAB_DEFAULT), s->types[0]);
    }
    print_requirement(lab, t);

    struct bank_access acc;
    struct bank_result res;
    char err[1536], vt[512], what[640];
    values_text(s, &v, vt, sizeof vt);
    if (evaluate(st, &v, &acc, &res, err, sizeof err, lab->lang, NULL, 0) == 0) {
        snprintf(what, sizeof what, LT(lab, LAB_NOW), vt);
        print_result(lab, what, &res);
    }

    int tries = lab->scripted ? 1 : lab->tries;
    int next_hint = 0;
    for (int n = 1; n <= tries; n++) {
        if (lab->scripted) {
            if (apply_answers(lab, st, &v))
                return -1;
        } else {
            lab_out("\n%s %d/%d\n", LT(lab, LAB_TRY), n, tries);
            if (ask(lab, st, &v, &next_hint) < 0) {
                lab->quit = 1;
                return 0;
            }
        }
        values_text(s, &v, vt, sizeof vt);
        if (lab->scripted)
            lab_out("%s%s\n", LT(lab, LAB_ANSWER), vt);
        char code[PROGRESS_CODE_MAX];
        if (evaluate(st, &v, &acc, &res, err, sizeof err, lab->lang, code, sizeof code) < 0) {
            lab_out(LT(lab, LAB_THE_PATTERN_FAILS_WITH), vt, err);
            lab_out("%s\n", LT(lab, LAB_NOT_SOLVED));
            record(lab, st, vt, 0, NULL, 0, (const double[4]){0, 0, 0, 0}, "");
            continue;
        }
        snprintf(what, sizeof what, LT(lab, LAB_MODEL), vt);
        print_result(lab, what, &res);
        print_bounds(lab, t, &res);
        int ok = lesson_task_met(t, res.wavefronts, res.conflicts, res.ways);
        double m[4] = {0, 0, 0, 0};   /* wavefronts, conflicts, ns per access, slowdown */
        int measured = measure(lab, st, &acc, &m[0], &m[1], &m[2], &m[3]);
        if (measured) {
            /* the hardware must meet the requirement too (whole wavefronts/conflicts) */
            int hw_ok = lesson_task_met(t, lround(m[0]), lround(m[1]), res.ways);
            if (ok && !hw_ok)
                lab_out("%s\n", LT(lab, LAB_THE_COUNTERS_DO_NOT_MEET));
            ok = ok && hw_ok;
        }
        record(lab, st, vt, ok, &res, measured, m, code);
        if (ok) {
            lab_out(LT(lab, LAB_SOLVED), t->points,
                   LT(lab, t->points == 1 ? LAB_POINT : LAB_POINTS));
            return 1;
        }
        lab_out("%s", LT(lab, LAB_NOT_SOLVED_YET));
        if (n < tries)
            lab_out(LT(lab, tries - n == 1 ? LAB_TRY_LEFT : LAB_TRIES_LEFT), tries - n);
        else
            lab_out("%s\n", LT(lab, LAB_STOP));
    }
    struct lab_values sol;
    if (find_solution(st, &sol)) {
        values_text(s, &sol, vt, sizeof vt);
        lab_out(LT(lab, LAB_ONE_SOLUTION), vt);
    }
    return 0;
}

/* The command line besides the answers (which go into the lab). */
struct lab_opts {
    struct lab *lab;
    const char *file, *replay, *server;
    int no_gpu, device, save, no_server, model_only;
};

enum { OPT_ANSWERS = CLI_KEY_FIRST, OPT_LANG, OPT_TRIES, OPT_NO_GPU, OPT_NO_SAVE };

static const struct cli_opt lab_options[] = {
    CLI_ROW("answers", 0, "LIST", CLI_OH_LAB_ANSWERS, OPT_ANSWERS),
    CLI_LANG_OPT_ROW(CLI_OH_LAB_LANG, OPT_LANG),
    CLI_ROW("tries", 0, "N", CLI_OH_LAB_TRIES, OPT_TRIES),
    CLI_NO_GPU_ROW(CLI_OH_LAB_NO_GPU, OPT_NO_GPU),
    CLI_MEASURE_ROWS(CLI_OH_LAB_DEVICE, CLI_OH_LAB_SERVER, CLI_OH_LAB_NO_SERVER,
                     CLI_OH_LAB_REPLAY, CLI_OH_LAB_MODEL_ONLY),
    CLI_ROW("no-save", 0, NULL, CLI_OH_LAB_NO_SAVE, OPT_NO_SAVE),
    CLI_ROW_HELP(CLI_OH_LAB_HELP),
    CLI_ROW_TEXT(CLI_HT_LAB_1),
    CLI_ROW_END};

static int lab_opt(void *ctx, int key, const char *name, const char *val);

static const struct cli_cmd lab_cmd = {"lab", lab_options, 0, CLI_UNKNOWN_OPTION_LAB, NULL,
    usage, lab_opt, 19, 2, 0};

static int lab_opt(void *ctx, int key, const char *name, const char *val)
{
    struct lab_opts *o = ctx;
    struct lab *lab = o->lab;
    if (key == OPT_NO_GPU || key == OPT_NO_SAVE || key == CLI_MODEL_ONLY) {
        o->no_gpu |= key == OPT_NO_GPU;
        o->save &= key != OPT_NO_SAVE;
        o->model_only |= key == CLI_MODEL_ONLY;
        return 0;
    }
    if (key == CLI_SERVER || key == CLI_NO_SERVER)
        return cli_server_opt(&lab_cmd, key, val, &o->server, &o->no_server);
    if (key == CLI_ARG || key == CLI_REST) {
        if (o->file)
            return cli_usage_error(&lab_cmd, CLI_E_ONE_LAB_FILE_AT_TIME,
                                   CLI_CLEAN(o->file), CLI_CLEAN(val));
        o->file = val;
        return 0;
    }
    if (!val)
        return cli_usage_error(&lab_cmd, CLI_E_WANTS_VALUE, name);
    switch (key) {
    case OPT_ANSWERS:
        if (parse_answers(lab, val))
            return EXIT_USAGE;
        lab->scripted = 1;
        return 0;
    case OPT_LANG:
        if (lesson_lang_parse(val, &lab->lang) != 0)
            return cli_usage_error(&lab_cmd, CLI_E_LANG_IS_ZH_OR_EN, CLI_CLEAN(val));
        return 0;
    case CLI_REPLAY:
        o->replay = val;
        return 0;
    case OPT_TRIES:
        return cli_int_opt(&lab_cmd, name, val, 1, 20, &lab->tries);
    }
    return cli_int_opt(&lab_cmd, name, val, 0, CLI_DEVICE_MAX, &o->device);
}

/* Every --answers item must name a parameter (or T) of some task (a typo is bad input) and
 * fit every task it applies to: refused before the first task prints. Returns 0, or
 * EXIT_USAGE after a message. */
static int check_answers(struct lab *lab, const struct lesson *l)
{
    for (int k = 0; k < lab->nanswers; k++) {
        const struct lab_answer *a = &lab->answers[k];
        int found = 0, step_found = !a->step[0];
        for (int i = 0; i < l->nsteps; i++) {
            const struct lesson_step *st = &l->steps[i];
            if (!st->task || !st->scene || (a->step[0] && strcmp(a->step, st->id)))
                continue;
            step_found = 1;
            found |= !strcmp(a->name, "T") && st->scene->ntypes > 0;
            for (int q = 0; q < st->scene->nparams; q++)
                found |= !strcmp(st->scene->params[q].name, a->name);
        }
        if (!step_found || !found)
            return cli_usage_error(&lab_cmd, a->step[0] && !step_found
                                   ? CLI_E_ANSWERS_UNKNOWN_STEP : CLI_E_ANSWERS_IS_NOT_PARAMETER,
                                   CLI_CLEAN(a->step), a->step[0] ? "." : "", CLI_CLEAN(a->name));
    }
    for (int i = 0; i < l->nsteps && lab->scripted; i++) {
        const struct lesson_step *st = &l->steps[i];
        struct lab_values v;
        memset(&v, 0, sizeof v);
        if (st->task && st->scene && apply_answers(lab, st, &v))
            return EXIT_USAGE;
    }
    return 0;
}

/* The lab's title, its tasks and points, what grades them, how to answer. */
static void print_header(const struct lab *lab, const char *file, int ntasks, int max_points,
                         int no_gpu, const struct bl_err *nogpu)
{
    lab_out(LT(lab, LAB_BANKLAB_LAB), tr(lab, &lab->l->title),
            CLI_CLEAN(file));
    lab_out(LT(lab, ntasks == 1 ? LAB_GRADED_TASK : LAB_GRADED_TASKS), ntasks, max_points);
    if (!lab->scripted)
        lab_out(LT(lab, lab->tries == 1 ? LAB_UP_TO_TRY : LAB_UP_TO_TRIES), lab->tries);
    lab_out("\n");
    if (lab->gpu && lab->info.available && bl_err_failed(nogpu)) {   /* the shipped recording */
        struct bl_msg m, dev = lab->info.device_msg;   /* the device and date as messages */
        char en[512];
        if (dev.id == BL_MSG_NONE)
            bl_msg_set(&dev, NULL, 0, BL_TEXT, lab->info.device);
        bl_msg_set(&m, en, sizeof en, LAB_RECORDED_NO_GPU,
                   nogpu->msg[0] ? nogpu->msg : "not available", &dev);
        lab_out("%s\n", CLI_CLEAN(MSG(lab, &m, en)));
    } else if (lab->gpu && lab->info.available)
        lab_out(LT(lab, LAB_GPU_SOLVED_MEANS_THE_MODEL),
               CLI_CLEAN(MSG(lab, &lab->info.device_msg, lab->info.device)));
    else if (no_gpu)
        lab_out("%s\n", LT(lab, LAB_GPU_NOT_USED_NO_GPU));
    else
        lab_out(LT(lab, LAB_GPU_NONE_GRADED_BY_THE),
               CLI_CLEAN(lab->info.err.msg[0] ? MSG(lab, &lab->info.err.why, lab->info.err.msg)
                                             : LT(lab, LAB_NOT_AVAILABLE)));
    if (!lab->scripted)
        lab_out("%s\n", LT(lab, LAB_TYPE_A_VALUE_AND_ENTER));
}

/* Every graded task in order, until the learner stops. Returns 0, or EXIT_USAGE when an
 * answer does not fit (scripted). */
static int run_tasks(struct lab *lab, int ntasks, int *score, int *solved)
{
    const struct lesson *l = lab->l;
    for (int i = 0, k = 0; i < l->nsteps && !lab->quit; i++) {
        const struct lesson_step *st = &l->steps[i];
        if (!st->task || !st->scene)
            continue;
        int r = run_task(lab, st, ++k, ntasks);
        if (r < 0)
            return EXIT_USAGE;
        if (r > 0) {
            *score += st->task->points;
            (*solved)++;
        }
    }
    return 0;
}

/* The saved progress to record into, or NULL (--no-save, no path, out of memory). */
static struct progress *open_progress(const struct lab_opts *o, char *path, size_t size)
{
    if (!o->save || !progress_default_path(path, size))
        return NULL;
    struct progress *prog = malloc(sizeof *prog);
    struct bl_err warn = {0};
    if (prog && progress_load(path, prog, &warn) != 0)
        fprintf(stderr, "banklab lab: %s\n", CLI_CLEAN(warn.msg));
    return prog;
}

int cmd_lab(int argc, char **argv)
{
    static struct lab lab;  /* large: keep it off the stack */
    memset(&lab, 0, sizeof lab);
    lab.tries = 3;
    lab.lang = cli_lang() == BL_LANG_ZH ? LANG_ZH : LANG_EN;
    lab_locale();
    struct lab_opts o = {.lab = &lab, .save = 1};
    int rc = cli_parse(&lab_cmd, argc, argv, &o, NULL);
    if (!rc && !o.file)
        rc = cli_usage_error(&lab_cmd, CLI_E_WHICH_LAB_USAGE_BANKLAB_LAB);
    if (rc)
        return rc < 0 ? 0 : rc;
    struct lesson_error lerr;
    memset(&lerr, 0, sizeof lerr);
    struct lesson *l = lesson_load_file(o.file, &lerr);
    if (!l) {
        char line[512], buf[BL_ERR_TEXT * 2];
        if (lab.lang == LANG_ZH && lerr.line <= 0) {   /* "file", full-width colon, message */
            fprintf(stderr, bl_msg_format(CLI_PATH_SAYS, BL_LANG_ZH), CLI_CLEAN(lerr.file),
                    CLI_CLEAN(cli_err_text(&lerr.err, 1, buf, sizeof buf)));
            fputc('\n', stderr);
        } else {
            fprintf(stderr, "%s\n", CLI_CLEAN(lesson_error_line(&lerr, line, sizeof line)));
        }
        return EXIT_USAGE;
    }
    lab.l = l;
    int ntasks = 0, max_points = 0;
    for (int i = 0; i < l->nsteps; i++)
        if (l->steps[i].task && l->steps[i].scene) {
            ntasks++;
            max_points += l->steps[i].task->points;
        }
    if (!ntasks) {
        fprintf(stderr, "banklab lab: %s has no graded task (a step with \"task\"; see "
                "docs/lessons.md)\n", CLI_CLEAN(o.file));
        rc = EXIT_USAGE;
    } else if ((rc = check_answers(&lab, l)) == 0 && o.replay &&
               !(lab.gpu = cli_open_replay("lab", o.replay, &lab.info))) {
        rc = EXIT_USAGE;
    }
    if (rc) {
        lesson_free(l);
        return rc;
    }
    struct bl_err nogpu = {0};     /* the device could not measure: the recording stands in */
    if (!o.replay && !o.no_gpu) {
        lab.gpu = gpu_open_auto(o.device, o.server, o.no_server, &lab.info);
        cli_recorded_fallback(&lab.gpu, &lab.info, o.model_only || cli_model_only(), &nogpu);
    }
    char ppath[4096];
    struct progress *prog = lab.prog = open_progress(&o, ppath, sizeof ppath);
    setvbuf(stdout, NULL, _IOLBF, 0);
    print_header(&lab, o.file, ntasks, max_points, o.no_gpu, &nogpu);
    int score = 0, solved = 0;
    rc = run_tasks(&lab, ntasks, &score, &solved);
    if (rc == 0) {
        if (lab.quit)
            lab_out("\n%s\n", LT(&lab, LAB_STOPPED_EARLY_THE_REMAINING_TASKS));
        lab_out(LT(&lab, LAB_SCORE_OF_POINTS_OF_TASKS),
               score, max_points, solved, ntasks);
        if (prog) {
            progress_set_tasks(prog, score, max_points);
            struct bl_err err = {0};
            if (progress_save(ppath, prog, &err) < 0) {
                fprintf(stderr, LT(&lab, LAB_SAVE_FAILED), CLI_CLEAN(CLI_ERR(&err)));
                rc = EXIT_USAGE;  /* a lost score is not success */
            }
        }
    }
    lab_flush();
    free(prog);
    gpu_close(lab.gpu);
    lesson_free(l);
    return rc;
}
