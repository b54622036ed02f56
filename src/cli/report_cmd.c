/* report_cmd.c: `banklab report`: the learner's lab report (Markdown and/or JSON) from saved
 * progress, the lessons and the device, written into one directory (default: the current one).
 * Reads the progress file without changing it. Uses store/report, store/progress, gpu.h. */
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "../gpu/gpu.h"
#include "../lesson/lesson.h"
#include "../store/lesson_load.h"
#include "../store/progress.h"
#include "../store/report.h"
#include "cli.h"
#include "../runner/runner.h"

static const struct cli_cmd report_cmd;  /* its options, below */

static void usage(FILE *f)
{
    cli_say(f, CLI_HELP_REPORT);
    cli_opt_help(f, &report_cmd);
}

static void lesson_report(const struct lesson_error *e, void *ctx)
{
    (void)ctx;
    char line[512];
    cli_tell("report", CLI_F_WARNING_SKIPPED,
            CLI_CLEAN(lesson_error_line(e, line, sizeof line)));
}

static enum lesson_lang pick_lang(const char *opt, const char *saved)
{
    enum lesson_lang lang;
    if (opt)  /* checked: zh or en */
        return lesson_lang_parse(opt, &lang) == 0 ? lang : LANG_EN;
    if (lesson_lang_parse(saved, &lang) == 0)
        return lang;
    if (lesson_lang_from_env() == LANG_ZH)
        return LANG_ZH;
    const char *loc = setlocale(LC_MESSAGES, NULL);
    if (loc && !strncmp(loc, "zh", 2))
        return LANG_ZH;
    return LANG_EN;
}

/* What the command line asks for. */
struct report_opts {
    const char *out, *format, *progress_path, *lessons, *lang_opt, *learner;
    int no_gpu, device, formats;
};

static int report_opt(void *ctx, int key, const char *name, const char *val);

/* The option values that need checking: --format, --learner (text for both files: UTF-8,
 * one line, no control characters), --lang. Returns 0, or EXIT_USAGE after a message. */
static int check_options(struct report_opts *o)
{
    static const struct {
        const char *name;
        int formats;
    } formats[] = {{"md", REPORT_MD}, {"json", REPORT_JSON}, {"both", REPORT_BOTH}};
    for (size_t i = 0; i < sizeof formats / sizeof formats[0] && !o->formats; i++)
        o->formats = strcmp(o->format, formats[i].name) ? 0 : formats[i].formats;
    if (!o->formats)
        return cli_usage_error(&report_cmd, CLI_E_FORMAT_IS_MD_JSON_OR,
                               CLI_CLEAN(o->format));
    unsigned cp = 0;
    const char *l = o->learner;
    if (l && bl_utf8_bad(l, strlen(l)) != SIZE_MAX)
        return cli_usage_error(&report_cmd, CLI_E_LEARNER_IS_NOT_UTF_TEXT, CLI_CLEAN(l));
    if (l && bl_utf8_control(l, NULL, &cp) != SIZE_MAX)
        return cli_usage_error(&report_cmd, CLI_E_LEARNER_HOLDS_CONTROL_CHARACTER,
                               cp, CLI_CLEAN(l));
    enum lesson_lang lang;
    if (o->lang_opt && lesson_lang_parse(o->lang_opt, &lang) != 0)
        return cli_usage_error(&report_cmd, CLI_E_LANG_IS_ZH_OR_EN, CLI_CLEAN(o->lang_opt));
    return 0;
}

enum { OPT_OUT = CLI_KEY_FIRST, OPT_FORMAT, OPT_PROGRESS, OPT_LESSONS, OPT_LANG, OPT_LEARNER,
       OPT_NO_GPU };

static const struct cli_opt report_options[] = {
    CLI_ROW("out", 0, "DIR", CLI_OH_REPORT_OUT, OPT_OUT),
    CLI_ROW("format", 0, "md|json|both", CLI_OH_REPORT_FORMAT, OPT_FORMAT),
    CLI_ROW("progress", 0, "FILE", CLI_OH_REPORT_PROGRESS, OPT_PROGRESS),
    CLI_ROW("lessons", 0, "DIR", CLI_OH_REPORT_LESSONS, OPT_LESSONS),
    CLI_LANG_OPT_ROW(CLI_OH_REPORT_LANG, OPT_LANG),
    CLI_ROW("learner", 0, "NAME", CLI_OH_REPORT_LEARNER, OPT_LEARNER),
    CLI_NO_GPU_ROW(CLI_OH_REPORT_NO_GPU, OPT_NO_GPU),
    CLI_DEVICE_ROW(CLI_OH_REPORT_DEVICE),
    CLI_ROW_HELP(CLI_OH_REPORT_HELP),
    CLI_ROW_TEXT(CLI_HT_REPORT_1),
    CLI_ROW_END};

