/* lesson_read_scene.c: a lesson scene read from its JSON (lesson_read.h): launch (block, warp,
 * access, dynamic bytes), element types, parameters with their keys and ranges, the kernel and
 * the sweep; then the code run through the pattern language and the model at the defaults,
 * for every type and at each parameter's min and max, so a scene that loads always draws.
 * Uses the model, the key table (the keys a parameter may not take) and the runner's table of
 * case kernels (gpu.h); never prints. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/fmt.h"
#include "../gpu/gpu.h"
#include "../keys/keys.h"
#include "../lesson/scene.h"
#include "lesson_read.h"

#define DYN_MAX PATTERN_DEFAULT_SMEM_LIMIT

/* Names a parameter may not take: builtins and words of the pattern language. */
static const char *const builtin_names[] = {
    "threadIdx", "blockDim", "lane", "warp", "tid", "T", "min", "max", "typedef", "extern",
    "__shared__", "struct", "if", "char", "short", "int", "unsigned", "float", "double", "half",
    "float2", "float4", "int2", "int4", "long", "void", "const", "volatile", NULL,
};

static const char *const scene_keys[] = {"code", "block", "warp", "access", "dynamic_bytes",
                                         "types", "params", "kernel", "sweep", NULL};
static const char *const param_keys[] = {"name", "default", "min", "max", "step", "keys",
                                         "label", NULL};

static int read_param(struct ld *L, const cJSON *j, const char *path, struct lesson_param *p,
                      const struct lesson_param *prev, int nprev)
{
    if (lr_expect_object(L, j, path))
        return -1;
    int bad = lr_check_keys(L, j, path, param_keys);
    char pb[PATH_BUF];
    const char *name = NULL;
    if (lr_get_string(L, j, "name", path, 1, &name)) {
        bad++;
    } else {
        int ok = lr_is_ident_char((unsigned char)name[0], 1) && strlen(name) < PATTERN_NAME_MAX;
        for (const char *c = name; ok && *c; c++)
            ok = lr_is_ident_char((unsigned char)*c, 0);
        if (!ok) {
            lesson_problem(&L->P, 0, lr_sub(pb, path, "name"), LP_IS_NOT_A_C_IDENTIFIER_OF_AT_MOST_C, name, PATTERN_NAME_MAX - 1);
            bad++;
        } else {
            for (int k = 0; builtin_names[k]; k++)
                if (!strcmp(name, builtin_names[k])) {
                    lesson_problem(&L->P, 0, lr_sub(pb, path, "name"), LP_IS_A_NAME_OF_THE_PATTERN_LANGUAGE, name);
                    bad++;
                    ok = 0;
                    break;
                }
            for (int k = 0; ok && k < nprev; k++)
                if (prev[k].name && !strcmp(prev[k].name, name)) {
                    lesson_problem(&L->P, 0, lr_sub(pb, path, "name"), LP_PARAMETER_IS_DECLARED_TWICE, name);
                    bad++;
                    ok = 0;
                }
            if (ok)
                p->name = lr_dupstr(L, name);
        }
    }
    long long mn = 0, mx = 0, def = 0, step = 1;
    int have_min = lr_get_int(L, j, "min", path, 1, -1000000000LL, 1000000000LL,
                              "in -1000000000..1000000000", &mn) == 0;
    int have_max = 0;
    if (have_min) {
        char what[64];
        snprintf(what, sizeof what, ">= min (%lld)", mn);
        have_max = lr_get_int(L, j, "max", path, 1, mn, 1000000000LL, what, &mx) == 0;
    } else {
        bad++;
        if (!lr_get(j, "max"))
            lr_missing(L, path, "max");
    }
    if (have_min && !have_max)
        bad++;
    if (have_min && have_max) {
        char what[96];
        snprintf(what, sizeof what, "in min..max (%lld..%lld)", mn, mx);
        if (lr_get_int(L, j, "default", path, 1, mn, mx, what, &def))
            bad++;
        int rc = lr_get_int(L, j, "step", path, 0, 1, mx - mn > 0 ? mx - mn : 1,
                            mx > mn ? "in 1..max-min" : "equal to 1 (min == max)", &step);
        if (rc < 0)
            bad++;
        else if (rc == 0 && (def - mn) % step != 0) {
            lesson_problem(&L->P, 0, lr_sub(pb, path, "default"), LP_IS_NOT_REACHABLE_FROM_MIN_IN_STEPS, def, mn, step);
            bad++;
        }
    } else if (!lr_get(j, "default")) {
        lr_missing(L, path, "default");
    }
    p->min = mn;
    p->max = mx;
    p->def = def;
    p->step = step;
    const char *keys = NULL;
    if (lr_get_string(L, j, "keys", path, 1, &keys)) {
        bad++;
    } else {
        lr_sub(pb, path, "keys");
        int a = (unsigned char)keys[0], b = a ? (unsigned char)keys[1] : 0;
        if (strlen(keys) != 2 || a < 0x21 || a > 0x7e || b < 0x21 || b > 0x7e || a == b) {
            lesson_problem(&L->P, 0, pb, LP_EXPECTED_TWO_DIFFERENT_PRINTABLE_A, keys);
            bad++;
        } else if (keys_reserved(a) || keys_reserved(b)) {
            char reserved[128];
            lesson_problem(&L->P, 0, pb, LP_IS_RESERVED_BY_THE_PROGRAM_RESERVE,
                           keys_reserved(a) ? a : b, keys_reserved_text(reserved, sizeof reserved));
            bad++;
        } else {
            int clash = 0;
            for (int k = 0; k < nprev && !clash; k++)
                if (prev[k].key_inc == a || prev[k].key_dec == a || prev[k].key_inc == b ||
                    prev[k].key_dec == b) {
                    lesson_problem(&L->P, 0, pb, LP_KEY_IS_ALREADY_USED_BY_PARAMETER,
                                   (prev[k].key_inc == a || prev[k].key_dec == a) ? a : b,
                                   prev[k].name ? prev[k].name : "(unnamed)");
                    clash = 1;
                }
            if (clash)
                bad++;
            else {            /* "pP": p lowers, P raises (Shift = more) */
                p->key_dec = a;
                p->key_inc = b;
            }
        }
    }
    if (lr_get_text(L, j, "label", path, 0, &p->label) < 0)
        bad++;
    return bad ? -1 : 0;
}

