/* verify.c: `banklab verify`: the bank model against the GPU's hardware counters. Every access
 * a learner can draw in a lesson scene (every parameter setting, lesson_scene_settings; every
 * element type, warp and access; each expectation's parameters) and the 63 measured cases of
 * assets/h200-wavefronts.json run on one warp under CUPTI; any difference between model and
 * counters fails (exit 1); one that could not be measured (counters busy, no turn on the GPU,
 * a failed run) is counted apart (exit 4). --timing also times each access (time per access,
 * slowdown);
 * --json writes the recording format (tests/gpu/record.sh). --both measures everything twice,
 * through the GPU server as a learner's tutorial does and in this process, and fails when the
 * two disagree (the server's wire once measured chapter 11 as plain loads and
 * stores). No curses. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../base/hash.h"
#include "../gpu/gpu.h"
#include "../serve/serve.h"
#include "../lesson/lesson.h"
#include "../store/lesson_load.h"
#include "../store/recording.h"
#include "../model/bank.h"
#include "../model/pattern.h"
#include "cli.h"
#include "../sys/sys.h"

#define VERIFY_TIMEOUT_MS 60000
#define CODE_MAX 4096

struct vitem {
    struct recording_row row;
    int dup_of;                  /* index of the identical access measured first, or -1 */
    int is_case;                 /* a case-kernel scene setting (not compared with the model) */
    char key[160];               /* case: name and the parameters the kernel reads */
};

#define VHASH 16384              /* buckets of the access index (a power of two) */

struct vlist {
    struct vitem *v;
    int n, cap;
    int timing;                  /* pattern accesses are timed too (--timing) */
    int *head, *next;            /* hash chains of distinct pattern accesses (-1 ends) */
    int next_cap;
};

static unsigned access_hash(const struct bank_access *a)
{
    uint64_t kind[] = {a->width, (uint64_t)a->op, a->mask, (uint64_t)a->instr, a->matrices, a->trans};
    uint64_t h = bl_hash(BL_HASH_SEED, kind, sizeof kind);
    for (int i = 0; i < BANK_LANES; i++)
        if (a->mask >> i & 1u)
            h = bl_hash(h, &a->offset[i], sizeof a->offset[i]);
    return (unsigned)(h ^ h >> 29) & (VHASH - 1);
}

static int vlist_grow(struct vlist *L)
{
    if (!L->head) {
        L->head = malloc(VHASH * sizeof *L->head);
        if (!L->head)
            return -1;
        for (int i = 0; i < VHASH; i++)
            L->head[i] = -1;
    }
    if (L->n == L->cap) {
        int nc = L->cap ? L->cap * 2 : 256;
        struct vitem *nv = realloc(L->v, (size_t)nc * sizeof *nv);
        if (!nv)
            return -1;
        L->v = nv;
        L->cap = nc;
        int *nn = realloc(L->next, (size_t)nc * sizeof *nn);
        if (!nn)
            return -1;
        L->next = nn;
    }
    return 0;
}

static void vlist_free(struct vlist *L)
{
    free(L->v);
    free(L->head);
    free(L->next);
}

/* A new item at the end of L: its group, label and request q (id set), nothing measured,
 * no duplicate yet. NULL when out of memory. */
static struct vitem *vlist_new(struct vlist *L, const char *group, const char *label,
                               const struct gpu_request *q)
{
    if (vlist_grow(L))
        return NULL;
    struct vitem *it = &L->v[L->n];
    memset(it, 0, sizeof *it);
    snprintf(it->row.group, sizeof it->row.group, "%s", group);
    snprintf(it->row.label, sizeof it->row.label, "%s", label);
    it->row.agree = -1;
    it->row.rec.req = *q;
    it->row.rec.req.id = (uint64_t)L->n + 1;
    it->dup_of = -1;
    L->next[L->n] = -1;
    return it;
}

