/* sim.h: what the two files of `banklab sim` share: the options as parsed (sim_args.c) for
 * the run (sim.c). Not for use outside src/cli/sim*.c. */
#ifndef BANKLAB_CLI_SIM_H
#define BANKLAB_CLI_SIM_H

#include <stdint.h>
#include <stdio.h>

#include "../model/bank.h"
#include "../model/pattern.h"
#include "cli.h"

struct sim_args {
    const char *pattern;         /* PATTERN, or NULL for the raw form */
    struct pattern_env env;
    int block_set, warp_set, params_set, dyn_set;
    int access;                  /* 1-based access to show, 0 = all */
    int have_offsets;
    uint64_t offset[BANK_LANES];
    unsigned width;
    int width_set;
    int store;
    uint32_t mask;
    int mask_set;
    int json, ascii, no_color, lanes, cols;
    const char *svg;
    int gpu, device, device_set;             /* --gpu, --device N */
    const char *server;                      /* --server SOCKET: a GPU server to ask */
    int no_server;                           /* --no-server: measure in this process */
    const char *replay;                      /* --replay FILE (or the shipped recording) */
    int model_only;                          /* --model-only: no recording by default */
    const char *script;                      /* --script FILE: a pattern a line, "-" stdin */
};

/* sim_parse_args: the command line into a (zeroed first, defaults set). 0; -1 when --help
 * was printed (exit 0); EXIT_USAGE after a message and the short usage on stderr. */
int sim_parse_args(int argc, char **argv, struct sim_args *a);

/* sim_cmd: the command's options and messages (cli_usage_error(&sim_cmd, ...)). */
extern const struct cli_cmd sim_cmd;

#endif