/* Where a pattern error pe of the scene at path stands (into where): in its code, or in the
 * type name of types[t] when it falls in the typedef prefix (prefix bytes) before the code;
 * and its words (into msg): the pattern language words an unknown name for the command line,
 * a lesson declares params. */
static void code_where(const char *path, size_t prefix, int t, int has_types,
                       const struct bl_err *pe, char *where, char *msg)
{
    if (pe->where.at > 0 && (size_t)pe->where.at <= prefix && has_types)
        snprintf(where, PATH_BUF + 32, "%s.types[%d]", path, t);
    else
        snprintf(where, PATH_BUF + 32, "%s.code", path);
    snprintf(msg, PATTERN_MSG_MAX, "%s", pe->msg);
    char *cli = strstr(msg, " (give it a value");
    if (cli && !strncmp(msg, "unknown name", 12))
        snprintf(cli, PATTERN_MSG_MAX - (size_t)(cli - msg), ": not a parameter of the scene "
                 "(add it to \"params\" or write a number)");
}

/* Parses and evaluates the scene's code at its defaults (every type) and at each parameter's
 * min and max. Returns the number of accesses, or -1 after a problem. */
static int check_scene_code(struct ld *L, struct lesson_scene *s, const cJSON *sj,
                            const char *path)
{
    char where[PATH_BUF + 32], msg[PATTERN_MSG_MAX];
    int ntypes = s->ntypes > 0 ? s->ntypes : 1;
    int naccess = -1;
    int rc = 0;
    int *used = calloc((size_t)s->nparams + 1, sizeof *used);
    if (!used) {
        L->oom = 1;
        return -1;
    }
    struct scene_run r = {0};
    for (int t = 0; t < ntypes && rc == 0; t++) {
        struct bl_err pe;
        bl_err_clear(&pe);
        struct scene_in in = {.scene = s, .type = t, .access = -1, .warp = -1};
        if (scene_run(&r, &in, NULL, NULL, &pe)) {
            if (pe.status == SCENE_EBIND) {
                lesson_problem_err(&L->P, 0, path, &pe);
            } else {
                code_where(path, r.prefix, t, s->ntypes > 0, &pe, where, msg);
                struct bl_msg em; /* the error as its message, unless code_where reworded it */
                bl_err_msg(&pe, &em);
                if (strcmp(msg, pe.msg))
                    lesson_problem(&L->P, 0, where, BL_TEXT, msg);
                else
                    lesson_problem(&L->P, 0, where, LP_CODE_ERR, &em);
            }
            rc = -1;
            break;
        }
        int n = r.naccess;
        if (naccess < 0)
            naccess = n;
        for (int k = 0; k < pattern_param_count(r.pat); k++) {
            const char *nm = pattern_param_name(r.pat, k);
            for (int q = 0; q < s->nparams; q++)
                if (s->params[q].name && nm && !strcmp(nm, s->params[q].name))
                    used[q] = 1;
        }
        /* defaults, then each parameter at min and max (others at defaults) */
        for (int q = -1; q < s->nparams && rc == 0; q++) {
            for (int side = 0; side < (q < 0 ? 1 : 2) && rc == 0; side++) {
                char *name = q >= 0 ? s->params[q].name : NULL;
                long long value = q < 0 ? 0 : side ? s->params[q].max : s->params[q].min;
                struct lesson_binding b = {q >= 0, &name, &value, NULL};
                const char *what = side ? "max" : "min";
                if (q >= 0 && !name)
                    continue;
                in.bind = &b;
                for (int a = 0; a < n && rc == 0; a++) {
                    struct bank_access acc;
                    struct bank_result res;
                    struct bl_msg bt;
                    in.access = a;
                    bl_err_clear(&pe);
                    if (scene_run(&r, &in, &acc, &res, &pe) == 0)
                        continue;
                    rc = -1;
                    lesson_binding_msg(&r.env, s->ntypes > 0 ? s->types[t] : NULL, a, &bt);
                    if (pe.status == SCENE_EEVAL && q < 0) {
                        code_where(path, r.prefix, t, s->ntypes > 0, &pe, where, msg);
                        struct bl_msg em;
                        bl_err_msg(&pe, &em);
                        if (strcmp(msg, pe.msg))
                            lesson_problem(&L->P, 0, where, LP_TEXT_2, msg, &bt);
                        else
                            lesson_problem(&L->P, 0, where, LP_CODE_ERR_AT, &em, &bt);
                    } else {
                        struct bl_msg em; /* the error as its message, in the reader's language */
                        bl_err_msg(&pe, &em);
                        if (pe.status == SCENE_EEVAL) {
                            char pp[PATH_BUF], p2[PATH_BUF];
                            snprintf(pp, sizeof pp, "%s.params[%d]", path, q);
                            lesson_problem(&L->P, 0, lr_sub(p2, pp, what),
                                           LP_THE_CODE_FAILS_AT, name, value, &em, &bt);
                        } else {
                            lesson_problem(&L->P, 0, path, LP_ACCESS, a, &em, &bt);
                        }
                    }
                }
            }
        }
    }
    if (rc == 0) {
        for (int q = 0; q < s->nparams; q++)
            if (!used[q] && s->params[q].name) {
                char pp[PATH_BUF];
                snprintf(pp, sizeof pp, "%s.params[%d].name", path, q);
                lesson_problem(&L->P, 0, pp, LP_PARAMETER_IS_NOT_USED_IN_THE_CODE,
                               s->params[q].name);
                rc = -1;
            }
        if (s->ntypes > 0) {
            /* T must appear as a word of the code */
            int uses_t = 0;
            for (const char *c = s->code; *c && !uses_t; c++)
                if (*c == 'T' && (c == s->code || !lr_is_ident_char((unsigned char)c[-1], 0)) &&
                    !lr_is_ident_char((unsigned char)c[1], 0))
                    uses_t = 1;
            if (!uses_t) {
                char pp[PATH_BUF];
                lesson_problem(&L->P, 0, lr_sub(pp, path, "types"), LP_THE_CODE_NEVER_USES_THE_TYPE_NAME);
                rc = -1;
            }
        }
    }
    free(used);
    scene_run_free(&r);
    return rc ? -1 : naccess;
}

