/* check.c: `banklab check`: loads lesson files, validates them completely (lesson.h) and
 * runs every expectation, quiz check and task through the model. Problems go to stdout as
 * file: path: message (a syntax error as file:line:col: message), then one summary line;
 * usage errors go to stderr.
 * Depends on the lesson loader only (no curses, no GPU). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/buf.h"
#include "../gpu/gpu.h"
#include "../lesson/scene.h"
#include "../store/files.h"
#include "../lesson/lesson.h"
#include "../store/lesson_load.h"
#include "../store/recording.h"
#include "cli.h"
#include "lab.h"
#include "../sys/sys.h"

struct check_run {
    int problems;
    int unreadable;            /* files that could not be read: exit 2 */
    int lessons, steps, expects, quizzes, tasks, figures;
    const struct recording *rec;   /* --recording: quoted figures are checked against it */
    struct gpu *replay;            /* --recording: its replay, for the scenes' records */
    struct {
        char *id, *path;
    } *ids;
    int nids;
};

static void show_problem(const struct lesson_error *e, void *ctx)
{
    (void)ctx;  /* counted by check_one: past the cap problems are counted, not shown */
    /* names and values quoted from the file are escaped: a lesson cannot drive the terminal */
    char line[512];
    printf("%s\n", CLI_CLEAN(lesson_error_text(e, cli_lang(), line, sizeof line)));
}

/* --recording: every step's scene has a record that the tutorial's replay answers with (the
 * request the tutorial sends at the scene's defaults: the drawn access of its warp, and a case
 * kernel's run with every scene parameter); otherwise replay would show "no recorded
 * measurement" beside the step. Returns the number of problems. */
static int check_scene_records(struct check_run *r, const struct lesson *l)
{
    struct lesson_problems P = {l->path, show_problem, r, 0, NULL, 0};
    for (int i = 0; i < l->nsteps; i++) {
        const struct lesson_scene *s = l->steps[i].scene;
        if (!s || !s->code)
            continue;
        struct scene_run run = {0};
        struct bank_access acc;
        struct bank_result res;
        struct scene_in in = {.scene = s, .access = s->access, .warp = -1};
        if (scene_run(&run, &in, &acc, &res, NULL)) {   /* a broken scene: said already */
            scene_run_free(&run);
            continue;
        }
        scene_run_free(&run);
        struct gpu_request q;
        memset(&q, 0, sizeof q);
        q.want_timing = q.want_counters = 1;
        q.access = acc;
        int is_case = s->kernel && *s->kernel && strcmp(s->kernel, "pattern");
        q.kind = is_case ? GPU_REQ_CASE : GPU_REQ_PATTERN;
        if (is_case) {
            snprintf(q.case_name, sizeof q.case_name, "%s", s->kernel);
            for (int p = 0; p < s->nparams && p < GPU_CASE_MAX_PARAMS; p++) {
                snprintf(q.param_name[p], sizeof q.param_name[0], "%s", s->params[p].name);
                q.param_value[p] = s->params[p].def;
                q.nparams = p + 1;
            }
        }
        struct gpu_result out;
        gpu_run(r->replay, &q, &out, 1000);
        if (out.err.status == GPU_ENOTRECORDED)
            lesson_problem(&P, 0, NULL,
                           LP_SCENE_THE_RECORDING_HAS_NO_RECORD, i, is_case ? "case kernel " : "its drawn access",
                           is_case ? s->kernel : "", s->warp, s->access + 1);
    }
    return P.n;
}

static void usage(FILE *f);

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends path to the list; returns -1 when out of memory. */
static int add_path(char ***list, int *n, const char *path)
{
    char **nl = realloc(*list, (size_t)(*n + 1) * sizeof *nl);
    if (!nl)
        return -1;
    *list = nl;
    nl[*n] = strdup(path);
    if (!nl[*n])
        return -1;
    (*n)++;
    return 0;
}

