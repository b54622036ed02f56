/* lesson_load.c: a lesson file read into a struct lesson (lesson_load.h): the file read
 * (regular files only, at most LESSON_FILE_MAX), UTF-8 checked, parsed once (json_read), then
 * the top level and each step read (lesson_read_step.c); problems are reported through
 * lesson_problem. Also the lessons
 * directory and a set of lessons loaded from it. Never prints, never exits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../base/utf8.h"
#include "files.h"
#include "lesson_load.h"
#include "lesson_read.h"
#include "../sys/sys.h"

static const char *const lesson_keys[] = {"format", "id", "chapter", "title", "steps", NULL};

static void read_lesson(struct ld *L, const cJSON *root, struct lesson *l)
{
    if (lr_expect_object(L, root, "(top level)"))
        return;
    lr_check_keys(L, root, "", lesson_keys);
    long long v;
    const cJSON *fj = lr_get(root, "format");
    if (fj && cJSON_IsNumber(fj) && fj->valuedouble > LESSON_FORMAT)
        lesson_problem(&L->P, 0, "format", LP_THIS_BANKLAB_READS_FORMAT_THE_FILE, LESSON_FORMAT);
    else
        lr_get_int(L, root, "format", "", 1, LESSON_FORMAT, LESSON_FORMAT, "equal to 1", &v);
    lr_get_id(L, root, "", &l->id);
    if (lr_get_int(L, root, "chapter", "", 1, 1, 99, "in 1..99", &v) == 0)
        l->chapter = (int)v;
    lr_get_text(L, root, "title", "", 1, &l->title);
    const cJSON *sj = lr_get(root, "steps");
    if (!sj) {
        lr_missing(L, "", "steps");
        return;
    }
    int n = cJSON_GetArraySize(sj);
    if (!cJSON_IsArray(sj) || n < 1) {
        lesson_problem(&L->P, 0, "steps", LP_EXPECTED_A_NON_EMPTY_ARRAY_OF_STEP,
                       cJSON_IsArray(sj) ? "an empty one" : json_type_name(sj));
        return;
    }
    if (!(l->steps = lr_calloc(L, n, sizeof *l->steps)))
        return;
    l->nsteps = n;
    struct lr_ids ids = {l->steps, NULL, 16};
    while (ids.cap < (size_t)n * 2)
        ids.cap *= 2;
    if (!(ids.slot = lr_calloc(L, ids.cap, sizeof *ids.slot)))
        return;
    int k = 0;
    char p[PATH_BUF];
    for (const cJSON *d = sj->child; d && !L->oom; d = d->next, k++)
        lr_read_step(L, d, lr_subi(p, "steps", k), &l->steps[k], &ids);
    free(ids.slot);
}

/* ---------------------------------------------------------------- loading */

static struct lesson *load(const char *name, const char *data, size_t len,
                           void (*report)(const struct lesson_error *e, void *ctx), void *ctx,
                           int *nproblems, int partial)
{
    struct ld L = {.name = name ? name : "(lesson)"};
    L.P = (struct lesson_problems){L.name, report, ctx, 0, NULL, 0};
    struct lesson *l = NULL;
    cJSON *root = NULL;
    char *owned = NULL;
    struct bl_err why = {0};
    if (nproblems)
        *nproblems = 0;
    if (!data && !(data = owned = files_read(name, LESSON_FILE_MAX, &len, &why))) {
        lesson_problem_err(&L.P, 0, "", &why);
        if (nproblems)
            *nproblems = -1;
        return NULL;
    }
    /* NUL-terminated copy: cJSON reads it as a C string. */
    char *text = malloc(len + 1);
    if (text) {
        if (len)
            memcpy(text, data, len);
        text[len] = 0;
        L.P.text = text;
        L.P.len = len;
    }
    free(owned);
    size_t bad = text ? bl_utf8_bad(text, len) : SIZE_MAX;
    struct bl_err err;
    bl_err_clear(&err);
    if (!text) {
        L.oom = 1;
    } else if (bad != SIZE_MAX) {
        lesson_problem(&L.P, (int)bad + 1, "", text[bad] ? LP_INVALID_UTF8 : LP_NUL_BYTE);
    } else if (json_read(text, len, "a lesson", &root, &err)) {
        if (err.status == -2)
            L.oom = 1;
        else
            lesson_problem_err(&L.P, err.where.at, "", &err);
    } else if (!(l = calloc(1, sizeof *l))) {
        L.oom = 1;
    } else {
        l->path = lr_dupstr(&L, L.name);
        read_lesson(&L, root, l);
    }
    if (L.oom)
        lesson_problem(&L.P, 0, "", LP_OUT_OF_MEMORY);
    lesson_problems_end(&L.P);
    if (L.oom || (L.P.n && !partial)) {
        lesson_free(l);
        l = NULL;
    }
    if (nproblems)
        *nproblems = L.P.n;
    cJSON_Delete(root);
    free(text);
    return l;
}