/* "block": 1 to 3 integers, at most 1024 threads. Returns the number of problems. */
static int read_block(struct ld *L, const cJSON *j, const char *path, struct lesson_scene *s)
{
    char p[PATH_BUF], p2[PATH_BUF];
    const cJSON *bj = lr_field(j, "block", path, p);
    if (!bj)
        return 0;
    if (!cJSON_IsArray(bj) || cJSON_GetArraySize(bj) < 1 || cJSON_GetArraySize(bj) > 3) {
        lesson_problem(&L->P, 0, p, LP_EXPECTED_X_Y_Z_WITH_1_TO_3_INTEGER,
                       json_type_name(bj));
        return 1;
    }
    int k = 0, okb = 1;
    long long prod = 1;
    for (const cJSON *d = bj->child; d; d = d->next, k++) {
        double v = d->valuedouble;
        long long hi = k == 2 ? 64 : 1024;
        if (!cJSON_IsNumber(d) || v != floor(v) || v < 1 || v > (double)hi ||
            !lr_int_literal(d)) {
            lesson_problem(&L->P, 0, lr_subi(p2, p, k), LP_EXPECTED_AN_INTEGER_IN_1_BLOCKDIM, hi, "xyz"[k],
                           cJSON_IsNumber(d) ? d->valuestring : json_type_name(d));
            okb = 0;
        } else {
            s->block[k] = (unsigned)v;
            prod *= (long long)v;
        }
    }
    if (!okb)
        return 1;
    if (prod > 1024) {
        lesson_problem(&L->P, 0, p, LP_X_X_THREADS_A_BLOCK_HAS_AT_MOST_10,
                       s->block[0], s->block[1], s->block[2], prod);
        return 1;
    }
    return 0;
}

