/* verify.c: `banklab verify`: the bank model against the GPU's hardware counters. Every access
 * of every lesson scene (at its defaults and at each expectation's parameters) and the 63
 * measured cases of assets/h200-wavefronts.json run on one warp under CUPTI; any difference
 * between model and counters fails (exit 1). --json writes the recording format. No curses. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../gpu/gpu.h"
#include "../lesson/lesson.h"
#include "../lesson/recording.h"
#include "../model/bank.h"
#include "../model/pattern.h"
#include "cli.h"

#define VERIFY_TIMEOUT_MS 60000
#define CODE_MAX 4096

struct vitem {
    struct recording_row row;
    int dup_of;                  /* index of the identical access measured first, or -1 */
    int is_case;                 /* a case-kernel scene setting (not compared with the model) */
    char key[160];               /* case: name and the parameters the kernel reads */
};

struct vlist {
    struct vitem *v;
    int n, cap;
};

static int same_access(const struct bank_access *a, const struct bank_access *b)
{
    if (a->width != b->width || a->op != b->op || a->mask != b->mask)
        return 0;
    for (int i = 0; i < BANK_LANES; i++)
        if ((a->mask >> i & 1u) && a->offset[i] != b->offset[i])
            return 0;
    return 1;
}

static int vlist_add(struct vlist *L, const char *group, const char *label,
                     const struct bank_access *acc)
{
    struct bank_result r;
    if (bank_simulate(acc, &r, NULL) != BANK_OK)
        return 0; /* the loader reports misaligned scenes; nothing to measure */
    if (L->n == L->cap) {
        int nc = L->cap ? L->cap * 2 : 128;
        struct vitem *nv = realloc(L->v, (size_t)nc * sizeof *nv);
        if (!nv)
            return -1;
        L->v = nv;
        L->cap = nc;
    }
    struct vitem *it = &L->v[L->n];
    memset(it, 0, sizeof *it);
    snprintf(it->row.group, sizeof it->row.group, "%s", group);
    snprintf(it->row.label, sizeof it->row.label, "%s", label);
    it->row.model_wavefronts = r.wavefronts;
    it->row.model_conflicts = r.conflicts;
    it->row.agree = -1;
    struct gpu_request *q = &it->row.rec.req;
    q->id = (uint64_t)L->n + 1;
    q->kind = GPU_REQ_PATTERN;
    q->access = *acc;
    q->want_counters = 1;
    it->dup_of = -1;
    for (int i = 0; i < L->n; i++)
        if (L->v[i].dup_of < 0 && same_access(&L->v[i].row.rec.req.access, acc)) {
            it->dup_of = i;
            break;
        }
    L->n++;
    return 0;
}

/* A case kernel scene at one setting of its parameters, as the tutorial sends it (every scene
 * parameter, in order), so a recording replays it. Settings that differ only in parameters
 * the kernel ignores are run once. */
static int vlist_add_case(struct vlist *L, const char *label, const struct gpu_request *q)
{
    if (L->n == L->cap) {
        int nc = L->cap ? L->cap * 2 : 128;
        struct vitem *nv = realloc(L->v, (size_t)nc * sizeof *nv);
        if (!nv)
            return -1;
        L->v = nv;
        L->cap = nc;
    }
    struct vitem *it = &L->v[L->n];
    memset(it, 0, sizeof *it);
    it->is_case = 1;
    snprintf(it->row.group, sizeof it->row.group, "lesson-case");
    snprintf(it->row.label, sizeof it->row.label, "%s", label);
    it->row.model_wavefronts = it->row.model_conflicts = it->row.agree = -1;
    it->row.rec.req = *q;
    it->row.rec.req.id = (uint64_t)L->n + 1;
    size_t kl = (size_t)snprintf(it->key, sizeof it->key, "%s", q->case_name);
    for (int i = 0; i < q->nparams; i++)
        if (gpu_case_param_index(q->case_name, q->param_name[i]) >= 0 && kl < sizeof it->key)
            kl += (size_t)snprintf(it->key + kl, sizeof it->key - kl, " %s=%lld",
                                   q->param_name[i], q->param_value[i]);
    it->dup_of = -1;
    for (int i = 0; i < L->n; i++)
        if (L->v[i].is_case && L->v[i].dup_of < 0 && !strcmp(L->v[i].key, it->key)) {
            it->dup_of = i;
            break;
        }
    L->n++;
    return 0;
}

