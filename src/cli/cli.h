/* cli.h: the subcommands behind `banklab`. Each takes argv after the subcommand name
 * (argv[0] is the subcommand) and returns the exit status: 0 success, 1 a failed check,
 * 2 bad usage or bad input (message on stderr), 3 no GPU where one is required. */
#ifndef BANKLAB_CLI_H
#define BANKLAB_CLI_H

#include <stdio.h>

#include "../base/utf8.h"
#include "../gpu/gpu.h"

#define EXIT_CHECK 1
#define EXIT_USAGE 2
#define EXIT_NOGPU 3
#define EXIT_UNMEASURED 4        /* the GPU could not measure (all of) it: busy counters, no
                                    turn, a failed run (sim --gpu, verify) */

int cmd_sim(int argc, char **argv);      /* sim.c: one warp access through the model */
int cmd_check(int argc, char **argv);    /* check.c: validate lesson files */
int cmd_bench(int argc, char **argv);    /* bench.c: GPU measurements vs the model */
int cmd_verify(int argc, char **argv);   /* verify.c: model vs hardware counters */
int cmd_report(int argc, char **argv);   /* report_cmd.c: lab report from saved progress */
int cmd_lab(int argc, char **argv);      /* lab.c: run a graded workshop lab */
int cmd_kernel(int argc, char **argv);
int cmd_run(int argc, char **argv);      /* run.c: a whole program under the injection library */   /* kernel.c: measure a learner's .cu file per line */
int cmd_tutorial(int argc, char **argv); /* tutorial.c: the interactive program (no subcommand) */
int cmd_serve(int argc, char **argv);    /* serve.c: the GPU server and its controls */

/* cli_server_arg (args.c): argv[*i] is --server SOCKET or --no-server: stored in *server /
 * *no_server (and *i moved past the value). 1 when taken, 0 when argv[*i] is another option,
 * -1 after a message (a missing value). */
int cli_server_arg(const char *cmd, int argc, char **argv, int *i, const char **server,
                   int *no_server);

/* Largest device index --device accepts. */
#define CLI_DEVICE_MAX 63

/* cli_int_arg (args.c): val as a decimal integer in lo..hi into *out. On a missing or bad
 * value prints "banklab CMD: OPT takes an integer in LO..HI, not 'VAL'" on stderr and
 * returns -1 (the caller exits with EXIT_USAGE). cmd NULL: the tutorial ("banklab: ..."). */
int cli_int_arg(const char *cmd, const char *opt, const char *val, long long lo, long long hi,
                long long *out);

/* cli_open_replay (args.c): load the recording at path and open it as the GPU (--replay).
 * Returns the handle (gpu_close it), or NULL after printing one line on stderr (a missing,
 * truncated or foreign file, or out of memory). info is filled on success. */
struct gpu *cli_open_replay(const char *cmd, const char *path, struct gpu_info *info);

/* cli_print_keys (args.c): lead, the tutorial's keys from the key table ("n/Space/Right next,
 * b/Left back, ..."), tail, wrapped to lines of 90 columns on f. */
void cli_print_keys(FILE *f, const char *lead, const char *tail);

/* CLI_CLEAN: text banklab did not write itself (a file name, a recording's device, an echoed
 * answer, a loader message quoting a file) escaped for the terminal: control characters and
 * invalid UTF-8 as \xNN (bl_clean). The buffer lives until the end of the enclosing block. */
#define CLI_CLEAN_MAX 2048
#define CLI_CLEAN(s) bl_clean((char[CLI_CLEAN_MAX]){0}, CLI_CLEAN_MAX, (s))

/* cli_put_clean (args.c): s escaped as CLI_CLEAN does, uncut (any length), on f; with lines
 * a newline stays a newline (bl_clean_lines: a compiler's log). */
void cli_put_clean(FILE *f, const char *s, int lines);

/* cli_stdout_done (args.c): flushes stdout; when anything written to it was lost (a full disk,
 * a closed pipe) prints "banklab CMD: write error on standard output: ..." on stderr and
 * returns EXIT_USAGE, else rc. Called once by main() after every command. */
int cli_stdout_done(const char *cmd, int rc);

#endif