static int vlist_add(struct vlist *L, const char *group, const char *label,
                     const struct bank_access *acc)
{
    struct bank_result r;
    if (bank_simulate(acc, &r, NULL) != BANK_OK)
        return 0; /* the loader reports misaligned scenes; nothing to measure */
    struct gpu_request q = {.kind = GPU_REQ_PATTERN, .access = *acc, .want_counters = 1,
                            .want_timing = L->timing};
    struct vitem *it = vlist_new(L, group, label, &q);
    if (!it)
        return -1;
    it->row.model_wavefronts = r.wavefronts;
    it->row.model_conflicts = r.conflicts;
    unsigned h = access_hash(acc);
    for (int i = L->head[h]; i >= 0 && it->dup_of < 0; i = L->next[i])
        if (gpu_same_access(&L->v[i].row.rec.req.access, acc))
            it->dup_of = i;
    if (it->dup_of < 0) {
        L->next[L->n] = L->head[h];
        L->head[h] = L->n;
    }
    L->n++;
    return 0;
}

/* A case kernel scene at one setting of its parameters, as the tutorial sends it (every scene
 * parameter, in order), so a recording replays it. Settings that differ only in parameters
 * the kernel ignores are run once. */
static int vlist_add_case(struct vlist *L, const char *label, const struct gpu_request *q)
{
    struct vitem *it = vlist_new(L, "lesson-case", label, q);
    if (!it)
        return -1;
    it->is_case = 1;
    it->row.model_wavefronts = it->row.model_conflicts = -1;
    long long v[GPU_CASE_MAX_PARAMS];
    int nv = gpu_case_values(q, v);
    size_t kl = (size_t)snprintf(it->key, sizeof it->key, "%s", q->case_name);
    for (int i = 0; i < nv && kl < sizeof it->key; i++)
        kl += (size_t)snprintf(it->key + kl, sizeof it->key - kl, " %lld", v[i]);
    for (int i = 0; i < L->n && it->dup_of < 0; i++)
        if (L->v[i].is_case && L->v[i].dup_of < 0 && !strcmp(L->v[i].key, it->key))
            it->dup_of = i;
    L->n++;
    return 0;
}

/* The collection context of one scene: where it is, and the binding being visited. */
struct scene_ctx {
    struct vlist *L;
    const struct lesson *les;
    const struct lesson_step *st;
    const struct lesson_binding *bind;
    const char *tag;             /* "" or " (expectation)" */
    int oom;                     /* out of memory: stop */
};

/* "PAD=1 STRIDE=2" for bind (NULL: nothing). */
static size_t bind_text(const struct lesson_binding *b, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; b && i < b->nvalues && n < size; i++)
        n += (size_t)snprintf(buf + n, size - n, " %s=%lld", b->names[i], b->values[i]);
    if (b && b->type && n < size)
        n += (size_t)snprintf(buf + n, size - n, " T=%s", b->type);
    return n < size ? n : size - 1;
}

static int add_access(const struct bank_access *acc, int type_index, unsigned warp, int access,
                      void *arg)
{
    struct scene_ctx *c = arg;
    const struct lesson_scene *s = c->st->scene;
    char label[128], params[96];
    bind_text(c->bind, params, sizeof params);
    snprintf(label, sizeof label, "%s/%s%s%s%s%s warp %u access %d",
             c->les->id ? c->les->id : "?", c->st->id ? c->st->id : "?", c->tag, params,
             s->ntypes > 0 && !(c->bind && c->bind->type) ? " T=" : "",
             s->ntypes > 0 && !(c->bind && c->bind->type) ? s->types[type_index] : "", warp,
             access);
    if (vlist_add(c->L, "lesson", label, acc))
        c->oom = 1;
    return c->oom;
}

/* A case kernel scene at one setting, as the tutorial sends it (every scene parameter, in
 * order): the kernel reads its own parameters (gpu_case_values), so settings that differ only
 * in others run once. */
static int add_case_setting(const struct lesson_binding *b, void *arg)
{
    struct scene_ctx *c = arg;
    const struct lesson_scene *s = c->st->scene;
    struct gpu_request q;
    char label[128], params[96];
    memset(&q, 0, sizeof q);
    q.kind = GPU_REQ_CASE;
    q.want_timing = q.want_counters = 1;
    snprintf(q.case_name, sizeof q.case_name, "%s", s->kernel);
    for (int p = 0; p < s->nparams && p < GPU_CASE_MAX_PARAMS; p++) {
        snprintf(q.param_name[p], sizeof q.param_name[0], "%s", s->params[p].name);
        q.param_value[p] = s->params[p].def;
        for (int v = 0; v < b->nvalues; v++)
            if (!strcmp(b->names[v], s->params[p].name))
                q.param_value[p] = b->values[v];
        q.nparams = p + 1;
    }
    bind_text(b, params, sizeof params);
    snprintf(label, sizeof label, "%s/%s %s%s%s", c->les->id ? c->les->id : "?",
             c->st->id ? c->st->id : "?", s->kernel, c->tag, params);
    return vlist_add_case(c->L, label, &q);
}

