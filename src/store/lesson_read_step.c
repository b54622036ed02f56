/* lesson_read_step.c: a lesson step read from its JSON (lesson_read.h): texts and hints, the
 * scene (lesson_read_scene.c), and what refers to the scene: parameter bindings, the quiz and
 * its model check, expectations, the graded task; then the figures its text quotes
 * (lesson_read_figure.c). A part with a problem is reported and left out, so a partial load
 * keeps the rest. Never prints. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson_read.h"
#include "../base/hash.h"

/* Reads "params" (and "type") of obj into b, checked against scene s. */
static int read_binding(struct ld *L, const cJSON *obj, const char *path,
                        const struct lesson_scene *s, struct lesson_binding *b)
{
    char p[PATH_BUF], p2[PATH_BUF];
    int bad = 0;
    const cJSON *pj = lr_field(obj, "params", path, p);
    if (pj) {
        if (!cJSON_IsObject(pj)) {
            lesson_problem(&L->P, 0, p, LP_EXPECTED_AN_OBJECT_NAME_VALUE_FOUN,
                           json_type_name(pj));
            return -1;
        }
        int n = cJSON_GetArraySize(pj);
        if (n > 0) {
            b->names = lr_calloc(L, n, sizeof *b->names);
            b->values = lr_calloc(L, n, sizeof *b->values);
            if (!b->names || !b->values)
                return -1;
        }
        for (const cJSON *d = pj->child; d; d = d->next) {
            const char *nm = d->string ? d->string : "";
            lr_sub(p2, p, nm);
            const struct lesson_param *prm = NULL;
            char list[256] = "";
            for (int k = 0; k < s->nparams; k++) {
                if (s->params[k].name && !strcmp(s->params[k].name, nm))
                    prm = &s->params[k];
                size_t ln = strlen(list);
                snprintf(list + ln, sizeof list - ln, "%s%s", k ? ", " : "",
                         s->params[k].name ? s->params[k].name : "?");
            }
            if (!prm) {
                if (s->nparams)
                    lesson_problem(&L->P, 0, p2, LP_NOT_A_PARAMETER_OF_THE_SCENE_IT_HA, list);
                else
                    lesson_problem(&L->P, 0, p2, LP_NOT_A_PARAMETER_OF_THE_SCENE_IT_HA_2);
                bad++;
                continue;
            }
            int dup = 0;
            for (int k = 0; k < b->nvalues; k++)
                dup |= !strcmp(b->names[k], nm);
            double v = d->valuedouble;
            if (dup) {
                lesson_problem(&L->P, 0, p2, LP_GIVEN_TWICE);
                bad++;
            } else if (!cJSON_IsNumber(d) || v != floor(v) || v < (double)prm->min ||
                       v > (double)prm->max || !lr_int_literal(d)) {
                if (cJSON_IsNumber(d))
                    lesson_problem(&L->P, 0, p2, LP_EXPECTED_AN_INTEGER_IN_THE_PARAMET, prm->min, prm->max,
                                   d->valuestring);
                else
                    lesson_problem(&L->P, 0, p2, LP_EXPECTED_AN_INTEGER_IN_FOUND,
                                   prm->min, prm->max, json_type_name(d));
                bad++;
            } else {
                b->names[b->nvalues] = lr_dupstr(L, nm);
                b->values[b->nvalues] = (long long)v;
                b->nvalues++;
            }
        }
    }
    const cJSON *tj = lr_field(obj, "type", path, p);
    if (tj) {
        const char *t = cJSON_GetStringValue(tj);
        int found = 0;
        for (int k = 0; t && k < s->ntypes; k++)
            found |= !strcmp(t, s->types[k]);
        if (!t) {
            lesson_problem(&L->P, 0, p, LP_EXPECTED_A_TYPE_NAME_A_STRING_FOUN,
                           json_type_name(tj));
            bad++;
        } else if (!found) {
            lesson_problem(&L->P, 0, p, LP_IS_NOT_ONE_OF_THE_SCENE_S_TYPES, t,
                           s->ntypes ? "" : " (the scene has no \"types\")");
            bad++;
        } else {
            b->type = lr_dupstr(L, t);
        }
    }
    return bad ? -1 : 0;
}

static const char *const field_names[] = {"", "wavefronts", "conflicts", "ways", "passes", NULL};

