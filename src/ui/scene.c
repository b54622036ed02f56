/* scene.c: a lesson scene (or the playground's text) evaluated for the screen: its
 * parameters, type, the chosen access of the chosen warp through scene_run
 * (src/lesson/scene.h); the GPU request for that state, asked through the hub (requests.h),
 * and its answer recorded in the progress. No curses calls here and no allocation besides the
 * run's text and parse (rebuilt only when the text changes). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "app.h"

void scene_init(struct ui_scene *s, req_answer_fn measured, void *ctx)
{
    memset(s, 0, sizeof *s);
    req_slot_init(&s->slot, measured, ctx);
}

void scene_clear(struct app *a, struct ui_scene *s)
{
    req_forget(&a->hub, &s->slot);
    scene_run_free(&s->run);
    struct req_slot slot = s->slot;   /* idle now; its owner's callback stays */
    memset(s, 0, sizeof *s);
    s->slot = slot;
}

static unsigned warps_of(const struct pattern_env *env)
{
    unsigned long long t = (unsigned long long)env->block[0] * env->block[1] * env->block[2];
    unsigned long long w = (t + 31) / 32;
    return w ? (unsigned)(w > 1024 ? 1024 : w) : 1;
}

/* binding for the scene's current values, plus one override (param index, value) */
static void make_bind(struct ui_scene *s, struct lesson_binding *b, long long *vals, int param,
                      long long v)
{
    memset(b, 0, sizeof *b);
    if (!s->ls)
        return;
    int n = s->ls->nparams < PATTERN_MAX_PARAMS ? s->ls->nparams : PATTERN_MAX_PARAMS;
    for (int i = 0; i < n; i++) {
        s->bind_name[i] = s->ls->params[i].name;
        vals[i] = i == param ? v : s->value[i];
    }
    b->nvalues = n;
    b->names = (char **)s->bind_name;
    b->values = vals;
    b->type = NULL;
}

int scene_set_code(struct ui_scene *s, const char *code)
{
    s->parsed = 0;
    bl_err_clear(&s->err);
    s->errtext[0] = 0;
    if (!code[0])
        return -1;                  /* nothing to parse: the caller says what to type */
    struct scene_in in = {.code = code, .env = &s->env, .access = -1, .warp = -1};
    if (scene_run(&s->run, &in, NULL, NULL, &s->err) != 0) {
        snprintf(s->errtext, sizeof s->errtext, "%s", s->err.msg);
        return -1;
    }
    s->parsed = 1;
    s->naccess = s->run.naccess;
    return 0;
}

/* The run of s's scene (or its text, in the playground) at access and warp (-1: parse only). */
static struct scene_in scene_in_of(struct ui_scene *s, struct lesson_binding *b, int access,
                                   int warp)
{
    if (!s->ls)
        return (struct scene_in){.code = s->run.code.s, .env = &s->env, .access = access,
                                 .warp = warp};
    return (struct scene_in){.scene = s->ls, .bind = b, .type = s->type_index, .access = access,
                             .warp = warp};
}

void scene_eval(struct app *a, struct ui_scene *s)
{
    (void)a;
    s->ok = 0;
    s->errtext[0] = 0;
    struct lesson_binding b;
    long long vals[PATTERN_MAX_PARAMS];
    make_bind(s, &b, vals, -1, 0);
    if (s->ls) {
        struct scene_in in = scene_in_of(s, &b, -1, -1);
        bl_err_clear(&s->err);
        s->parsed = scene_run(&s->run, &in, NULL, NULL, &s->err) == 0;
        s->env = s->run.env;
        if (!s->parsed) {
            snprintf(s->errtext, sizeof s->errtext, "%s", s->err.msg);
            return;
        }
        s->naccess = s->run.naccess;
        if (pattern_substitute(s->ls->code, &s->env, s->shown, sizeof s->shown) < 0)
            snprintf(s->shown, sizeof s->shown, "%s", s->ls->code);
    } else if (!s->parsed) {
        return;
    }
    s->nwarps = warps_of(&s->env);
    if (s->warp >= s->nwarps)
        s->warp = s->nwarps - 1;
    s->env.warp = s->warp;
    if (s->naccess < 1)
        s->naccess = 1;
    if (s->access >= s->naccess || s->access < 0)
        s->access = 0;
    struct scene_in in = scene_in_of(s, &b, s->access, (int)s->warp);
    bl_err_clear(&s->err);
    if (scene_run(&s->run, &in, &s->acc, &s->res, &s->err) != 0) {
        snprintf(s->errtext, sizeof s->errtext, "%s", s->err.msg);
        return;
    }
    s->ok = 1;
}

