/* report.c: placeholder until its owner lands it. */
#include <stdio.h>

#include "cli.h"

int cmd_report(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "banklab: 'report' is not built yet\n");
    return EXIT_USAGE;
}
