/* pattern.c: the public entry points of the access-pattern language (pattern.h): the
 * environment, pattern_parse (text -> tokens -> struct pattern), pattern_free and the
 * accessors. The parts live beside it over pattern_internal.h (lexer, type table, parser,
 * evaluator, text helpers). Pure C11, libc and src/base: no curses, no CUDA, no cJSON; never
 * prints, never exits. */
#include "pattern_internal.h"

#include <stdlib.h>
#include <string.h>

void pattern_env_init(struct pattern_env *env)
{
    memset(env, 0, sizeof *env);
    env->block[0] = 32;
    env->block[1] = 1;
    env->block[2] = 1;
    env->smem_limit = PATTERN_DEFAULT_SMEM_LIMIT;
}

int pattern_env_set(struct pattern_env *env, const char *name, long long value)
{
    if (!env || !name || strlen(name) >= PATTERN_NAME_MAX || !name[0])
        return -1;
    int n = env->nparams < 0 ? 0 : env->nparams > PATTERN_MAX_PARAMS ? PATTERN_MAX_PARAMS
                                                                      : env->nparams;
    for (int i = 0; i < n; i++)
        if (strncmp(env->param[i].name, name, PATTERN_NAME_MAX) == 0) {
            env->param[i].value = value;
            return 0;
        }
    if (n >= PATTERN_MAX_PARAMS)
        return -1;
    pat_copy_name(env->param[n].name, name);
    env->param[n].value = value;
    env->nparams = n + 1;
    return 0;
}

void pattern_free(struct pattern *p)
{
    if (!p)
        return;
    free(p->text);
    free(p->node);
    free(p);
}

int pattern_parse(const char *text, struct pattern **out, struct bl_err *err)
{
    struct bl_err dummy;
    if (!err)
        err = &dummy;
    bl_err_clear(err);
    if (out)
        *out = NULL;
    if (!text || !out)
        return bl_fail(err, -1, BL_AT(-1, 0, -1), PAT_NO_PATTERN);
    size_t n = pat_bounded_len(text, PATTERN_TEXT_MAX + 1);
    if (n > PATTERN_TEXT_MAX)
        return bl_fail(err, -1, BL_AT(-1, 0, -1), PAT_PATTERN_IS_LONGER_THAN_BYTES, PATTERN_TEXT_MAX);
    struct pattern *p = calloc(1, sizeof *p);
    if (!p || !(p->text = malloc(n + 1))) {
        free(p);
        return bl_fail(err, -1, BL_AT(-1, 0, -1), PAT_OUT_OF_MEMORY);
    }
    memcpy(p->text, text, n + 1);
    p->text_len = n;
    pat_init_types(p);
    struct parser ps = {.p = p, .s = p->text, .n = n, .err = err, .read_node = -1, .last_if = -1};
    ps.ntok = pat_lex(p->text, n, &ps.tok, err);
    if (ps.ntok < 0 || pat_parse_program(&ps) < 0) {
        free(ps.tok);
        pattern_free(p);
        return -1;
    }
    free(ps.tok);
    *out = p;
    return 0;
}

int pattern_access_count(const struct pattern *p)
{
    return p ? p->naccs : 0;
}

const struct pattern_access_info *pattern_access(const struct pattern *p, int i)
{
    return p && i >= 0 && i < p->naccs ? &p->acc[i] : NULL;
}

int pattern_param_count(const struct pattern *p)
{
    return p ? p->nparams : 0;
}

const char *pattern_param_name(const struct pattern *p, int i)
{
    return p && i >= 0 && i < p->nparams ? p->param[i].name : NULL;
}