/* "access" of obj: below naccess, the scene's number of accesses; when the scene is broken
 * (naccess < 0) any index a scene may have. Returns it, or dflt when absent or wrong (a
 * problem then counts in *bad). */
static int get_access(struct ld *L, const cJSON *obj, const char *path, int naccess, int dflt,
                      int *bad)
{
    char what[48];
    long long v;
    int hi = naccess < 0 ? PATTERN_MAX_ACCESSES - 1 : naccess - 1;
    snprintf(what, sizeof what, "in 0..%d%s", hi, naccess < 0 ? "" : " (the scene's accesses)");
    int rc = lr_get_int(L, obj, "access", path, 0, 0, hi, what, &v);
    *bad += rc < 0;
    return rc == 0 ? (int)v : dflt;
}

static const char *const expect_keys[] = {"params", "type", "access", "wavefronts",
                                          "conflicts", "ways", "passes", NULL};

static int read_expect(struct ld *L, const cJSON *j, const char *path,
                       const struct lesson_scene *s, int naccess, struct lesson_expect *e)
{
    e->wavefronts = e->conflicts = e->ways = e->passes = -1;
    if (lr_expect_object(L, j, path))
        return -1;
    int bad = lr_check_keys(L, j, path, expect_keys);
    if (!s) {
        lesson_problem(&L->P, 0, path, LP_AN_EXPECTATION_NEEDS_A_SCENE_IN_IT);
        return -1;
    }
    /* a broken scene (naccess < 0): only what does not depend on it */
    if (naccess >= 0 && read_binding(L, j, path, s, &e->bind))
        bad++;
    e->access = get_access(L, j, path, naccess, s->access, &bad);
    int *dst[] = {&e->wavefronts, &e->conflicts, &e->ways, &e->passes};
    if (lr_get_counts(L, j, field_names + 1, path, dst, &bad) == 0 && !bad) {
        lesson_problem(&L->P, 0, path, LP_STATES_NO_RESULT_GIVE_AT_LEAST_ONE);
        bad++;
    }
    return bad ? -1 : 0;
}

static const char *const quiz_keys[] = {"kind", "predict", "question", "choices", "answer",
                                        "tolerance", "explanation", "check", NULL};
static const char *const check_keys_list[] = {"field", "access", "params", "type", NULL};

/* A "choice" quiz: 2 to 8 choices (with their values), the 0-based answer, no tolerance.
 * Returns the number of problems. */
static int read_choices(struct ld *L, const cJSON *j, const char *path, struct lesson_quiz *q)
{
    char p[PATH_BUF], p2[PATH_BUF];
    const cJSON *cj = lr_get(j, "choices"), *aj = lr_get(j, "answer");
    const cJSON *tj = lr_get(j, "tolerance");
    int bad = 0, n = cJSON_GetArraySize(cj);
    lr_sub(p, path, "choices");
    if (!cj) {
        lr_missing(L, path, "choices");
        bad++;
    } else if (!cJSON_IsArray(cj) || n < 2 || n > 8) {
        lesson_problem(&L->P, 0, p, LP_EXPECTED_AN_ARRAY_OF_2_TO_8_CHOICE,
                       cJSON_IsArray(cj) ? (n < 2 ? "fewer" : "more") : json_type_name(cj));
        bad++;
    } else {
        q->choices = lr_calloc(L, n, sizeof *q->choices);
        q->choice_values = lr_calloc(L, n, sizeof *q->choice_values);
        if (!q->choices || !q->choice_values)
            return bad + 1;
        q->nchoices = n;
        int k = 0;
        for (const cJSON *d = cj->child; d; d = d->next, k++)
            bad += lr_read_text(L, d, lr_subi(p2, p, k), &q->choices[k], 1,
                                &q->choice_values[k]) != 0;
    }
    if (tj) {
        lesson_problem(&L->P, 0, lr_sub(p, path, "tolerance"), LP_ONLY_A_NUMBER_QUIZ_HAS_A_TOLERANCE);
        bad++;
    }
    long long a;
    char what[48];
    snprintf(what, sizeof what, "in 0..%d (a 0-based choice index)",
             q->nchoices > 0 ? q->nchoices - 1 : 0);
    if (q->nchoices == 0) {
        if (!aj) {
            lr_missing(L, path, "answer");
            bad++;
        }
    } else if (lr_get_int(L, j, "answer", path, 1, 0, q->nchoices - 1, what, &a)) {
        bad++;
    } else {
        q->answer = (int)a;
    }
    return bad;
}

