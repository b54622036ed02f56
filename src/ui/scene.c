/* scene.c: a lesson scene (or the playground's text) evaluated for the screen: parameters and
 * type through lesson_scene_env, the text through the pattern language, the chosen access of
 * the chosen warp through the bank model; the GPU request for that state, asked through the
 * hub (requests.h), and its answer recorded in the progress. No curses calls here and no
 * allocation besides the parsed pattern (rebuilt only when the text changes). */
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
    if (s->pat)
        pattern_free(s->pat);
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
    if (s->parsed && !strcmp(code, s->code))
        return 0;
    if (s->pat)
        pattern_free(s->pat);
    s->pat = NULL;
    s->parsed = 0;
    snprintf(s->code, sizeof s->code, "%s", code);
    memset(&s->err, 0, sizeof s->err);
    s->errtext[0] = 0;
    if (!code[0])
        return -1;                  /* nothing to parse: the caller says what to type */
    if (pattern_parse(s->code, &s->pat, &s->err) != 0) {
        s->pat = NULL;
        snprintf(s->errtext, sizeof s->errtext, "%s", s->err.msg);
        return -1;
    }
    s->parsed = 1;
    s->naccess = pattern_access_count(s->pat);
    return 0;
}

void scene_eval(struct app *a, struct ui_scene *s)
{
    (void)a;
    s->ok = 0;
    s->errtext[0] = 0;
    s->err_kind = SCENE_ERR_TEXT;
    if (s->ls) {
        struct lesson_binding b;
        long long vals[PATTERN_MAX_PARAMS];
        char code[UI_CODE_MAX];
        make_bind(s, &b, vals, -1, 0);
        if (lesson_scene_env(s->ls, &b, s->type_index, &s->env, code, sizeof code) != 0) {
            snprintf(s->errtext, sizeof s->errtext, "scene code does not fit or a parameter is unknown");
            s->err_kind = SCENE_ERR_BIND;
            return;
        }
        if (scene_set_code(s, code) != 0)
            return;
        if (pattern_substitute(s->ls->code, &s->env, s->shown, sizeof s->shown) < 0)
            snprintf(s->shown, sizeof s->shown, "%s", s->ls->code);
    } else {
        if (!s->parsed)
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
    memset(&s->err, 0, sizeof s->err);
    if (pattern_eval(s->pat, &s->env, s->access, &s->acc, NULL, &s->err) != 0) {
        snprintf(s->errtext, sizeof s->errtext, "%s", s->err.msg);
        return;
    }
    int bad = -1;
    enum bank_status st = bank_simulate(&s->acc, &s->res, &bad);
    if (st != BANK_OK) {
        if (st == BANK_EALIGN)
            snprintf(s->errtext, sizeof s->errtext, "%s (lane %d)", bank_status_str(st), bad);
        else
            snprintf(s->errtext, sizeof s->errtext, "%s", bank_status_str(st));
        s->err_kind = st == BANK_EALIGN ? SCENE_ERR_ALIGN : SCENE_ERR_WIDTH;
        s->bad_lane = bad;
        return;
    }
    s->ok = 1;
}

void scene_error_text(const struct app *a, const struct ui_scene *s, char *buf, size_t size)
{
    switch (s->err_kind) {
    case SCENE_ERR_BIND: snprintf(buf, size, "%s", ui_str(a, UIS_ERR_BIND)); break;
    case SCENE_ERR_WIDTH: snprintf(buf, size, "%s", ui_str(a, UIS_ERR_WIDTH)); break;
    case SCENE_ERR_ALIGN: snprintf(buf, size, ui_str(a, UIS_ERR_ALIGN), s->bad_lane); break;
    default: /* the pattern language's message in the screen's language (src/base/msg.def) */
        if (s->err.msg[0] && !strcmp(s->errtext, s->err.msg))
            bl_err_text(&s->err, ui_lang(a), buf, size);
        else
            snprintf(buf, size, "%s", s->errtext);
        break;
    }
}

int scene_eval_values(struct app *a, const struct ui_scene *cs, int param, long long v,
                      struct bank_result *res, struct bank_access *acc_out)
{
    (void)a;
    struct ui_scene *s = (struct ui_scene *)cs;  /* only bind_name is written */
    if (!s->ls || !s->parsed)
        return -1;
    struct lesson_binding b;
    long long vals[PATTERN_MAX_PARAMS];
    char code[UI_CODE_MAX];
    struct pattern_env env;
    make_bind(s, &b, vals, param, v);
    if (lesson_scene_env(s->ls, &b, s->type_index, &env, code, sizeof code) != 0)
        return -1;
    if (strcmp(code, s->code))
        return -1;                       /* the type is part of the code, not swept */
    env.warp = s->warp;
    struct bank_access acc;
    struct bl_err err;
    if (pattern_eval(s->pat, &env, s->access, &acc, NULL, &err) != 0)
        return -1;
    if (bank_simulate(&acc, res, NULL) != BANK_OK)
        return -1;
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