/* "warp" (within the block), "access" and "dynamic_bytes". Returns the number of problems. */
static int read_launch(struct ld *L, const cJSON *j, const char *path, struct lesson_scene *s)
{
    unsigned threads = s->block[0] * s->block[1] * s->block[2];
    unsigned nwarps = (threads + 31) / 32;
    long long v = 0;
    char what[64];
    int bad = 0;
    snprintf(what, sizeof what, "in 0..%u (the block has %u warp%s)", nwarps - 1, nwarps,
             nwarps == 1 ? "" : "s");
    int rc = lr_get_int(L, j, "warp", path, 0, 0, nwarps - 1, what, &v);
    bad += rc < 0;
    s->warp = rc == 0 ? (unsigned)v : 0;
    rc = lr_get_int(L, j, "access", path, 0, 0, PATTERN_MAX_ACCESSES - 1, "in 0..7", &v);
    bad += rc < 0;
    s->access = rc == 0 ? (int)v : 0;
    rc = lr_get_int(L, j, "dynamic_bytes", path, 0, 0, DYN_MAX, "in 0..232448", &v);
    bad += rc < 0;
    s->dyn_bytes = rc == 0 ? (unsigned long long)v : 0;
    return bad;
}

/* "types": 1 to 8 distinct type names for T. Returns the number of problems. */
static int read_types(struct ld *L, const cJSON *j, const char *path, struct lesson_scene *s)
{
    char p[PATH_BUF], p2[PATH_BUF];
    const cJSON *tj = lr_field(j, "types", path, p);
    if (!tj)
        return 0;
    int n = cJSON_GetArraySize(tj), bad = 0;
    if (!cJSON_IsArray(tj) || n < 1 || n > 8) {
        lesson_problem(&L->P, 0, p, LP_EXPECTED_AN_ARRAY_OF_1_TO_8_TYPE_N,
                       json_type_name(tj));
        return 1;
    }
    if (!(s->types = lr_calloc(L, n, sizeof *s->types)))
        return 1;
    int k = 0;
    for (const cJSON *d = tj->child; d; d = d->next, k++) {
        const char *t = cJSON_GetStringValue(d);
        int okt = t && *t && strlen(t) < PATTERN_NAME_MAX;
        for (const char *c = t; okt && *c; c++)
            okt = lr_is_ident_char((unsigned char)*c, 0) || *c == ' ';
        if (!okt) {
            lesson_problem(&L->P, 0, lr_subi(p2, p, k), LP_EXPECTED_A_TYPE_NAME_SUCH_AS_FLOAT);
            bad++;
            continue;
        }
        for (int q = 0; q < s->ntypes; q++)
            if (!strcmp(s->types[q], t)) {
                lesson_problem(&L->P, 0, lr_subi(p2, p, k), LP_IS_LISTED_TWICE, t);
                bad++;
                okt = 0;
                break;
            }
        if (okt)
            s->types[s->ntypes++] = lr_dupstr(L, t);
    }
    return bad;
}