static int add_setting(const struct lesson_binding *b, void *arg)
{
    struct scene_ctx *c = arg;
    c->bind = b;
    lesson_scene_accesses(c->st->scene, b, add_access, c); /* code errors: `banklab check` */
    const char *k = c->st->scene->kernel;
    if (!c->oom && k && *k && strcmp(k, "pattern") && add_case_setting(b, c))
        c->oom = 1;
    c->bind = NULL;
    return c->oom;
}

/* Every setting of step st's scene (lesson_scene_settings) and each expectation's. Returns 0,
 * or -1 when out of memory. */
static int add_step(struct vlist *L, const struct lesson *les, const struct lesson_step *st)
{
    struct scene_ctx c = {L, les, st, NULL, "", 0};
    if (lesson_scene_settings(st->scene, add_setting, &c) < 0)
        return -1;
    c.tag = " (expectation)";
    for (int e = 0; e < st->nexpects; e++)
        if (add_setting(&st->expects[e].bind, &c))
            return -1;
    return 0;
}

struct lctx {
    int problems;
};

static void report_load(const struct lesson_error *e, void *ctx)
{
    struct lctx *c = ctx;
    c->problems++;
    char line[512];
    fprintf(stderr, "%s\n", CLI_CLEAN(lesson_error_line(e, line, sizeof line)));
}

static void case_line(const struct vitem *it)
{
    const struct gpu_result *r = &it->row.rec.res;
    if (r->err.status == GPU_OK && r->verified)
        cli_say(stdout, VER_CASE_CHECKED, it->row.label, r->ms_median, r->wavefronts_ld);
    else if (r->err.status == GPU_EINVAL)
        cli_say(stdout, VER_CASE_REFUSED, it->row.label, CLI_CLEAN(CLI_ERR(&r->err)));
    else if (r->err.status == GPU_EVERIFY || r->err.status == GPU_OK)
        cli_say(stdout, VER_CASE_WRONG, it->row.label, CLI_CLEAN(CLI_ERR(&r->err)));
    else
        cli_say(stdout, VER_CASE_UNMEASURED, it->row.label, CLI_CLEAN(CLI_ERR(&r->err)));
}

static void usage(FILE *f);

struct vopts {
    int json, timing, device, no_server, both;
    const char *lessons, *server;
};

enum { OPT_JSON = CLI_KEY_FIRST, OPT_TIMING, OPT_LESSONS, OPT_DEVICE, OPT_BOTH };

static const struct cli_opt verify_options[] = {
    CLI_ROW("timing", 0, NULL, CLI_OH_VERIFY_TIMING, OPT_TIMING),
    CLI_ROW("json", 0, NULL, CLI_OH_VERIFY_JSON, OPT_JSON),
    CLI_SERVER_ROWS(CLI_OH_VERIFY_SERVER, CLI_OH_VERIFY_NO_SERVER),
    CLI_ROW("both", 0, NULL, CLI_OH_VERIFY_BOTH, OPT_BOTH),
    CLI_ROW_TEXT(CLI_HT_VERIFY_EXIT),
    CLI_ROW("lessons", 0, "VALUE", 0, OPT_LESSONS),
    CLI_ROW("device", 0, "VALUE", 0, OPT_DEVICE),
    CLI_LANG_ROW(0),
    CLI_ROW_HELP(0),
    CLI_ROW_END};

static int verify_opt(void *ctx, int key, const char *name, const char *val);

static const struct cli_cmd verify_cmd = {"verify", verify_options, 0, CLI_UNKNOWN_ARGUMENT, usage,
    usage, verify_opt, 12, 2, 0};

/* --help, and after a usage error: the usage and what verify does, then its options */
static void usage(FILE *f)
{
    cli_say(f, CLI_HELP_VERIFY);
    cli_opt_help(f, &verify_cmd);
}