struct lesson *lesson_load_report(const char *name, const char *data, size_t len,
                                  void (*report)(const struct lesson_error *e, void *ctx),
                                  void *ctx, int *nproblems)
{
    return load(name, data, len, report, ctx, nproblems, 0);
}

struct lesson *lesson_load_partial(const char *name, const char *data, size_t len,
                                   void (*report)(const struct lesson_error *e, void *ctx),
                                   void *ctx, int *nproblems)
{
    return load(name, data, len, report, ctx, nproblems, 1);
}

static void keep_first(const struct lesson_error *e, void *ctx)
{
    struct lesson_error *first = ctx;
    if (first->err.status == 0)
        *first = *e;
}

/* The first problem into *err (when not NULL). */
static struct lesson *load_first(const char *name, const char *data, size_t len,
                                 struct lesson_error *err)
{
    struct lesson_error tmp;
    memset(&tmp, 0, sizeof tmp);
    struct lesson *l = load(name, data, len, keep_first, &tmp, NULL, 0);
    if (err)
        *err = tmp;
    return l;
}

struct lesson *lesson_load_file(const char *path, struct lesson_error *err)
{
    return load_first(path ? path : "", NULL, 0, err);
}

/* ---------------------------------------------------------------- sets and directories */

/* 1 when p names an existing file of type (S_IFDIR, S_IFREG). */
static int is_a(const char *p, mode_t type)
{
    struct stat sb;
    return p && *p && stat(p, &sb) == 0 && (sb.st_mode & S_IFMT) == type;
}

const char *lesson_find_dir(const char *explicit_dir, char *buf, size_t size)
{
    const char *cand = NULL;
    if (!buf || size == 0)
        return NULL;
    if (explicit_dir) {
        cand = explicit_dir;
    } else if (sys_env("BANKLAB_LESSONS") && *sys_env("BANKLAB_LESSONS")) {
        cand = sys_env("BANKLAB_LESSONS");
    } else {
#ifdef BANKLAB_SHARE_DIR
        if (is_a(BANKLAB_SHARE_DIR "/lessons", S_IFDIR))
            cand = BANKLAB_SHARE_DIR "/lessons";
#endif
        if (!cand)
            cand = "lessons";
    }
    int may_be_file = explicit_dir || sys_env("BANKLAB_LESSONS");
    if (!is_a(cand, S_IFDIR) && !(may_be_file && is_a(cand, S_IFREG)))
        return NULL;
    int n = snprintf(buf, size, "%s", cand);
    if (n < 0 || (size_t)n >= size)
        return NULL;
    return buf;
}

