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

static void usage(FILE *f)
{
    fprintf(f,
            "usage: banklab report [--out DIR] [--format md|json|both] [OPTIONS]\n"
            "\n"
            "Write the lab report banklab-report-<date>.md and/or .json: quiz results, graded\n"
            "task score, the patterns explored with predicted vs measured numbers, the device.\n"
            "Nothing is written outside DIR.\n"
            "\n"
            "  --out DIR            directory for the report (default: the current directory)\n"
            "  --format md|json|both  which files (default: both)\n"
            "  --progress FILE      progress file (default: $XDG_STATE_HOME/banklab/progress.json)\n"
            "  --lessons DIR        lessons, for titles and totals (default: as the tutorial)\n"
            "  --lang zh|en         language of lesson titles (default: saved, else the locale)\n"
            "  --learner NAME       name to put on the report (default: none)\n"
            "  --no-gpu             do not look for a GPU (device: model only)\n"
            "  --device N           CUDA device to name (default 0)\n"
            "  -h, --help           this help\n"
            "\n"
            "Prints the paths written. Exit status: 0 written, 2 bad usage, unreadable progress\n"
            "or a directory that cannot be written.\n");
}

static void lesson_report(const struct lesson_error *e, void *ctx)
{
    (void)ctx;
    char line[512];
    fprintf(stderr, "banklab report: warning: %s (skipped)\n",
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

/* The option values that need checking: --format, --learner (text for both files: UTF-8,
 * one line, no control characters), --lang. Returns 0, or EXIT_USAGE after a message. */
static int check_options(struct report_opts *o)
{
    if (!strcmp(o->format, "md"))
        o->formats = REPORT_MD;
    else if (!strcmp(o->format, "json"))
        o->formats = REPORT_JSON;
    else if (!strcmp(o->format, "both"))
        o->formats = REPORT_BOTH;
    else {
        fprintf(stderr, "banklab report: --format is md, json or both, not '%s'\n",
                CLI_CLEAN(o->format));
        return EXIT_USAGE;
    }
    unsigned cp = 0;
    if (o->learner && bl_utf8_bad(o->learner, strlen(o->learner)) != SIZE_MAX) {
        fprintf(stderr, "banklab report: --learner is not UTF-8 text: '%s'\n",
                CLI_CLEAN(o->learner));
        return EXIT_USAGE;
    }
    if (o->learner && bl_utf8_control(o->learner, NULL, &cp) != SIZE_MAX) {
        fprintf(stderr, "banklab report: --learner holds control character U+%04X: '%s'\n", cp,
                CLI_CLEAN(o->learner));
        return EXIT_USAGE;
    }
    enum lesson_lang lang;
    if (o->lang_opt && lesson_lang_parse(o->lang_opt, &lang) != 0) {
        fprintf(stderr, "banklab report: --lang is zh or en, not '%s'\n", CLI_CLEAN(o->lang_opt));
        return EXIT_USAGE;
    }
    return 0;
}

/* Reads and checks the options into o. Returns 0, 1 after --help, or EXIT_USAGE after a
 * message. */
static int parse_options(int argc, char **argv, struct report_opts *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **dst = NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 1;
        } else if (!strcmp(a, "--no-gpu")) {
            o->no_gpu = 1;
            continue;
        } else if (!strcmp(a, "--out")) {
            dst = &o->out;
        } else if (!strcmp(a, "--format")) {
            dst = &o->format;
        } else if (!strcmp(a, "--progress")) {
            dst = &o->progress_path;
        } else if (!strcmp(a, "--lessons")) {
            dst = &o->lessons;
        } else if (!strcmp(a, "--lang")) {
            dst = &o->lang_opt;
        } else if (!strcmp(a, "--learner")) {
            dst = &o->learner;
        } else if (!strcmp(a, "--device")) {
            long long v;
            if (cli_int_arg("report", "--device", i + 1 < argc ? argv[++i] : NULL, 0,
                            CLI_DEVICE_MAX, &v))
                return EXIT_USAGE;
            o->device = (int)v;
            continue;
        } else {
            fprintf(stderr, "banklab report: unknown option '%s' (banklab report --help)\n",
                    CLI_CLEAN(a));
            return EXIT_USAGE;
        }
        if (i + 1 >= argc || !argv[i + 1][0]) {
            fprintf(stderr, "banklab report: %s wants a value\n", a);
            return EXIT_USAGE;
        }
        *dst = argv[++i];
    }
    return check_options(o);
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
    if (report_write_dir(o->out, o->formats, p, set, pick_lang(o->lang_opt, p->lang), &meta,
                         written, sizeof written, &err) < 0) {
        fprintf(stderr, "banklab report: %s\n", CLI_CLEAN(err.msg));
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
    int rc = parse_options(argc, argv, &o);
    if (rc)
        return rc == 1 ? 0 : rc;
    char pbuf[4096];
    if (!o.progress_path && !(o.progress_path = progress_default_path(pbuf, sizeof pbuf))) {
        fprintf(stderr, "banklab report: neither XDG_STATE_HOME nor HOME is set; "
                        "name the progress file with --progress\n");
        return EXIT_USAGE;
    }
    struct progress *p = malloc(sizeof *p);
    if (!p) {
        fprintf(stderr, "banklab report: out of memory\n");
        return EXIT_USAGE;
    }
    struct bl_err err = {0};
    if (progress_read(o.progress_path, p, &err) < 0) {
        fprintf(stderr, "banklab report: progress file %s is unusable (%s); the tutorial moves it "
                        "aside at its next start\n", CLI_CLEAN(o.progress_path), CLI_CLEAN(err.msg));
        free(p);
        return EXIT_USAGE;
    }
    /* lessons give titles and totals; without them the report still lists what was saved */
    struct lesson_set set = {0};
    int have_set = 0;
    char dbuf[4096];
    const char *dir = lesson_find_dir(o.lessons, dbuf, sizeof dbuf);
    if (o.lessons && !dir) {
        fprintf(stderr, "banklab report: lesson directory %s not found\n", CLI_CLEAN(o.lessons));
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
