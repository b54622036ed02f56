/* bench.c: placeholder until its owner lands it. */
#include <stdio.h>

#include "cli.h"

int cmd_bench(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "banklab: 'bench' is not built yet\n");
    return EXIT_USAGE;
}