#define CASE_SETTINGS_MAX 512

/* Every setting of a case scene's parameters (min..max by step; when there are more than
 * CASE_SETTINGS_MAX, the defaults and each parameter swept alone), plus each expectation's. */
static int add_case_scene(struct vlist *L, const struct lesson *les, const struct lesson_step *st)
{
    const struct lesson_scene *s = st->scene;
    int np = s->nparams < GPU_CASE_MAX_PARAMS ? s->nparams : GPU_CASE_MAX_PARAMS;
    long long n[GPU_CASE_MAX_PARAMS], idx[GPU_CASE_MAX_PARAMS];
    double total = 1;
    for (int p = 0; p < np; p++) {
        const struct lesson_param *lp = &s->params[p];
        long long step = lp->step > 0 ? lp->step : 1;
        n[p] = lp->max >= lp->min ? (lp->max - lp->min) / step + 1 : 1;
        total *= (double)n[p];
        idx[p] = 0;
    }
    struct gpu_request q;
    char label[128];
    int full = total <= CASE_SETTINGS_MAX;
    int nbind = st->nexpects;
    for (int pass = 0;; pass++) {
        memset(&q, 0, sizeof q);
        q.kind = GPU_REQ_CASE;
        q.want_timing = q.want_counters = 1;
        snprintf(q.case_name, sizeof q.case_name, "%s", s->kernel);
        for (int p = 0; p < np; p++) {
            const struct lesson_param *lp = &s->params[p];
            long long step = lp->step > 0 ? lp->step : 1;
            snprintf(q.param_name[p], sizeof q.param_name[0], "%s", lp->name);
            q.param_value[p] = full ? lp->min + idx[p] * step : lp->def;
        }
        q.nparams = np;
        int done = 0;
        if (full) {
            int p = 0;
            while (p < np && ++idx[p] >= n[p])
                idx[p++] = 0;
            done = p == np;
        } else {
            /* pass 0: defaults; then parameter p at each of its values */
            int k = pass - 1;
            for (int p = 0; k >= 0 && p < np; p++) {
                if (k < n[p]) {
                    long long step = s->params[p].step > 0 ? s->params[p].step : 1;
                    q.param_value[p] = s->params[p].min + k * step;
                    break;
                }
                k -= (int)n[p];
                if (p == np - 1)
                    done = 2;
            }
            if (np == 0 && pass > 0)
                done = 2;
        }
        if (done == 2)
            break;
        size_t ll = (size_t)snprintf(label, sizeof label, "%s/%s %s", les->id ? les->id : "?",
                                     st->id ? st->id : "?", s->kernel);
        for (int p = 0; p < np && ll < sizeof label; p++)
            ll += (size_t)snprintf(label + ll, sizeof label - ll, " %s=%lld", q.param_name[p],
                                   q.param_value[p]);
        if (vlist_add_case(L, label, &q))
            return -1;
        if (done || np == 0)
            break;
    }
    for (int e = 0; e < nbind; e++) {
        const struct lesson_binding *b = &st->expects[e].bind;
        for (int p = 0; p < np; p++) {
            q.param_value[p] = s->params[p].def;
            for (int v = 0; v < b->nvalues; v++)
                if (!strcmp(b->names[v], s->params[p].name))
                    q.param_value[p] = b->values[v];
        }
        size_t ll = (size_t)snprintf(label, sizeof label, "%s/%s %s (expectation)",
                                     les->id ? les->id : "?", st->id ? st->id : "?", s->kernel);
        for (int p = 0; p < np && ll < sizeof label; p++)
            ll += (size_t)snprintf(label + ll, sizeof label - ll, " %s=%lld", q.param_name[p],
                                   q.param_value[p]);
        if (vlist_add_case(L, label, &q))
            return -1;
    }
    return 0;
}

struct lctx {
    int problems;
};