static int cmp_lesson(const void *a, const void *b)
{
    const struct lesson *x = a, *y = b;
    if (x->chapter != y->chapter)
        return x->chapter < y->chapter ? -1 : 1;
    return strcmp(x->path ? x->path : "", y->path ? y->path : "");
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.json files of the directory path (not hidden ones), sorted by name, into *names
 * (each and the array malloc'd): how many, or -1 when it cannot be read. */
static int json_names(const char *path, char ***names)
{
    struct sys_dir *d = sys_dir_open(path);
    int n = 0, cap = 0;
    *names = NULL;
    if (!d)
        return -1;
    for (const char *e; (e = sys_dir_next(d));) {
        size_t ln = strlen(e);
        if (e[0] == '.' || ln < 6 || strcmp(e + ln - 5, ".json"))
            continue;
        if (n == cap) {
            char **more = realloc(*names, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *more);
            if (!more)
                break;
            *names = more;
        }
        if (((*names)[n] = strdup(e)))
            n++;
    }
    sys_dir_close(d);
    if (n > 1)
        qsort(*names, (size_t)n, sizeof **names, by_name);
    return n;
}

/* Adds lesson l (loaded from path) to set unless its id is taken or, with checked, it fails
 * lesson_check; a lesson left out is freed and reported. */
static void set_add(struct lesson_set *set, struct lesson *l, const char *path, int checked,
                    void (*report)(const struct lesson_error *e, void *ctx), void *ctx)
{
    for (int k = 0; k < set->nlessons; k++)
        if (!strcmp(set->lessons[k].id, l->id)) {
            struct lesson_problems P = {path, report, ctx, 0, NULL, 0};
            lesson_problem(&P, 0, NULL, LP_LESSON_ID_IS_ALSO_THE_ID_OF_FILE_S,
                           l->id, set->lessons[k].path);
            lesson_free(l);
            return;
        }
    if (checked) {
        int problems = lesson_check(l, report, ctx);
        if (problems > 0) {
            struct lesson_problems P = {path, report, ctx, 0, NULL, 0};
            lesson_problem(&P, 0, NULL, LP_FILE_SKIPPED_PROBLEM_ABOVE_BANKLAB, problems, problems == 1 ? "" : "s");
            lesson_free(l);
            return;
        }
    }
    set->lessons[set->nlessons++] = *l;
    free(l);  /* the shell only: its contents moved into the set */
}

int lesson_set_load(struct lesson_set *set, const char *path, int checked,
                    void (*report)(const struct lesson_error *e, void *ctx), void *ctx)
{
    if (!set)
        return -1;
    memset(set, 0, sizeof *set);
    char **de = NULL;
    int nnames = 1;                        /* path names one lesson file */
    if (!path || (!is_a(path, S_IFREG) && (nnames = json_names(path, &de)) < 0)) {
        struct lesson_problems P = {path ? path : "(none)", report, ctx, 0, NULL, 0};
        lesson_problem(&P, 0, NULL, LP_CANNOT_OPEN_THE_LESSONS_DIRECTORY);
        return -1;
    }
    set->lessons = nnames ? calloc((size_t)nnames, sizeof *set->lessons) : NULL;
    for (int i = 0; i < nnames; i++) {
        char name[4096];
        snprintf(name, sizeof name, "%s%s%s", path, de ? "/" : "", de ? de[i] : "");
        struct lesson *l = set->lessons ? lesson_load_report(name, NULL, 0, report, ctx, NULL)
                                        : NULL;
        if (l)
            set_add(set, l, name, checked, report, ctx);
        if (de)
            free(de[i]);
    }
    free(de);
    if (set->nlessons > 1)
        qsort(set->lessons, (size_t)set->nlessons, sizeof *set->lessons, cmp_lesson);
    if (set->nlessons == 0) {
        free(set->lessons);
        set->lessons = NULL;
        struct lesson_problems P = {path, report, ctx, 0, NULL, 0};
        if (nnames == 0)
            lesson_problem(&P, 0, NULL, LP_NO_LESSON_FILES_JSON_IN_THE_DIRECT);
        return -1;
    }
    return 0;
}

int lesson_set_load_dir(struct lesson_set *set, const char *dir,
                        void (*report)(const struct lesson_error *e, void *ctx), void *ctx)
{
    return lesson_set_load(set, dir, 0, report, ctx);
}
