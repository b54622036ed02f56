/* scene.h: the one way a scene (or a bare pattern text) goes through the model: its
 * environment (its parameters' defaults, overridden by a binding; "typedef <type> T; " before
 * its code when it has types), the parse, the evaluation of one access of one warp and the
 * bank model. `banklab check`, `banklab lab`, `banklab sim`, the loader, the settings of
 * `banklab verify` and the screen all call scene_run. The parse is kept between runs while
 * the text stays the same, so a sweep over parameter values parses once. Never prints. */
#ifndef BANKLAB_LESSON_SCENE_H
#define BANKLAB_LESSON_SCENE_H

#include <stdint.h>

#include "../base/buf.h"
#include "../base/err.h"
#include "lesson.h"

/* What failed, in err.status (the message says it in either language, msg.def). */
enum scene_status {
    SCENE_EBIND = 1,    /* a binding's parameter is not the scene's, or there are too many */
    SCENE_EPARSE,       /* the text does not parse (err.where: in scene_run.code.s) */
    SCENE_EEVAL,        /* the access does not evaluate (err.where, err.lane) */
    SCENE_EBANK,        /* the bank model refuses the access (err.lane: the lane, or -1) */
};

struct scene_in {
    const struct lesson_scene *scene;   /* a lesson scene, or NULL: code and env below */
    const struct lesson_binding *bind;  /* the scene's parameter values (NULL: its defaults) */
    int type;                           /* index into scene->types when bind names no type */
    const char *code;                   /* without a scene: the pattern text */
    const struct pattern_env *env;      /* without a scene: its environment */
    int access;                         /* the access (0-based); -1: the environment and the
                                         * parse only */
    int warp;                           /* the warp of the block; -1: the scene's (env's) */
    uint32_t drop;                      /* lanes taken out of the access (bits) */
    struct pattern_layout *lay;         /* NULL, or where the arrays lie (as pattern_eval) */
};

/* What one run leaves, and the parse kept for the next. Start from {0}; free with
 * scene_run_free. */
struct scene_run {
    struct bl_buf code;         /* the text parsed (code.s): "typedef <type> T; " + the
                                   scene's code */
    size_t prefix;              /* bytes of code before the scene's own text */
    struct pattern *pat;        /* code parsed; NULL when it does not parse */
    int naccess;                /* accesses of pat */
    struct pattern_env env;     /* the last run's environment (warp included) */
};

/* scene_run: run in through the model: acc and res (not NULL when in->access >= 0) take the
 * access and the bank model's result. Returns 0, or -1 with err (may be NULL) filled, its
 * status an enum scene_status; an err that holds a failure already keeps it. r->env and
 * r->code hold what was reached. in->code may be r->code.s (the text r holds), no other
 * place inside it. */
int scene_run(struct scene_run *r, const struct scene_in *in, struct bank_access *acc,
              struct bank_result *res, struct bl_err *err);

void scene_run_free(struct scene_run *r);

#endif
