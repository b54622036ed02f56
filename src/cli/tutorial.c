/* tutorial.c: `banklab [OPTIONS]` with no subcommand: parses the tutorial's options, opens the
 * GPU runner (a device, or a recording for --replay) and hands over to the UI (src/ui/ui.h).
 * `banklab FILE.cu [LAUNCH OPTIONS]` starts it on the kernel view of that file; the file and
 * its options are checked here, before the terminal is taken. No curses here: the terminal
 * belongs to src/ui. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/err.h"
#include "../gpu/gpu.h"
#include "../kernel/kernel.h"
#include "../store/files.h"
#include "../lesson/lesson.h"
#include "../ui/ui.h"
#include "../store/krecord.h"
#include "cli.h"
#include "../sys/sys.h"

#define MAX_KERNEL_OPTS 32

#define SUMMARY(name, summary) fprintf(f, "  %-8s %s\n", #name, cli_msg(summary));

static const struct cli_cmd tutorial_cmd;  /* its options, below */

/* banklab --help: the forms, the commands, the tutorial's options and keys. */
static void usage(FILE *f)
{
    cli_say(f, CLI_HELP_TUT_1);
    CLI_COMMANDS(SUMMARY)
    cli_say(f, CLI_HELP_TUT_2);
    cli_opt_help(f, &tutorial_cmd);
    cli_print_keys(f, cli_msg(CLI_HELP_KEYS_LEAD), cli_msg(CLI_HELP_KEYS_TAIL));
    cli_say(f, CLI_HELP_TUT_3);
}

/* The options as read, for ui_run. */
struct tut_opts {
    struct ui_options ui;
    const char *replay;
    char kopt[MAX_KERNEL_OPTS][16];  /* launch options of the kernel file */
    const char *kopt_at[MAX_KERNEL_OPTS], *kval[MAX_KERNEL_OPTS];
    int nk;
};

enum { OPT_LESSONS = CLI_KEY_FIRST, OPT_LANG, OPT_CHAPTER, OPT_STEP, OPT_RESET, OPT_ASCII,
       OPT_NO_COLOR, OPT_PRESENT, OPT_KEEP_PROGRESS, OPT_MEASURED };

static const struct cli_opt tutorial_options[] = {
    CLI_ROW("lessons", 0, "DIR|FILE", CLI_OH_TUT_LESSONS, OPT_LESSONS),
    CLI_LANG_OPT_ROW(CLI_OH_TUT_LANG, OPT_LANG),
    CLI_ROW("chapter", 0, "N", CLI_OH_TUT_CHAPTER, OPT_CHAPTER),
    CLI_ROW("step", 0, "M", CLI_OH_TUT_STEP, OPT_STEP),
    CLI_ROW("reset", 0, NULL, CLI_OH_TUT_RESET, OPT_RESET),
    CLI_ROW("ascii", 0, NULL, CLI_OH_TUT_ASCII, OPT_ASCII),
    CLI_ROW("no-color", 0, NULL, CLI_OH_TUT_NO_COLOR, OPT_NO_COLOR),
    CLI_MEASURE_ROWS(CLI_OH_TUT_DEVICE, CLI_OH_TUT_SERVER, CLI_OH_TUT_NO_SERVER,
                     CLI_OH_TUT_REPLAY, CLI_OH_TUT_MODEL_ONLY),
    CLI_ROW("measured", 0, "FILE", CLI_OH_TUT_MEASURED, OPT_MEASURED),
    CLI_ROW("present", 0, NULL, CLI_OH_TUT_PRESENT, OPT_PRESENT),
    CLI_ROW("keep-progress", 0, NULL, CLI_OH_TUT_KEEP_PROGRESS, OPT_KEEP_PROGRESS),
    CLI_ROW_HELP(CLI_OH_TUT_HELP),
    CLI_ROW_TEXT(CLI_HT_TUT_1),
    CLI_ROW_LAUNCH(GPU_KOPT_PICK | GPU_KOPT_SHAPE | GPU_KOPT_LIMIT, 0),
    CLI_ROW("no-colour", 0, NULL, 0, OPT_NO_COLOR),
    CLI_ROW_END};

static int tutorial_opt(void *ctx, int key, const char *name, const char *val);

static const struct cli_cmd tutorial_cmd = {NULL, tutorial_options, 0, CLI_UNKNOWN_OPTION_TUT, NULL,
    usage, tutorial_opt, 23, 2, 0};

/* The options with a value that is not a launch option's: where each goes. */
static int value_opt(struct tut_opts *t, int key, const char *name, const char *val)
{
    struct ui_options *o = &t->ui;
    enum lesson_lang lang;
    switch (key) {
    case OPT_LESSONS:
        if (!val)
            return cli_usage_error(&tutorial_cmd, CLI_E_LESSONS_NEEDS_DIRECTORY_OR_FILE);
        o->lessons_dir = val;
        return 0;
    case OPT_LANG:
        if (lesson_lang_parse(val, &lang) != 0)
            return cli_usage_error(&tutorial_cmd, CLI_E_LANG_TAKES_ZH_OR_EN);
        o->lang = lang;
        return 0;
    case CLI_REPLAY:
        if (!val)
            return cli_usage_error(&tutorial_cmd, CLI_E_REPLAY_NEEDS_FILE);
        t->replay = val;
        return 0;
    case OPT_MEASURED:
        if (!val)
            return cli_usage_error(&tutorial_cmd, CLI_E_MEASURED_NEEDS_FILE);
        o->kernel_measured = val;
        return 0;
    }
    if (key == OPT_CHAPTER)
        return cli_int_opt(&tutorial_cmd, name, val, 1, 99, &o->chapter);
    if (key == OPT_STEP)
        return cli_int_opt(&tutorial_cmd, name, val, 1, 1000, &o->step);
    return cli_int_opt(&tutorial_cmd, name, val, 0, CLI_DEVICE_MAX, &o->device);
}