void scene_error_text(const struct app *a, const struct ui_scene *s, char *buf, size_t size)
{
    /* a message of scene_run in the screen's language (src/base/msg.def), else the screen's */
    if (s->err.msg[0] && !strcmp(s->errtext, s->err.msg))
        bl_err_text(&s->err, ui_lang(a), buf, size);
    else
        snprintf(buf, size, "%s", s->errtext);
}

int scene_eval_values(struct app *a, const struct ui_scene *cs, int param, long long v,
                      struct bank_result *res, struct bank_access *acc_out)
{
    (void)a;
    struct ui_scene *s = (struct ui_scene *)cs;  /* bind_name and the run's parse are written */
    if (!s->ls || !s->parsed)
        return -1;
    struct lesson_binding b;
    long long vals[PATTERN_MAX_PARAMS];
    make_bind(s, &b, vals, param, v);
    struct scene_in in = scene_in_of(s, &b, s->access, (int)s->warp);
    const struct pattern *parsed = s->run.pat;
    struct bank_access acc;
    if (scene_run(&s->run, &in, &acc, res, NULL) != 0 || s->run.pat != parsed)
        return -1;                       /* the type is part of the code, not swept */
    if (acc_out)
        *acc_out = acc;
    return 0;
}

int scene_load(struct app *a, struct ui_scene *s, const struct lesson_scene *ls)
{
    scene_clear(a, s);
    s->ls = ls;
    if (!ls)
        return 0;
    for (int i = 0; i < ls->nparams && i < PATTERN_MAX_PARAMS; i++)
        s->value[i] = ls->params[i].def;
    s->access = ls->access;
    s->warp = ls->warp;
    scene_eval(a, s);
    return s->ok ? 0 : -1;
}

/* A case request carries every parameter the kernel reads (gpu_case_info), the scene's value
 * where the scene has it, else the kernel's default: a live run ignores other parameters,
 * and a recording (replay) matches a request by case name and the full parameter set. */
static void case_request(const struct ui_scene *s, int param, long long v, struct gpu_request *rq)
{
    const char *k = s->ls->kernel;
    int n;
    const struct gpu_case_param *cp = gpu_case_info(k, &n);
    rq->kind = GPU_REQ_CASE;
    snprintf(rq->case_name, sizeof rq->case_name, "%s", k);
    rq->nparams = 0;
    for (int c = 0; cp && c < n && rq->nparams < GPU_CASE_MAX_PARAMS; c++) {
        long long val = cp[c].def;
        for (int i = 0; i < s->ls->nparams && i < PATTERN_MAX_PARAMS; i++)
            if (gpu_case_param_index(k, s->ls->params[i].name) == c)
                val = i == param ? v : s->value[i];
        snprintf(rq->param_name[rq->nparams], sizeof rq->param_name[0], "%s", cp[c].name);
        rq->param_value[rq->nparams++] = val;
    }
}

int scene_request(struct app *a, const struct ui_scene *s, int param, long long v,
                  struct gpu_request *rq)
{
    memset(rq, 0, sizeof *rq);
    rq->want_timing = 1;
    rq->want_counters = 1;
    const char *k = s->ls ? s->ls->kernel : NULL;
    if (k && *k && strcmp(k, "pattern")) {
        /* the kernel, and the drawn access at that value: its time per access is measured
         * too (a value the model cannot evaluate sends the kernel alone) */
        case_request(s, param, v, rq);
        struct bank_result res;
        if (param < 0 && s->ok)
            rq->access = s->acc;
        else if (param >= 0 && scene_eval_values(a, s, param, v, &res, &rq->access) != 0)
            memset(&rq->access, 0, sizeof rq->access);
        return 0;
    }
    rq->kind = GPU_REQ_PATTERN;
    if (param < 0) {
        if (!s->ok)
            return -1;
        rq->access = s->acc;
        return 0;
    }
    struct bank_result res;
    return scene_eval_values(a, s, param, v, &res, &rq->access);
}

