/* settings.c: every parameter setting of a lesson scene, and every access a learner can draw
 * at one setting (types, warps, accesses): what `banklab verify` measures and what the shipped
 * recording must cover (tests/unit/test_recording.c). Through scene_run only: no cJSON, no
 * GPU, never prints. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "scene.h"
#include "../base/hash.h"

static long long param_count(const struct lesson_param *p, long long step)
{
    return p->max >= p->min ? (p->max - p->min) / step + 1 : 1;
}

/* The step that leaves at most LESSON_SWEEP_MAX values (the sweep view's thinning). */
static long long thinned_step(const struct lesson_param *p)
{
    long long step = p->step > 0 ? p->step : 1;
    while (param_count(p, step) > LESSON_SWEEP_MAX)
        step *= 2;
    return step;
}

int lesson_scene_settings(const struct lesson_scene *s,
                          int (*fn)(const struct lesson_binding *bind, void *ctx), void *ctx)
{
    int np = s->nparams < PATTERN_MAX_PARAMS ? s->nparams : PATTERN_MAX_PARAMS;
    char *names[PATTERN_MAX_PARAMS];
    long long values[PATTERN_MAX_PARAMS], n[PATTERN_MAX_PARAMS], idx[PATTERN_MAX_PARAMS];
    struct lesson_binding b = {np, names, values, NULL};
    double total = 1;
    for (int p = 0; p < np; p++) {
        names[p] = s->params[p].name;
        n[p] = param_count(&s->params[p], s->params[p].step > 0 ? s->params[p].step : 1);
        total *= (double)n[p];
        idx[p] = 0;
        values[p] = s->params[p].def;
    }
    int visited = 0;
    if (total <= LESSON_SETTINGS_MAX) {
        for (;;) {
            for (int p = 0; p < np; p++)
                values[p] = s->params[p].min + idx[p] * (s->params[p].step > 0 ? s->params[p].step : 1);
            if (fn(&b, ctx))
                return -1;
            visited++;
            int p = 0;
            while (p < np && ++idx[p] >= n[p])
                idx[p++] = 0;
            if (p == np)
                return visited;
        }
    }
    if (fn(&b, ctx)) /* the defaults */
        return -1;
    visited++;
    for (int p = 0; p < np; p++) {
        long long step = thinned_step(&s->params[p]);
        for (long long v = s->params[p].min; v <= s->params[p].max; v += step) {
            if (v == s->params[p].def)
                continue;
            values[p] = v;
            if (fn(&b, ctx))
                return -1;
            visited++;
        }
        values[p] = s->params[p].def;
    }
    return visited;
}

int lesson_scene_accesses(const struct lesson_scene *s, const struct lesson_binding *bind,
                          int (*fn)(const struct bank_access *acc, int type_index,
                                    unsigned warp, int access, void *ctx),
                          void *ctx)
{
    struct scene_run r = {0};
    int ntypes = s->ntypes > 0 ? s->ntypes : 1, visited = 0;
    for (int t = 0; t < ntypes && visited >= 0; t++) {
        if (bind && bind->type && t > 0)
            break; /* the binding fixes the type */
        struct scene_in in = {.scene = s, .bind = bind, .type = t, .access = -1, .warp = -1};
        if (scene_run(&r, &in, NULL, NULL, NULL)) {
            visited = -1;
            break;
        }
        unsigned nwarps = (r.env.block[0] * r.env.block[1] * r.env.block[2] + 31) / 32;
        for (unsigned w = 0; w < nwarps && visited >= 0; w++) {
            for (int a = 0; a < r.naccess && visited >= 0; a++) {
                struct bank_access acc;
                struct bank_result res;
                in.access = a;
                in.warp = (int)w;
                if (scene_run(&r, &in, &acc, &res, NULL))
                    continue;
                visited = fn(&acc, t, w, a, ctx) ? -1 : visited + 1;
            }
        }
    }
    scene_run_free(&r);
    return visited;
}

static uint64_t fnv_str(uint64_t h, const char *s)
{
    return bl_hash(h, s ? s : "", (s ? strlen(s) : 0) + 1);  /* the NUL separates fields */
}

static uint64_t fnv_ll(uint64_t h, long long v)
{
    return bl_hash(h, &v, sizeof v);
}

static uint64_t digest_binding(uint64_t h, const struct lesson_binding *b)
{
    h = fnv_ll(h, b->nvalues);
    for (int i = 0; i < b->nvalues; i++)
        h = fnv_ll(fnv_str(h, b->names[i]), b->values[i]);
    return fnv_str(h, b->type);
}

void lesson_scenes_digest(const struct lesson_set *set, char buf[17])
{
    uint64_t h = BL_HASH_SEED;
    for (int li = 0; set && li < set->nlessons; li++) {
        const struct lesson *l = &set->lessons[li];
        h = fnv_str(h, l->id);
        for (int si = 0; si < l->nsteps; si++) {
            const struct lesson_step *st = &l->steps[si];
            const struct lesson_scene *s = st->scene;
            if (!s)
                continue;
            h = fnv_str(fnv_str(h, st->id), s->code);
            for (int k = 0; k < 3; k++)
                h = fnv_ll(h, s->block[k]);
            h = fnv_ll(fnv_ll(fnv_ll(h, s->warp), s->access), (long long)s->dyn_bytes);
            h = fnv_str(h, s->kernel);
            for (int k = 0; k < s->ntypes; k++)
                h = fnv_str(h, s->types[k]);
            for (int k = 0; k < s->nparams; k++) {
                const struct lesson_param *p = &s->params[k];
                h = fnv_ll(fnv_ll(fnv_ll(fnv_ll(fnv_str(h, p->name), p->def), p->min), p->max),
                           p->step);
            }
            for (int e = 0; e < st->nexpects; e++)
                h = digest_binding(h, &st->expects[e].bind);
        }
    }
    snprintf(buf, 17, "%016" PRIx64, h);
}