static const struct cli_cmd report_cmd = {"report", report_options, 0, CLI_UNKNOWN_OPTION_REPORT, NULL,
    usage, report_opt, 23, 2, 0};

static int report_opt(void *ctx, int key, const char *name, const char *val)
{
    struct report_opts *o = ctx;
    if (key == OPT_NO_GPU) {
        o->no_gpu = 1;
        return 0;
    }
    if (key == CLI_DEVICE)
        return cli_int_opt(&report_cmd, name, val, 0, CLI_DEVICE_MAX, &o->device);
    const char **dst = key == OPT_OUT ? &o->out : key == OPT_FORMAT ? &o->format
                     : key == OPT_PROGRESS ? &o->progress_path : key == OPT_LESSONS ? &o->lessons
                     : key == OPT_LANG ? &o->lang_opt : key == OPT_LEARNER ? &o->learner : NULL;
    if (!dst)  /* an argument */
        return cli_usage_error(&report_cmd, report_cmd.unknown, CLI_CLEAN(val));
    if (!val || !*val)
        return cli_usage_error(&report_cmd, CLI_E_WANTS_VALUE, name);
    *dst = val;
    return 0;
}

/* The report's meta data: the learner, and the device when a GPU answers. */
static struct report_meta meta_of(const struct report_opts *o, struct gpu_info *info)
{
    struct report_meta meta = {0};
    meta.learner = o->learner;
    memset(info, 0, sizeof *info);
    if (!o->no_gpu) {
        struct gpu *g = gpu_open(o->device, info);
        if (info->available) {
            meta.device = info->device;
            meta.backend = gpu_backend_name(info->backend);
        }
        gpu_close(g);
    }
    if (!meta.backend)
        meta.backend = "none";
    return meta;
}

/* Writes the report(s) and prints the paths written. Returns 0, or EXIT_USAGE. */
static int write_report(const struct report_opts *o, const struct progress *p,
                        const struct lesson_set *set)
{
    struct gpu_info info;
    struct report_meta meta = meta_of(o, &info);
    char written[8400];
    struct bl_err err = {0};
    enum lesson_lang lang = pick_lang(o->lang_opt, p->lang);
    cli_set_lang(lang == LANG_ZH ? BL_LANG_ZH : BL_LANG_EN);
    if (report_write_dir(o->out, o->formats, p, set, lang, &meta, written, sizeof written,
                         &err) < 0) {
        char buf[BL_ERR_TEXT * 2];
        fprintf(stderr, "banklab report: %s\n",
                CLI_CLEAN(cli_err_text(&err, lang == LANG_ZH, buf, sizeof buf)));
        return EXIT_USAGE;
    }
    for (char *line = written, *nl; line; line = nl ? nl + 1 : NULL) {
        if ((nl = strchr(line, '\n')))
            *nl = 0;
        printf("%s\n", CLI_CLEAN(line));  /* one path a line */
    }
    return 0;
}

int cmd_report(int argc, char **argv)
{
    struct report_opts o = {.out = ".", .format = "both"};
    int rc = cli_parse(&report_cmd, argc, argv, &o, NULL);
    if (!rc)
        rc = check_options(&o);
    if (rc)
        return rc < 0 ? 0 : rc;
    char pbuf[4096];
    if (!o.progress_path && !(o.progress_path = progress_default_path(pbuf, sizeof pbuf))) {
        cli_tell("report", CLI_F_NEITHER_XDG_STATE_HOME_NOR);
        return EXIT_USAGE;
    }
    struct progress *p = malloc(sizeof *p);
    if (!p) {
        cli_tell("report", CLI_F_OUT_MEMORY);
        return EXIT_USAGE;
    }
    struct bl_err err = {0};
    if (progress_read(o.progress_path, p, &err) < 0) {
        cli_tell("report", CLI_F_PROGRESS_FILE_IS_UNUSABLE_TUTORIAL, CLI_CLEAN(o.progress_path), CLI_CLEAN(CLI_ERR(&err)));
        free(p);
        return EXIT_USAGE;
    }
    /* lessons give titles and totals; without them the report still lists what was saved */
    struct lesson_set set = {0};
    int have_set = 0;
    char dbuf[4096];
    const char *dir = lesson_find_dir(o.lessons, dbuf, sizeof dbuf);
    if (o.lessons && !dir) {
        cli_tell("report", CLI_F_LESSON_DIRECTORY_NOT_FOUND, CLI_CLEAN(o.lessons));
        free(p);
        return EXIT_USAGE;
    }
    if (dir)
        have_set = lesson_set_load_dir(&set, dir, lesson_report, NULL) == 0;
    rc = write_report(&o, p, have_set ? &set : NULL);
    if (have_set)
        lesson_set_done(&set);
    free(p);
    return rc;
}