static int verify_opt(void *ctx, int key, const char *name, const char *val)
{
    struct vopts *o = ctx;
    o->json |= key == OPT_JSON;
    o->timing |= key == OPT_TIMING;
    o->both |= key == OPT_BOTH;
    o->lessons = key == OPT_LESSONS && val ? val : o->lessons;
    if (key == OPT_JSON || key == OPT_TIMING || key == OPT_BOTH || (key == OPT_LESSONS && val))
        return 0;
    if (key == OPT_DEVICE)
        return cli_int_opt(&verify_cmd, name, val, 0, CLI_DEVICE_MAX, &o->device);
    if (key == CLI_SERVER || key == CLI_NO_SERVER)
        return cli_server_opt(&verify_cmd, key, val, &o->server, &o->no_server);
    return cli_usage_error(&verify_cmd, verify_cmd.unknown, CLI_CLEAN(val ? val : name));
}

/* Every setting of every lesson scene into L (and its case kernel runs); *nloaded lessons;
 * scenes: their digest ("" when a file was left out). 0, or the exit status after a message. */
static int collect_lessons(struct vlist *L, const char *lessons_opt, int *nloaded, char *scenes)
{
    char dirbuf[1024];
    const char *dir = lesson_find_dir(lessons_opt, dirbuf, sizeof dirbuf);
    struct lesson_set set;
    memset(&set, 0, sizeof set);
    *nloaded = 0;
    if (!dir) {
        if (lessons_opt) {
            cli_tell("verify", CLI_F_NO_SUCH_LESSONS_DIRECTORY, CLI_CLEAN(lessons_opt));
            return EXIT_USAGE;
        }
        cli_tell("verify", CLI_F_NO_LESSONS_DIRECTORY_FOUND_CHECKING);
        return 0;
    }
    struct lctx lc = {0};
    if (lesson_set_load_dir(&set, dir, report_load, &lc) == 0) {
        *nloaded = set.nlessons;
        lesson_scenes_digest(&set, scenes);
        for (int li = 0; li < set.nlessons; li++) {
            const struct lesson *les = &set.lessons[li];
            for (int si = 0; si < les->nsteps; si++) {
                const struct lesson_step *st = &les->steps[si];
                if (st->scene && add_step(L, les, st)) {
                    cli_tell("verify", CLI_F_OUT_MEMORY);
                    lesson_set_done(&set);
                    return EXIT_USAGE;
                }
            }
        }
    } else if (lessons_opt) {
        cli_tell("verify", CLI_F_NO_LESSON_COULD_BE_LOADED, CLI_CLEAN(dir));
        return EXIT_USAGE;
    }
    if (lc.problems) {
        scenes[0] = '\0'; /* a file left out: the digest would not be the lessons' */
        cli_tell("verify", CLI_F_LESSON_PROBLEM_ABOVE_BANKLAB_CHECK, lc.problems);
    }
    lesson_set_done(&set);
    return 0;
}

/* The cases of assets/h200-wavefronts.json and h200-matrix.json into L (and *cases, to compare
 * with their files).
 * 0, or the exit status after a message. */
static int collect_reference(struct vlist *L, struct hw_case **cases, int *ncases, char *path,
                             size_t pn)
{
    struct bl_err err = {0};
    /* the plain accesses, then ldmatrix, stmatrix and cp.async (tests/data/h200-matrix.json) */
    static const char *const files[] = {"h200-wavefronts.json", "h200-matrix.json"};
    char mpath[1024];
    for (int f = 0; f < 2; f++) {
        const char *cpath = recording_find_asset(files[f], f ? mpath : path, f ? sizeof mpath : pn);
        struct hw_case *more = NULL;
        int nmore = 0;
        if (!cpath) {
            cli_tell("verify", CLI_F_ASSETS_NOT_FOUND_SET_BANKLAB,
                    files[f]);
            return EXIT_USAGE;
        }
        if (recording_load_hw_cases(cpath, &more, &nmore, &err)) {
            fprintf(stderr, "banklab verify: %s\n", CLI_CLEAN(CLI_ERR(&err)));
            free(more);
            return EXIT_USAGE;
        }
        struct hw_case *all = realloc(*cases, (size_t)(*ncases + nmore + 1) * sizeof *all);
        if (!all) {
            free(more);
            cli_tell("verify", CLI_F_OUT_MEMORY);
            return EXIT_USAGE;
        }
        memcpy(all + *ncases, more, (size_t)nmore * sizeof *all);
        free(more);
        *cases = all;
        *ncases += nmore;
    }
    for (int i = 0; i < *ncases; i++) {
        char label[128];
        snprintf(label, sizeof label, "h200/%s", (*cases)[i].name);
        if (vlist_add(L, "h200", label, &(*cases)[i].access)) {
            cli_tell("verify", CLI_F_OUT_MEMORY);
            return EXIT_USAGE;
        }
    }
    return 0;
}