void scene_measure(struct app *a, struct ui_scene *s)
{
    struct gpu_request rq;
    if (s->held || !s->ok || scene_request(a, s, -1, 0, &rq) != 0) {
        req_forget(&a->hub, &s->slot);
        return;
    }
    req_ask(&a->hub, &s->slot, &rq);
}

void scene_record(struct app *a, const struct ui_scene *s, const struct gpu_result *r,
                  const char *where)
{
    if (r->err.status != GPU_OK || !s->ok || s->held)
        return;
    struct progress_explored e;
    memset(&e, 0, sizeof e);
    snprintf(e.code, sizeof e.code, "%s", s->shown);
    snprintf(e.where, sizeof e.where, "%s", where);
    e.wavefronts = s->res.wavefronts;
    e.conflicts = s->res.conflicts;
    e.ways = s->res.ways;
    e.has_measured = r->has_counters || r->has_timing || r->has_access_timing;
    int st = s->acc.op == BANK_STORE;
    const char *k = s->ls ? s->ls->kernel : NULL;
    e.measured_wavefronts = st ? r->wavefronts_st : r->wavefronts_ld;
    e.measured_conflicts = st ? r->conflicts_st : r->conflicts_ld;
    /* a pattern launch's ms is fixed by design: only a case kernel's own time is kept */
    e.ms = r->has_timing && k && *k && strcmp(k, "pattern") ? r->ms_median : 0;
    e.ns_per_access = r->has_access_timing ? r->ns_per_access : 0;
    e.slowdown = r->has_access_timing ? r->slowdown : 0;
    snprintf(e.device, sizeof e.device, "%s", req_hub_info(&a->hub)->device);
    e.when = (long long)time(NULL);
    progress_record_explored(&a->prog, &e);
}

void scene_set_param(struct app *a, struct ui_scene *s, int i, long long v)
{
    if (!s->ls || i < 0 || i >= s->ls->nparams || i >= PATTERN_MAX_PARAMS)
        return;
    s->value[i] = v;
    scene_eval(a, s);
    scene_measure(a, s);
}

int scene_param_key(struct app *a, struct ui_scene *s, int ch)
{
    if (!s->ls)
        return 0;
    for (int i = 0; i < s->ls->nparams && i < PATTERN_MAX_PARAMS; i++) {
        const struct lesson_param *p = &s->ls->params[i];
        int d = 0;
        if (p->key_inc && ch == p->key_inc)
            d = 1;
        else if (p->key_dec && ch == p->key_dec)
            d = -1;
        if (!d)
            continue;
        long long step = p->step > 0 ? p->step : 1;
        long long v = s->value[i] + d * step;
        if (v > p->max)
            v = p->max;
        if (v < p->min)
            v = p->min;
        if (v == s->value[i]) {
            app_msg(a, 0, ui_str(a, UIS_MSG_STAYS), p->name, p->min, p->max);
            return 1;
        }
        scene_set_param(a, s, i, v);
        return 1;
    }
    return 0;
}

void scene_cycle_type(struct app *a, struct ui_scene *s)
{
    if (!s->ls || s->ls->ntypes < 2) {
        app_msg(a, 0, "%s", ui_str(a, UIS_MSG_ONE_TYPE));
        return;
    }
    s->type_index = (s->type_index + 1) % s->ls->ntypes;
    scene_eval(a, s);
    scene_measure(a, s);
}

void scene_warp(struct app *a, struct ui_scene *s, int delta)
{
    if (s->nwarps <= 1) {
        app_msg(a, 0, "%s", ui_str(a, UIS_MSG_ONE_WARP));
        return;
    }
    s->warp = (s->warp + s->nwarps + (unsigned)(delta < 0 ? -1 : 1)) % s->nwarps;
    scene_eval(a, s);
    scene_measure(a, s);
}

void scene_next_access(struct app *a, struct ui_scene *s)
{
    if (s->naccess <= 1) {
        app_msg(a, 0, "%s", ui_str(a, UIS_MSG_ONE_ACCESS));
        return;
    }
    s->access = (s->access + 1) % s->naccess;
    scene_eval(a, s);
    scene_measure(a, s);
}
