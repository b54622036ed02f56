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
            if (pattern_eval(p, &env, a, &acc, &err))
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
        else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            char *e;
            long v = strtol(argv[++i], &e, 10);
            if (*e || v < 0 || v > 64) {
                fprintf(stderr, "banklab verify: --device takes a device index\n");
                return EXIT_USAGE;
            }
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
    int nlesson_items = L.n;
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

    int failed = 0, disagree = 0, agree = 0, distinct = 0;
    for (int i = 0; i < L.n; i++) {
        struct vitem *it = &L.v[i];
        struct gpu_result *r = &it->row.rec.res;
        if (it->dup_of >= 0) {
            uint64_t id = r->id;
            *r = L.v[it->dup_of].row.rec.res;
            r->id = id;
        } else {
            distinct++;
            gpu_run(g, &it->row.rec.req, r, VERIFY_TIMEOUT_MS);
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

    int rc = (failed || disagree || file_mismatch) ? EXIT_CHECK : 0;
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
               "accesses measured\n", nlessons_loaded, nlesson_items, ncases, distinct);
        printf("model vs counters: %d of %d agree (%.1f %%), %d differ, %d failed to run\n", agree,
               L.n, L.n ? 100.0 * agree / L.n : 0.0, disagree, failed);
        if (file_mismatch)
            printf("model vs %s: %d case(s) differ\n", cpath, file_mismatch);
    }
    free(cases);
    free(L.v);
    return rc;
}