/* The GPU (in_process: this process's runner, else o's choice), or NULL after one line (*rc:
 * EXIT_NOGPU, or EXIT_USAGE when out of memory). */
static struct gpu *open_gpu(const struct vopts *o, int in_process, struct gpu_info *info, int *rc)
{
    const char *fake = sys_env("BANKLAB_SERVE_FAKE");  /* tests: the fake device in here too */
    int here_fake = in_process && fake && !strcmp(fake, "1");
    *rc = EXIT_USAGE;                                   /* out of memory */
    struct gpu *g = here_fake ? serve_fake_open(0, info)
                  : cli_open_gpu("verify", NULL, o->device, in_process ? NULL : o->server,
                                 in_process || o->no_server, info, rc);
    if (!g || info->counters)
        return g;
    cli_tell("verify", CLI_F_NO_HARDWARE_COUNTERS, CLI_CLEAN(CLI_ERR(&info->counters_err)));
    gpu_close(g);
    *rc = EXIT_NOGPU;
    return NULL;
}

/* What the run found. A measurement that failed is never counted as a difference. */
struct tally {
    int agree, differ, unmeasured, busy;      /* pattern accesses (busy: of the unmeasured) */
    int cpasync_noise;                        /* of agree: cp.async within recording_tolerance */
    int distinct, case_runs, case_refused, case_wrong, case_unmeasured;
    int file_mismatch;
};

/* Measure every item (identical ones once) and sort the results into t. */
static void measure_all(struct gpu *g, struct vlist *L, struct tally *t)
{
    for (int i = 0; i < L->n; i++) {
        struct vitem *it = &L->v[i];
        struct gpu_result *r = &it->row.rec.res;
        int first = it->dup_of < 0;
        if (!first) {
            *r = L->v[it->dup_of].row.rec.res;
            r->id = it->row.rec.req.id;
        } else {
            t->distinct += !it->is_case;
            t->case_runs += it->is_case;
            gpu_run(g, &it->row.rec.req, r, it->is_case ? 2 * VERIFY_TIMEOUT_MS : VERIFY_TIMEOUT_MS);
        }
        if (it->is_case) {
            /* A refused setting (misaligned carve, out of range) is the lesson's point: its
             * one-line reason is recorded. A wrong output is a failure; a run that could not
             * happen (no turn, a failed launch) is counted apart. */
            if (r->err.status == GPU_EINVAL)
                t->case_refused += first;
            else if (r->err.status == GPU_EVERIFY || (r->err.status == GPU_OK && !r->verified))
                t->case_wrong += first;
            else if (r->err.status != GPU_OK)
                t->case_unmeasured += first;
            continue;
        }
        if (r->err.status != GPU_OK || !r->has_counters) {
            t->unmeasured++;
            t->busy += r->err.status == GPU_OK && r->counters_busy;
            it->row.agree = -1;                 /* not compared: null in the recording */
            continue;
        }
        int st = it->row.rec.req.access.op == BANK_STORE;
        double w = st ? r->wavefronts_st : r->wavefronts_ld;
        double c = st ? r->conflicts_st : r->conflicts_ld;
        double tol = recording_tolerance(&it->row.rec.req.access);
        it->row.agree = fabs(w - it->row.model_wavefronts) < tol &&
                        fabs(c - it->row.model_conflicts) < tol;
        if (it->row.agree && (fabs(w - it->row.model_wavefronts) >= 0.005 ||
                              fabs(c - it->row.model_conflicts) >= 0.005))
            t->cpasync_noise++;
        if (it->row.agree)
            t->agree++;
        else
            t->differ++;
    }
}

/* ---- --both: through the server and in this process ---- */

#define BOTH_TIME_TOLERANCE 0.15  /* a time per access of one path within 15 % of the other's */
#define BOTH_LIST 40              /* differences listed */

