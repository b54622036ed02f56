/* main.c: `banklab` entry point. Dispatches to a subcommand of CLI_COMMANDS (cli.h), or starts
 * the tutorial (tutorial.c, which also holds banklab --help) when the first argument is not
 * one. Only wiring lives here. */
#include <stdio.h>
#include <string.h>

#include "../compile/compile.h"
#include "../kernel/kernel.h"
#include "cli.h"
#include "../kmeasure/kmeasure.h"

#define ROW(name, summary) {#name, cmd_##name},
static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} commands[] = {CLI_COMMANDS(ROW)};

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "__nvrtc")) /* a fix's copy through NVRTC (rtc.c) */
        return krtc_child_main(argc - 2, argv + 2);
    cli_lang_init(argc, argv);
    krtc_enable(); /* krtc_compile may run this executable as __nvrtc */
    if (argc >= 2) {
        if (!strcmp(argv[1], "help"))  /* the tutorial's --help lists the commands */
            return cli_stdout_done(NULL, cmd_tutorial(2, (char *[]){argv[0], "--help", NULL}));
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
            cli_tell(NULL, CLI_E_UNKNOWN_COMMAND, CLI_CLEAN(argv[1]));
            return EXIT_USAGE;
        }
    }
    return cli_stdout_done(NULL, cmd_tutorial(argc, argv));
}
