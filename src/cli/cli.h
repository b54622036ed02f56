/* cli.h: the subcommands behind `banklab` and what they share. Each takes argv after the
 * subcommand name (argv[0] is the subcommand) and returns the exit status: 0 success, 1 a
 * failed check, 2 bad usage or bad input (message on stderr), 3 no GPU where one is required. */
#ifndef BANKLAB_CLI_H
#define BANKLAB_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "../base/msg.h"
#include "../base/utf8.h"
#include "../gpu/gpu.h"

#define EXIT_CHECK 1
#define EXIT_USAGE 2
#define EXIT_NOGPU 3
#define EXIT_UNMEASURED 4        /* the GPU could not measure (all of) it: busy counters, no
                                    turn, a failed run (sim --gpu, verify) */

/* The subcommands: a row here (its name, its function cmd_NAME in src/cli/NAME.c or the file
 * its comment names, the msg.def id of its summary for banklab --help; main.c dispatches from
 * this list) and its section of assets/banklab.1 are all a new one needs. */
#define CLI_COMMANDS(X)                                                                        \
    X(sim, CLI_SUM_SIM)                                                                        \
    X(check, CLI_SUM_CHECK)                                                                    \
    X(bench, CLI_SUM_BENCH)                                                                    \
    X(verify, CLI_SUM_VERIFY)                                                                  \
    X(lab, CLI_SUM_LAB)                                                                        \
    X(report, CLI_SUM_REPORT) /* report_cmd.c */                                               \
    X(kernel, CLI_SUM_KERNEL)                                                                  \
    X(serve, CLI_SUM_SERVE)                                                                    \
    X(run, CLI_SUM_RUN)

#define CLI_DECLARE(name, summary) int cmd_##name(int argc, char **argv);
CLI_COMMANDS(CLI_DECLARE)
int cmd_tutorial(int argc, char **argv); /* tutorial.c: banklab without a subcommand */

/* ---- the language of what the commands print (args.c) ----
 * cli_lang_init (main, before any command): --lang zh|en among the arguments (before "--"),
 * else Chinese when the locale asks for it in UTF-8 (LC_ALL, LC_MESSAGES, LANG), else
 * English. Every text comes from the catalogue (src/base/msg.def) in that language.
 * cli_set_lang: a command's own choice (the tutorial's saved one, a report's). cli_msg: the
 * printf format of a message id in it. cli_say: that message formatted on f. cli_tell:
 * "banklab CMD: " (cmd NULL: "banklab: "), the message and a newline on stderr. */
void cli_lang_init(int argc, char **argv);
void cli_set_lang(enum bl_lang lang);
enum bl_lang cli_lang(void);
const char *cli_msg(int id);
void cli_say(FILE *f, int id, ...);
void cli_tell(const char *cmd, int id, ...);

/* ---- the options of a command (opts.c) ----
 * Every command reads its options with cli_parse from its one table (struct cli_opt):
 * getopt_long's array, the parsing (no abbreviations, banklab's own messages) and the option
 * list of --help (cli_opt_help) are made from it. The usage line and the text around the list
 * stay rows of the catalogue (msg_help.def). */

/* Keys cli_parse gives the command's opt() besides those of its table: an argument that is
 * not an option, before "--" (CLI_ARG) and after it (CLI_REST). */
#define CLI_ARG 1
#define CLI_REST 2
/* Keys of the options several commands share (the rows CLI_SERVER_ROWS, CLI_LANG_ROW,
 * CLI_LAUNCH_ROWS, CLI_DEVICE_ROW, CLI_MEASURE_ROWS). */
enum { CLI_SERVER = 0x100, CLI_NO_SERVER, CLI_LAUNCH, CLI_LANG, CLI_DEVICE, CLI_REPLAY,
       CLI_MODEL_ONLY, CLI_KEY_FIRST };

/* Where a row's option goes. */
enum cli_how {
    CLI_CALL = 0,        /* the command's opt() with the row's key */
    CLI_SET,             /* the int at off in the command's context set to 1 */
    CLI_STR,             /* the value into the const char * at off (need: the message id
                            when it is missing or empty; 0: any value) */
    CLI_TEXT,            /* not an option: the catalogue row help printed in --help's list */
    CLI_LAUNCH_ROWS,     /* the launch options of the classes key (GPU_KOPT_, kernel.h) from
                            the kernel room's table, each to opt() as CLI_LAUNCH with its name
                            as spelled; help 1: listed in --help */
};