/* "params": at most PATTERN_MAX_PARAMS parameters. Returns the number of problems. */
static int read_params(struct ld *L, const cJSON *j, const char *path, struct lesson_scene *s)
{
    char p[PATH_BUF], p2[PATH_BUF];
    const cJSON *pj = lr_field(j, "params", path, p);
    if (!pj)
        return 0;
    int n = cJSON_GetArraySize(pj), bad = 0;
    if (!cJSON_IsArray(pj) || n > PATTERN_MAX_PARAMS) {
        lesson_problem(&L->P, 0, p, LP_EXPECTED_AN_ARRAY_OF_AT_MOST_PARAM,
                       PATTERN_MAX_PARAMS, cJSON_IsArray(pj) ? "more" : json_type_name(pj));
        return 1;
    }
    if (n == 0)
        return 0;
    if (!(s->params = lr_calloc(L, n, sizeof *s->params)))
        return 1;
    int k = 0;
    for (const cJSON *d = pj->child; d; d = d->next, k++)
        bad += read_param(L, d, lr_subi(p2, p, k), &s->params[k], s->params, k) != 0;
    s->nparams = n;
    return bad;
}

/* "kernel" (default "pattern") and "sweep" (default: the first parameter). Returns the
 * number of problems. */
static int read_kernel_sweep(struct ld *L, const cJSON *j, const char *path,
                             struct lesson_scene *s)
{
    char p[PATH_BUF];
    int bad = 0;
    const char *kernel = NULL, *sweep = NULL;
    int rc = lr_get_string(L, j, "kernel", path, 0, &kernel);
    if (rc < 0) {
        bad++;
    } else if (rc == 0) {
        /* "pattern", or a case kernel of the runner's table (gpu.h) */
        int known = !strcmp(kernel, "pattern") || gpu_case_find(kernel);
        char list[256] = "pattern";
        for (int k = 0; k < GPU_CASE_COUNT; k++) {
            size_t ln = strlen(list);
            snprintf(list + ln, sizeof list - ln, ", %s", gpu_case_at(k)->name);
        }
        if (!known) {
            lesson_problem(&L->P, 0, lr_sub(p, path, "kernel"), LP_UNKNOWN_KERNEL_VALID,
                           kernel, list);
            bad++;
        }
    }
    s->kernel = lr_dupstr(L, kernel ? kernel : "pattern");
    rc = lr_get_string(L, j, "sweep", path, 0, &sweep);
    if (rc < 0) {
        bad++;
    } else if (rc == 0) {
        int found = 0;
        for (int k = 0; k < s->nparams; k++)
            found |= s->params[k].name && !strcmp(s->params[k].name, sweep);
        if (!found) {
            lesson_problem(&L->P, 0, lr_sub(p, path, "sweep"), LP_IS_NOT_A_PARAMETER_OF_THIS_SCENE, sweep);
            bad++;
        } else {
            s->sweep = lr_dupstr(L, sweep);
        }
    } else if (s->nparams > 0 && s->params[0].name) {
        s->sweep = lr_dupstr(L, s->params[0].name);
    }
    return bad;
}

int lr_read_scene(struct ld *L, const cJSON *j, const char *path, struct lesson_scene *s)
{
    char p[PATH_BUF];
    s->block[0] = 32;
    s->block[1] = s->block[2] = 1;
    if (lr_expect_object(L, j, path))
        return -1;
    int bad = lr_check_keys(L, j, path, scene_keys);
    const char *code = NULL;
    if (lr_get_string(L, j, "code", path, 1, &code))
        bad++;
    else
        s->code = lr_dupstr(L, code);
    bad += read_block(L, j, path, s);
    bad += read_launch(L, j, path, s);
    bad += read_types(L, j, path, s);
    bad += read_params(L, j, path, s);
    bad += read_kernel_sweep(L, j, path, s);
    if (bad || L->oom)
        return -1;
    int naccess = check_scene_code(L, s, j, path);
    if (naccess < 0)
        return -1;
    if (s->access >= naccess) {
        lesson_problem(&L->P, 0, lr_sub(p, path, "access"), LP_THE_CODE_HAS_ACCESS_0,
                       naccess, naccess == 1 ? "" : "es", naccess - 1);
        return -1;
    }
    return naccess;
}
