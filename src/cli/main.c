/* main.c: `banklab` entry point. Dispatches to a subcommand, or starts the tutorial when the
 * first argument is not one. Only wiring lives here. */
#include <stdio.h>
#include <string.h>

#include "../gpu/gpu_kernel.h"
#include "cli.h"

#define ROW(name, summary) {#name, cmd_##name, summary},
static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {CLI_COMMANDS(ROW)};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: banklab [OPTIONS]            start (or resume) the tutorial\n"
            "       banklab FILE.cu [OPTIONS]    the tutorial on the kernel view of FILE.cu\n"
            "       banklab COMMAND [ARGS]       run a command; banklab COMMAND --help for its options\n"
            "\n"
            "banklab teaches and measures CUDA shared-memory bank conflicts.\n"
            "\n"
            "Commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(f,
            "\n"
            "Tutorial options (see also man banklab):\n"
            "  --lessons DIR        lesson directory (default: $BANKLAB_LESSONS, installed, ./lessons)\n"
            "  --lang zh|en         language (default: from the locale)\n"
            "  --chapter N --step M start at chapter N, step M\n"
            "  --reset              forget saved progress\n"
            "  --ascii              ASCII glyphs instead of Unicode box drawing\n"
            "  --no-color           no colours (also NO_COLOR=1); glyphs still mark conflicts\n"
            "  --replay FILE        show measurements recorded by bench/verify --json\n"
            "  --device N           use CUDA device N\n"
            "  --server SOCKET      measure on the GPU server there (banklab serve)\n"
            "  --no-server          measure in this process\n"
            "  --present            presenter mode for a projector (progress not shown or saved;\n"
            "                       --keep-progress uses it)\n"
            "  -h, --help           this help\n"
            "  -V, --version        version\n"
            "\n");
    cli_print_keys(f, "Tutorial keys: ", ". Lessons add their parameter keys (e.g. p/P).");
    fprintf(f, "\nExit status: 0 success, 1 a failed check, 2 bad usage or input (also: output that\n"
               "could not be written), 3 no GPU.\n");
}

int main(int argc, char **argv)
{
    if (argc >= 2) {
        if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
            usage(stdout);
            return cli_stdout_done(NULL, 0);
        }
        if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
            printf("banklab %s\n", BANKLAB_VERSION);
            return cli_stdout_done(NULL, 0);
        }
        if (!strcmp(argv[1], "__kernel-child")) /* banklab kernel's measuring process */
            return gpu_kernel_child_main(argc - 2, argv + 2);
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
            if (!strcmp(argv[1], commands[i].name))
                return cli_stdout_done(commands[i].name, commands[i].run(argc - 1, argv + 1));
        size_t n = strlen(argv[1]);
        if (n > 3 && !strcmp(argv[1] + n - 3, ".cu")) /* banklab FILE.cu: the kernel view */
            return cli_stdout_done(NULL, cmd_tutorial(argc, argv));
        if (argv[1][0] != '-') {
            fprintf(stderr, "banklab: unknown command '%s' (banklab --help lists them; a kernel: "
                    "banklab FILE.cu)\n", CLI_CLEAN(argv[1]));
            return EXIT_USAGE;
        }
    }
    return cli_stdout_done(NULL, cmd_tutorial(argc, argv));
}