struct cli_opt {
    const char *name;    /* the long name, "grid" (NULL: a letter alone, or a CLI_TEXT or
                            CLI_LAUNCH_ROWS row) */
    char letter;         /* its short letter, or 0 */
    const char *arg;     /* its value's name in --help, "DIR"; NULL: takes no value */
    int help;            /* msg.def id of its description in --help (lines after the first
                            start at the column); 0: not listed */
    int how;             /* enum cli_how */
    int key;             /* CLI_CALL: what opt() is given; 'h' is --help, CLI_LANG --lang */
    size_t off;          /* CLI_SET, CLI_STR: offsetof the field in the context */
    int need;            /* CLI_STR */
    int num;             /* a number printf'd into the description (its default) */
};
#define CLI_OPT_END(o) (!(o)->name && !(o)->letter && (o)->how == CLI_CALL)

/* The rows: an option handled by opt(), a switch, a string, a text of the list, the end. */
#define CLI_ROW(name, letter, arg, help, key) {name, letter, arg, help, CLI_CALL, key, 0, 0, 0}
#define CLI_ROW_NUM(name, arg, help, key, num) {name, 0, arg, help, CLI_CALL, key, 0, 0, num}
#define CLI_ROW_SET(name, help, type, field) \
    {name, 0, NULL, help, CLI_SET, 0, offsetof(type, field), 0, 0}
#define CLI_ROW_STR(name, arg, help, type, field, need) \
    {name, 0, arg, help, CLI_STR, 0, offsetof(type, field), need, 0}
#define CLI_ROW_TEXT(id) {NULL, 0, NULL, id, CLI_TEXT, 0, 0, 0, 0}
#define CLI_ROW_LAUNCH(classes, listed) {NULL, 0, NULL, listed, CLI_LAUNCH_ROWS, classes, 0, 0, 0}
#define CLI_ROW_HELP(help) {"help", 'h', NULL, help, CLI_CALL, 'h', 0, 0, 0}
#define CLI_ROW_END {NULL, 0, NULL, 0, CLI_CALL, 0, 0, 0, 0}

/* --lang zh|en for a command that has no language of its own: cli_parse checks its value
 * (cli_lang_init took it) and gives it to no opt(). */
#define CLI_LANG_ROW(help) CLI_ROW("lang", 0, "zh|en", help, CLI_LANG)

/* --lang zh|en for a command with a language of its own: its opt() gets key. */
#define CLI_LANG_OPT_ROW(help, key) CLI_ROW("lang", 0, "zh|en", help, key)

/* --no-gpu: its opt() gets key. */
#define CLI_NO_GPU_ROW(help, key) CLI_ROW("no-gpu", 0, NULL, help, key)

/* --device N: opt() gets CLI_DEVICE. */
#define CLI_DEVICE_ROW(help) CLI_ROW("device", 0, "N", help, CLI_DEVICE)

#define CLI_SERVER_ROWS(help_server, help_no_server)                                           \
    CLI_ROW("server", 0, "SOCKET", help_server, CLI_SERVER),                                   \
    CLI_ROW("no-server", 0, NULL, help_no_server, CLI_NO_SERVER)

/* Where a measurement comes from, in this order in every command that measures: --device N,
 * --server SOCKET, --no-server, --replay FILE (opt() gets CLI_REPLAY), --model-only (opt()
 * gets CLI_MODEL_ONLY); each with the command's own description. */
#define CLI_MEASURE_ROWS(help_device, help_server, help_no_server, help_replay, help_model_only) \
    CLI_DEVICE_ROW(help_device), CLI_SERVER_ROWS(help_server, help_no_server),                   \
    CLI_ROW("replay", 0, "FILE", help_replay, CLI_REPLAY),                                       \
    CLI_ROW("model-only", 0, NULL, help_model_only, CLI_MODEL_ONLY)

struct cli_cmd {
    const char *name;              /* "sim"; NULL: the tutorial (messages "banklab: ...") */
    const struct cli_opt *opts;    /* ends with CLI_ROW_END */
    int in_order;                  /* 1: the first argument that is not an option ends them */
    int unknown;                   /* the message id for an unknown option, %s the option */
    void (*usage)(FILE *f);        /* the short usage after every usage error, or NULL */
    void (*help)(FILE *f);         /* -h, --help on stdout */
    /* one option (name as spelled: "--grid", "-I"; val NULL when its value is missing) or
     * argument (CLI_ARG, CLI_REST: name NULL). 0, or EXIT_USAGE after cli_usage_error. */
    int (*opt)(void *ctx, int key, const char *name, const char *val);
    /* --help's list: descriptions from column col, at least gap blanks after the option;
     * letters: options without a letter indented as if "-x, " stood before them */
    int col, gap, letters;
};

/* cli_parse: argv[1..] through c's table. 0; -1 after --help (exit 0); EXIT_USAGE after a
 * message. With c->in_order, *rest is the index of the first argument left (argc: none). */
int cli_parse(const struct cli_cmd *c, int argc, char **argv, void *ctx, int *rest);

/* cli_opt_help: the option list of c's --help, from its table, on f. */
void cli_opt_help(FILE *f, const struct cli_cmd *c);

