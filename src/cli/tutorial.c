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
#include "../gpu/gpu_kernel.h"
#include "../store/files.h"
#include "../lesson/lesson.h"
#include "../ui/ui.h"
#include "cli.h"

#define MAX_KERNEL_OPTS 32

static void usage(FILE *f)
{
    fprintf(f,
            "usage: banklab [OPTIONS]\n"
            "       banklab FILE.cu [LAUNCH OPTIONS] [OPTIONS]\n"
            "Start (or resume) the interactive tutorial on CUDA shared-memory bank conflicts;\n"
            "with FILE.cu, on the kernel view of that file: its shared-memory wavefronts and\n"
            "conflicts per line, measured on the GPU and measured again when it is saved.\n"
            "\n"
            "  --lessons DIR|FILE   lesson directory or one lesson file (default: $BANKLAB_LESSONS,\n"
            "                       installed, ./lessons); lessons that banklab check refuses\n"
            "                       are listed and not shown\n"
            "  --lang zh|en         language (default: saved choice, else zh when LC_ALL/LC_MESSAGES/LANG\n"
            "                       starts with zh, else en; English when the locale is not UTF-8)\n"
            "  --chapter N          start at chapter N ...\n"
            "  --step M             ... step M (1-based; with --chapter)\n"
            "  --reset              forget the progress saved so far (from the first save on)\n"
            "  --ascii              ASCII glyphs instead of Unicode box drawing\n"
            "  --no-color           no colours (NO_COLOR=1 does the same); glyphs still mark conflicts\n"
            "  --device N           use CUDA device N (default 0)\n"
            "  --server SOCKET      measure on the GPU server there (banklab serve; also\n"
            "                       BANKLAB_SERVER; from a laptop: ssh -L, docs/teaching.md)\n"
            "  --no-server          measure in this process (also BANKLAB_NO_SERVER=1)\n"
            "  --replay FILE        show measurements recorded by `banklab bench/verify --json`\n"
            "  --present            presenter mode: large cells, key sentences, e reveals;\n"
            "                       starts clean: saved progress is neither shown nor changed\n"
            "  --keep-progress      with --present: use (and save) the saved progress\n"
            "  -h, --help           this help\n"
            "\n"
            "Launch options of FILE.cu (as banklab kernel takes them; they add to its\n"
            "// banklab: comment): --name K, --grid X[xY[xZ]], --block X[xY[xZ]], --smem BYTES,\n"
            "--arg NAME=VALUE, --buffer-size [NAME=]BYTES, --fill float|int|zero, --time-limit S.\n"
            "\n");
    cli_print_keys(f, "Keys: ", ". Lessons add their parameter keys (e.g. p/P).");
    fprintf(f, "Environment: BANKLAB_LESSONS, BANKLAB_EXPORT_DIR, BANKLAB_TIMING, NO_COLOR,\n"
               "XDG_STATE_HOME (progress in $XDG_STATE_HOME/banklab/progress.json).\n");
}

static int int_arg(const char *opt, const char *v, int lo, int hi, int *out)
{
    long long x;
    if (cli_int_arg(NULL, opt, v, lo, hi, &x))
        return -1;
    *out = (int)x;
    return 0;
}