struct both {
    struct gpu_result *in;        /* the in-process result of each item (NULL: not run) */
    int agree, differ, one_path;  /* first measurements compared; one_path: measured by one */
    int in_unmeasured;            /* in this process: accesses or case runs not measured */
    double worst_time;            /* the largest |in-process / server - 1| of a time per access */
};

static int near(double a, double b, double abs_tol, double rel_tol)
{
    return fabs(a - b) <= abs_tol || fabs(a - b) <= rel_tol * fmax(fabs(a), fabs(b));
}

/* 1 when a (through the server) and b (in this process) are the same outcome of item it, 0
 * when they differ, -1 when one path could not measure it (busy counters, no turn: not a
 * difference). Counters must be equal (a whole kernel's within 1 %: other traffic), a refusal
 * or a case's checked output the same, a time per access (--timing) within 15 %. */
static int same_outcome(const struct vitem *it, const struct gpu_result *a, const struct gpu_result *b,
                        double *worst)
{
    int ra = a->err.status == GPU_EINVAL, rb = b->err.status == GPU_EINVAL;
    if (ra || rb)
        return ra == rb;
    int ma = a->err.status == GPU_OK || (it->is_case && a->err.status == GPU_EVERIFY);
    int mb = b->err.status == GPU_OK || (it->is_case && b->err.status == GPU_EVERIFY);
    if (!ma || !mb || (!it->is_case && (!a->has_counters || !b->has_counters)))
        return -1;
    if (a->err.status != b->err.status || (it->is_case && !a->verified != !b->verified))
        return 0;
    double tol = it->is_case ? 0.02 : recording_tolerance(&it->row.rec.req.access);
    double rel = it->is_case ? 0.01 : 0;
    if (a->has_counters && b->has_counters &&
        !(near(a->wavefronts_ld, b->wavefronts_ld, tol, rel) &&
          near(a->wavefronts_st, b->wavefronts_st, tol, rel) &&
          near(a->conflicts_ld, b->conflicts_ld, tol, rel) &&
          near(a->conflicts_st, b->conflicts_st, tol, rel)))
        return 0;
    if (a->has_access_timing && b->has_access_timing && a->clk_per_access > 0) {
        double d = fabs(b->clk_per_access / a->clk_per_access - 1);
        if (d > *worst)
            *worst = d;
        if (d > BOTH_TIME_TOLERANCE)
            return 0;
    }
    return 1;
}

static void nap_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) == -1) {
    }
}

/* --both's second path: every item measured again in this process into bt->in, the server's
 * results left in L. 0, or the exit status after one line. */
static int measure_in_process(const struct vopts *o, struct vlist *L, struct both *bt)
{
    struct gpu_result *srv = malloc((size_t)(L->n ? L->n : 1) * sizeof *srv);
    int *agree = malloc((size_t)(L->n ? L->n : 1) * sizeof *agree);
    bt->in = malloc((size_t)(L->n ? L->n : 1) * sizeof *bt->in);
    if (!srv || !agree || !bt->in) {
        free(srv);
        free(agree);
        cli_tell("verify", CLI_F_OUT_MEMORY);
        return EXIT_USAGE;
    }
    for (int i = 0; i < L->n; i++) {
        srv[i] = L->v[i].row.rec.res;
        agree[i] = L->v[i].row.agree;
    }
    /* the server gives the counters back after a quiet second (runner/cuda_gpu.c); until then this
     * process would find them busy */
    nap_ms(1500);
    unsetenv("BANKLAB_SERVER");         /* it would win over --no-server */
    struct gpu_info info;
    int rc = 0;
    struct gpu *g = open_gpu(o, 1, &info, &rc);
    if (g) {
        struct tally t2;
        memset(&t2, 0, sizeof t2);
        measure_all(g, L, &t2);
        gpu_close(g);
        bt->in_unmeasured = t2.unmeasured + t2.case_unmeasured;
        for (int i = 0; i < L->n; i++)
            bt->in[i] = L->v[i].row.rec.res;
    }
    for (int i = 0; i < L->n; i++) {
        L->v[i].row.rec.res = srv[i];
        L->v[i].row.agree = agree[i];
    }
    free(srv);
    free(agree);
    if (!g) {
        free(bt->in);
        bt->in = NULL;
    }
    return g ? 0 : rc;
}