/* A "number" quiz: a finite answer and a tolerance >= 0, no choices. Returns the number of
 * problems. */
static int read_number_answer(struct ld *L, const cJSON *j, const char *path,
                              struct lesson_quiz *q)
{
    char p[PATH_BUF];
    const cJSON *cj = lr_get(j, "choices"), *aj = lr_get(j, "answer");
    const cJSON *tj = lr_get(j, "tolerance");
    int bad = 0;
    if (cj) {
        lesson_problem(&L->P, 0, lr_sub(p, path, "choices"), LP_A_NUMBER_QUIZ_HAS_NO_CHOICES_USE_K);
        bad++;
    }
    if (!aj) {
        lr_missing(L, path, "answer");
        bad++;
    } else if (!cJSON_IsNumber(aj) || !isfinite(aj->valuedouble)) {
        lesson_problem(&L->P, 0, lr_sub(p, path, "answer"), LP_EXPECTED_A_NUMBER_FOUND,
                       json_type_name(aj));
        bad++;
    } else {
        q->number = aj->valuedouble;
    }
    if (tj) {
        if (!cJSON_IsNumber(tj) || !(tj->valuedouble >= 0) || !isfinite(tj->valuedouble)) {
            lesson_problem(&L->P, 0, lr_sub(p, path, "tolerance"), LP_EXPECTED_A_NUMBER_0_FOUND, cJSON_IsNumber(tj) ? "a negative number" : json_type_name(tj));
            bad++;
        } else {
            q->tolerance = tj->valuedouble;
        }
    }
    return bad;
}

/* The quiz's "check": the model field its answer must equal, at an access and a binding.
 * bad is the quiz's problems so far. Returns the number of problems, or -1 when the check
 * cannot be read at all. */
static int read_quiz_check(struct ld *L, const cJSON *j, const char *path,
                           const struct lesson_scene *s, int naccess, struct lesson_quiz *q,
                           int bad)
{
    char p[PATH_BUF], p2[PATH_BUF];
    const cJSON *ck = lr_field(j, "check", path, p);
    int found = 0;
    if (!ck)
        return 0;
    if (lr_expect_object(L, ck, p))
        return -1;
    found += lr_check_keys(L, ck, p, check_keys_list);
    if (!s) {
        lesson_problem(&L->P, 0, p, LP_A_CHECK_NEEDS_A_SCENE_IN_ITS_STEP);
        return -1;
    }
    const char *f = NULL;
    if (lr_get_string(L, ck, "field", p, 1, &f)) {
        found++;
    } else {
        for (int k = 1; k <= 4; k++)
            if (!strcmp(f, field_names[k]))
                q->check.field = (enum lesson_field)k;
        if (q->check.field == FIELD_NONE) {
            lesson_problem(&L->P, 0, lr_sub(p2, p, "field"), LP_EXPECTED_WAVEFRONTS_CONFLICTS_WAYS, f);
            found++;
        }
    }
    q->check.access = get_access(L, ck, p, naccess, s->access, &found);
    if (naccess >= 0 && read_binding(L, ck, p, s, &q->check.bind))
        found++;
    if (q->kind == QUIZ_CHOICE && q->answer >= 0 && q->answer < q->nchoices &&
        q->choice_values && isnan(q->choice_values[q->answer]) && !(bad + found)) {
        lesson_problem(&L->P, 0, lr_subi(p2, "choices", q->answer), LP_THE_ANSWER_OF_A_CHECKED_QUIZ_NEEDS);
        found++;
    }
    return found;
}

static int read_quiz(struct ld *L, const cJSON *j, const char *path,
                     const struct lesson_scene *s, int naccess, struct lesson_quiz *q)
{
    char p[PATH_BUF];
    if (lr_expect_object(L, j, path))
        return -1;
    int bad = lr_check_keys(L, j, path, quiz_keys);
    const char *kind = NULL;
    if (lr_get_string(L, j, "kind", path, 1, &kind))
        return -1;
    if (!strcmp(kind, "choice"))
        q->kind = QUIZ_CHOICE;
    else if (!strcmp(kind, "number"))
        q->kind = QUIZ_NUMBER;
    else {
        lesson_problem(&L->P, 0, lr_sub(p, path, "kind"), LP_EXPECTED_CHOICE_OR_NUMBER, kind);
        return -1;
    }
    if (lr_get_bool(L, j, "predict", path, &q->predict) < 0)
        bad++;
    if (q->predict && !s) {
        lesson_problem(&L->P, 0, lr_sub(p, path, "predict"), LP_PREDICT_HIDES_THE_SCENE_BUT_THIS_S);
        bad++;
    }
    if (lr_get_text(L, j, "question", path, 1, &q->question))
        bad++;
    if (lr_get_text(L, j, "explanation", path, 1, &q->explanation))
        bad++;
    bad += q->kind == QUIZ_CHOICE ? read_choices(L, j, path, q) : read_number_answer(L, j, path, q);
    if (L->oom)
        return -1;
    int rc = read_quiz_check(L, j, path, s, naccess, q, bad);
    if (rc < 0)
        return -1;
    return bad + rc ? -1 : 0;
}