static int tutorial_opt(void *ctx, int key, const char *name, const char *val)
{
    struct tut_opts *t = ctx;
    struct ui_options *o = &t->ui;
    int *flag[] = {&o->reset, &o->ascii, &o->no_color, &o->present, &o->keep_progress};
    if (key >= OPT_RESET && key <= OPT_KEEP_PROGRESS) {
        *flag[key - OPT_RESET] = 1;
    } else if (key == CLI_MODEL_ONLY) {
        o->model_only = 1;
    } else if (key == CLI_SERVER || key == CLI_NO_SERVER) {
        return cli_server_opt(&tutorial_cmd, key, val, &o->server, &o->no_server);
    } else if (key == CLI_LAUNCH) {
        if (!val || t->nk == MAX_KERNEL_OPTS)
            return cli_usage_error(&tutorial_cmd, val ? CLI_E_TOO_MANY_LAUNCH
                                                            : CLI_E_LAUNCH_NEEDS_VALUE);
        snprintf(t->kopt[t->nk], sizeof t->kopt[0], "%s", name);
        t->kopt_at[t->nk] = t->kopt[t->nk];
        t->kval[t->nk++] = val;
    } else if (key == CLI_ARG || key == CLI_REST) {
#define CMD_NAME(name, summary) #name,
        static const char *const commands[] = {CLI_COMMANDS(CMD_NAME)};
#undef CMD_NAME
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
            if (!strcmp(val, commands[i]))   /* banklab --lang zh sim ...: the command goes first */
                return cli_usage_error(&tutorial_cmd, CLI_E_COMMAND_FIRST, val, val);
        if (o->kernel_file)
            return cli_usage_error(&tutorial_cmd, CLI_E_ONE_KERNEL_FILE_AT_TIME,
                                   CLI_CLEAN(o->kernel_file), CLI_CLEAN(val));
        o->kernel_file = val;
    } else {
        return value_opt(t, key, name, val);
    }
    return 0;
}

/* banklab FILE.cu: the file must be readable and its options good before the screen starts */
static int check_kernel(const char *file, int nopts, const char *const *opt,
                        const char *const *val)
{
    char why[256];
    struct bl_err e = {0};
    size_t len;
    char *src = files_read(file, GPU_KERNEL_MAX_SOURCE, &len, &e);
    if (!src) {
        cli_tell(NULL, CLI_PATH_SAYS, CLI_CLEAN(file), CLI_ERR(&e));
        return -1;
    }
    free(src);
    struct gpu_kernel_request req;
    gpu_kernel_request_init(&req);
    for (int i = 0; i < nopts; i++)
        if (gpu_kernel_option(&req, opt[i], val[i], why, sizeof why) != 1) {
            fprintf(stderr, "banklab: %s\n", CLI_CLEAN(why));
            return -1;
        }
    return 0;
}

int cmd_tutorial(int argc, char **argv)
{
    static struct tut_opts t;
    struct ui_options *o = &t.ui;
    memset(&t, 0, sizeof t);
    o->t_start = bl_now_ms();
    o->lang = -1;
    const char *mo = sys_env("BANKLAB_MODEL_ONLY");
    o->model_only = mo && *mo && strcmp(mo, "0");
    int rc = cli_parse(&tutorial_cmd, argc, argv, &t, NULL);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (o->step && !o->chapter)
        return cli_usage_error(&tutorial_cmd, CLI_E_STEP_NEEDS_CHAPTER);
    if (o->keep_progress && !o->present)
        return cli_usage_error(&tutorial_cmd, CLI_E_KEEP_PROGRESS_GOES_WITH_PRESENT);
    if (t.nk && !o->kernel_file)
        return cli_usage_error(&tutorial_cmd, CLI_E_IS_LAUNCH_OPTION_KERNEL_FILE, t.kopt[0], t.kopt[0]);
    if (o->kernel_file && check_kernel(o->kernel_file, t.nk, t.kopt_at, t.kval))
        return EXIT_USAGE;
    if (o->kernel_measured && !o->kernel_file)
        return cli_usage_error(&tutorial_cmd, CLI_E_MEASURED_NEEDS_KERNEL);
    if (o->kernel_measured) {   /* a recording of no launch of the file is refused here */
        struct gpu_kernel_result rec;
        struct bl_err err = {0};
        if (krec_read(o->kernel_measured, o->kernel_file, "", &rec, &err)) {
            cli_tell(NULL, CLI_E_MEASURED_REFUSED, CLI_ERR(&err));
            return EXIT_USAGE;
        }
        gpu_kernel_result_done(&rec);
    }
    o->kernel_nopts = t.nk;
    o->kernel_opt = t.kopt_at;
    o->kernel_val = t.kval;
    struct gpu_info info;
    struct gpu *g = NULL;
    memset(&info, 0, sizeof info);
    if (t.replay && !(g = cli_open_replay(NULL, t.replay, &info)))
        return EXIT_USAGE;
    /* without --replay the UI opens the device itself, after its first frame */
    rc = ui_run(o, g, &info);
    gpu_close(g);
    return rc;
}