/* Every *.json in dir, sorted. Returns the number added, or -1 if dir cannot be read. */
static int add_dir(char ***list, int *n, const char *dir)
{
    struct sys_dir *d = sys_dir_open(dir);
    if (!d)
        return -1;
    int first = *n, added = 0;
    const char *name;
    while ((name = sys_dir_next(d))) {
        size_t ln = strlen(name);
        if (name[0] == '.' || ln < 6 || strcmp(name + ln - 5, ".json"))
            continue;
        size_t need = strlen(dir) + ln + 2;
        char *p = malloc(need);
        if (!p)
            break;
        snprintf(p, need, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", name);
        int rc = add_path(list, n, p);
        free(p);
        if (rc)
            break;
        added++;
    }
    sys_dir_close(d);
    if (added > 1)
        qsort(*list + first, (size_t)added, sizeof **list, cmp_str);
    return added;
}

/* Reads all of stdin; NULL with err when it cannot (or it is larger than LESSON_FILE_MAX). */
static char *read_stdin(size_t *len, struct bl_err *err)
{
    struct bl_buf b = BL_BUF_MAX(LESSON_FILE_MAX);
    char *text = bl_buf_read_fd(&b, STDIN_FILENO) ? NULL : bl_buf_detach(&b, len);
    if (!text) {
        bl_buf_release(&b);
        bl_fail(err, EXIT_USAGE, BL_NOWHERE, CLI_STDIN_UNREADABLE, LESSON_FILE_MAX >> 20);
    }
    return text;
}

static void check_one(struct check_run *r, const char *path)
{
    r->lessons++;
    size_t len = 0;
    struct bl_err why = {0};
    char *data = strcmp(path, "-") ? files_read(path, LESSON_FILE_MAX, &len, &why)
                                   : read_stdin(&len, &why);
    path = strcmp(path, "-") ? path : "<stdin>";
    if (!data) {  /* exit 2: said on stderr, not among the problems */
        cli_tell("check", CLI_PATH_SAYS, CLI_CLEAN(path), CLI_ERR(&why));
        r->unreadable++;
        return;
    }
    int np = 0;
    struct lesson *l = lesson_load_partial(path, data, len, show_problem, r, &np);
    free(data);
    r->problems += np > 0 ? np : 0;
    if (!l)
        return;
    /* a lesson with problems comes back without the broken parts: the model still checks
     * the rest, so one run reports every problem in the file */
    for (int i = 0; i < l->nsteps; i++) {
        r->steps++;
        r->expects += l->steps[i].nexpects;
        r->quizzes += l->steps[i].quiz != NULL;
        r->tasks += l->steps[i].task != NULL;
        r->figures += l->steps[i].nfigures;
    }
    r->problems += lesson_check(l, show_problem, r);
    r->problems += lesson_check_text(l, show_problem, r);
    if (r->rec) {
        r->problems += recording_check_figures(r->rec, l, show_problem, r);
        if (r->replay)
            r->problems += check_scene_records(r, l);
    }
    if (!l->id) {
        lesson_free(l);
        return;
    }
    for (int k = 0; k < r->nids; k++)
        if (!strcmp(r->ids[k].id, l->id)) {
            struct lesson_problems P = {path, show_problem, r, 0, NULL, 0};
            lesson_problem(&P, 0, "id", LP_IS_ALSO_THE_ID_OF_LESSON_IDS_ARE_U,
                           l->id, r->ids[k].path);
            r->problems++;
            break;
        }
    void *nid = realloc(r->ids, (size_t)(r->nids + 1) * sizeof *r->ids);
    if (nid) {
        r->ids = nid;
        r->ids[r->nids].id = strdup(l->id);
        r->ids[r->nids].path = strdup(path);
        if (r->ids[r->nids].id && r->ids[r->nids].path)
            r->nids++;
        else {
            free(r->ids[r->nids].id);
            free(r->ids[r->nids].path);
        }
    }
    lesson_free(l);
}

/* What the command line asks for. */
struct check_opts {
    int quiet;
    const char *lessons_dir, *rec_path;
    const char **targets;        /* FILE|DIR|- arguments (pointers into argv) */
    int ntargets;
};

enum { OPT_LESSONS = CLI_KEY_FIRST };

static const struct cli_opt check_options[] = {
    {"quiet", 'q', NULL, CLI_OH_CHECK_QUIET, CLI_SET, 0, offsetof(struct check_opts, quiet), 0, 0},
    CLI_ROW("lessons", 0, "DIR", CLI_OH_CHECK_LESSONS, OPT_LESSONS),
    CLI_ROW_STR("recording", "FILE", CLI_OH_CHECK_RECORDING, struct check_opts, rec_path,
                CLI_E_RECORDING_NEEDS_FILE),
    CLI_ROW_HELP(CLI_OH_CHECK_HELP),
    CLI_ROW_TEXT(CLI_HT_CHECK_1),
    CLI_LANG_ROW(0),
    CLI_ROW_END};

static int check_opt(void *ctx, int key, const char *name, const char *val);

static const struct cli_cmd check_cmd = {"check", check_options, 0, CLI_UNKNOWN_OPTION_CHECK, NULL,
                                         usage, check_opt, 23, 1, 1};

static void usage(FILE *f)
{
    cli_say(f, CLI_HELP_CHECK);
    cli_opt_help(f, &check_cmd);
}

static int check_opt(void *ctx, int key, const char *name, const char *val)
{
    struct check_opts *o = ctx;
    (void)name;
    if (key == OPT_LESSONS) {
        if (!val)
            return cli_usage_error(&check_cmd, CLI_E_LESSONS_NEEDS_DIRECTORY);
        o->lessons_dir = val;
    } else {  /* FILE|DIR|- */
        const char **nt = realloc(o->targets, (size_t)(o->ntargets + 1) * sizeof *nt);
        if (!nt)
            return cli_usage_error(&check_cmd, CLI_E_OUT_MEMORY);
        o->targets = nt;
        o->targets[o->ntargets++] = val;
    }
    return 0;
}

/* One FILE|DIR|- into the list (a directory gives its *.json). 0, or EXIT_USAGE after a
 * message. */
static int add_target(char ***files, int *nfiles, const char *t)
{
    struct stat sb;
    int n;
    if (strcmp(t, "-") && stat(t, &sb) != 0) {
        cli_tell("check", CLI_F_NO_SUCH_FILE_OR_DIRECTORY, CLI_CLEAN(t));
        return EXIT_USAGE;
    }
    if (strcmp(t, "-") && S_ISDIR(sb.st_mode)) {
        if ((n = add_dir(files, nfiles, t)) > 0)
            return 0;
        cli_tell("check", CLI_PATH_SAYS, CLI_CLEAN(t),
                 cli_msg(n < 0 ? CLI_F_CANNOT_READ_DIR : CLI_F_NO_LESSON_FILES));
        return EXIT_USAGE;
    }
    if (!add_path(files, nfiles, t))
        return 0;
    cli_tell("check", CLI_F_OUT_MEMORY);
    return EXIT_USAGE;
}

/* The files to check: the targets, else the lessons directory. Returns 0, or EXIT_USAGE after
 * a message (the files found are still listed). */
static int collect_files(const struct check_opts *o, char ***files, int *nfiles)
{
    char dirbuf[4096];
    int status = 0;
    if (o->ntargets == 0) {
        const char *dir = lesson_find_dir(o->lessons_dir, dirbuf, sizeof dirbuf);
        if (dir)
            return add_target(files, nfiles, dir);  /* a directory, or --lessons FILE.json */
        if (o->lessons_dir)
            cli_tell("check", CLI_F_NO_SUCH_DIRECTORY_OR_LESSON,
                    CLI_CLEAN(o->lessons_dir));
        else
            cli_tell("check", CLI_F_NO_LESSONS_DIRECTORY_FOUND_TRIED,
                    BANKLAB_SHARE_DIR);
        return EXIT_USAGE;
    }
    for (int i = 0; i < o->ntargets; i++)
        status = add_target(files, nfiles, o->targets[i]) ? EXIT_USAGE : status;
    return status;
}

static void free_list(char **list, int n)
{
    for (int i = 0; i < n; i++)
        free(list[i]);
    free(list);
}

/* "checked N lessons, ...: all hold | P problems | not every file was read". */
static void print_summary(const struct check_run *r, int figures, int complete)
{
    cli_say(stdout, CHK_SUMMARY, r->lessons, r->lessons == 1 ? "" : "s", r->steps,
            r->steps == 1 ? "" : "s", r->expects, r->expects == 1 ? "" : "s", r->quizzes,
            r->quizzes == 1 ? "" : "zes");
    if (figures)
        cli_say(stdout, CHK_FIGURES, r->figures, r->figures == 1 ? "" : "s");
    if (r->problems)
        cli_say(stdout, CHK_PROBLEMS, r->problems, r->problems == 1 ? "" : "s");
    else if (!complete)
        cli_say(stdout, CHK_NOT_EVERY_FILE);  /* never "all hold" next to an error */
    else
        cli_say(stdout, CHK_ALL_HOLD);
}

int cmd_check(int argc, char **argv)
{
    struct check_opts o;
    memset(&o, 0, sizeof o);
    int status = cli_parse(&check_cmd, argc, argv, &o, NULL);
    if (status) {
        free(o.targets);
        return status < 0 ? 0 : status;
    }
    char **files = NULL;
    int nfiles = 0;
    status = collect_files(&o, &files, &nfiles);
    free(o.targets);

    lab_locale();   /* a UTF-8 LC_CTYPE where one exists: text widths as the tutorial's */
    struct check_run r;
    memset(&r, 0, sizeof r);
    struct recording rec;
    memset(&rec, 0, sizeof rec);
    struct bl_err err = {0};
    if (o.rec_path && recording_load_file(o.rec_path, &rec, &err)) {
        cli_tell("check", BL_TEXT, CLI_CLEAN(CLI_ERR(&err)));
        free_list(files, nfiles);
        return EXIT_USAGE;
    }
    r.rec = o.rec_path ? &rec : NULL;
    struct gpu_info info;
    r.replay = r.rec ? recording_open_replay(&rec, &info) : NULL;
    for (int i = 0; i < nfiles; i++)
        check_one(&r, files[i]);
    gpu_close(r.replay);
    if (r.rec)
        recording_done(&rec);
    if (!o.quiet)
        print_summary(&r, o.rec_path != NULL, !(status != 0 || r.unreadable || nfiles == 0));
    fflush(stdout);
    free_list(files, nfiles);
    for (int k = 0; k < r.nids; k++) {
        free(r.ids[k].id);
        free(r.ids[k].path);
    }
    free(r.ids);
    if (r.unreadable || nfiles == 0)
        status = EXIT_USAGE;
    if (status)
        return status;
    return r.problems ? EXIT_CHECK : 0;
}