static const char *const task_keys[] = {"goal", "access", "require", "points", NULL};
static const char *const require_keys[] = {"wavefronts", "conflicts", "ways", NULL};

static int read_task(struct ld *L, const cJSON *j, const char *path,
                     const struct lesson_scene *s, int naccess, struct lesson_task *t)
{
    char p[PATH_BUF];
    t->max_wavefronts = t->max_conflicts = t->max_ways = -1;
    t->points = 1;
    if (lr_expect_object(L, j, path))
        return -1;
    int bad = lr_check_keys(L, j, path, task_keys);
    if (!s || (s->nparams == 0 && naccess >= 0)) {
        lesson_problem(&L->P, 0, path, LP_A_TASK_NEEDS_A_SCENE_WITH_AT_LEAST);
        return -1;
    }
    if (lr_get_text(L, j, "goal", path, 1, &t->goal))
        bad++;
    t->access = get_access(L, j, path, naccess, s->access, &bad);
    long long v;
    int rc = lr_get_int(L, j, "points", path, 0, 0, 100, "in 0..100", &v);
    if (rc < 0)
        bad++;
    else if (rc == 0)
        t->points = (int)v;
    const cJSON *rj = lr_field(j, "require", path, p);
    if (!rj) {
        lr_missing(L, path, "require");
        bad++;
    } else if (!lr_expect_object(L, rj, p)) {
        bad += lr_check_keys(L, rj, p, require_keys);
        int *dst[] = {&t->max_wavefronts, &t->max_conflicts, &t->max_ways};
        if (lr_get_counts(L, rj, require_keys, p, dst, &bad) == 0 && !bad) {
            lesson_problem(&L->P, 0, p, LP_STATES_NO_BOUND_GIVE_AT_LEAST_ONE);
            bad++;
        }
    } else {
        bad++;
    }
    return bad ? -1 : 0;
}

/* ---------------------------------------------------------------- step */

static const char *const step_keys[] = {"id", "title", "text", "key", "scene", "hints",
                                        "quiz", "expect", "task", "figures", NULL};

/* Adds steps[k]'s id; returns the index of an earlier step with the same id, or -1. */
static int ids_add(struct lr_ids *S, int k)
{
    uint64_t h = bl_hash(BL_HASH_SEED, S->steps[k].id, strlen(S->steps[k].id));
    for (size_t i = (size_t)h & (S->cap - 1);; i = (i + 1) & (S->cap - 1)) {
        if (!S->slot[i]) {
            S->slot[i] = k + 1;
            return -1;
        }
        if (!strcmp(S->steps[S->slot[i] - 1].id, S->steps[k].id))
            return S->slot[i] - 1;
    }
}

/* "hints": an array of texts. Returns the number of problems. */
static int read_hints(struct ld *L, const cJSON *j, const char *path, struct lesson_step *st)
{
    char p[PATH_BUF], p2[PATH_BUF];
    const cJSON *hj = lr_field(j, "hints", path, p);
    int bad = 0;
    if (!hj)
        return 0;
    int n = cJSON_GetArraySize(hj);
    if (!cJSON_IsArray(hj)) {
        lesson_problem(&L->P, 0, p, LP_EXPECTED_AN_ARRAY_OF_TEXTS_FOUND, json_type_name(hj));
        return 1;
    }
    if (n == 0)
        return 0;
    if (!(st->hints = lr_calloc(L, n, sizeof *st->hints)))
        return 1;
    st->nhints = n;
    int k = 0;
    for (const cJSON *d = hj->child; d; d = d->next, k++)
        bad += lr_read_text(L, d, lr_subi(p2, p, k), &st->hints[k], 0, NULL) != 0;
    return bad;
}