static void both_figures(const struct gpu_result *r, char *buf, size_t n)
{
    if (r->err.status != GPU_OK)
        snprintf(buf, n, "%s: %s", gpu_status_name((enum gpu_status)r->err.status) ?
                 gpu_status_name((enum gpu_status)r->err.status) : "?", CLI_ERR(&r->err));
    else if (r->has_counters)
        snprintf(buf, n, cli_msg(VER_BOTH_COUNTERS), r->wavefronts_ld, r->conflicts_ld,
                 r->wavefronts_st, r->conflicts_st, r->verified ? cli_msg(VER_BOTH_CHECKED) : "");
    else
        snprintf(buf, n, cli_msg(VER_BOTH_NO_COUNTERS),
                 CLI_NOTE(&r->counters_msg, r->counters_note));
}

/* Compares the two paths item by item (first measurements) and says how they went, the
 * differences listed on f. */
static void compare_paths(const struct vlist *L, struct both *bt, FILE *f)
{
    int listed = 0;
    for (int i = 0; i < L->n; i++) {
        const struct vitem *it = &L->v[i];
        if (it->dup_of >= 0)
            continue;
        int s = same_outcome(it, &it->row.rec.res, &bt->in[i], &bt->worst_time);
        bt->agree += s == 1;
        bt->one_path += s < 0;
        bt->differ += s == 0;
        if (s == 0 && listed++ < BOTH_LIST) {
            char a[384], b[384];
            both_figures(&it->row.rec.res, a, sizeof a);
            both_figures(&bt->in[i], b, sizeof b);
            cli_say(f, VER_BOTH_DIFFER, it->row.label, CLI_CLEAN(a), CLI_CLEAN(b));
        }
    }
    cli_say(f, VER_BOTH_SUM, bt->agree,
            bt->agree + bt->differ + bt->one_path, bt->differ, bt->one_path,
            bt->worst_time * 100);
}

static int write_json(const struct vlist *L, const struct gpu_info *info, int timing,
                      const char *scenes)
{
    struct recording rec;
    recording_init(&rec);
    snprintf(rec.device, sizeof rec.device, "%s", info->device);
    cli_now_utc(rec.date, sizeof rec.date);
    snprintf(rec.command, sizeof rec.command, "banklab verify --json%s", timing ? " --timing" : "");
    snprintf(rec.scenes, sizeof rec.scenes, "%s", scenes);
    /* Replay finds a result by the access or kernel setting, so a repeat adds nothing; the 63
     * H200 reference rows stay whole (tests check them as a set). */
    int bad = 0;
    for (int i = 0; i < L->n && !bad; i++)
        if (L->v[i].dup_of < 0 || !strcmp(L->v[i].row.group, "h200"))
            bad = recording_add(&rec, &L->v[i].row) != 0;
    if (!bad)
        bad = recording_write(stdout, &rec) != 0;
    recording_done(&rec);
    return bad ? -1 : 0;
}

static void write_rows(const struct vlist *L)
{
    printf("%-60s %11s %13s  %s\n", cli_msg(VER_COL_ACCESS), cli_msg(VER_COL_MODEL),
           cli_msg(VER_COL_COUNTERS), "");
    for (int i = 0; i < L->n; i++) {
        const struct vitem *it = &L->v[i];
        const struct gpu_result *r = &it->row.rec.res;
        int st = it->row.rec.req.access.op == BANK_STORE;
        if (it->is_case) {
            if (it->dup_of < 0)
                case_line(it);
            continue;
        }
        if (it->dup_of >= 0 && it->row.agree == 1 && strcmp(it->row.group, "h200"))
            continue; /* a repeat of an access listed above */
        char meas[40];
        int measured = r->err.status == GPU_OK && r->has_counters;
        if (measured)
            snprintf(meas, sizeof meas, "%.2f/%.2f", st ? r->wavefronts_st : r->wavefronts_ld,
                     st ? r->conflicts_st : r->conflicts_ld);
        else
            snprintf(meas, sizeof meas, "-");
        printf("%-60.60s %5d/%-5d %13s  %s\n", it->row.label, it->row.model_wavefronts,
               it->row.model_conflicts, meas,
               cli_msg(!measured ? VER_NOT_MEASURED : it->row.agree == 1 ? VER_OK : VER_DIFFERS));
        if (!measured)
            printf("    %s\n", CLI_CLEAN(r->err.status != GPU_OK ? CLI_ERR(&r->err)
                                                       : CLI_NOTE(&r->counters_msg, r->counters_note)));
    }
}