static void report_load(const struct lesson_error *e, void *ctx)
{
    struct lctx *c = ctx;
    c->problems++;
    fprintf(stderr, "%s:%d:%d: %s\n", e->file, e->line, e->col, e->msg);
}

/* Every access of scene s under binding bind (NULL: defaults). */
static int add_scene(struct vlist *L, const struct lesson *les, const struct lesson_step *st,
                     const struct lesson_binding *bind)
{
    const struct lesson_scene *s = st->scene;
    char code[CODE_MAX], label[128], params[64] = "";
    struct pattern_env env;
    int ntypes = s->ntypes > 0 ? s->ntypes : 1;
    for (int ti = 0; ti < ntypes; ti++) {
        if (bind && bind->type && ti > 0)
            break; /* the binding fixes the type */
        if (lesson_scene_env(s, bind, ti, &env, code, sizeof code))
            continue;
        struct pattern *p = NULL;
        struct pattern_error err;
        if (pattern_parse(code, &p, &err))
            continue; /* `banklab check` reports scene syntax */
        size_t pl = 0;
        params[0] = '\0';
        for (int i = 0; bind && i < bind->nvalues && pl < sizeof params; i++)
            pl += (size_t)snprintf(params + pl, sizeof params - pl, " %s=%lld", bind->names[i],
                                   bind->values[i]);
        if (bind && bind->type && pl < sizeof params)
            snprintf(params + pl, sizeof params - pl, " T=%s", bind->type);
        else if (!bind && s->ntypes > 0 && pl < sizeof params)
            snprintf(params + pl, sizeof params - pl, " T=%s", s->types[ti]);
        int n = pattern_access_count(p);
        for (int a = 0; a < n; a++) {
            struct bank_access acc;
            if (pattern_eval(p, &env, a, &acc, NULL, &err))
                continue;
            snprintf(label, sizeof label, "%s/%s%s%s access %d", les->id ? les->id : "?",
                     st->id ? st->id : "?", bind ? "" : " (defaults)", params, a);
            if (vlist_add(L, "lesson", label, &acc)) {
                pattern_free(p);
                return -1;
            }
        }
        pattern_free(p);
    }
    return 0;
}

static void case_line(const struct vitem *it)
{
    const struct gpu_result *r = &it->row.rec.res;
    if (r->status == GPU_OK && r->verified)
        printf("%-60.60s  checked, %.4f ms, ld %.2f wf/instr\n", it->row.label, r->ms_median,
               r->wavefronts_ld);
    else if (r->status == GPU_EINVAL)
        printf("%-60.60s  refused: %s\n", it->row.label, r->error);
    else
        printf("%-60.60s  FAILED: %s\n", it->row.label, r->error);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: banklab verify [--json] [--lessons DIR] [--device N]\n"
               "  Runs every lesson access and the 63 H200 reference cases on the GPU and\n"
               "  compares the bank model with the hardware counters (exit 1 on a difference).\n");
}