/* cli_count_opt: val as a count 0..1000000000 (--launch-skip, --launch-count) into *out: 0,
 * or EXIT_USAGE ("OPT takes a count"). */
int cli_count_opt(const struct cli_cmd *c, const char *name, const char *val, long *out);

/* cli_usage_error: "banklab CMD: " and the message id (msg.def) with its arguments on stderr,
 * in the language of cli_lang, then c's short usage. Text from outside (an argument) must be
 * escaped by the caller (CLI_CLEAN). Returns EXIT_USAGE. */
int cli_usage_error(const struct cli_cmd *c, int id, ...);

/* cli_server_opt: --server SOCKET (a path, not empty) and --no-server. 0, or EXIT_USAGE. */
int cli_server_opt(const struct cli_cmd *c, int key, const char *val, const char **server,
                   int *no_server);

/* Largest device index --device accepts. */
#define CLI_DEVICE_MAX 63

/* cli_int_arg (args.c): val as a decimal integer in lo..hi into *out. On a missing or bad
 * value prints "banklab CMD: OPT takes an integer in LO..HI, not 'VAL'" on stderr and
 * returns -1 (the caller exits with EXIT_USAGE). cmd NULL: the tutorial ("banklab: ..."). */
int cli_int_arg(const char *cmd, const char *opt, const char *val, long long lo, long long hi,
                long long *out);

/* cli_int_opt (args.c): cli_int_arg for an option of c into an int: 0, or EXIT_USAGE. */
int cli_int_opt(const struct cli_cmd *c, const char *opt, const char *val, int lo, int hi,
                int *out);

/* cli_open_replay (args.c): load the recording at path and open it as the GPU (--replay).
 * Returns the handle (gpu_close it), or NULL after printing one line on stderr (a missing,
 * truncated or foreign file, or out of memory). info is filled on success. */
struct gpu *cli_open_replay(const char *cmd, const char *path, struct gpu_info *info);

/* cli_model_only (args.c): BANKLAB_MODEL_ONLY is set (and not "0"): without a GPU, the model
 * alone, as --model-only. cli_recorded_fallback: *g (opened by gpu_open_auto) cannot measure
 * and model_only is 0: the shipped recording (recording_open_shipped) takes its place, *info
 * is the recording's and *why says why the device could not (returns 1); else nothing
 * changes (0). */
int cli_model_only(void);
int cli_recorded_fallback(struct gpu **g, struct gpu_info *info, int model_only,
                          struct bl_err *why);

/* cli_open_gpu (args.c): the recording at replay (cli_open_replay), else the GPU as gpu_open_auto
 * opens it. NULL after one line on stderr, *rc the exit status: EXIT_NOGPU, or EXIT_USAGE (out
 * of memory, a bad recording). */
struct gpu *cli_open_gpu(const char *cmd, const char *replay, int device, const char *server,
                         int no_server, struct gpu_info *info, int *rc);

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

/* cli_now_utc (args.c): the date and time now as a recording writes it, 2026-01-31T12:00:00Z. */
void cli_now_utc(char *buf, size_t n);

/* cli_err_text (args.c): e's message for the learner: in English its text; in Chinese (zh 1)
 * rendered from its msg.def row into buf, or its English text where e carries only text (a
 * recording's, an older peer's): English text is never read back. */
const char *cli_err_text(const struct bl_err *e, int zh, char *buf, size_t n);

/* CLI_NOTE: a result's note (message m, English text en) in the language of cli_lang
 * (bl_msg_or_text), in a buffer that lives until the end of the enclosing block. */
#define CLI_NOTE(m, en) bl_msg_or_text((m), (en), cli_lang(), (char[1024]){0}, 1024)
/* CLI_ERR: cli_err_text of e in the language of cli_lang, in a buffer that lives until the
 * end of the enclosing block. */
#define CLI_ERR(e) cli_err_text((e), cli_lang() == BL_LANG_ZH, (char[BL_ERR_TEXT * 2]){0}, \
                                BL_ERR_TEXT * 2)

/* cli_stdout_done (args.c): flushes stdout; when anything written to it was lost (a full disk,
 * a closed pipe) prints "banklab CMD: write error on standard output: ..." on stderr and
 * returns EXIT_USAGE, else rc. Called once by main() after every command. */
int cli_stdout_done(const char *cmd, int rc);

/* cli_run_program (run.c): `banklab run` of argv (a program built by banklab kernel from a
 * .cu with main()): every kernel it launches measured in one run (--kernel kernel_re, skip and
 * count as --launch-skip and --launch-count, -1 when not given), printed as banklab run prints
 * (json: one object). Returns the exit status. */
int cli_run_program(char **argv, const char *kernel_re, long skip, long count, int json);

#endif