static void write_summary(const struct tally *t, int nlessons, int nlesson_items, int ncase_items,
                          int ncases, int npattern, int timing, const char *cpath)
{
    cli_say(stdout, timing ? VER_SUM_LESSONS_TIMED : VER_SUM_LESSONS, nlessons,
            nlesson_items - ncase_items, ncases, t->distinct);
    cli_say(stdout, VER_SUM_AGREE, t->agree, npattern,
            npattern ? 100.0 * t->agree / npattern : 0.0, t->differ, t->unmeasured);
    if (t->busy)
        cli_say(stdout, VER_SUM_BUSY, t->busy);
    if (t->cpasync_noise)
        cli_say(stdout, VER_SUM_CPASYNC, t->cpasync_noise);
    cli_say(stdout, VER_SUM_CASES, ncase_items, t->case_runs,
            t->case_runs - t->case_refused - t->case_wrong - t->case_unmeasured, t->case_refused,
            t->case_wrong, t->case_unmeasured);
    if (t->file_mismatch)
        cli_say(stdout, VER_SUM_FILE, cpath, t->file_mismatch);
    if (t->unmeasured || t->case_unmeasured)
        cli_say(stdout, VER_SUM_UNMEASURED);
}

int cmd_verify(int argc, char **argv)
{
    struct vopts o;
    memset(&o, 0, sizeof o);
    int rc = cli_parse(&verify_cmd, argc, argv, &o, NULL);
    if (rc)
        return rc < 0 ? 0 : rc;
    /* Collect the accesses first: bad input is reported before any GPU work. */
    struct vlist L;
    memset(&L, 0, sizeof L);
    L.timing = o.timing;
    struct hw_case *cases = NULL;
    int ncases = 0, nlessons = 0;
    char cpath[1024], scenes[17] = "";
    rc = collect_lessons(&L, o.lessons, &nlessons, scenes);
    int nlesson_items = L.n, ncase_items = 0;
    for (int i = 0; i < L.n; i++)
        ncase_items += L.v[i].is_case;
    if (!rc)
        rc = collect_reference(&L, &cases, &ncases, cpath, sizeof cpath);
    if (!rc && o.both && o.no_server)
        rc = cli_usage_error(&verify_cmd, CLI_E_BOTH_AND_NO_SERVER_EXCLUDE);
    if (!rc && o.both)
        unsetenv("BANKLAB_NO_SERVER");    /* --both: the server first, whatever it says */
    struct gpu_info info;
    struct gpu *g = rc ? NULL : open_gpu(&o, 0, &info, &rc);
    if (!g) {
        free(cases);
        vlist_free(&L);
        return rc;
    }
    struct tally t;
    memset(&t, 0, sizeof t);
    measure_all(g, &L, &t);
    gpu_close(g);
    struct both bt;
    memset(&bt, 0, sizeof bt);
    if (o.both && (rc = measure_in_process(&o, &L, &bt)) != 0) {
        free(cases);
        vlist_free(&L);
        return rc;
    }
    /* The H200 file's own numbers: the model must match them too (it does: tests/unit). */
    for (int i = 0; i < ncases; i++) {
        const struct vitem *it = &L.v[nlesson_items + i];
        if (it->row.model_wavefronts != cases[i].wavefronts ||
            it->row.model_conflicts != cases[i].conflicts)
            t.file_mismatch++;
    }
    rc = t.differ || t.file_mismatch || t.case_wrong ? EXIT_CHECK
         : t.unmeasured || t.case_unmeasured          ? EXIT_UNMEASURED : 0;
    if (o.json) {
        if (write_json(&L, &info, o.timing, scenes))
            rc = EXIT_CHECK;
    } else {
        cli_say(stdout, VER_DEVICE, CLI_CLEAN(info.device));
        write_rows(&L);
        write_summary(&t, nlessons, nlesson_items, ncase_items, ncases, L.n - ncase_items,
                      o.timing, cpath);
    }
    if (bt.in) {
        compare_paths(&L, &bt, o.json ? stderr : stdout);
        if (bt.differ)
            rc = EXIT_CHECK;
        else if (!rc && (bt.one_path || bt.in_unmeasured))
            rc = EXIT_UNMEASURED;
        free(bt.in);
    }
    free(cases);
    vlist_free(&L);
    return rc;
}