/* What refers to the step's scene: the quiz (its model check dropped when it or the scene is
 * broken), the expectations and the task (left out when they or the scene are broken).
 * scene is NULL when the step has none; naccess < 0 when it is broken. Returns the number of
 * problems. */
static int read_scene_parts(struct ld *L, const cJSON *j, const char *path,
                            struct lesson_step *st, const struct lesson_scene *scene,
                            int naccess)
{
    char p[PATH_BUF], p2[PATH_BUF];
    int bad = 0, scene_ok = naccess >= 0;
    const cJSON *qj = lr_get(j, "quiz"), *ej = lr_get(j, "expect"), *tj = lr_get(j, "task");
    if (qj) {
        if (!(st->quiz = lr_calloc(L, 1, sizeof *st->quiz)))
            return bad + 1;
        if (read_quiz(L, qj, lr_sub(p, path, "quiz"), scene, naccess, st->quiz)) {
            bad++;
            st->quiz->check.field = FIELD_NONE;
        }
        if (!scene_ok)
            st->quiz->check.field = FIELD_NONE;
    }
    int n = cJSON_GetArraySize(ej);
    lr_sub(p, path, "expect");
    if (ej && !cJSON_IsArray(ej)) {
        lesson_problem(&L->P, 0, p, LP_EXPECTED_AN_ARRAY_OF_EXPECTATIONS,
                       json_type_name(ej));
        bad++;
    } else if (n > 0) {
        if (!(st->expects = lr_calloc(L, n, sizeof *st->expects)))
            return bad + 1;
        int k = 0;
        for (const cJSON *d = ej->child; d; d = d->next, k++) {
            struct lesson_expect *e = &st->expects[st->nexpects];
            int rc = read_expect(L, d, lr_subi(p2, p, k), scene, naccess, e);
            bad += rc != 0;
            if (rc || !scene_ok) {
                lesson_binding_free(&e->bind);
                memset(e, 0, sizeof *e);
            } else {
                st->nexpects++;
            }
        }
    }
    if (tj) {
        if (!(st->task = lr_calloc(L, 1, sizeof *st->task)))
            return bad + 1;
        int rc = read_task(L, tj, lr_sub(p, path, "task"), scene, naccess, st->task);
        bad += rc != 0;
        if (rc || !scene_ok) {
            lesson_text_free(&st->task->goal);
            free(st->task);
            st->task = NULL;
        }
    }
    return bad;
}

int lr_read_step(struct ld *L, const cJSON *j, const char *path, struct lesson_step *st,
                 struct lr_ids *ids)
{
    char p[PATH_BUF];
    if (lr_expect_object(L, j, path))
        return -1;
    int bad = lr_check_keys(L, j, path, step_keys);
    int earlier;
    if (lr_get_id(L, j, path, &st->id)) {
        bad++;
    } else if (st->id && (earlier = ids_add(ids, (int)(st - ids->steps))) >= 0) {
        lesson_problem(&L->P, 0, lr_sub(p, path, "id"), LP_IS_ALSO_THE_ID_OF_STEP_IDS_ARE_UNI, st->id, earlier);
        bad++;
    }
    if (lr_get_text(L, j, "title", path, 1, &st->title))
        bad++;
    if (lr_get_text(L, j, "text", path, 1, &st->text))
        bad++;
    if (lr_get_text(L, j, "key", path, 0, &st->key) < 0)
        bad++;
    bad += read_hints(L, j, path, st);
    const cJSON *sj = lr_get(j, "scene");
    int naccess = 0;
    if (sj && !L->oom) {
        if (!(st->scene = lr_calloc(L, 1, sizeof *st->scene)))
            return -1;
        naccess = lr_read_scene(L, sj, lr_sub(p, path, "scene"), st->scene);
        bad += naccess < 0;
    }
    /* Parts that refer to a broken scene (naccess < 0) are checked only for what does not
     * depend on it, and left out of the lesson (a partial load goes on without them). */
    if (!L->oom)
        bad += read_scene_parts(L, j, path, st, sj ? st->scene : NULL, naccess);
    if (naccess < 0) {
        lesson_scene_free(st->scene);
        st->scene = NULL;
    }
    const cJSON *gj = lr_get(j, "figures");
    if (gj && !L->oom && lr_read_figures(L, gj, path, st))
        bad++;
    return bad || L->oom ? -1 : 0;
}
