/* scene.c: a scene's pattern environment (its defaults, a binding's values, the element type
 * put in front of the code), the one run of a scene or a pattern text through the model
 * (scene.h) and the one text for a binding in messages. The model only; never prints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/bank.h"
#include "scene.h"

/* The element type of a run of s under bind (NULL: the scene has none). */
static const char *scene_type(const struct lesson_scene *s, const struct lesson_binding *bind,
                              int type_index)
{
    if (s->ntypes <= 0)
        return NULL;
    if (bind && bind->type)
        return bind->type;
    return s->types[type_index < 0 ? 0 : type_index % s->ntypes];
}

/* env: s's block, warp, dynamic bytes and parameter defaults, then bind's values. */
static int scene_env(const struct lesson_scene *s, const struct lesson_binding *bind,
                     struct pattern_env *env, struct bl_err *err)
{
    pattern_env_init(env);
    for (int k = 0; k < 3; k++)
        env->block[k] = s->block[k] ? s->block[k] : 1;
    env->warp = s->warp;
    env->dyn_bytes = s->dyn_bytes;
    for (int k = 0; k < s->nparams; k++)
        if (s->params[k].name && pattern_env_set(env, s->params[k].name, s->params[k].def))
            return bl_fail(err, SCENE_EBIND, BL_NOWHERE, SCENE_CANNOT_SET, s->params[k].name,
                           PATTERN_MAX_PARAMS, PATTERN_NAME_MAX - 1);
    for (int k = 0; bind && k < bind->nvalues; k++) {
        int found = 0;
        for (int q = 0; q < s->nparams; q++)
            found |= s->params[q].name && !strcmp(s->params[q].name, bind->names[k]);
        if (!found)
            return bl_fail(err, SCENE_EBIND, BL_NOWHERE, SCENE_NOT_A_PARAMETER, bind->names[k]);
        if (pattern_env_set(env, bind->names[k], bind->values[k]))
            return bl_fail(err, SCENE_EBIND, BL_NOWHERE, SCENE_CANNOT_SET, bind->names[k],
                           PATTERN_MAX_PARAMS, PATTERN_NAME_MAX - 1);
    }
    return 0;
}

/* 1 when r->code.s is already "typedef <type> T; " (type NULL: nothing) followed by text. */
static int same_code(const struct scene_run *r, const char *type, const char *text)
{
    const char *c = r->code.s;
    if (!c)
        return 0;
    if (type) {
        size_t tl = strlen(type);
        if (strncmp(c, "typedef ", 8) || strncmp(c + 8, type, tl) || strncmp(c + 8 + tl, " T; ", 4))
            return 0;
        c += tl + 12;
    }
    return c == r->code.s + r->prefix && !strcmp(c, text);
}

/* r->code.s becomes the text to parse; the parse kept is dropped when it changes. */
static int set_code(struct scene_run *r, const char *type, const char *text, struct bl_err *err)
{
    if ((!type && text == r->code.s) || same_code(r, type, text))
        return 0;
    pattern_free(r->pat);
    r->pat = NULL;
    r->naccess = 0;
    bl_buf_reset(&r->code);
    if (type ? bl_buf_addf(&r->code, "typedef %s T; %s", type, text) : bl_buf_adds(&r->code, text))
        return bl_fail(err, SCENE_EPARSE, BL_NOWHERE, PAT_OUT_OF_MEMORY);
    r->prefix = type ? strlen(type) + 12 : 0;
    return 0;
}

/* The bank model's verdict on acc: 0, or -1 with err (the lane when one is to blame). */
static int bank_run(const struct bank_access *acc, struct bank_result *res, struct bl_err *err)
{
    int bad = -1;
    enum bank_status bs = bank_simulate(acc, res, &bad);
    if (bs == BANK_OK)
        return 0;
    if (bad >= 0)
        bl_fail(err, SCENE_EBANK, BL_NOWHERE, SCENE_BANK_LANE, bank_status_str(bs), bad);
    else
        bl_fail(err, SCENE_EBANK, BL_NOWHERE, BL_TEXT, bank_status_str(bs));
    err->lane = bad;
    return -1;
}

int scene_run(struct scene_run *r, const struct scene_in *in, struct bank_access *acc,
              struct bank_result *res, struct bl_err *err)
{
    struct bl_err own;
    if (!err || bl_err_failed(err)) { /* the caller's first failure stays */
        bl_err_clear(&own);
        err = &own;
    }
    const struct lesson_scene *s = in->scene;
    if (s) {
        if (!s->code)
            return bl_fail(err, SCENE_EPARSE, BL_NOWHERE, PAT_NO_PATTERN);
        if (scene_env(s, in->bind, &r->env, err) ||
            set_code(r, scene_type(s, in->bind, in->type), s->code, err))
            return -1;
    } else {
        if (in->env)
            r->env = *in->env;
        else
            pattern_env_init(&r->env);
        if (!in->code)
            return bl_fail(err, SCENE_EPARSE, BL_NOWHERE, PAT_NO_PATTERN);
        if (set_code(r, NULL, in->code, err))
            return -1;
    }
    if (!r->pat) {
        if (pattern_parse(r->code.s, &r->pat, err)) {
            err->status = SCENE_EPARSE;
            return -1;
        }
        r->naccess = pattern_access_count(r->pat);
    }
    if (in->warp >= 0)
        r->env.warp = (unsigned)in->warp;
    if (in->access < 0)
        return 0;
    if (pattern_eval(r->pat, &r->env, in->access, acc, in->lay, err)) {
        err->status = SCENE_EEVAL;
        return -1;
    }
    acc->mask &= ~in->drop;
    return bank_run(acc, res, err);
}

void scene_run_free(struct scene_run *r)
{
    pattern_free(r->pat);
    bl_buf_release(&r->code);
    memset(r, 0, sizeof *r);
}

void lesson_binding_msg(const struct pattern_env *env, const char *type, int access,
                        struct bl_msg *m)
{
    char buf[200];
    size_t n = 0;
    buf[0] = 0;
    for (int k = 0; k < env->nparams && n < sizeof buf; k++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s=%lld, ", env->param[k].name,
                              env->param[k].value);
    if (type && n < sizeof buf)
        snprintf(buf + n, sizeof buf - n, "T=%s, ", type);
    bl_msg_set(m, NULL, 0, LP_BINDING, buf, access);
}