/* a launch option of banklab kernel (not --device: the tutorial has its own) */
static int is_launch_option(const char *a)
{
    static const char *const opts[] = {"--name", "--grid", "--block", "--smem", "--arg",
                                       "--buffer-size", "--fill", "--time-limit", NULL};
    for (int i = 0; opts[i]; i++)
        if (!strcmp(a, opts[i]))
            return 1;
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
        fprintf(stderr, "banklab: %s: %s\n", CLI_CLEAN(file), e.msg);
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
    struct ui_options o;
    memset(&o, 0, sizeof o);
    o.t_start = bl_now_ms();
    o.lang = -1;
    int device = 0;
    const char *replay = NULL;
    const char *kopt[MAX_KERNEL_OPTS], *kval[MAX_KERNEL_OPTS];
    int nk = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (a[0] != '-') {
            if (o.kernel_file) {
                fprintf(stderr, "banklab: one kernel file at a time ('%s', then '%s')\n",
                        CLI_CLEAN(o.kernel_file), CLI_CLEAN(a));
                return EXIT_USAGE;
            }
            o.kernel_file = a;
        } else if (is_launch_option(a)) {
            if (!v || nk == MAX_KERNEL_OPTS) {
                fprintf(stderr, "banklab: %s\n", v ? "too many launch options" : "a launch "
                        "option needs a value");
                return EXIT_USAGE;
            }
            kopt[nk] = a;
            kval[nk++] = v;
            i++;
        } else if (!strcmp(a, "--lessons")) {
            if (!v) { fprintf(stderr, "banklab: --lessons needs a directory or a file\n"); return EXIT_USAGE; }
            o.lessons_dir = v;
            i++;
        } else if (!strcmp(a, "--lang")) {
            enum lesson_lang lang;
            if (lesson_lang_parse(v, &lang) != 0) {
                fprintf(stderr, "banklab: --lang takes zh or en\n");
                return EXIT_USAGE;
            }
            o.lang = lang;
            i++;
        } else if (!strcmp(a, "--chapter")) {
            if (int_arg(a, v, 1, 99, &o.chapter)) return EXIT_USAGE;
            i++;
        } else if (!strcmp(a, "--step")) {
            if (int_arg(a, v, 1, 1000, &o.step)) return EXIT_USAGE;
            i++;
        } else if (!strcmp(a, "--device")) {
            if (int_arg(a, v, 0, CLI_DEVICE_MAX, &device)) return EXIT_USAGE;
            i++;
        } else if (!strcmp(a, "--server") || !strcmp(a, "--no-server")) {
            if (cli_server_arg(NULL, argc, argv, &i, &o.server, &o.no_server) < 0)
                return EXIT_USAGE;
        } else if (!strcmp(a, "--replay")) {
            if (!v) { fprintf(stderr, "banklab: --replay needs a file\n"); return EXIT_USAGE; }
            replay = v;
            i++;
        } else if (!strcmp(a, "--reset")) {
            o.reset = 1;
        } else if (!strcmp(a, "--ascii")) {
            o.ascii = 1;
        } else if (!strcmp(a, "--no-color") || !strcmp(a, "--no-colour")) {
            o.no_color = 1;
        } else if (!strcmp(a, "--present")) {
            o.present = 1;
        } else if (!strcmp(a, "--keep-progress")) {
            o.keep_progress = 1;
        } else {
            fprintf(stderr, "banklab: unknown option '%s' (banklab --help lists them)\n",
                    CLI_CLEAN(a));
            return EXIT_USAGE;
        }
    }
    if (o.step && !o.chapter) {
        fprintf(stderr, "banklab: --step needs --chapter\n");
        return EXIT_USAGE;
    }
    if (o.keep_progress && !o.present) {
        fprintf(stderr, "banklab: --keep-progress goes with --present\n");
        return EXIT_USAGE;
    }
    if (nk && !o.kernel_file) {
        fprintf(stderr, "banklab: %s is a launch option of a kernel file (banklab FILE.cu "
                "%s ...)\n", kopt[0], kopt[0]);
        return EXIT_USAGE;
    }
    if (o.kernel_file && check_kernel(o.kernel_file, nk, kopt, kval))
        return EXIT_USAGE;
    o.kernel_nopts = nk;
    o.kernel_opt = kopt;
    o.kernel_val = kval;
    struct gpu_info info;
    struct gpu *g = NULL;
    memset(&info, 0, sizeof info);
    o.device = device;
    if (replay && !(g = cli_open_replay(NULL, replay, &info)))
        return EXIT_USAGE;
    /* without --replay the UI opens the device itself, after its first frame */
    int rc = ui_run(&o, g, &info);
    gpu_close(g);
    return rc;
}
