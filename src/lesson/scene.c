/* scene.c: a scene's pattern environment (its defaults, a binding's values, the element type
 * put in front of the code) and the one text for a binding in messages. Shared by the loader
 * (src/store), the checker, the lab and the tutorial. The model only; never prints. */
#include <stdio.h>
#include <string.h>

#include "lesson.h"

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