int cmd_verify(int argc, char **argv)
{
    int json = 0, device = 0;
    const char *lessons_opt = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = 1;
        else if (!strcmp(argv[i], "--lessons") && i + 1 < argc)
            lessons_opt = argv[++i];
        else if (!strcmp(argv[i], "--device")) {
            long long v;
            if (cli_int_arg("verify", "--device", i + 1 < argc ? argv[++i] : NULL, 0, CLI_DEVICE_MAX,
                            &v))
                return EXIT_USAGE;
            device = (int)v;
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "banklab verify: unknown argument '%s'\n", argv[i]);
            usage(stderr);
            return EXIT_USAGE;
        }
    }

    /* Collect the accesses first: bad input is reported before any GPU work. */
    struct vlist L = {NULL, 0, 0};
    char dirbuf[1024], pathbuf[1024], msg[RECORDING_MSG_MAX];
    const char *dir = lesson_find_dir(lessons_opt, dirbuf, sizeof dirbuf);
    struct lesson_set set;
    memset(&set, 0, sizeof set);
    int nlessons_loaded = 0;
    if (!dir) {
        if (lessons_opt) {
            fprintf(stderr, "banklab verify: %s: no such lessons directory\n", lessons_opt);
            return EXIT_USAGE;
        }
        fprintf(stderr, "banklab verify: no lessons directory found; checking the H200 cases only\n");
    } else {
        struct lctx lc = {0};
        if (lesson_set_load_dir(&set, dir, report_load, &lc) == 0) {
            nlessons_loaded = set.nlessons;
            for (int li = 0; li < set.nlessons; li++) {
                const struct lesson *les = &set.lessons[li];
                for (int si = 0; si < les->nsteps; si++) {
                    const struct lesson_step *st = &les->steps[si];
                    if (!st->scene)
                        continue;
                    int rc = add_scene(&L, les, st, NULL);
                    if (!rc && st->scene->kernel && *st->scene->kernel &&
                        strcmp(st->scene->kernel, "pattern"))
                        rc = add_case_scene(&L, les, st);
                    for (int e = 0; !rc && e < st->nexpects; e++)
                        rc = add_scene(&L, les, st, &st->expects[e].bind);
                    if (rc) {
                        fprintf(stderr, "banklab verify: out of memory\n");
                        lesson_set_done(&set);
                        free(L.v);
                        return EXIT_USAGE;
                    }
                }
            }
        } else if (lessons_opt) {
            fprintf(stderr, "banklab verify: %s: no lesson could be loaded\n", dir);
            free(L.v);
            return EXIT_USAGE;
        }
        if (lc.problems)
            fprintf(stderr, "banklab verify: %d lesson problem(s) above; `banklab check` "
                            "explains them\n", lc.problems);
        lesson_set_done(&set);
    }
    int nlesson_items = L.n, ncase_items = 0;
    for (int i = 0; i < L.n; i++)
        ncase_items += L.v[i].is_case;
    struct hw_case *cases = NULL;
    int ncases = 0;
    const char *cpath = recording_find_asset("h200-wavefronts.json", pathbuf, sizeof pathbuf);
    if (!cpath) {
        fprintf(stderr, "banklab verify: assets/h200-wavefronts.json not found "
                        "(set BANKLAB_ASSETS)\n");
        free(L.v);
        return EXIT_USAGE;
    }
    if (recording_load_hw_cases(cpath, &cases, &ncases, msg, sizeof msg)) {
        fprintf(stderr, "banklab verify: %s\n", msg);
        free(L.v);
        return EXIT_USAGE;
    }
    for (int i = 0; i < ncases; i++) {
        char label[128];
        snprintf(label, sizeof label, "h200/%s", cases[i].name);
        if (vlist_add(&L, "h200", label, &cases[i].access)) {
            fprintf(stderr, "banklab verify: out of memory\n");
            free(cases);
            free(L.v);
            return EXIT_USAGE;
        }
    }

    struct gpu_info info;
    struct gpu *g = gpu_open(device, &info);
    if (!g || !info.available || !info.counters) {
        if (!g)
            fprintf(stderr, "banklab verify: out of memory\n");
        else if (!info.available)
            fprintf(stderr, "banklab verify: no GPU: %s\n", info.reason);
        else
            fprintf(stderr, "banklab verify: no hardware counters: %s\n", info.counters_reason);
        gpu_close(g);
        free(cases);
        free(L.v);
        return g ? EXIT_NOGPU : EXIT_USAGE;
    }

    int failed = 0, disagree = 0, agree = 0, distinct = 0, case_runs = 0, case_refused = 0,
        case_failed = 0;
    for (int i = 0; i < L.n; i++) {
        struct vitem *it = &L.v[i];
        struct gpu_result *r = &it->row.rec.res;
        if (it->dup_of >= 0) {
            *r = L.v[it->dup_of].row.rec.res;
            r->id = it->row.rec.req.id;
        } else {
            distinct += !it->is_case;
            case_runs += it->is_case;
            gpu_run(g, &it->row.rec.req, r, it->is_case ? 2 * VERIFY_TIMEOUT_MS : VERIFY_TIMEOUT_MS);
        }
        if (it->is_case) {
            /* A refused setting (misaligned carve, out of range) is the lesson's point: its
             * one-line reason is recorded. A failed run or a wrong output is not. */
            if (r->status == GPU_EINVAL)
                case_refused += it->dup_of < 0;
            else if (r->status != GPU_OK || !r->verified)
                case_failed += it->dup_of < 0;
            continue;
        }
        if (r->status != GPU_OK || !r->has_counters) {
            failed++;
            it->row.agree = 0;
            continue;
        }
        int st = it->row.rec.req.access.op == BANK_STORE;
        double w = st ? r->wavefronts_st : r->wavefronts_ld;
        double c = st ? r->conflicts_st : r->conflicts_ld;
        it->row.agree = fabs(w - it->row.model_wavefronts) < 0.005 &&
                        fabs(c - it->row.model_conflicts) < 0.005;
        if (it->row.agree)
            agree++;
        else
            disagree++;
    }
    gpu_close(g);
    /* The H200 file's own numbers: the model must match them too (it does: tests/unit). */
    int file_mismatch = 0;
    for (int i = 0; i < ncases; i++) {
        const struct vitem *it = &L.v[nlesson_items + i];
        if (it->row.model_wavefronts != cases[i].wavefronts ||
            it->row.model_conflicts != cases[i].conflicts)
            file_mismatch++;
    }

    int rc = (failed || disagree || file_mismatch || case_failed) ? EXIT_CHECK : 0;
    int npattern = L.n - ncase_items;
    if (json) {
        struct recording rec;
        recording_init(&rec);
        snprintf(rec.device, sizeof rec.device, "%s", info.device);
        time_t t = time(NULL);
        struct tm tm;
        gmtime_r(&t, &tm);
        strftime(rec.date, sizeof rec.date, "%Y-%m-%dT%H:%M:%SZ", &tm);
        snprintf(rec.command, sizeof rec.command, "banklab verify --json");
        for (int i = 0; i < L.n; i++)
            if (recording_add(&rec, &L.v[i].row)) {
                rc = EXIT_CHECK;
                break;
            }
        if (recording_write(stdout, &rec))
            rc = EXIT_CHECK;
        recording_done(&rec);
    } else {
        printf("device: %s\n", info.device);
        printf("%-60s %11s %13s  %s\n", "access", "model wf/cf", "counters wf/cf", "");
        for (int i = 0; i < L.n; i++) {
            const struct vitem *it = &L.v[i];
            const struct gpu_result *r = &it->row.rec.res;
            int st = it->row.rec.req.access.op == BANK_STORE;
            if (it->is_case) {
                if (it->dup_of < 0)
                    case_line(it);
                continue;
            }
            char meas[40];
            if (r->status == GPU_OK && r->has_counters)
                snprintf(meas, sizeof meas, "%.2f/%.2f", st ? r->wavefronts_st : r->wavefronts_ld,
                         st ? r->conflicts_st : r->conflicts_ld);
            else
                snprintf(meas, sizeof meas, "error");
            printf("%-60.60s %5d/%-5d %13s  %s\n", it->row.label, it->row.model_wavefronts,
                   it->row.model_conflicts, meas, it->row.agree == 1 ? "ok" : "DIFFERS");
            if (r->status != GPU_OK || !r->has_counters)
                printf("    %s\n", r->status != GPU_OK ? r->error : r->counters_note);
        }
        printf("\n%d lesson(s): %d lesson accesses; %d H200 reference cases; %d distinct "
               "accesses measured\n", nlessons_loaded, nlesson_items - ncase_items, ncases,
               distinct);
        printf("model vs counters: %d of %d agree (%.1f %%), %d differ, %d failed to run\n", agree,
               npattern, npattern ? 100.0 * agree / npattern : 0.0, disagree, failed);
        printf("case kernel scenes: %d settings, %d distinct runs: %d outputs checked against the "
               "CPU reference, %d refused as the lesson expects, %d failed\n", ncase_items,
               case_runs, case_runs - case_refused - case_failed, case_refused, case_failed);
        if (file_mismatch)
            printf("model vs %s: %d case(s) differ\n", cpath, file_mismatch);
    }
    free(cases);
    free(L.v);
    return rc;
}
